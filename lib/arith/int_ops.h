// Exact integer arithmetic for constant folding and bound computations: every operation
// reports overflow instead of wrapping, and floor division follows Python's `//` and `%`.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/data_type.h"
#include "ir/expr.h"

namespace tirlower {

std::optional<int64_t> checkedAdd(int64_t a, int64_t b);
std::optional<int64_t> checkedSub(int64_t a, int64_t b);
std::optional<int64_t> checkedMul(int64_t a, int64_t b);

// Division helpers; `b` must be non-zero. The results can only overflow for INT64_MIN / -1.
std::optional<int64_t> floorDiv(int64_t a, int64_t b);
std::optional<int64_t> floorMod(int64_t a, int64_t b);
std::optional<int64_t> truncDiv(int64_t a, int64_t b);
std::optional<int64_t> truncMod(int64_t a, int64_t b);

int64_t gcd64(int64_t a, int64_t b); // non-negative; gcd(0, 0) = 0

// The range of values an integer type holds (uint64 is limited to INT64_MAX here).
int64_t typeMin(DataType type);
int64_t typeMax(DataType type);
bool fitsType(DataType type, int64_t value);

// The value an integer type holds for the two's-complement bit pattern `bits` (its low
// type.bits() bits, sign-extended for int, zero-extended for uint): what the type's arithmetic
// computes when the exact result does not fit, as the interpreter, C (through unsigned
// arithmetic) and LLVM do. nullopt for a uint64 above INT64_MAX (not representable here).
std::optional<int64_t> wrapToType(DataType type, uint64_t bits);

// a OP b for constants of an integer type, wrapping as the type's arithmetic does (a and b
// must fit the type; b is non-zero for divisions; comparisons give 0 or 1). nullopt only when
// the result is not representable (wrapToType) or OP is not an integer operation.
std::optional<int64_t> wrappingFold(BinaryOp op, DataType type, int64_t a, int64_t b);

} // namespace tirlower
