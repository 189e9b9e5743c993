// Differential test of the C emitter on one TVMScript file: parse, lower with a pipeline, emit
// C, compile it with the system C compiler into a shared object, load it, and run every
// function on random inputs against the reference interpreter on the lowered function (every
// buffer compared bit for bit). The interpreter on the original function is also compared with
// the lowered one where no parameter changed its layout.
//   c_diff FILE [--pipeline=P] [--split] [--sanitize] [--cc=COMPILER] [--expect-error=TEXT] [--workdir=DIR]
// --split: the file holds inputs separated by "# -----" lines, each tested on its own.
// --sanitize: compile with -fsanitize=address,undefined; the test re-runs itself with the
//   compiler's libasan preloaded so the instrumented object can be loaded, with LeakSanitizer
//   on for the heap blocks the emitted functions allocate (each must be freed before it returns).
// --cc: the C compiler (default cc; the sanitizer runtime is always looked up through cc).
// --expect-error: the C emitter must reject the module with a message containing TEXT.
// Exit 0 match, 1 mismatch or failure, 77 skipped (the reason is printed).
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "c_harness.h"
#include "codegen/c_emitter.h"
#include "interp/interpreter.h"
#include "ir/equality.h"
#include "parse/parser.h"
#include "transform/pass_manager.h"
#include "transform/pipeline.h"
#include "transform/target.h"

namespace tirlower {

namespace {
// Appended to the emitted C, which is linked with --wrap=malloc,--wrap=free: its calls of malloc
// and free are counted.
const char *const kHeapCounters = R"(
void *__real_malloc(size_t bytes);
void __real_free(void *block);
void *__wrap_malloc(size_t bytes);
void __wrap_free(void *block);
unsigned long tl_test_mallocs, tl_test_frees;
void *__wrap_malloc(size_t bytes) {
  ++tl_test_mallocs;
  return __real_malloc(bytes);
}
void __wrap_free(void *block) {
  ++tl_test_frees;
  __real_free(block);
}
)";
} // namespace
namespace {

using namespace cdiff;

// The C target's default pipeline (blocks lowered first).
const std::string kCPipeline = findTarget("c")->pipeline;
constexpr int kSkip = 77;

struct Options {
  std::string file;
  std::string pipeline = kCPipeline;
  bool split = false;
  bool sanitize = false;
  std::string compiler = "cc";
  std::string expectError;
  std::string workdir;
};

class PrintingSink : public DiagnosticSink {
public:
  void report(Diagnostic d) override { std::cerr << "diagnostic: " << d.message << "\n"; }
};

// Parameters whose buffer apply-layout-transforms changes (their data is passed in the new layout).
std::vector<std::string> transformedParams(const PrimFuncNode &original, const PrimFuncNode &transformed) {
  std::vector<std::string> names;
  for (size_t p = 0; p < original.params.size() && p < transformed.params.size(); ++p) {
    Buffer before = original.bufferFor(original.params[p]), after = transformed.bufferFor(transformed.params[p]);
    if (!before || !after)
      continue;
    if (before->dtype != after->dtype || !structurallyEqual(before->shape, after->shape) ||
        before->axisSeparators != after->axisSeparators)
      names.push_back(original.params[p]->name.str());
  }
  return names;
}

class Tester {
public:
  explicit Tester(const Options &options) : options_(options) {}

