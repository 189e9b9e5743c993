// IndexMap: a function from logical indices to transformed indices,
// `lambda n, h, w, c: [n, c // 4, h, w, c % 4]`. Axis separators written with
// T.AXIS_SEPARATOR inside the result list are kept as positions in the final indices.
#pragma once

#include <optional>
#include <string>
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

// A key equal for two maps exactly when they are the same function written with other names for
// their indices (`lambda i, j: [j, i]` and `lambda a, b: [b, a]`): index types, result
// expressions with each index by position, constants with their types, and axis separators.
// Empty when a result refers to a variable other than the map's own indices (its meaning then
// depends on the function around it) or holds a node kind index maps do not use (loads, lets,
// vectors): such maps have no key and are never taken for one another.
std::optional<std::string> alphaKey(const IndexMapNode &map);
// Appends `type` as four bytes (code, bits, lanes) to a key that is only compared for equality
// (alphaKey, the plan keys of apply-layout-transforms): spelling types out was most of their cost.
void appendTypeKey(std::string &key, DataType type);

} // namespace tirlower
