#include "transform/pass_manager.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <stdexcept>

#include "arith/analyzer.h"
#include "ir/parallel.h"
#include "ir/verifier.h"

namespace tirlower {

// Forwards to the tool's sink and counts errors, so a pass that reports an error but still
// returns a module fails the run too.
class PassManager::Sink : public DiagnosticSink {
public:
  explicit Sink(DiagnosticSink &next) : next_(next) {}
  void report(Diagnostic diagnostic) override {
    if (diagnostic.severity == Severity::Error)
      ++errors;
    next_.report(std::move(diagnostic));
  }
  size_t errors = 0;

private:
  DiagnosticSink &next_;
};

namespace {

// A worker's sink: keeps the diagnostics of one function in one pass for the main thread.
class CollectingSink : public DiagnosticSink {
public:
  void report(Diagnostic diagnostic) override {
    if (diagnostic.severity == Severity::Error)
      ++errors;
    diagnostics.push_back(std::move(diagnostic));
  }
  std::vector<Diagnostic> diagnostics;
  size_t errors = 0;
};

// A location for errors that have none: the first function's, else nothing.
SourceRange moduleLocation(const Module &module) {
  for (const PrimFunc &function : module.functions)
    if (function && function->loc.valid())
      return function->loc;
  return {};
}

} // namespace

long peakRssKiB() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0)
    return 0;
  return usage.ru_maxrss; // KiB on Linux
}

bool sameFunctions(const Module &a, const Module &b) {
  if (a.functions.size() != b.functions.size() || a.name != b.name || a.isIRModule != b.isIRModule)
    return false;
  for (size_t k = 0; k < a.functions.size(); ++k)
    if (a.functions[k] != b.functions[k])
      return false;
  return true;
}

void PassManager::add(const PassInfo &info, PassOptions options, const PassOptions &flags) {
  if (std::string error = passOptionsError(info, options); !error.empty())
    throw std::logic_error("unchecked pass options: " + error);
  std::unique_ptr<Pass> pass = info.create(passOptionsWithDefaults(info, options, flags));
  passes_.push_back({&info, std::move(options), std::move(pass)});
  timings_.push_back({describePass(info, passes_.back().options), 0, 0});
}

std::string PassManager::orderError() const {
  auto establishes = [](const PassInstance &instance, IRProperty property) {
    const std::vector<IRProperty> &list = instance.info->establishes;
    return std::find(list.begin(), list.end(), property) != list.end();
  };
  for (size_t k = 0; k < passes_.size(); ++k) {
    for (IRProperty property : passes_[k].info->requirements) {
      auto before = [&](const PassInstance &p) { return establishes(p, property); };
      if (std::any_of(passes_.begin(), passes_.begin() + static_cast<std::ptrdiff_t>(k), before))
        continue;
      auto later = std::find_if(passes_.begin() + static_cast<std::ptrdiff_t>(k) + 1, passes_.end(), before);
      if (later != passes_.end())
        return "pass '" + passes_[k].info->name + "' requires " + irPropertyName(property) +
               ", which the later pass '" + later->info->name + "' establishes: run '" + later->info->name +
               "' before '" + passes_[k].info->name + "'";
    }
  }
  return {};
}

