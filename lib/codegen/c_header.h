// --emit=h: a C header with the prototype of every function of a module, as --emit=c defines it
// (docs/abi.md), and per parameter a comment with its physical shape, dtype and size after the
// layout transforms the pipeline applied. --emit=c writes the same comment above each function.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/access_census.h"
#include "ir/diagnostic.h"
#include "ir/function.h"

namespace tirlower {

// "// scale(A, B, n): 0 on success, ...\n//   B: float32, shape (1, 2, 5, 5, 4), layout NCHW4c,
// 200 elements (800 bytes)\n..." for the function whose C symbol is `symbol`.
std::string cParameterComment(const PrimFuncNode &func, const std::string &symbol);
// The same from the function's census taken without T.assume (AccessCensus::of(func.body,
// false)), for an emitter that has it already.
std::string cParameterComment(const PrimFuncNode &func, const std::string &symbol, const AccessCensus &census);
// The same appended to `out`, with the parameters' C names (`names`, in order) given.
void appendCParameterComment(std::string &out, const PrimFuncNode &func, const std::string &symbol,
                             const std::vector<std::string> &names, const AccessCensus &census);

// The elements a caller's storage for `buffer` must hold (the shape's product, or for a strided
// view the furthest element it reaches plus one); nullopt when an extent is symbolic.
std::optional<int64_t> bufferStorageElements(const BufferNode &buffer);

// The header. Throws CompileError for a module the C emitter rejects (the header never describes
// code --emit=c cannot write); the C emitter's warnings (a renamed symbol) go to `diagnostics`.
// `guard` is the include guard's macro; empty: TIRLOWER_<first function>_<hash of every
// function's symbol>_H, so that the headers of two modules have different guards (TVM prints
// every module as `class Module`).
std::string emitCHeader(const Module &module, DiagnosticSink &diagnostics, const std::string &guard = "");

} // namespace tirlower
