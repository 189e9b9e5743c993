#include "ir/elem_offset.h"

namespace tirlower {

namespace {
bool isConstant(const Expr &e, int64_t value) {
  const int64_t *v = asConstInt(e);
  return v && *v == value;
}
} // namespace

Expr flatElemOffset(const BufferNode &buffer, const Expr &index) {
  auto lanes = [&](const Expr &scalar) {
    Expr value = scalar->type == index->type.element() ? scalar : CastNode::make(index->type.element(), scalar);
    return index->type.isVector() ? BroadcastNode::make(value, index->type.lanes()) : value;
  };
  Expr e = index;
  if (!buffer.strides.empty() && !isConstant(buffer.strides[0], 1))
    e = BinaryNode::make(BinaryOp::Mul, e, lanes(buffer.strides[0]));
  if (buffer.elemOffset && !isConstant(buffer.elemOffset, 0))
    e = BinaryNode::make(BinaryOp::Add, e, lanes(buffer.elemOffset));
  return e;
}

Expr contiguousElemOffset(const BufferNode &buffer, const Expr &index) {
  if (!buffer.strides.empty())
    return {};
  const auto *ramp = index.as<RampNode>();
  bool unitRamp = ramp && isConstant(ramp->stride, 1);
  Expr first = index->type.isScalar() ? index : unitRamp ? ramp->base : Expr();
  if (!first)
    return {};
  if (buffer.dtype.isVector())
    first = BinaryNode::make(BinaryOp::Mul, first, IntImmNode::make(first->type, buffer.dtype.lanes()));
  return flatElemOffset(buffer, first);
}

} // namespace tirlower
