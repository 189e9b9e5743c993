// Turns IR into runtime code objects. Owns the variable scoping: every binding (parameter,
// loop variable, let, allocation) gets fresh slots in the frame, and a use outside any binding
// is a located error, so the interpreter also checks that the function is well scoped.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "interp/runtime.h"
#include "ir/functor.h"

namespace tirlower {

class BufferLayout;

// The points where the statements of a GPU kernel compile otherwise than a host's: thread
// launches, barriers and cross-thread reductions, storage that is one per block, which values
// differ between the threads of a block, and (before thread-sync) the barriers a kernel's
// statements imply. The statements (compile_stmt.cpp) ask these hooks and know nothing else of
// kernels; compile_kernel.h implements them (makeKernelHooks). Outside a kernel each hook does
// what the host does.
class KernelHooks {
public:
  virtual ~KernelHooks() = default;

  // A thread launch: starts a kernel, or binds a thread index inside one.
  virtual StmtCodePtr launch(const AttrStmtNode &op) = 0;
  // A thread-bound loop: a thread index inside a kernel; null outside one (it runs as a loop).
  virtual StmtCodePtr threadLoop(const ForNode &op) = 0;
  // A reduce_scope attribute: its reducer says how a T.tvm_thread_allreduce in the body combines.
  virtual StmtCodePtr reduceScope(const AttrStmtNode &op) = 0;
  // T.tvm_storage_sync and T.tvm_thread_allreduce; null for other evaluations.
  virtual StmtCodePtr threadIntrinsic(const EvaluateNode &op) = 0;
  // Whether storage (`shared`: of shared scope) is one per block here rather than fresh for each
  // execution of its body; perBlockAllocation then compiles it.
  virtual bool allocatesPerBlock(bool shared) const = 0;
  virtual StmtCodePtr perBlockAllocation(const Var &data, std::string name, DataType dtype,
                                         std::unique_ptr<BufferLayout> layout, std::vector<ExprCodePtr> extents,
                                         const Stmt &body, SourceRange loc) = 0;

  // Whether `e` may differ between the threads of a block (never outside a kernel).
  virtual bool varies(const Expr &e) const = 0;
  // `var` (bound to a value that varies) varies too.
  virtual void markVarying(const VarNode *var) = 0;
  // Whether the statement being compiled runs alike in every thread of its block from now on;
  // returns the previous answer (DivergentScope below).
  virtual bool setUniform(bool uniform) = 0;
  // Whether the statement being compiled is in a kernel that calls warp intrinsics, whose stores
  // to local storage may keep undefined values (kernel.h).
  virtual bool inWarpCollectiveKernel() const = 0;
  // A collective the threads of a kernel meet at (a warp shuffle): counted as a barrier site;
  // false outside a kernel.
  virtual bool addCollectiveSite() = 0;

  // Whether `s` goes between two implied barriers (then compiled as divergent and given to
  // withImpliedBarriers).
  virtual bool impliesBarriers(const Stmt &s) const = 0;
  virtual StmtCodePtr withImpliedBarriers(StmtCodePtr inner, SourceRange loc) = 0;
  // For a sequence: drops the leading implied barrier of a statement that follows another's
  // trailing one.
  virtual void mergeImpliedBarriers(std::vector<StmtCodePtr> &stmts) = 0;
};

// Statements and expressions compile through the typed functors: one method per node kind
// (compile_stmt.cpp, compile_expr.cpp).
class Compiler : private StmtFunctor<StmtCodePtr(const Stmt &)>, private ExprFunctor<ExprCodePtr(const Expr &)> {
public:
  ExprCodePtr expr(const Expr &e);
  StmtCodePtr stmt(const Stmt &s);

  // Gives `var` fresh slots (one per lane) until the matching unbind; returns the first slot.
  int bind(const Var &var);
  void unbind(const Var &var);
  // The slot of the innermost binding of `var`; a located error when it is not bound.
  int slotOf(const VarNode *var, SourceRange use) const;
  bool isBound(const VarNode *var) const;
  int slotCount() const { return nextSlot_; }

  // Statements compile with the hooks of GPU kernels, set before the first statement (by
  // interpreter.cpp); expressions need none.
  void setKernelHooks(KernelHooks *hooks) { kernels_ = hooks; }
  KernelHooks &kernels() const;

private:
  StmtCodePtr compileStmt(const Stmt &s);
  StmtCodePtr visitBufferStore(const BufferStoreNode *op) override;
  StmtCodePtr visitFor(const ForNode *op) override;
  StmtCodePtr visitWhile(const WhileNode *op) override;
  StmtCodePtr visitIfThenElse(const IfThenElseNode *op) override;
  StmtCodePtr visitLetStmt(const LetStmtNode *op) override;
  StmtCodePtr visitAllocate(const AllocateNode *op) override;
  StmtCodePtr visitDeclBuffer(const DeclBufferNode *op) override;
  StmtCodePtr visitAllocBuffer(const AllocBufferNode *op) override;
  StmtCodePtr visitAttrStmt(const AttrStmtNode *op) override;
  StmtCodePtr visitAssertStmt(const AssertStmtNode *op) override;
  StmtCodePtr visitEvaluate(const EvaluateNode *op) override;
  StmtCodePtr visitBlock(const BlockNode *op) override;
  StmtCodePtr visitSeqStmt(const SeqStmtNode *op) override;

