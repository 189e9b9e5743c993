// Small structural utilities the arithmetic layer needs: node counts, structural hashing and
// ordering (variables by name for ordering; equality is ir/equality.h). Messages quote
// expressions with formatExpr (ir/script_expr_printer.h), as the printer prints them.
#pragma once

#include <cstddef>
#include <vector>

#include "ir/equality.h"
#include "ir/expr.h"
#include "ir/index_map.h"

namespace tirlower {

// Number of expression nodes in `e` (shared subtrees counted at every use).
size_t exprSize(const Expr &e);
// What simplify minimises: the node count, except that integer constants and multiplications
// by one are free. So `n * 2048 + h * 128 + rh * 128` (TVM's canonical form, one term per
// variable) costs what `(n * 16 + (h + rh)) * 128` costs and wins as the canonical form,
// while expanding a product of variables, `(i * n + j) * m` into `i * n * m + j * m`, costs
// more (m appears twice) and is not made.
size_t exprCost(const Expr &e);

// A hash consistent with structurallyEqual (ir/equality.h).
size_t structuralHash(const Expr &e);
// A deterministic total preorder that never looks at addresses: distinct variables with the
// same name compare equal here (callers keep such ties in order of appearance).
int structuralCompare(const Expr &a, const Expr &b);

// True if `e` mentions any of `vars`.
bool usesAnyVar(const Expr &e, const std::vector<Var> &vars);
// True if `e` mentions `var`.
bool usesVar(const Expr &e, const VarNode *var);

} // namespace tirlower
