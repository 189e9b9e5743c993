// Target machines and pass pipelines shared by the LLVM emitter's entry points (internal).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include "codegen/llvm/llvm_emitter.h"

namespace tirlower {

// Registers every target LLVM was built with (once per process); the host's asm printer and
// parser are what object emission and the JIT need.
void initializeLLVMTargets();

// The CPU and features options name: "generic" when empty; "native" is the host's CPU and its
// features, followed by options.features ("+avx2,-fma"). The target machine and the JIT use it.
struct TargetCpu {
  std::string cpu;
  std::string features; // comma-separated
  std::vector<std::string> featureList() const;
};
TargetCpu targetCpuOf(const LLVMEmitOptions &options);

// The CPU --mcpu=native tunes for, from the name LLVM gives the host and the host's CPUID vendor
// and family. LLVM 15 names only the CPUs it knows, and a newer one comes back as "generic": the
// baseline x86-64's scheduling model and tuning, which with the host's AVX-512 features costs
// hardware gathers as cheap and schedules wide vector code badly (on an AMD Zen 5, family 1Ah,
// a batch_matmul took 2.2x the time of the same code tuned as znver3). A Zen 3 or later that
// LLVM does not know is tuned as znver3, the newest Zen it knows; the features stay the host's
// own (getHostCPUFeatures), so no instruction the host lacks is used. Any other name is kept.
std::string tuningCpuFor(const std::string &llvmHostName, const std::string &vendor, unsigned family);

// The target machine for options.targetTriple (host when empty) and options.cpu. Throws
// CompileError when LLVM has no such target.
std::unique_ptr<llvm::TargetMachine> createTargetMachine(const LLVMEmitOptions &options);

// The -O2/-O3 pipeline (docs/llvm-emitter.md, "Target and pipelines"), as the textual pipeline
// `opt -passes=` takes: function passes only, run function by function. The emitted functions
// call nothing that could be inlined, so LLVM's interprocedural default pipeline is overhead;
// these are the passes that shape loop kernels: promotion to registers, full unrolling of
// short loops and promotion of their accumulators (LICM), loop and SLP vectorisation, and
// runtime unrolling (loop-unroll<O2> or <O3>).
std::string kernelPipeline(int optLevel);

// Runs the pipeline of optLevel: O0, LLVM's O0 pipeline (it only keeps always-inline
// semantics); O1, LLVM's per-module default O1 pipeline; O2 and O3, kernelPipeline(optLevel);
// then, above O0, signOpsAsBits. Throws CompileError when optLevel is not in 0..3.
void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine, int optLevel);

// Rewrites each negation (fneg) and absolute value (llvm.fabs) of float16 or bfloat16 values,
// scalars and vectors, as what they are: an xor or an and of the sign bit, on the value's bits.
// LLVM 15's x86 backend legalises both lane by lane through float when the target has no
// float16 arithmetic (AVX512-FP16): a 32-lane fneg (instcombine's form of `x * -1.0`) costs
// about 200 instructions instead of one vpxor. Runs after the optimisation pipeline, whose
// instcombine would fold the bits back into fneg. Results are identical, NaNs included: IEEE
// negate and abs change only the sign bit.
void signOpsAsBits(llvm::Module &module);

// Throws CompileError (an internal error) when the module is not valid LLVM IR.
void verifyOrThrow(const llvm::Module &module, const char *stage);

} // namespace tirlower
