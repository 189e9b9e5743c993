// Analyzer entry points and the node-by-node simplification walk. Every rewrite is compared
// with the input rebuilt from simplified children, and the smaller one wins, so simplify never
// grows an expression.
#include <algorithm>
#include <cmath>

#include "arith/analyzer_impl.h"
#include "arith/expr_util.h"
#include "arith/int_ops.h"
#include "ir/diagnostic.h"
#include "ir/functor.h"
#include "ir/intrinsics.h"
#include "ir/visitor.h"

namespace tirlower {

namespace {
// TVM's form of a comparison: `a > b` is `b < a` and `a >= b` is `b <= a` (the same for floats:
// both are false with a NaN).
Expr lessThanForm(const Expr &e) {
  const auto *cmp = e.as<BinaryNode>();
  if (!cmp || (cmp->op != BinaryOp::GT && cmp->op != BinaryOp::GE))
    return e;
  return BinaryNode::make(cmp->op == BinaryOp::GT ? BinaryOp::LT : BinaryOp::LE, cmp->b, cmp->a, e->loc);
}
} // namespace

void Analyzer::bindRange(const Var &var, const Expr &min, const Expr &extent) {
  Bound &b = bound_[var.get()];
  b.var = var;
  b.min = min;
  b.extent = extent;
}

void Analyzer::bindRange(const Var &var, int64_t min, int64_t extent) {
  bindRange(var, IntImmNode::make(var->type, min), IntImmNode::make(var->type, extent));
}

void Analyzer::bindValue(const Var &var, const Expr &value) {
  Bound &b = bound_[var.get()];
  b.var = var;
  b.value = value;
}

void Analyzer::unbind(const Var &var) {
  bound_.erase(var.get());
}

Expr Analyzer::simplify(const Expr &e) {
  if (!e || e->kind() == ExprKind::IntImm || e->kind() == ExprKind::FloatImm || e->kind() == ExprKind::StringImm)
    return e; // constants are simplest already
  if (const auto *var = e.as<VarNode>()) {
    // What SimplifyFunctor::visitVar does, without setting up a query: its constant value.
    const Expr *value = valueOf(var);
    return value && asConstInt(*value) && (*value)->type == e->type ? *value : e;
  }
  if (Expr settled = settledWithoutWalk(e))
    return settled;
  if (isCanonicalVarSum(e) || knownSimplified(e, false))
    return e;
  size_t hash = 0;
  const bool byStructure = simplifiedScopeOpen() && e->type.isIndex();
  if (byStructure) {
    hash = structuralHash(e);
    if (Expr known = knownAnswer(e, hash))
      return known;
  }
  Expr result = AnalyzerImpl(*this).simplify(e);
  bool walkResult = result.same(e) || exprCost(result) <= exprCost(e);
  // An unchanged expression keeps its nodes: the passes see "unchanged", rebuild nothing, and
  // the next analyzer finds it among the simplified ones.
  if (!walkResult || (!result.same(e) && structurallyEqual(result, e)))
    result = e;
  if (byStructure)
    rememberAnswer(e, hash, result);
  if (simplifiedScopeOpen())
    rememberSimplified(result, walkResult);
  return result;
}

// Without the walk, what it would return for the operators layout maps and flatten apply to
// every index, on a variable x with no value bound and a constant range [lo, hi], lo >= 0:
//   x // k, x % k (k > 1): when every x in range has the quotient 0, 0 and x; when the quotient
//                          varies, the split itself;
//   x < k, x <= k, ... (k constant): true or false when the range decides it, else itself.
// Null otherwise (the walk decides). Each first simplification of one cost a walk through the
// canonical form and the bounds.
Expr Analyzer::settledWithoutWalk(const Expr &e) const {
  const auto *op = e.as<BinaryNode>();
  if (!op)
    return {};
  const bool split = op->op == BinaryOp::FloorDiv || op->op == BinaryOp::FloorMod;
  if (!split && !isComparison(op->op))
    return {};
  const auto *x = op->a.as<VarNode>();
  const int64_t *k = asConstInt(op->b);
  if (!x || !k || !isCanonicalType(x->type) || op->b->type != x->type || (split && *k <= 1))
    return {};
  const Bound *b = bound_.find(x);
  if (!b || b->value || !b->min)
    return {};
  const int64_t *lo = asConstInt(b->min), *extent = asConstInt(b->extent);
  if (!lo || !extent || *lo < 0 || *extent < 1)
    return {};
  std::optional<int64_t> hi = checkedAdd(*lo, *extent - 1);
  if (!hi)
    return {};
  if (!split) {
    IntBounds gap{checkedSub(*lo, *k), checkedSub(*hi, *k)};
    std::optional<bool> decided = decideAgainstZero(op->op, gap);
    return decided ? boolean(*decided) : lessThanForm(e);
  }
  if (*hi / *k != *lo / *k)
    return e; // the quotient varies
  if (*lo / *k != 0)
    return {};
  return op->op == BinaryOp::FloorDiv ? IntImmNode::make(e->type, 0) : op->a;
}

// A sum of distinct atoms with positive constant coefficients, `c // 4 * 1024 + h * 64 + w * 4 +
// c % 4`, each atom a variable or a split of one (`x // k`, `x % k`) that this scope already
// holds as simplified: the canonical form of the sum is the sum itself (terms stay in order of
// first appearance; LinearSum::toExpr writes `atom * coef` and omits a coefficient of 1), so the
// walk would return it unchanged. Flatten makes one for every access through a multi-axis
// buffer, and such a first simplification cost as much as the rest of the pass. Excluded: a
// variable with a constant value bound (the walk substitutes it; any other value only bounds it), an atom twice (its
// terms merge), and splits of one variable that mergeSplits joins (`x % k * c + x // k * (c * k)`).
bool Analyzer::isCanonicalVarSum(const Expr &e) {
  if (!isCanonicalType(e->type))
    return false;
  struct Atom {
    const VarNode *var;
    BinaryOp split; // Add: the variable itself
    int64_t divisor, coef;
  };
  Atom seen[8];
  size_t count = 0;
  auto term = [&](const Expr &t) {
    const Expr *atom = &t;
    int64_t coef = 1;
    if (const auto *mul = t.as<BinaryNode>(); mul && mul->op == BinaryOp::Mul) {
      const int64_t *c = asConstInt(mul->b);
      if (!c || *c <= 1 || mul->b->type != e->type)
        return false;
      coef = *c;
      atom = &mul->a;
    }
    Atom found{atom->as<VarNode>(), BinaryOp::Add, 0, coef};
    if (const auto *split = atom->as<BinaryNode>()) {
      const int64_t *k = asConstInt(split->b);
      if ((split->op != BinaryOp::FloorDiv && split->op != BinaryOp::FloorMod) || !k || *k <= 1 ||
          split->b->type != e->type || !simplify(*atom).same(*atom))
        return false;
      found = Atom{split->a.as<VarNode>(), split->op, *k, coef};
    }
    if (!found.var || found.var->type != e->type || count == std::size(seen))
      return false;
    if (const Expr *value = valueOf(found.var); value && asConstInt(*value))
      return false;
    for (size_t k = 0; k < count; ++k) {
      const Atom &other = seen[k];
      if (other.var != found.var)
        continue;
      // Two splits of the variable, one of each kind; they merge when the quotient's coefficient
      // is the remainder's times the divisor.
      if (other.split == BinaryOp::Add || found.split == BinaryOp::Add || other.split == found.split)
        return false;
      const Atom &mod = found.split == BinaryOp::FloorMod ? found : other;
      const Atom &div = found.split == BinaryOp::FloorMod ? other : found;
      if (mod.divisor == div.divisor && checkedMul(mod.coef, mod.divisor) == div.coef)
        return false;
    }
    seen[count++] = found;
    return true;
  };
  const Expr *rest = &e;
  while (const auto *add = rest->as<BinaryNode>()) {
    if (add->op != BinaryOp::Add)
      break;
    if (!term(add->b))
      return false;
    rest = &add->a;
  }
  return rest != &e && term(*rest);
}

IntBounds Analyzer::bounds(const Expr &e) {
  AnalyzerImpl impl(*this);
  IntBounds raw = impl.bounds(e);
  if (!e->type.isIndex())
    return raw;
  Expr simplified = impl.simplify(e);
  IntBounds better = impl.bounds(simplified);
  // Both are sound; keep the tighter end of each.
  if (raw.min && (!better.min || *raw.min > *better.min))
    better.min = raw.min;
  if (raw.max && (!better.max || *raw.max < *better.max))
    better.max = raw.max;
  return better;
}

bool Analyzer::canProve(const Expr &condition) {
  return AnalyzerImpl(*this).canProve(condition);
}

bool Analyzer::canProveEqual(const Expr &a, const Expr &b) {
  if (structurallyEqual(a, b))
    return true;
  if (a->type != b->type || !a->type.isIndex())
    return false;
  return canProve(BinaryNode::make(BinaryOp::EQ, a, b));
}

bool AnalyzerImpl::canProve(const Expr &condition) {
  Expr c = simplify(condition);
  if (const int64_t *v = asConstInt(c))
    return *v != 0;
  if (auto *b = c.as<BinaryNode>()) {
    if (b->op == BinaryOp::And)
      return canProve(b->a) && canProve(b->b);
    if (b->op == BinaryOp::Or)
      return canProve(b->a) || canProve(b->b);
  }
  return false;
}

Expr AnalyzerImpl::simplify(const Expr &e) {
  if (letDepth_ == 0) {
    if (const auto *cached = memo_.find(e.get()))
      return cached->second;
    if (owner_.isCanonicalVarSum(e) || owner_.knownSimplified(e, true))
      return e;
  }
  Expr result = simplifyNode(e);
  if (letDepth_ == 0)
    memo_.insert(e.get(), std::make_pair(e, result));
  return result;
}

namespace {
bool sameList(const std::vector<Expr> &a, const std::vector<Expr> &b) {
  for (size_t k = 0; k < a.size(); ++k)
    if (!a[k].same(b[k]))
      return false;
  return true;
}

Expr smaller(const Expr &candidate, const Expr &fallback) {
  if (!candidate)
    return fallback;
  return exprCost(candidate) <= exprCost(fallback) ? candidate : fallback;
}
} // namespace

// One method per node kind; `e` is the node itself, returned when nothing simplifies.
class AnalyzerImpl::SimplifyFunctor : public ExprFunctor<Expr(const Expr &, const Expr &)> {
public:
  explicit SimplifyFunctor(AnalyzerImpl &impl) : impl_(impl) {}

protected:
  // Constants and strings are already simple.
  Expr visitExprDefault(const ExprNode *, const Expr &e) override { return e; }

