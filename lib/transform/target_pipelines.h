// The default pass pipeline of each --target, in one table (as Halide's Lower.cpp lists its
// steps): what a target's emitter requires, in the order the passes establish it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tirlower {

struct TargetPipeline {
  std::string name;     // --target=NAME
  std::string emitter;  // the emitter it selects
  std::string pipeline; // pipeline text, as --pass-pipeline takes it
};

const std::vector<TargetPipeline> &targetPipelines();
const TargetPipeline *findTargetPipeline(std::string_view name);
std::string targetPipelineNames(); // "c, llvm, opencl"

} // namespace tirlower
