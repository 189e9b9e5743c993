#include "parse/diagnostic_engine.h"

#include <nlohmann/json.hpp>

namespace tirlower {

namespace {

bool isLocated(const SourceManager &sources, const SourceRange &range) {
  return range.valid() && sources.position(range.fileId, range.begin).line != 0;
}

// The source line, then `^` under the range start and `~` under the rest of the range on
// that line. Tabs before the caret are copied so the caret lines up in a terminal.
void appendSnippet(const SourceManager &sources, const SourceRange &range, std::string &out) {
  SourcePosition start = sources.position(range.fileId, range.begin);
  std::string_view line = sources.lineText(range.fileId, start.line);
  out.append(line);
  out += '\n';
  size_t column = start.column - 1;
  for (size_t i = 0; i < column; ++i)
    out += i < line.size() && line[i] == '\t' ? '\t' : ' ';
  out += '^';
  size_t rangeEnd = column + 1;
  if (range.end > range.begin) {
    SourcePosition end = sources.position(range.fileId, range.end);
    rangeEnd = end.line == start.line ? end.column - 1 : line.size();
  }
  for (size_t i = column + 1; i < rangeEnd; ++i)
    out += '~';
  out += '\n';
}

void appendOne(const SourceManager &sources, const Diagnostic &d, std::string &out) {
  if (!isLocated(sources, d.range)) {
    out += "tirlower: ";
    out += severityName(d.severity);
    out += ": ";
    out += d.message;
    out += '\n';
    return;
  }
  SourcePosition start = sources.position(d.range.fileId, d.range.begin);
  out.append(start.file);
  out += ':' + std::to_string(start.line) + ':' + std::to_string(start.column) + ": ";
  out += severityName(d.severity);
  out += ": ";
  out += d.message;
  out += '\n';
  appendSnippet(sources, d.range, out);
}

nlohmann::ordered_json toJson(const SourceManager &sources, const Diagnostic &d) {
  nlohmann::ordered_json object;
  object["severity"] = severityName(d.severity);
  if (isLocated(sources, d.range)) {
    SourcePosition start = sources.position(d.range.fileId, d.range.begin);
    SourcePosition end = sources.position(d.range.fileId, d.range.end < d.range.begin ? d.range.begin : d.range.end);
    object["file"] = std::string(start.file);
    object["line"] = start.line;
    object["column"] = start.column;
    object["end_line"] = end.line;
    object["end_column"] = end.column;
  }
  object["message"] = d.message;
  nlohmann::ordered_json notes = nlohmann::ordered_json::array();
  for (const Diagnostic &note : d.notes)
    notes.push_back(toJson(sources, note));
  object["notes"] = std::move(notes);
  return object;
}

} // namespace

std::string renderDiagnostic(const SourceManager &sources, const Diagnostic &diagnostic) {
  std::string out;
  appendOne(sources, diagnostic, out);
  for (const Diagnostic &note : diagnostic.notes)
    appendOne(sources, note, out);
  return out;
}

std::string renderDiagnosticJson(const SourceManager &sources, const Diagnostic &diagnostic) {
  return toJson(sources, diagnostic).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

DiagnosticEngine::DiagnosticEngine(const SourceManager &sources, std::ostream &out, DiagnosticFormat format)
    : sources_(sources), out_(out), format_(format) {}

void DiagnosticEngine::report(Diagnostic diagnostic) {
  if (diagnostic.severity == Severity::Error)
    ++errors_;
  else if (diagnostic.severity == Severity::Warning)
    ++warnings_;
  out_ << (format_ == DiagnosticFormat::Json ? renderDiagnosticJson(sources_, diagnostic)
                                             : renderDiagnostic(sources_, diagnostic));
  out_.flush();
}

size_t DiagnosticCollector::errorCount() const {
  size_t count = 0;
  for (const Diagnostic &d : diagnostics)
    count += d.severity == Severity::Error;
  return count;
}

} // namespace tirlower
