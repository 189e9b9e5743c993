// The composite intrinsics as IR of simpler operations, as TVM lowers them:
//
//   T.sigmoid(x)  ->  1 / (1 + T.exp(0 - x))                 (TVM's default legalization)
//   T.rsqrt(x)    ->  1 / T.sqrt(x)
//   T.exp10(x)    ->  T.exp(x * 2.302585093)                 (TVM's LLVM legalization)
//   T.tan(x)      ->  T.sin(x) / T.cos(x)
//   T.tanh(x)     ->  T.Select(x >= 0, (1 - e(-2x)) / (1 + e(-2x)), (e(2x) - 1) / (e(2x) + 1))
//   T.q_multiply_shift(x, y, q, s)  ->  TVM's fixed-point multiply (src/target/intrin_rule.cc)
//   T.q_multiply_shift_per_axis(x, y, ls, rs, q, l, r)  ->  the same with the given shifts
//
// Constants take the call's type (a Broadcast for vectors). The interpreter and the C and
// LLVM emitters compute these expansions, so they agree bit for bit.
#include "ir/intrinsics.h"

#include "ir/diagnostic.h"

namespace tirlower {

namespace {

class Builder {
public:
  explicit Builder(SourceRange loc) : loc_(loc) {}

  Expr constant(DataType type, double value) const {
    Expr scalar = type.isFloat() ? FloatImmNode::make(type.element(), value, loc_)
                                 : IntImmNode::make(type.element(), static_cast<int64_t>(value), loc_);
    return type.isVector() ? BroadcastNode::make(scalar, type.lanes(), loc_) : scalar;
  }
  // Operations on integer constants fold (q_multiply_shift's shifts are mostly constant), as
  // TVM's operators fold them; an overflowing one is left to wrap at run time.
  Expr binary(BinaryOp op, Expr a, Expr b) const {
    const int64_t *x = asConstInt(a), *y = asConstInt(b);
    if (x && y && a->type.isInt() && b->type == a->type) {
      int64_t r = 0;
      bool overflow = false, folded = true;
      switch (op) {
      case BinaryOp::Add: overflow = __builtin_add_overflow(*x, *y, &r); break;
      case BinaryOp::Sub: overflow = __builtin_sub_overflow(*x, *y, &r); break;
      case BinaryOp::GT: return IntImmNode::make(DataType::boolean(), *x > *y, loc_);
      case BinaryOp::NE: return IntImmNode::make(DataType::boolean(), *x != *y, loc_);
      default: folded = false; break;
      }
      int bits = a->type.bits();
      if (folded && !overflow && (bits == 64 || (r >= -(int64_t(1) << (bits - 1)) && r < (int64_t(1) << (bits - 1)))))
        return IntImmNode::make(a->type, r, loc_);
    }
    return BinaryNode::make(op, std::move(a), std::move(b), loc_);
  }
  Expr add(Expr a, Expr b) const { return binary(BinaryOp::Add, std::move(a), std::move(b)); }
  Expr sub(Expr a, Expr b) const { return binary(BinaryOp::Sub, std::move(a), std::move(b)); }
  Expr mul(Expr a, Expr b) const { return binary(BinaryOp::Mul, std::move(a), std::move(b)); }
  Expr div(Expr a, Expr b) const { return binary(BinaryOp::Div, std::move(a), std::move(b)); }
  Expr call(IntrinsicId id, DataType type, std::vector<Expr> args) const {
    return CallNode::make(type, Symbol(intrinsicInfo(id).name), std::move(args), loc_);
  }
  Expr unary(IntrinsicId id, const Expr &x) const { return call(id, x->type, {x}); }
  Expr select(Expr c, Expr t, Expr f) const {
    if (const int64_t *known = asConstInt(c))
      return *known ? t : f;
    return SelectNode::make(std::move(c), std::move(t), std::move(f), loc_);
  }
  Expr cast(DataType type, const Expr &x) const {
    if (x->type == type)
      return x;
    if (const int64_t *v = asConstInt(x); v && x->type.isInt() && type.isInt() && type.bits() >= x->type.bits())
      return IntImmNode::make(type, *v, loc_);
    return CastNode::make(type, x, loc_);
  }

  // `body(v)` where v is `value`, bound by a Let unless it is cheap to repeat.
  template <typename F> Expr shared(const Expr &value, const char *name, F body) const {
    const auto *broadcast = value.as<BroadcastNode>();
    ExprKind k = broadcast ? broadcast->value->kind() : value->kind();
    if (k == ExprKind::Var || k == ExprKind::IntImm || k == ExprKind::FloatImm)
      return body(value);
    Var var = VarNode::make(Symbol(name), value->type, loc_);
    Expr result = body(Expr(var));
    return LetNode::make(var, value, result, loc_);
  }

