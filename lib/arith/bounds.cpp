// Interval bounds: constant intervals propagated through the expression, with variables
// bounded by their bindings (ranges from loops and index maps, values from lets) and by their
// type. Integers wrap around as the interpreter computes them (docs/passes.md, simplify): a
// sum, difference or product that may leave its type's range is unbounded, so every bound is
// one of the value the program computes.
#include <algorithm>

#include "arith/analyzer_impl.h"
#include "arith/int_ops.h"
#include "ir/functor.h"
#include "ir/intrinsics.h"

namespace tirlower {

namespace {

using Bound = std::optional<int64_t>;

Bound add(Bound a, Bound b) {
  return a && b ? checkedAdd(*a, *b) : std::nullopt;
}

IntBounds addBounds(const IntBounds &a, const IntBounds &b) {
  return {add(a.min, b.min), add(a.max, b.max)};
}

IntBounds negate(const IntBounds &a) {
  return {a.max ? checkedSub(0, *a.max) : std::nullopt, a.min ? checkedSub(0, *a.min) : std::nullopt};
}

IntBounds scaleBounds(const IntBounds &a, int64_t c) {
  Bound lo = a.min ? checkedMul(*a.min, c) : std::nullopt, hi = a.max ? checkedMul(*a.max, c) : std::nullopt;
  if (c >= 0)
    return {lo, hi};
  return {hi, lo};
}

IntBounds multiplyBounds(const IntBounds &a, const IntBounds &b) {
  if (a.isConstant())
    return scaleBounds(b, *a.min);
  if (b.isConstant())
    return scaleBounds(a, *b.min);
  if (!a.min || !a.max || !b.min || !b.max)
    return {};
  IntBounds r{INT64_MAX, INT64_MIN};
  for (int64_t x : {*a.min, *a.max})
    for (int64_t y : {*b.min, *b.max}) {
      auto p = checkedMul(x, y);
      if (!p)
        return {};
      r.min = std::min(*r.min, *p);
      r.max = std::max(*r.max, *p);
    }
  return r;
}

IntBounds unite(const IntBounds &a, const IntBounds &b) {
  return {a.min && b.min ? std::optional(std::min(*a.min, *b.min)) : std::nullopt,
          a.max && b.max ? std::optional(std::max(*a.max, *b.max)) : std::nullopt};
}

// Integers whose bounds this file tracks as int64 values, wrap-around included. uint64 values
// of 2^63 and more have no int64 bound: a uint64 bound says the value is below 2^63, and an
// unknown uint64 operand is only known to be at least 0.
bool wrapsInInt64(DataType type) {
  return type.isInt() || type.isUInt();
}
bool boundedAbove(DataType type) {
  return !(type.isUInt() && type.bits() == 64);
}

// TIR integers wrap around: a value computed outside its type's range may be any value of the
// type, so such bounds say nothing.
IntBounds wrapped(IntBounds b, DataType type) {
  if (!wrapsInInt64(type))
    return b;
  if ((b.min && (*b.min < typeMin(type) || *b.min > typeMax(type))) ||
      (b.max && (*b.max < typeMin(type) || *b.max > typeMax(type))))
    return {};
  return b;
}

// An operand of + - *: its open ends are its type's (every value fits its type), so that the
// result is bounded only when it provably stays in range.
IntBounds filled(IntBounds b, DataType type) {
  if (!wrapsInInt64(type))
    return b;
  if (!b.min)
    b.min = typeMin(type);
  if (!b.max && boundedAbove(type))
    b.max = typeMax(type);
  return b;
}

// The result of + - * on operands of `type`: both ends or neither (one open end may hide a
// wrap that makes the other end wrong).
IntBounds arithmetic(IntBounds b, DataType type) {
  b = wrapped(b, type);
  if (wrapsInInt64(type) && (!b.min || !b.max))
    return {};
  return b;
}

IntBounds clampToType(IntBounds b, DataType type, bool wraps = true) {
  if (wraps)
    b = wrapped(b, type);
  // Narrow types bound their values; 32- and 64-bit signed values count as unbounded (a
  // symbolic shape is not assumed to be small), unsigned ones as non-negative.
  bool narrow = type.isBool() || (type.isIntOrUInt() && type.bits() < 32);
  if (narrow || type.isUInt()) {
    if (!b.min || *b.min < typeMin(type))
      b.min = typeMin(type);
  }
  if (narrow && (!b.max || *b.max > typeMax(type)))
    b.max = typeMax(type);
  return b;
}

IntBounds divideBounds(const IntBounds &a, int64_t c, bool floor) {
  auto div = [&](int64_t x) { return floor ? floorDiv(x, c) : truncDiv(x, c); };
  Bound lo = a.min ? div(*a.min) : std::nullopt, hi = a.max ? div(*a.max) : std::nullopt;
  if (c > 0)
    return {lo, hi};
  return {hi, lo};
}

IntBounds floorModBounds(const IntBounds &a, int64_t c) {
  if (c > 0 && a.min && a.max) {
    auto lo = floorDiv(*a.min, c), hi = floorDiv(*a.max, c);
    if (lo && hi && *lo == *hi)
      return {*floorMod(*a.min, c), *floorMod(*a.max, c)};
  }
  return c > 0 ? IntBounds{0, c - 1} : IntBounds{c + 1, 0};
}

IntBounds truncModBounds(const IntBounds &a, int64_t c) {
  int64_t m = c == INT64_MIN ? INT64_MAX : std::abs(c) - 1;
  if (a.min && *a.min >= 0)
    return {0, a.max ? std::min(*a.max, m) : m};
  if (a.max && *a.max <= 0)
    return {a.min ? std::max(*a.min, -m) : -m, 0};
  return {-m, m};
}

} // namespace

// The sum's value as an exact integer (no wrap-around), from its atoms' bounds.
IntBounds AnalyzerImpl::mathBounds(const LinearSum &s) {
  const DataType type = s.type();
  const bool fill = !owner_.noOverflow_;
  auto atomBounds = [&](const Expr &atom) { return fill ? filled(bounds(atom), type) : bounds(atom); };
  IntBounds total = IntBounds::exactly(s.constant());
  for (const Term &t : s.terms()) {
    IntBounds mono = atomBounds(t.atoms[0]);
    for (size_t k = 1; k < t.atoms.size(); ++k)
      mono = multiplyBounds(mono, atomBounds(t.atoms[k]));
    total = addBounds(total, scaleBounds(mono, t.coef));
  }
  return total;
}

// The sum's value as its type computes it: bounded only when it provably does not wrap, so
// that known bounds also say that the sum's exact value is what it computes.
IntBounds AnalyzerImpl::bounds(const LinearSum &s) {
  if (owner_.noOverflow_)
    return clampToType(mathBounds(s), s.type(), false);
  return clampToType(arithmetic(mathBounds(s), s.type()), s.type());
}

bool AnalyzerImpl::exact(const LinearSum &s) {
  if (owner_.noOverflow_)
    return true;
  IntBounds b = arithmetic(mathBounds(s), s.type());
  return b.min && b.max;
}

IntBounds AnalyzerImpl::bounds(const Expr &e) {
  if (letDepth_ == 0) {
    if (const auto *cached = boundsMemo_.find(e.get()))
      return cached->second;
  }
  IntBounds result = clampToType(boundsNode(e), e->type, !owner_.noOverflow_);
  if (letDepth_ == 0)
    boundsMemo_.insert(e.get(), std::make_pair(e, result));
  return result;
}

// Bounds of integer and boolean expressions, one method per node kind (constants are handled
// before dispatch); the other kinds are unbounded.
class AnalyzerImpl::BoundsFunctor : public ExprFunctor<IntBounds(const Expr &)> {
public:
  explicit BoundsFunctor(AnalyzerImpl &impl) : impl_(impl), owner_(impl.owner_) {}

protected:
  IntBounds visitExprDefault(const ExprNode *) override { return {}; }

