#include "driver.h"

#include <cstring>
#include <iostream>
#include <map>

#include "codegen/tir_printer.h"
#include "emitters.h"
#include "interp/run_json.h"
#include "interp/semantic_check.h"
#include "ir_dumps.h"
#include "layout_flags.h"
#include "output_file.h"
#include "parse/diagnostic_verifier.h"
#include "parse/parser.h"
#include "pass_listing.h"
#include "pass_plugins.h"
#include "run_files.h"
#include "streamed_compile.h"
#include "timing_report.h"
#include "transform/layout_requirements.h"
#include "transform/pass_manager.h"
#include "transform/pipeline.h"

namespace tirlower {

namespace {

constexpr int kInputError = 1;
constexpr int kUsageError = 2;

// The tool flags given that give pass options (PassOptionInfo::flag), with their values. Each
// --require-layout value is a "<command line>" source of its own, so that the passes' notes
// point into it, and is checked here: a malformed one is misuse, located in it.
bool passOptionFlags(const ToolOptions &options, SourceManager &sources, DiagnosticSink &diagnostics,
                     PassOptions &flags) {
  if (options.target)
    flags.push_back({"--target", options.target->name, {}, ""});
  if (!options.layoutVerify.empty())
    flags.push_back({"--layout-verify", options.layoutVerify, {}, ""});
  bool ok = true;
  for (const std::string &text : options.requiredLayouts) {
    uint32_t fileId = sources.addFile("<command line>", text);
    PassOptionValue value{"--require-layout", text, {fileId, 0, static_cast<uint32_t>(text.size())}, "--require-layout"};
    RequireOptionError error;
    if (!parseRequireOption(value, &error)) {
      uint32_t at = static_cast<uint32_t>(error.offset);
      diagnostics.error({fileId, at, at + static_cast<uint32_t>(error.length)},
                        "--require-layout" + std::string(error.missingEquals ? " " : ": ") + error.message);
      ok = false;
    }
    flags.push_back(std::move(value));
  }
  return ok;
}

// Whether a pass of the pipeline declares an option that `flag` gives.
bool declaresFlag(const PassManager &manager, std::string_view flag) {
  for (const PassInstance &pass : manager.passes())
    for (const PassOptionInfo &option : pass.info->options)
      if (option.flag == flag)
        return true;
  return false;
}

// Builds the pass manager from --pass / --pass-pipeline and the flags that give pass options.
// Each pipeline text is a "<command line>" source, so that a pass can point at an option value
// in it. Reports the error and returns false on misuse.
bool buildPipeline(const ToolOptions &options, SourceManager &sources, DiagnosticSink &diagnostics,
                   PassManager &manager) {
  PassOptions flags;
  if (!passOptionFlags(options, sources, diagnostics, flags))
    return false;
  std::vector<std::pair<std::string, std::string>> texts; // flag, pipeline text
  if (options.pipeline)
    texts.emplace_back("--pass-pipeline", *options.pipeline);
  for (const std::string &text : options.passFlags)
    texts.emplace_back("--pass", text);
  for (const auto &[flag, text] : texts) {
    try {
      uint32_t fileId = sources.addFile("<command line>", text);
      for (const PipelineEntry &entry : parsePipeline(text, toolPassRegistry(), fileId))
        manager.add(entry, flags); // parsePipeline has checked the options
    } catch (const PipelineError &e) {
      printToolError(flag + ": " + formatPipelineError(text, e));
      return false;
    }
  }
  // The passes' contracts, before any pass runs: a pass must not come before the pass that
  // establishes what it requires.
  if (std::string error = manager.orderError(); !error.empty()) {
    printToolError(error);
    return false;
  }
  return true;
}

// [begin, end) byte ranges of the inputs: the whole file, or the pieces between lines that
// are exactly "# -----" (trailing blanks allowed).
std::vector<ParseRange> splitInput(std::string_view text, bool split) {
  std::vector<ParseRange> chunks;
  uint32_t chunkStart = 0;
  if (split) {
    size_t lineStart = 0;
    while (lineStart < text.size()) {
      size_t newline = text.find('\n', lineStart);
      size_t lineEnd = newline == std::string_view::npos ? text.size() : newline;
      std::string_view line = text.substr(lineStart, lineEnd - lineStart);
      while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r'))
        line.remove_suffix(1);
      size_t next = newline == std::string_view::npos ? text.size() : newline + 1;
      if (line == "# -----") {
        chunks.push_back({chunkStart, static_cast<uint32_t>(lineStart)});
        chunkStart = static_cast<uint32_t>(next);
      }
      lineStart = next;
    }
  }
  chunks.push_back({chunkStart, static_cast<uint32_t>(text.size())});
  return chunks;
}

// Drops a module that is no longer needed without freeing it: the process exits soon, and
// releasing a large module node by node took a tenth of a plain parse-and-print run (clang's
// -disable-free does the same). The modules stay reachable, so leak checkers stay quiet.
void bury(Module module) {
  static auto *buried = new std::vector<Module>();
  buried->push_back(std::move(module));
}

// memchr scans a word at a time: the byte loop cost 7 instructions per input byte (about a
// tenth of a second for 10^5 functions, before the parse).
size_t countLines(std::string_view text) {
  size_t lines = 0;
  const char *end = text.data() + text.size();
  for (const char *p = text.data(); (p = static_cast<const char *>(std::memchr(p, '\n', static_cast<size_t>(end - p))));
       ++p)
    ++lines;
  return lines + (!text.empty() && text.back() != '\n');
}

// print(parse(print(m))) must equal print(m). On a difference, reports the first differing
// line, located in the printed text (kept in the SourceManager).
bool checkRoundTrip(const Module &module, const std::string &inputName, SourceManager &sources,
                    DiagnosticSink &diagnostics) {
  std::string first = printModule(module);
  uint32_t fileId = sources.addFile("<round trip of " + inputName + ">", first);
  std::optional<Module> reparsed = parseModule(sources, fileId, diagnostics);
  if (!reparsed) {
    diagnostics.error({}, "--verify-roundtrip: the printed IR of '" + inputName + "' does not parse (errors above)");
    return false;
  }
  std::string second = printModule(*reparsed);
  if (first == second)
    return true;
  size_t offset = 0, line = 1;
  while (offset < first.size() && offset < second.size() && first[offset] == second[offset]) {
    if (first[offset] == '\n')
      line++;
    ++offset;
  }
  size_t lineStart = first.rfind('\n', offset ? offset - 1 : 0);
  lineStart = (lineStart == std::string::npos || offset == 0) ? 0 : lineStart + 1;
  auto lineAt = [](const std::string &text, size_t start) {
    size_t end = text.find('\n', start);
    return start >= text.size() ? std::string("<end of output>")
                                : text.substr(start, end == std::string::npos ? std::string::npos : end - start);
  };
  diagnostics.report({Severity::Error,
                      {fileId, static_cast<uint32_t>(lineStart), static_cast<uint32_t>(lineStart)},
                      "--verify-roundtrip: printing the parsed output differs at line " + std::to_string(line) +
                          ":\n-" + lineAt(first, lineStart) + "\n+" + lineAt(second, lineStart),
                      {}});
  return false;
}

// Forwards the hooks to the IR dumps (when active) and compares each pass's output with the
// original module's behaviour (--verify-semantics), keeping the first difference.
class SemanticInstrumentation : public PassInstrumentation {
public:
  SemanticInstrumentation(const SemanticChecker &checker, PassInstrumentation *next) : checker_(checker), next_(next) {}

