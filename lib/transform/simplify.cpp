// simplify: simplifies every expression with the bounds of the enclosing loops and lets, and
// removes the branches and loops that simplification proves dead, and stores of an element to
// itself (`A[i] = A[i]`). Inside `if c:` the condition
// c is known true (false in the else branch; both sides of a true `and` and of a false `or`; in
// the values of T.if_then_else(c, ...) likewise), so
// an `if`, T.if_then_else or T.Select on c, its negation, its inverted comparison or a
// comparison of the same integer expression with another constant (`n < 5` decides `n < 10`) is
// decided, and so is any comparison of the same form in the branch; one side of an `and` or `or`
// decides the other likewise (`n < 5 and n < 10` -> `n < 5`). A comparison of the same two
// integer expressions is narrowed to the outcomes both admit (`if i <= j:` makes `j <= i` into
// `j == i`).
// Only conditions over variables and constants are remembered (a load could change in the
// branch); an inverted order comparison (`i < n` against `i >= n`) only for integers (NaN).
// A let whose value reads no memory and calls nothing with effects is inlined, as TVM 0.27's
// simplify does: its value replaces the variable in the body (which then simplifies knowing it,
// `c = i < 3; if c:` is decided inside `if i < 3:`), and the binding stays. Not where a
// statement in the body binds a variable the value reads again.
//
// With `booleans=and-of-ors` (TVM's convert_boolean_to_and_of_ors), each outermost `and`/`or`
// is then rewritten as an `and` of `or` groups and simplified group by group
// (arith/and_of_ors.h): `(i == 0 or k == 20) and (i == 0 or k != 30)` -> `i == 0 or k == 20`.
// That form may be larger than the input, so it is off by default, as in TVM.
//
// Each maximal expression is simplified once as a whole (buffer indices start new ones), so the
// pass is linear in the size of the function (an inlined let's value is walked at each use). The
// simplifier never makes an expression larger.
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

#include "arith/and_of_ors.h"
#include "arith/expr_util.h"
#include "ir/equality.h"
#include "ir/intrinsics.h"
#include "transform/pass_options.h"

namespace tirlower {

namespace {

class Simplifier : public BoundMutator {
public:
  explicit Simplifier(bool andOfOrs) : andOfOrs_(andOfOrs) {}

protected:
  using BoundMutator::visit;

  Expr visit(const BinaryNode *op) override {
    if ((op->op == BinaryOp::And || op->op == BinaryOp::Or) && op->type.isScalar()) {
      bool outermost = depth_ == 0;
      Expr e = root(op, [&] { return logical(op); });
      if (!outermost || !andOfOrs_)
        return e;
      // Each pair the form asks about is simplified as an expression of its own, without the
      // form again.
      andOfOrs_ = false;
      e = asAndOfOrs(e, [&](const Expr &pair) { return mutate(pair); });
      andOfOrs_ = true;
      return e;
    }
    Expr e = root(op, [&] { return IRMutator::visit(op); });
    // A comparison the enclosing branches decide, or narrow.
    if (isComparison(op->op) && !facts_.empty()) {
      if (std::optional<bool> known = decide(e))
        return IntImmNode::make(DataType::boolean(), *known ? 1 : 0, op->loc);
      for (const Fact &fact : facts_)
        e = narrowed(fact, e);
    }
    return e;
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
    if (op->op.view() != "if_then_else" || op->args.size() != 3)
      return root(op, [&] { return IRMutator::visit(op); });
    // The condition is an expression of its own (simplified as a whole, as facts are).
    int saved = std::exchange(depth_, 0);
    Expr c = mutate(op->args[0]);
    depth_ = saved;
    if (std::optional<bool> known = decide(c))
      return mutate(op->args[*known ? 1 : 2]);
    // Each value knows the condition (only the chosen one is evaluated).
    return root(op, [&] {
      size_t mark = facts_.size();
      remember(c, true);
      Expr t = mutate(op->args[1]);
      facts_.resize(mark);
      remember(c, false);
      Expr f = mutate(op->args[2]);
      facts_.resize(mark);
      if (c == op->args[0] && t == op->args[1] && f == op->args[2])
        return Expr(op);
      return CallNode::make(op->type, op->op, {c, t, f}, op->loc);
    });
  }
  Expr visit(const LetNode *op) override {
    return root(op, [&] {
      Shadow shadowed = shadow(op->var.get());
      Expr e = IRMutator::visit(op);
      unshadow(shadowed);
      return e;
    });
  }
  Expr visit(const VarNode *op) override {
    // The value is walked where it is used, knowing what the branches there establish.
    for (auto it = inlined_.rbegin(); it != inlined_.rend(); ++it)
      if (it->var == op)
        return it->live ? mutate(it->value) : Expr(op);
    return Expr(op);
  }