std::optional<Module> PassManager::run(Module module, PassContext &ctx, PassInstrumentation *instrumentation) {
  Sink sink(ctx.diagnostics);
  PassContext passContext = ctx.withDiagnostics(sink);
  // The input is verified too, so that a pass is never blamed for what it was given.
  if (verifyEach && !passes_.empty()) {
    std::vector<Diagnostic> problems;
    if (threads > 1 && module.functions.size() > 1) {
      std::vector<std::vector<Diagnostic>> each(module.functions.size());
      parallelFor(module.functions.size(), threads,
                  [&](size_t index, unsigned) { each[index] = verifyFunctionOnce(module.functions[index]); });
      for (std::vector<Diagnostic> &list : each)
        problems.insert(problems.end(), std::make_move_iterator(list.begin()), std::make_move_iterator(list.end()));
    } else {
      problems = verifyModule(module);
    }
    for (Diagnostic &problem : problems)
      sink.report(std::move(problem));
    if (!problems.empty())
      return std::nullopt;
  }
  for (size_t k = 0; k < passes_.size(); ++k) {
    if (!instrumentation && passes_[k].functionLocal()) {
      size_t last = k + 1;
      while (last < passes_.size() && passes_[last].functionLocal())
        ++last;
      std::optional<Module> result = runFunctionLocal(k, last, std::move(module), passContext, sink);
      if (!result)
        return std::nullopt;
      module = std::move(*result);
      k = last - 1;
      continue;
    }
    const PassInstance &instance = passes_[k];
    const std::string &name = instance.info->name;
    if (instrumentation)
      instrumentation->beforePass(instance, module);

    auto start = std::chrono::steady_clock::now();
    std::optional<Module> result;
    size_t errorsBefore = sink.errors;
    SourceRange where = moduleLocation(module);
    try {
      // Instrumentation compares the module before and after the pass; otherwise the pass
      // takes the module over and frees what it replaces as it goes.
      result = instrumentation ? instance.pass->run(module, passContext)
                               : instance.pass->run(std::move(module), passContext);
    } catch (CompileError &e) {
      sink.report(std::move(e.diagnostic()));
    } catch (const IRTypeError &e) {
      sink.error(where, "pass '" + name + "' produced invalid IR: " + e.what());
    }
    PassTiming &timing = timings_[k];
    timing.wallSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    timing.peakRssKiB = std::max(timing.peakRssKiB, peakRssKiB());

    if (!result || sink.errors != errorsBefore) {
      if (sink.errors == errorsBefore)
        sink.error(where, "pass '" + name + "' failed");
      return std::nullopt;
    }

    if (verifyEach) {
      std::vector<Diagnostic> problems = verifyModule(*result);
      if (!problems.empty()) {
        for (Diagnostic &problem : problems) {
          problem.message = "pass '" + name + "' produced invalid IR: " + problem.message;
          sink.report(std::move(problem));
        }
        return std::nullopt;
      }
    }

    if (instrumentation)
      instrumentation->afterPass(instance, module, *result, sameFunctions(module, *result));
    module = std::move(*result);
  }
  return module;
}

bool FunctionTrace::failed() const {
  if (!inputProblems.empty())
    return true;
  for (const PassStepRecord &step : steps) {
    if (step.thrown || step.typeError || step.internal || step.returnedNothing || !step.problems.empty())
      return true;
    for (const Diagnostic &diagnostic : step.diagnostics)
      if (diagnostic.severity == Severity::Error)
        return true;
  }
  return false;
}

// Passes [first, last), all function-local, on the workers: each worker takes a function
// through every pass of the section (verifying after each), keeping what it reports; then
// reportSection reports it as one thread would have.
std::optional<Module> PassManager::runFunctionLocal(size_t first, size_t last, Module module, PassContext &ctx,
                                                    Sink &sink) {
  SourceRange where = moduleLocation(module);
  Records records(module.functions.size());
  // Time spent in each pass, per worker thread: a slot each, added up after the join.
  std::vector<std::vector<int64_t>> nanoseconds(threads, std::vector<int64_t>(passes_.size(), 0));
  auto start = std::chrono::steady_clock::now();
  parallelFor(module.functions.size(), threads, [&](size_t index, unsigned worker) {
    PrimFunc func = std::move(module.functions[index]);
    if (passThrough(first, last, func, ctx, records[index], nanoseconds[worker]))
      module.functions[index] = std::move(func);
  });
  addSectionTime(first, last, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                 nanoseconds);
  if (!reportSection(first, last, records, where, sink))
    return std::nullopt;
  return module;
}

void PassManager::addSectionTime(size_t first, size_t last, double wall,
                                 const std::vector<std::vector<int64_t>> &nanoseconds) {
  std::vector<double> spent(passes_.size(), 0);
  double total = 0;
  for (const std::vector<int64_t> &worker : nanoseconds)
    for (size_t k = first; k < last; ++k) {
      spent[k] += static_cast<double>(worker[k]);
      total += static_cast<double>(worker[k]);
    }
  for (size_t k = first; k < last; ++k) {
    timings_[k].wallSeconds += total > 0 ? wall * spent[k] / total : wall / static_cast<double>(last - first);
    timings_[k].peakRssKiB = std::max(timings_[k].peakRssKiB, peakRssKiB());
  }
}

bool PassManager::allFunctionLocal() const {
  return std::all_of(passes_.begin(), passes_.end(), [](const PassInstance &p) { return p.functionLocal(); });
}

std::optional<PrimFunc> PassManager::runTraced(PrimFunc func, const PassContext &ctx, FunctionTrace &trace,
                                               std::vector<int64_t> &nanoseconds) const {
  if (!allFunctionLocal())
    throw std::logic_error("PassManager::runTraced: a pass is not function-local");
  if (verifyEach && !passes_.empty()) {
    trace.inputProblems = verifyFunctionOnce(func);
    if (!trace.inputProblems.empty())
      return std::nullopt;
  }
  if (!passThrough(0, passes_.size(), func, ctx, trace.steps, nanoseconds))
    return std::nullopt;
  return func;
}

