// Semantic fuzzing: random TIR programs (generator.h), each lowered with its random pipeline
// under the --verify-semantics checker (in process), then, in batches, emitted as one C file
// that is compiled once and loaded, and JIT-compiled as one LLVM module; every compiled
// function's outputs are compared bit for bit with the interpreter's on the lowered function.
//   semfuzz [--count=N] [--seed=S] [--batch=B] [--workdir=DIR] [--only=K] [--no-c] [--no-llvm]
//           [--no-ubsan] [--max-failures=F] [--tirlower=PATH] [--quiet] [--print]
// A failure writes DIR/failures/NAME.tir (the program with its RUN line) and prints the stage
// (parse, generator, pipeline, semantics, c-emit, c-compile, c-run, llvm), the message (for
// semantics: the pass and the first differing element) and the tirlower command that shows it.
// --print writes every program and its pipeline to stdout. TL_SEMFUZZ_PATCH=CMD runs CMD FILE.c on
// every C file before it is compiled (a self-test of the comparison). Exit 0 when every program passed, 1
// otherwise.
#include <dlfcn.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

#include "c_harness.h"
#include "codegen/c_emitter.h"
#include "codegen/llvm/llvm_emitter.h"
#include "generator.h"
#include "interp/semantic_check.h"
#include "parse/parser.h"
#include "parse/source_manager.h"
#include "transform/pass_manager.h"
#include "transform/pipeline.h"

namespace tirlower::semfuzz {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  uint64_t count = 1000;
  uint64_t seed = 1;
  size_t batch = 100;
  std::string workdir;
  std::optional<uint64_t> only;
  bool c = true, llvm = true, ubsan = true, quiet = false, print = false;
  size_t maxFailures = 10;
  std::string tirlower = "tirlower";
};

class CollectingSink : public DiagnosticSink {
public:
  void report(Diagnostic d) override {
    if (d.severity == Severity::Error)
      text += (text.empty() ? "" : "\n") + d.message;
  }
  std::string text;
};

std::string withNotes(const Diagnostic &d) {
  std::string out = d.message;
  for (const auto &note : d.notes)
    out += "\n  note: " + note.message;
  return out;
}

// Checks each pass's output against the original behaviour, remembering whether a pass that
// reassociates floating-point arithmetic has run (later comparisons then use the tolerance).
class CheckEachPass : public PassInstrumentation {
public:
  explicit CheckEachPass(const SemanticChecker &checker) : checker_(checker) {}
  void afterPass(const PassInstance &instance, const Module &, const Module &after, bool identical) override {
    reassociated_ |= instance.info->reassociates;
    if (!failure && !identical)
      failure = checker_.check(after, instance.info->name, reassociated_);
  }
  std::optional<Diagnostic> failure;

private:
  const SemanticChecker &checker_;
  bool reassociated_ = false;
};

struct Program {
  uint64_t index = 0, seed = 0, dataSeed = 1;
  GeneratedProgram generated;
  PrimFunc lowered; // set when the pipeline succeeded and the result is compilable
  bool failed = false;
};

// The text the crash handler prints: which program was running natively; and where (stderr,
// or its saved descriptor while stderr is captured).
std::string crashContext;
int crashFd = STDERR_FILENO;

void onCrash(int signal) {
  const char *head = "\nsemfuzz: crashed (signal) while running compiled code; ";
  ssize_t ignored = write(crashFd, head, std::strlen(head));
  ignored = write(crashFd, crashContext.data(), crashContext.size());
  (void)ignored;
  _exit(128 + signal);
}