  Stmt visit(const LetStmtNode *op) override {
    Expr value = mutate(op->value);
    Shadow shadowed = shadow(op->var.get());
    inlined_.back().value = value;
    inlined_.back().live = inlinable(value);
    if (value->type.isIndex())
      analyzer_.bindValue(op->var, value);
    Stmt body = mutate(op->body);
    analyzer_.unbind(op->var);
    unshadow(shadowed);
    if (value == op->value && body == op->body)
      return Stmt(op);
    return LetStmtNode::make(op->var, value, body, op->loc);
  }
  Stmt visit(const AttrStmtNode *op) override {
    Shadow shadowed = shadow(op->threadVar());
    Stmt s = BoundMutator::visit(op);
    unshadow(shadowed);
    return s;
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

  // A store of the value just loaded from the same element does nothing (as TVM's simplify).
  Stmt visit(const BufferStoreNode *op) override {
    Stmt s = BoundMutator::visit(op);
    const auto *store = s.as<BufferStoreNode>();
    if (const auto *load = store ? store->value.as<BufferLoadNode>() : nullptr;
        load && load->buffer == store->buffer && structurallyEqual(load->indices, store->indices))
      return SeqStmtNode::make({}, op->loc);
    return s;
  }

  Stmt visit(const ForNode *op) override {
    Expr extent = mutate(op->extent);
    if (const int64_t *known = asConstInt(extent); known && *known <= 0)
      return SeqStmtNode::make({}, op->loc);
    Shadow shadowed = shadow(op->loopVar.get());
    Stmt s = BoundMutator::visit(op);
    unshadow(shadowed);
    return s;
  }

private:
  struct Fact {
    Expr condition;
    bool value;
  };

  // A let in scope: its value replaces the variable while `live`.
  struct Inlined {
    const VarNode *var;
    Expr value;
    bool live;
  };
  // What binding a variable suspended (shadow/unshadow).
  struct Shadow {
    size_t mark;
    std::vector<size_t> suspended;
  };

  // Whether a let's value may replace its variable: it reads no memory and calls nothing with
  // effects (TVM's pure values), and is not a handle.
  static bool inlinable(const Expr &value) {
    if (value->type.isHandle())
      return false;
    struct Finder : IRVisitor {
      bool found = false;
      using IRVisitor::visit;
      void visit(const BufferLoadNode *) override { found = true; }
      void visit(const CallNode *op) override {
        found |= !op->intrinsic || op->intrinsic->effect >= CallEffect::EmbedInfo;
        IRVisitor::visit(op);
      }
    } finder;
    finder.visit(value);
    return !finder.found;
  }

  // `var` is bound (again) for a scope: it is itself there, and the values that read it are not
  // inlined there (they mean the outer binding).
  Shadow shadow(const VarNode *var) {
    Shadow s{inlined_.size(), {}};
    if (!var)
      return s;
    for (size_t k = 0; k < inlined_.size(); ++k)
      if (inlined_[k].live && usesVar(inlined_[k].value, var)) {
        inlined_[k].live = false;
        s.suspended.push_back(k);
      }
    inlined_.push_back({var, Expr(), false});
    return s;
  }
  void unshadow(const Shadow &s) {
    inlined_.resize(s.mark);
    for (size_t k : s.suspended)
      inlined_[k].live = true;
  }

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
    if (const int64_t *known = asConstInt(condition); known && condition->type.isBool())
      return *known != 0;
    if (facts_.empty() || !condition->type.isScalar())
      return std::nullopt;
    if (const NotNode *n = condition.as<NotNode>()) {
      std::optional<bool> inner = decide(n->a);
      return inner ? std::optional<bool>(!*inner) : std::nullopt;
    }
    for (const Fact &fact : facts_)
      if (std::optional<bool> known = implied(fact, condition))
        return known;
    return std::nullopt;
  }

