// The LLVM emitter as a table of entry points, for a program that loads it at run time: the
// tirlower tool opens the shared module tirlower-llvm.so (llvm_backend.cpp, linked with libLLVM)
// only when an LLVM output is asked for, so that its other targets do not pay for the dynamic
// loader relocating libLLVM at start-up (docs/architecture.md, "The LLVM backend module").
#pragma once

#include <string>

#include "codegen/llvm/llvm_emitter.h"

namespace tirlower {

struct LLVMBackend {
  // Both sides are built from one source tree: a module from another build is refused when
  // these differ from the loader's.
  unsigned interfaceVersion;
  unsigned optionsSize; // sizeof(LLVMEmitOptions)
  std::string (*version)();
  std::string (*checkTarget)(const LLVMEmitOptions &options);
  std::string (*emitText)(const Module &module, const LLVMEmitOptions &options);
  std::string (*emitBitcode)(const Module &module, const LLVMEmitOptions &options);
  std::string (*emitObject)(const Module &module, const LLVMEmitOptions &options);
};

inline constexpr unsigned kLLVMBackendInterface = 1;
// The C symbol the module exports: `const LLVMBackend *tirlower_llvm_backend(void)`.
inline constexpr const char *kLLVMBackendEntry = "tirlower_llvm_backend";

} // namespace tirlower