  void beforePass(const PassInstance &instance, const Module &module) override {
    if (next_)
      next_->beforePass(instance, module);
  }
  void afterPass(const PassInstance &instance, const Module &before, const Module &after, bool identical) override {
    if (next_)
      next_->afterPass(instance, before, after, identical);
    reassociated_ |= instance.info->reassociates; // floats compared with tolerance from here on
    if (!failure && !identical)
      failure = checker_.check(after, instance.info->name, reassociated_);
  }

  std::optional<Diagnostic> failure;

private:
  const SemanticChecker &checker_;
  PassInstrumentation *next_;
  bool reassociated_ = false;
};

class Driver {
public:
  explicit Driver(const ToolOptions &options)
      : options_(options), engine_(sources_, std::cerr, options.diagnosticsFormat), dumps_(options, treeFiles_) {}

  int run() {
    manager_.verifyEach = options_.verifyEach;
    manager_.threads = options_.threads;
    if (!buildPipeline(options_, sources_, engine_, manager_) || !flagsApplyToPipeline())
      return kUsageError;
    std::vector<LayoutFlag> layoutFlags;
    if (!parseLayoutFlags(options_, sources_, engine_, layoutFlags))
      return kUsageError;
    layoutFlags_ = std::move(layoutFlags);

    SourceText input;
    std::string error;
    bool read = timing_.time("read input", [&] { return readInput(options_.input, input, error); });
    if (!read) {
      engine_.error({}, error);
      return kInputError;
    }
    inputName_ = options_.input == "-" ? "<stdin>" : options_.input;
    timing_.inputBytes = input.view().size();
    if (options_.timing != TimingFormat::None) // only the --timing report shows it
      timing_.inputLines = countLines(input.view());
    fileId_ = sources_.addFile(inputName_, std::move(input));
    if (options_.runMode)
      return runFunction();

    int status = 0;
    std::vector<ParseRange> chunks = splitInput(sources_.text(fileId_), options_.splitInputFile);
    std::vector<ChunkOutput> chunkOutputs;
    for (const ParseRange &chunk : chunks) {
      std::optional<ChunkOutput> chunkOutput;
      int chunkStatus = runChunk(chunk, chunkOutput);
      status = std::max(status, chunkStatus);
      if (chunkOutput)
        chunkOutputs.push_back(std::move(*chunkOutput));
    }
    std::string output;
    if (status == 0 && !combineChunks(chunkOutputs, output))
      status = kInputError;
    if (status == 0 && functionCount_ == 0 && !options_.verifyDiagnostics)
      engine_.warning({fileId_, 0, 0}, "'" + inputName_ + "' defines no function; the output is empty");
    if (!writeTreeDir())
      status = std::max(status, kInputError);
    if (status == 0) {
      std::string message = timing_.time("write output", [&] {
        return body_ ? writeOutput(options_.output, output, *body_) : writeOutput(options_.output, output);
      });
      if (!message.empty()) {
        engine_.error({}, message);
        status = kInputError;
      }
    }
    reportTiming();
    return status;
  }

private:
  // Flags that act on passes, given for a pipeline without them, would do nothing: misuse.
  bool flagsApplyToPipeline() const {
    auto runs = [&](const std::string &name) {
      for (const PassInstance &pass : manager_.passes())
        if (pass.info->name == name)
          return true;
      return false;
    };
    std::string pipeline = pipelineText(manager_);
    pipeline.pop_back();
    std::string runsText = pipeline.empty() ? "no pass runs" : "the pipeline is " + pipeline;
    for (const std::string &name : options_.printIrAfter)
      if (!runs(name)) {
        printToolError("--print-ir-after=" + name + ": no pass '" + name + "' runs (" + runsText + ")");
        return false;
      }
    if (!options_.layoutVerify.empty() && !declaresFlag(manager_, "--layout-verify")) {
      printToolError("--layout-verify applies to the verify-layouts pass, which does not run (" + runsText + ")");
      return false;
    }
    if (!options_.requiredLayouts.empty() && !declaresFlag(manager_, "--require-layout")) {
      printToolError("--require-layout applies to the legalize-layouts and verify-layouts passes, neither of which "
                     "runs (" + runsText + ")");
      return false;
    }
    return true;
  }

