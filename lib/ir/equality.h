// Structural equality of expressions: same node kinds, types, constants, operators, and the
// same variable and buffer objects (variables compare by identity, not by name).
#pragma once

#include "ir/expr.h"

namespace tirlower {

bool structurallyEqual(const Expr &a, const Expr &b);
bool structurallyEqual(const std::vector<Expr> &a, const std::vector<Expr> &b);

} // namespace tirlower
