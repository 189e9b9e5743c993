// Differential test of the C emitter on one TVMScript file: parse, lower with a pipeline, emit
// C, compile it with the system C compiler into a shared object, load it, and run every
// function on random inputs against the reference interpreter on the lowered function (every
// buffer compared bit for bit). The interpreter on the original function is also compared with
// the lowered one where no parameter changed its layout.
//   c_diff FILE [--pipeline=P] [--split] [--sanitize] [--expect-error=TEXT] [--workdir=DIR]
// --split: the file holds inputs separated by "# -----" lines, each tested on its own.
// --sanitize: compile with -fsanitize=address,undefined; the test re-runs itself with the
//   compiler's libasan preloaded so the instrumented object can be loaded.
// --expect-error: the C emitter must reject the module with a message containing TEXT.
// Exit 0 match, 1 mismatch or failure, 77 skipped (the reason is printed).
#include <dlfcn.h>
#include <sys/wait.h>
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

#include "codegen/c_emitter.h"
#include "codegen/c_support.h"
#include "interp/interpreter.h"
#include "ir/equality.h"
#include "parse/parser.h"
#include "transform/pass_manager.h"
#include "transform/pipeline.h"

namespace tirlower {
namespace {

constexpr const char *kCPipeline = "apply-layout-transforms,flatten,vectorize,simplify,remove-no-op";
constexpr int kSkip = 77;

struct Options {
  std::string file;
  std::string pipeline = kCPipeline;
  bool split = false;
  bool sanitize = false;
  std::string expectError;
  std::string workdir;
};

class PrintingSink : public DiagnosticSink {
public:
  void report(Diagnostic d) override { std::cerr << "diagnostic: " << d.message << "\n"; }
};

// Runs a shell command, returning its exit status and its combined output.
int shell(const std::string &command, std::string &output) {
  output.clear();
  FILE *pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe)
    return -1;
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, pipe)) > 0)
    output.append(chunk, n);
  int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string quote(const std::string &text) {
  std::string out = "'";
  for (char c : text)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// [begin, end) ranges of the inputs separated by lines that are exactly "# -----".
std::vector<ParseRange> chunks(const std::string &text, bool split) {
  std::vector<ParseRange> out;
  uint32_t begin = 0;
  size_t lineStart = 0;
  while (split && lineStart < text.size()) {
    size_t newline = text.find('\n', lineStart);
    size_t lineEnd = newline == std::string::npos ? text.size() : newline;
    std::string line = text.substr(lineStart, lineEnd - lineStart);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r'))
      line.pop_back();
    size_t next = newline == std::string::npos ? text.size() : newline + 1;
    if (line == "# -----") {
      out.push_back({begin, static_cast<uint32_t>(lineStart)});
      begin = static_cast<uint32_t>(next);
    }
    lineStart = next;
  }
  out.push_back({begin, static_cast<uint32_t>(text.size())});
  return out;
}

std::optional<Module> lower(const Module &module, const std::string &pipeline, DiagnosticSink &sink) {
  PassManager passes;
  for (const PipelineEntry &entry : parsePipeline(pipeline, PassRegistry::builtin()))
    passes.add(entry);
  PassContext context{sink};
  return passes.run(module, context);
}

// The C symbols of the emitted functions, in module order: the definitions "int32_t NAME(" at
// the start of a line.
std::vector<std::string> definedSymbols(const std::string &source) {
  std::vector<std::string> symbols;
  std::istringstream lines(source);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("int32_t ", 0) != 0 || line.back() != '{')
      continue;
    size_t paren = line.find('(');
    if (paren != std::string::npos)
      symbols.push_back(line.substr(8, paren - 8));
  }
  return symbols;
}