// Calls a compiled function whose parameters are N pointers, optionally followed by one int32.
template <size_t... I> int32_t callPointers(void *fn, void **p, std::index_sequence<I...>) {
  using F = int32_t (*)(decltype((void)I, static_cast<void *>(nullptr))...);
  return reinterpret_cast<F>(fn)(p[I]...);
}
template <size_t... I> int32_t callPointersInt(void *fn, void **p, int32_t n, std::index_sequence<I...>) {
  using F = int32_t (*)(decltype((void)I, static_cast<void *>(nullptr))..., int32_t);
  return reinterpret_cast<F>(fn)(p[I]..., n);
}
template <size_t N> int32_t dispatch(void *fn, void **p, std::optional<int32_t> n) {
  return n ? callPointersInt(fn, p, *n, std::make_index_sequence<N>())
           : callPointers(fn, p, std::make_index_sequence<N>());
}
int32_t callNative(void *fn, const PrimFuncNode &func, std::vector<ArgValue> &args) {
  std::vector<void *> pointers;
  std::optional<int32_t> scalar;
  for (size_t k = 0; k < args.size(); ++k) {
    if (args[k].isBuffer())
      pointers.push_back(args[k].buffer->bytes());
    else if (k + 1 == args.size() && args[k].type == DataType::int32())
      scalar = static_cast<int32_t>(args[k].intValue);
    else
      throw std::runtime_error("unsupported signature of " + std::string(func.name.str()));
  }
  switch (pointers.size()) {
  case 1: return dispatch<1>(fn, pointers.data(), scalar);
  case 2: return dispatch<2>(fn, pointers.data(), scalar);
  case 3: return dispatch<3>(fn, pointers.data(), scalar);
  case 4: return dispatch<4>(fn, pointers.data(), scalar);
  case 5: return dispatch<5>(fn, pointers.data(), scalar);
  case 6: return dispatch<6>(fn, pointers.data(), scalar);
  default: throw std::runtime_error("unsupported signature of " + std::string(func.name.str()));
  }
}

class Fuzzer {
public:
  explicit Fuzzer(Options options) : options_(std::move(options)) {}

