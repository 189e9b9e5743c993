// Compiling kernels (kernel.h): thread launches, barriers, cross-thread reductions, shared
// storage, and the barriers a kernel without explicit ones implies, as the compiler's kernel
// hooks (KernelHooks, compiler.h).
#pragma once

#include <memory>

#include "interp/compiler.h"
#include "interp/kernel.h"

namespace tirlower {

constexpr int64_t kMaxThreadsPerBlock = 4096;

struct LaunchExtent {
  std::string tag;
  bool block = false, virtualThread = false;
  int dim = 0;
  ExprCodePtr extent; // evaluated when the kernel starts
  SourceRange loc;
};

// The outermost thread launch: runs `body` (its own launch included) for every thread of every
// block, the geometry being the largest extent launched per index.
class KernelCode : public StmtCode {
public:
  KernelCode(SourceRange loc, std::vector<LaunchExtent> launches, StmtCodePtr body, bool sequential,
             size_t depositStride, bool warpBarriers)
      : StmtCode(loc), launches_(std::move(launches)), body_(std::move(body)), sequential_(sequential),
        depositStride_(depositStride), warpBarriers_(warpBarriers) {}
  void exec(Frame &frame) const override;

private:
  std::vector<LaunchExtent> launches_;
  StmtCodePtr body_;
  bool sequential_;
  size_t depositStride_;
  bool warpBarriers_;
};

// The hooks through which `compiler` compiles the statements of kernels (compiler.h), for a
// function with "tirlower.explicit_barriers" (`explicitBarriers`) or without.
std::unique_ptr<KernelHooks> makeKernelHooks(Compiler &compiler, bool explicitBarriers);

} // namespace tirlower
