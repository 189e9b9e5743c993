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

// Reads/writes one scalar of `type` (its lanes ignored) at `bytes`.
Cell loadScalar(const uint8_t *bytes, DataType type);
void storeScalar(uint8_t *bytes, DataType type, Cell value);

// C conversion of one lane. Float to integer truncates toward zero; a value (or NaN) that does
// not fit the target is an error "cast of X to T overflows" located at `loc`.
Cell castCell(Cell value, DataType from, DataType to, SourceRange loc);

// Human-readable value of one lane ("-3", "1.5", "true").
std::string formatCell(Cell value, DataType type);

[[noreturn]] void runtimeError(SourceRange loc, std::string message);

} // namespace tirlower
