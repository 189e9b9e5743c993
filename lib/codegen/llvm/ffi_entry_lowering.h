// The TVM FFI entry in LLVM IR (--abi=tvm-ffi; docs/abi.md, "The TVM FFI entry"): the
// description of codegen/ffi_entry.h built as `__tvm_ffi_<symbol>` beside the function it calls.
#pragma once

#include <llvm/IR/Module.h>

#include "codegen/ffi_entry.h"

namespace tirlower {

// Adds `entry`'s function to `module`; it calls `callee`, the function of the plain C ABI.
void lowerFfiEntry(const FfiEntry &entry, llvm::Function *callee, llvm::Module &module);
// tvm-ffi's `void TVMFFIErrorSetRaisedFromCStr(const char *kind, const char *message)`, declared
// in `module`: the entry raises its errors with it, and so does the function under
// --abi=tvm-ffi when an assert (RuntimeError) or a heap allocation (MemoryError) fails.
llvm::FunctionCallee raiseFunction(llvm::Module &module);

} // namespace tirlower
