// Structural equality of expressions, the one the whole compiler uses: same node kinds, types,
// constants, operators, and the same variable and buffer objects (variables compare by
// identity, not by name). Equal expressions are interchangeable: a float constant equals
// another when both are NaN or their values are identical, so 0.0 and -0.0 differ (min(0.0,
// -0.0) is -0.0) while two NaN literals are the same expression (as TVM's printer and parser
// treat them).
#pragma once

#include <cstddef>
#include <vector>

#include "ir/expr.h"

namespace tirlower {

bool structurallyEqual(const Expr &a, const Expr &b);
// Element-wise structural equality of two lists (same length, equal at every position).
bool structurallyEqual(const std::vector<Expr> &a, const std::vector<Expr> &b);
// The equality of float constants above.
bool sameFloatValue(double a, double b);
// A hash of a float constant consistent with sameFloatValue (every NaN hashes alike).
size_t floatValueHash(double value);

} // namespace tirlower
