#include "ir/index_map.h"

namespace tirlower {

IndexMap IndexMapNode::make(std::vector<Var> initial, std::vector<Expr> final_, std::vector<int> separators,
                            SourceRange loc) {
  int previous = 0;
  for (int sep : separators) {
    if (sep < previous || sep > static_cast<int>(final_.size()))
      throw IRTypeError("axis separators of an index map must be non-decreasing and within the result");
    previous = sep;
  }
  for (const Expr &e : final_)
    if (!e->type.isIndex())
      throw IRTypeError("index map results must be scalar integers, not " + e->type.str());
  auto *node = new IndexMapNode();
  node->initialIndices = std::move(initial);
  node->finalIndices = std::move(final_);
  node->axisSeparators = std::move(separators);
  node->loc = loc;
  return IndexMap(node);
}

} // namespace tirlower
