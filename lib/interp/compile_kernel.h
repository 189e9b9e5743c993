// Compiling kernels (kernel.h): thread launches, barriers, cross-thread reductions, shared
// storage, and the barriers a kernel without explicit ones implies.
#pragma once

#include <unordered_map>
#include <unordered_set>

#include "interp/compiler.h"
#include "interp/kernel.h"

namespace tirlower {

constexpr int64_t kMaxThreadsPerBlock = 4096;

// The kernel being compiled: what decides where its threads must meet.
struct KernelScope {
  // Before thread-sync (no "tirlower.explicit_barriers" attribute) the kernel means what its
  // statements compute one after another for all threads: a barrier is implied before and after
  // every statement that writes shared storage where all threads run alike.
  bool implicitBarriers = true;
  bool uniform = true; // the statement being compiled runs alike in every thread of the block
  std::unordered_set<const VarNode *> varying;          // values that differ between the threads of a block
  std::unordered_map<const VarNode *, ThreadTag> launch; // launched variables in scope
  std::array<int64_t, 3> constLocal{1, 1, 1};           // launched thread extents when constant (else 0)
  int barrierSites = 0;                                  // barriers and reductions compiled
  int depositStride = 0;                                 // cells per thread the reductions need
  // It calls warp intrinsics: stores to local storage may keep undefined values (kernel.h).
  bool warpCollectives = false;
  bool warpBarriers = false; // it has T.tvm_storage_sync("warp")
};

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

StmtCodePtr compileLaunch(Compiler &compiler, const AttrStmtNode &op);
StmtCodePtr compileThreadLoopInKernel(Compiler &compiler, const ForNode &op);
StmtCodePtr compileReduceScope(Compiler &compiler, const AttrStmtNode &op);
// T.tvm_storage_sync and T.tvm_thread_allreduce; null for other evaluations.
StmtCodePtr compileThreadIntrinsic(Compiler &compiler, const EvaluateNode &op);
// Storage of scope "shared" inside a kernel: one per block.
StmtCodePtr compileSharedAllocation(Compiler &compiler, const Var &data, std::string name, DataType dtype,
                                    std::unique_ptr<BufferLayout> layout, std::vector<ExprCodePtr> extents,
                                    const Stmt &body, SourceRange loc);

// Whether `e` may differ between the threads of a block (it reads a thread index, a value derived
// from one, or memory).
bool isVarying(const KernelScope &kernel, const Expr &e);
// Whether `s` stores to shared storage.
bool writesShared(const Stmt &s);
// `inner` between two implied barriers (the first is skipped right after another one).
StmtCodePtr withImpliedBarriers(Compiler &compiler, StmtCodePtr inner, SourceRange loc);
// For a sequence: drops the leading implied barrier of a statement that follows another's
// trailing one.
void mergeImpliedBarriers(std::vector<StmtCodePtr> &stmts);

// Compiles statements with the position marked as divergent (threads may take different paths).
class DivergentScope {
public:
  DivergentScope(Compiler &compiler, bool divergent)
      : kernel_(divergent ? compiler.kernel : nullptr), saved_(kernel_ ? kernel_->uniform : true) {
    if (kernel_)
      kernel_->uniform = false;
  }
  ~DivergentScope() {
    if (kernel_)
      kernel_->uniform = saved_;
  }
  DivergentScope(const DivergentScope &) = delete;
  DivergentScope &operator=(const DivergentScope &) = delete;

private:
  KernelScope *kernel_;
  bool saved_;
};

} // namespace tirlower