bool PassManager::reportTraces(std::vector<FunctionTrace> &traces, SourceRange where,
                               DiagnosticSink &diagnostics) const {
  if (!allFunctionLocal())
    throw std::logic_error("PassManager::reportTraces: a pass is not function-local");
  Sink sink(diagnostics);
  // run() verifies every function before the first pass and stops when any has a problem.
  bool invalidInput = false;
  for (FunctionTrace &trace : traces) {
    for (Diagnostic &problem : trace.inputProblems)
      sink.report(std::move(problem));
    invalidInput |= !trace.inputProblems.empty();
  }
  if (invalidInput)
    return false;
  Records records;
  records.reserve(traces.size());
  for (FunctionTrace &trace : traces)
    records.push_back(std::move(trace.steps));
  return reportSection(0, passes_.size(), records, where, sink);
}

// One worker's part of runFunctionLocal: `func` through passes [first, last), keeping in
// `records` what there is to report. False when a pass failed on it (the section fails then).
bool PassManager::passThrough(size_t first, size_t last, PrimFunc &func, const PassContext &ctx,
                              std::vector<StepRecord> &records, std::vector<int64_t> &nanoseconds) const {
  SimplifiedScope simplified; // what one pass simplified, the next need not (arith/analyzer.h)
  for (size_t k = first; k < last; ++k) {
    CollectingSink collected;
    PassContext workerContext = ctx.withDiagnostics(collected);
    StepRecord record;
    record.pass = k;
    std::optional<PrimFunc> result;
    auto begin = std::chrono::steady_clock::now();
    try {
      result = passes_[k].pass->runOnFunction(std::move(func), workerContext);
    } catch (CompileError &e) {
      record.thrown = std::move(e.diagnostic());
    } catch (const IRTypeError &e) {
      record.typeError = e.what();
    } catch (...) {
      record.internal = std::current_exception();
    }
    nanoseconds[k] +=
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - begin).count();
    record.diagnostics = std::move(collected.diagnostics);
    bool ended = record.thrown || record.typeError || record.internal;
    if (!ended && !result) {
      record.returnedNothing = true;
      ended = true;
    }
    if (!ended && verifyEach)
      record.problems = verifyFunctionOnce(*result);
    ended = ended || collected.errors > 0 || !record.problems.empty();
    if (ended || !record.diagnostics.empty())
      records.push_back(std::move(record));
    if (ended)
      return false;
    func = std::move(*result);
  }
  return true;
}

// Reports what the workers kept in the order one thread would have: pass by pass, function by
// function, stopping where one thread stops. One thread runs each pass over every function
// before the next pass, stops a pass at the function that fails, and stops the pipeline after
// a pass that reported an error or produced invalid IR. As each function's steps depend on that
// function alone, the first pass in which any function fails is where one thread stops, and
// every function has its records of every pass up to that one. False when the section failed.
bool PassManager::reportSection(size_t first, size_t last, Records &records, SourceRange where, Sink &sink) const {
  std::vector<size_t> cursor(records.size(), 0); // each function's next record
  for (size_t k = first; k < last; ++k) {
    const std::string &name = passes_[k].info->name;
    size_t errorsBefore = sink.errors;
    bool stopped = false;
    std::vector<Diagnostic> problems;
    for (size_t index = 0; index < records.size() && !stopped; ++index) {
      if (cursor[index] == records[index].size() || records[index][cursor[index]].pass != k)
        continue;
      StepRecord &record = records[index][cursor[index]++];
      for (Diagnostic &diagnostic : record.diagnostics)
        sink.report(std::move(diagnostic));
      if (record.internal)
        std::rethrow_exception(record.internal);
      if (record.thrown)
        sink.report(std::move(*record.thrown));
      else if (record.typeError)
        sink.error(where, "pass '" + name + "' produced invalid IR: " + *record.typeError);
      stopped = record.thrown || record.typeError || record.returnedNothing;
      for (Diagnostic &problem : record.problems)
        problems.push_back(std::move(problem));
    }
    if (stopped || sink.errors != errorsBefore) {
      if (sink.errors == errorsBefore)
        sink.error(where, "pass '" + name + "' failed");
      return false;
    }
    for (Diagnostic &problem : problems) {
      problem.message = "pass '" + name + "' produced invalid IR: " + problem.message;
      sink.report(std::move(problem));
    }
    if (!problems.empty())
      return false;
  }
  return true;
}

} // namespace tirlower
