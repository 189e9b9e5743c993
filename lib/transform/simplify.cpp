// simplify: simplifies every expression with the bounds of the enclosing loops and lets, and
// removes the branches and loops that simplification proves dead. Inside `if c:` the condition
// c is known true (false in the else branch; both sides of a true `and` and of a false `or`), so
// an `if`, T.if_then_else or T.Select on c, its negation or its inverted comparison is decided.
// Only conditions over variables and constants are remembered (a load could change in the
// branch); an inverted order comparison (`i < n` against `i >= n`) only for integers (NaN).
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

#include <optional>
#include <vector>

#include "ir/equality.h"

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
    if (std::optional<bool> known = decide(mutate(op->condition)))
      return mutate(*known ? op->trueValue : op->falseValue);
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
    if (op->op.view() == "if_then_else" && op->args.size() == 3)
      if (std::optional<bool> known = decide(mutate(op->args[0])))
        return mutate(op->args[*known ? 1 : 2]);
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
    std::optional<bool> decided;
    if (const int64_t *known = asConstInt(condition))
      decided = *known != 0;
    else
      decided = decide(condition);
    if (decided) {
      if (*decided)
        return mutate(op->thenCase);
      return op->elseCase ? mutate(op->elseCase) : SeqStmtNode::make({}, op->loc);
    }
    size_t mark = facts_.size();
    remember(condition, true);
    Stmt thenCase = mutate(op->thenCase);
    facts_.resize(mark);
    remember(condition, false);
    Stmt elseCase = mutate(op->elseCase);
    facts_.resize(mark);
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
  struct Fact {
    Expr condition;
    bool value;
  };

  // Whether `e` depends only on variables and constants (its value cannot change in a branch).
  static bool pure(const Expr &e) {
    if (e.as<VarNode>() || e.as<IntImmNode>() || e.as<FloatImmNode>())
      return true;
    if (const BinaryNode *b = e.as<BinaryNode>())
      return pure(b->a) && pure(b->b);
    if (const NotNode *n = e.as<NotNode>())
      return pure(n->a);
    if (const CastNode *c = e.as<CastNode>())
      return pure(c->value);
    return false;
  }

  void remember(const Expr &condition, bool value) {
    if (!condition->type.isScalar() || !pure(condition))
      return;
    if (const NotNode *n = condition.as<NotNode>())
      return remember(n->a, !value);
    if (const BinaryNode *b = condition.as<BinaryNode>()) {
      if ((b->op == BinaryOp::And && value) || (b->op == BinaryOp::Or && !value)) {
        remember(b->a, value);
        remember(b->b, value);
        return;
      }
    }
    facts_.push_back({condition, value});
  }

  // The comparison that is true exactly when `op` is false, for operands of `type`.
  static std::optional<BinaryOp> inverse(BinaryOp op, DataType type) {
    switch (op) {
    case BinaryOp::EQ: return BinaryOp::NE;
    case BinaryOp::NE: return BinaryOp::EQ;
    default: break;
    }
    if (type.isFloat())
      return std::nullopt;
    switch (op) {
    case BinaryOp::LT: return BinaryOp::GE;
    case BinaryOp::GE: return BinaryOp::LT;
    case BinaryOp::LE: return BinaryOp::GT;
    case BinaryOp::GT: return BinaryOp::LE;
    default: return std::nullopt;
    }
  }

  // The value of `condition` the enclosing branches establish, if they do.
  std::optional<bool> decide(const Expr &condition) const {
    if (facts_.empty() || !condition->type.isScalar())
      return std::nullopt;
    if (const NotNode *n = condition.as<NotNode>()) {
      std::optional<bool> inner = decide(n->a);
      return inner ? std::optional<bool>(!*inner) : std::nullopt;
    }
    const BinaryNode *b = condition.as<BinaryNode>();
    for (const Fact &fact : facts_) {
      if (structurallyEqual(fact.condition, condition))
        return fact.value;
      const BinaryNode *f = fact.condition.as<BinaryNode>();
      if (b && f && isComparison(b->op) && isComparison(f->op) && structurallyEqual(b->a, f->a) &&
          structurallyEqual(b->b, f->b) && inverse(f->op, f->a->type) == b->op)
        return !fact.value;
    }
    return std::nullopt;
  }

  template <typename Recurse> Expr root(const ExprNode *op, Recurse recurse) {
    bool isRoot = depth_ == 0;
    ++depth_;
    Expr e = recurse();
    --depth_;
    (void)op;
    return isRoot ? analyzer_.simplify(e) : e;
  }

  int depth_ = 0;
  std::vector<Fact> facts_; // conditions the enclosing branches establish
};

} // namespace

PassInfo simplifyPassInfo() {
  PassInfo info;
  info.name = "simplify";
  info.summary = "simplify expressions with loop bounds; drop branches and loops proven dead";
  info.create = [](const PassOptions &) {
    return std::make_unique<BodyPass>(
        [](const PrimFunc &func, PassContext &) { return Simplifier().mutate(func->body); });
  };
  return info;
}

} // namespace tirlower
