#include "arith/int_ops.h"

#include <limits>

namespace tirlower {

std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

std::optional<int64_t> checkedSub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

std::optional<int64_t> truncDiv(int64_t a, int64_t b) {
  if (a == std::numeric_limits<int64_t>::min() && b == -1)
    return std::nullopt;
  return a / b;
}

std::optional<int64_t> truncMod(int64_t a, int64_t b) {
  if (b == -1)
    return 0;
  return a % b;
}

std::optional<int64_t> floorDiv(int64_t a, int64_t b) {
  auto q = truncDiv(a, b);
  if (!q)
    return std::nullopt;
  int64_t r = a % (b == -1 ? 1 : b);
  if (r != 0 && ((r < 0) != (b < 0)))
    return *q - 1;
  return q;
}

std::optional<int64_t> floorMod(int64_t a, int64_t b) {
  if (b == -1)
    return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

int64_t gcd64(int64_t a, int64_t b) {
  // Work on magnitudes as unsigned so INT64_MIN is harmless.
  uint64_t x = a < 0 ? 0 - static_cast<uint64_t>(a) : static_cast<uint64_t>(a);
  uint64_t y = b < 0 ? 0 - static_cast<uint64_t>(b) : static_cast<uint64_t>(b);
  while (y != 0) {
    uint64_t t = x % y;
    x = y;
    y = t;
  }
  return x > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? 0 : static_cast<int64_t>(x);
}

int64_t typeMin(DataType type) {
  if (type.isBool() || type.isUInt())
    return 0;
  if (type.bits() >= 64)
    return std::numeric_limits<int64_t>::min();
  return -(int64_t(1) << (type.bits() - 1));
}

int64_t typeMax(DataType type) {
  if (type.isBool())
    return 1;
  if (type.isUInt())
    return type.bits() >= 63 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << type.bits()) - 1;
  if (type.bits() >= 64)
    return std::numeric_limits<int64_t>::max();
  return (int64_t(1) << (type.bits() - 1)) - 1;
}

bool fitsType(DataType type, int64_t value) {
  return value >= typeMin(type) && value <= typeMax(type);
}

std::optional<int64_t> wrapToType(DataType type, uint64_t bits) {
  if (type.isBool())
    return int64_t(bits & 1);
  int width = type.bits();
  if (width < 64) {
    uint64_t mask = (uint64_t(1) << width) - 1;
    bits &= mask;
    if (type.isInt() && (bits >> (width - 1)) & 1)
      bits |= ~mask;
  } else if (type.isUInt() && bits > uint64_t(std::numeric_limits<int64_t>::max())) {
    return std::nullopt;
  }
  return static_cast<int64_t>(bits);
}

std::optional<int64_t> wrappingFold(BinaryOp op, DataType type, int64_t a, int64_t b) {
  uint64_t x = static_cast<uint64_t>(a), y = static_cast<uint64_t>(b);
  auto divide = [&](std::optional<int64_t> (*f)(int64_t, int64_t)) -> std::optional<int64_t> {
    if (b == -1) // a / -1 is -a (wrapping), the remainder 0: no INT64_MIN / -1
      return op == BinaryOp::Mod || op == BinaryOp::FloorMod ? 0 : wrapToType(type, 0 - x);
    return wrapToType(type, static_cast<uint64_t>(*f(a, b)));
  };
  switch (op) {
  case BinaryOp::Add: return wrapToType(type, x + y);
  case BinaryOp::Sub: return wrapToType(type, x - y);
  case BinaryOp::Mul: return wrapToType(type, x * y);
  case BinaryOp::Div: return divide(truncDiv);
  case BinaryOp::Mod: return divide(truncMod);
  case BinaryOp::FloorDiv: return divide(floorDiv);
  case BinaryOp::FloorMod: return divide(floorMod);
  case BinaryOp::Min: return std::min(a, b);
  case BinaryOp::Max: return std::max(a, b);
  case BinaryOp::And: return int64_t(a && b);
  case BinaryOp::Or: return int64_t(a || b);
  case BinaryOp::EQ: return int64_t(a == b);
  case BinaryOp::NE: return int64_t(a != b);
  case BinaryOp::LT: return int64_t(a < b);
  case BinaryOp::LE: return int64_t(a <= b);
  case BinaryOp::GT: return int64_t(a > b);
  case BinaryOp::GE: return int64_t(a >= b);
  default: return std::nullopt;
  }
}

} // namespace tirlower
