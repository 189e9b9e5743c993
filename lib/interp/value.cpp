#include "interp/value.h"

#include <cmath>
#include <limits>
#include <sstream>

namespace tirlower {

void runtimeError(SourceRange loc, std::string message) {
  throw CompileError(loc, std::move(message));
}

NumKind numKind(DataType type) {
  switch (type.code()) {
  case DataType::Code::Int: return NumKind::Int;
  case DataType::Code::UInt: return NumKind::UInt;
  case DataType::Code::Bool: return NumKind::Bool;
  case DataType::Code::Handle: return NumKind::Handle;
  case DataType::Code::BFloat: return NumKind::BF16;
  case DataType::Code::Float:
    if (type.bits() == 16)
      return NumKind::F16;
    if (type.bits() == 32)
      return NumKind::F32;
    if (type.bits() == 64)
      return NumKind::F64;
    break;
  case DataType::Code::Void: break;
  }
  throw CompileError(SourceRange{}, "the interpreter cannot compute with type " + type.str());
}

namespace {
// IEEE-style binary format with `mantBits` stored mantissa bits and `expBits` exponent bits.
uint16_t encodeNarrow(double value, int mantBits, int expBits) {
  const uint16_t sign = std::signbit(value) ? uint16_t(1u << (mantBits + expBits)) : 0;
  const uint16_t expMask = uint16_t(((1u << expBits) - 1) << mantBits);
  if (std::isnan(value))
    return uint16_t(sign | expMask | (1u << (mantBits - 1)));
  double a = std::fabs(value);
  if (std::isinf(a))
    return sign | expMask;
  if (a == 0)
    return sign;
  const int bias = (1 << (expBits - 1)) - 1, emin = 1 - bias, emax = bias;
  int k = 0;
  std::frexp(a, &k);
  int e = k - 1;
  if (e < emin) // subnormal: a mantissa that rounds up to 2^mantBits encodes the smallest normal
    return uint16_t(sign | uint16_t(std::nearbyint(std::ldexp(a, mantBits - emin))));
  auto m = static_cast<uint32_t>(std::nearbyint(std::ldexp(a, mantBits - e)));
  if (m == (2u << mantBits)) {
    m >>= 1;
    ++e;
  }
  if (e > emax)
    return sign | expMask;
  return uint16_t(sign | uint16_t((e + bias) << mantBits) | uint16_t(m - (1u << mantBits)));
}

double decodeNarrow(uint16_t bits, int mantBits, int expBits) {
  const int bias = (1 << (expBits - 1)) - 1;
  const bool negative = (bits >> (mantBits + expBits)) & 1;
  const int e = (bits >> mantBits) & ((1 << expBits) - 1);
  const uint32_t m = bits & ((1u << mantBits) - 1);
  double magnitude;
  if (e == 0)
    magnitude = std::ldexp(double(m), 1 - bias - mantBits);
  else if (e == (1 << expBits) - 1)
    magnitude = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else
    magnitude = std::ldexp(double(m | (1u << mantBits)), e - bias - mantBits);
  return negative ? -magnitude : magnitude;
}

} // namespace

uint16_t encodeHalf(double value) {
  return encodeNarrow(value, 10, 5);
}
uint16_t encodeBFloat16(double value) {
  return encodeNarrow(value, 7, 8);
}
double decodeHalf(uint16_t bits) {
  return decodeNarrow(bits, 10, 5);
}
double decodeBFloat16(uint16_t bits) {
  return decodeNarrow(bits, 7, 8);
}

ScalarFormat scalarFormat(DataType type) {
  const int bits = type.bits();
  switch (numKind(type)) {
  case NumKind::Int:
    return bits <= 8    ? ScalarFormat::I8
           : bits <= 16 ? ScalarFormat::I16
           : bits <= 32 ? ScalarFormat::I32
                        : ScalarFormat::I64;
  case NumKind::UInt:
    return bits <= 8    ? ScalarFormat::U8
           : bits <= 16 ? ScalarFormat::U16
           : bits <= 32 ? ScalarFormat::U32
                        : ScalarFormat::U64;
  case NumKind::Bool: return ScalarFormat::Bool;
  case NumKind::F16: return ScalarFormat::F16;
  case NumKind::BF16: return ScalarFormat::BF16;
  case NumKind::F32: return ScalarFormat::F32;
  case NumKind::F64: return ScalarFormat::F64;
  case NumKind::Handle: break;
  }
  return ScalarFormat::Handle;
}

namespace {
Cell floatToInteger(double value, DataType from, DataType to, SourceRange loc) {
  const double t = std::trunc(value);
  // Bounds as exact doubles: [-2^(b-1), 2^(b-1)) signed, [0, 2^b) unsigned.
  const int bits = to.bits();
  const double lo = to.isInt() ? -std::ldexp(1.0, bits - 1) : 0.0;
  const double hi = to.isInt() ? std::ldexp(1.0, bits - 1) : std::ldexp(1.0, bits);
  if (!(t >= lo && t < hi)) {
    Cell shown;
    shown.f = value;
    runtimeError(loc, "cast of " + formatCell(shown, from) + " to " + to.str() + " overflows");
  }
  Cell c;
  if (to.isInt())
    c.i = static_cast<int64_t>(t);
  else
    c.u = static_cast<uint64_t>(t);
  return c;
}
} // namespace

Cell castCell(Cell value, DataType from, DataType to, SourceRange loc) {
  const NumKind src = numKind(from), dst = numKind(to);
  Cell out;
  switch (dst) {
  case NumKind::Handle:
    if (src != NumKind::Handle)
      runtimeError(loc, "the interpreter cannot cast " + from.str() + " to a handle");
    return value;
  case NumKind::Bool:
    if (src == NumKind::Handle)
      out.u = value.p != nullptr;
    else
      out.u = (src == NumKind::Int || src == NumKind::UInt || src == NumKind::Bool) ? value.u != 0 : value.f != 0;
    return out;
  case NumKind::Int:
  case NumKind::UInt:
    if (src == NumKind::Handle)
      runtimeError(loc, "the interpreter cannot cast a handle to " + to.str());
    if (src == NumKind::Int || src == NumKind::UInt || src == NumKind::Bool)
      return normalizeInt(value.u, dst, to.bits());
    return floatToInteger(value.f, from, to, loc);
  case NumKind::F16:
  case NumKind::BF16:
  case NumKind::F32:
  case NumKind::F64: {
    double d = value.f;
    if (src == NumKind::Handle)
      runtimeError(loc, "the interpreter cannot cast a handle to " + to.str());
    if (dst == NumKind::F32 && src == NumKind::Int) // C converts integers to float directly
      out.f = static_cast<float>(value.i);
    else if (dst == NumKind::F32 && (src == NumKind::UInt || src == NumKind::Bool))
      out.f = static_cast<float>(value.u);
    else {
      if (src == NumKind::Int)
        d = static_cast<double>(value.i);
      else if (src == NumKind::UInt || src == NumKind::Bool)
        d = static_cast<double>(value.u);
      out.f = roundToKind(d, dst);
    }
    return out;
  }
  }
  return value;
}

std::string formatCell(Cell value, DataType type) {
  switch (type.code()) {
  case DataType::Code::Int: return std::to_string(value.i);
  case DataType::Code::UInt: return std::to_string(value.u);
  case DataType::Code::Bool: return value.u ? "true" : "false";
  case DataType::Code::Float:
  case DataType::Code::BFloat: {
    std::ostringstream out;
    out.precision(type.bits() == 64 ? 17 : 9);
    out << value.f;
    return out.str();
  }
  default: return "<handle>";
  }
}

} // namespace tirlower
