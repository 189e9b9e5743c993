// Random TIR programs for semantic fuzzing (test/semfuzz). Each program is TVMScript text (so a
// failure can be saved and fed to tirlower as it is) with one function, and a random pass
// pipeline in a valid order. The programs are valid by construction: every access is in
// bounds (index expressions carry integer intervals and are wrapped into their extent when
// they may leave it), nothing reads memory before it is written, vectorized and parallel loops
// carry no dependence between iterations, and signed integers of 32 and 64 bits never
// overflow (8-bit ones may wrap, which C and the interpreter both define).
#pragma once

#include <cstdint>
#include <string>

namespace tirlower::semfuzz {

struct GeneratedProgram {
  std::string function; // the function's name and C symbol
  std::string text;     // TVMScript, one @T.prim_func
  std::string pipeline; // pipeline text, e.g. "apply-layout-transforms,flatten,simplify"
  // The pipeline flattens every buffer to one dimension, so the C emitter and the LLVM JIT
  // take the result (false with axis separators or without flatten).
  bool compilable = false;
};

// The program for `seed`; the same seed gives the same program on every platform.
GeneratedProgram generateProgram(uint64_t seed, const std::string &functionName);

// splitmix64: the seed of program `index` of a run with seed `runSeed`.
uint64_t programSeed(uint64_t runSeed, uint64_t index);

} // namespace tirlower::semfuzz