  // A comparison with a constant written with the constant on the right (`7 <= n` as `n >= 7`,
  // the form simplify prints being TVM's).
  struct Comparison {
    Expr a;
    BinaryOp op;
    Expr b;
  };
  static std::optional<Comparison> constantRight(const BinaryNode *n) {
    if (!n || !isComparison(n->op))
      return std::nullopt;
    if (asConstInt(n->a) && !asConstInt(n->b)) {
      BinaryOp op = n->op == BinaryOp::LT   ? BinaryOp::GT
                    : n->op == BinaryOp::LE ? BinaryOp::GE
                    : n->op == BinaryOp::GT ? BinaryOp::LT
                    : n->op == BinaryOp::GE ? BinaryOp::LE
                                            : n->op;
      return Comparison{n->b, op, n->a};
    }
    return Comparison{n->a, n->op, n->b};
  }

  // The value of `condition` when `fact` holds, if it follows: the same condition, its inverted
  // comparison, or a comparison of the same integer expression with another constant (`n < 5`
  // gives `n < 10` and not `n >= 7`; nothing is computed, so nothing can wrap).
  static std::optional<bool> implied(const Fact &fact, const Expr &condition) {
    if (structurallyEqual(fact.condition, condition))
      return fact.value;
    const BinaryNode *b = condition.as<BinaryNode>(), *f = fact.condition.as<BinaryNode>();
    if (std::optional<int> known = knownOutcomes(fact, condition)) {
      int admitted = outcomes(b->op) & *known;
      if (admitted == 0 || admitted == *known)
        return admitted != 0;
      return std::nullopt;
    }
    std::optional<Comparison> qc = constantRight(b), fc = constantRight(f);
    if (!qc || !fc || !structurallyEqual(qc->a, fc->a))
      return std::nullopt;
    if (structurallyEqual(qc->b, fc->b) && inverse(fc->op, fc->a->type) == qc->op)
      return !fact.value;
    const int64_t *c1 = asConstInt(fc->b), *c2 = asConstInt(qc->b);
    DataType type = fc->a->type;
    // (A uint64 constant may not fit int64.)
    if (!c1 || !c2 || !type.isIndex() || (type.isUInt() && type.bits() == 64))
      return std::nullopt;
    // The interval of the shared left side the fact leaves.
    std::optional<BinaryOp> op = fact.value ? std::optional<BinaryOp>(fc->op) : inverse(fc->op, type);
    if (!op || *op == BinaryOp::NE)
      return std::nullopt;
    __int128 lo = INT64_MIN, hi = INT64_MAX, c = *c1;
    switch (*op) {
    case BinaryOp::LT: hi = c - 1; break;
    case BinaryOp::LE: hi = c; break;
    case BinaryOp::GT: lo = c + 1; break;
    case BinaryOp::GE: lo = c; break;
    default: lo = hi = c; break; // EQ
    }
    const __int128 q = *c2;
    auto verdict = [](bool alwaysTrue, bool alwaysFalse) -> std::optional<bool> {
      if (alwaysTrue)
        return true;
      if (alwaysFalse)
        return false;
      return std::nullopt;
    };
    switch (qc->op) {
    case BinaryOp::LT: return verdict(hi < q, lo >= q);
    case BinaryOp::LE: return verdict(hi <= q, lo > q);
    case BinaryOp::GT: return verdict(lo > q, hi <= q);
    case BinaryOp::GE: return verdict(lo >= q, hi < q);
    case BinaryOp::EQ: return verdict(lo == q && hi == q, q < lo || q > hi);
    default: return verdict(q < lo || q > hi, lo == q && hi == q); // NE
    }
  }

  // Which of a < b, a == b, a > b a comparison admits (bits 1, 2, 4).
  static int outcomes(BinaryOp op) {
    switch (op) {
    case BinaryOp::LT: return 1;
    case BinaryOp::EQ: return 2;
    case BinaryOp::GT: return 4;
    case BinaryOp::LE: return 3;
    case BinaryOp::GE: return 6;
    default: return 5; // NE
    }
  }
  static BinaryOp comparisonOf(int outcomes) {
    static const BinaryOp ops[] = {BinaryOp::NE, BinaryOp::LT, BinaryOp::EQ, BinaryOp::LE,
                                   BinaryOp::GT, BinaryOp::NE, BinaryOp::GE, BinaryOp::NE};
    return ops[outcomes];
  }

