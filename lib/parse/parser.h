// The TVMScript parser: text -> Module, with type checking at parse time. Every error is a
// located diagnostic; the parser recovers at statement and function boundaries so one run
// reports several independent errors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/function.h"
#include "parse/source_manager.h"

namespace tirlower {

struct ParseRange {
  uint32_t begin = 0;
  uint32_t end = UINT32_MAX; // clamped to the file size
};

// Parses the functions in [range.begin, range.end) of a file (a whole file, or one chunk of
// --split-input-file). Returns nullopt when any error was reported.
std::optional<Module> parseModule(const SourceManager &sources, uint32_t fileId, DiagnosticSink &diagnostics,
                                  ParseRange range = {});

// What parseModule of the range reports (the same diagnostics, in the same order), with each
// function freed as soon as it is parsed, so that memory stays flat however long the input:
// for a caller that has the functions already, or does not need them once the input has an
// error. Returns whether the range parses without errors.
bool checkParse(const SourceManager &sources, uint32_t fileId, DiagnosticSink &diagnostics, ParseRange range = {});

// parseModule on up to `threads` threads, with the same result and diagnostics: the range is cut
// at top-level decorators (lines that start with '@') into pieces parsed at once, each from the
// module-level declarations before the first function. A piece with an error or a warning, a
// module-level declaration of its own or an @I.ir_module class, or a function name that another
// piece also defines, makes it parse the whole range on one thread (what it then reports is
// exactly what parseModule reports). Small inputs are parsed on one thread.
std::optional<Module> parseModule(const SourceManager &sources, uint32_t fileId, DiagnosticSink &diagnostics,
                                  ParseRange range, unsigned threads);

// A range cut into pieces at top-level decorators, for callers that take each piece further on
// its own as soon as it is parsed (tirlower's streamed compile) and for parseModule on threads.
// The module-level declarations before the first function are parsed once, here; each piece is
// parsed from them. A piece's functions are the functions parseModule of the whole range gives,
// in the same order, unless parsing the whole range would differ: parse() then says so, and the
// caller falls back to parseModule of the whole range, which reports exactly what one thread
// does (functions with the same name in two pieces are for the caller to check).
class ModulePieces {
public:
  // Nullopt when the range has fewer than two pieces, or when its head (what precedes the first
  // decorator) reports anything, is an @I.ir_module or defines a function. `pieceBytes`: about
  // how long each piece is.
  static std::optional<ModulePieces> cut(const SourceManager &sources, uint32_t fileId, ParseRange range,
                                         uint32_t pieceBytes);

  size_t size() const { return starts_.size(); }
  ParseRange range(size_t k) const;
  // The head's module: its name, spelling and flags, with no function.
  const Module &head() const { return head_; }
  // Piece k's module, or nullopt when the piece reported anything (an error, a warning), declares
  // a module-level extent of its own or is an @I.ir_module: the whole range must then be parsed
  // on one thread. Safe to call from several threads at once.
  std::optional<Module> parse(size_t k) const;

private:
  ModulePieces(const SourceManager &sources, uint32_t fileId) : sources_(&sources), fileId_(fileId) {}
  const SourceManager *sources_;
  uint32_t fileId_;
  uint32_t end_ = 0;
  std::vector<uint32_t> starts_;
  std::vector<std::string> typeVars_;
  Module head_;
};

// Parses a standalone index map, "lambda i, j: [j, i]" (from a command-line flag), whose
// result list may contain T.AXIS_SEPARATOR, in `range` of the file (the whole flag text is the
// file, so that a diagnostic shows all of it). `indexType` is the type of the lambda's variables.
std::optional<IndexMap> parseIndexMap(const SourceManager &sources, uint32_t fileId, DiagnosticSink &diagnostics,
                                      DataType indexType = DataType::int32(), ParseRange range = {});

} // namespace tirlower
