#include "emitters.h"

#include "codegen/json_emitter.h"
#include "codegen/tir_printer.h"

namespace tirlower {

const std::vector<Emitter> &emitters() {
  static const std::vector<Emitter> all = {
      {"tir", {".tir"}, [](const Module &m, const SourceInfo *, DiagnosticSink &) { return printModule(m); }},
      {"json",
       {".json"},
       [](const Module &m, const SourceInfo *sources, DiagnosticSink &) { return emitJson(m, sources); }},
  };
  return all;
}

const Emitter *findEmitter(const std::string &name) {
  for (const Emitter &emitter : emitters())
    if (emitter.name == name)
      return &emitter;
  return nullptr;
}

const Emitter *emitterForPath(const std::string &path) {
  for (const Emitter &emitter : emitters())
    for (const std::string &extension : emitter.extensions)
      if (path.size() > extension.size() &&
          path.compare(path.size() - extension.size(), extension.size(), extension) == 0)
        return &emitter;
  return nullptr;
}

std::string emitterNames() {
  std::string names;
  for (const Emitter &emitter : emitters())
    names += (names.empty() ? "" : ", ") + emitter.name;
  return names;
}

} // namespace tirlower
