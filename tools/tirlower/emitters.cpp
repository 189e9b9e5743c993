#include "emitters.h"

#include "codegen/c_emitter.h"
#include "codegen/json_emitter.h"
#include "codegen/llvm/llvm_emitter.h"
#include "codegen/opencl/opencl_emitter.h"
#include "codegen/tir_printer.h"

namespace tirlower {

namespace {
LLVMEmitOptions llvmOptions(const EmitSettings &settings) {
  LLVMEmitOptions options;
  options.optLevel = settings.optLevel;
  options.targetTriple = settings.targetTriple;
  return options;
}
} // namespace

const std::vector<Emitter> &emitters() {
  static const std::vector<Emitter> all = {
      {"tir",
       {".tir"},
       [](const Module &m, const SourceInfo *, const EmitSettings &s, DiagnosticSink &) {
         return printModule(m, s.spelling);
       }},
      {"json",
       {".json"},
       [](const Module &m, const SourceInfo *sources, const EmitSettings &, DiagnosticSink &) {
         return emitJson(m, sources);
       }},
      {"c",
       {".c"},
       [](const Module &m, const SourceInfo *, const EmitSettings &s, DiagnosticSink &d) {
         CEmitOptions options;
         options.openmp = s.openmp;
         return emitC(m, options, d);
       }},
      {"llvm",
       {".ll"},
       [](const Module &m, const SourceInfo *, const EmitSettings &s, DiagnosticSink &) {
         return emitLLVMText(m, llvmOptions(s));
       }},
      {"bc",
       {".bc"},
       [](const Module &m, const SourceInfo *, const EmitSettings &s, DiagnosticSink &) {
         return emitLLVMBitcode(m, llvmOptions(s));
       }},
      {"obj",
       {".o"},
       [](const Module &m, const SourceInfo *, const EmitSettings &s, DiagnosticSink &) {
         return emitObject(m, llvmOptions(s));
       }},
      {"opencl",
       {".cl"},
       [](const Module &m, const SourceInfo *, const EmitSettings &, DiagnosticSink &d) { return emitOpenCL(m, d); }},
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
