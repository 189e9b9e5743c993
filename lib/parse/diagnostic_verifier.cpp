#include "parse/diagnostic_verifier.h"

#include <algorithm>
#include <charconv>
#include <string>

namespace tirlower {

namespace {

struct Expectation {
  Severity severity;
  uint32_t line;
  std::string message;
  SourceRange where; // the directive, for "was not produced"
  bool met = false;
};

struct DirectiveScanner {
  const SourceManager &sources;
  uint32_t fileId;
  DiagnosticSink &out;
  std::vector<Expectation> expectations;
  bool malformed = false;

  void malformedAt(uint32_t begin, uint32_t end, std::string message) {
    out.error({fileId, begin, end}, std::move(message));
    malformed = true;
  }

  // Parses one `expected-<kind>[@+N|@-N] {{message}}` starting at `at` ("expected-").
  // Returns the offset just past what it consumed.
  size_t parseDirective(std::string_view text, size_t at, uint32_t line) {
    static constexpr std::pair<std::string_view, Severity> kinds[] = {{"expected-error", Severity::Error},
                                                                      {"expected-warning", Severity::Warning},
                                                                      {"expected-note", Severity::Note},
                                                                      {"expected-remark", Severity::Remark}};
    std::string_view rest = text.substr(at);
    const std::pair<std::string_view, Severity> *kind = nullptr;
    for (const auto &k : kinds)
      if (rest.substr(0, k.first.size()) == k.first)
        kind = &k;
    if (!kind) {
      size_t word = rest.find_first_of(" \t\n{@");
      malformedAt(static_cast<uint32_t>(at), static_cast<uint32_t>(at + std::min(word, rest.size())),
                  "unknown directive; expected expected-error, expected-warning, expected-note or expected-remark");
      return at + 9;
    }
    size_t pos = at + kind->first.size();
    int64_t targetLine = line;
    if (pos < text.size() && text[pos] == '@') {
      size_t numberStart = pos + 1;
      if (numberStart >= text.size() || (text[numberStart] != '+' && text[numberStart] != '-')) {
        malformedAt(static_cast<uint32_t>(pos), static_cast<uint32_t>(numberStart), "expected '@+N' or '@-N'");
        return numberStart;
      }
      int64_t offset = 0;
      auto [end, ec] = std::from_chars(text.data() + numberStart + 1, text.data() + text.size(), offset);
      if (ec != std::errc() || offset > 100000) {
        malformedAt(static_cast<uint32_t>(pos), static_cast<uint32_t>(numberStart + 1),
                    "expected a line offset after '@+' or '@-'");
        return numberStart + 1;
      }
      targetLine += text[numberStart] == '+' ? offset : -offset;
      pos = static_cast<size_t>(end - text.data());
    }
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t'))
      ++pos;
    if (text.substr(pos, 2) != "{{") {
      malformedAt(static_cast<uint32_t>(at), static_cast<uint32_t>(pos),
                  "expected '{{' after " + std::string(kind->first));
      return pos;
    }
    size_t close = text.find("}}", pos + 2);
    size_t newline = text.find('\n', pos + 2);
    if (close == std::string_view::npos || close > newline) {
      malformedAt(static_cast<uint32_t>(pos), static_cast<uint32_t>(pos + 2),
                  "unterminated '{{' in " + std::string(kind->first));
      return pos + 2;
    }
    if (targetLine < 1) {
      malformedAt(static_cast<uint32_t>(at), static_cast<uint32_t>(close + 2),
                  "expected diagnostic line is before the start of the file");
      return close + 2;
    }
    expectations.push_back({kind->second,
                            static_cast<uint32_t>(targetLine),
                            std::string(text.substr(pos + 2, close - pos - 2)),
                            {fileId, static_cast<uint32_t>(at), static_cast<uint32_t>(close + 2)}});
    return close + 2;
  }

  void scan(uint32_t begin, uint32_t end) {
    std::string_view text = sources.text(fileId);
    size_t pos = begin;
    while (pos < end) {
      size_t hash = text.find('#', pos);
      if (hash == std::string_view::npos || hash >= end)
        break;
      size_t lineEnd = std::min<size_t>(text.find('\n', hash), end);
      uint32_t line = sources.position(fileId, static_cast<uint32_t>(hash)).line;
      size_t cursor = hash;
      while (true) {
        size_t directive = text.substr(0, lineEnd).find("expected-", cursor);
        if (directive == std::string_view::npos)
          break;
        cursor = parseDirective(text.substr(0, lineEnd), directive, line);
      }
      pos = lineEnd == std::string_view::npos ? end : lineEnd + 1;
    }
  }
};

bool matches(const Expectation &e, const Diagnostic &d, const SourceManager &sources) {
  return e.severity == d.severity && sources.position(d.range.fileId, d.range.begin).line == e.line &&
         d.message.find(e.message) != std::string::npos;
}

void flatten(const Diagnostic &d, std::vector<const Diagnostic *> &out) {
  out.push_back(&d);
  for (const Diagnostic &note : d.notes)
    flatten(note, out);
}

} // namespace

bool verifyDiagnostics(const SourceManager &sources, uint32_t fileId, uint32_t begin, uint32_t end,
                       const std::vector<Diagnostic> &produced, DiagnosticSink &out) {
  end = std::min<uint32_t>(end, static_cast<uint32_t>(sources.text(fileId).size()));
  DirectiveScanner scanner{sources, fileId, out, {}, false};
  scanner.scan(begin, end);
  bool ok = !scanner.malformed;

  std::vector<const Diagnostic *> all;
  for (const Diagnostic &d : produced)
    flatten(d, all);
  for (const Diagnostic *d : all) {
    bool inRange = d->range.fileId == fileId && d->range.begin >= begin && d->range.begin <= end;
    Expectation *match = nullptr;
    if (inRange)
      for (Expectation &e : scanner.expectations)
        if (!e.met && matches(e, *d, sources)) {
          match = &e;
          break;
        }
    if (match) {
      match->met = true;
      continue;
    }
    ok = false;
    out.error(d->range, std::string("unexpected ") + severityName(d->severity) + ": " + d->message);
  }
  for (const Expectation &e : scanner.expectations) {
    if (e.met)
      continue;
    ok = false;
    out.error(e.where, std::string("expected ") + severityName(e.severity) + " \"" + e.message + "\" was not produced");
  }
  return ok;
}

} // namespace tirlower