  // What one input chunk contributes to stdout/-o: its emitted text, or (for emitters whose
  // chunks are combined into one output) its lowered module.
  struct ChunkOutput {
    std::string text;
    std::optional<Module> module;
    std::optional<std::string> streamedHead; // the streamed compile's: its text is in body_
  };

  // The tir emitter joins the chunks' texts with `# -----` lines, as mlir-opt does; json writes
  // an array of the chunks' documents; code emitters get one module of every chunk's functions
  // (one C file, one object), which needs every function's symbol to differ.
  bool emitsPerChunk() const { return options_.emit == "tir" || options_.emit == "json"; }

  bool combineChunks(std::vector<ChunkOutput> &chunks, std::string &output) {
    if (chunks.size() == 1 && chunks.front().streamedHead) {
      output = std::move(*chunks.front().streamedHead);
      return true;
    }
    if (options_.emit == "tir") {
      for (size_t k = 0; k < chunks.size(); ++k)
        output += k == 0 ? std::move(chunks[k].text) : "# -----\n" + chunks[k].text;
      return true;
    }
    if (options_.emit == "json") {
      if (!options_.splitInputFile) {
        output = chunks.empty() ? std::string() : std::move(chunks.front().text);
        return true;
      }
      output = "[";
      for (size_t k = 0; k < chunks.size(); ++k) {
        std::string &text = chunks[k].text;
        while (!text.empty() && text.back() == '\n')
          text.pop_back();
        output += (k == 0 ? "\n" : ",\n") + text;
      }
      output += "\n]\n";
      return true;
    }
    Module combined;
    std::map<std::string, PrimFunc> symbols;
    for (ChunkOutput &chunk : chunks) {
      Module &module = *chunk.module;
      if (combined.functions.empty()) {
        combined.name = module.name;
        combined.isIRModule = module.isIRModule;
        combined.spelling = module.spelling;
        combined.fileId = module.fileId;
      }
      for (PrimFunc &func : module.functions) {
        auto [it, inserted] = symbols.emplace(func->globalSymbol(), func);
        if (!inserted) {
          engine_.report({Severity::Error,
                          func->loc,
                          "--split-input-file with --emit=" + options_.emit +
                              " writes one output for every input, so each function needs its own symbol: '" +
                              it->first + "' is defined twice",
                          {Diagnostic{Severity::Note, it->second->loc, "the first definition", {}}}});
          return false;
        }
        combined.functions.push_back(func);
      }
    }
    // A code emitter that can stream writes the text after its head as it goes (to a temporary
    // file), so the output of a large module is not held in memory; `output` is the head.
    if (findEmitter(options_.emit)->emitStreamed)
      body_.emplace(options_.output);
    std::optional<std::string> text = emit(combined, engine_, body_ ? &*body_ : nullptr);
    bury(std::move(combined));
    if (!text)
      return false;
    output = std::move(*text);
    return true;
  }

