// simplify: simplifies every expression with the bounds of the enclosing loops and lets, and
// removes the branches and loops that simplification proves dead.
//
// Each maximal expression is simplified once as a whole (buffer indices start new ones), so the
// pass is linear in the size of the function. The simplifier never makes an expression larger.
//
// Preconditions: none; any well-formed function, at any point of a pipeline.
//
//   for c in range(32):                         for c in range(32):
//       B[c // 4 * 4 + c % 4] = A[c]      ->        B[c] = A[c]
//   if 0 < 1:                                   T.evaluate(0)
//       T.evaluate(0)
#include "transform/body_pass.h"
#include "transform/passes.h"

#include "transform/bound_mutator.h"

namespace tirlower {

namespace {

class Simplifier : public BoundMutator {
protected:
  using BoundMutator::visit;

  Expr visit(const BinaryNode *op) override {
    return root(op, [&] { return IRMutator::visit(op); });
  }
  Expr visit(const NotNode *op) override {
    return root(op, [&] { return IRMutator::visit(op); });
  }
  Expr visit(const SelectNode *op) override {
    return root(op, [&] { return IRMutator::visit(op); });
  }
  Expr visit(const CastNode *op) override {
    return root(op, [&] { return IRMutator::visit(op); });
  }
  Expr visit(const RampNode *op) override {
    return root(op, [&] { return IRMutator::visit(op); });
  }
  Expr visit(const BroadcastNode *op) override {
    return root(op, [&] { return IRMutator::visit(op); });
  }
  Expr visit(const CallNode *op) override {
    return root(op, [&] { return IRMutator::visit(op); });
  }
  Expr visit(const LetNode *op) override {
    return root(op, [&] { return IRMutator::visit(op); });
  }

  Expr visit(const BufferLoadNode *op) override {
    // Indices are expressions of their own: simplify each as a whole.
    int saved = std::exchange(depth_, 0);
    Expr e = IRMutator::visit(op);
    depth_ = saved;
    return e;
  }

  Stmt visit(const IfThenElseNode *op) override {
    Expr condition = mutate(op->condition);
    if (const int64_t *known = asConstInt(condition)) {
      if (*known)
        return mutate(op->thenCase);
      return op->elseCase ? mutate(op->elseCase) : SeqStmtNode::make({}, op->loc);
    }
    Stmt thenCase = mutate(op->thenCase), elseCase = mutate(op->elseCase);
    if (condition == op->condition && thenCase == op->thenCase && elseCase == op->elseCase)
      return Stmt(op);
    return IfThenElseNode::make(condition, thenCase, elseCase, op->loc);
  }

  Stmt visit(const ForNode *op) override {
    Expr extent = mutate(op->extent);
    if (const int64_t *known = asConstInt(extent); known && *known <= 0)
      return SeqStmtNode::make({}, op->loc);
    return BoundMutator::visit(op);
  }

private:
  template <typename Recurse> Expr root(const ExprNode *op, Recurse recurse) {
    bool isRoot = depth_ == 0;
    ++depth_;
    Expr e = recurse();
    --depth_;
    (void)op;
    return isRoot ? analyzer_.simplify(e) : e;
  }

  int depth_ = 0;
};

} // namespace

PassInfo simplifyPassInfo() {
  PassInfo info;
  info.name = "simplify";
  info.summary = "simplify expressions with loop bounds; drop branches and loops proven dead";
  info.functionLocal = true;
  info.create = [](const PassOptions &) {
    return std::make_unique<BodyPass>(
        [](const PrimFunc &func, PassContext &) { return Simplifier().mutate(func->body); });
  };
  return info;
}

} // namespace tirlower
