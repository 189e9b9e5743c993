#include "emitters.h"

#include <algorithm>

#include "codegen/c_emitter.h"
#include "codegen/c_header.h"
#include "codegen/json_emitter.h"
#include "codegen/opencl/launch_json.h"
#include "codegen/opencl/opencl_emitter.h"
#include "codegen/tir_printer.h"
#include "shared_library.h"
#include "llvm_backend_loader.h"

namespace tirlower {

namespace {
LLVMEmitOptions llvmOptions(const EmitSettings &settings) {
  LLVMEmitOptions options;
  options.optLevel = settings.optLevel;
  options.targetTriple = settings.targetTriple;
  options.cpu = settings.cpu;
  options.features = settings.features;
  options.fpContract = settings.fpContract;
  options.threads = settings.threads;
  options.tvmFfi = settings.tvmFfi;
  return options;
}
CEmitOptions cOptions(const EmitSettings &settings) {
  CEmitOptions options;
  options.openmp = settings.openmp;
  options.threads = settings.threads;
  options.tvmFfi = settings.tvmFfi;
  return options;
}
} // namespace

// long-function: one table of every emitter, one entry each
const std::vector<Emitter> &emitters() {
  static const std::vector<Emitter> all = {
      {"tir",
       {".tir"},
       nullptr,
       false,
       [](const Module &m, const SourceInfo *, const EmitSettings &s, DiagnosticSink &) {
         return printModule(m, s.spelling);
       },
       {},
       [](const EmitSettings &s, unsigned) { return makeTirModuleWriter(s.spelling); }},
      {"json",
       {".json"},
       nullptr,
       false,
       [](const Module &m, const SourceInfo *sources, const EmitSettings &, DiagnosticSink &) {
         return emitJson(m, sources);
       }},
      {"c",
       {".c"},
       findTarget("c"),
       false,
       [](const Module &m, const SourceInfo *, const EmitSettings &s, DiagnosticSink &d) {
         return emitC(m, cOptions(s), d);
       },
       [](const Module &m, const EmitSettings &s, DiagnosticSink &d,
          const std::function<void(std::string_view)> &sink) { return emitCStreamed(m, cOptions(s), d, sink); },
       [](const EmitSettings &s, unsigned workers) { return makeCModuleWriter(cOptions(s), workers); }},
      {"h",
       {".h"},
       findTarget("c"),
       false,
       [](const Module &m, const SourceInfo *, const EmitSettings &s, DiagnosticSink &d) {
         return emitCHeader(m, d, s.headerGuard);
       },
       {},
       {},
       {findTarget("llvm")},
       true},
      {"llvm",
       {".ll"},
       findTarget("llvm"),
       false,
       [](const Module &m, const SourceInfo *, const EmitSettings &s, DiagnosticSink &) {
         return llvmBackend().emitText(m, llvmOptions(s));
       }},
      {"bc",
       {".bc"},
       findTarget("llvm"),
       true,
       [](const Module &m, const SourceInfo *, const EmitSettings &s, DiagnosticSink &) {
         return llvmBackend().emitBitcode(m, llvmOptions(s));
       }},
      {"obj",
       {".o"},
       findTarget("llvm"),
       true,
       [](const Module &m, const SourceInfo *, const EmitSettings &s, DiagnosticSink &) {
         return llvmBackend().emitObject(m, llvmOptions(s));
       }},
      {"so",
       {".so"},
       findTarget("c"),
       true,
       [](const Module &m, const SourceInfo *sources, const EmitSettings &s, DiagnosticSink &d) {
         const Emitter &code = *findEmitter(s.target->sharedLibraryCode);
         return buildSharedLibrary(code.emit(m, sources, s, d), code.extensions.front().c_str(), m, s);
       },
       {},
       {},
       {findTarget("llvm")},
       false,
       true},
      {"opencl",
       {".cl"},
       findTarget("opencl"),
       false,
       [](const Module &m, const SourceInfo *, const EmitSettings &s, DiagnosticSink &d) {
         return emitOpenCL(m, d, {s.subgroupSize});
       }},
      {"launch",
       {".launch.json"},
       findTarget("opencl"),
       false,
       [](const Module &m, const SourceInfo *, const EmitSettings &s, DiagnosticSink &d) {
         return emitLaunchJson(m, d, {s.subgroupSize});
       }},
      {"launch-h",
       {".launch.h"},
       findTarget("opencl"),
       false,
       [](const Module &m, const SourceInfo *, const EmitSettings &s, DiagnosticSink &d) {
         return emitLaunchHeader(m, d, {s.subgroupSize});
       }},
  };
  return all;
}

const Emitter *findEmitter(const std::string &name) {
  for (const Emitter &emitter : emitters())
    if (emitter.name == name)
      return &emitter;
  return nullptr;
}

// The longest extension wins: "k.launch.json" is launch, "k.json" json.
const Emitter *emitterForPath(const std::string &path) {
  const Emitter *found = nullptr;
  size_t foundLength = 0;
  for (const Emitter &emitter : emitters())
    for (const std::string &extension : emitter.extensions)
      if (path.size() > extension.size() && extension.size() > foundLength &&
          path.compare(path.size() - extension.size(), extension.size(), extension) == 0) {
        found = &emitter;
        foundLength = extension.size();
      }
  return found;
}

bool emitterServesTarget(const Emitter &emitter, const Target &target) {
  return !emitter.target || emitter.target == &target ||
         std::find(emitter.alsoTargets.begin(), emitter.alsoTargets.end(), &target) != emitter.alsoTargets.end();
}

std::string emittersOfTarget(const Target &target, bool ownOnly) {
  std::string names;
  for (const Emitter &emitter : emitters())
    if (ownOnly ? emitter.target == &target : emitter.target && emitterServesTarget(emitter, target))
      names += (names.empty() ? "" : ", ") + emitter.name;
  return names;
}

const Target *codeTarget(const Emitter &emitter, const Target *target) {
  if (emitter.declarationsOnly)
    return nullptr;
  return emitter.compilesTarget ? target : emitter.target;
}

std::string emitterNames() {
  std::string names;
  for (const Emitter &emitter : emitters())
    names += (names.empty() ? "" : ", ") + emitter.name;
  return names;
}

} // namespace tirlower
