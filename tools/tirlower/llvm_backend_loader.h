// Loads the LLVM backend module (tirlower-llvm.so) the first time an LLVM output is asked for.
#pragma once

#include <string>

#include "codegen/llvm/llvm_backend.h"

namespace tirlower {

// The backend, loaded on the first call: TIRLOWER_LLVM_BACKEND when that is set, else
// tirlower-llvm.so beside the executable (the build tree) or at its installed place relative to
// the executable (LIBDIR/tirlower/). Returns nullptr with `error` saying where it looked and what
// failed when it cannot be found or loaded.
const LLVMBackend *loadLLVMBackend(std::string &error);

// The backend loadLLVMBackend found (the command line was checked with it first); throws
// std::runtime_error with loadLLVMBackend's message when there is none.
const LLVMBackend &llvmBackend();

} // namespace tirlower
