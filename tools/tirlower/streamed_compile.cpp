#include "streamed_compile.h"

#include <atomic>
#include <chrono>
#include <unordered_set>
#include <vector>

#include "ir/parallel.h"
#include "parse/diagnostic_engine.h"

namespace tirlower {

namespace {

// About this many bytes of input per piece: some 80 bench functions, whose IR (some 450 KiB)
// stays in a core's L2 cache from parsing to writing.
constexpr uint32_t kPieceBytes = 1 << 16;

// A sink that only notes that something was reported: any diagnostic sends the compile down
// the whole-module path, which reports it in its place.
class NoteSink : public DiagnosticSink {
public:
  void report(Diagnostic) override { reported = true; }
  bool reported = false;
};

// What a worker did with one piece.
struct PieceOutput {
  std::string text;
  std::vector<Symbol> names;
  bool failed = false;
};

// Nanoseconds each worker spent in each step: parsing, every pass, writing.
struct WorkerTimes {
  int64_t parse = 0, write = 0;
  std::vector<int64_t> passes;
};

int64_t since(std::chrono::steady_clock::time_point begin) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - begin).count();
}

// One streamed compile: the pieces, what each worker made of them, and the time it took.
class StreamedCompile {
public:
  StreamedCompile(const StreamedCompileInput &input, ModulePieces pieces)
      : input_(input), pieces_(std::move(pieces)), workers_(std::max(1u, input.threads)),
        writer_(input.emitter.writer(input.settings, workers_)), outputs_(pieces_.size()), times_(workers_) {
    for (WorkerTimes &t : times_)
      t.passes.assign(input.passes.passes().size(), 0);
  }

  // The head, or nullopt for the whole-module path.
  std::optional<std::string> run(OutputBody &body, size_t &functions) {
    parallelForOrdered(
        pieces_.size(), workers_, [&](size_t k, unsigned worker) { compilePiece(k, worker); },
        [&](size_t k) {
          PieceOutput &out = outputs_[k];
          if (out.failed || failed_.load()) {
            failed_.store(true);
            return;
          }
          body.append(out.text);
          std::string().swap(out.text);
          functions += out.names.size();
        });
    if (failed_.load())
      return std::nullopt;
    if (!namesUnique(functions)) {
      parseFailed_.store(true); // the parser reports the redefinition
      return std::nullopt;
    }
    auto begin = std::chrono::steady_clock::now();
    std::optional<std::string> head = writer_->head();
    times_[0].write += since(begin);
    return head;
  }

  // Whether a piece did not parse on its own (or two defined one name): the parser alone may
  // say why, without the whole module.
  bool parseFailed() const { return parseFailed_.load(); }

  // Adds the run's wall time to `timing` and the passes' timings, shared among the steps as the
  // workers' time was.
  void addTimes(double wall, TimingReport &timing) const {
    double parse = 0, write = 0, lower = 0;
    std::vector<std::vector<int64_t>> passTimes;
    for (const WorkerTimes &t : times_) {
      parse += static_cast<double>(t.parse);
      write += static_cast<double>(t.write);
      for (int64_t ns : t.passes)
        lower += static_cast<double>(ns);
      passTimes.push_back(t.passes);
    }
    double total = parse + write + lower;
    auto share = [&](double part) { return total > 0 ? wall * part / total : 0.0; };
    timing.add("parse", share(parse));
    if (!input_.passes.empty())
      input_.passes.addSectionTime(0, input_.passes.passes().size(), share(lower), passTimes);
    timing.add("emit " + input_.emitter.name, share(write));
    timing.streamed = true;
  }

private:
  // Piece k on a worker. A piece that fails stops the others: the whole-module path runs anyway.
  void compilePiece(size_t k, unsigned worker) {
    if (failed_.load(std::memory_order_relaxed))
      return;
    if (!compiled(k, worker, outputs_[k])) {
      outputs_[k].failed = true;
      failed_.store(true);
    }
  }

  // Piece k parsed, each function lowered and written into `out`, the IR freed on the thread
  // that made it, for its next piece to reuse. False when anything was reported.
  bool compiled(size_t k, unsigned worker, PieceOutput &out) {
    WorkerTimes &t = times_[worker];
    auto begin = std::chrono::steady_clock::now();
    std::optional<Module> module = pieces_.parse(k);
    t.parse += since(begin);
    if (!module) {
      parseFailed_.store(true);
      return false;
    }
    if (pieces_.head().spelling == ScriptSpelling::Tirx)
      module->spelling = ScriptSpelling::Tirx; // the whole module's spelling, as parseModule joins it
    NoteSink passSink;
    PassContext context{passSink, input_.context.remarks, input_.context.layoutVerifyWarn, input_.context.target};
    out.names.reserve(module->functions.size());
    for (PrimFunc &func : module->functions) {
      out.names.push_back(func->name);
      std::optional<PrimFunc> lowered = input_.passes.runQuietly(std::move(func), context, t.passes);
      if (!lowered || passSink.reported)
        return false;
      begin = std::chrono::steady_clock::now();
      NoteSink writeSink;
      try {
        writer_->write(**lowered, *module, k == 0 && &func == &module->functions.front(), worker, out.text, writeSink);
      } catch (const CompileError &) {
        writeSink.reported = true;
      }
      t.write += since(begin);
      if (writeSink.reported)
        return false;
    }
    return true;
  }

  // False when two pieces define functions of one name: the whole-module parse reports it.
  bool namesUnique(size_t functions) const {
    std::unordered_set<Symbol> names;
    names.reserve(functions);
    for (const PieceOutput &out : outputs_)
      for (const Symbol &name : out.names)
        if (!names.insert(name).second)
          return false;
    return true;
  }

  const StreamedCompileInput &input_;
  ModulePieces pieces_;
  unsigned workers_;
  std::unique_ptr<ModuleWriter> writer_;
  std::vector<PieceOutput> outputs_;
  std::vector<WorkerTimes> times_;
  std::atomic<bool> failed_{false};
  std::atomic<bool> parseFailed_{false};
};

// After a piece failed to parse: the parser's diagnostics of the whole range, from one pass
// that frees each function as it goes (checkParse). When they hold an error, they are what the
// whole-module path would report (its parse fails with exactly them and nothing runs after
// it), so they are reported here and that path, which holds the whole module's IR at once (for
// 100 MB of input, 2.3 GiB and 24 s), is not taken. True when reported.
bool reportParseErrors(const StreamedCompileInput &input) {
  DiagnosticCollector collector;
  if (checkParse(input.sources, input.fileId, collector, input.range) || collector.errorCount() == 0)
    return false;
  for (Diagnostic &diagnostic : collector.diagnostics)
    input.context.diagnostics.report(std::move(diagnostic));
  return true;
}

} // namespace

std::optional<std::string> compileStreamed(const StreamedCompileInput &input, OutputBody &body, TimingReport &timing,
                                           size_t &functions, bool &reported) {
  reported = false;
  auto start = std::chrono::steady_clock::now();
  std::optional<ModulePieces> pieces = ModulePieces::cut(input.sources, input.fileId, input.range, kPieceBytes);
  if (!pieces)
    return std::nullopt;
  StreamedCompile compile(input, std::move(*pieces));
  size_t count = 0;
  std::optional<std::string> head = compile.run(body, count);
  if (!head) {
    reported = compile.parseFailed() && reportParseErrors(input);
    return std::nullopt;
  }
  compile.addTimes(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), timing);
  functions = count;
  return head;
}

} // namespace tirlower
