// --emit=launch (-o NAME.launch.json): how a host launches each kernel --emit=opencl writes, as
// JSON beside the kernel source: global and local work sizes, and every argument in order with
// what to allocate for it. docs/opencl-emitter.md, "Launching from a host program".
#pragma once

#include <string>

#include "ir/diagnostic.h"
#include "codegen/opencl/opencl_emitter.h"
#include "ir/function.h"

namespace tirlower {

// Throws CompileError for a module --emit=opencl rejects (with the same error).
std::string emitLaunchJson(const Module &module, DiagnosticSink &diagnostics, const OpenCLEmitOptions &options = {});

// --emit=launch-h (-o NAME.launch.h): a C header with one function per kernel,
// `int tl_launch_KERNEL(SCALARS..., size_t global[3], size_t local[3])`, that fills the sizes
// clEnqueueNDRangeKernel takes from the kernel's scalar arguments (in signature order) and
// returns 0, or 1 when a size is below 1 (nothing to launch). Errors as emitLaunchJson.
std::string emitLaunchHeader(const Module &module, DiagnosticSink &diagnostics, const OpenCLEmitOptions &options = {});

} // namespace tirlower
