// The TVMScript parser: text -> Module, with type checking at parse time. Every error is a
// located diagnostic; the parser recovers at statement and function boundaries so one run
// reports several independent errors.
#pragma once

#include <cstdint>
#include <optional>

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

// parseModule on up to `threads` threads, with the same result and diagnostics: the range is cut
// at top-level decorators (lines that start with '@') into pieces parsed at once, each from the
// module-level declarations before the first function. A piece with an error or a warning, a
// module-level declaration of its own or an @I.ir_module class, or a function name that another
// piece also defines, makes it parse the whole range on one thread (what it then reports is
// exactly what parseModule reports). Small inputs are parsed on one thread.
std::optional<Module> parseModule(const SourceManager &sources, uint32_t fileId, DiagnosticSink &diagnostics,
                                  ParseRange range, unsigned threads);

// Parses a standalone index map, "lambda i, j: [j, i]" (from a command-line flag), whose
// result list may contain T.AXIS_SEPARATOR. `indexType` is the type of the lambda's variables.
std::optional<IndexMap> parseIndexMap(const SourceManager &sources, uint32_t fileId, DiagnosticSink &diagnostics,
                                      DataType indexType = DataType::int32());

} // namespace tirlower
