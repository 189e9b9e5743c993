// Runtime values of the interpreter: one 64-bit cell per lane. Integers are kept normalised to
// their width (signed sign-extended, unsigned zero-extended) so comparisons read the cell
// directly; every float is kept as the double holding its exact value in its own format.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "ir/data_type.h"
#include "ir/diagnostic.h"

namespace tirlower {

class BufferData;

union Cell {
  int64_t i;
  uint64_t u;
  double f;
  BufferData *p;
};

// The arithmetic class of a type, which selects how operations compute.
enum class NumKind : uint8_t { Int, UInt, Bool, F16, BF16, F32, F64, Handle };

NumKind numKind(DataType type); // throws CompileError for void

// Wraps the low bits of `value` to `bits`, as C's conversion to a fixed-width type does.
inline uint64_t wrapSigned(uint64_t value, int bits) {
  int shift = 64 - bits;
  return static_cast<uint64_t>(static_cast<int64_t>(value << shift) >> shift);
}
inline uint64_t wrapUnsigned(uint64_t value, int bits) {
  return bits >= 64 ? value : value & ((uint64_t(1) << bits) - 1);
}
inline Cell normalizeInt(uint64_t value, NumKind kind, int bits) {
  Cell c;
  c.u = kind == NumKind::Int    ? wrapSigned(value, bits)
        : kind == NumKind::Bool ? (value & 1)
                                : wrapUnsigned(value, bits);
  return c;
}

// Correctly rounded (to nearest even) conversion of a double to a narrow float format.
uint16_t encodeHalf(double value);
uint16_t encodeBFloat16(double value);
double decodeHalf(uint16_t bits);
double decodeBFloat16(uint16_t bits);

// Rounds an exact result to the value set of a float kind (F32: to float).
inline double roundToKind(double value, NumKind kind) {
  switch (kind) {
  case NumKind::F32: return static_cast<float>(value);
  case NumKind::F16: return decodeHalf(encodeHalf(value));
  case NumKind::BF16: return decodeBFloat16(encodeBFloat16(value));
  default: return value;
  }
}

// How one scalar is laid out in memory; chosen once per access when compiled.
enum class ScalarFormat : uint8_t { I8, I16, I32, I64, U8, U16, U32, U64, Bool, F16, BF16, F32, F64, Handle };
ScalarFormat scalarFormat(DataType type); // throws CompileError for void

namespace detail {
template <typename T> inline T readAs(const uint8_t *bytes) {
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  return value;
}
template <typename T> inline void writeAs(uint8_t *bytes, T value) {
  std::memcpy(bytes, &value, sizeof(T));
}
} // namespace detail

inline Cell loadFormat(const uint8_t *bytes, ScalarFormat format) {
  using detail::readAs;
  Cell c;
  c.u = 0;
  switch (format) {
  case ScalarFormat::I8: c.i = readAs<int8_t>(bytes); break;
  case ScalarFormat::I16: c.i = readAs<int16_t>(bytes); break;
  case ScalarFormat::I32: c.i = readAs<int32_t>(bytes); break;
  case ScalarFormat::I64: c.i = readAs<int64_t>(bytes); break;
  case ScalarFormat::U8: c.u = readAs<uint8_t>(bytes); break;
  case ScalarFormat::U16: c.u = readAs<uint16_t>(bytes); break;
  case ScalarFormat::U32: c.u = readAs<uint32_t>(bytes); break;
  case ScalarFormat::U64: c.u = readAs<uint64_t>(bytes); break;
  case ScalarFormat::Bool: c.u = bytes[0] != 0; break;
  case ScalarFormat::F16: c.f = decodeHalf(readAs<uint16_t>(bytes)); break;
  case ScalarFormat::BF16: c.f = decodeBFloat16(readAs<uint16_t>(bytes)); break;
  case ScalarFormat::F32: c.f = readAs<float>(bytes); break;
  case ScalarFormat::F64: c.f = readAs<double>(bytes); break;
  case ScalarFormat::Handle: break;
  }
  return c;
}

inline void storeFormat(uint8_t *bytes, ScalarFormat format, Cell value) {
  using detail::writeAs;
  switch (format) {
  case ScalarFormat::I8:
  case ScalarFormat::U8: writeAs<uint8_t>(bytes, uint8_t(value.u)); break;
  case ScalarFormat::I16:
  case ScalarFormat::U16: writeAs<uint16_t>(bytes, uint16_t(value.u)); break;
  case ScalarFormat::I32:
  case ScalarFormat::U32: writeAs<uint32_t>(bytes, uint32_t(value.u)); break;
  case ScalarFormat::I64:
  case ScalarFormat::U64: writeAs<uint64_t>(bytes, value.u); break;
  case ScalarFormat::Bool: bytes[0] = value.u ? 1 : 0; break;
  case ScalarFormat::F16: writeAs<uint16_t>(bytes, encodeHalf(value.f)); break;
  case ScalarFormat::BF16: writeAs<uint16_t>(bytes, encodeBFloat16(value.f)); break;
  case ScalarFormat::F32: writeAs<float>(bytes, static_cast<float>(value.f)); break;
  case ScalarFormat::F64: writeAs<double>(bytes, value.f); break;
  case ScalarFormat::Handle: break;
  }
}

// Reads/writes one scalar of `type` (its lanes ignored) at `bytes`.
inline Cell loadScalar(const uint8_t *bytes, DataType type) {
  return loadFormat(bytes, scalarFormat(type));
}
inline void storeScalar(uint8_t *bytes, DataType type, Cell value) {
  storeFormat(bytes, scalarFormat(type), value);
}

// C conversion of one lane. Float to integer truncates toward zero; a value (or NaN) that does
// not fit the target is an error "cast of X to T overflows" located at `loc`.
Cell castCell(Cell value, DataType from, DataType to, SourceRange loc);

// Human-readable value of one lane ("-3", "1.5", "true").
std::string formatCell(Cell value, DataType type);

[[noreturn]] void runtimeError(SourceRange loc, std::string message);

} // namespace tirlower
