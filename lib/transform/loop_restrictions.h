// What conditions say of loop variables, for passes that bound the indices an access may take
// (compact-buffer-allocation's in-place compaction): inside `if 2 <= i and i < 18:` the loop
// variable i lies in [2, 17], and inside `T.where(j * 8 + k < 60)` the sum j * 8 + k lies in
// [.., 59]. Only comparisons that cannot wrap are read (both sides bounded well inside their
// type), and only conditions linear in the loop variables.
#pragma once

#include <optional>
#include <vector>

#include "arith/analyzer.h"
#include "ir/stmt.h"

namespace tirlower {

// A loop or thread launch around a point of a walk: var in [min, min + extent).
struct Loop {
  Var var;
  Expr min, extent;
  std::optional<ThreadTag> thread; // thread-bound loops and launches
};

// What a condition says of one loop variable: var in [lo, hi] (a missing end: unbounded); or,
// with `expr` set (var null), of a sum of several loop variables without a constant term.
struct Restriction {
  const VarNode *var = nullptr;
  std::optional<int64_t> lo, hi;
  Expr expr;
};

// Appends to `out` the restrictions `condition` puts on the variables of `loops` where it holds
// (`positive`) or where it does not: the conjuncts of `and` (of `or` when negated), through
// `not` and `T.likely`; each a comparison of integers linear in the loop variables.
void restrictionsOf(const Expr &condition, bool positive, const std::vector<Loop> &loops,
                    std::vector<Restriction> &out);

// The bounds of `e` under `analyzer`, narrowed by the restrictions on sums `e` is a constant
// away from.
IntBounds narrowedBounds(Analyzer &analyzer, const Expr &e, const std::vector<Restriction> &restrictions);

} // namespace tirlower