  ExprCodePtr visitVar(const VarNode *op) override;
  ExprCodePtr visitIntImm(const IntImmNode *op) override;
  ExprCodePtr visitFloatImm(const FloatImmNode *op) override;
  ExprCodePtr visitStringImm(const StringImmNode *op) override;
  ExprCodePtr visitBinary(const BinaryNode *op) override;
  ExprCodePtr visitNot(const NotNode *op) override;
  ExprCodePtr visitSelect(const SelectNode *op) override;
  ExprCodePtr visitCast(const CastNode *op) override;
  ExprCodePtr visitRamp(const RampNode *op) override;
  ExprCodePtr visitBroadcast(const BroadcastNode *op) override;
  ExprCodePtr visitLet(const LetNode *op) override;
  ExprCodePtr visitCall(const CallNode *op) override;
  ExprCodePtr visitBufferLoad(const BufferLoadNode *op) override;
  std::unordered_map<const VarNode *, std::vector<int>> bindings_;
  int nextSlot_ = 0;
  KernelHooks *kernels_ = nullptr;
};

// Compiles statements with the position marked as divergent (threads may take different paths).
class DivergentScope {
public:
  DivergentScope(KernelHooks &kernels, bool divergent)
      : kernels_(divergent ? &kernels : nullptr), saved_(kernels_ ? kernels_->setUniform(false) : true) {}
  ~DivergentScope() {
    if (kernels_)
      kernels_->setUniform(saved_);
  }
  DivergentScope(const DivergentScope &) = delete;
  DivergentScope &operator=(const DivergentScope &) = delete;

private:
  KernelHooks *kernels_;
  bool saved_;
};

// Binds a variable for the lifetime of a C++ scope.
class ScopedBinding {
public:
  ScopedBinding(Compiler &compiler, const Var &var) : compiler_(compiler), var_(var), slot_(compiler.bind(var)) {}
  ~ScopedBinding() { compiler_.unbind(var_); }
  ScopedBinding(const ScopedBinding &) = delete;
  ScopedBinding &operator=(const ScopedBinding &) = delete;
  int slot() const { return slot_; }

private:
  Compiler &compiler_;
  Var var_;
  int slot_;
};

// Builders for the expression families, one file each.
ExprCodePtr makeBinaryCode(BinaryOp op, ExprCodePtr a, ExprCodePtr b, DataType type, SourceRange loc);
ExprCodePtr makeCallCode(const CallNode &call, std::vector<ExprCodePtr> args);
ExprCodePtr makeLoadCode(Compiler &compiler, const BufferLoadNode &load);
// `undefinedTolerated`: the store may keep an undefined value (a kernel with warp collectives,
// kernel.h), leaving the element uninitialised; for scalar stores to local storage at indices
// that read no memory.
StmtCodePtr makeStoreCode(Compiler &compiler, const BufferStoreNode &store, bool undefinedTolerated = false);

// Fresh, uninitialised storage of `dtype` for the product of `extents` (or what `layout` needs),
// within the interpreter's allocation limit.
std::unique_ptr<BufferData> allocateStorage(Frame &frame, SourceRange loc, const std::string &name, DataType dtype,
                                            const BufferLayout *layout, const std::vector<ExprCodePtr> &extents);

// Storage bound to a handle variable for the extent of a body: what a plain allocation (fresh
// storage each time it runs, compile_stmt.cpp) and a kernel's shared allocation (one per block,
// compile_kernel.cpp) have in common. The size is the product of the extents or what the
// declared buffer's layout needs.
class AllocationCode : public StmtCode {
public:
  AllocationCode(SourceRange loc, std::string name, DataType dtype, int slot, std::unique_ptr<BufferLayout> layout,
                 std::vector<ExprCodePtr> extents, StmtCodePtr body);
  ~AllocationCode() override;

protected:
  std::unique_ptr<BufferData> allocate(Frame &frame) const {
    return allocateStorage(frame, loc, name_, dtype_, layout_.get(), extents_);
  }
  // Binds the variable to `storage` and runs the body.
  void run(Frame &frame, BufferData *storage) const {
    frame.env[slot_].p = storage;
    body_->exec(frame);
  }

private:
  std::string name_;
  DataType dtype_;
  int slot_;
  std::unique_ptr<BufferLayout> layout_;
  std::vector<ExprCodePtr> extents_;
  StmtCodePtr body_;
};

} // namespace tirlower