  int run() {
    std::filesystem::create_directories(options_.workdir);
    if (options_.c && options_.ubsan && !ubsanAvailable()) {
      std::cerr << "semfuzz: note: the C compiler cannot build with -fsanitize=undefined; C runs without UBSan\n";
      options_.ubsan = false;
    }
    for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
      std::signal(s, onCrash);
    const auto start = Clock::now();
    uint64_t first = options_.only ? *options_.only : 0, end = options_.only ? *options_.only + 1 : options_.count;
    for (uint64_t b = first; b < end && failures_ < options_.maxFailures; b += options_.batch) {
      std::vector<Program> batch;
      for (uint64_t k = b; k < std::min<uint64_t>(end, b + options_.batch); ++k)
        batch.push_back(checkProgram(k));
      if (options_.c)
        runC(batch, b / options_.batch);
      if (options_.llvm)
        runLLVM(batch);
      programs_ += batch.size();
      if (!options_.quiet)
        std::cerr << "semfuzz: " << programs_ << " programs, " << failures_ << " failures\n";
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    std::cerr << "semfuzz: seed " << options_.seed << ": " << programs_ << " programs in " << seconds << " s ("
              << static_cast<double>(programs_) / seconds << " programs/s); " << passRuns_ << " passes checked by "
              << "--verify-semantics; " << cRuns_ << " functions run as C (" << cCompiles_ << " compilations, "
              << cSeconds_ << " s), " << llvmRuns_ << " through the LLVM JIT (" << llvmSeconds_ << " s); " << failures_
              << " failures" << (failures_ >= options_.maxFailures ? " (stopped early)" : "") << "\n";
    return failures_ ? 1 : 0;
  }

private:
  bool ubsanAvailable() {
    const std::string c = options_.workdir + "/probe.c", so = options_.workdir + "/probe.so";
    std::ofstream(c) << "int tl_probe(int a, int b) { return a + b; }\n";
    std::string output;
    bool ok = cdiff::shell("cc -fsanitize=undefined -shared -fPIC -o " + cdiff::quote(so) + " " + cdiff::quote(c),
                           output) == 0;
    std::filesystem::remove(c);
    std::filesystem::remove(so);
    return ok;
  }

  // ---- one program: parse, pipeline under the semantic checker ----

  Program checkProgram(uint64_t index) {
    Program p;
    p.index = index;
    p.seed = programSeed(options_.seed, index);
    p.dataSeed = p.seed % 1000 + 1;
    p.generated = generateProgram(p.seed, "f" + std::to_string(index));
    if (options_.print)
      std::cout << "# program " << index << ", pipeline " << p.generated.pipeline << "\n" << p.generated.text << "\n";
    SourceManager sources;
    uint32_t file = sources.addFile(p.generated.function + ".tir", p.generated.text);
    CollectingSink sink;
    std::optional<Module> module = parseModule(sources, file, sink);
    if (!module) {
      fail(p, "parse", "the generated program does not parse: " + sink.text);
      return p;
    }
    SemanticCheckOptions checkOptions;
    checkOptions.seed = p.dataSeed;
    SemanticChecker checker(*module, checkOptions);
    if (!checker.skipped().empty()) {
      fail(p, "generator", "the generated program is invalid: " + withNotes(checker.skipped().front()));
      return p;
    }
    PassManager passes;
    try {
      for (const PipelineEntry &entry : parsePipeline(p.generated.pipeline, PassRegistry::builtin()))
        passes.add(entry);
    } catch (const std::exception &e) {
      fail(p, "pipeline", std::string("bad pipeline: ") + e.what());
      return p;
    }
    // The generator's order must keep the passes' contracts, as the tool checks them.
    if (std::string error = passes.orderError(); !error.empty()) {
      fail(p, "pipeline", "the generated pipeline breaks a pass contract: " + error);
      return p;
    }
    CheckEachPass instrumentation(checker);
    PassContext context{sink};
    std::optional<Module> lowered;
    try {
      lowered = passes.run(*module, context, &instrumentation);
    } catch (const std::exception &e) {
      sink.text += std::string("exception: ") + e.what();
    }
    passRuns_ += passes.passes().size();
    if (!lowered) {
      fail(p, "pipeline", "the pipeline fails: " + sink.text);
      return p;
    }
    if (instrumentation.failure) {
      fail(p, "semantics", withNotes(*instrumentation.failure));
      return p;
    }
    if (p.generated.compilable && lowered->functions.size() == 1)
      p.lowered = lowered->functions.front();
    return p;
  }

  // ---- C: one file, one compilation per batch ----

  void runC(std::vector<Program> &batch, uint64_t batchIndex) {
    const auto start = Clock::now();
    std::vector<Program *> members = compilable(batch);
    if (!members.empty())
      compileAndRun(members, options_.workdir + "/batch" + std::to_string(batchIndex));
    cSeconds_ += std::chrono::duration<double>(Clock::now() - start).count();
  }

  // Compiles `members` as one file and runs them; a group that does not emit or compile is
  // split in halves until the culprits are single programs.
  void compileAndRun(const std::vector<Program *> &members, const std::string &stem) {
    void *library = nullptr;
    std::vector<std::string> symbols;
    const bool single = members.size() == 1;
    if (buildC(members, stem, library, symbols, single)) {
      runCFunctions(members, library, symbols);
      return;
    }
    if (single)
      return;
    const size_t half = members.size() / 2;
    compileAndRun({members.begin(), members.begin() + static_cast<std::ptrdiff_t>(half)}, stem + "a");
    compileAndRun({members.begin() + static_cast<std::ptrdiff_t>(half), members.end()}, stem + "b");
  }

  std::vector<Program *> compilable(std::vector<Program> &batch) {
    std::vector<Program *> out;
    for (Program &p : batch)
      if (!p.failed && p.lowered)
        out.push_back(&p);
    return out;
  }

  Module moduleOf(const std::vector<Program *> &members) {
    Module m;
    for (Program *p : members)
      m.functions.push_back(p->lowered);
    return m;
  }

  // Emits and compiles `members` into one shared object and loads it. With `report`, failures
  // are charged to the (single) member; otherwise the caller retries member by member.
  bool buildC(const std::vector<Program *> &members, const std::string &stem, void *&library,
              std::vector<std::string> &symbols, bool report) {
    CollectingSink sink;
    std::string source;
    try {
      source = emitC(moduleOf(members), CEmitOptions{}, sink);
    } catch (const std::exception &e) {
      if (report)
        fail(*members.front(), "c-emit", std::string("the C emitter rejects the lowered function: ") + e.what());
      return false;
    }
    symbols = cdiff::definedSymbols(source);
    if (symbols.size() != members.size()) {
      if (report)
        fail(*members.front(), "c-emit", "the C source defines " + std::to_string(symbols.size()) + " functions");
      return false;
    }
    std::string shims;
    for (size_t k = 0; k < members.size(); ++k)
      shims += "\n" + cdiff::callShim(*members[k]->lowered, k, symbols[k]);
    const std::string c = stem + ".c", so = stem + ".so";
    std::ofstream(c) << source << shims;
    std::string output;
    if (const char *patch = std::getenv("TL_SEMFUZZ_PATCH")) // self-test: corrupt the C source
      if (cdiff::shell(std::string(patch) + " " + cdiff::quote(c), output) != 0)
        throw std::runtime_error("TL_SEMFUZZ_PATCH failed: " + output);
    // The programs are random: as written they may compare a variable with itself, never
    // read back a scratch buffer or leave a parameter unused, which the C keeps.
    // -frounding-math: GCC 12 folds `0.0f - (float)n` into `-(float)n` (even at -O0), which
    // is -0 for n = 0; with it GCC keeps IEEE subtraction.
    std::string command = "cc -std=c11 -O1 -frounding-math -Wall -Wextra -Werror -Wno-tautological-compare "
                          "-Wno-unused-but-set-variable -Wno-unused-parameter -shared -fPIC ";
    if (options_.ubsan)
      command += "-fsanitize=undefined -fno-sanitize=alignment ";
    command += "-o " + cdiff::quote(so) + " " + cdiff::quote(c) + " -lm";
    ++cCompiles_;
    if (cdiff::shell(command, output) != 0) {
      if (report)
        fail(*members.front(), "c-compile", "the emitted C does not compile (" + c + "):\n" + output);
      return false;
    }
    library = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      if (report)
        fail(*members.front(), "c-compile", std::string("dlopen: ") + dlerror());
      return false;
    }
    std::filesystem::remove(c);
    std::filesystem::remove(so); // stays mapped
    return true;
  }