  Expr visitVar(const VarNode *op, const Expr &e) override {
    const Expr *value = impl_.owner_.valueOf(op);
    if (value && asConstInt(*value) && (*value)->type == e->type)
      return *value;
    return e;
  }

  Expr visitBinary(const BinaryNode *op, const Expr &e) override {
    bool arith = op->op == BinaryOp::Add || op->op == BinaryOp::Sub || op->op == BinaryOp::Mul ||
                 op->op == BinaryOp::FloorDiv || op->op == BinaryOp::FloorMod;
    if (arith && isCanonicalType(e->type))
      return impl_.simplifyIntArith(e);
    Expr a = impl_.simplify(op->a), b = impl_.simplify(op->b);
    Expr rebuilt = a.same(op->a) && b.same(op->b) ? e : BinaryNode::make(op->op, a, b, e->loc);
    return lessThanForm(smaller(impl_.rewriteBinary(op, a, b), rebuilt));
  }

  Expr visitNot(const NotNode *op, const Expr &e) override {
    Expr a = impl_.simplify(op->a);
    Expr rebuilt = a.same(op->a) ? e : NotNode::make(a, e->loc);
    return smaller(impl_.rewriteNot(op, a), rebuilt);
  }

  Expr visitSelect(const SelectNode *op, const Expr &e) override {
    Expr c = impl_.simplify(op->condition), t = impl_.simplify(op->trueValue), f = impl_.simplify(op->falseValue);
    if (const int64_t *v = asConstInt(c))
      return *v ? t : f;
    if (structurallyEqual(t, f) && c->type.isScalar())
      return t;
    if (c.same(op->condition) && t.same(op->trueValue) && f.same(op->falseValue))
      return e;
    return SelectNode::make(c, t, f, e->loc);
  }

