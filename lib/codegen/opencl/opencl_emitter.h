// --emit=opencl: OpenCL C 1.2 source, one `__kernel void` per PrimFunc, named by its global
// symbol. Thread-bound loops become get_group_id/get_local_id; the launch geometry is written as
// a comment above each kernel and is available as data from launchGeometry().
// See docs/opencl-emitter.md.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/function.h"

namespace tirlower {

// Throws CompileError for IR that OpenCL C 1.2 cannot express: a buffer of physical rank > 1
// that is not a float32 RGBA texture, an image both read and written in one kernel, an assert,
// a non-constant thread extent, an unsupported vector width. Warnings (a renamed kernel) go to
// `diagnostics`.
std::string emitOpenCL(const Module &module, DiagnosticSink &diagnostics);

// How to launch one kernel: work sizes per dimension (global = groups x local) and the
// parameter names in signature order, as emitted.
struct KernelLaunch {
  std::string kernel;
  std::array<int64_t, 3> globalSize{1, 1, 1};
  std::array<int64_t, 3> localSize{1, 1, 1};
  std::vector<std::string> args;
};

// One entry per PrimFunc, in module order. Throws CompileError as emitOpenCL does for thread
// bindings it cannot launch (unknown tag, non-constant extent).
std::vector<KernelLaunch> launchGeometry(const Module &module);

} // namespace tirlower
