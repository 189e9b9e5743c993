// --emit=c: C11 source, one function per PrimFunc with the C ABI of SEMANTICS.md:
// `int32_t symbol(T *buffer..., scalar...)`, returning 0, or 1 when an assert fails.
#pragma once

#include <string>

#include "ir/diagnostic.h"
#include "ir/function.h"

namespace tirlower {

struct CEmitOptions {
  bool openmp = false; // T.parallel loops become `#pragma omp parallel for`
};

// Throws CompileError for IR that C cannot express (a buffer access of physical rank > 1, an
// allocation of unsupported type); warnings (a renamed symbol) go to `diagnostics`.
std::string emitC(const Module &module, const CEmitOptions &options, DiagnosticSink &diagnostics);

} // namespace tirlower
