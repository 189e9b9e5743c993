// The command line of tirlower, parsed with CLI11 into plain data. Every misuse exits 2 with a
// `tirlower: error:` diagnostic (or its JSON form under --diagnostics-format=json).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "emitters.h"
#include "parse/diagnostic_engine.h"

namespace tirlower {

enum class TimingFormat { None, Text, Json };

struct ToolOptions {
  std::string input;                   // "-" for stdin
  std::string output = "-";            // "-" for stdout
  bool outputGiven = false;            // -o on the command line (also "-o -")
  std::string emit;                    // resolved emitter name ("tir", "json")
  std::vector<std::string> passFlags;  // each --pass value: pipeline text
  std::optional<std::string> pipeline; // --pass-pipeline
  std::vector<std::string> passPlugins; // --load-pass-plugin: shared libraries adding passes
  bool listPasses = false;
  bool printPipeline = false; // --print-pipeline: print the pipeline that would run, and exit
  bool splitInputFile = false;
  bool verifyDiagnostics = false;
  bool verifyRoundtrip = false;
  bool verifyEach = true;
  bool printIrAfterAll = false;
  std::vector<std::string> printIrAfter; // pass names (canonical after validation)
  std::string printIrTreeDir;
  TimingFormat timing = TimingFormat::None;
  bool remarks = false;
  unsigned threads = 1; // --threads: workers of function-local passes and emitters (default: the core count)
  DiagnosticFormat diagnosticsFormat = DiagnosticFormat::Text;
  std::vector<std::string> transformLayouts;   // "B=lambda i, j: [j, i]"
  std::vector<std::string> layouts;            // "B=NHWC->NCHW4c"
  std::vector<std::string> requiredLayouts;    // --require-layout: "B=NCHW4c", "A=NCHW4c:texture"
  std::string layoutVerify;                    // --layout-verify=error|warn; empty when not given
  EmitSettings emitSettings;                   // --openmp, -O, --target-triple, --mcpu, --mattr
  const Target *target = nullptr;              // --target (c, llvm, opencl); null if none
  bool verifySemantics = false;                // --verify-semantics
  uint64_t seed = 1;                           // --seed: random inputs of run / --verify-semantics
  uint64_t maxSteps = 100'000'000;             // --max-steps: loop iterations of one interpreter run
  uint64_t maxBufferBytes = uint64_t(1) << 30; // --max-buffer-bytes: storage of one buffer in the interpreter
  int vscale = 2;                              // --vscale: the value of T.vscale() in the interpreter
  int warpSize = 32;                           // --warp-size: the lanes of a warp in the interpreter
  // `tirlower run FILE`: run a function (after the pipeline, if any) and write its outputs.
  bool runMode = false;
  std::string runFunction;      // --func; empty: the only function
  std::vector<std::string> runInputs;  // --inputs: a JSON file and/or NAME=FILE.npy; none: random inputs
  std::vector<std::string> runOutputs; // --outputs / -o: JSON file or "-", NAME=FILE.npy, FILE.npy; none: "-"
  bool runTable = false;               // --outputs-format=table (default when the JSON goes to a terminal)
};

// Parses argv. Returns the exit code when the tool should stop now (--help, --version: 0;
// misuse: 2, after printing the reason), nullopt to go on.
std::optional<int> parseCommandLine(int argc, char **argv, ToolOptions &options);

// "tirlower: error: MESSAGE" on stderr, or its JSON form under --diagnostics-format=json.
void printToolError(const std::string &message);
void printToolWarning(const std::string &message);

} // namespace tirlower