  Expr visitCast(const CastNode *op, const Expr &e) override {
    Expr v = impl_.simplify(op->value);
    Expr rebuilt = v.same(op->value) ? e : CastNode::make(e->type, v, e->loc);
    return smaller(impl_.rewriteCast(op, v), rebuilt);
  }

  Expr visitRamp(const RampNode *op, const Expr &e) override {
    Expr base = impl_.simplify(op->base), stride = impl_.simplify(op->stride);
    if (const int64_t *s = asConstInt(stride); s && *s == 0)
      return BroadcastNode::make(base, op->lanes, e->loc, op->type.isScalable());
    if (base.same(op->base) && stride.same(op->stride))
      return e;
    return RampNode::make(base, stride, op->lanes, e->loc, op->type.isScalable());
  }

  Expr visitBroadcast(const BroadcastNode *op, const Expr &e) override {
    Expr v = impl_.simplify(op->value);
    return v.same(op->value) ? e : BroadcastNode::make(v, op->lanes, e->loc, op->type.isScalable());
  }

  Expr visitLet(const LetNode *op, const Expr &e) override {
    Expr value = impl_.simplify(op->value);
    const Expr *had = impl_.owner_.valueOf(op->var.get());
    bool hadValue = had != nullptr;
    Expr previous = hadValue ? *had : Expr();
    impl_.owner_.bindValue(op->var, value);
    ++impl_.letDepth_;
    Expr body;
    try {
      body = impl_.simplify(op->body);
    } catch (...) {
      --impl_.letDepth_;
      impl_.owner_.unbind(op->var);
      throw;
    }
    --impl_.letDepth_;
    impl_.owner_.unbind(op->var);
    if (hadValue)
      impl_.owner_.bindValue(op->var, previous);
    if (!usesAnyVar(body, {op->var}))
      return body;
    if (value.same(op->value) && body.same(op->body))
      return e;
    return LetNode::make(op->var, value, body, e->loc);
  }

