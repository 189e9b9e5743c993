// Helpers shared by the parser tests: parse a snippet and collect its diagnostics.
#pragma once

#include <optional>
#include <string>

#include "parse/diagnostic_engine.h"
#include "parse/parser.h"

namespace tirlower::test {

struct Parsed {
  SourceManager sources;
  uint32_t fileId = 0;
  DiagnosticCollector diagnostics;
  std::optional<Module> module;

  std::string rendered() const {
    std::string out;
    for (const Diagnostic &d : diagnostics.diagnostics)
      out += renderDiagnostic(sources, d);
    return out;
  }
  const PrimFuncNode &func(size_t k = 0) const { return *module->functions.at(k); }
};

inline std::unique_ptr<Parsed> parse(const std::string &text) {
  auto p = std::make_unique<Parsed>();
  p->fileId = p->sources.addFile("in.tir", text);
  p->module = parseModule(p->sources, p->fileId, p->diagnostics);
  return p;
}

// Wraps body lines (already indented by 4) in a function with the given parameters.
inline std::string function(const std::string &params, const std::string &body) {
  return "from tvm.script import tir as T\n\n@T.prim_func\ndef main(" + params + "):\n" + body;
}

} // namespace tirlower::test
