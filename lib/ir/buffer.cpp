#include "ir/buffer.h"
#include "ir/storage_scope.h"

namespace tirlower {

Symbol globalScope() {
  static const Symbol global(scope::kGlobal);
  return global;
}

Buffer BufferNode::make(Fields f) {
  auto fail = [&](const std::string &message) { throw IRTypeError(message); };
  if (!f.data || !f.data->type.isHandle())
    fail("data of buffer '" + f.name.str() + "' must be a handle variable");
  if (f.dtype.isVoid() || f.dtype.isHandle())
    fail("buffer '" + f.name.str() + "' cannot have element type " + f.dtype.str());
  for (const Expr &e : f.shape)
    if (!e->type.isIndex())
      fail("shape of buffer '" + f.name.str() + "' must be scalar integers, not " + e->type.str());
  if (!f.strides.empty() && f.strides.size() != f.shape.size())
    fail("buffer '" + f.name.str() + "' has " + std::to_string(f.shape.size()) + " dimensions but " +
         std::to_string(f.strides.size()) + " strides");
  for (const Expr &e : f.strides)
    if (!e->type.isIndex())
      fail("strides of buffer '" + f.name.str() + "' must be scalar integers, not " + e->type.str());
  if (f.elemOffset && !f.elemOffset->type.isIndex())
    fail("elem_offset of buffer '" + f.name.str() + "' must be a scalar integer");
  int previous = 0;
  for (int sep : f.axisSeparators) {
    if (sep < previous || sep > static_cast<int>(f.shape.size()))
      fail("axis_separators of buffer '" + f.name.str() + "' must be non-decreasing and within [0, " +
           std::to_string(f.shape.size()) + "]");
    previous = sep;
  }
  auto *node = new BufferNode();
  node->name = f.name;
  node->data = std::move(f.data);
  node->dtype = f.dtype;
  node->shape = std::move(f.shape);
  node->strides = std::move(f.strides);
  node->elemOffset = std::move(f.elemOffset);
  node->scope = f.scope.empty() ? globalScope() : f.scope;
  node->axisSeparators = std::move(f.axisSeparators);
  node->layout = f.layout;
  node->loc = f.loc;
  return Buffer(node);
}

BufferNode::Fields BufferNode::fields() const {
  return {name, data, dtype, shape, strides, elemOffset, scope, axisSeparators, layout, loc};
}

bool BufferNode::hasDefaultScope() const { return scope == globalScope(); }

} // namespace tirlower