  IntBounds visitVar(const VarNode *var) override {
    if (const Expr *value = owner_.valueOf(var))
      return impl_.bounds(*value);
    if (const Analyzer::Bound *range = owner_.rangeOf(var)) {
      IntBounds lo = impl_.bounds(range->min), extent = impl_.bounds(range->extent);
      Bound hi = add(lo.max, extent.max);
      return {lo.min, hi ? checkedSub(*hi, 1) : std::nullopt};
    }
    return {};
  }

  IntBounds visitBinary(const BinaryNode *op) override {
    if (isComparison(op->op) || isLogical(op->op))
      return {0, 1};
    IntBounds a = impl_.bounds(op->a), b = impl_.bounds(op->b);
    const int64_t *c = asConstInt(op->b);
    const DataType type = op->type;
    switch (op->op) {
    case BinaryOp::Add:
      if (owner_.noOverflow_)
        return addBounds(a, b);
      return arithmetic(addBounds(filled(a, type), filled(b, type)), type);
    case BinaryOp::Sub:
      if (owner_.noOverflow_)
        return addBounds(a, negate(b));
      return arithmetic(addBounds(filled(a, type), negate(filled(b, type))), type);
    case BinaryOp::Mul:
      if (owner_.noOverflow_)
        return multiplyBounds(a, b);
      return arithmetic(multiplyBounds(filled(a, type), filled(b, type)), type);
    case BinaryOp::FloorDiv:
    case BinaryOp::Div:
      if (c && *c != 0)
        return divideBounds(a, *c, op->op == BinaryOp::FloorDiv);
      return {};
    case BinaryOp::FloorMod:
      if (c && *c != 0)
        return floorModBounds(a, *c);
      if (b.min && *b.min > 0)
        return {0, b.max ? checkedSub(*b.max, 1) : std::nullopt};
      return {};
    case BinaryOp::Mod:
      if (c && *c != 0)
        return truncModBounds(a, *c);
      return {};
    case BinaryOp::Min:
      return {a.min && b.min ? std::optional(std::min(*a.min, *b.min)) : std::nullopt,
              a.max && b.max ? std::optional(std::min(*a.max, *b.max))
              : a.max        ? a.max
                             : b.max};
    case BinaryOp::Max:
      return {a.min && b.min ? std::optional(std::max(*a.min, *b.min))
              : a.min        ? a.min
                             : b.min,
              a.max && b.max ? std::optional(std::max(*a.max, *b.max)) : std::nullopt};
    default: return {};
    }
  }

