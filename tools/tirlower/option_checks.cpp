// What a parsed command line means once every flag is read (option_checks.h).
#include "option_checks.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "codegen/llvm/llvm_emitter.h"
#include "emitters.h"
#include "ir/edit_distance.h"
#include "ir/parallel.h"
#include "llvm_backend_loader.h"
#include "pass_plugins.h"
#include "run_files.h"
#include "transform/pass.h"
#include "transform/pipeline.h"
#include "transform/target.h"

namespace tirlower {

namespace {

// The flag of `apps` closest to `name` ("--pas" -> "--pass"), empty when none is plausibly meant.
std::string closestFlag(const std::string &name, const std::vector<const CLI::App *> &apps) {
  std::vector<std::string> names;
  for (const CLI::App *app : apps)
    for (const CLI::Option *option : app->get_options()) {
      for (const std::string &lname : option->get_lnames())
        names.push_back("--" + lname);
      for (const std::string &sname : option->get_snames())
        names.push_back("-" + sname);
    }
  ClosestName closest(name, std::max<size_t>(2, name.size() / 3));
  for (const std::string &candidate : names)
    closest.consider(candidate);
  return std::string(closest.best());
}

// "include/my-ops.h" -> TIRLOWER_MY_OPS_H: two headers written to different files never share
// a guard.
std::string guardForFile(const std::string &path) {
  std::string name = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
  name = name.substr(0, name.find('.'));
  std::string guard = "TIRLOWER_";
  for (char c : name)
    guard += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
                                                          : '_';
  return guard + "_H";
}

} // namespace

std::optional<uint64_t> parseCount(const std::string &text, bool suffixes) {
  uint64_t value = 0;
  const char *end = text.data() + text.size();
  auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || ptr == text.data())
    return std::nullopt;
  if (ptr == end)
    return value;
  if (!suffixes || ptr + 1 != end)
    return std::nullopt;
  int shift = *ptr == 'K' ? 10 : *ptr == 'M' ? 20 : *ptr == 'G' ? 30 : *ptr == 'T' ? 40 : 0;
  if (shift == 0 || value > (UINT64_MAX >> shift))
    return std::nullopt;
  return value << shift;
}

std::optional<int> reportExtras(CLI::App &app, CLI::App *run, const ToolOptions &options, const FlagValues &values) {
  std::vector<std::string> extras = app.remaining();
  if (run->parsed()) {
    std::vector<std::string> more = run->remaining();
    extras.insert(extras.end(), more.begin(), more.end());
  }
  for (const std::string &extra : extras) {
    if (extra.size() < 2 || extra[0] != '-')
      continue;
    std::string name = extra.substr(0, extra.find('='));
    std::string value = extra.size() > name.size() ? extra.substr(name.size()) : "";
    std::string message = "unknown command-line option '" + name + "'";
    // A one-letter option ("-p") is too short for a suggestion to be more than a guess.
    std::string suggestion = name.size() <= 2
                                 ? std::string()
                                 : closestFlag(name, options.runMode ? std::vector<const CLI::App *>{&app, run}
                                                                     : std::vector<const CLI::App *>{&app});
    if (!suggestion.empty())
      message += "; did you mean '" + suggestion + value + "'?";
    printToolError(message + " (see --help)");
    return kUsageError;
  }
  for (const std::string &extra : extras) {
    std::string first = options.runMode ? values.runFile : values.input;
    printToolError("more than one input file ('" + first + "' and '" + extra +
                   "'); tirlower reads one (see --split-input-file to keep several inputs in one file)");
    return kUsageError;
  }
  return std::nullopt;
}

std::string parseErrorMessage(const CLI::ParseError &error) {
  std::string what = error.what();
  if (dynamic_cast<const CLI::ArgumentMismatch *>(&error)) {
    std::string name = what.substr(0, what.find(':'));
    return "option '" + name + "' needs a value";
  }
  return what;
}

