// Operations on IndexMap that need arithmetic analysis: applying a map to indices, the shape
// it produces (with padding when it does not divide evenly), the injectivity check, inverses
// with the padding predicate, and composition. Affinity is detected as in TVM's iter-map
// analysis: every final index must be a sum of splits (x // lower) % extent * scale of the
// initial indices, with constant factors.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "arith/analyzer.h"
#include "ir/diagnostic.h"
#include "ir/index_map.h"
#include "ir/layout.h"

namespace tirlower {

// Substitutes `indices` for the initial indices and simplifies (with `analyzer`'s bounds).
// The number of indices must equal the map's input rank.
std::vector<Expr> mapIndices(const IndexMap &map, const std::vector<Expr> &indices, Analyzer &analyzer);

struct MappedShape {
  std::vector<Expr> shape; // extent of each final index over the input shape
  bool padded = false;     // the map does not cover the new shape exactly
  // Elements of the new shape that no input element maps to (when shapes are constant).
  std::optional<int64_t> paddingElements;
};

// Validates the map against a buffer shape and returns the new shape. Throws CompileError
// located at the map when: the rank differs from the shape's, a final index is not affine in
// the initial ones (with constant floordiv/floormod), or the map is not injective over the
// shape (the message shows the map).
MappedShape mapShape(const IndexMap &map, const std::vector<Expr> &shape);

struct InverseMap {
  IndexMap inverse;      // from final indices back to initial indices
  Expr paddingPredicate; // over the inverse's inputs: true exactly on padding (false if none)
};
// The inverse over `shape` (the map's input shape). Throws CompileError as mapShape does.
InverseMap inverseMap(const IndexMap &map, const std::vector<Expr> &shape);

// `second` after `first`: the map x -> second(first(x)). Separators of `second` are kept.
IndexMap composeMaps(const IndexMap &first, const IndexMap &second);

// Builds the index map between two layout strings: "NHWC" -> "NCHW4c" gives
// lambda n, h, w, c: [n, c // 4, h, w, c % 4]. Uppercase letters are primal axes, a number
// followed by a lowercase letter is a split of that axis. Throws CompileError located at
// `where` for malformed or incompatible layouts.
IndexMap indexMapFromLayouts(const std::string &from, const std::string &to, SourceRange where = {},
                             DataType indexType = DataType::int32());
// The same from parsed layouts (ir/layout.h); wildcard axes have no index map (CompileError).
IndexMap indexMapFromLayouts(const Layout &from, const Layout &to, SourceRange where = {},
                             DataType indexType = DataType::int32());
// Why indexMapFromLayouts(from, to) cannot build a map (the message its CompileError would
// carry), or nullopt when it can: the way to ask without an exception.
std::optional<std::string> indexMapFromLayoutsProblem(const Layout &from, const Layout &to);

// The layout a buffer of layout `from` and `shape` has after `map`: the layout string whose own
// map (indexMapFromLayouts) computes the same indices over the shape, so that
// lambda n, h, w, c: [n, c // 4, h, w, c % 4] turns "NHWC" into "NCHW4c". nullopt when no
// layout string describes the map (a general map leaves the layout unnamed). `mapped` is
// mapShape(map, shape), which the caller has computed (and whose errors it reports).
std::optional<Layout> layoutAfterMap(const Layout &from, const IndexMap &map, const std::vector<Expr> &shape,
                                     const MappedShape &mapped);

} // namespace tirlower
