// Constant folding (exact: overflow and division by a constant zero are errors) and the rules
// for the operators that are not part of the canonical sum: comparisons, min/max, logic,
// truncating division, not, cast, and Ramp/Broadcast arithmetic.
#include <cmath>

#include "arith/analyzer_impl.h"
#include "arith/expr_util.h"
#include "arith/int_ops.h"
#include "ir/diagnostic.h"
#include "ir/script_expr_printer.h"

namespace tirlower {

namespace {

bool isDivision(BinaryOp op) {
  return op == BinaryOp::Div || op == BinaryOp::Mod || op == BinaryOp::FloorDiv || op == BinaryOp::FloorMod;
}

std::optional<bool> compareValues(BinaryOp op, double a, double b) {
  switch (op) {
  case BinaryOp::EQ: return a == b;
  case BinaryOp::NE: return a != b;
  case BinaryOp::LT: return a < b;
  case BinaryOp::LE: return a <= b;
  case BinaryOp::GT: return a > b;
  case BinaryOp::GE: return a >= b;
  default: return std::nullopt;
  }
}

Expr foldFloats(BinaryOp op, DataType type, double a, double b) {
  if (type.bits() != 32 && type.bits() != 64)
    return Expr(); // float16/bfloat16: no exact host arithmetic
  if (std::isnan(a) || std::isnan(b))
    return Expr();
  if (auto cmp = compareValues(op, a, b))
    return boolean(*cmp);
  double r;
  bool single = type.bits() == 32;
  switch (op) {
  case BinaryOp::Add: r = single ? double(float(a) + float(b)) : a + b; break;
  case BinaryOp::Sub: r = single ? double(float(a) - float(b)) : a - b; break;
  case BinaryOp::Mul: r = single ? double(float(a) * float(b)) : a * b; break;
  case BinaryOp::Div:
    if (b == 0)
      return Expr();
    r = single ? double(float(a) / float(b)) : a / b;
    break;
  case BinaryOp::Min: r = std::min(a, b); break;
  case BinaryOp::Max: r = std::max(a, b); break;
  default: return Expr();
  }
  if (!std::isfinite(r))
    return Expr();
  return FloatImmNode::make(type, r);
}

BinaryOp swapped(BinaryOp op) {
  switch (op) {
  case BinaryOp::LT: return BinaryOp::GT;
  case BinaryOp::LE: return BinaryOp::GE;
  case BinaryOp::GT: return BinaryOp::LT;
  case BinaryOp::GE: return BinaryOp::LE;
  default: return op;
  }
}

BinaryOp negated(BinaryOp op) {
  switch (op) {
  case BinaryOp::EQ: return BinaryOp::NE;
  case BinaryOp::NE: return BinaryOp::EQ;
  case BinaryOp::LT: return BinaryOp::GE;
  case BinaryOp::LE: return BinaryOp::GT;
  case BinaryOp::GT: return BinaryOp::LE;
  default: return BinaryOp::LT;
  }
}

// Decides `x op 0` from the bounds of x.

} // namespace

Expr boolean(bool v) {
  return IntImmNode::make(DataType::boolean(), v ? 1 : 0);
}

std::optional<bool> decideAgainstZero(BinaryOp op, const IntBounds &b) {
  bool neg = b.max && *b.max < 0, nonpos = b.max && *b.max <= 0;
  bool pos = b.min && *b.min > 0, nonneg = b.min && *b.min >= 0;
  switch (op) {
  case BinaryOp::EQ:
    return (neg || pos) ? std::optional<bool>(false) : (b.isConstant() ? std::optional<bool>(true) : std::nullopt);
  case BinaryOp::NE:
    return (neg || pos) ? std::optional<bool>(true) : (b.isConstant() ? std::optional<bool>(false) : std::nullopt);
  case BinaryOp::LT: return neg ? std::optional<bool>(true) : nonneg ? std::optional<bool>(false) : std::nullopt;
  case BinaryOp::LE: return nonpos ? std::optional<bool>(true) : pos ? std::optional<bool>(false) : std::nullopt;
  case BinaryOp::GT: return pos ? std::optional<bool>(true) : nonpos ? std::optional<bool>(false) : std::nullopt;
  case BinaryOp::GE: return nonneg ? std::optional<bool>(true) : neg ? std::optional<bool>(false) : std::nullopt;
  default: return std::nullopt;
  }
}

Expr foldConstants(BinaryOp op, const Expr &a, const Expr &b, const SourceRange &loc, const Expr &where) {
  const int64_t *x = asConstInt(a), *y = asConstInt(b);
  if (y && *y == 0 && isDivision(op) && !a->type.isFloat())
    throw CompileError(loc, "division by zero in '" + formatExpr(where) + "'");
  if (x && y) {
    // Integer arithmetic wraps as the interpreter's does (TVM's constant folder too): a
    // folded constant is never an error; only a literal the user wrote can be out of range.
    std::optional<int64_t> r = wrappingFold(op, a->type, *x, *y);
    DataType type = isComparison(op) ? DataType::boolean() : a->type;
    if (!r)
      return Expr();
    return IntImmNode::make(type, *r, loc);
  }
  auto *fx = a.as<FloatImmNode>(), *fy = b.as<FloatImmNode>();
  if (fx && fy)
    return foldFloats(op, a->type, fx->value, fy->value);
  return Expr();
}

// a - b as an exact integer; nullopt unless a and b provably compute their sums' exact values
// (their canonical sums compute them modulo 2^bits).
std::optional<LinearSum> AnalyzerImpl::difference(const Expr &a, const Expr &b) {
  if (!isCanonicalType(a->type))
    return std::nullopt;
  std::optional<LinearSum> x = toSum(a), y = toSum(b);
  if (!x || !y)
    return std::nullopt;
  if (!exact(*x) || !exact(*y) || !x->add(*y, -1))
    return std::nullopt;
  mergeSplits(*x);
  x->compact();
  return x;
}

Expr AnalyzerImpl::rewriteBinary(const BinaryNode *op, const Expr &a, const Expr &b) {
  if (Expr folded = foldConstants(op->op, a, b, op->loc, Expr(op)))
    return folded;
  if (a->type.isVector())
    return rewriteVector(op, a, b);
  if (isComparison(op->op))
    return rewriteCompare(op, a, b);
  if (op->op == BinaryOp::Min || op->op == BinaryOp::Max)
    return rewriteMinMax(op, a, b);
  if (isLogical(op->op)) {
    bool isAnd = op->op == BinaryOp::And;
    if (const int64_t *x = asConstInt(a))
      return (*x != 0) == isAnd ? b : a;
    if (const int64_t *y = asConstInt(b))
      return (*y != 0) == isAnd ? a : b;
    if (structurallyEqual(a, b))
      return a;
    return Expr();
  }
  if (a->type.isIntOrUInt() && (op->op == BinaryOp::Div || op->op == BinaryOp::Mod)) {
    const int64_t *c = asConstInt(b);
    if (!c)
      return Expr();
    if (*c == 1)
      return op->op == BinaryOp::Div ? a : IntImmNode::make(a->type, 0, op->loc);
    IntBounds range = bounds(a);
    if (*c > 0 && range.min && *range.min >= 0 && isCanonicalType(a->type)) {
      // Truncation equals flooring for a non-negative numerator.
      BinaryOp floorOp = op->op == BinaryOp::Div ? BinaryOp::FloorDiv : BinaryOp::FloorMod;
      return simplifyIntArith(BinaryNode::make(floorOp, a, b, op->loc));
    }
    return Expr();
  }
  if (a->type.isFloat() && op->op == BinaryOp::Mul) {
    if (auto *f = b.as<FloatImmNode>(); f && f->value == 1.0)
      return a;
  }
  return Expr();
}

Expr AnalyzerImpl::rewriteCompare(const BinaryNode *op, const Expr &a, const Expr &b) {
  if (!a->type.isIntOrUInt())
    return Expr();
  if (structurallyEqual(a, b))
    return boolean(op->op == BinaryOp::EQ || op->op == BinaryOp::LE || op->op == BinaryOp::GE);
  // Equal sums are equal after wrap-around too: a - b a constant that fits the type decides
  // == and != whatever the operands' bounds.
  if ((op->op == BinaryOp::EQ || op->op == BinaryOp::NE) && isCanonicalType(a->type)) {
    std::optional<LinearSum> x = toSum(a), y = toSum(b);
    if (x && y && x->add(*y, -1)) {
      x->compact();
      if (x->isConstant() && fitsType(a->type, x->constant()))
        return boolean((x->constant() == 0) == (op->op == BinaryOp::EQ));
    }
  }
  IntBounds x = bounds(a), y = bounds(b);
  // Interval test: valid for every integer type.
  IntBounds gap{x.min && y.max ? checkedSub(*x.min, *y.max) : std::nullopt,
                x.max && y.min ? checkedSub(*x.max, *y.min) : std::nullopt};
  if (auto decided = decideAgainstZero(op->op, gap))
    return boolean(*decided);
  std::optional<LinearSum> d = difference(a, b);
  if (!d)
    return Expr();
  if (auto decided = decideAgainstZero(op->op, mathBounds(*d)))
    return boolean(*decided);
  // Normal form: (terms) op constant, with the constant moved to the right.
  int64_t k = d->constant();
  if (k == INT64_MIN || !fitsType(a->type, -k))
    return Expr();
  LinearSum lhs(a->type);
  (void)lhs.add(*d);
  (void)lhs.addConstant(-k);
  BinaryOp cmp = op->op;
  if (!lhs.terms().empty() && lhs.terms()[0].coef < 0) {
    // Prefer a positive leading coefficient: -x < 3  ->  x > -3.
    if (!lhs.scale(-1) || -k == INT64_MIN)
      return Expr();
    k = -k;
    cmp = swapped(cmp);
  }
  if (!exact(lhs))
    return Expr(); // the terms may wrap where the comparison as written does not
  Expr left = lhs.toExpr();
  if (!left)
    return Expr();
  return BinaryNode::make(cmp, left, IntImmNode::make(a->type, -k), op->loc);
}

Expr AnalyzerImpl::rewriteMinMax(const BinaryNode *op, const Expr &a, const Expr &b) {
  if (structurallyEqual(a, b))
    return a;
  if (!a->type.isIntOrUInt())
    return Expr();
  bool isMin = op->op == BinaryOp::Min;
  IntBounds x = bounds(a), y = bounds(b);
  if (x.max && y.min && *x.max <= *y.min)
    return isMin ? a : b;
  if (y.max && x.min && *y.max <= *x.min)
    return isMin ? b : a;
  if (std::optional<LinearSum> d = difference(a, b)) {
    IntBounds db = mathBounds(*d);
    if (db.max && *db.max <= 0)
      return isMin ? a : b;
    if (db.min && *db.min >= 0)
      return isMin ? b : a;
  }
  return Expr();
}

Expr AnalyzerImpl::rewriteVector(const BinaryNode *op, const Expr &a, const Expr &b) {
  auto *ba = a.as<BroadcastNode>(), *bb = b.as<BroadcastNode>();
  if (ba && bb)
    return BroadcastNode::make(simplify(BinaryNode::make(op->op, ba->value, bb->value, op->loc)), ba->lanes, op->loc,
                               ba->type.isScalable());
  auto *ra = a.as<RampNode>(), *rb = b.as<RampNode>();
  auto add = [&](BinaryOp o, const Expr &x, const Expr &y) { return simplify(BinaryNode::make(o, x, y, op->loc)); };
  if (op->op == BinaryOp::Add || op->op == BinaryOp::Sub) {
    if (ra && rb)
      return RampNode::make(add(op->op, ra->base, rb->base), add(op->op, ra->stride, rb->stride), ra->lanes, op->loc,
                            ra->type.isScalable());
    if (ra && bb)
      return RampNode::make(add(op->op, ra->base, bb->value), ra->stride, ra->lanes, op->loc, ra->type.isScalable());
    if (ba && rb && op->op == BinaryOp::Add)
      return RampNode::make(add(BinaryOp::Add, ba->value, rb->base), rb->stride, rb->lanes, op->loc, rb->type.isScalable());
  }
  if (op->op == BinaryOp::Mul) {
    if (ra && bb)
      return RampNode::make(add(BinaryOp::Mul, ra->base, bb->value), add(BinaryOp::Mul, ra->stride, bb->value),
                            ra->lanes, op->loc, ra->type.isScalable());
    if (ba && rb)
      return RampNode::make(add(BinaryOp::Mul, ba->value, rb->base), add(BinaryOp::Mul, ba->value, rb->stride),
                            rb->lanes, op->loc, rb->type.isScalable());
  }
  return Expr();
}

Expr AnalyzerImpl::rewriteNot(const NotNode *op, const Expr &a) {
  if (const int64_t *v = asConstInt(a))
    return boolean(*v == 0);
  if (auto *inner = a.as<NotNode>())
    return inner->a;
  if (auto *cmp = a.as<BinaryNode>(); cmp && isComparison(cmp->op) && cmp->a->type.isIntOrUInt())
    return simplify(BinaryNode::make(negated(cmp->op), cmp->a, cmp->b, op->loc));
  return Expr();
}

Expr AnalyzerImpl::rewriteCast(const CastNode *op, const Expr &value) {
  DataType to = op->type;
  if (value->type == to)
    return value;
  if (!to.isScalar())
    return Expr();
  if (const int64_t *v = asConstInt(value)) {
    if (to.isIntOrUInt() || to.isBool()) {
      if (to.isBool())
        return boolean(*v != 0);
      // A cast keeps the low bits (two's complement), as in the interpreter, C and LLVM.
      std::optional<int64_t> wrapped = wrapToType(to, static_cast<uint64_t>(*v));
      if (!wrapped)
        return Expr();
      return IntImmNode::make(to, *wrapped, op->loc);
    }
    if (to.isFloat() && (to.bits() == 32 || to.bits() == 64)) {
      double d = to.bits() == 32 ? double(float(*v)) : double(*v);
      if (d == static_cast<double>(*v) && std::fabs(d) < 9.2e18 && static_cast<int64_t>(d) == *v)
        return FloatImmNode::make(to, d, op->loc);
    }
    return Expr();
  }
  if (auto *f = value.as<FloatImmNode>()) {
    double d = f->value;
    if (to.isIntOrUInt() && std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 9.2e18 &&
        fitsType(to, static_cast<int64_t>(d)))
      return IntImmNode::make(to, static_cast<int64_t>(d), op->loc);
    if (to.isFloat() && (to.bits() == 32 || to.bits() == 64) && (to.bits() == 64 || double(float(d)) == d))
      return FloatImmNode::make(to, d, op->loc);
  }
  return Expr();
}

} // namespace tirlower