  // The interpreter's outputs for the lowered function on fresh random inputs, or nullopt
  // (after reporting) when it fails.
  struct Reference {
    std::vector<ArgValue> inputs, outputs;
    RunResult result;
  };
  std::optional<Reference> reference(Program &p, const char *stage) {
    Reference r;
    r.inputs = makeRandomArgs(p.lowered, p.dataSeed);
    r.outputs = deepCopyArgs(r.inputs);
    r.result = tirlower::run(p.lowered, r.outputs);
    if (r.result.status == RunStatus::Error) {
      fail(p, stage, "the interpreter rejects the lowered function on fresh inputs: " + cdiff::describe(r.result));
      return std::nullopt;
    }
    return r;
  }

  void compare(Program &p, const char *stage, const Reference &ref, std::vector<ArgValue> &actual, int32_t returned) {
    std::ostringstream differences;
    int32_t want = ref.result.status == RunStatus::AssertFailed ? 1 : 0;
    if (returned != want)
      differences << "returned " << returned << ", expected " << want << "\n";
    cdiff::compareBuffers(std::string(stage) + " vs interpreter", *p.lowered, ref.outputs, actual, differences);
    if (!differences.str().empty())
      fail(p, stage, differences.str());
  }

  void runCFunctions(const std::vector<Program *> &members, void *library, const std::vector<std::string> &symbols) {
    for (size_t k = 0; k < members.size(); ++k) {
      Program &p = *members[k];
      std::optional<Reference> ref = reference(p, "c-run");
      if (!ref)
        continue;
      using Shim = int32_t (*)(void **);
      auto shim = reinterpret_cast<Shim>(dlsym(library, ("tl_call_" + std::to_string(k)).c_str()));
      if (!shim) {
        fail(p, "c-run", "no call shim for " + symbols[k]);
        continue;
      }
      std::vector<ArgValue> actual = deepCopyArgs(ref->inputs);
      std::vector<std::vector<uint8_t>> scalars;
      std::vector<void *> pointers = cdiff::shimArguments(actual, scalars);
      crashContext = "C function " + symbols[k] + " of program " + p.generated.function + ":\n" + p.generated.text +
                     "# pipeline: " + p.generated.pipeline + "\n";
      int32_t returned = 0;
      std::string report = captureStderr([&] { returned = shim(pointers.data()); });
      if (report.find("runtime error") != std::string::npos) {
        fail(p, "c-ubsan", "UBSan reports undefined behaviour in the emitted C:\n" + report);
        continue;
      }
      ++cRuns_;
      compare(p, "c-run", *ref, actual, returned);
    }
  }