  // The outcomes of comparing `condition`'s two operands (as outcomes() numbers them) that
  // `fact` leaves, when both compare the same two integer expressions (in either order).
  static std::optional<int> knownOutcomes(const Fact &fact, const Expr &condition) {
    const BinaryNode *q = condition.as<BinaryNode>(), *f = fact.condition.as<BinaryNode>();
    if (!q || !f || !isComparison(q->op) || !isComparison(f->op) || !q->a->type.isIndex() ||
        !f->a->type.isIndex())
      return std::nullopt;
    int known = outcomes(f->op);
    if (structurallyEqual(q->a, f->b) && structurallyEqual(q->b, f->a))
      known = (known & 2) | (known & 1 ? 4 : 0) | (known & 4 ? 1 : 0); // the fact seen from q's side
    else if (!structurallyEqual(q->a, f->a) || !structurallyEqual(q->b, f->b))
      return std::nullopt;
    return fact.value ? known : 7 & ~known;
  }

  // `condition` knowing `fact`, when both compare the same two integer expressions: the
  // comparison of the outcomes both admit (inside `if i <= j:`, `j <= i` is `j == i` and `i != j`
  // is `i < j`); `condition` itself otherwise. No arithmetic, so nothing can wrap; integers only
  // (floats have NaN, which is none of <, ==, >).
  static Expr narrowed(const Fact &fact, const Expr &condition) {
    std::optional<int> known = knownOutcomes(fact, condition);
    if (!known)
      return condition;
    const BinaryNode *q = condition.as<BinaryNode>();
    int admitted = outcomes(q->op) & *known;
    if (admitted == 0 || admitted == *known)
      return IntImmNode::make(DataType::boolean(), admitted ? 1 : 0, q->loc);
    if (admitted == outcomes(q->op))
      return condition;
    BinaryOp op = comparisonOf(admitted);
    // TVM's form of an equality with a constant: the constant on the right.
    if ((op == BinaryOp::EQ || op == BinaryOp::NE) && q->a.as<IntImmNode>() && !q->b.as<IntImmNode>())
      return BinaryNode::make(op, q->b, q->a, q->loc);
    return BinaryNode::make(op, q->a, q->b, q->loc);
  }

  // `a and b` / `a or b` where one side decides the other: b is simplified knowing a (true for
  // `and`, false for `or`), and a knowing b. `n < 5 and n < 10` -> `n < 5`; `n < 5 or n < 10` ->
  // `n < 10`. Otherwise the operation of the simplified sides.
  Expr logical(const BinaryNode *op) {
    bool isAnd = op->op == BinaryOp::And;
    Expr a = mutate(op->a), b = mutate(op->b);
    Expr same = a == op->a && b == op->b ? Expr(op) : BinaryNode::make(op->op, a, b, op->loc);
    if (!pure(a) || !pure(b))
      return same;
    // Under `and`, a side known true is dropped, one known false decides the whole; under `or`
    // the reverse.
    for (int side = 0; side < 2; ++side) {
      const Expr &known = side == 0 ? a : b, &other = side == 0 ? b : a;
      std::optional<bool> v = implied({known, isAnd}, other);
      if (!v)
        continue;
      if (*v == isAnd) // the other side adds nothing
        return known;
      return IntImmNode::make(DataType::boolean(), isAnd ? 0 : 1, op->loc);
    }
    return same;
  }

  template <typename Recurse> Expr root(const ExprNode *op, Recurse recurse) {
    bool isRoot = depth_ == 0;
    ++depth_;
    Expr e = recurse();
    --depth_;
    (void)op;
    return isRoot ? analyzer_.simplify(e) : e;
  }

  bool andOfOrs_;
  std::vector<Inlined> inlined_; // the lets in scope, innermost last
  int depth_ = 0;
  std::vector<Fact> facts_; // conditions the enclosing branches establish
};

} // namespace

const PassOption<std::string> kBooleans{
    choiceOption("booleans", {"as-written", "and-of-ors"}, "as-written",
                 "as-written: `and`/`or` keep their grouping; and-of-ors: each is rewritten as an `and` of `or` groups, "
                 "simplified group by group (TVM's convert_boolean_to_and_of_ors)")};

PassInfo simplifyPassInfo() {
  PassInfo info;
  info.name = "simplify";
  info.summary = "simplify expressions with loop bounds; drop branches and loops proven dead";
  info.options = {kBooleans};
  info.create = [](const PassOptions &options) {
    bool andOfOrs = kBooleans.of(options) == "and-of-ors";
    return std::make_unique<BodyPass>(
        [andOfOrs](const PrimFunc &func, PassContext &) { return Simplifier(andOfOrs).mutate(func->body); });
  };
  return info;
}

} // namespace tirlower