  int run() {
    std::ifstream in(options_.file);
    if (!in) {
      std::cerr << "cannot open " << options_.file << "\n";
      return 1;
    }
    std::stringstream text;
    text << in.rdbuf();
    std::string source = text.str();
    uint32_t file = sources_.addFile(options_.file, source);
    std::vector<ParseRange> ranges = inputRanges(source, options_.split);
    int status = 0;
    for (size_t c = 0; c < ranges.size(); ++c) {
      std::optional<Module> parsed = parseModule(sources_, file, sink_, ranges[c]);
      if (!parsed) {
        std::cerr << "FAIL: input " << c << " does not parse\n";
        return 1;
      }
      int chunkStatus = testModule(*parsed, "m" + std::to_string(c));
      if (chunkStatus == 1)
        status = 1;
      else if (chunkStatus == kSkip && status == 0)
        status = kSkip;
    }
    return status;
  }

private:
  int testModule(const Module &original, const std::string &stem) {
    std::optional<Module> lowered = lowerModule(original, options_.pipeline, sink_);
    if (!lowered) {
      std::cerr << "FAIL: the pipeline '" << options_.pipeline << "' failed\n";
      return 1;
    }
    std::string source;
    try {
      source = emitC(*lowered, CEmitOptions{}, sink_);
    } catch (const CompileError &error) {
      std::string message = error.what();
      if (!options_.expectError.empty() && message.find(options_.expectError) != std::string::npos) {
        std::cerr << "the C emitter rejects the module as expected: " << message << "\n";
        return 0;
      }
      std::cerr << "FAIL: the C emitter rejects the module: " << message << "\n";
      return 1;
    }
    if (!options_.expectError.empty()) {
      std::cerr << "FAIL: the C emitter accepted the module; expected the error '" << options_.expectError << "'\n";
      return 1;
    }
    std::vector<std::string> symbols = definedSymbols(source);
    if (symbols.size() != lowered->functions.size()) {
      std::cerr << "FAIL: " << symbols.size() << " C function definitions for " << lowered->functions.size()
                << " functions\n"
                << source;
      return 1;
    }
    std::string shims;
    for (size_t k = 0; k < symbols.size(); ++k)
      shims += "\n" + callShim(*lowered->functions[k], k, symbols[k]);
    shims += kHeapCounters;

    std::string c = options_.workdir + "/" + stem + ".c", so = options_.workdir + "/" + stem + ".so";
    std::ofstream(c) << source << shims;
    if (const char *patch = std::getenv("TL_CDIFF_PATCH")) // self-test: corrupt the C source
      if (shell(std::string(patch) + " " + quote(c), compilerOutput_) != 0) {
        std::cerr << "FAIL: TL_CDIFF_PATCH failed: " << compilerOutput_;
        return 1;
      }
    // The interpreter first: a function it rejects (an uninitialised read, an out-of-bounds
    // access) has undefined behaviour in C, so it is compiled but not run.
    std::vector<Case> cases;
    bool undefined = false;
    for (size_t k = 0; k < lowered->functions.size(); ++k) {
      Case &c = cases.emplace_back();
      try {
        c.args = makeRandomArgs(lowered->functions[k], 42 + k);
      } catch (const CompileError &e) { // e.g. a parameter larger than the interpreter's cap
        c.unrunnable = e.what();
        continue;
      }
      c.expected = deepCopyArgs(c.args);
      c.reference = tirlower::run(lowered->functions[k], c.expected);
      undefined |= c.reference.status == RunStatus::Error;
    }
    std::string command = options_.compiler + " -std=c11 -O1 -Wall -Wextra -Werror -shared -fPIC ";
    if (undefined) // the compiler sees the same uninitialised reads
      command += "-Wno-uninitialized -Wno-maybe-uninitialized ";
    if (options_.sanitize)
      command += "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer ";
    command += "-Wl,--wrap=malloc,--wrap=free -o " + quote(so) + " " + quote(c) + " -lm";
    if (shell(command, compilerOutput_) != 0) {
      std::cerr << "FAIL: the emitted C does not compile (" << c << "):\n" << compilerOutput_;
      return 1;
    }
    void *library = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      std::cerr << "FAIL: dlopen: " << dlerror() << "\n";
      return 1;
    }
    int failures = 0, skipped = 0;
    for (size_t k = 0; k < lowered->functions.size(); ++k) {
      if (!cases[k].unrunnable.empty()) {
        std::cerr << symbols[k] << ": SKIP: the C compiles, but no inputs can be made for it ("
                  << cases[k].unrunnable << ")\n";
        ++skipped;
        continue;
      }
      if (cases[k].reference.status == RunStatus::Error) {
        std::cerr << symbols[k] << ": SKIP: the C compiles, but the interpreter rejects the lowered function ("
                  << describe(cases[k].reference) << "), so it has undefined behaviour and is not run\n";
        ++skipped;
        continue;
      }
      failures += testFunction(original, *lowered, k, symbols[k], library, cases[k]);
    }
    if (!noTrackedLeaks()) {
      std::cerr << "FAIL: the emitted code leaks heap storage (LeakSanitizer's report above)\n";
      ++failures;
    }
    // The library stays loaded: sanitizer reports may refer to it until exit.
    return failures ? 1 : skipped ? kSkip : 0;
  }

