// libFuzzer target: any byte string must parse or be rejected with diagnostics, never crash
// or hang. Also renders every diagnostic (text and JSON) and runs the verifier over the input,
// so the location and comment-scanning code is fuzzed too.
#include <cstddef>
#include <cstdint>
#include <string>

#include "parse/diagnostic_engine.h"
#include "parse/diagnostic_verifier.h"
#include "parse/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace tirlower;
  SourceManager sources;
  uint32_t fileId = sources.addFile("fuzz.tir", std::string(reinterpret_cast<const char *>(data), size));
  DiagnosticCollector collector;
  std::optional<Module> module = parseModule(sources, fileId, collector);
  for (const Diagnostic &d : collector.diagnostics) {
    (void)renderDiagnostic(sources, d);
    (void)renderDiagnosticJson(sources, d);
  }
  DiagnosticCollector verifierOutput;
  (void)verifyDiagnostics(sources, fileId, 0, UINT32_MAX, collector.diagnostics, verifierOutput);
  if (size < 256) {
    DiagnosticCollector mapDiagnostics;
    (void)parseIndexMap(sources, fileId, mapDiagnostics);
  }
  return 0;
}
