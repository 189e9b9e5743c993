// Binary arithmetic, comparisons and logic, one template instance per (kind, operator) so the
// scalar path is a single inlined operation. Integer operations compute in uint64 and wrap to
// the type's width (no UB); float32 computes in float, float64 in double, and the 16-bit
// formats in double rounded to the format after every operation (one rounding of the exact
// result for + - * /).
#include <cmath>
#include <limits>

#include "interp/compiler.h"

namespace tirlower {
namespace {

constexpr bool isFloatKind(NumKind k) {
  return k == NumKind::F16 || k == NumKind::BF16 || k == NumKind::F32 || k == NumKind::F64;
}

Cell boolCell(bool value) {
  Cell c;
  c.u = value ? 1 : 0;
  return c;
}

[[noreturn]] void divisionByZero(BinaryOp op, SourceRange loc) {
  runtimeError(loc, std::string("division by zero in ") + binaryOpName(op));
}

// Min, Max, the comparisons, And and Or of x and y (a and b's values as the kind computes them):
// the same for every kind.
template <BinaryOp Op, typename T> Cell compareOrPick(T x, T y, Cell a, Cell b) {
  if constexpr (Op == BinaryOp::Min)
    return x < y ? a : b;
  else if constexpr (Op == BinaryOp::Max)
    return x > y ? a : b;
  else if constexpr (Op == BinaryOp::EQ)
    return boolCell(x == y);
  else if constexpr (Op == BinaryOp::NE)
    return boolCell(x != y);
  else if constexpr (Op == BinaryOp::LT)
    return boolCell(x < y);
  else if constexpr (Op == BinaryOp::LE)
    return boolCell(x <= y);
  else if constexpr (Op == BinaryOp::GT)
    return boolCell(x > y);
  else if constexpr (Op == BinaryOp::GE)
    return boolCell(x >= y);
  else
    return boolCell(Op == BinaryOp::And ? (x != 0 && y != 0) : (x != 0 || y != 0));
}

template <BinaryOp Op> Cell applySigned(Cell a, Cell b, int bits, SourceRange loc) {
  const int64_t x = a.i, y = b.i;
  auto wrap = [&](uint64_t v) { return normalizeInt(v, NumKind::Int, bits); };
  if constexpr (Op == BinaryOp::Add)
    return wrap(a.u + b.u);
  else if constexpr (Op == BinaryOp::Sub)
    return wrap(a.u - b.u);
  else if constexpr (Op == BinaryOp::Mul)
    return wrap(a.u * b.u);
  else if constexpr (Op == BinaryOp::Div || Op == BinaryOp::Mod || Op == BinaryOp::FloorDiv ||
                     Op == BinaryOp::FloorMod) {
    if (y == 0)
      divisionByZero(Op, loc);
    if (y == -1) // x / -1 wraps like -x; the remainder is 0 (avoids INT64_MIN / -1)
      return (Op == BinaryOp::Div || Op == BinaryOp::FloorDiv) ? wrap(0 - a.u) : wrap(0);
    const int64_t q = x / y, r = x % y;
    const bool adjust = r != 0 && ((r < 0) != (y < 0));
    if constexpr (Op == BinaryOp::Div)
      return wrap(static_cast<uint64_t>(q));
    else if constexpr (Op == BinaryOp::Mod)
      return wrap(static_cast<uint64_t>(r));
    else if constexpr (Op == BinaryOp::FloorDiv)
      return wrap(static_cast<uint64_t>(adjust ? q - 1 : q));
    else
      return wrap(static_cast<uint64_t>(adjust ? r + y : r));
  } else
    return compareOrPick<Op>(x, y, a, b);
}

template <BinaryOp Op> Cell applyUnsigned(Cell a, Cell b, NumKind kind, int bits, SourceRange loc) {
  const uint64_t x = a.u, y = b.u;
  auto wrap = [&](uint64_t v) { return normalizeInt(v, kind, bits); };
  if constexpr (Op == BinaryOp::Add)
    return wrap(x + y);
  else if constexpr (Op == BinaryOp::Sub)
    return wrap(x - y);
  else if constexpr (Op == BinaryOp::Mul)
    return wrap(x * y);
  else if constexpr (Op == BinaryOp::Div || Op == BinaryOp::FloorDiv) {
    if (y == 0)
      divisionByZero(Op, loc);
    return wrap(x / y);
  } else if constexpr (Op == BinaryOp::Mod || Op == BinaryOp::FloorMod) {
    if (y == 0)
      divisionByZero(Op, loc);
    return wrap(x % y);
  } else
    return compareOrPick<Op>(x, y, a, b);
}

// T is the type computations are done in (float for float32, double otherwise).
template <typename T, BinaryOp Op> Cell applyFloat(Cell a, Cell b, NumKind kind) {
  const T x = static_cast<T>(a.f), y = static_cast<T>(b.f);
  // floor(a / b) and a - floor(a / b) * b round every operation to the type, as the emitters
  // compute them (a 16-bit quotient that rounds up to an integer floors to that integer).
  auto narrow = [&](T v) { return kind == NumKind::F16 || kind == NumKind::BF16 ? T(roundToKind(v, kind)) : v; };
  auto result = [&](T v) {
    Cell c;
    c.f = static_cast<double>(narrow(v));
    return c;
  };
  if constexpr (Op == BinaryOp::Add)
    return result(x + y);
  else if constexpr (Op == BinaryOp::Sub)
    return result(x - y);
  else if constexpr (Op == BinaryOp::Mul)
    return result(x * y);
  else if constexpr (Op == BinaryOp::Div)
    return result(x / y);
  else if constexpr (Op == BinaryOp::Mod)
    return result(std::fmod(x, y));
  else if constexpr (Op == BinaryOp::FloorDiv)
    return result(std::floor(narrow(x / y)));
  else if constexpr (Op == BinaryOp::FloorMod) {
    const T q = std::floor(narrow(x / y));
    const T p = narrow(q * y);
    return result(x - p);
  } else
    return compareOrPick<Op>(x, y, a, b);
}

template <NumKind K, BinaryOp Op> inline Cell apply(Cell a, Cell b, int bits, SourceRange loc) {
  if constexpr (K == NumKind::Int)
    return applySigned<Op>(a, b, bits, loc);
  else if constexpr (K == NumKind::F32)
    return applyFloat<float, Op>(a, b, K);
  else if constexpr (isFloatKind(K))
    return applyFloat<double, Op>(a, b, K);
  else
    return applyUnsigned<Op>(a, b, K, bits, loc);
}

template <NumKind K, BinaryOp Op> class BinaryCode : public ExprCode {
public:
  BinaryCode(DataType type, SourceRange loc, ExprCodePtr a, ExprCodePtr b)
      : ExprCode(type, loc), a_(std::move(a)), b_(std::move(b)), bits_(a_->type.bits()), x_(lanes), y_(lanes) {}
  Cell scalar(Frame &frame) const override {
    const Cell x = a_->scalar(frame);
    const Cell y = b_->scalar(frame);
    return apply<K, Op>(x, y, bits_, loc);
  }
  void eval(Frame &frame, Cell *out) const override {
    Cell *x = x_.data(), *y = y_.data();
    a_->eval(frame, x);
    b_->eval(frame, y);
    for (int l = 0; l < lanes; ++l)
      out[l] = apply<K, Op>(x[l], y[l], bits_, loc);
  }

private:
  ExprCodePtr a_, b_;
  int bits_;
  Scratch x_, y_;
};

// Scalar and/or short-circuit as C's && and || do, so a guard can protect an access.
class LogicCode : public ExprCode {
public:
  LogicCode(bool isAnd, DataType type, SourceRange loc, ExprCodePtr a, ExprCodePtr b)
      : ExprCode(type, loc), isAnd_(isAnd), a_(std::move(a)), b_(std::move(b)), y_(lanes) {}
  Cell scalar(Frame &frame) const override {
    const bool x = a_->scalar(frame).u != 0;
    if (x != isAnd_)
      return boolCell(x);
    return boolCell(b_->scalar(frame).u != 0);
  }
  void eval(Frame &frame, Cell *out) const override {
    a_->eval(frame, out);
    b_->eval(frame, y_.data());
    for (int l = 0; l < lanes; ++l)
      out[l] = boolCell(isAnd_ ? (out[l].u && y_.data()[l].u) : (out[l].u || y_.data()[l].u));
  }

private:
  bool isAnd_;
  ExprCodePtr a_, b_;
  Scratch y_;
};

template <NumKind K>
ExprCodePtr makeForKind(BinaryOp op, ExprCodePtr a, ExprCodePtr b, DataType type, SourceRange loc) {
  switch (op) {
#define TIRLOWER_BINARY_CASE(NAME)                                                                                     \
  case BinaryOp::NAME: return std::make_unique<BinaryCode<K, BinaryOp::NAME>>(type, loc, std::move(a), std::move(b));
    TIRLOWER_BINARY_CASE(Add)
    TIRLOWER_BINARY_CASE(Sub)
    TIRLOWER_BINARY_CASE(Mul)
    TIRLOWER_BINARY_CASE(Div)
    TIRLOWER_BINARY_CASE(Mod)
    TIRLOWER_BINARY_CASE(FloorDiv)
    TIRLOWER_BINARY_CASE(FloorMod)
    TIRLOWER_BINARY_CASE(Min)
    TIRLOWER_BINARY_CASE(Max)
    TIRLOWER_BINARY_CASE(EQ)
    TIRLOWER_BINARY_CASE(NE)
    TIRLOWER_BINARY_CASE(LT)
    TIRLOWER_BINARY_CASE(LE)
    TIRLOWER_BINARY_CASE(GT)
    TIRLOWER_BINARY_CASE(GE)
#undef TIRLOWER_BINARY_CASE
  case BinaryOp::And:
  case BinaryOp::Or: break;
  }
  return std::make_unique<LogicCode>(op == BinaryOp::And, type, loc, std::move(a), std::move(b));
}

} // namespace

ExprCodePtr makeBinaryCode(BinaryOp op, ExprCodePtr a, ExprCodePtr b, DataType type, SourceRange loc) {
  if (isLogical(op))
    return std::make_unique<LogicCode>(op == BinaryOp::And, type, loc, std::move(a), std::move(b));
  switch (numKind(a->type)) {
  case NumKind::Int: return makeForKind<NumKind::Int>(op, std::move(a), std::move(b), type, loc);
  case NumKind::UInt: return makeForKind<NumKind::UInt>(op, std::move(a), std::move(b), type, loc);
  case NumKind::Bool: return makeForKind<NumKind::Bool>(op, std::move(a), std::move(b), type, loc);
  case NumKind::F16: return makeForKind<NumKind::F16>(op, std::move(a), std::move(b), type, loc);
  case NumKind::BF16: return makeForKind<NumKind::BF16>(op, std::move(a), std::move(b), type, loc);
  case NumKind::F32: return makeForKind<NumKind::F32>(op, std::move(a), std::move(b), type, loc);
  case NumKind::F64: return makeForKind<NumKind::F64>(op, std::move(a), std::move(b), type, loc);
  case NumKind::Handle: break;
  }
  throw CompileError(loc, std::string("the interpreter cannot apply ") + binaryOpName(op) + " to handles");
}

} // namespace tirlower
