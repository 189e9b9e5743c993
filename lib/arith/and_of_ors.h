// A boolean expression rewritten as an `and` of `or` groups (conjunctive normal form), each
// group and each pair of groups simplified: TVM's simplify option convert_boolean_to_and_of_ors.
//
//   A[0] or A[1] and A[2]                          -> (A[0] or A[1]) and (A[0] or A[2])
//   (i == 0 or k == 20) and (i == 0 or k != 30)    -> i == 0 or k == 20
//   i == 20 or j == 0 or i != 30                   -> j == 0 or i != 30
//
// Groups are made by distributing `or` over `and`; a term repeated in a group, and a group that
// repeats another's terms in any order, are dropped. Then, with `pair` (which simplifies one
// `a or b` or `a and b` and returns it unchanged when it cannot):
// - within a group, each pair of terms is simplified as an `or` (a result that is not an `or`
//   replaces the later term, the earlier becomes false);
// - across groups, two single terms are simplified as an `and`; a group whose terms are all in
//   another makes that other true; two groups of the same size that differ in one term each
//   have those two terms simplified as an `and` (`(X or a) and (X or b)` is `X or (a and b)`;
//   a result that is not an `and` replaces the later group's term, the earlier group's term
//   becomes true).
// Finally true and false are folded away. The rewrite only regroups and asks `pair`, so it is
// exact whatever `pair` proves. An expression whose groups would be more than kMaxAndOfOrsGroups
// is returned unchanged (distribution can grow exponentially).
#pragma once

#include <functional>

#include "ir/expr.h"

namespace tirlower {

inline constexpr size_t kMaxAndOfOrsGroups = 64;

Expr asAndOfOrs(const Expr &e, const std::function<Expr(const Expr &)> &pair);

} // namespace tirlower
