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

// A sink that keeps what a writer reports of one function.
class KeepingSink : public DiagnosticSink {
public:
  void report(Diagnostic diagnostic) override { diagnostics.push_back(std::move(diagnostic)); }
  std::vector<Diagnostic> diagnostics;
};

// What the writer reported of one function: its warnings, and the error that stopped it.
struct WriteRecord {
  std::vector<Diagnostic> diagnostics;
  std::optional<Diagnostic> thrown;
};

// What a worker did with one piece: its text, and what there is to report of its functions, in
// their order (those with nothing to report are not kept).
struct PieceOutput {
  std::string text;
  std::vector<Symbol> names;
  std::vector<FunctionTrace> traces; // the passes'
  std::vector<WriteRecord> writes;   // the writer's
  SourceRange firstLoc;              // its first function's
  bool parseFailed = false;
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

  // The head, or nullopt: for the whole-module path, or (`reported`) after reporting what that
  // path reports of the passes' or the writer's diagnostics.
  std::optional<std::string> run(OutputBody &body, size_t &functions, bool &reported) {
    parallelForOrdered(
        pieces_.size(), workers_, [&](size_t k, unsigned worker) { compilePiece(k, worker); },
        [&](size_t k) {
          PieceOutput &out = outputs_[k];
          functions += out.names.size();
          if (failed_.load() || parseFailed_.load())
            return;
          body.append(out.text);
          std::string().swap(out.text);
        });
    if (parseFailed_.load())
      return std::nullopt;
    if (!namesUnique(functions)) {
      parseFailed_.store(true); // the parser reports the redefinition
      return std::nullopt;
    }
    if (!reportDiagnostics()) {
      reported = true;
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
  // Piece k on a worker. Once a piece did not parse the others stop (the parser reports it);
  // once a function failed in a pass or the writer, the others are still taken through the
  // passes (where the whole-module path stops depends on every function's way through them),
  // but no more text is written.
  void compilePiece(size_t k, unsigned worker) {
    if (parseFailed_.load(std::memory_order_relaxed))
      return;
    compile(k, worker, outputs_[k]);
  }

  // Piece k parsed, each function lowered and written into `out`, the IR freed on the thread
  // that made it, for its next piece to reuse; what a pass or the writer reported kept in `out`.
  void compile(size_t k, unsigned worker, PieceOutput &out) {
    WorkerTimes &t = times_[worker];
    auto begin = std::chrono::steady_clock::now();
    std::optional<Module> module = pieces_.parse(k);
    t.parse += since(begin);
    if (!module) {
      parseFailed_.store(true);
      return;
    }
    if (pieces_.head().spelling == ScriptSpelling::Tirx)
      module->spelling = ScriptSpelling::Tirx; // the whole module's spelling, as parseModule joins it
    if (!module->functions.empty())
      out.firstLoc = module->functions.front()->loc;
    out.names.reserve(module->functions.size());
    for (PrimFunc &func : module->functions) {
      out.names.push_back(func->name);
      bool first = k == 0 && &func == &module->functions.front();
      FunctionTrace trace;
      std::optional<PrimFunc> lowered = input_.passes.runTraced(std::move(func), input_.context, trace, t.passes);
      if (!trace.empty()) {
        if (trace.failed()) {
          failed_.store(true);
          passFailed_.store(true);
        }
        out.traces.push_back(std::move(trace));
      }
      // After a pass failed, the writer reports nothing; after it failed on a function of an
      // earlier piece, nothing of this piece.
      if (!lowered || passFailed_.load(std::memory_order_relaxed) || k > firstWriteFailure_.load())
        continue;
      begin = std::chrono::steady_clock::now();
      KeepingSink writeSink;
      WriteRecord record;
      try {
        writer_->write(**lowered, *module, first, worker, out.text, writeSink);
      } catch (CompileError &e) {
        record.thrown = std::move(e.diagnostic());
        failed_.store(true);
        size_t earliest = firstWriteFailure_.load();
        while (k < earliest && !firstWriteFailure_.compare_exchange_weak(earliest, k)) {
        }
      }
      t.write += since(begin);
      record.diagnostics = std::move(writeSink.diagnostics);
      if (record.thrown || !record.diagnostics.empty())
        out.writes.push_back(std::move(record));
    }
  }

  // Reports what the whole-module path reports of the passes and the writer: the passes' first
  // (the pass manager's order and stops), then, when they all went through, the writer's,
  // function by function up to the first error. False when something failed.
  bool reportDiagnostics() {
    std::vector<FunctionTrace> traces;
    for (PieceOutput &out : outputs_)
      for (FunctionTrace &trace : out.traces)
        traces.push_back(std::move(trace));
    if (!traces.empty() && !input_.passes.reportTraces(traces, outputs_.empty() ? SourceRange{} : outputs_[0].firstLoc,
                                                       input_.context.diagnostics))
      return false;
    for (PieceOutput &out : outputs_)
      for (WriteRecord &record : out.writes) {
        for (Diagnostic &diagnostic : record.diagnostics)
          input_.context.diagnostics.report(std::move(diagnostic));
        if (record.thrown) {
          input_.context.diagnostics.report(std::move(*record.thrown));
          return false;
        }
      }
    return !failed_.load();
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
  std::atomic<bool> failed_{false};     // a pass or the writer failed on a function
  std::atomic<bool> passFailed_{false}; // a pass did
  std::atomic<size_t> firstWriteFailure_{SIZE_MAX}; // the first piece on which the writer did
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
  std::optional<std::string> head = compile.run(body, count, reported);
  if (!head) {
    reported = reported || (compile.parseFailed() && reportParseErrors(input));
    if (reported) // found without the whole-module path
      compile.addTimes(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), timing);
    return std::nullopt;
  }
  compile.addTimes(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), timing);
  functions = count;
  return head;
}

} // namespace tirlower