std::optional<int> resolveEmitter(ToolOptions &options, const std::string &emitFlag) {
  const Target *preset = options.target;
  const Emitter *emitter = emitFlag.empty() ? nullptr : findEmitter(emitFlag);
  if (emitter && preset && !emitterServesTarget(*emitter, *preset)) {
    printToolError("--emit=" + emitter->name + " writes " + emitter->target->name + " code, but --target=" + preset->name +
                   " lowers for " + preset->name + " (its emitters: " + emittersOfTarget(*preset) +
                   ", or tir, json); drop one of them");
    return kUsageError;
  }
  if (!emitter && options.output != "-") {
    emitter = emitterForPath(options.output);
    std::string_view fileName = options.output;
    fileName.remove_prefix(fileName.rfind('/') == std::string_view::npos ? 0 : fileName.rfind('/') + 1);
    if (emitter && preset && !emitterServesTarget(*emitter, *preset)) {
      printToolError("the output name '" + options.output + "' asks for " + emitter->name +
                     ", but --target=" + preset->name + " lowers for " + preset->name +
                     " (its emitters: " + emittersOfTarget(*preset) + "); rename the output or add --emit=FORMAT");
      return kUsageError;
    }
    if (!emitter && !preset && fileName.find('.') != std::string_view::npos) {
      printToolError("cannot tell the output format from the name '" + options.output +
                     "'; use --emit=NAME (available emitters: " + emitterNames() + ")");
      return kUsageError;
    }
  }
  if (!emitter && preset)
    emitter = findEmitter(preset->emitter);
  options.emit = emitter ? emitter->name : "tir"; // `-o out`, `-o /dev/null`: the default format
  if (emitter && emitter->compilesTarget && !preset) {
    // A shared library is compiled code: without --target, the C target's pipeline and emitter.
    options.target = findTarget("c");
    if (!options.pipeline && options.passFlags.empty())
      options.pipeline = options.target->pipeline;
  }
  options.emitSettings.target = options.target;
  return std::nullopt;
}

std::optional<int> checkEmitterFlags(const CLI::App &app, ToolOptions &options, const FlagValues &values) {
  const Emitter &emitter = *findEmitter(options.emit);
  // --emit=so compiles the code of its --target: C, or an LLVM object. A code-generation flag
  // applies where the target of the code takes it (Target::flags); the header declares the
  // plain functions only and takes none.
  const bool so = emitter.compilesTarget;
  const Target *code = codeTarget(emitter, options.target);
  auto applies = [&](std::string_view flag) { return code && code->accepts(flag); };
  const Target &llvmTarget = *findTarget("llvm");
  const bool llvm = code == &llvmTarget; // its code comes from the LLVM backend module
  for (const char *flag : {"-O", "--target-triple", "--mcpu", "--mattr", "--fp-contract"})
    if (app.get_option(flag)->count() > 0 && !applies(flag)) {
      printToolError(std::string(flag) + " applies to the LLVM emitters (" + emittersOfTarget(llvmTarget, true) +
                     (so ? ") and to --emit=so with --target=llvm" : ")") + ", not to --emit=" + emitter.name +
                     (so ? " with --target=" + options.target->name : ""));
      return kUsageError;
    }
  if (options.emitSettings.openmp && !applies("--openmp")) {
    printToolError("--openmp applies to the C emitter, not to --emit=" + emitter.name);
    return kUsageError;
  }
  // It also gives passes their warps (thread-sync, lower-thread-allreduce): with --target=opencl
  // or a pipeline of one's own, any emitter may show what they made of it (the driver checks
  // that a pass of the pipeline takes it).
  const bool openclPasses = (options.target && options.target->accepts("--subgroup-size")) || options.pipeline ||
                            !options.passFlags.empty();
  if (options.emitSettings.subgroupSize && !applies("--subgroup-size") && !openclPasses) {
    printToolError("--subgroup-size applies to the OpenCL emitters, not to --emit=" + emitter.name);
    return kUsageError;
  }
  if (!values.abi.empty() && !applies("--abi")) {
    printToolError("--abi applies to the C and LLVM emitters and to --emit=so, not to --emit=" + emitter.name);
    return kUsageError;
  }
  options.emitSettings.tvmFfi = values.abi.empty() ? so : values.abi == "tvm-ffi";
  if (!options.emitSettings.cc.empty() && !so) {
    printToolError("--cc applies to --emit=so, not to --emit=" + emitter.name);
    return kUsageError;
  }
  if (app.get_option("--header-guard")->count() > 0 && emitter.name != "h") {
    printToolError("--header-guard applies to the C header (--emit=h, -o FILE.h), not to --emit=" + emitter.name);
    return kUsageError;
  }
  if (emitter.name == "h" && options.emitSettings.headerGuard.empty() && options.output != "-")
    options.emitSettings.headerGuard = guardForFile(options.output);
  if (llvm) {
    // The LLVM backend is loaded here, only when an LLVM output is asked for (llvm_backend_loader.h).
    std::string missing;
    const LLVMBackend *backend = loadLLVMBackend(missing);
    if (!backend) {
      printToolError(missing);
      return kInputError;
    }
    auto checkLLVMTarget = backend->checkTarget;
    LLVMEmitOptions llvm;
    llvm.targetTriple = options.emitSettings.targetTriple;
    if (std::string message = checkLLVMTarget(llvm); !message.empty()) {
      printToolError("--target-triple: " + message);
      return kUsageError;
    }
    llvm.cpu = options.emitSettings.cpu;
    if (std::string message = checkLLVMTarget(llvm); !message.empty()) {
      printToolError("--mcpu: " + message);
      return kUsageError;
    }
    llvm.features = options.emitSettings.features;
    if (std::string message = checkLLVMTarget(llvm); !message.empty()) {
      printToolError("--mattr: " + message);
      return kUsageError;
    }
  }
  if (emitter.binary && options.output == "-" && !options.outputGiven && ::isatty(STDOUT_FILENO)) {
    printToolError("refusing to write " + emitter.name +
                   " output (binary) to a terminal; use -o FILE, or -o - to "
                   "write it to stdout anyway");
    return kUsageError;
  }
  return std::nullopt;
}

