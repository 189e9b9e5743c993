// The streamed compile: a large input whose every pass is function-local, emitted by an emitter
// that writes in parts (ModuleWriter), is not parsed whole, then lowered whole, then written:
// it is cut into pieces of a few dozen functions at top-level decorators, and each piece is
// parsed, taken through the passes, written and freed by one worker while the others do the
// same with later pieces. The pieces' texts join in input order as they are done. Memory then
// holds a few pieces' IR at a time, not the whole module's (10^5 bench functions to C: peak
// RSS 836 -> 154 MiB), and each piece's IR stays in the worker's cache from parsing to
// writing. The output bytes are those of the whole-module path, and so are the diagnostics:
// what the passes and the writer report of each function (errors, warnings, remarks) is kept,
// and reported at the end in the whole-module path's order and with its stops (the pass
// manager's reportTraces, then the writer's function by function); after a failure every
// function is still taken through the passes, but no more text is written. An input that does
// not parse is reported from one more parse that keeps no function, with the diagnostics of the
// whole-module path. Only what a piece cannot decide alone (two functions of one symbol, pieces
// of two spellings) makes the caller run the whole-module path from the start.
#pragma once

#include <optional>
#include <string>

#include "emitters.h"
#include "output_file.h"
#include "parse/parser.h"
#include "timing_report.h"
#include "transform/pass_manager.h"

namespace tirlower {

struct StreamedCompileInput {
  const SourceManager &sources;
  uint32_t fileId;
  ParseRange range;
  PassManager &passes; // allFunctionLocal()
  const PassContext &context;
  const Emitter &emitter; // with a writer
  const EmitSettings &settings;
  unsigned threads;
};

// Inputs shorter than this take the whole-module path: streaming pays off only when the module
// would not stay in cache.
inline constexpr uint32_t kMinStreamedBytes = 1 << 18;

// Parses, lowers and writes the range piece by piece, the functions' text to `body`. Returns the
// head (the emitter's text before the functions), or nullopt when the whole-module path must run
// instead (`body` then holds a part of the text, to be discarded), or when the compile failed:
// `reported` is then true and the diagnostics, exactly those of the whole-module path, went to
// the context's sink (a parse error from a second parse that keeps no function: memory stays
// flat). Adds the parse, pass and emit times to `timing` and `passes`' timings;
// `functions` is the number of functions compiled.
std::optional<std::string> compileStreamed(const StreamedCompileInput &input, OutputBody &body, TimingReport &timing,
                                           size_t &functions, bool &reported);

} // namespace tirlower