  IntBounds visitNot(const NotNode *) override { return {0, 1}; }

  IntBounds visitSelect(const SelectNode *op) override {
    return unite(impl_.bounds(op->trueValue), impl_.bounds(op->falseValue));
  }

  IntBounds visitCast(const CastNode *op) override {
    if (op->value->type.isFloat()) {
      IntBounds log = op->type.isIntOrUInt() ? roundedLog2(op->value) : IntBounds{};
      return log.min && log.max && fitsType(op->type, *log.min) && fitsType(op->type, *log.max) ? log : IntBounds{};
    }
    if (!op->value->type.isIntOrUInt() && !op->value->type.isBool())
      return {};
    IntBounds inner = filled(impl_.bounds(op->value), op->value->type);
    // A cast that may not preserve the value says nothing beyond the target type.
    if (inner.min && inner.max && fitsType(op->type, *inner.min) && fitsType(op->type, *inner.max))
      return inner;
    return {};
  }

  // A shift of a non-negative value by an amount within the type: `1 << i` for i in [0, 15] is in
  // [1, 32768] (a result that may leave the type is unbounded).
  IntBounds visitCall(const CallNode *op) override {
    const IntrinsicInfo *info = op->intrinsic;
    if (!info || (info->id != IntrinsicId::ShiftLeft && info->id != IntrinsicId::ShiftRight) || op->args.size() != 2 ||
        !op->type.isScalar())
      return {};
    IntBounds a = impl_.bounds(op->args[0]), b = impl_.bounds(op->args[1]);
    int bits = op->type.bits();
    if (!a.min || !a.max || !b.min || !b.max || *a.min < 0 || *b.min < 0 || *b.max >= bits || bits > 64)
      return {};
    if (info->id == IntrinsicId::ShiftRight)
      return {*a.min >> *b.max, *a.max >> *b.min};
    int64_t top = op->type.isUInt() && bits == 64 ? INT64_MAX : (bits >= 64 ? INT64_MAX : (int64_t(1) << (bits - 1)) - 1);
    if (op->type.isUInt() && bits < 64)
      top = (int64_t(1) << bits) - 1;
    if (*b.max >= 63 || *a.max > (top >> *b.max))
      return {};
    return {*a.min << *b.min, *a.max << *b.max};
  }

