// Output formats. One entry per emitter: its --emit name, the -o extensions that select it,
// and the function that renders a module. Adding an emitter is one entry in emitters.cpp.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/function.h"

namespace tirlower {

// Settings that reach the code generators.
struct EmitSettings {
  bool openmp = false;      // --openmp: T.parallel loops become OpenMP loops in C
  int optLevel = 0;         // -O0..-O3 for LLVM
  std::string targetTriple; // --target-triple for LLVM; empty = host
  // --tir-spelling for TVMScript output; unset = the input's own spelling.
  std::optional<ScriptSpelling> spelling;
};

struct Emitter {
  std::string name;
  std::vector<std::string> extensions; // with the dot: ".tir"
  // Throws CompileError for IR the format cannot express; warnings go to the sink.
  std::function<std::string(const Module &, const SourceInfo *, const EmitSettings &, DiagnosticSink &)> emit;
};

const std::vector<Emitter> &emitters();
const Emitter *findEmitter(const std::string &name);
const Emitter *emitterForPath(const std::string &path);
std::string emitterNames(); // "tir, json, ..."

} // namespace tirlower
