// Differential test of the LLVM emitter on real inputs: every case (an ir-sample through the
// LLVM target's pipeline, or a golden file through its RUN line's pipeline) is parsed, lowered,
// emitted as LLVM IR (verified by the emitter), compiled to an object with llc, JIT-compiled
// in-process with ORC at -O0 and -O3, and every function is run on the interpreter's random
// inputs and compared with the interpreter (return code and every buffer, bit for bit). The
// JIT-compiled code's malloc and free are the test's own: a heap block is freed at most once
// and only after it was allocated, and a function's large storage is its thread's, kept
// between calls (docs/abi.md): each function is called twice, and the second call, on the
// same inputs, must allocate and free nothing.
//   llvm_diff [--llc=PATH] [--workdir=DIR] CASE...
// CASE is FILE|PIPELINE|SPLIT|EXPECTED-ERROR: SPLIT is 1 when the file holds inputs separated
// by "# -----" lines; EXPECTED-ERROR, when not empty, is text the emitter's rejection must
// contain. One line per case and function; exit 0 when every case passes (or is skipped with a
// reason), 1 otherwise.
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

#include "c_harness.h"
#include "codegen/llvm/llvm_emitter.h"
#include "interp/interpreter.h"
#include "parse/parser.h"

namespace tirlower {
namespace {

using Clock = std::chrono::steady_clock;

// The heap blocks the JIT-compiled code holds, how often it called malloc and free, and what it
// did wrong with them. Blocks stay live across calls (the functions' per-thread storage).
struct HeapLedger {
  std::unordered_set<void *> live;
  size_t mallocs = 0, frees = 0, unknownFrees = 0;
};
HeapLedger ledger;

extern "C" void *countingMalloc(size_t bytes) {
  void *block = std::malloc(bytes);
  ++ledger.mallocs;
  if (block)
    ledger.live.insert(block);
  return block;
}

extern "C" void countingFree(void *block) {
  if (!block)
    return;
  ++ledger.frees;
  if (!ledger.live.erase(block)) {
    ++ledger.unknownFrees; // freed twice, or never allocated: not passed on to free
    return;
  }
  std::free(block);
}

const std::map<std::string, void *> kHeapSymbols = {
    {"malloc", reinterpret_cast<void *>(&countingMalloc)},
    {"free", reinterpret_cast<void *>(&countingFree)},
};

struct Case {
  std::string file, pipeline, expectError;
  bool split = false;
};

struct Options {
  std::string llc, workdir;
  std::vector<Case> cases;
};

class CollectingSink : public DiagnosticSink {
public:
  void report(Diagnostic d) override { messages += "  diagnostic: " + d.message + "\n"; }
  std::string messages;
};

class Tester {
public:
  explicit Tester(const Options &options) : options_(options) {}

  int run() {
    int failed = 0;
    for (const Case &c : options_.cases) {
      std::string name = std::filesystem::path(c.file).parent_path().filename().string() + "/" +
                         std::filesystem::path(c.file).filename().string();
      log_.str("");
      sink_.messages.clear();
      auto start = Clock::now();
      bool ok = false;
      try {
        ok = testFile(c, name);
      } catch (const std::exception &error) {
        log_ << "  FAIL: " << error.what() << "\n";
      }
      double seconds = std::chrono::duration<double>(Clock::now() - start).count();
      std::ostringstream head;
      head.precision(2);
      head << std::fixed << (ok ? "PASS " : "FAIL ") << name << " (" << seconds << " s)\n";
      std::cout << head.str() << log_.str() << (ok ? "" : sink_.messages) << std::flush;
      failed += !ok;
    }
    std::cout << options_.cases.size() - failed << " of " << options_.cases.size() << " cases passed\n";
    return failed ? 1 : 0;
  }

private:
  bool testFile(const Case &c, const std::string &name) {
    std::ifstream in(c.file);
    if (!in)
      throw std::runtime_error("cannot open " + c.file);
    std::stringstream text;
    text << in.rdbuf();
    SourceManager sources;
    uint32_t file = sources.addFile(c.file, text.str());
    std::vector<ParseRange> ranges = cdiff::inputRanges(text.str(), c.split);
    bool ok = true;
    for (size_t k = 0; k < ranges.size(); ++k) {
      std::optional<Module> parsed = parseModule(sources, file, sink_, ranges[k]);
      if (!parsed) {
        log_ << "  FAIL: input " << k << " does not parse\n";
        return false;
      }
      std::string stem = name;
      for (char &ch : stem)
        ch = ch == '/' ? '-' : ch;
      ok &= testModule(*parsed, c, stem + (ranges.size() > 1 ? "." + std::to_string(k) : std::string()));
    }
    return ok;
  }

  bool testModule(const Module &parsed, const Case &c, const std::string &stem) {
    std::optional<Module> lowered = cdiff::lowerModule(parsed, c.pipeline, sink_);
    if (!lowered) {
      log_ << "  FAIL: the pipeline '" << c.pipeline << "' fails\n";
      return false;
    }
    std::string text;
    try {
      text = emitLLVMText(*lowered, {}); // verified by the emitter
    } catch (const CompileError &error) {
      std::string message = error.what();
      bool expected = !c.expectError.empty() && message.find(c.expectError) != std::string::npos;
      log_ << "  " << (expected ? "rejected as expected: " : "FAIL: the LLVM emitter rejects the module: ") << message
           << "\n";
      return expected;
    }
    if (!c.expectError.empty()) {
      log_ << "  FAIL: the LLVM emitter accepts the module; expected the error '" << c.expectError << "'\n";
      return false;
    }
    bool ok = compileWithLlc(text, stem);
    std::vector<std::unique_ptr<JitModule>> jits;
    for (int level : {0, 3}) {
      LLVMEmitOptions options;
      options.optLevel = level;
      jits.push_back(std::make_unique<JitModule>(*lowered, options, true, kHeapSymbols));
    }
    for (size_t k = 0; k < lowered->functions.size(); ++k)
      ok &= testFunction(lowered->functions[k], k, jits);
    return ok;
  }