  IntBounds visitLet(const LetNode *op) override {
    const Expr *had = owner_.valueOf(op->var.get());
    bool hadValue = had != nullptr;
    Expr previous = hadValue ? *had : Expr();
    owner_.bindValue(op->var, op->value);
    ++impl_.letDepth_;
    IntBounds result = impl_.bounds(op->body);
    --impl_.letDepth_;
    owner_.unbind(op->var);
    if (hadValue)
      owner_.bindValue(op->var, previous);
    return result;
  }

private:
  // `T.ceil(T.log2(T.Cast("float64", e)))` (or T.floor) for an integer e within [1, 2^24], as
  // an integer: ceil and floor of log2 of an integer are monotone in it, so the bounds are their
  // values at e's bounds, computed exactly (the bit length). The double log2 the program calls
  // gives the same integers: other than at powers of two (where log2 is exact, or off by less
  // than its last bit, which the monotone bounds of the neighbours still cover) an integer up to
  // 2^24 has a log2 at least 2^-25 from the next integer, far more than log2's error.
  IntBounds roundedLog2(const Expr &value) {
    const auto *round = value.as<CallNode>();
    if (!round || !round->intrinsic || round->args.size() != 1 || !value->type.isScalar() ||
        value->type.bits() != 64 ||
        (round->intrinsic->id != IntrinsicId::Ceil && round->intrinsic->id != IntrinsicId::Floor))
      return {};
    const auto *log = round->args[0].as<CallNode>();
    if (!log || !log->intrinsic || log->intrinsic->id != IntrinsicId::Log2 || log->args.size() != 1)
      return {};
    const auto *cast = log->args[0].as<CastNode>();
    if (!cast || !cast->value->type.isIntOrUInt() || !cast->value->type.isScalar())
      return {};
    IntBounds e = impl_.bounds(cast->value);
    if (!e.min || !e.max || *e.min < 1 || *e.max > (int64_t(1) << 24))
      return {};
    bool ceil = round->intrinsic->id == IntrinsicId::Ceil;
    auto exact = [ceil](int64_t x) -> int64_t {
      int64_t floorLog = 63 - __builtin_clzll(static_cast<unsigned long long>(x));
      return ceil && (x & (x - 1)) != 0 ? floorLog + 1 : floorLog;
    };
    return {exact(*e.min), exact(*e.max)};
  }

  AnalyzerImpl &impl_;
  Analyzer &owner_;
};

IntBounds AnalyzerImpl::boundsNode(const Expr &e) {
  if (const int64_t *v = asConstInt(e))
    return IntBounds::exactly(*v);
  if (!e->type.isIntOrUInt() && !e->type.isBool())
    return {};
  return BoundsFunctor(*this).visitExpr(e);
}

} // namespace tirlower
