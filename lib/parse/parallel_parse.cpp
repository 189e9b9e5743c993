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

// Where the pieces start: the first top-level decorator, then a line that begins with '@' about
// every `size` bytes. Empty when there is no decorator.
std::vector<uint32_t> pieceStarts(std::string_view text, uint32_t begin, uint32_t end, uint32_t size) {
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
  while (true) {
    uint32_t next = decoratorAtOrAfter(std::min(end, starts.back() + size));
    if (next >= end)
      return starts;
    starts.push_back(next);
  }
}

} // namespace

std::optional<ModulePieces> ModulePieces::cut(const SourceManager &sources, uint32_t fileId, ParseRange range,
                                              uint32_t pieceBytes) {
  std::string_view text = sources.text(fileId);
  const uint32_t end = std::min<uint32_t>(range.end, static_cast<uint32_t>(text.size()));
  const uint32_t begin = std::min(range.begin, end);
  ModulePieces pieces(sources, fileId);
  pieces.end_ = end;
  pieces.starts_ = pieceStarts(text, begin, end, std::max<uint32_t>(pieceBytes, 1));
  if (pieces.starts_.size() < 2)
    return std::nullopt;
  // The imports and TypeVars before the first function.
  DiagnosticCollector headDiagnostics;
  Parser head(sources, fileId, headDiagnostics, {begin, pieces.starts_.front()});
  std::optional<Module> module = head.parseModule();
  if (!module || !module->functions.empty() || module->isIRModule || !headDiagnostics.diagnostics.empty())
    return std::nullopt;
  pieces.head_ = std::move(*module);
  pieces.typeVars_ = head.typeVars();
  return pieces;
}

ParseRange ModulePieces::range(size_t k) const {
  return {starts_[k], k + 1 < starts_.size() ? starts_[k + 1] : end_};
}

std::optional<Module> ModulePieces::parse(size_t k) const {
  DiagnosticCollector diagnostics;
  Parser parser(*sources_, fileId_, diagnostics, range(k));
  parser.setTypeVars(typeVars_);
  std::optional<Module> module = parser.parseModule();
  if (!module || module->isIRModule || !diagnostics.diagnostics.empty() || parser.typeVars().size() != typeVars_.size())
    return std::nullopt;
  return module;
}

std::optional<Module> parseModule(const SourceManager &sources, uint32_t fileId, DiagnosticSink &diagnostics,
                                  ParseRange range, unsigned threads) {
  auto oneThread = [&] { return parseModule(sources, fileId, diagnostics, range); };
  std::string_view text = sources.text(fileId);
  const uint32_t end = std::min<uint32_t>(range.end, static_cast<uint32_t>(text.size()));
  const uint32_t begin = std::min(range.begin, end);
  if (threads <= 1 || end - begin < kMinParallelBytes)
    return oneThread();
  std::optional<ModulePieces> pieces =
      ModulePieces::cut(sources, fileId, {begin, end}, std::max<uint32_t>((end - begin) / (threads * 4), 1));
  if (!pieces)
    return oneThread();
  std::vector<std::optional<Module>> parsed(pieces->size());
  parallelFor(parsed.size(), threads, [&](size_t k, unsigned) { parsed[k] = pieces->parse(k); });
  Module module = pieces->head();
  std::unordered_set<Symbol> names;
  for (std::optional<Module> &piece : parsed) {
    if (!piece)
      return oneThread();
    if (piece->spelling == ScriptSpelling::Tirx)
      module.spelling = ScriptSpelling::Tirx;
    for (PrimFunc &func : piece->functions) {
      if (!names.insert(func->name).second)
        return oneThread();
      module.functions.push_back(std::move(func));
    }
  }
  return module;
}

} // namespace tirlower