  bool compileWithLlc(const std::string &text, const std::string &stem) {
    if (options_.llc.empty())
      return true;
    std::string ll = options_.workdir + "/" + stem + ".ll", object = options_.workdir + "/" + stem + ".o";
    std::ofstream(ll) << text;
    std::string output;
    int status = cdiff::shell(
        cdiff::quote(options_.llc) + " -O2 -filetype=obj -o " + cdiff::quote(object) + " " + cdiff::quote(ll), output);
    if (status != 0) {
      log_ << "  FAIL: llc rejects " << ll << ":\n" << output;
      return false;
    }
    log_ << "  llc -O2: " << std::filesystem::file_size(object) << "-byte object\n";
    return true;
  }

  bool testFunction(const PrimFunc &func, size_t k, const std::vector<std::unique_ptr<JitModule>> &jits) {
    std::string symbol = llvmSymbolName(*func);
    std::vector<ArgValue> args;
    try {
      args = makeRandomArgs(func, 42 + k);
    } catch (const CompileError &e) { // e.g. a parameter larger than the interpreter's cap
      log_ << "  " << symbol << ": SKIP: compiled, but no inputs can be made for it (" << e.what() << ")\n";
      return true;
    }
    std::vector<ArgValue> expected = deepCopyArgs(args);
    RunResult reference = tirlower::run(func, expected);
    if (reference.status == RunStatus::Error) {
      log_ << "  " << symbol << ": SKIP: compiled, but the interpreter rejects the function ("
           << cdiff::describe(reference) << "), so running it would be undefined\n";
      return true;
    }
    int32_t want = reference.status == RunStatus::AssertFailed ? 1 : 0;
    bool ok = true;
    std::string levels;
    for (size_t j = 0; j < jits.size(); ++j) {
      const char *level = j == 0 ? "-O0" : "-O3";
      std::vector<ArgValue> actual = deepCopyArgs(args);
      std::vector<std::vector<uint8_t>> scalars;
      std::vector<void *> pointers = cdiff::shimArguments(actual, scalars);
      int32_t returned = jits[j]->callPacked(symbol, pointers.data());
      // Again on the same inputs: the storage of the first call is reused, nothing allocated.
      std::vector<ArgValue> again = deepCopyArgs(args);
      std::vector<std::vector<uint8_t>> againScalars;
      std::vector<void *> againPointers = cdiff::shimArguments(again, againScalars);
      const HeapLedger before = ledger;
      int32_t returnedAgain = jits[j]->callPacked(symbol, againPointers.data());
      if (ledger.unknownFrees || ledger.mallocs != before.mallocs || ledger.frees != before.frees ||
          returnedAgain != returned) {
        log_ << "  " << symbol << " " << level << ": FAIL: returned " << returned << " then " << returnedAgain
             << "; the second call made " << ledger.mallocs - before.mallocs << " malloc(s) and "
             << ledger.frees - before.frees << " free(s) (its storage must be reused); "
             << ledger.unknownFrees << " free(s) of a block not allocated\n";
        ok = false;
        ledger.unknownFrees = 0;
      }
      std::ostringstream differences;
      int differing = cdiff::compareBuffers(symbol + " " + level, *func, expected, actual, differences);
      if (returned != want) {
        log_ << "  " << symbol << " " << level << ": FAIL: returned " << returned << ", expected " << want << "\n";
        ok = false;
      }
      if (differing) {
        log_ << "  " << differences.str();
        ok = false;
      }
      levels += std::string(levels.empty() ? "" : ", ") + level;
    }
    if (ok)
      log_ << "  " << symbol << ": JIT " << levels << " match the interpreter (" << cdiff::describe(reference) << ", "
           << reference.steps << " steps)\n";
    return ok;
  }

  const Options &options_;
  CollectingSink sink_;
  std::ostringstream log_;
};

Case parseCase(const std::string &spec) {
  std::vector<std::string> fields;
  size_t begin = 0;
  for (size_t bar; (bar = spec.find('|', begin)) != std::string::npos; begin = bar + 1)
    fields.push_back(spec.substr(begin, bar - begin));
  fields.push_back(spec.substr(begin));
  if (fields.size() != 4)
    throw std::runtime_error("a case is FILE|PIPELINE|SPLIT|EXPECTED-ERROR, not '" + spec + "'");
  return {fields[0], fields[1], fields[3], fields[2] == "1"};
}

} // namespace
} // namespace tirlower

int main(int argc, char **argv) {
  using namespace tirlower;
  try {
    Options options;
    for (int k = 1; k < argc; ++k) {
      std::string arg = argv[k];
      if (arg.rfind("--llc=", 0) == 0)
        options.llc = arg.substr(6);
      else if (arg.rfind("--workdir=", 0) == 0)
        options.workdir = arg.substr(10);
      else
        options.cases.push_back(parseCase(arg));
    }
    if (options.workdir.empty())
      options.workdir = (std::filesystem::temp_directory_path() / "tirlower-llvmdiff").string();
    std::filesystem::create_directories(options.workdir);
    if (options.llc.empty())
      std::cout << "note: no llc given; objects are not compiled\n";
    return Tester(options).run();
  } catch (const std::exception &error) {
    std::cerr << "FAIL: " << error.what() << "\n";
    return 1;
  }
}