  // Runs `call` with stderr redirected to a file and returns what was written there: UBSan's
  // runtime reports (it reads UBSAN_OPTIONS from the environment the process started with, so
  // its output is captured rather than configured).
  template <typename Call> std::string captureStderr(Call call) {
    const std::string path = options_.workdir + "/stderr.txt";
    std::fflush(stderr);
    int saved = dup(STDERR_FILENO);
    FILE *file = std::fopen(path.c_str(), "w");
    if (saved < 0 || !file) {
      call();
      return {};
    }
    dup2(fileno(file), STDERR_FILENO);
    crashFd = saved;
    call();
    std::fflush(stderr);
    dup2(saved, STDERR_FILENO);
    crashFd = STDERR_FILENO;
    close(saved);
    std::fclose(file);
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  // ---- LLVM: one JIT module per batch ----

  void runLLVM(std::vector<Program> &batch) {
    const auto start = Clock::now();
    std::vector<Program *> members = compilable(batch);
    if (members.empty())
      return;
    std::unique_ptr<JitModule> jit;
    try {
      jit = std::make_unique<JitModule>(moduleOf(members), LLVMEmitOptions{});
    } catch (const std::exception &) {
      for (Program *p : members) { // find the culprit
        try {
          JitModule single(moduleOf({p}), LLVMEmitOptions{});
          runLLVMFunction(*p, single);
        } catch (const std::exception &e) {
          fail(*p, "llvm", std::string("the LLVM emitter or JIT rejects the lowered function: ") + e.what());
        }
      }
      llvmSeconds_ += std::chrono::duration<double>(Clock::now() - start).count();
      return;
    }
    for (Program *p : members)
      runLLVMFunction(*p, *jit);
    llvmSeconds_ += std::chrono::duration<double>(Clock::now() - start).count();
  }

  void runLLVMFunction(Program &p, const JitModule &jit) {
    if (p.failed)
      return;
    std::optional<Reference> ref = reference(p, "llvm");
    if (!ref)
      return;
    std::vector<ArgValue> actual = deepCopyArgs(ref->inputs);
    void *fn = jit.lookup(llvmSymbolName(*p.lowered));
    crashContext = "LLVM function of program " + p.generated.function + ":\n" + p.generated.text +
                   "# pipeline: " + p.generated.pipeline + "\n";
    int32_t returned = callNative(fn, *p.lowered, actual);
    ++llvmRuns_;
    compare(p, "llvm", *ref, actual, returned);
  }

  // ---- failures ----

  void fail(Program &p, const std::string &stage, const std::string &message) {
    if (p.failed)
      return;
    p.failed = true;
    ++failures_;
    const std::string dir = options_.workdir + "/failures";
    std::filesystem::create_directories(dir);
    const std::string path = std::filesystem::absolute(dir + "/" + p.generated.function + ".tir").string();
    const std::string pipeline = "--pass-pipeline=" + cdiff::quote(p.generated.pipeline);
    std::string run = "tirlower %s " + pipeline + " --verify-semantics --seed=" + std::to_string(p.dataSeed);
    std::string command = options_.tirlower + " " + cdiff::quote(path) + " " + pipeline +
                          " --verify-semantics --seed=" + std::to_string(p.dataSeed);
    if (stage.rfind("c-", 0) == 0)
      command += "\n  C:          " + options_.tirlower + " " + cdiff::quote(path) + " " + pipeline +
                 " --emit=c   (or test/cdiff's c_diff FILE --pipeline=" + cdiff::quote(p.generated.pipeline) + ")";
    else if (stage == "llvm")
      command += "\n  LLVM:       " + options_.tirlower + " " + cdiff::quote(path) + " " + pipeline + " --emit=llvm";
    std::ofstream(path) << "# semfuzz: run seed " << options_.seed << ", program " << p.index << " (seed " << p.seed
                        << "), failed in stage " << stage << "\n# RUN: " << run << "\n"
                        << p.generated.text;
    std::cerr << "FAIL [" << stage << "] program " << p.index << " (" << p.generated.function << ", seed " << p.seed
              << "), pipeline " << p.generated.pipeline << ":\n"
              << message << "\n  reproducer: " << path << "\n  command:    " << command << "\n";
  }

  Options options_;
  size_t failures_ = 0;
  uint64_t programs_ = 0, passRuns_ = 0, cRuns_ = 0, cCompiles_ = 0, llvmRuns_ = 0;
  double cSeconds_ = 0, llvmSeconds_ = 0;
};

} // namespace
} // namespace tirlower::semfuzz

