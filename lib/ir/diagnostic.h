// Diagnostics as data. Any layer can produce them; lib/parse renders them with source text.
#pragma once

#include <exception>
#include <string>
#include <vector>

#include "ir/source_range.h"

namespace tirlower {

enum class Severity { Error, Warning, Note, Remark };

// "error", "warning", "note", "remark": as diagnostics print it.
constexpr const char *severityName(Severity severity) {
  switch (severity) {
  case Severity::Error: return "error";
  case Severity::Warning: return "warning";
  case Severity::Note: return "note";
  case Severity::Remark: return "remark";
  }
  return "error";
}

struct Diagnostic {
  Severity severity = Severity::Error;
  SourceRange range;
  std::string message;
  std::vector<Diagnostic> notes;

  Diagnostic &note(SourceRange where, std::string text) {
    notes.push_back({Severity::Note, where, std::move(text), {}});
    return *this;
  }
};

// Receives diagnostics; the tool's engine renders them, tests collect them.
class DiagnosticSink {
public:
  virtual ~DiagnosticSink() = default;
  virtual void report(Diagnostic diagnostic) = 0;
  void error(SourceRange where, std::string message) {
    report({Severity::Error, where, std::move(message), {}});
  }
  void warning(SourceRange where, std::string message) {
    report({Severity::Warning, where, std::move(message), {}});
  }
  void remark(SourceRange where, std::string message) {
    report({Severity::Remark, where, std::move(message), {}});
  }
};

// Thrown where unwinding is the clearest way out of a deep traversal (a pass that finds
// input it must reject). Caught by the pass manager and reported like any diagnostic.
class CompileError : public std::exception {
public:
  explicit CompileError(Diagnostic diagnostic) : diagnostic_(std::move(diagnostic)) {}
  CompileError(SourceRange where, std::string message)
      : diagnostic_{Severity::Error, where, std::move(message), {}} {}
  const char *what() const noexcept override { return diagnostic_.message.c_str(); }
  const Diagnostic &diagnostic() const { return diagnostic_; }
  Diagnostic &diagnostic() { return diagnostic_; }

private:
  Diagnostic diagnostic_;
};

} // namespace tirlower
