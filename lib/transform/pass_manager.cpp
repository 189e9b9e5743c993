#include "transform/pass_manager.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "ir/verifier.h"

namespace tirlower {

namespace {

// Forwards to the tool's sink and counts errors, so a pass that reports an error but still
// returns a module fails the run too.
class CountingSink : public DiagnosticSink {
public:
  explicit CountingSink(DiagnosticSink &next) : next_(next) {}
  void report(Diagnostic diagnostic) override {
    if (diagnostic.severity == Severity::Error)
      ++errors;
    next_.report(std::move(diagnostic));
  }
  size_t errors = 0;

private:
  DiagnosticSink &next_;
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

void PassManager::add(const PassInfo &info, PassOptions options) {
  if (std::string error = passOptionsError(info, options); !error.empty())
    throw std::logic_error("unchecked pass options: " + error);
  std::unique_ptr<Pass> pass = info.create(passOptionsWithDefaults(info, options));
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
        return "pass '" + passes_[k].info->name + "' requires " + irPropertyName(property) + ", which the later pass '" +
               later->info->name + "' establishes: run '" + later->info->name + "' before '" +
               passes_[k].info->name + "'";
    }
  }
  return {};
}

std::optional<Module> PassManager::run(Module module, PassContext &ctx, PassInstrumentation *instrumentation) {
  CountingSink sink(ctx.diagnostics);
  PassContext passContext{sink, ctx.remarks, ctx.layoutVerifyWarn, ctx.target};
  // The input is verified too, so that a pass is never blamed for what it was given.
  if (verifyEach && !passes_.empty()) {
    std::vector<Diagnostic> problems = verifyModule(module);
    for (Diagnostic &problem : problems)
      sink.report(std::move(problem));
    if (!problems.empty())
      return std::nullopt;
  }
  for (size_t k = 0; k < passes_.size(); ++k) {
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

} // namespace tirlower
