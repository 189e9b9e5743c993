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
// that is not a float32 RGBA texture, an image both read and written in one kernel, a
// non-constant thread extent, an unsupported vector width. A kernel with asserts reports a
// failure through an extra last argument (see KernelLaunch::assertMessages). Warnings (a renamed kernel) go to
// `diagnostics`.
//
// Warp intrinsics (T.tvm_warp_shuffle[_up|_down], T.tvm_warp_activemask) need
// `subgroupSize`: the device offers cl_khr_subgroup_shuffle and _relative and runs the kernel in
// sub-groups of that many work-items; each kernel that uses them checks it when it starts.
struct OpenCLEmitOptions {
  int subgroupSize = 0; // --subgroup-size; 0: the device offers no sub-group shuffles
};
std::string emitOpenCL(const Module &module, DiagnosticSink &diagnostics, const OpenCLEmitOptions &options = {});

// How to launch one kernel: work sizes per dimension (global = groups x local) and the
// parameter names in signature order, as emitted.
//
// A kernel with asserts has one more argument after the PrimFunc's parameters, `tl_error`: a
// `__global int*` to one int that the host sets to 0 before the launch. A work-item whose assert
// K (1-based, in program order) fails stores K there unless another failure came first, and
// ends; after the run, a non-zero value K means the function failed with assertMessages[K - 1]
// (the C ABI's return value 1).
// A number of groups may depend on the kernel's scalar parameters ((n + 31) // 32 over a
// symbolic n): `groups` has every dimension's as an int64 expression (a constant where it is
// one), and globalSize is 0 in such a dimension. Work-group sizes are constants.
struct KernelLaunch {
  std::string kernel;
  std::array<int64_t, 3> globalSize{1, 1, 1};
  std::array<int64_t, 3> localSize{1, 1, 1};
  std::array<Expr, 3> groups;
  bool symbolic() const { return globalSize[0] == 0 || globalSize[1] == 0 || globalSize[2] == 0; }
  // The names of the PrimFunc's parameters as arguments (args, by parameter).
  std::vector<const VarNode *> params;
  std::vector<std::string> args;
  std::vector<std::string> assertMessages;
};

// One entry per PrimFunc, in module order. Throws CompileError as emitOpenCL does for thread
// bindings it cannot launch (unknown tag, a work-group extent that is not a constant).
std::vector<KernelLaunch> launchGeometry(const Module &module, const OpenCLEmitOptions &options = {});

} // namespace tirlower
