// The command line declared: every flag of the tool and of `run`, with its help group, its
// value's form and the validator of its text, and parseCommandLine, which parses the arguments
// and hands them to what they mean together (option_checks.h).
#include "options.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <iostream>

#include "emitters.h"
#include "option_checks.h"
#include "parse/source_manager.h"
#include "pass_plugins.h"
#include "run_files.h"
#include "transform/pass.h"
#include "transform/pipeline.h"
#include "transform/target.h"

#ifndef TIRLOWER_VERSION
#error "TIRLOWER_VERSION must be defined by the build"
#endif

namespace tirlower {

namespace {

// How command-line errors are printed: set from --diagnostics-format before anything is parsed,
// so that even a typo in the first flag comes out as JSON when JSON was asked for.
DiagnosticFormat toolDiagnosticFormat = DiagnosticFormat::Text;

void reportUnlocated(Severity severity, const std::string &message) {
  static const SourceManager noSources;
  DiagnosticEngine engine(noSources, std::cerr, toolDiagnosticFormat);
  engine.report({severity, {}, message, {}});
  std::cerr.flush();
}

DiagnosticFormat scanDiagnosticFormat(int argc, char **argv) {
  for (int k = 1; k < argc; ++k) {
    std::string_view arg = argv[k];
    if (arg == "--diagnostics-format=json" ||
        (arg == "--diagnostics-format" && k + 1 < argc && std::string_view(argv[k + 1]) == "json"))
      return DiagnosticFormat::Json;
  }
  return DiagnosticFormat::Text;
}

// CLI11 2.1 splits the value of `--opt=VALUE` at commas inside braces ("--pass=a{k=v,x=y}"
// becomes "ak=v" and "ax=y"), while `--opt VALUE` is kept verbatim: give it the second form.
std::vector<std::string> normalizeArguments(int argc, char **argv) {
  static const char *const vectorOptions[] = {"--pass",   "--print-ir-after", "--transform-layout",
                                              "--layout", "--require-layout", "--load-pass-plugin",
                                              "--inputs", "--outputs"};
  std::vector<std::string> args{argv[0]};
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
  return args;
}

// A CLI11 validator: the value is one of `choices`.
std::function<std::string(const std::string &)> oneOf(std::vector<std::string> choices, std::string what) {
  return [choices = std::move(choices), what = std::move(what)](const std::string &value) -> std::string {
    if (std::find(choices.begin(), choices.end(), value) != choices.end())
      return "";
    std::string list;
    for (size_t k = 0; k < choices.size(); ++k)
      list += (k == 0 ? "" : k + 1 == choices.size() ? " or " : ", ") + choices[k];
    return "unknown " + what + " '" + value + "'; expected " + list;
  };
}

std::function<std::string(const std::string &)> countCheck(bool suffixes, bool positive) {
  return [suffixes, positive](const std::string &value) -> std::string {
    std::optional<uint64_t> count = parseCount(value, suffixes);
    if (count && (!positive || *count > 0))
      return "";
    return std::string("expected a ") + (positive ? "positive" : "non-negative") + " integer" +
           (suffixes ? " (optionally with K, M, G or T)" : "") + ", got '" + value + "'";
  };
}

// A warp or sub-group width: a power of two from 1 to 32 (a warp's lanes are the bits of a uint32 mask).
std::function<std::string(const std::string &)> warpWidthCheck(const char *what) {
  return [what](const std::string &value) -> std::string {
    std::optional<uint64_t> count = parseCount(value, false);
    if (count && *count >= 1 && *count <= 32 && (*count & (*count - 1)) == 0)
      return "";
    return std::string("expected a ") + what + " of 1, 2, 4, 8, 16 or 32, got '" + value + "'";
  };
}

// Help text grouped by category, each flag with its value's form ("--timing[=text|json]"),
// not CLI11's default-value syntax ("--timing{text}").
class HelpFormatter : public CLI::Formatter {
public:
  std::string make_option_name(const CLI::Option *option, bool positional) const override {
    if (positional)
      return option->get_name(true, false);
    std::string names;
    for (const std::string &sname : option->get_snames())
      names += (names.empty() ? "-" : ", -") + sname;
    for (const std::string &lname : option->get_lnames())
      names += (names.empty() ? "--" : ", --") + lname;
    return names;
  }
  // "--emit=FORMAT", "--verify-each[=true|false]", "-o FILE".
  std::string make_option_opts(const CLI::Option *option) const override {
    const std::string &text = option->get_option_text();
    if (text.empty())
      return "";
    return (text[0] == '=' || text[0] == '[' ? "" : " ") + text;
  }
};

const char *const kInputOutput = "Input and output";
// --threads: more workers than this is a mistake, not a machine.
constexpr uint64_t kMaxThreads = 1024;
const char *const kPipeline = "Pipeline";
const char *const kLayout = "Layout";
const char *const kTarget = "Target";
const char *const kInterpreter = "Interpreter (run, --verify-semantics)";
const char *const kDebugging = "Debugging and testing";

// The flags of help group: input, output and the output format.
void addInputOutputFlags(CLI::App &app, ToolOptions &options, FlagValues &values) {
  app.add_option("input", values.input, "input file ('-' for stdin)")->group(kInputOutput);
  app.add_option("-o,--output", options.output, "output file ('-' for stdout, the default)")
      ->option_text("FILE")
      ->group(kInputOutput);
  app.add_option("--emit", values.emit,
                 "output format: " + emitterNames() +
                     " (default: the --target's, else from the -o extension, else tir)")
      ->option_text("=FORMAT")
      ->check([](const std::string &v) {
        return findEmitter(v) ? std::string() : "unknown emitter '" + v + "'; available emitters: " + emitterNames();
      })
      ->group(kInputOutput);
  app.add_flag("--split-input-file", options.splitInputFile,
               "treat each '# -----' line as the end of an independent input")
      ->group(kInputOutput);
}

// The flags of help group: which passes run, and how.
void addPipelineFlags(CLI::App &app, ToolOptions &options, FlagValues &values) {
  app.add_option("--pass", options.passFlags,
                 "passes to run, in order: NAME or NAME{key=value,...}, comma-separated; repeatable")
      ->allow_extra_args(false)
      ->option_text("=PIPELINE")
      ->group(kPipeline);
  app.add_option("--pass-pipeline", values.pipeline, "the whole pipeline as text: 'a,b{key=value},c'")
      ->option_text("=PIPELINE")
      ->group(kPipeline);
  app.add_option("--load-pass-plugin", options.passPlugins,
                 "load a shared library that adds passes (transform/pass_plugin.h, docs/cli.md); repeatable")
      ->allow_extra_args(false)
      ->option_text("=LIB.so")
      ->group(kPipeline);
  app.add_flag("--list-passes", options.listPasses,
               "list the registered passes with their options and contracts, and each --target's pipeline, and exit")
      ->group(kPipeline);
  app.add_flag("--print-pipeline", options.printPipeline,
               "print the pipeline the other flags select (--target's default, or --pass/--pass-pipeline) as "
               "--pass-pipeline text, and exit")
      ->group(kPipeline);
  app.add_flag("--verify-each{true}", options.verifyEach, "verify the IR after every pass (default: true)")
      ->option_text("[=true|false]")
      ->group(kPipeline);
  app.add_flag("--remarks", options.remarks, "report the decisions passes make as remarks")->group(kPipeline);
  app.add_option("--threads", values.threads,
                 "threads for parsing, the function-local passes and the emitters (default: the core count); the output "
                 "is the same for any N")
      ->option_text("=N")
      ->check([](const std::string &value) -> std::string {
        std::optional<uint64_t> count = parseCount(value, false);
        if (count && *count > 0 && *count <= kMaxThreads)
          return "";
        return "expected an integer from 1 to " + std::to_string(kMaxThreads) + ", got '" + value + "'";
      })
      ->group(kPipeline);
}

// The flags of help group: layout transforms and requirements.
void addLayoutFlags(CLI::App &app, ToolOptions &options, FlagValues &values) {
  app.add_option("--transform-layout", options.transformLayouts,
                 "add a layout transform: 'B=lambda i, j: [j, i]'; repeatable")
      ->allow_extra_args(false)
      ->option_text("='B=lambda ...'")
      ->group(kLayout);
  app.add_option("--layout", options.layouts,
                 "add a layout transform from layout strings: 'B=NHWC->NCHW4c'; repeatable")
      ->allow_extra_args(false)
      ->option_text("='B=FROM->TO'")
      ->group(kLayout);
  app.add_option("--require-layout", options.requiredLayouts,
                 "require a layout of buffer B: 'B=NCHW4c', 'A=NCHW4c:texture' (an OpenCL image); for "
                 "legalize-layouts and verify-layouts; repeatable")
      ->allow_extra_args(false)
      ->option_text("='B=LAYOUT[:texture]'")
      ->group(kLayout);
  app.add_option("--layout-verify", values.layoutVerify,
                 "what verify-layouts reports an unmet layout requirement as: error (default) or warn")
      ->option_text("=error|warn")
      ->check(oneOf({"error", "warn"}, "value"))
      ->group(kLayout);
}

// The flags of help group: the target and its code generation.
void addTargetFlags(CLI::App &app, ToolOptions &options, FlagValues &values) {
  app.add_option("--target", values.target, "target: " + targetNames() + "; sets the default pipeline and emitter")
      ->option_text("=TARGET")
      ->check([](const std::string &v) {
        return findTarget(v) ? std::string() : "unknown target '" + v + "'; available targets: " + targetNames();
      })
      ->group(kTarget);
  app.add_option("-O", values.optLevel, "LLVM optimisation level 0-3 (default 0)")
      ->option_text("LEVEL")
      ->check([](const std::string &v) {
        return v.size() == 1 && v[0] >= '0' && v[0] <= '3' ? std::string()
                                                           : "optimisation level must be 0, 1, 2 or 3, got '" + v + "'";
      })
      ->group(kTarget);
  app.add_option("--target-triple", options.emitSettings.targetTriple, "LLVM target triple (default: the host)")
      ->option_text("=TRIPLE")
      ->group(kTarget);
  app.add_option("--mcpu", options.emitSettings.cpu,
                 "LLVM: the CPU to tune and generate code for (default generic; native: the host's)")
      ->option_text("=CPU")
      ->group(kTarget);
  app.add_option("--mattr", options.emitSettings.features,
                 "LLVM: CPU features to enable (+) or disable (-), comma-separated: '+avx2,-fma'")
      ->option_text("=FEATURES")
      ->group(kTarget);
  app.add_option_function<std::string>(
         "--fp-contract", [&options](const std::string &v) { options.emitSettings.fpContract = v == "on"; },
         "LLVM: on (default): a float a*b+c becomes llvm.fmuladd, one rounding where the CPU has FMA, as "
         "TVM's LLVM target does; off: a multiply and an add, each rounded")
      ->option_text("=on|off")
      ->check([](const std::string &v) {
        return v == "on" || v == "off" ? std::string() : "expected on or off, got '" + v + "'";
      })
      ->group(kTarget);
  app.add_flag("--openmp", options.emitSettings.openmp, "C: emit T.parallel loops as OpenMP parallel loops")
      ->group(kTarget);
  app.add_option_function<std::string>(
         "--subgroup-size",
         [&options](const std::string &v) { options.emitSettings.subgroupSize = static_cast<int>(*parseCount(v, false)); },
         "OpenCL: the device offers sub-group shuffles (cl_khr_subgroup_shuffle, _relative) and runs kernels in "
         "sub-groups of N work-items (1 to 32, a power of two): warp shuffles become sub-group functions, "
         "lower-thread-allreduce reduces within warps and thread-sync plans with warps of N")
      ->option_text("=N")
      ->check(warpWidthCheck("sub-group size"))
      ->group(kTarget);
  app.add_option("--abi", values.abi,
                 "C and LLVM: c (plain C functions) or tvm-ffi (also a TVM FFI entry __tvm_ffi_NAME per function, "
                 "docs/abi.md); default c, tvm-ffi for --emit=so")
      ->option_text("=c|tvm-ffi")
      ->check(oneOf({"c", "tvm-ffi"}, "ABI"))
      ->group(kTarget);
  app.add_option("--cc", options.emitSettings.cc,
                 "--emit=so: the C compiler and linker command (default: $CC, else cc)")
      ->option_text("=COMMAND")
      ->group(kTarget);
  app.add_option("--header-guard", options.emitSettings.headerGuard,
                 "--emit=h: the include guard's macro (default: TIRLOWER_<NAME>_H from the -o file's name, or from "
                 "the functions when written to stdout)")
      ->option_text("=MACRO")
      ->check([](const std::string &v) {
        bool valid = !v.empty() && !std::isdigit(static_cast<unsigned char>(v[0]));
        for (char c : v)
          valid = valid && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
        return valid ? std::string() : "expected a C identifier, got '" + v + "'";
      })
      ->group(kTarget);
  app.add_option_function<std::string>(
         "--tir-spelling",
         [&options](const std::string &v) {
           options.emitSettings.spelling = v == "tirx" ? ScriptSpelling::Tirx : ScriptSpelling::Tir;
         },
         "TVMScript output spelling: tirx (TVM 0.25-0.27: s_tir=True, T.sblock) or tir (older TVM); default: the "
         "input's own")
      ->option_text("=tir|tirx")
      ->check(oneOf({"tir", "tirx"}, "spelling"))
      ->group(kTarget);
}

// The flags of help group: the interpreter's inputs and limits.
void addInterpreterFlags(CLI::App &app, ToolOptions &, FlagValues &values) {
  app.add_option("--seed", values.seed, "seed of the random inputs of run and --verify-semantics (default 1)")
      ->option_text("=N")
      ->check(countCheck(false, false))
      ->group(kInterpreter);
  app.add_option("--max-steps", values.maxSteps,
                 "loop iterations one interpreter run may take (default 100000000, a few seconds)")
      ->option_text("=N")
      ->check(countCheck(false, true))
      ->group(kInterpreter);
  app.add_option("--vscale", values.vscale,
                 "the value of T.vscale() (1 to 16): scalable vectors run with vscale times their lanes (default 2)")
      ->option_text("=N")
      ->check([](const std::string &value) -> std::string {
        std::optional<uint64_t> count = parseCount(value, false);
        return count && *count >= 1 && *count <= 16 ? "" : "expected a vscale from 1 to 16, got '" + value + "'";
      })
      ->group(kInterpreter);
  app.add_option("--warp-size", values.warpSize,
                 "the lanes of a warp (1, 2, 4, 8, 16 or 32): the threads whose T.tvm_warp_shuffle calls meet "
                 "(default 32, as CUDA)")
      ->option_text("=N")
      ->check(warpWidthCheck("warp size"))
      ->group(kInterpreter);
  app.add_option("--max-buffer-bytes", values.maxBufferBytes,
                 "bytes of storage one buffer may take in the interpreter (default 1G)")
      ->option_text("=N[K|M|G|T]")
      ->check(countCheck(true, true))
      ->group(kInterpreter);
}

// The flags of help group: diagnostics, verification and IR dumps.
void addDebuggingFlags(CLI::App &app, ToolOptions &options, FlagValues &values) {
  app.add_flag("--verify-diagnostics", options.verifyDiagnostics,
               "check the diagnostics against the input's '# expected-error {{...}}' comments")
      ->group(kDebugging);
  app.add_option("--diagnostics-format", values.diagnosticsFormat, "text (default) or json: one JSON object per line")
      ->option_text("=text|json")
      ->check(oneOf({"text", "json"}, "diagnostics format"))
      ->group(kDebugging);
  app.add_flag("--verify-roundtrip", options.verifyRoundtrip,
               "check that printing, parsing and printing again is stable")
      ->group(kDebugging);
  app.add_flag("--verify-semantics", options.verifySemantics,
               "run every function on random inputs before the first pass and after each pass; report the first "
               "pass that changes the results")
      ->group(kDebugging);
  app.add_flag("--print-ir-after-all", options.printIrAfterAll, "print the IR to stderr after every pass")
      ->group(kDebugging);
  app.add_option("--print-ir-after", options.printIrAfter, "print the IR to stderr after the named pass; repeatable")
      ->allow_extra_args(false)
      ->option_text("=PASS")
      ->group(kDebugging);
  app.add_option("--print-ir-tree-dir", options.printIrTreeDir,
                 "write the input and the IR after every pass to DIR/NN_pass.tir (replacing an earlier run's)")
      ->option_text("=DIR")
      ->group(kDebugging);
  app.add_flag("--timing{text}", values.timing,
               "report per-step wall time and peak memory on stderr (--timing=json: as JSON)")
      ->option_text("[=text|json]")
      ->check(oneOf({"text", "json"}, "timing format"))
      ->group(kDebugging);
}

// Every flag of the tool, in the order --help lists them (one function per help group).
void addToolFlags(CLI::App &app, ToolOptions &options, FlagValues &values) {
  addInputOutputFlags(app, options, values);
  addPipelineFlags(app, options, values);
  addLayoutFlags(app, options, values);
  addTargetFlags(app, options, values);
  addInterpreterFlags(app, options, values);
  addDebuggingFlags(app, options, values);
}

// `run --help`: after run's own flags, the tool's flags that apply to run too (the pipeline,
// layouts, the target's pipeline, the interpreter's limits, diagnostics and dumps).
std::string runHelpFooter(const CLI::App &app) {
  std::string out = "\nFlags of tirlower that apply to run too (tirlower --help):\n";
  for (const CLI::Option *option : app.get_options()) {
    std::string name = !option->get_lnames().empty()   ? "--" + option->get_lnames().front()
                       : !option->get_snames().empty() ? "-" + option->get_snames().front()
                                                       : "";
    bool skip = name.empty() || name == "-o" || name == "--output" || name == "--help" || name == "--version";
    for (const char *flag : kNotForRun)
      skip = skip || name == flag;
    if (skip)
      continue;
    const std::string &text = option->get_option_text();
    std::string shown = "  " + name + (text.empty() || text[0] == '=' || text[0] == '[' ? "" : " ") + text;
    out += shown + std::string(shown.size() < 36 ? 36 - shown.size() : 1, ' ') + option->get_description() + "\n";
  }
  return out;
}

CLI::App *addRunCommand(CLI::App &app, ToolOptions &options, FlagValues &values) {
  CLI::App *run = app.add_subcommand(
      "run", "run a function on seeded random inputs (or --inputs) after the pipeline, if any, and write its outputs "
             "as JSON (docs/run-json.md)");
  run->fallthrough();
  run->formatter(app.get_formatter());
  run->footer(runHelpFooter(app));
  run->add_option("file", values.runFile, "input file ('-' for stdin)")->group(kInputOutput);
  run->add_option("--func", options.runFunction,
                  "the function to run, by name or global_symbol (default: the only one)")
      ->option_text("=NAME")
      ->group(kInputOutput);
  run->add_option("--inputs", options.runInputs,
                  "input values: a JSON file (docs/run-json.md; nested lists as numpy's tolist() writes accepted) "
                  "and/or NAME=FILE.npy per buffer; repeatable")
      ->allow_extra_args(false)
      ->option_text("=FILE|NAME=FILE.npy")
      ->group(kInputOutput);
  run->add_option("-o,--outputs", options.runOutputs,
                  "where the outputs go: a JSON file or '-' (stdout, the default), NAME=FILE.npy per buffer, or "
                  "FILE.npy for the one buffer the function writes; repeatable")
      ->allow_extra_args(false)
      ->option_text("FILE|NAME=FILE.npy")
      ->group(kInputOutput);
  run->add_option("--outputs-format", values.outputsFormat,
                  "json, or table: readable rows per buffer (default: table when the JSON would go to a terminal)")
      ->option_text("=json|table")
      ->check(oneOf({"json", "table"}, "outputs format"))
      ->group(kInputOutput);
  return run;
}

// The tool's help layout, every flag and the run subcommand; returns the subcommand.
CLI::App *describeTool(CLI::App &app, ToolOptions &options, FlagValues &values) {
  auto formatter = std::make_shared<HelpFormatter>();
  formatter->column_width(36);
  app.formatter(formatter);
  app.footer("Exit codes: 0 success, 1 input errors, 2 command-line misuse. Reference: docs/cli.md.");
  app.allow_extras();
  addToolFlags(app, options, values);
  // Set after the other flags, so that their group comes last in --help.
  app.set_help_flag("-h,--help", "print this help and exit")->group("Other");
  app.set_version_flag("--version", "tirlower " TIRLOWER_VERSION " (LLVM " TIRLOWER_LLVM_VERSION ")",
                       "print the version of tirlower and of the LLVM it uses")
      ->group("Other");
  CLI::App *runCommand = addRunCommand(app, options, values);
  runCommand->allow_extras();
  return runCommand;
}

} // namespace

void printToolError(const std::string &message) {
  reportUnlocated(Severity::Error, message);
}

void printToolWarning(const std::string &message) {
  reportUnlocated(Severity::Warning, message);
}

std::optional<int> parseCommandLine(int argc, char **argv, ToolOptions &options) {
  toolDiagnosticFormat = scanDiagnosticFormat(argc, argv);
  CLI::App app{"tirlower: lowers TVMScript tensor IR (TIR) through a pipeline of passes.\n"
               "Reads INPUT ('-' for stdin), runs the passes in order, writes the result.",
               "tirlower"};
  FlagValues values;
  CLI::App *runCommand = describeTool(app, options, values);

  std::vector<std::string> args = normalizeArguments(argc, argv);
  std::vector<const char *> argPointers;
  for (const std::string &arg : args)
    argPointers.push_back(arg.c_str());
  try {
    app.parse(static_cast<int>(argPointers.size()), argPointers.data());
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    printToolError(parseErrorMessage(e));
    return kUsageError;
  }

  options.runMode = runCommand->parsed();
  options.outputGiven = app.get_option("-o")->count() > 0;
  if (auto code = reportExtras(app, runCommand, options, values))
    return code;
  if (options.runMode) {
    if (auto code = resolveRunMode(app, options, values))
      return code;
  } else {
    options.input = values.input;
  }
  if (std::string message = loadPassPlugins(options.passPlugins); !message.empty()) {
    printToolError(message);
    return kUsageError;
  }
  applyFlagValues(values, options);
  if (auto code = choosePipeline(app, options, values))
    return code;
  if (options.listPasses || options.printPipeline)
    return std::nullopt;
  if (app.get_option("--layout-verify")->count() > 0)
    options.layoutVerify = values.layoutVerify;
  // The interpreter's flags seed and limit run and --verify-semantics only: elsewhere they
  // would be accepted and do nothing.
  if (!options.runMode && !options.verifySemantics)
    for (const char *flag : {"--seed", "--max-steps", "--max-buffer-bytes", "--vscale", "--warp-size"})
      if (app.get_option(flag)->count() > 0) {
        printToolError(std::string(flag) + " applies to 'run' and --verify-semantics (the interpreter), which this "
                                           "command does not use");
        return kUsageError;
      }
  if (options.input.empty()) {
    printToolError("no input file (use '-' to read stdin); see --help");
    return kUsageError;
  }
  if (!options.runMode) {
    if (auto code = resolveEmitter(options, values.emit))
      return code;
    if (auto code = checkEmitterFlags(app, options, values))
      return code;
  }
  return resolvePrintAfter(options);
}

} // namespace tirlower
