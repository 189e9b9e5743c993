// libFuzzer target for the whole path to C: whatever parses goes through the pipeline of
// `tirlower --target=c` (taken from lib/transform's target table, so it follows that table)
// and the C emitter. Rejecting the input is fine when every error is a located diagnostic;
// anything else is a crash that libFuzzer keeps:
//   - an exception other than CompileError escaping a pass or the emitter (the tool would
//     print "internal error");
//   - an error without a location, and the pass manager's reports of a pass's own bug
//     ("pass 'X' produced invalid IR", "pass 'X' failed" with nothing reported);
//   - anything ASan or UBSan reports on the way.
// Emitting twice must give the same text (the output is deterministic).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "codegen/c_emitter.h"
#include "parse/diagnostic_engine.h"
#include "parse/parser.h"
#include "transform/pass_manager.h"
#include "transform/target.h"

namespace {
using namespace tirlower;

[[noreturn]] void fail(const SourceManager &sources, const Diagnostic &d, const char *why) {
  std::fprintf(stderr, "pipeline fuzzer: %s:\n%s\n", why, renderDiagnostic(sources, d).c_str());
  std::abort();
}

// Every error must point into the input and be a user error, not a pass's own failure.
void checkErrors(const SourceManager &sources, const DiagnosticCollector &collector) {
  for (const Diagnostic &d : collector.diagnostics) {
    if (d.severity != Severity::Error)
      continue;
    if (!d.range.valid())
      fail(sources, d, "an error without a location");
    std::string_view message = d.message;
    if (message.find("produced invalid IR") != std::string_view::npos ||
        (message.starts_with("pass '") && message.ends_with("' failed")))
      fail(sources, d, "a pass failed on input it accepted");
  }
}

PassManager &cPipeline() {
  static PassManager *manager = [] {
    auto *m = new PassManager();
    const Target *c = findTarget("c");
    if (!c)
      std::abort();
    for (const PipelineEntry &entry : parsePipeline(c->pipeline, PassRegistry::builtin()))
      m->add(entry);
    if (!m->orderError().empty())
      std::abort();
    return m;
  }();
  return *manager;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  SourceManager sources;
  uint32_t fileId = sources.addFile("fuzz.tir", std::string(reinterpret_cast<const char *>(data), size));
  DiagnosticCollector collector;
  std::optional<Module> module = parseModule(sources, fileId, collector);
  if (!module || collector.errorCount() != 0)
    return 0;
  PassContext context{collector};
  std::optional<Module> lowered = cPipeline().run(std::move(*module), context);
  checkErrors(sources, collector);
  if (!lowered || collector.errorCount() != 0)
    return 0;
  std::string first;
  try {
    first = emitC(*lowered, CEmitOptions{}, collector);
  } catch (CompileError &e) {
    collector.report(std::move(e.diagnostic()));
  }
  checkErrors(sources, collector);
  if (collector.errorCount() != 0)
    return 0;
  DiagnosticCollector again;
  if (emitC(*lowered, CEmitOptions{}, again) != first) {
    std::fprintf(stderr, "pipeline fuzzer: emitting the same module twice gives different C\n");
    std::abort();
  }
  return 0;
}