// `int32_t tl_call_K(void **args)`: calls function K with its arguments unpacked from an array
// of pointers (to the buffer storage, or to a scalar's value).
std::string callShim(const PrimFuncNode &func, size_t k, const std::string &symbol) {
  CSupport support;
  std::string text = "int32_t tl_call_" + std::to_string(k) + "(void **args);\nint32_t tl_call_" + std::to_string(k) +
                     "(void **args) {\n  " + (func.params.empty() ? "(void)args;\n  " : std::string()) + "return " +
                     symbol + "(";
  for (size_t p = 0; p < func.params.size(); ++p) {
    const Var &param = func.params[p];
    std::string slot = "args[" + std::to_string(p) + "]";
    text += p ? ", " : "";
    text += param->type.isHandle() ? slot : "*(const " + support.scalarTypeName(param->type) + " *)" + slot;
  }
  return text + ");\n}\n";
}

// The bytes of a scalar argument in its C type.
std::vector<uint8_t> scalarBytes(const ArgValue &arg) {
  DataType t = arg.type;
  std::vector<uint8_t> bytes(8, 0);
  if (t.isFloat() && t.bits() == 32) {
    float v = static_cast<float>(arg.floatValue);
    std::memcpy(bytes.data(), &v, sizeof v);
  } else if (t.isFloat() && t.bits() == 64) {
    std::memcpy(bytes.data(), &arg.floatValue, sizeof arg.floatValue);
  } else if (t.isBool()) {
    bytes[0] = arg.intValue != 0;
  } else if (t.isInt() || t.isUInt()) {
    uint64_t v = t.isUInt() ? arg.uintValue : static_cast<uint64_t>(arg.intValue);
    std::memcpy(bytes.data(), &v, sizeof v); // little-endian: the low bytes come first
  } else {
    throw std::runtime_error("no C argument for a scalar of type " + t.str());
  }
  return bytes;
}

std::string elementText(const BufferData &b, size_t k) {
  DataType t = b.elementType();
  std::ostringstream out;
  out.precision(9);
  if (t.isFloat())
    out << b.getFloat(k);
  else if (t.isUInt())
    out << b.getUInt(k);
  else
    out << b.getInt(k);
  return out.str();
}

// Compares every buffer argument byte for byte; prints the first difference of each buffer.
int compareBuffers(const std::string &what, const PrimFuncNode &func, const std::vector<ArgValue> &expected,
                   const std::vector<ArgValue> &actual) {
  int mismatched = 0;
  for (size_t p = 0; p < expected.size(); ++p) {
    if (!expected[p].isBuffer())
      continue;
    const BufferData &e = *expected[p].buffer, &a = *actual[p].buffer;
    size_t width = static_cast<size_t>(e.elementType().laneBytes());
    size_t differing = 0, first = 0;
    for (size_t k = 0; k < e.size(); ++k)
      if (std::memcmp(e.bytes() + k * width, a.bytes() + k * width, width) != 0 && differing++ == 0)
        first = k;
    if (!differing)
      continue;
    ++mismatched;
    std::cerr << what << ": buffer '" << func.params[p]->name.str() << "' differs in " << differing << " of "
              << e.size() << " elements; first at element " << first << ": expected " << elementText(e, first)
              << ", got " << elementText(a, first) << "\n";
  }
  return mismatched;
}