  bool writeTreeDir() {
    if (options_.printIrTreeDir.empty())
      return true;
    std::string message = writeTreeFiles(options_.printIrTreeDir, treeFiles_);
    if (message.empty())
      return true;
    engine_.error({}, message);
    return false;
  }

  // Runs one input chunk. Sets `output` to what the chunk contributes to stdout/-o.
  int runChunk(ParseRange range, std::optional<ChunkOutput> &output) {
    if (!options_.verifyDiagnostics) {
      size_t errorsBefore = engine_.errorCount();
      std::optional<ChunkOutput> chunk = compile(range, engine_);
      if (!chunk || engine_.errorCount() != errorsBefore)
        return kInputError;
      output = std::move(chunk);
      return 0;
    }
    DiagnosticCollector collector;
    std::optional<ChunkOutput> chunk = compile(range, collector);
    bool matched = verifyDiagnostics(sources_, fileId_, range.begin, range.end, collector.diagnostics, engine_);
    if (chunk && collector.errorCount() == 0)
      output = std::move(chunk);
    return matched ? 0 : kInputError;
  }

  // The module's text; with `body`, the emitter's streamed form: the text after the head goes to
  // `body` and the head is returned.
  std::optional<std::string> emit(const Module &module, DiagnosticSink &diagnostics, OutputBody *body = nullptr) {
    const Emitter *emitter = findEmitter(options_.emit);
    try {
      return timing_.time("emit " + emitter->name, [&] {
        if (body)
          return emitter->emitStreamed(module, options_.emitSettings, diagnostics,
                                       [body](std::string_view text) { body->append(text); });
        return emitter->emit(module, &sources_, options_.emitSettings, diagnostics);
      });
    } catch (CompileError &e) {
      Diagnostic diagnostic = std::move(e.diagnostic());
      // `-o k.c` alone picks the emitter, not the lowering: an emitter that finds blocks or
      // unflattened buffers (its message names the passes to run) is told what lowers them.
      bool unlowered = diagnostic.message.find("lower it first") != std::string::npos ||
                       diagnostic.message.find("run the flatten pass first") != std::string::npos;
      if (manager_.empty() && emitter->target && unlowered) {
        const std::string &target = emitter->target->name;
        diagnostic.note(diagnostic.range, "no pass ran: -o and --emit choose the output format only; --target=" +
                                              target + " also runs the " + target +
                                              " target's default pipeline (tirlower --print-pipeline --target=" +
                                              target + ")");
      }
      diagnostics.report(std::move(diagnostic));
      return std::nullopt;
    }
  }

  // Whether the streamed compile (streamed_compile.h) may stand in for parse, lower and emit:
  // the emitter writes in parts, every pass is function-local, the range is large, and nothing
  // asks to see the module as a whole (dumps, round trips, semantic checks, layout flags,
  // expected diagnostics, several chunks joined into one output).
  bool streams(ParseRange range) const {
    const Emitter *emitter = findEmitter(options_.emit);
    uint32_t size = static_cast<uint32_t>(sources_.text(fileId_).size());
    return emitter && emitter->writer && !options_.splitInputFile && !options_.verifyDiagnostics &&
           !options_.verifyRoundtrip && !options_.verifySemantics && !dumps_.active() && layoutFlags_.empty() &&
           manager_.allFunctionLocal() && std::min(range.end, size) - std::min(range.begin, size) >= kMinStreamedBytes;
  }

