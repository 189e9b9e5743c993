// Runs a list of passes in order. The manager owns the cross-cutting concerns that need no
// knowledge of printing: verification after each pass (--verify-each), per-pass wall time and
// peak memory (--timing), and turning a pass's CompileError into a diagnostic. Printing IR
// after passes is left to the tool through PassInstrumentation.
#pragma once

#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "transform/pass.h"
#include "transform/pipeline.h"

namespace tirlower {

struct PassInstance {
  const PassInfo *info = nullptr;
  PassOptions options;
  std::unique_ptr<Pass> pass;
  // The pass is function-local: a FunctionPass.
  bool functionLocal() const { return dynamic_cast<const FunctionPass *>(pass.get()) != nullptr; }
};

// Hooks the tool supplies. `identical` is true when the pass returned exactly the same
// function nodes (certainly unchanged); otherwise the tool decides by comparing what it prints.
class PassInstrumentation {
public:
  virtual ~PassInstrumentation() = default;
  virtual void beforePass(const PassInstance &, const Module &) {}
  virtual void afterPass(const PassInstance &, const Module & /*before*/, const Module & /*after*/,
                         bool /*identical*/) {}
};

struct PassTiming {
  std::string pass; // describePass() of the instance
  double wallSeconds = 0;
  long peakRssKiB = 0; // process peak resident set size after the pass
};

// What one function did in one pass, kept only when there is something to report: its
// diagnostics, or the end of its way through the passes (PassManager's parallel sections and
// the streamed compile report these as one thread would have).
struct PassStepRecord {
  size_t pass = 0; // index into the manager's passes
  std::vector<Diagnostic> diagnostics;
  bool returnedNothing = false;
  std::optional<Diagnostic> thrown;     // a CompileError's
  std::optional<std::string> typeError; // an IRTypeError's message
  std::exception_ptr internal;          // anything else: rethrown on the reporting thread
  std::vector<Diagnostic> problems;     // the verifier's, after the pass
};

// One function's way through every pass (PassManager::runTraced): what run() would report of
// it. Empty when there is nothing to report.
struct FunctionTrace {
  std::vector<Diagnostic> inputProblems; // the verifier's, on the function as given
  std::vector<PassStepRecord> steps;
  bool empty() const { return inputProblems.empty() && steps.empty(); }
  bool failed() const;
};

class PassManager {
public:
  bool verifyEach = true;
  // Workers for function-local passes (FunctionPass): with more than one, each run
  // of consecutive function-local passes takes every function through all of them on that many
  // threads. The output and the diagnostics are those of one thread. Instrumentation runs
  // every pass on the whole module, one thread.
  unsigned threads = 1;

  // Creates the pass with its declared defaults filled in. The options must be valid
  // (passOptionsError: parsePipeline checks them, locating each error in the pipeline text);
  // invalid ones are the caller's bug, an internal error (std::logic_error). `flags` are the
  // tool flags given on the command line with their values ({"--target", "opencl"}): they give
  // the declared options bound to them (PassOptionInfo::flag) that `options` does not. The
  // instance keeps the options as given.
  void add(const PassInfo &info, PassOptions options, const PassOptions &flags = {});
  void add(const PipelineEntry &entry, const PassOptions &flags = {}) { add(*entry.info, entry.options, flags); }
  bool empty() const { return passes_.empty(); }
  // The first contract the order of the passes breaks: a pass requiring a property that only a
  // later pass establishes ("pass 'flatten' requires layouts applied, which the later pass
  // 'apply-layout-transforms' establishes: run it first"). Empty when the order is sound.
  std::string orderError() const;
  const std::vector<PassInstance> &passes() const { return passes_; }

  // Runs every pass in order. Returns nullopt after reporting an error: a pass's
  // CompileError, an error a pass reported, or (with verifyEach) invalid IR, reported as
  // "pass 'NAME' produced invalid IR: ...". Timings accumulate over runs; the passes of a
  // parallel section share its wall time in proportion to the time their workers spent in each.
  std::optional<Module> run(Module module, PassContext &ctx, PassInstrumentation *instrumentation = nullptr);

  const std::vector<PassTiming> &timings() const { return timings_; }

  // True when every pass is function-local (a FunctionPass), so that run() takes each
  // function through all of them on its own and runTraced may stand in for it.
  bool allFunctionLocal() const;
  // For a caller that lowers a module function by function as its functions arrive (tirlower's
  // streamed compile): `func` through every pass, on this thread, as run() takes it (verifying
  // it and each pass's output with verifyEach), keeping in `trace` what run() would report of it
  // (the context's sink receives nothing), for reportTraces. Returns nullopt when `func` failed
  // (its trace says how). Requires allFunctionLocal(). `nanoseconds[k]` accumulates the time
  // spent in pass k. Safe on several threads at once.
  std::optional<PrimFunc> runTraced(PrimFunc func, const PassContext &ctx, FunctionTrace &trace,
                                    std::vector<int64_t> &nanoseconds) const;
  // Reports what run() reports of a module whose functions' traces (those not empty, in function
  // order) are `traces`, from that module's location `where` (its first located function's):
  // the input's problems if any function has some, else each pass's diagnostics function by
  // function, stopping where run() stops. False when run() fails. Requires allFunctionLocal().
  bool reportTraces(std::vector<FunctionTrace> &traces, SourceRange where, DiagnosticSink &diagnostics) const;
  // Adds `wallSeconds` of a parallel section to the timings of passes [first, last), shared in
  // proportion to the time each worker spent in each (`nanoseconds`, one row per worker).
  void addSectionTime(size_t first, size_t last, double wallSeconds,
                      const std::vector<std::vector<int64_t>> &nanoseconds);

private:
  class Sink;
  using StepRecord = PassStepRecord;
  using Records = std::vector<std::vector<StepRecord>>;
  std::optional<Module> runFunctionLocal(size_t first, size_t last, Module module, PassContext &ctx, Sink &sink);
  bool passThrough(size_t first, size_t last, PrimFunc &func, const PassContext &ctx, std::vector<StepRecord> &records,
                   std::vector<int64_t> &nanoseconds) const;
  bool reportSection(size_t first, size_t last, Records &records, SourceRange where, Sink &sink) const;

  std::vector<PassInstance> passes_;
  std::vector<PassTiming> timings_;
};

// Process peak resident set size in KiB (getrusage).
long peakRssKiB();

// True when both modules hold the same function nodes in the same order.
bool sameFunctions(const Module &a, const Module &b);

} // namespace tirlower
