// lower-thread-binding: turns loops bound to threads into thread launches, as TVM's
// LowerOpaqueBlock does for GPU targets: `for v in T.thread_binding(n, thread="threadIdx.x")`
// becomes `v = T.launch_thread("threadIdx.x", n)` (a non-zero minimum is added to the thread
// index in the body), and the loop's "pragma_*" annotations become attributes around the launch.
// A thread-bound loop describes one iteration per thread but runs (in the interpreter, and as
// TVM defines schedulable TIR) like a loop; the launch runs its body in every thread at once.
//
// Storage of scope "shared" or "local" allocated outside a kernel (the root block's
// allocations) moves into the one kernel that uses it, under its outermost launch: GPU storage
// of those scopes exists per block or per thread only. Storage used by two kernels, or outside
// one, is an error at the allocation.
//
// Preconditions: blocks are lowered (lower-opaque-block).
//
//   B = T.alloc_buffer((64,), scope="shared")      with T.launch_thread("blockIdx.x", 4) as bx:
//   for bx in T.thread_binding(4, "blockIdx.x"):       B = T.alloc_buffer((64,), scope="shared")
//       for tx in T.thread_binding(64, ...):  ->       tx = T.launch_thread("threadIdx.x", 64)
//           B[tx] = A[bx * 64 + tx]                    B[tx] = A[bx * 64 + tx]
#include <algorithm>
#include <functional>

#include "ir/visitor.h"
#include "transform/body_pass.h"
#include "transform/passes.h"
#include "ir/attrs.h"
#include "ir/storage_scope.h"

namespace tirlower {

namespace {

bool isKernelScope(Symbol scope) {
  return !scope.empty() && StorageScope::parse(scope.view()).isOnChip();
}

// The outermost launches in a statement, and whether `data` is used outside them.
class KernelFinder : public IRVisitor {
public:
  explicit KernelFinder(const VarNode *data) : data_(data) {}
  std::vector<const AttrStmtNode *> kernels; // those that use `data`
  SourceRange outsideUse;                    // valid when `data` is used outside every kernel
  using IRVisitor::visit;

  void visit(const AttrStmtNode *op) override {
    if (op->isThreadLaunch() && depth_ == 0) {
      bool before = used_;
      used_ = false;
      ++depth_;
      IRVisitor::visit(op);
      --depth_;
      if (used_)
        kernels.push_back(op);
      used_ = before;
      return;
    }
    IRVisitor::visit(op);
  }
  void visit(const VarNode *op) override {
    if (op != data_)
      return;
    used_ = true;
    if (depth_ == 0 && !outsideUse.valid())
      outsideUse = current_;
  }
  void visit(const BufferLoadNode *op) override {
    visitUse(op->buffer, op->loc);
    IRVisitor::visit(op);
  }
  void visit(const BufferStoreNode *op) override {
    SourceRange saved = current_;
    current_ = op->loc;
    visitUse(op->buffer, op->loc);
    IRVisitor::visit(op);
    current_ = saved;
  }
  void visit(const DeclBufferNode *op) override {
    visitUse(op->buffer, op->loc);
    IRVisitor::visit(op);
  }

private:
  void visitUse(const Buffer &buffer, SourceRange loc) {
    if (buffer->data.get() != data_)
      return;
    SourceRange saved = current_;
    current_ = loc;
    visit(buffer->data.get());
    current_ = saved;
  }
  const VarNode *data_;
  bool used_ = false;
  int depth_ = 0;
  SourceRange current_;
};

class ThreadBindingLowerer : public IRMutator {
protected:
  using IRMutator::visit;

  Stmt visit(const ForNode *op) override {
    if (op->forKind != ForKind::ThreadBinding)
      return IRMutator::visit(op);
    ++inKernel_;
    Stmt body = mutate(op->body);
    --inKernel_;
    Var var = op->loopVar;
    if (!asConstInt(op->min) || *asConstInt(op->min) != 0) {
      Var index = VarNode::make(op->loopVar->name, op->loopVar->type, op->loopVar->loc);
      body = substitute(body, {{op->loopVar, index + op->min}});
      var = index;
    }
    std::optional<ThreadTag> tag = parseThreadTag(op->threadTag.view());
    bool virtualThread = tag && tag->kind == ThreadTag::Kind::Virtual;
    Stmt launch = AttrStmtNode::make(var, Symbol(virtualThread ? attr::kVirtualThread : attr::kThreadExtent), op->extent,
                                     body, op->loc, op->threadTag);
    // TVM keeps a thread-bound loop's pragmas as attributes around its launch.
    if (op->annotations.kind() == AttrValue::Kind::Dict) {
      const auto &entries = op->annotations.entries();
      for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
        if (it->first.rfind(attr::kPragmaPrefix, 0) != 0 || it->second.kind() != AttrValue::Kind::Int)
          continue;
        launch = AttrStmtNode::make(var, Symbol(it->first), intImm(it->second.asInt()), launch, op->loc);
      }
    }
    return launch;
  }