int main(int argc, char **argv) {
  using namespace tirlower::semfuzz;
  Options options;
  const char *usage = "usage: semfuzz [--count=N] [--seed=S] [--batch=B] [--workdir=DIR] [--only=K] [--no-c] "
                      "[--no-llvm] [--no-ubsan] [--max-failures=F] [--tirlower=PATH] [--quiet] [--print]\n";
  try {
    for (int k = 1; k < argc; ++k) {
      std::string arg = argv[k];
      auto value = [&](const char *prefix) -> std::optional<std::string> {
        size_t n = std::strlen(prefix);
        if (arg.compare(0, n, prefix) != 0)
          return std::nullopt;
        return arg.substr(n);
      };
      if (auto v = value("--count="))
        options.count = std::stoull(*v);
      else if (auto s = value("--seed="))
        options.seed = std::stoull(*s);
      else if (auto b = value("--batch="))
        options.batch = std::max<size_t>(1, std::stoull(*b));
      else if (auto w = value("--workdir="))
        options.workdir = *w;
      else if (auto o = value("--only="))
        options.only = std::stoull(*o);
      else if (auto f = value("--max-failures="))
        options.maxFailures = std::stoull(*f);
      else if (auto t = value("--tirlower="))
        options.tirlower = *t;
      else if (arg == "--no-c")
        options.c = false;
      else if (arg == "--no-llvm")
        options.llvm = false;
      else if (arg == "--no-ubsan")
        options.ubsan = false;
      else if (arg == "--quiet")
        options.quiet = true;
      else if (arg == "--print")
        options.print = true;
      else {
        std::cerr << usage;
        return 2;
      }
    }
  } catch (const std::exception &) {
    std::cerr << usage;
    return 2;
  }
  if (options.workdir.empty())
    options.workdir = (std::filesystem::temp_directory_path() / ("semfuzz-" + std::to_string(getpid()))).string();
  options.workdir = std::filesystem::absolute(options.workdir).string();
  try {
    return Fuzzer(options).run();
  } catch (const std::exception &e) {
    std::cerr << "semfuzz: error: " << e.what() << "\n";
    return 1;
  }
}
