// Output formats. One entry per emitter: its --emit name, the -o extensions that select it,
// and the function that renders a module. Adding an emitter is one entry in emitters.cpp.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/module_writer.h"
#include "ir/diagnostic.h"
#include "ir/function.h"
#include "transform/target.h"

namespace tirlower {

// Settings that reach the code generators.
struct EmitSettings {
  bool openmp = false;      // --openmp: T.parallel loops become OpenMP loops in C
  unsigned threads = 1;     // --threads: the C emitter writes functions on this many threads
  int optLevel = 0;         // -O0..-O3 for LLVM
  std::string targetTriple; // --target-triple for LLVM; empty = host
  std::string cpu;          // --mcpu for LLVM; empty = generic, "native" = the host's
  std::string features;     // --mattr for LLVM: "+avx2,-fma"
  bool fpContract = true;   // --fp-contract=on|off for LLVM: a*b+c as llvm.fmuladd
  bool tvmFfi = false;      // --abi=tvm-ffi: every function also gets its TVM FFI entry
  int subgroupSize = 0;     // --subgroup-size for OpenCL: warp shuffles as sub-group functions; 0: none
  const Target *target = nullptr; // --target (for --emit=so: the code it compiles, Target::sharedLibraryCode)
  std::string cc;           // --cc for --emit=so; empty: $CC, else cc
  // --tir-spelling for TVMScript output; unset = the input's own spelling.
  std::optional<ScriptSpelling> spelling;
  // --emit=h: the include guard's macro (--header-guard, else from the -o file's name); empty:
  // from the module's functions.
  std::string headerGuard;
};

struct Emitter {
  std::string name;
  std::vector<std::string> extensions; // with the dot: ".tir"
  // The target whose code this is (c, llvm, opencl); null for the IR formats (tir, json),
  // which go with any target.
  const Target *target = nullptr;
  // Bytes that are no text (object files, bitcode): not written to a terminal unless asked.
  bool binary = false;
  // Throws CompileError for IR the format cannot express; warnings go to the sink.
  std::function<std::string(const Module &, const SourceInfo *, const EmitSettings &, DiagnosticSink &)> emit;
  // Optional: `emit` writing its text as it goes, for outputs too large to hold (C): the text
  // after the head goes to the sink, and the head, known last, is returned.
  std::function<std::string(const Module &, const EmitSettings &, DiagnosticSink &,
                            const std::function<void(std::string_view)> &)>
      emitStreamed = {};
  // Optional: the emitter in parts (codegen/module_writer.h), for a module lowered and written
  // piece by piece on `workers` workers (the streamed compile, driver.cpp).
  std::function<std::unique_ptr<ModuleWriter>(const EmitSettings &, unsigned workers)> writer = {};
  // Further targets whose code this describes: the C header declares the LLVM object's
  // functions too (one calling convention, docs/abi.md).
  std::vector<const Target *> alsoTargets = {};
  // It writes declarations only (the C header): the code-generation flags of its target
  // (Target::flags) do not apply to it.
  bool declarationsOnly = false;
  // It compiles the code of the --target (Target::sharedLibraryCode) into a shared library
  // (--emit=so): the target's code-generation flags apply to it.
  bool compilesTarget = false;
};

const std::vector<Emitter> &emitters();
const Emitter *findEmitter(const std::string &name);
const Emitter *emitterForPath(const std::string &path);
// Whether an emitter's code serves a target (--target=llvm with --emit=obj, any with tir).
bool emitterServesTarget(const Emitter &emitter, const Target &target);
// "llvm, bc, obj, h": the emitters of a target's code; with `ownOnly`, those whose code is the
// target's own ("llvm, bc, obj").
std::string emittersOfTarget(const Target &target, bool ownOnly = false);
// The target whose code-generation flags apply to `emitter` under --target `target` (may be
// null): the emitter's own, the --target's for an emitter that compiles it (--emit=so), none
// for the IR formats and the declarations-only header.
const Target *codeTarget(const Emitter &emitter, const Target *target);
std::string emitterNames(); // "tir, json, ..."

} // namespace tirlower
