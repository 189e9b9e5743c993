// Parsing one input on several threads (--threads): functions are independent once the
// module-level declarations before them are known, so the input is cut at top-level decorators
// and the pieces are parsed at once, each by its own Parser and diagnostic collector, then
// joined in input order. Anything a piece cannot decide alone (see parser.h) falls back to one
// thread, which is also how every error is reported: errors are rare, and the fallback makes
// them byte-identical to a one-thread run without the pieces having to agree on recovery.
#include "parse/parser.h"

#include <algorithm>
#include <string_view>
#include <unordered_set>

#include "ir/parallel.h"
#include "parse/diagnostic_engine.h"
#include "parse/parser_impl.h"

namespace tirlower {

namespace {

// Below this many bytes one thread parses the whole range: about 2.5k lines, a millisecond.
constexpr uint32_t kMinParallelBytes = 1 << 17;

// Where the pieces start: the first top-level decorator, then about `count` pieces of equal
// size, each starting at a line that begins with '@'. Empty when there is no decorator.
std::vector<uint32_t> pieceStarts(std::string_view text, uint32_t begin, uint32_t end, unsigned count) {
  std::vector<uint32_t> starts;
  auto decoratorAtOrAfter = [&](uint32_t from) -> uint32_t {
    if (from == begin && from < end && text[from] == '@')
      return from;
    size_t at = text.find("\n@", from == 0 ? 0 : from - 1);
    return at == std::string_view::npos || at + 1 >= end ? end : static_cast<uint32_t>(at + 1);
  };
  uint32_t first = decoratorAtOrAfter(begin);
  if (first == end)
    return starts;
  starts.push_back(first);
  const uint32_t size = std::max<uint32_t>((end - first) / std::max(count, 1u), 1);
  while (true) {
    uint32_t next = decoratorAtOrAfter(std::min(end, starts.back() + size));
    if (next >= end)
      return starts;
    starts.push_back(next);
  }
}

struct Piece {
  DiagnosticCollector diagnostics;
  std::optional<Module> module;
  bool declares = false; // a TypeVar of its own
};

} // namespace

std::optional<Module> parseModule(const SourceManager &sources, uint32_t fileId, DiagnosticSink &diagnostics,
                                  ParseRange range, unsigned threads) {
  auto oneThread = [&] { return parseModule(sources, fileId, diagnostics, range); };
  std::string_view text = sources.text(fileId);
  const uint32_t end = std::min<uint32_t>(range.end, static_cast<uint32_t>(text.size()));
  const uint32_t begin = std::min(range.begin, end);
  if (threads <= 1 || end - begin < kMinParallelBytes)
    return oneThread();
  std::vector<uint32_t> starts = pieceStarts(text, begin, end, threads * 4);
  if (starts.size() < 2)
    return oneThread();
  // The imports and TypeVars before the first function.
  DiagnosticCollector headerDiagnostics;
  Parser header(sources, fileId, headerDiagnostics, {begin, starts.front()});
  std::optional<Module> module = header.parseModule();
  if (!module || !module->functions.empty() || module->isIRModule || !headerDiagnostics.diagnostics.empty())
    return oneThread();
  std::vector<Piece> pieces(starts.size());
  parallelFor(pieces.size(), threads, [&](size_t k, unsigned) {
    Parser parser(sources, fileId, pieces[k].diagnostics, {starts[k], k + 1 < starts.size() ? starts[k + 1] : end});
    parser.setTypeVars(header.typeVars());
    pieces[k].module = parser.parseModule();
    pieces[k].declares = parser.typeVars().size() != header.typeVars().size();
  });
  std::unordered_set<Symbol> names;
  for (Piece &piece : pieces) {
    if (!piece.module || piece.declares || piece.module->isIRModule || !piece.diagnostics.diagnostics.empty())
      return oneThread();
    if (piece.module->spelling == ScriptSpelling::Tirx)
      module->spelling = ScriptSpelling::Tirx;
    for (PrimFunc &func : piece.module->functions) {
      if (!names.insert(func->name).second)
        return oneThread();
      module->functions.push_back(std::move(func));
    }
  }
  return module;
}

} // namespace tirlower
