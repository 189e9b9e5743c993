#include "c_harness.h"

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "codegen/c_support.h"
#include "transform/pass_manager.h"
#include "transform/pipeline.h"

namespace tirlower::cdiff {

// [begin, end) ranges of the inputs separated by lines that are exactly "# -----".
std::vector<ParseRange> inputRanges(const std::string &text, bool split) {
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

std::optional<Module> lowerModule(const Module &module, const std::string &pipeline, DiagnosticSink &sink,
                                  const PassOptions &flags) {
  PassManager passes;
  for (const PipelineEntry &entry : parsePipeline(pipeline, PassRegistry::builtin()))
    passes.add(entry, flags);
  PassContext context{sink};
  return passes.run(module, context);
}

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

std::vector<void *> shimArguments(std::vector<ArgValue> &args, std::vector<std::vector<uint8_t>> &scalars) {
  scalars.assign(args.size(), {});
  std::vector<void *> pointers(args.size());
  for (size_t p = 0; p < args.size(); ++p) {
    if (args[p].isBuffer()) {
      pointers[p] = args[p].buffer->bytes();
    } else {
      scalars[p] = scalarBytes(args[p]);
      pointers[p] = scalars[p].data();
    }
  }
  return pointers;
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

int compareBuffers(const std::string &what, const PrimFuncNode &func, const std::vector<ArgValue> &expected,
                   const std::vector<ArgValue> &actual, std::ostream &out) {
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
    out << what << ": buffer '" << func.params[p]->name.str() << "' differs in " << differing << " of " << e.size()
        << " elements; first at element " << first << ": expected " << elementText(e, first) << ", got "
        << elementText(a, first) << "\n";
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
    std::exit(77);
  }
  setenv("LD_PRELOAD", path.c_str(), 1);
  setenv("TL_CDIFF_PRELOADED", "1", 1);
  // Leak detection on, but not at exit (the test program's own allocations and those of the
  // shell and compiler it runs are not the emitted code's): noTrackedLeaks() checks the
  // emitted functions' heap blocks explicitly.
  std::string asan = "abort_on_error=0:exitcode=1";
  if (const char *given = std::getenv("ASAN_OPTIONS"))
    asan = std::string(given) + ":" + asan;
  setenv("ASAN_OPTIONS", (asan + ":detect_leaks=1:leak_check_at_exit=0").c_str(), 1);
  setenv("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1", 0);
  execv("/proc/self/exe", argv);
  throw std::runtime_error(std::string("cannot re-run with libasan preloaded: ") + std::strerror(errno));
}

namespace {
template <typename Function> Function *sanitizerHook(const char *name) {
  return reinterpret_cast<Function *>(dlsym(RTLD_DEFAULT, name));
}
// Whether ignoreLeaksOutsideTracking turned leak tracking off. Only then does trackLeaks turn it
// on and off again: LeakSanitizer aborts on an __lsan_enable without an earlier __lsan_disable
// (a harness built with ASan, running without --sanitize).
bool trackingOff = false;
} // namespace

void ignoreLeaksOutsideTracking() {
  if (auto *disable = sanitizerHook<void()>("__lsan_disable")) {
    disable();
    trackingOff = true;
  }
}

void detail::setLeakTracking(bool on) {
  if (!trackingOff)
    return;
  if (auto *hook = sanitizerHook<void()>(on ? "__lsan_enable" : "__lsan_disable"))
    hook();
}

bool noTrackedLeaks() {
  if (!trackingOff)
    return true; // LeakSanitizer, if the harness has it, checks the whole process at exit
  auto *check = sanitizerHook<int()>("__lsan_do_recoverable_leak_check");
  return !check || check() == 0;
}

} // namespace tirlower::cdiff
