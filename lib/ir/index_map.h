// IndexMap: a function from logical indices to transformed indices,
// `lambda n, h, w, c: [n, c // 4, h, w, c % 4]`. Axis separators written with
// T.AXIS_SEPARATOR inside the result list are kept as positions in the final indices.
#pragma once

#include <vector>

#include "ir/expr.h"

namespace tirlower {

class IndexMapNode : public Node {
public:
  std::vector<Var> initialIndices;
  std::vector<Expr> finalIndices;
  std::vector<int> axisSeparators; // count of final indices before each separator

  static Ref<IndexMapNode> make(std::vector<Var> initial, std::vector<Expr> final_,
                                std::vector<int> separators = {}, SourceRange loc = {});

private:
  IndexMapNode() = default;
};
using IndexMap = Ref<IndexMapNode>;

} // namespace tirlower
