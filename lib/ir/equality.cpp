#include "ir/equality.h"

#include "ir/buffer.h"

namespace tirlower {

bool structurallyEqual(const std::vector<Expr> &a, const std::vector<Expr> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (!structurallyEqual(a[k], b[k]))
      return false;
  return true;
}

bool structurallyEqual(const Expr &a, const Expr &b) {
  if (a == b)
    return true;
  if (!a || !b || a->kind() != b->kind() || a->type != b->type)
    return false;
  switch (a->kind()) {
  case ExprKind::Var: return false; // distinct objects
  case ExprKind::IntImm: return a.as<IntImmNode>()->value == b.as<IntImmNode>()->value;
  case ExprKind::FloatImm: {
    double x = a.as<FloatImmNode>()->value, y = b.as<FloatImmNode>()->value;
    return x == y || (x != x && y != y);
  }
  case ExprKind::StringImm: return a.as<StringImmNode>()->value == b.as<StringImmNode>()->value;
  case ExprKind::Binary: {
    const auto *x = a.as<BinaryNode>(), *y = b.as<BinaryNode>();
    return x->op == y->op && structurallyEqual(x->a, y->a) && structurallyEqual(x->b, y->b);
  }
  case ExprKind::Not: return structurallyEqual(a.as<NotNode>()->a, b.as<NotNode>()->a);
  case ExprKind::Select: {
    const auto *x = a.as<SelectNode>(), *y = b.as<SelectNode>();
    return structurallyEqual(x->condition, y->condition) && structurallyEqual(x->trueValue, y->trueValue) &&
           structurallyEqual(x->falseValue, y->falseValue);
  }
  case ExprKind::Cast: return structurallyEqual(a.as<CastNode>()->value, b.as<CastNode>()->value);
  case ExprKind::Ramp: {
    const auto *x = a.as<RampNode>(), *y = b.as<RampNode>();
    return x->lanes == y->lanes && structurallyEqual(x->base, y->base) && structurallyEqual(x->stride, y->stride);
  }
  case ExprKind::Broadcast: {
    const auto *x = a.as<BroadcastNode>(), *y = b.as<BroadcastNode>();
    return x->lanes == y->lanes && structurallyEqual(x->value, y->value);
  }
  case ExprKind::Let: {
    const auto *x = a.as<LetNode>(), *y = b.as<LetNode>();
    return x->var == y->var && structurallyEqual(x->value, y->value) && structurallyEqual(x->body, y->body);
  }
  case ExprKind::Call: {
    const auto *x = a.as<CallNode>(), *y = b.as<CallNode>();
    return x->op == y->op && structurallyEqual(x->args, y->args);
  }
  case ExprKind::BufferLoad: {
    const auto *x = a.as<BufferLoadNode>(), *y = b.as<BufferLoadNode>();
    return x->buffer == y->buffer && structurallyEqual(x->indices, y->indices);
  }
  }
  return false;
}

} // namespace tirlower
