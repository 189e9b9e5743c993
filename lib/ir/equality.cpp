#include "ir/equality.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>

#include "ir/buffer.h"
#include "ir/functor.h"

namespace tirlower {

namespace {

// Compares `a` with `other`, a node of the same kind and type (visitExpr checks both first).
class EqualityFunctor : public ExprFunctor<bool(const Expr &, const ExprNode *)> {
public:
  bool equal(const Expr &a, const Expr &b) {
    if (a == b)
      return true;
    if (!a || !b || a->kind() != b->kind() || a->type != b->type)
      return false;
    return visitExpr(a, b.get());
  }

protected:
  template <typename T> static const T &as(const ExprNode *other) { return *static_cast<const T *>(other); }

  bool visitVar(const VarNode *, const ExprNode *) override { return false; } // distinct objects
  bool visitIntImm(const IntImmNode *a, const ExprNode *b) override { return a->value == as<IntImmNode>(b).value; }
  bool visitFloatImm(const FloatImmNode *a, const ExprNode *b) override {
    return sameFloatValue(a->value, as<FloatImmNode>(b).value);
  }
  bool visitStringImm(const StringImmNode *a, const ExprNode *b) override {
    return a->value == as<StringImmNode>(b).value;
  }
  bool visitBinary(const BinaryNode *a, const ExprNode *b) override {
    const auto &y = as<BinaryNode>(b);
    return a->op == y.op && equal(a->a, y.a) && equal(a->b, y.b);
  }
  bool visitNot(const NotNode *a, const ExprNode *b) override { return equal(a->a, as<NotNode>(b).a); }
  bool visitSelect(const SelectNode *a, const ExprNode *b) override {
    const auto &y = as<SelectNode>(b);
    return equal(a->condition, y.condition) && equal(a->trueValue, y.trueValue) && equal(a->falseValue, y.falseValue);
  }
  bool visitCast(const CastNode *a, const ExprNode *b) override { return equal(a->value, as<CastNode>(b).value); }
  bool visitRamp(const RampNode *a, const ExprNode *b) override {
    const auto &y = as<RampNode>(b);
    return a->lanes == y.lanes && equal(a->base, y.base) && equal(a->stride, y.stride);
  }
  bool visitBroadcast(const BroadcastNode *a, const ExprNode *b) override {
    const auto &y = as<BroadcastNode>(b);
    return a->lanes == y.lanes && equal(a->value, y.value);
  }
  bool visitLet(const LetNode *a, const ExprNode *b) override {
    const auto &y = as<LetNode>(b);
    return a->var == y.var && equal(a->value, y.value) && equal(a->body, y.body);
  }
  bool visitCall(const CallNode *a, const ExprNode *b) override {
    const auto &y = as<CallNode>(b);
    return a->op == y.op && structurallyEqual(a->args, y.args);
  }
  bool visitBufferLoad(const BufferLoadNode *a, const ExprNode *b) override {
    const auto &y = as<BufferLoadNode>(b);
    return a->buffer == y.buffer && structurallyEqual(a->indices, y.indices);
  }
};

} // namespace

bool sameFloatValue(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

size_t floatValueHash(double value) {
  return std::isnan(value) ? 0x7ff8u : std::hash<double>()(value);
}

bool structurallyEqual(const std::vector<Expr> &a, const std::vector<Expr> &b) {
  if (a.size() != b.size())
    return false;
  EqualityFunctor equality;
  for (size_t k = 0; k < a.size(); ++k)
    if (!equality.equal(a[k], b[k]))
      return false;
  return true;
}

bool structurallyEqual(const Expr &a, const Expr &b) {
  return EqualityFunctor().equal(a, b);
}

} // namespace tirlower
