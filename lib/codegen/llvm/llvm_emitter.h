// --emit=llvm|bc|obj: LLVM IR built with the LLVM C++ API, one `define i32 @symbol(...)` per
// PrimFunc with the C ABI of SEMANTICS.md (buffers as `ptr`, scalars by value; returns 0, 1 when
// an assert fails, 2 when a heap allocation fails). See docs/llvm-emitter.md.
//
// This header names LLVM types only through forward declarations, so code that does not use
// them (the tool's driver) compiles without LLVM headers.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "ir/diagnostic.h"
#include "ir/function.h"

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace tirlower {

struct LLVMEmitOptions {
  std::string targetTriple; // empty: the host's
  int optLevel = 0;         // 0..3: the new pass manager's default pipeline (-O0 runs no optimisation)
  std::string cpu;          // empty: "generic"; "native": the host CPU and its features
  std::string features;     // "+avx2,-fma": features added to or removed from the CPU's
  // Bytes every buffer parameter's pointer is known to be aligned to (a power of two); 0 means
  // only the element alignment is assumed. Vector accesses get wider alignment only up to this.
  int paramAlignment = 0;
  // A float `a * b + c` becomes `llvm.fmuladd` (one rounding where the CPU fuses it), as TVM's
  // LLVM target lowers it; off: a multiply and an add, each rounded (the interpreter's order).
  bool fpContract = true;
  // Threads for emitObject: a module of several functions is optimised and compiled in pieces on
  // this many threads; the object is the same for any count (docs/llvm-emitter.md).
  unsigned threads = 1;
  // --abi=tvm-ffi: every function also gets its TVM FFI entry (codegen/ffi_entry.h).
  bool tvmFfi = false;
};

// Builds, verifies and (per optLevel) optimises the module. Throws CompileError for IR it cannot
// express (a buffer of physical rank > 1, an unknown intrinsic, two functions with one symbol)
// and for a module that fails llvm::verifyModule (an internal error).
std::unique_ptr<llvm::Module> buildLLVMModule(const Module &module, llvm::LLVMContext &context,
                                              const LLVMEmitOptions &options);

// Checks the target triple, CPU and features of `options` against the LLVM targets built in.
// Returns what is wrong ("unknown target triple 'x'", "'zen9' is not a CPU of x86_64: ..."),
// empty when LLVM accepts them.
std::string checkLLVMTarget(const LLVMEmitOptions &options);

// The LLVM version the emitter is built with ("15.0.6").
std::string llvmVersion();

std::string emitLLVMText(const Module &module, const LLVMEmitOptions &options);    // .ll
std::string emitLLVMBitcode(const Module &module, const LLVMEmitOptions &options); // .bc bytes
// .o bytes. A module of several functions (64-bit little-endian ELF targets) is compiled as up to
// kObjectPieces pieces of consecutive functions, each in its own LLVM context, on
// options.threads threads, and their objects joined (object_merge.h): the same bytes for any
// thread count.
std::string emitObject(const Module &module, const LLVMEmitOptions &options);
inline constexpr size_t kObjectPieces = 16;

// The C symbol of a function: its global_symbol (or name) made a C identifier; names that would
// clash with the C library or a program's `main` get a "tir_" prefix, as in the C emitter.
std::string llvmSymbolName(const PrimFuncNode &func);

// A module compiled in-process with ORC LLJIT (host target). Function addresses stay valid for
// the JitModule's lifetime.
class JitModule {
public:
  // With `packedEntryPoints`, each function also gets an entry point that takes its arguments
  // as one array, for callers that do not know the signature at compile time (callPacked).
  // `symbols` resolves external names before the process's own symbols do (a test's counting
  // malloc and free).
  explicit JitModule(const Module &module, const LLVMEmitOptions &options = {}, bool packedEntryPoints = false,
                     const std::map<std::string, void *> &symbols = {});
  ~JitModule();
  JitModule(const JitModule &) = delete;
  JitModule &operator=(const JitModule &) = delete;

  // Address of the function with this C symbol; throws CompileError when it is not defined.
  void *lookup(const std::string &symbol) const;
  template <typename FunctionPointer> FunctionPointer function(const std::string &symbol) const {
    return reinterpret_cast<FunctionPointer>(lookup(symbol));
  }
  // Calls the function with this C symbol through its packed entry point (the module was
  // built with packedEntryPoints): args[p] is parameter p's value for a buffer (its storage
  // pointer), and points to the value in its C type for a scalar (bool: one byte, 0 or 1).
  // Returns the function's result.
  int32_t callPacked(const std::string &symbol, void *const *args) const;
  // The optimised module's text, as JIT-compiled (with the packed entry points, if any).
  const std::string &irText() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace tirlower
