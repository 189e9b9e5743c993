// Lowering of buffer accesses to typed IR: a buffer named in an expression, `B[i, j]` (a
// BufferLoad), `B[()]` of a 0-d buffer, `B.shape[k]`, and the slice `B[b:b+4]` as a Ramp index.
// Names, literals and operators are lower_expr.cpp.
#include <functional>

#include "parse/parser_impl.h"

namespace tirlower {

Buffer Parser::bufferNamed(uint32_t id) {
  if (node(id).kind != Ast::Name)
    fail(nodeRange(id), "expected a buffer name");
  const Binding *binding = scope_.find(nodeText(id));
  if (!binding)
    undefinedName(id);
  if (binding->kind == Binding::Kind::Poisoned)
    failSilently();
  if (binding->kind != Binding::Kind::Buffer)
    fail(nodeRange(id), "'" + std::string(nodeText(id)) + "' is not a buffer");
  return binding->buffer;
}

Expr Parser::lowerSlice(uint32_t id) {
  SourceRange where = nodeRange(id);
  uint32_t start = child(id, 0), stop = child(id, 1), step = child(id, 2);
  if (node(stop).kind == Ast::Empty)
    fail(where, "a slice index needs an explicit end; use T.Ramp(base, stride, lanes)");
  int64_t stride = 1;
  if (node(step).kind != Ast::Empty) {
    stride = constantInt(step, "slice step");
    if (stride <= 0)
      fail(nodeRange(step), "slice step must be positive");
  }
  Typed base =
      node(start).kind == Ast::Empty ? Typed{IntImmNode::make(DataType::int32(), 0, where), true} : lower(start);
  std::optional<int64_t> count;
  // Structural equality of two ASTs, so `b:b+4` is seen as four lanes.
  std::function<bool(uint32_t, uint32_t)> same = [&](uint32_t a, uint32_t b) {
    const AstNode &x = node(a), &y = node(b);
    if (x.kind != y.kind || x.op != y.op || x.count != y.count)
      return false;
    if (x.kind == Ast::Name || x.kind == Ast::Int || x.kind == Ast::Float || x.kind == Ast::String ||
        x.kind == Ast::Attr || x.kind == Ast::Keyword)
      if (nodeText(a) != nodeText(b))
        return false;
    for (uint32_t k = 0; k < x.count; ++k)
      if (!same(child(a, k), child(b, k)))
        return false;
    return true;
  };
  const AstNode &stopNode = node(stop);
  if (base.literal && base.expr.as<IntImmNode>() && stopNode.kind == Ast::Int) {
    count = intLiteral(stop) - base.expr.as<IntImmNode>()->value;
  } else if (stopNode.kind == Ast::Binary && stopNode.op == Tok::Plus && node(start).kind != Ast::Empty &&
             node(child(stop, 1)).kind == Ast::Int && same(child(stop, 0), start)) {
    count = intLiteral(child(stop, 1));
  }
  if (!count)
    fail(where, "the lane count of a slice must be a constant ('b:b+4'); use T.Ramp(base, stride, lanes)");
  int64_t lanes = (*count + stride - 1) / stride;
  if (lanes < 2 || lanes > 65535)
    fail(where, "a slice index must select between 2 and 65535 elements, not " + std::to_string(lanes));
  Expr baseExpr = base.expr;
  if (!baseExpr->type.isIndex())
    fail(nodeRange(start), "slice start must be a scalar integer, not " + baseExpr->type.str());
  Expr strideExpr = checked(where, [&] { return IntImmNode::make(baseExpr->type, stride, where); });
  return checked(where, [&] { return RampNode::make(baseExpr, strideExpr, static_cast<int>(lanes), where); });
}

Typed Parser::lowerSubscript(uint32_t id) {
  SourceRange where = nodeRange(id);
  uint32_t base = child(id, 0);
  if (node(base).kind == Ast::Attr && nodeName(base) == "shape" && node(child(base, 0)).kind == Ast::Name &&
      nodeText(child(base, 0)) != "T") {
    Buffer buffer = bufferNamed(child(base, 0));
    if (node(id).count != 2)
      fail(where, "'.shape' takes one index");
    int64_t k = constantInt(child(id, 1), "shape index");
    if (k < 0 || k >= static_cast<int64_t>(buffer->rank()))
      fail(where, "shape index " + std::to_string(k) + " is out of range for buffer '" + buffer->name.str() +
                      "' of rank " + std::to_string(buffer->rank()));
    return {buffer->shape[k], false};
  }
  if (node(base).kind != Ast::Name)
    fail(nodeRange(base), "only buffers can be indexed");
  Buffer buffer = bufferNamed(base);
  std::vector<Expr> indices = lowerIndices(id);
  return {checked(where, [&] { return BufferLoadNode::make(buffer, std::move(indices), where); }), false};
}

// The indices of `buf[i, j]`; `buf[()]` (how TVM writes an element of a 0-d buffer) has none.
std::vector<Expr> Parser::lowerIndices(uint32_t subscript) {
  std::vector<Expr> indices;
  const AstNode n = node(subscript);
  if (n.count == 2 && node(child(subscript, 1)).kind == Ast::Tuple && node(child(subscript, 1)).count == 0)
    return indices;
  indices.reserve(n.count - 1);
  for (uint32_t k = 1; k < n.count; ++k)
    indices.push_back(lowerIndex(child(subscript, k)));
  return indices;
}

} // namespace tirlower
