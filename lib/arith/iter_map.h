// Iter-map detection: writes each final index of an index map as base + sum of
// scale * ((mark // lower) % extent), where a mark is an input variable or a fused sum of
// splits (i * 16 + j, i + 1), and checks injectivity explicitly: the splits of every mark must
// tile it (lower factors chain up to its extent, the top one possibly padded), and the splits
// inside one result must not overlap.
#pragma once

#include <optional>
#include <vector>

#include "arith/analyzer.h"
#include "ir/index_map.h"

namespace tirlower {

struct IterSplit {
  int mark = -1;
  int64_t lower = 1;
  std::optional<int64_t> modulo; // none: a plain floordiv (the top digit)
  Expr extent;                   // number of values the digit takes
  int64_t scale = 1;             // coefficient in the result (or in the fused mark)
};

struct IterMark {
  int var = -1;                 // input position for a variable; -1 for a fused mark
  int64_t offset = 0;           // constant added inside a fused mark (left padding)
  Expr extent;                  // offset + number of values: the digits tile [0, extent)
  std::vector<IterSplit> parts; // fused mark: its components, by increasing scale
  std::vector<IterSplit> zeros; // fused mark: components that take a single value (0)
  std::vector<IterSplit> uses;  // the digits taken of this mark, by increasing lower
};

struct IterSum {
  std::vector<IterSplit> splits; // by increasing scale
  std::vector<IterSplit> zeros;  // digits that take a single value (0): no part of the result
  int64_t base = 0;
  Expr extent; // extent of the result over the input shape
};

struct IterMap {
  std::vector<IterMark> marks;
  std::vector<IterSum> results;
};

// Detects the structure of `map` over `shape` (rank already checked), with `analyzer` holding
// the ranges of the map's inputs. Throws CompileError located at the map for results that are
// not affine and for maps that are not injective.
IterMap detectIterMap(const IndexMapNode &map, const std::vector<Expr> &shape, Analyzer &analyzer);

} // namespace tirlower