std::optional<int> resolvePrintAfter(ToolOptions &options) {
  const PassRegistry &registry = toolPassRegistry();
  for (std::string &name : options.printIrAfter) {
    const PassInfo *info = registry.find(name);
    if (!info) {
      std::string message = "--print-ir-after: unknown pass '" + name + "'";
      std::string suggestion = closestPassName(name, registry);
      if (!suggestion.empty())
        message += "; did you mean '" + suggestion + "'?";
      printToolError(message);
      return kUsageError;
    }
    name = info->name;
  }
  return std::nullopt;
}

std::optional<int> resolveRunMode(const CLI::App &app, ToolOptions &options, const FlagValues &values) {
  for (const char *flag : kNotForRun)
    if (app.get_option(flag)->count() > 0) {
      printToolError(std::string(flag) + " does not apply to 'run' (it writes the function's outputs as JSON)");
      return kUsageError;
    }
  if (!values.input.empty()) {
    printToolError("more than one input file ('" + values.input + "' and '" + values.runFile + "'); 'run' reads one");
    return kUsageError;
  }
  if (values.runFile.empty()) {
    printToolError("run: no input file (use '-' to read stdin); see tirlower run --help");
    return kUsageError;
  }
  options.input = values.runFile;
  if (options.outputGiven) // `tirlower -o out.json run f.tir`
    options.runOutputs.insert(options.runOutputs.begin(), options.output);
  if (std::string message = checkRunFileFlags(options.runInputs, options.runOutputs); !message.empty()) {
    printToolError(message);
    return kUsageError;
  }
  bool jsonOutput = options.runOutputs.empty();
  for (const std::string &output : options.runOutputs)
    jsonOutput = jsonOutput || output.size() < 4 || output.compare(output.size() - 4, 4, ".npy") != 0;
  if (!values.outputsFormat.empty() && !jsonOutput) {
    printToolError("--outputs-format applies to the JSON output, and only .npy files are written (add -o FILE or "
                   "--outputs - for it)");
    return kUsageError;
  }
  bool jsonToStdout = options.runOutputs.empty() ||
                      std::find(options.runOutputs.begin(), options.runOutputs.end(), "-") != options.runOutputs.end();
  options.runTable =
      values.outputsFormat.empty() ? jsonToStdout && ::isatty(STDOUT_FILENO) : values.outputsFormat == "table";
  return std::nullopt;
}

void applyFlagValues(const FlagValues &values, ToolOptions &options) {
  options.target = values.target.empty() ? nullptr : findTarget(values.target);
  options.diagnosticsFormat = values.diagnosticsFormat == "json" ? DiagnosticFormat::Json : DiagnosticFormat::Text;
  options.timing = values.timing.empty()     ? TimingFormat::None
                   : values.timing == "json" ? TimingFormat::Json
                                             : TimingFormat::Text;
  if (!values.optLevel.empty())
    options.emitSettings.optLevel = values.optLevel[0] - '0';
  if (!values.seed.empty())
    options.seed = *parseCount(values.seed, false);
  options.threads =
      values.threads.empty() ? defaultThreadCount() : static_cast<unsigned>(*parseCount(values.threads, false));
  options.emitSettings.threads = options.threads;
  if (!values.maxSteps.empty())
    options.maxSteps = *parseCount(values.maxSteps, false);
  if (!values.maxBufferBytes.empty())
    options.maxBufferBytes = *parseCount(values.maxBufferBytes, true);
  if (!values.vscale.empty())
    options.vscale = static_cast<int>(*parseCount(values.vscale, false));
  if (!values.warpSize.empty())
    options.warpSize = static_cast<int>(*parseCount(values.warpSize, false));
}

std::optional<int> choosePipeline(CLI::App &app, ToolOptions &options, const FlagValues &values) {
  if (app.get_option("--pass-pipeline")->count() > 0)
    options.pipeline = values.pipeline;
  if (options.pipeline && !options.passFlags.empty()) {
    printToolError("--pass and --pass-pipeline cannot be combined; put every pass in one of them");
    return kUsageError;
  }
  if (const Target *preset = options.target)
    if (!options.pipeline && options.passFlags.empty())
      options.pipeline = preset->pipeline;
  return std::nullopt;
}

} // namespace tirlower
