// Output formats. One entry per emitter: its --emit name, the -o extensions that select it,
// and the function that renders a module. Adding an emitter is one entry in emitters.cpp.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/function.h"

namespace tirlower {

struct Emitter {
  std::string name;
  std::vector<std::string> extensions; // with the dot: ".tir"
  // Throws CompileError for IR the format cannot express; warnings go to the sink.
  std::function<std::string(const Module &, const SourceInfo *, DiagnosticSink &)> emit;
};

const std::vector<Emitter> &emitters();
const Emitter *findEmitter(const std::string &name);
const Emitter *emitterForPath(const std::string &path);
std::string emitterNames(); // "tir, json"

} // namespace tirlower