  Stmt visit(const AttrStmtNode *op) override {
    if (!op->isThreadLaunch())
      return IRMutator::visit(op);
    ++inKernel_;
    Stmt s = IRMutator::visit(op);
    --inKernel_;
    return s;
  }

  Stmt visit(const AllocBufferNode *op) override {
    Stmt s = IRMutator::visit(op);
    if (inKernel_ || !isKernelScope(op->buffer->scope))
      return s;
    const auto *alloc = s.as<AllocBufferNode>();
    return moveIntoKernel(alloc->body, op->buffer->data.get(), op->buffer->name, op->buffer->scope, op->loc,
                          [&](const Stmt &body) { return AllocBufferNode::make(op->buffer, body, op->loc); });
  }

  Stmt visit(const AllocateNode *op) override {
    Stmt s = IRMutator::visit(op);
    if (inKernel_ || !isKernelScope(op->scope))
      return s;
    const auto *alloc = s.as<AllocateNode>();
    return moveIntoKernel(alloc->body, op->bufferVar.get(), op->bufferVar->name, op->scope, op->loc,
                          [&](const Stmt &body) {
                            return AllocateNode::make(op->bufferVar, op->dtype, op->extents, op->scope, body, op->loc);
                          });
  }

private:
  // `body` without the allocation, which wraps the body of the one kernel that uses it.
  template <typename Wrap>
  Stmt moveIntoKernel(const Stmt &body, const VarNode *data, Symbol name, Symbol scope, SourceRange loc, Wrap wrap) {
    KernelFinder finder(data);
    finder.visit(body);
    struct AnyLaunch : IRVisitor {
      bool found = false;
      using IRVisitor::visit;
      void visit(const AttrStmtNode *op) override {
        found |= op->isThreadLaunch();
        IRVisitor::visit(op);
      }
    } any;
    any.visit(body);
    if (!any.found || finder.kernels.empty())
      return wrap(body); // not GPU code, or unused by kernels: left where it is
    if (finder.outsideUse.valid())
      throw CompileError(finder.outsideUse, "buffer '" + name.str() + "' of scope \"" + scope.str() +
                                                "\" is used outside a thread launch; GPU storage of this scope "
                                                "exists inside a kernel only");
    if (finder.kernels.size() > 1) {
      Diagnostic d{Severity::Error, loc,
                   "buffer '" + name.str() + "' of scope \"" + scope.str() +
                       "\" is used by two kernels; its contents cannot pass from one kernel to the next",
                   {}};
      d.note(finder.kernels[0]->loc, "first kernel");
      d.note(finder.kernels[1]->loc, "second kernel");
      throw CompileError(d);
    }
    const AttrStmtNode *kernel = finder.kernels[0];
    struct Mover : IRMutator {
      const AttrStmtNode *kernel;
      std::function<Stmt(const Stmt &)> wrap;
      using IRMutator::visit;
      Stmt visit(const AttrStmtNode *op) override {
        if (op != kernel)
          return IRMutator::visit(op);
        return AttrStmtNode::like(*op, op->node, op->value, wrap(op->body));
      }
    } mover;
    mover.kernel = kernel;
    mover.wrap = wrap;
    return mover.mutate(body);
  }

  int inKernel_ = 0;
};

} // namespace

PassInfo lowerThreadBindingPassInfo() {
  PassInfo info;
  info.name = "lower-thread-binding";
  info.establishes = {IRProperty::ThreadsLaunched};
  info.requirements = {IRProperty::BlocksLowered};
  info.summary = "thread-bound loops become thread launches; shared and local storage moves into its kernel";
  info.create = [](const PassOptions &) {
    return std::make_unique<BodyPass>(
        [](const PrimFunc &func, PassContext &) { return ThreadBindingLowerer().mutate(func->body); });
  };
  return info;
}

} // namespace tirlower