  SourceRange loc() const { return loc_; }

private:
  SourceRange loc_;
};

// The value of an integer constant or a Broadcast of one.
const int64_t *constantValue(const Expr &e) {
  if (const auto *b = e.as<BroadcastNode>())
    return asConstInt(b->value);
  return asConstInt(e);
}

Expr tanh(const Builder &b, const Expr &arg) {
  DataType t = arg->type;
  return b.shared(arg, "x", [&](const Expr &x) {
    Expr one = b.constant(t, 1), two = b.constant(t, 2), minusTwo = b.constant(t, -2);
    return b.shared(b.unary(IntrinsicId::Exp, b.mul(minusTwo, x)), "e_neg", [&](const Expr &eNeg) {
      return b.shared(b.unary(IntrinsicId::Exp, b.mul(two, x)), "e_pos", [&](const Expr &ePos) {
        Expr positive = b.div(b.sub(one, eNeg), b.add(one, eNeg));
        Expr negative = b.div(b.sub(ePos, one), b.add(ePos, one));
        return b.select(b.binary(BinaryOp::GE, x, b.constant(t, 0)), positive, negative);
      });
    });
  });
}

// TVM's QMultiplyShift (src/target/intrin_rule.cc): in int64, x shifted left when required,
// times y, plus half of the divisor, shifted right by rightShift + q; back to int32. The
// left shift is by 0 where it is not required (TVM shifts by the unused amount and selects the
// unshifted value; an amount out of range there must not be an error).
Expr fixedPointMultiply(const Builder &b, const Expr &x, const Expr &y, const Expr &q, const Expr &leftShift,
                        const Expr &rightShift, const Expr &leftRequired) {
  DataType i32 = x->type, i64 = DataType::int64(x->type.lanes());
  auto shl = [&](const Expr &a, const Expr &n) { return b.call(IntrinsicId::ShiftLeft, a->type, {a, n}); };
  auto shr = [&](const Expr &a, const Expr &n) { return b.call(IntrinsicId::ShiftRight, a->type, {a, n}); };
  Expr wide = b.cast(i64, x);
  Expr amount = b.cast(i64, b.select(leftRequired, leftShift, b.constant(i32, 0)));
  wide = b.select(leftRequired, shl(wide, amount), wide);
  wide = b.mul(wide, b.cast(i64, y));
  Expr total = b.add(rightShift, q);
  Expr rounding = shl(b.constant(i64, 1), b.cast(i64, b.sub(total, b.constant(i32, 1))));
  wide = shr(b.add(wide, rounding), b.cast(i64, total));
  return b.cast(i32, wide);
}

// TVM's legalization of tir.q_multiply_shift: round(x * y * 2^(s - q)) with the rounding of
// half upward, computed in int64; a multiplier of 1 << 30 (the fixed-point 0.5) becomes a
// shift of x in int32, which needs a constant s (TVM reads its value).
Expr qMultiplyShift(const Builder &b, const CallNode &call) {
  const Expr &x = call.args[0], &y = call.args[1], &q = call.args[2], &s = call.args[3];
  DataType i32 = x->type;
  auto shl = [&](const Expr &a, const Expr &n) { return b.call(IntrinsicId::ShiftLeft, a->type, {a, n}); };
  auto shr = [&](const Expr &a, const Expr &n) { return b.call(IntrinsicId::ShiftRight, a->type, {a, n}); };
  const int64_t *multiplier = constantValue(y);
  if (multiplier && *multiplier == (int64_t(1) << 30)) {
    const int64_t *shift = constantValue(s);
    if (!shift)
      throw CompileError(call.loc, "T.q_multiply_shift with the multiplier 1 << 30 needs a constant shift (TVM "
                                   "computes it as a shift by s - 1)");
    // TVM shifts x by s - 1 (s > 1) or rounds and shifts right by 1 - s (s <= 1); it rejects
    // constant shift amounts outside [0, 32), which the shift by -1 of s = 1 is.
    int64_t exponent = *shift - 1;
    if (exponent >= 32 || exponent == 0 || exponent < -31)
      throw CompileError(call.loc, "T.q_multiply_shift with the multiplier 1 << 30 and the shift " +
                                       std::to_string(*shift) +
                                       " shifts by an amount outside [0, 32), which TVM rejects (s must be in "
                                       "[-30, 0] or [2, 32])");
    if (exponent > 0)
      return shl(x, b.constant(i32, static_cast<double>(exponent)));
    int64_t right = -exponent;
    Expr rounding = shl(b.constant(i32, 1), b.constant(i32, static_cast<double>(right - 1)));
    return shr(b.add(x, rounding), b.constant(i32, static_cast<double>(right)));
  }
  return b.shared(s, "s", [&](const Expr &sv) {
    Expr zero = b.constant(i32, 0);
    Expr positive = b.binary(BinaryOp::GT, sv, zero);
    Expr left = b.select(positive, sv, zero);
    Expr right = b.select(positive, zero, b.sub(zero, sv));
    return fixedPointMultiply(b, x, y, q, left, right, b.binary(BinaryOp::NE, left, zero));
  });
}

} // namespace

Expr expandIntrinsic(const CallNode &call) {
  if (!call.intrinsic || call.intrinsic->eval != IntrinsicEval::Expand)
    return Expr();
  Builder b(call.loc);
  DataType t = call.type;
  switch (call.intrinsic->id) {
  case IntrinsicId::Sigmoid: {
    Expr one = b.constant(t, 1);
    return b.div(one, b.add(one, b.unary(IntrinsicId::Exp, b.sub(b.constant(t, 0), call.args[0]))));
  }
  case IntrinsicId::Rsqrt: return b.div(b.constant(t, 1), b.unary(IntrinsicId::Sqrt, call.args[0]));
  case IntrinsicId::Exp10: return b.unary(IntrinsicId::Exp, b.mul(call.args[0], b.constant(t, 2.302585093)));
  case IntrinsicId::Tan:
    return b.shared(call.args[0], "x", [&](const Expr &x) {
      return b.div(b.unary(IntrinsicId::Sin, x), b.unary(IntrinsicId::Cos, x));
    });
  case IntrinsicId::Tanh: return tanh(b, call.args[0]);
  case IntrinsicId::QMultiplyShift: return qMultiplyShift(b, call);
  case IntrinsicId::QMultiplyShiftPerAxis: // (x, y, left shift, right shift, q, left required, right required)
    return b.shared(call.args[5], "left_required", [&](const Expr &leftRequired) {
      return fixedPointMultiply(b, call.args[0], call.args[1], call.args[4], call.args[2], call.args[3], leftRequired);
    });
  default: break;
  }
  throw CompileError(call.loc, "T." + call.op.str() + " has no expansion");
}

} // namespace tirlower
