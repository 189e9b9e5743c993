// What the differential tests of the C emitter share (test/cdiff/c_diff.cpp and
// test/semfuzz): running the system C compiler, calling emitted functions through generated
// shims, and comparing buffers with the reference interpreter's.
#pragma once

#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "interp/interpreter.h"
#include "ir/function.h"
#include "parse/parser.h"
#include "transform/pass_options.h"

namespace tirlower::cdiff {

// [begin, end) ranges of the inputs of `text` separated by lines that are exactly "# -----"
// (trailing blanks allowed); the whole text when `split` is false.
std::vector<ParseRange> inputRanges(const std::string &text, bool split);

// `module` through a pipeline ("flatten,simplify"); nullopt when a pass fails (reported to sink).
// `flags`: the tool flags that give pass options ({"--subgroup-size", "32"}).
std::optional<Module> lowerModule(const Module &module, const std::string &pipeline, DiagnosticSink &sink,
                                  const PassOptions &flags = {});

// Runs a shell command, returning its exit status and its combined output.
int shell(const std::string &command, std::string &output);

// `text` single-quoted for the shell.
std::string quote(const std::string &text);

// The C symbols of the emitted functions, in module order: the definitions "int32_t NAME(" at
// the start of a line.
std::vector<std::string> definedSymbols(const std::string &source);

// `int32_t tl_call_K(void **args)`: calls function K with its arguments unpacked from an array
// of pointers (to the buffer storage, or to a scalar's value).
std::string callShim(const PrimFuncNode &func, size_t k, const std::string &symbol);

// The bytes of a scalar argument in its C type.
std::vector<uint8_t> scalarBytes(const ArgValue &arg);

// The array of pointers a shim takes for `args`; `scalars` keeps the scalars' bytes alive.
std::vector<void *> shimArguments(std::vector<ArgValue> &args, std::vector<std::vector<uint8_t>> &scalars);

// Element `k` of a buffer as text.
std::string elementText(const BufferData &buffer, size_t k);

// Compares every buffer argument byte for byte; prints the first difference of each buffer to
// `out`, prefixed with `what`, and returns the number of buffers that differ.
int compareBuffers(const std::string &what, const PrimFuncNode &func, const std::vector<ArgValue> &expected,
                   const std::vector<ArgValue> &actual, std::ostream &out = std::cerr);

// "ok", "assert failed: ...", "error: ...".
std::string describe(const RunResult &result);

// With -fsanitize=address the instrumented library needs the ASan runtime loaded first: re-runs
// this program (argv) once with the compiler's libasan preloaded. Exits 77 when the compiler has
// no ASan runtime.
void preloadSanitizerRuntime(char **argv);

// Leak detection for the emitted code under the preloaded ASan runtime: LeakSanitizer counts
// only heap blocks allocated inside trackLeaks (the emitted function's call), not the test
// program's own. All three do nothing when the runtime is not loaded; trackLeaks and
// noTrackedLeaks also do nothing unless ignoreLeaksOutsideTracking ran (the --sanitize variant).
void ignoreLeaksOutsideTracking(); // once, before the test allocates anything it keeps
// Runs LeakSanitizer now: false (and its report on stderr) when a tracked block leaked.
bool noTrackedLeaks();
namespace detail {
void setLeakTracking(bool on);
}
template <typename Call> auto trackLeaks(Call call) {
  detail::setLeakTracking(true);
  auto result = call();
  detail::setLeakTracking(false);
  return result;
}

} // namespace tirlower::cdiff
