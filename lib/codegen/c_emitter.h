// --emit=c: C11 source, one function per PrimFunc with the C ABI of SEMANTICS.md:
// `int32_t symbol(T *buffer..., scalar...)`, returning 0, or 1 when an assert fails.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>

#include "ir/diagnostic.h"
#include "codegen/module_writer.h"
#include "ir/function.h"

namespace tirlower {

struct CEmitOptions {
  bool openmp = false; // T.parallel loops become `#pragma omp parallel for`
  unsigned threads = 1; // functions written on this many threads (--threads); the same bytes
  // --abi=tvm-ffi: every function also gets its TVM FFI entry (codegen/ffi_entry.h), and raises
  // a tvm-ffi error itself when an assert or a heap allocation fails.
  bool tvmFfi = false;
};

// Throws CompileError for IR that C cannot express (a buffer access of physical rank > 1, an
// allocation of unsupported type); warnings (a renamed symbol) go to `diagnostics`.
std::string emitC(const Module &module, const CEmitOptions &options, DiagnosticSink &diagnostics);

// emitC without holding the file's text: the functions' text goes to `sink` in module order as
// it is written (one function's text at a time), and the head, which depends on every function
// and comes before them in the file, is returned at the end: emitC's bytes are the head followed
// by what `sink` received. Throws as emitC does, after `sink` may have received part of the text.
std::string emitCStreamed(const Module &module, const CEmitOptions &options, DiagnosticSink &diagnostics,
                          const std::function<void(std::string_view)> &sink);

// emitC in parts, so that functions can be written apart (on several threads) and joined:
//   CSupport support; std::string text; std::unordered_set<std::string> symbols;
//   for each function f, in module order:
//     emitCFunction(*f, cFunctionSymbol(*f, symbols, diagnostics), options, support, text);
//   return cFileHead(support) + text;
// emitCFunction reads only its function and writes only `support` and `out`: functions written
// with a CSupport each, their texts joined in module order and their CSupports merged
// (CSupport::merge, in any order) give emitC's bytes.
class CSupport;

// The C symbol of `func` (cSymbolName), warning when it is renamed; throws CompileError when an
// earlier function (in `symbols`, which it extends) has the same symbol.
std::string cFunctionSymbol(const PrimFuncNode &func, std::unordered_set<std::string> &symbols,
                            DiagnosticSink &diagnostics);
// Appends one function's C ("\n", its parameter comment and its definition) to `out` and
// records the typedefs, helpers and external prototypes it uses in `support`. Throws
// CompileError for IR that C cannot express (then `out` holds part of the function).
void emitCFunction(const PrimFuncNode &func, const std::string &symbol, const CEmitOptions &options, CSupport &support,
                   std::string &out);
// The file's text before the functions: the includes, then the typedefs and helpers, then the
// external prototypes `support` holds.
std::string cFileHead(const CSupport &support);

// emitC in those parts for `workers` workers (codegen/module_writer.h): the head and the joined
// texts give emitC's bytes for the module of every function written, in the order joined.
std::unique_ptr<ModuleWriter> makeCModuleWriter(const CEmitOptions &options, unsigned workers);

} // namespace tirlower