  // The context of every pass of this run: the sink and --remarks.
  PassContext passContext(DiagnosticSink &diagnostics) const { return {diagnostics, options_.remarks}; }

  std::optional<ChunkOutput> compileStreamed(ParseRange range, DiagnosticSink &diagnostics, bool &reported) {
    PassContext context = passContext(diagnostics);
    EmitSettings settings = options_.emitSettings;
    StreamedCompileInput input{sources_, fileId_,         range, manager_, context, *findEmitter(options_.emit),
                               settings, options_.threads};
    body_.emplace(options_.output);
    size_t functions = 0;
    std::optional<std::string> head = tirlower::compileStreamed(input, *body_, timing_, functions, reported);
    if (!head) {
      body_.reset(); // the whole-module path writes it again, or nothing is written
      return std::nullopt;
    }
    timing_.functions += functions;
    functionCount_ += functions;
    ChunkOutput chunk;
    chunk.streamedHead = std::move(head);
    return chunk;
  }

  std::optional<ChunkOutput> compile(ParseRange range, DiagnosticSink &diagnostics) {
    if (streams(range)) {
      bool reported = false;
      if (std::optional<ChunkOutput> chunk = compileStreamed(range, diagnostics, reported))
        return chunk;
      if (reported) // the input does not parse: said without holding the whole module
        return std::nullopt;
    }
    std::optional<Module> module =
        timing_.time("parse", [&] { return parseModule(sources_, fileId_, diagnostics, range, options_.threads); });
    if (!module)
      return std::nullopt;
    timing_.functions += module->functions.size();
    functionCount_ += module->functions.size();
    if (!layoutFlags_.empty()) {
      if (!timing_.time("layout flags", [&] { return applyLayoutFlags(*module, layoutFlags_, diagnostics); }))
        return std::nullopt;
    }
    if (dumps_.active())
      dumps_.input(*module, inputName_);
    std::optional<Module> lowered = lower(std::move(*module), diagnostics);
    if (!lowered)
      return std::nullopt;
    ChunkOutput chunk;
    // Under --verify-diagnostics every chunk is also emitted on its own: its emitter's
    // diagnostics belong to its expectations.
    if (emitsPerChunk() || options_.verifyDiagnostics) {
      std::optional<std::string> text = emit(*lowered, diagnostics);
      if (!text)
        return std::nullopt;
      chunk.text = std::move(*text);
    }
    if (options_.verifyRoundtrip &&
        !timing_.time("verify-roundtrip", [&] { return checkRoundTrip(*lowered, inputName_, sources_, diagnostics); }))
      return std::nullopt;
    if (!emitsPerChunk())
      chunk.module = std::move(*lowered); // emitted with the other chunks' functions
    else if (range.end == sources_.text(fileId_).size())
      bury(std::move(*lowered)); // the last chunk; earlier ones free theirs for the next to reuse
    return chunk;
  }

  // Runs the pipeline, checking every pass's output with --verify-semantics.
  std::optional<Module> lower(Module module, DiagnosticSink &diagnostics) {
    PassContext context = passContext(diagnostics);
    PassInstrumentation *dumps = dumps_.active() ? &dumps_ : nullptr;
    if (!options_.verifySemantics)
      return manager_.run(std::move(module), context, dumps);
    SemanticCheckOptions checkOptions;
    checkOptions.seed = options_.seed;
    checkOptions.run = runOptions();
    checkOptions.random = randomOptions();
    std::optional<SemanticChecker> checker;
    timing_.time("verify-semantics", [&] { checker.emplace(module, checkOptions); });
    for (const Diagnostic &skipped : checker->skipped())
      diagnostics.report(skipped);
    SemanticInstrumentation instrumentation(*checker, dumps);
    std::optional<Module> lowered = manager_.run(std::move(module), context, &instrumentation);
    if (instrumentation.failure) {
      diagnostics.report(std::move(*instrumentation.failure));
      return std::nullopt;
    }
    return lowered;
  }

