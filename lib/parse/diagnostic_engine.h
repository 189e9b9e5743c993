// Renders diagnostics as `file:line:col: error: message`, the source line and a caret with
// `~~~` under the rest of the range; or as one JSON object per line (--diagnostics-format=json).
#pragma once

#include <ostream>
#include <string>

#include "ir/diagnostic.h"
#include "parse/source_manager.h"

namespace tirlower {

enum class DiagnosticFormat { Text, Json };

std::string renderDiagnostic(const SourceManager &sources, const Diagnostic &diagnostic);
std::string renderDiagnosticJson(const SourceManager &sources, const Diagnostic &diagnostic);

class DiagnosticEngine : public DiagnosticSink {
public:
  DiagnosticEngine(const SourceManager &sources, std::ostream &out, DiagnosticFormat format);
  void report(Diagnostic diagnostic) override;

  size_t errorCount() const { return errors_; }
  size_t warningCount() const { return warnings_; }

private:
  const SourceManager &sources_;
  std::ostream &out_;
  DiagnosticFormat format_;
  size_t errors_ = 0;
  size_t warnings_ = 0;
};

// Collects diagnostics instead of printing them (tests, --verify-diagnostics).
class DiagnosticCollector : public DiagnosticSink {
public:
  void report(Diagnostic diagnostic) override { diagnostics.push_back(std::move(diagnostic)); }
  size_t errorCount() const;
  std::vector<Diagnostic> diagnostics;
};

} // namespace tirlower
