// Exact integer arithmetic for constant folding and bound computations: every operation
// reports overflow instead of wrapping, and floor division follows Python's `//` and `%`.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/data_type.h"

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

} // namespace tirlower