  struct Case {
    std::vector<ArgValue> args, expected; // the inputs; the interpreter's results
    RunResult reference;
    std::string unrunnable; // why no inputs could be made (the function is compiled, not run)
  };

  int testFunction(const Module &original, const Module &lowered, size_t k, const std::string &symbol, void *library,
                   const Case &c) {
    const PrimFuncNode &func = *lowered.functions[k];
    using Shim = int32_t (*)(void **);
    auto shim = reinterpret_cast<Shim>(dlsym(library, ("tl_call_" + std::to_string(k)).c_str()));
    if (!shim) {
      std::cerr << symbol << ": FAIL: no call shim in the library\n";
      return 1;
    }
    const std::vector<ArgValue> &args = c.args, &expected = c.expected;
    const RunResult &reference = c.reference;
    std::vector<ArgValue> actual = deepCopyArgs(args);
    std::vector<std::vector<uint8_t>> scalars;
    std::vector<void *> pointers = shimArguments(actual, scalars);
    int32_t returned = trackLeaks([&] { return shim(pointers.data()); });
    int32_t want = reference.status == RunStatus::AssertFailed ? 1 : 0;
    int failures = reusesStorage(symbol, library, shim, args, returned);
    if (returned != want) {
      std::cerr << symbol << ": FAIL: the C function returned " << returned << ", expected " << want
                << " (interpreter: " << describe(reference) << ")\n";
      ++failures;
    }
    if (compareBuffers(symbol + ": C vs interpreter", func, expected, actual)) {
      ++failures;
    }
    if (!failures)
      std::cerr << symbol << ": the compiled C matches the interpreter (" << describe(reference) << ", "
                << reference.steps << " steps)\n";
    return failures + compareWithOriginal(original, k, symbol, args, expected, reference);
  }

  // Called again on the same inputs, the function allocates and frees nothing: its large storage
  // is its thread's, kept from the first call (docs/abi.md). 1 when it is not.
  static int reusesStorage(const std::string &symbol, void *library, int32_t (*shim)(void **),
                           const std::vector<ArgValue> &args, int32_t returned) {
    auto *mallocs = static_cast<const unsigned long *>(dlsym(library, "tl_test_mallocs"));
    auto *frees = static_cast<const unsigned long *>(dlsym(library, "tl_test_frees"));
    if (!mallocs || !frees) {
      std::cerr << symbol << ": FAIL: no malloc/free counters in the library\n";
      return 1;
    }
    std::vector<ArgValue> again = deepCopyArgs(args);
    std::vector<std::vector<uint8_t>> scalars;
    std::vector<void *> pointers = shimArguments(again, scalars);
    const unsigned long mallocsBefore = *mallocs, freesBefore = *frees;
    int32_t returnedAgain = trackLeaks([&] { return shim(pointers.data()); });
    if (*mallocs == mallocsBefore && *frees == freesBefore && returnedAgain == returned)
      return 0;
    std::cerr << symbol << ": FAIL: returned " << returned << " then " << returnedAgain << "; the second call made "
              << *mallocs - mallocsBefore << " malloc(s) and " << *frees - freesBefore
              << " free(s) (its storage must be reused)\n";
    return 1;
  }

