// The entry point of the shared module tirlower-llvm.so: the LLVM emitter's table
// (llvm_backend.h). The module is linked with libLLVM and the emitter; the IR it is handed
// belongs to the program that loaded it.
#include "codegen/llvm/llvm_backend.h"

extern "C" __attribute__((visibility("default"))) const tirlower::LLVMBackend *tirlower_llvm_backend() {
  static const tirlower::LLVMBackend table{tirlower::kLLVMBackendInterface,
                                           sizeof(tirlower::LLVMEmitOptions),
                                           &tirlower::llvmVersion,
                                           &tirlower::checkLLVMTarget,
                                           &tirlower::emitLLVMText,
                                           &tirlower::emitLLVMBitcode,
                                           &tirlower::emitObject};
  return &table;
}