  Expr visitCall(const CallNode *op, const Expr &e) override {
    std::vector<Expr> args;
    for (const Expr &a : op->args)
      args.push_back(impl_.simplify(a));
    if (Expr folded = foldMath(op, args))
      return folded;
    return sameList(args, op->args) ? e : CallNode::make(e->type, op->op, std::move(args), e->loc);
  }

  // A math function of float32 or float64 constants, computed as the interpreter computes it (the
  // row's function; float32 in float): `T.log2(T.float64(14.0))`. Not when the result is not
  // finite.
  static Expr foldMath(const CallNode *op, const std::vector<Expr> &args) {
    const IntrinsicInfo *info = op->intrinsic;
    DataType type = op->type;
    if (!info || info->eval != IntrinsicEval::Math || !type.isScalar() || !type.isFloat() ||
        (type.bits() != 32 && type.bits() != 64) || args.empty() || args.size() > 2)
      return Expr();
    double x[2] = {0, 0};
    for (size_t k = 0; k < args.size(); ++k) {
      const auto *f = args[k].as<FloatImmNode>();
      if (!f || f->type != type)
        return Expr();
      x[k] = f->value;
    }
    bool binary = args.size() == 2;
    double r;
    if (type.bits() == 64) {
      if (binary ? !info->f64x2 : !info->f64)
        return Expr();
      r = binary ? info->f64x2(x[0], x[1]) : info->f64(x[0]);
    } else {
      if (binary ? !info->f32x2 : !info->f32)
        return Expr();
      float fx = static_cast<float>(x[0]), fy = static_cast<float>(x[1]);
      r = binary ? info->f32x2(fx, fy) : info->f32(fx);
    }
    if (!std::isfinite(r))
      return Expr();
    return FloatImmNode::make(type, r, op->loc);
  }

  Expr visitBufferLoad(const BufferLoadNode *op, const Expr &e) override {
    std::vector<Expr> indices;
    for (const Expr &i : op->indices)
      indices.push_back(impl_.simplify(i));
    return sameList(indices, op->indices) ? e : BufferLoadNode::make(op->buffer, std::move(indices), e->loc);
  }

private:
  AnalyzerImpl &impl_;
};

Expr AnalyzerImpl::simplifyNode(const Expr &e) {
  return SimplifyFunctor(*this).visitExpr(e, e);
}

} // namespace tirlower