  // The interpreter on the unlowered function, on the same data, when the layouts agree.
  int compareWithOriginal(const Module &original, size_t k, const std::string &symbol,
                          const std::vector<ArgValue> &args, const std::vector<ArgValue> &expected,
                          const RunResult &reference) {
    if (original.functions.size() <= k) {
      std::cerr << symbol << ": note: no original function to compare with\n";
      return 0;
    }
    const PrimFuncNode &before = *original.functions[k];
    if (size_t at = options_.pipeline.find("apply-layout-transforms"); at != std::string::npos) {
      // The pipeline up to the layout transforms (block lowering comes first).
      std::string upTo = options_.pipeline.substr(0, at + std::string_view("apply-layout-transforms").size());
      std::optional<Module> transformed = lowerModule(original, upTo, sink_);
      if (!transformed || transformed->functions.size() <= k) {
        std::cerr << symbol << ": FAIL: apply-layout-transforms alone fails\n";
        return 1;
      }
      std::vector<std::string> changed = transformedParams(before, *transformed->functions[k]);
      if (!changed.empty()) {
        std::string list;
        for (const std::string &name : changed)
          list += (list.empty() ? "" : ", ") + name;
        std::cerr << symbol << ": note: original-vs-lowered comparison skipped: parameter layout changed (" << list
                  << "); needs layout conversion (issue 6)\n";
        return 0;
      }
    }
    std::vector<ArgValue> unlowered = deepCopyArgs(args);
    RunResult result = tirlower::run(original.functions[k], unlowered);
    if (result.status != reference.status) {
      std::cerr << symbol << ": FAIL: the original function " << describe(result) << ", the lowered one "
                << describe(reference) << "\n";
      return 1;
    }
    if (compareBuffers(symbol + ": lowered vs original (interpreter)", before, unlowered, expected))
      return 1;
    std::cerr << symbol << ": the lowered function matches the original in the interpreter\n";
    return 0;
  }

  const Options &options_;
  SourceManager sources_;
  PrintingSink sink_;
  std::string compilerOutput_;
};

} // namespace
} // namespace tirlower

int main(int argc, char **argv) {
  using namespace tirlower;
  Options options;
  for (int k = 1; k < argc; ++k) {
    std::string arg = argv[k];
    auto value = [&](const char *prefix) -> const char * {
      size_t n = std::strlen(prefix);
      return arg.compare(0, n, prefix) == 0 ? argv[k] + n : nullptr;
    };
    if (const char *v = value("--pipeline="))
      options.pipeline = v;
    else if (const char *e = value("--expect-error="))
      options.expectError = e;
    else if (const char *w = value("--workdir="))
      options.workdir = w;
    else if (const char *c = value("--cc="))
      options.compiler = c;
    else if (arg == "--split")
      options.split = true;
    else if (arg == "--sanitize")
      options.sanitize = true;
    else if (options.file.empty() && arg.rfind("--", 0) != 0)
      options.file = arg;
    else {
      std::cerr << "usage: c_diff FILE [--pipeline=P] [--split] [--sanitize] [--cc=COMPILER] [--expect-error=TEXT] [--workdir=DIR]\n";
      return 1;
    }
  }
  if (options.file.empty()) {
    std::cerr << "usage: c_diff FILE [--pipeline=P] [--split] [--sanitize] [--cc=COMPILER] [--expect-error=TEXT] [--workdir=DIR]\n";
    return 1;
  }
  try {
    if (options.sanitize) {
      preloadSanitizerRuntime(argv);
      ignoreLeaksOutsideTracking();
    }
    bool temporary = options.workdir.empty();
    if (temporary) {
      std::string pattern = (std::filesystem::temp_directory_path() / "tirlower-cdiff-XXXXXX").string();
      if (!mkdtemp(pattern.data()))
        throw std::runtime_error("mkdtemp failed");
      options.workdir = pattern;
    } else {
      std::filesystem::create_directories(options.workdir);
    }
    int status = Tester(options).run();
    if (temporary && status != 1)
      std::filesystem::remove_all(options.workdir);
    else if (status == 1)
      std::cerr << "the generated files are in " << options.workdir << "\n";
    std::cerr << (status == 0 ? "PASS" : status == kSkip ? "SKIP" : "FAIL") << "\n";
    return status;
  } catch (const std::exception &error) {
    std::cerr << "FAIL: " << error.what() << "\n";
    return 1;
  }
}
