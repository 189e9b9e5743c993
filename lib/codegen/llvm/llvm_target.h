// Target machines and pass pipelines shared by the LLVM emitter's entry points (internal).
#pragma once

#include <memory>
#include <string>

#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include "codegen/llvm/llvm_emitter.h"

namespace tirlower {

// Registers every target LLVM was built with (once per process); the host's asm printer and
// parser are what object emission and the JIT need.
void initializeLLVMTargets();

// The target machine for options.targetTriple (host when empty) and options.cpu. Throws
// CompileError when LLVM has no such target.
std::unique_ptr<llvm::TargetMachine> createTargetMachine(const LLVMEmitOptions &options);

// Runs the new pass manager's default pipeline for options.optLevel (O0: the O0 pipeline,
// which only keeps always-inline semantics).
void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine, int optLevel);

// Throws CompileError (an internal error) when the module is not valid LLVM IR.
void verifyOrThrow(const llvm::Module &module, const char *stage);

} // namespace tirlower
