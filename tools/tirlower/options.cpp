#include "options.h"

#include <CLI/CLI.hpp>

#include <iostream>

#include "emitters.h"
#include "transform/pass.h"
#include "transform/pipeline.h"
#include "transform/target_pipelines.h"

#ifndef TIRLOWER_VERSION
#error "TIRLOWER_VERSION must be defined by the build"
#endif

namespace tirlower {

namespace {

// CLI11 mangles `--opt=VALUE` of a vector option when VALUE holds braces or commas
// ("--pass=a{k=v,x=y}"), while `--opt VALUE` is kept verbatim: split the '=' form first.
std::vector<std::string> normalizeArguments(int argc, char **argv) {
  static const char *const vectorOptions[] = {"--pass", "--print-ir-after", "--transform-layout", "--layout",
                                              "--require-layout"};
  std::vector<std::string> args;
  for (int k = 1; k < argc; ++k) {
    std::string arg = argv[k];
    bool split = false;
    for (const char *option : vectorOptions) {
      std::string prefix = std::string(option) + "=";
      if (arg.rfind(prefix, 0) == 0) {
        args.push_back(option);
        args.push_back(arg.substr(prefix.size()));
        split = true;
        break;
      }
    }
    if (!split)
      args.push_back(arg);
  }
  // CLI11 parses a reversed vector (it pops from the back).
  return {args.rbegin(), args.rend()};
}

std::optional<int> resolveEmitter(ToolOptions &options, const std::string &emitFlag) {
  if (!emitFlag.empty()) {
    if (!findEmitter(emitFlag)) {
      printToolError("unknown emitter '" + emitFlag + "'; available emitters: " + emitterNames());
      return 2;
    }
    options.emit = emitFlag;
    return std::nullopt;
  }
  if (options.output == "-") {
    options.emit = "tir";
    return std::nullopt;
  }
  const Emitter *emitter = emitterForPath(options.output);
  std::string_view fileName = options.output;
  fileName.remove_prefix(fileName.rfind('/') == std::string_view::npos ? 0 : fileName.rfind('/') + 1);
  if (!emitter && fileName.find('.') == std::string_view::npos)
    emitter = findEmitter("tir"); // `-o out`, `-o /dev/null`: no extension, the default format
  if (!emitter) {
    printToolError("cannot tell the output format from the name '" + options.output +
                   "'; use --emit=NAME (available emitters: " + emitterNames() + ")");
    return 2;
  }
  options.emit = emitter->name;
  return std::nullopt;
}

std::optional<int> resolvePrintAfter(ToolOptions &options) {
  const PassRegistry &registry = PassRegistry::builtin();
  for (std::string &name : options.printIrAfter) {
    const PassInfo *info = registry.find(name);
    if (!info) {
      std::string message = "--print-ir-after: unknown pass '" + name + "'";
      std::string suggestion = closestPassName(name, registry);
      if (!suggestion.empty())
        message += "; did you mean '" + suggestion + "'?";
      printToolError(message);
      return 2;
    }
    name = info->name;
  }
  return std::nullopt;
}

} // namespace

void printToolError(const std::string &message) {
  std::cerr << "tirlower: error: " << message << "\n";
}

std::optional<int> parseCommandLine(int argc, char **argv, ToolOptions &options) {
  CLI::App app{"tirlower: lowers TVMScript tensor IR (TIR) through a pipeline of passes.\n"
               "Reads INPUT ('-' for stdin), runs the passes in order, writes the result.",
               "tirlower"};
  app.set_version_flag("--version", "tirlower " TIRLOWER_VERSION);
  app.get_formatter()->column_width(34);

  std::string emitFlag, timing, diagnosticsFormat = "text";
  std::string pipeline;
  app.add_option("input", options.input, "input file ('-' for stdin)");
  app.add_option("-o,--output", options.output, "output file ('-' for stdout, the default)");
  app.add_option("--emit", emitFlag,
                 "output format: " + emitterNames() + " (default: from the -o extension, else tir)");
  app.add_option("--pass", options.passFlags,
                 "passes to run, in order: NAME or NAME{key=value,...}, comma-separated; repeatable")
      ->allow_extra_args(false);
  auto *pipelineOption = app.add_option("--pass-pipeline", pipeline, "the whole pipeline as text: 'a,b{key=value},c'");
  app.add_flag("--list-passes", options.listPasses, "list the registered passes with their options and exit");
  app.add_flag("--split-input-file", options.splitInputFile,
               "treat each '# -----' line as the end of an independent input");
  app.add_flag("--verify-diagnostics", options.verifyDiagnostics,
               "check the diagnostics against the input's '# expected-error {{...}}' comments");
  app.add_option("--diagnostics-format", diagnosticsFormat, "text (default) or json: one JSON object per line")
      ->check(CLI::IsMember({"text", "json"}));
  app.add_flag("--verify-roundtrip", options.verifyRoundtrip,
               "check that printing, parsing and printing again is stable");
  app.add_flag("--verify-each{true}", options.verifyEach, "verify the IR after every pass (default: true)");
  app.add_flag("--print-ir-after-all", options.printIrAfterAll, "print the IR to stderr after every pass");
  app.add_option("--print-ir-after", options.printIrAfter, "print the IR to stderr after the named pass; repeatable")
      ->allow_extra_args(false);
  app.add_option("--print-ir-tree-dir", options.printIrTreeDir,
                 "write the input and the IR after every pass to DIR/NN_pass.tir");
  app.add_flag("--timing{text}", timing, "report per-step wall time and peak memory on stderr (--timing=json: as JSON)")
      ->check(CLI::IsMember({"text", "json"}));
  app.add_flag("--remarks", options.remarks, "report the decisions passes make as remarks");
  app.add_option("--transform-layout", options.transformLayouts,
                 "add a layout transform: 'B=lambda i, j: [j, i]'; repeatable")
      ->allow_extra_args(false);
  app.add_flag("--openmp", options.emitSettings.openmp, "C: emit T.parallel loops as OpenMP parallel loops");
  app.add_option("-O", options.emitSettings.optLevel, "LLVM optimisation level 0-3 (default 0)")
      ->check(CLI::Range(0, 3));
  app.add_option("--target-triple", options.emitSettings.targetTriple, "LLVM target triple (default: the host)");
  app.add_option_function<std::string>(
         "--tir-spelling",
         [&options](const std::string &v) {
           options.emitSettings.spelling = v == "tirx" ? ScriptSpelling::Tirx : ScriptSpelling::Tir;
         },
         "TVMScript output spelling: tirx (TVM 0.25-0.27: s_tir=True, T.sblock) or tir (older TVM); default: the "
         "input's own")
      ->check(CLI::IsMember({"tir", "tirx"}));
  app.add_option("--target", options.target,
                 "target preset: " + targetPipelineNames() + "; sets the default pipeline and emitter")
      ->check([](const std::string &v) { return findTargetPipeline(v) ? std::string() : "unknown target '" + v + "'"; });
  app.add_option("--layout", options.layouts,
                 "add a layout transform from layout strings: 'B=NHWC->NCHW4c'; repeatable")
      ->allow_extra_args(false);
  app.add_option("--require-layout", options.requiredLayouts,
                 "require a layout of buffer B: 'B=NCHW4c', 'A=NCHW4c:texture' (an OpenCL image); for "
                 "legalize-layouts and verify-layouts; repeatable")
      ->allow_extra_args(false);
  std::string layoutVerify = "error";
  app.add_option("--layout-verify", layoutVerify,
                 "what verify-layouts reports an unmet layout requirement as: error (default) or warn")
      ->check(CLI::IsMember({"error", "warn"}));
  app.add_flag("--verify-semantics", options.verifySemantics,
               "run every function on random inputs before the first pass and after each pass; report the first "
               "pass that changes the results");
  app.add_option("--seed", options.seed, "seed of the random inputs of --verify-semantics (default 1)");

  CLI::App *runCommand = app.add_subcommand(
      "run", "run a function on seeded random inputs (or --inputs) after the pipeline, if any, and write its outputs "
             "as JSON (docs/run-json.md)");
  runCommand->fallthrough();
  runCommand->add_option("file", options.input, "input file ('-' for stdin)")->required();
  runCommand->add_option("--func", options.runFunction, "the function to run (default: the only one)");
  runCommand->add_option("--seed", options.seed, "seed of the random inputs (default 1)");
  runCommand->add_option("--inputs", options.runInputs, "JSON file with input values (docs/run-json.md)");
  runCommand->add_option("--outputs", options.runOutputs, "JSON output file ('-' for stdout, the default)");

  try {
    std::vector<std::string> args = normalizeArguments(argc, argv);
    app.parse(args);
  } catch (const CLI::ParseError &e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  options.runMode = runCommand->parsed();
  options.layoutVerifyWarn = layoutVerify == "warn";
  if (options.runMode && options.verifySemantics) {
    printToolError("--verify-semantics cannot be combined with 'run'");
    return 2;
  }
  if (pipelineOption->count() > 0)
    options.pipeline = pipeline;
  if (const TargetPipeline *preset = options.target.empty() ? nullptr : findTargetPipeline(options.target)) {
    // The preset's pipeline applies when no pass is named; its emitter when none is chosen.
    if (!options.pipeline && options.passFlags.empty())
      options.pipeline = preset->pipeline;
    if (emitFlag.empty() && (options.output == "-" || !emitterForPath(options.output)))
      emitFlag = preset->emitter;
  }
  if (options.pipeline && !options.passFlags.empty()) {
    printToolError("--pass and --pass-pipeline cannot be combined; put every pass in one of them");
    return 2;
  }
  options.timing = timing.empty() ? TimingFormat::None : timing == "json" ? TimingFormat::Json : TimingFormat::Text;
  options.diagnosticsFormat = diagnosticsFormat == "json" ? DiagnosticFormat::Json : DiagnosticFormat::Text;
  if (options.listPasses)
    return std::nullopt;
  if (options.input.empty()) {
    printToolError("no input file (use '-' to read stdin); see --help");
    return 2;
  }
  if (auto code = resolveEmitter(options, emitFlag))
    return code;
  return resolvePrintAfter(options);
}

} // namespace tirlower