  // `tirlower run`: parse, layout flags, pipeline, then run one function and write its outputs.
  int runFunction() {
    std::optional<Module> module = parseModule(sources_, fileId_, engine_);
    if (!module)
      return kInputError;
    if (!layoutFlags_.empty())
      if (!applyLayoutFlags(*module, layoutFlags_, engine_))
        return kInputError;
    if (dumps_.active())
      dumps_.input(*module, inputName_);
    size_t errorsBefore = engine_.errorCount();
    std::optional<Module> lowered = lower(std::move(*module), engine_);
    if (!lowered || engine_.errorCount() != errorsBefore)
      return kInputError;
    std::string names;
    for (const PrimFunc &func : lowered->functions)
      names += (names.empty() ? "" : ", ") + func->name.str();
    if (!writeTreeDir())
      return kInputError;
    PrimFunc func;
    if (!options_.runFunction.empty()) {
      func = lowered->find(options_.runFunction);
      for (const PrimFunc &candidate : lowered->functions)
        if (!func && candidate->globalSymbol() == options_.runFunction)
          func = candidate; // the C symbol users know from the emitted code
      if (!func) {
        printToolError("run: no function named '" + options_.runFunction + "' in '" + inputName_ +
                       "'; functions: " + names);
        return kUsageError;
      }
    } else if (lowered->functions.size() == 1) {
      func = lowered->functions.front();
    } else if (lowered->functions.empty()) {
      engine_.error({fileId_, 0, 0}, "run: '" + inputName_ + "' defines no function");
      return kInputError;
    } else {
      printToolError("run: '" + inputName_ + "' has " + std::to_string(lowered->functions.size()) +
                     " functions; choose one with --func (functions: " + names + ")");
      return kUsageError;
    }
    std::vector<ArgValue> args;
    try {
      if (options_.runInputs.empty()) {
        args = makeRandomArgs(func, options_.seed, randomOptions());
      } else {
        std::string json, arrays;
        if (std::string error = runInputsJson(func, options_.runInputs, json, arrays); !error.empty()) {
          engine_.error({}, error);
          return kInputError;
        }
        args = makeArgsFromJson(func, json, options_.seed, randomOptions(), arrays);
      }
    } catch (CompileError &e) {
      engine_.report(std::move(e.diagnostic()));
      return kInputError;
    }
    RunResult result = timing_.time("run", [&] { return tirlower::run(func, args, runOptions()); });
    if (result.status == RunStatus::Error) {
      if (result.error)
        engine_.report(*result.error);
      reportTiming();
      return kInputError;
    }
    std::vector<std::string> warnings;
    auto [status, message] = timing_.time("write outputs", [&] {
      return writeRunOutputs(func, args, result, options_.seed, options_.runOutputs, options_.runTable, warnings);
    });
    reportTiming();
    for (const std::string &warning : warnings)
      engine_.warning({}, warning);
    if (status == kUsageError)
      printToolError(message);
    else if (status != 0)
      engine_.error({}, message);
    return status;
  }

  RunOptions runOptions() const {
    RunOptions run;
    run.stepLimit = options_.maxSteps;
    run.stepLimitHint = "--max-steps=N";
    run.maxAllocationBytes = options_.maxBufferBytes;
    run.vscale = options_.vscale;
    run.warpSize = options_.warpSize;
    return run;
  }

  RandomArgOptions randomOptions() const {
    RandomArgOptions random;
    random.maxBufferBytes = options_.maxBufferBytes;
    random.maxBufferBytesHint = "--max-buffer-bytes=N";
    return random;
  }

  void reportTiming() {
    if (options_.timing == TimingFormat::None)
      return;
    timing_.addPasses(manager_.timings());
    std::cerr << (options_.timing == TimingFormat::Json ? timing_.json() : timing_.text());
    std::cerr.flush();
  }

  const ToolOptions &options_;
  SourceManager sources_;
  DiagnosticEngine engine_;
  std::map<std::string, std::string> treeFiles_;
  IRDumps dumps_;
  PassManager manager_;
  TimingReport timing_;
  std::vector<LayoutFlag> layoutFlags_;
  std::string inputName_;
  uint32_t fileId_ = 0;
  size_t functionCount_ = 0;
  // The streamed part of the output (emitStreamed), written after its head by run().
  std::optional<OutputBody> body_;
};

} // namespace

int runTool(const ToolOptions &options) {
  if (options.listPasses) {
    std::cout << listPasses();
    return 0;
  }
  if (options.printPipeline) {
    PassManager manager;
    SourceManager sources;
    DiagnosticEngine diagnostics(sources, std::cerr, options.diagnosticsFormat);
    if (!buildPipeline(options, sources, diagnostics, manager))
      return kUsageError;
    std::cout << pipelineText(manager);
    return 0;
  }
  return Driver(options).run();
}

} // namespace tirlower