std::string describe(const RunResult &r) {
  if (r.status == RunStatus::Ok)
    return "ok";
  if (r.status == RunStatus::AssertFailed)
    return "assert failed" + (r.error ? ": " + r.error->message : std::string());
  return "error: " + (r.error ? r.error->message : std::string("?"));
}

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
    std::vector<ParseRange> ranges = chunks(source, options_.split);
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
    std::optional<Module> lowered = lower(original, options_.pipeline, sink_);
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
      c.args = makeRandomArgs(lowered->functions[k], 42 + k);
      c.expected = deepCopyArgs(c.args);
      c.reference = tirlower::run(lowered->functions[k], c.expected);
      undefined |= c.reference.status == RunStatus::Error;
    }
    std::string command = "cc -std=c11 -O1 -Wall -Wextra -Werror -shared -fPIC ";
    if (undefined) // the compiler sees the same uninitialised reads
      command += "-Wno-uninitialized -Wno-maybe-uninitialized ";
    if (options_.sanitize)
      command += "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer ";
    command += "-o " + quote(so) + " " + quote(c) + " -lm";
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
      if (cases[k].reference.status == RunStatus::Error) {
        std::cerr << symbols[k] << ": SKIP: the C compiles, but the interpreter rejects the lowered function ("
                  << describe(cases[k].reference) << "), so it has undefined behaviour and is not run\n";
        ++skipped;
        continue;
      }
      failures += testFunction(original, *lowered, k, symbols[k], library, cases[k]);
    }
    // The library stays loaded: sanitizer reports may refer to it until exit.
    return failures ? 1 : skipped ? kSkip : 0;
  }

  struct Case {
    std::vector<ArgValue> args, expected; // the inputs; the interpreter's results
    RunResult reference;
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
    std::vector<std::vector<uint8_t>> scalars(actual.size());
    std::vector<void *> pointers(actual.size());
    for (size_t p = 0; p < actual.size(); ++p) {
      if (actual[p].isBuffer()) {
        pointers[p] = actual[p].buffer->bytes();
      } else {
        scalars[p] = scalarBytes(actual[p]);
        pointers[p] = scalars[p].data();
      }
    }
    int32_t returned = shim(pointers.data());
    int32_t want = reference.status == RunStatus::AssertFailed ? 1 : 0;
    int failures = 0;
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

  // The interpreter on the unlowered function, on the same data, when the layouts agree.
  int compareWithOriginal(const Module &original, size_t k, const std::string &symbol,
                          const std::vector<ArgValue> &args, const std::vector<ArgValue> &expected,
                          const RunResult &reference) {
    if (original.functions.size() <= k) {
      std::cerr << symbol << ": note: no original function to compare with\n";
      return 0;
    }
    const PrimFuncNode &before = *original.functions[k];
    if (options_.pipeline.find("apply-layout-transforms") != std::string::npos) {
      std::optional<Module> transformed = lower(original, "apply-layout-transforms", sink_);
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

// With --sanitize, the instrumented library needs the ASan runtime loaded first: re-run this
// program once with the compiler's libasan preloaded.
void preloadSanitizerRuntime(char **argv) {
  if (std::getenv("TL_CDIFF_PRELOADED"))
    return;
  std::string path;
  if (shell("cc -print-file-name=libasan.so", path) != 0)
    throw std::runtime_error("cannot locate libasan: " + path);
  while (!path.empty() && (path.back() == '\n' || path.back() == ' '))
    path.pop_back();
  if (path.find('/') == std::string::npos || !std::filesystem::exists(path)) {
    std::cerr << "SKIP: the C compiler has no AddressSanitizer runtime (" << path << ")\n";
    std::exit(kSkip);
  }
  setenv("LD_PRELOAD", path.c_str(), 1);
  setenv("TL_CDIFF_PRELOADED", "1", 1);
  // Leaks of the test program itself are not the emitted code's; heap storage of the emitted
  // code is freed before it returns, checked by the buffer comparison's clean exit instead.
  setenv("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=0:exitcode=1", 0);
  setenv("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1", 0);
  execv("/proc/self/exe", argv);
  throw std::runtime_error(std::string("cannot re-run with libasan preloaded: ") + std::strerror(errno));
}

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
    else if (arg == "--split")
      options.split = true;
    else if (arg == "--sanitize")
      options.sanitize = true;
    else if (options.file.empty() && arg.rfind("--", 0) != 0)
      options.file = arg;
    else {
      std::cerr << "usage: c_diff FILE [--pipeline=P] [--split] [--sanitize] [--expect-error=TEXT] [--workdir=DIR]\n";
      return 1;
    }
  }
  if (options.file.empty()) {
    std::cerr << "usage: c_diff FILE [--pipeline=P] [--split] [--sanitize] [--expect-error=TEXT] [--workdir=DIR]\n";
    return 1;
  }
  try {
    if (options.sanitize)
      preloadSanitizerRuntime(argv);
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
