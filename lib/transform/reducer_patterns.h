// The commutative reducers a reduction block may compute, as TVM's ReducerRegistry lists them:
// sum, product, min, max of one value; the sum of two; argmax and argmin over (index, value)
// pairs, each with ties kept by the first operand or by the smaller index. Matching a block's
// init values and updates against them gives the T.comm_reducer of a cross-thread reduction and
// the value each update combines in (its right-hand side).
//
//   init: W[i] = T.float32(0)        update: W[i] = W[i] + A[i, k]
//     -> comm_reducer(lambda x0, y0: x0 + y0, [T.float32(0)]), rhs A[i, k]
#pragma once

#include <optional>
#include <vector>

#include "ir/stmt.h"

namespace tirlower {

// One update of a reduction block: buffer[indices] = value (its lets inlined).
struct ReductionUpdate {
  Buffer buffer;
  std::vector<Expr> indices;
  Expr value;
};

struct MatchedReducer {
  CommReducer reducer;
  std::vector<Expr> rhs; // per update, the value it combines into buffer[indices]
};

// The reducer whose identities are `identities` (the init values, in the updates' order) and
// whose combiner each update applies to its own element; nullopt when none matches. A single
// + * min max may take its operands in either order, and min and max also take +-inf as their
// identity (tirlower accepts these; TVM's registry does not).
// With `anyIdentity`, the identities are not compared (to tell a combiner of the registry with
// another init from no combiner at all).
std::optional<MatchedReducer> matchReducer(const std::vector<Expr> &identities,
                                           const std::vector<ReductionUpdate> &updates, SourceRange loc,
                                           bool anyIdentity = false);

// The lowest and highest values of a scalar type (a float type's finite extremes), as constants.
Expr lowestValue(DataType type, SourceRange loc = {});
Expr highestValue(DataType type, SourceRange loc = {});

} // namespace tirlower
