// --emit=launch (-o NAME.launch.json): how a host launches each kernel --emit=opencl writes, as
// JSON beside the kernel source: global and local work sizes, and every argument in order with
// what to allocate for it. docs/opencl-emitter.md, "Launching from a host program".
#pragma once

#include <string>

#include "ir/diagnostic.h"
#include "ir/function.h"

namespace tirlower {

// Throws CompileError for a module --emit=opencl rejects (with the same error).
std::string emitLaunchJson(const Module &module, DiagnosticSink &diagnostics);

} // namespace tirlower
