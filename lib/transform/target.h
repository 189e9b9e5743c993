// The targets tirlower lowers for, one record each: what --target=NAME means to the tool, the
// pass manager and the emitters, read from here instead of compared as a string where it is
// used. A record gives the target's default pipeline (in order, as Halide's Lower.cpp lists its
// steps: what the target's emitter requires, in the order the passes establish it), the emitter
// it selects, the code-generation flags its code takes, and the layout requirements it imposes
// on a function's buffers by their role (read by legalize-layouts and verify-layouts).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/function.h"

namespace tirlower {

struct Target {
  std::string name;     // --target=NAME
  std::string emitter;  // the --emit it selects when none is given
  std::string pipeline; // its default pipeline, as --pass-pipeline takes it
  // The tool's code-generation flags that apply to its code ("--openmp", "-O", "--abi", ...).
  std::vector<std::string> flags;
  // The --emit whose output --emit=so compiles into a shared library for this target ("c",
  // "obj"); empty when it has none.
  std::string sharedLibraryCode;
  // The requirements the target puts on a function's buffers by their role (Origin::Target);
  // null when it puts none.
  std::vector<LayoutRequirement> (*layoutRequirements)(const PrimFuncNode &func) = nullptr;

  bool accepts(std::string_view flag) const;
  // Every requirement the target puts on `func` (none without layoutRequirements).
  std::vector<LayoutRequirement> requirementsOf(const PrimFuncNode &func) const;
};

const std::vector<Target> &targets();
const Target *findTarget(std::string_view name);
std::string targetNames(); // "c, llvm, opencl"

} // namespace tirlower
