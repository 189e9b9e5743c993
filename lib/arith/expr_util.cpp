#include "arith/expr_util.h"

#include <functional>

#include "ir/buffer.h"
#include "ir/functor.h"
#include "ir/visitor.h"

namespace tirlower {

namespace {

class SizeCounter : public IRVisitor {
public:
  size_t count = 0;
  using IRVisitor::visit;

protected:
  void visit(const VarNode *) override { ++count; }
  void visit(const IntImmNode *) override { ++count; }
  void visit(const FloatImmNode *) override { ++count; }
  void visit(const StringImmNode *) override { ++count; }
  void visit(const BinaryNode *op) override { ++count, IRVisitor::visit(op); }
  void visit(const NotNode *op) override { ++count, IRVisitor::visit(op); }
  void visit(const SelectNode *op) override { ++count, IRVisitor::visit(op); }
  void visit(const CastNode *op) override { ++count, IRVisitor::visit(op); }
  void visit(const RampNode *op) override { ++count, IRVisitor::visit(op); }
  void visit(const BroadcastNode *op) override { ++count, IRVisitor::visit(op); }
  void visit(const LetNode *op) override { ++count, IRVisitor::visit(op); }
  void visit(const CallNode *op) override { ++count, IRVisitor::visit(op); }
  void visit(const BufferLoadNode *op) override { ++count, IRVisitor::visit(op); }
};

// exprCost: every node counts 1 except integer constants (0) and a multiplication by an
// integer constant (its operands only). The simplifier asks for the cost of each rewrite at
// every level, so each node memoizes its subtree's cost (ExprNode::cachedCost), and a
// node's cost is its own plus its children's memoized ones.
class CostCounter : public ExprFunctor<size_t(const Expr &)> {
public:
  size_t cost(const Expr &e) {
    if (!e)
      return 0;
    if (uint8_t cached = e->cachedCost())
      return cached - 1u;
    size_t c = visitExpr(e);
    if (c < UINT8_MAX)
      e->cacheCost(static_cast<uint8_t>(c + 1));
    return c;
  }

protected:
  size_t visitVar(const VarNode *) override { return 1; }
  size_t visitIntImm(const IntImmNode *) override { return 0; }
  size_t visitFloatImm(const FloatImmNode *) override { return 1; }
  size_t visitStringImm(const StringImmNode *) override { return 1; }
  size_t visitBinary(const BinaryNode *op) override {
    bool byConstant = op->op == BinaryOp::Mul && (op->a.as<IntImmNode>() || op->b.as<IntImmNode>());
    return (byConstant ? 0 : 1) + cost(op->a) + cost(op->b);
  }
  size_t visitNot(const NotNode *op) override { return 1 + cost(op->a); }
  size_t visitSelect(const SelectNode *op) override {
    return 1 + cost(op->condition) + cost(op->trueValue) + cost(op->falseValue);
  }
  size_t visitCast(const CastNode *op) override { return 1 + cost(op->value); }
  size_t visitRamp(const RampNode *op) override { return 1 + cost(op->base) + cost(op->stride); }
  size_t visitBroadcast(const BroadcastNode *op) override { return 1 + cost(op->value); }
  size_t visitLet(const LetNode *op) override { return 1 + cost(op->value) + cost(op->body); }
  size_t visitCall(const CallNode *op) override { return 1 + sum(op->args); }
  size_t visitBufferLoad(const BufferLoadNode *op) override { return 1 + sum(op->indices); }

private:
  size_t sum(const std::vector<Expr> &list) {
    size_t total = 0;
    for (const Expr &e : list)
      total += cost(e);
    return total;
  }
};

class VarFinder : public IRVisitor {
public:
  explicit VarFinder(const std::vector<Var> &vars) : vars_(vars) {}
  bool found = false;
  using IRVisitor::visit;

protected:
  void visit(const VarNode *op) override {
    for (const Var &v : vars_)
      found = found || v.get() == op;
  }

private:
  const std::vector<Var> &vars_;
};

int compareInts(int64_t a, int64_t b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

int compareLists(const std::vector<Expr> &a, const std::vector<Expr> &b) {
  if (int c = compareInts(static_cast<int64_t>(a.size()), static_cast<int64_t>(b.size())))
    return c;
  for (size_t k = 0; k < a.size(); ++k)
    if (int c = structuralCompare(a[k], b[k]))
      return c;
  return 0;
}

size_t mix(size_t seed, size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

} // namespace

size_t exprSize(const Expr &e) {
  SizeCounter counter;
  counter.visit(e);
  return counter.count;
}

size_t exprCost(const Expr &e) {
  return CostCounter().cost(e);
}

bool usesAnyVar(const Expr &e, const std::vector<Var> &vars) {
  VarFinder finder(vars);
  finder.visit(e);
  return finder.found;
}

bool usesVar(const Expr &e, const VarNode *var) {
  struct Finder : IRVisitor {
    const VarNode *var = nullptr;
    bool found = false;
    using IRVisitor::visit;
    void visit(const VarNode *op) override { found |= op == var; }
  } finder;
  finder.var = var;
  finder.visit(e);
  return finder.found;
}

namespace {

// Hashes each node kind's fields into `h`, the hash of its kind and type; variables by name (equal
// expressions share their variables, so they hash alike).
class Hasher : public ExprFunctor<size_t(const Expr &, size_t)> {
protected:
  size_t visitVar(const VarNode *op, size_t h) override { return mix(h, std::hash<Symbol>()(op->name)); }
  size_t visitIntImm(const IntImmNode *op, size_t h) override { return mix(h, std::hash<int64_t>()(op->value)); }
  size_t visitFloatImm(const FloatImmNode *op, size_t h) override { return mix(h, floatValueHash(op->value)); }
  size_t visitStringImm(const StringImmNode *op, size_t h) override {
    return mix(h, std::hash<std::string>()(op->value));
  }
  size_t visitBinary(const BinaryNode *x, size_t h) override {
    return mix(mix(mix(h, static_cast<size_t>(x->op)), structuralHash(x->a)), structuralHash(x->b));
  }
  size_t visitNot(const NotNode *op, size_t h) override { return mix(h, structuralHash(op->a)); }
  size_t visitSelect(const SelectNode *x, size_t h) override {
    return mix(mix(mix(h, structuralHash(x->condition)), structuralHash(x->trueValue)), structuralHash(x->falseValue));
  }
  size_t visitCast(const CastNode *op, size_t h) override { return mix(h, structuralHash(op->value)); }
  size_t visitRamp(const RampNode *op, size_t h) override {
    return mix(mix(h, structuralHash(op->base)), structuralHash(op->stride));
  }
  size_t visitBroadcast(const BroadcastNode *op, size_t h) override { return mix(h, structuralHash(op->value)); }
  size_t visitLet(const LetNode *op, size_t h) override {
    return mix(mix(h, structuralHash(op->value)), structuralHash(op->body));
  }
  size_t visitCall(const CallNode *op, size_t h) override {
    for (const Expr &a : op->args)
      h = mix(h, structuralHash(a));
    return mix(h, std::hash<Symbol>()(op->op));
  }
  size_t visitBufferLoad(const BufferLoadNode *op, size_t h) override {
    for (const Expr &a : op->indices)
      h = mix(h, structuralHash(a));
    return mix(h, std::hash<Symbol>()(op->buffer->name));
  }
};

// Compares `a` with `other`, a node of the same kind and type (structuralCompare checks both).
class Comparer : public ExprFunctor<int(const Expr &, const ExprNode *)> {
protected:
  template <typename T> static const T &as(const ExprNode *other) { return *static_cast<const T *>(other); }

  int visitVar(const VarNode *a, const ExprNode *b) override {
    return a->name.view().compare(as<VarNode>(b).name.view());
  }
  int visitIntImm(const IntImmNode *a, const ExprNode *b) override {
    return compareInts(a->value, as<IntImmNode>(b).value);
  }
  int visitFloatImm(const FloatImmNode *a, const ExprNode *b) override {
    double x = a->value, y = as<FloatImmNode>(b).value;
    return x < y ? -1 : (y < x ? 1 : 0);
  }
  int visitStringImm(const StringImmNode *a, const ExprNode *b) override {
    return a->value.compare(as<StringImmNode>(b).value);
  }
  int visitBinary(const BinaryNode *x, const ExprNode *b) override {
    const auto &y = as<BinaryNode>(b);
    if (int c = compareInts(static_cast<int>(x->op), static_cast<int>(y.op)))
      return c;
    return compareLists({x->a, x->b}, {y.a, y.b});
  }
  int visitNot(const NotNode *a, const ExprNode *b) override { return structuralCompare(a->a, as<NotNode>(b).a); }
  int visitSelect(const SelectNode *x, const ExprNode *b) override {
    const auto &y = as<SelectNode>(b);
    return compareLists({x->condition, x->trueValue, x->falseValue}, {y.condition, y.trueValue, y.falseValue});
  }
  int visitCast(const CastNode *a, const ExprNode *b) override {
    return structuralCompare(a->value, as<CastNode>(b).value);
  }
  int visitRamp(const RampNode *x, const ExprNode *b) override {
    const auto &y = as<RampNode>(b);
    if (int c = compareInts(x->lanes, y.lanes))
      return c;
    return compareLists({x->base, x->stride}, {y.base, y.stride});
  }
  int visitBroadcast(const BroadcastNode *x, const ExprNode *b) override {
    const auto &y = as<BroadcastNode>(b);
    if (int c = compareInts(x->lanes, y.lanes))
      return c;
    return structuralCompare(x->value, y.value);
  }
  int visitLet(const LetNode *x, const ExprNode *b) override {
    const auto &y = as<LetNode>(b);
    return compareLists({x->var, x->value, x->body}, {y.var, y.value, y.body});
  }
  int visitCall(const CallNode *x, const ExprNode *b) override {
    const auto &y = as<CallNode>(b);
    if (int c = x->op.view().compare(y.op.view()))
      return c;
    return compareLists(x->args, y.args);
  }
  int visitBufferLoad(const BufferLoadNode *x, const ExprNode *b) override {
    const auto &y = as<BufferLoadNode>(b);
    if (int c = x->buffer->name.view().compare(y.buffer->name.view()))
      return c;
    return compareLists(x->indices, y.indices);
  }
};

} // namespace

size_t structuralHash(const Expr &e) {
  const DataType t = e->type;
  size_t h =
      mix(static_cast<size_t>(e->kind()) * 31,
          static_cast<size_t>(t.code()) << 32 | static_cast<size_t>(t.bits()) << 16 | static_cast<size_t>(t.lanes()));
  return Hasher().visitExpr(e, h);
}

int structuralCompare(const Expr &a, const Expr &b) {
  if (a.same(b))
    return 0;
  if (int c = compareInts(static_cast<int>(a->kind()), static_cast<int>(b->kind())))
    return c;
  if (a->type != b->type)
    return a->type.str() < b->type.str() ? -1 : 1;
  return Comparer().visitExpr(a, b.get());
}

} // namespace tirlower
