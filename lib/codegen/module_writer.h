// An emitter in parts, for a module whose functions arrive a few at a time and are written as
// they come (tirlower's streamed compile: each piece of a large input is parsed, lowered,
// written and freed before memory fills with the whole module). Each function's text is written
// on some worker thread, the caller joins the texts in module order, and the head, which
// depends on every function and comes before them, is known last.
#pragma once

#include <optional>
#include <string>

#include "ir/diagnostic.h"
#include "ir/function.h"

namespace tirlower {

class ModuleWriter {
public:
  virtual ~ModuleWriter() = default;
  // Appends `func`'s text to `out`. `piece`: the module of the functions parsed with it (its
  // spelling and flags, as the whole module's would be); `first`: whether `func` is the module's
  // first function. `worker` is below the worker count the writer was made for; each worker
  // writes one function at a time, and workers write at once. Throws CompileError for IR the
  // format cannot express; warnings go to `diagnostics`.
  virtual void write(const PrimFuncNode &func, const Module &piece, bool first, unsigned worker, std::string &out,
                     DiagnosticSink &diagnostics) = 0;
  // The text before the functions, once every function is written; nullopt when the functions
  // cannot be written together (two of them have the same symbol; pieces of two spellings):
  // the caller then emits the whole module at once, which reports or decides it.
  virtual std::optional<std::string> head() = 0;
};

} // namespace tirlower
