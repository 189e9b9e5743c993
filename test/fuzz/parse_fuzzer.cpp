// libFuzzer target: any byte string must parse or be rejected with diagnostics, never crash
// or hang. Also renders every diagnostic (text and JSON) and runs the verifier over the input,
// so the location and comment-scanning code is fuzzed too. Whatever parses must print, and the
// printed text must parse again and print the same (the --verify-roundtrip contract); a
// difference aborts, so libFuzzer keeps the input.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "codegen/tir_printer.h"
#include "parse/diagnostic_engine.h"
#include "parse/diagnostic_verifier.h"
#include "parse/parser.h"

namespace {
[[noreturn]] void roundTripFailure(const char *what, const std::string &printed) {
  std::fprintf(stderr, "round trip: %s; printed text:\n%s\n", what, printed.c_str());
  std::abort();
}

void checkRoundTrip(const tirlower::Module &module) {
  using namespace tirlower;
  std::string first = printModule(module);
  SourceManager sources;
  uint32_t fileId = sources.addFile("printed.tir", first);
  DiagnosticCollector collector;
  std::optional<Module> reparsed = parseModule(sources, fileId, collector);
  if (!reparsed || collector.errorCount() != 0)
    roundTripFailure("the printed IR does not parse", first);
  if (printModule(*reparsed) != first)
    roundTripFailure("printing the reparsed IR gives different text", first);
}
} // namespace

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
  if (module && collector.errorCount() == 0)
    checkRoundTrip(*module);
  DiagnosticCollector verifierOutput;
  (void)verifyDiagnostics(sources, fileId, 0, UINT32_MAX, collector.diagnostics, verifierOutput);
  if (size < 256) {
    DiagnosticCollector mapDiagnostics;
    (void)parseIndexMap(sources, fileId, mapDiagnostics);
  }
  return 0;
}
