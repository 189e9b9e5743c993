#include "ir/vscale.h"

#include <unordered_map>

#include "ir/intrinsics.h"
#include "ir/diagnostic.h"
#include "ir/visitor.h"

namespace tirlower {

namespace {

bool isVscaleCall(const CallNode *op) {
  return op->intrinsic && op->intrinsic->id == IntrinsicId::VScale;
}

class VscaleFinder : public IRVisitor {
public:
  bool found = false;
  SourceRange where; // of the first one found

protected:
  using IRVisitor::visit;
  void note(const ExprNode *op, bool scalable) {
    if (scalable && !found)
      where = op->loc;
    found = found || scalable;
  }
  void visit(const CallNode *op) override {
    note(op, isVscaleCall(op) || op->type.isScalable());
    IRVisitor::visit(op);
  }
  void visit(const RampNode *op) override {
    note(op, op->type.isScalable());
    IRVisitor::visit(op);
  }
  void visit(const BroadcastNode *op) override {
    note(op, op->type.isScalable());
    IRVisitor::visit(op);
  }
  void visit(const CastNode *op) override {
    note(op, op->type.isScalable());
    IRVisitor::visit(op);
  }
  void visit(const VarNode *op) override { note(op, op->type.isScalable()); }
};

class VscaleFixer : public IRMutator {
public:
  explicit VscaleFixer(int vscale) : vscale_(vscale) {}

protected:
  using IRMutator::visit;

  DataType fixed(DataType t) const { return t.isScalable() ? t.withLanes(t.lanes() * vscale_) : t; }

  Expr visit(const CallNode *op) override {
    if (isVscaleCall(op))
      return IntImmNode::make(op->type, vscale_, op->loc);
    if (!op->type.isScalable())
      return IRMutator::visit(op);
    return CallNode::make(fixed(op->type), op->op, mutate(op->args), op->loc);
  }
  Expr visit(const RampNode *op) override {
    if (!op->type.isScalable())
      return IRMutator::visit(op);
    Expr base = mutate(op->base), stride = mutate(op->stride);
    int lanes = op->lanes * vscale_;
    return lanes == 1 ? base : RampNode::make(base, stride, lanes, op->loc);
  }
  Expr visit(const BroadcastNode *op) override {
    if (!op->type.isScalable())
      return IRMutator::visit(op);
    Expr value = mutate(op->value);
    int lanes = op->lanes * vscale_;
    return lanes == 1 ? value : BroadcastNode::make(value, lanes, op->loc);
  }
  Expr visit(const CastNode *op) override {
    if (!op->type.isScalable())
      return IRMutator::visit(op);
    return CastNode::make(fixed(op->type), mutate(op->value), op->loc);
  }
  Expr visit(const VarNode *op) override {
    auto it = vars_.find(op);
    return it == vars_.end() ? Expr(op) : Expr(it->second);
  }
  // A variable of a scalable type: a fixed one in its place.
  Var rebind(const Var &var) {
    if (!var->type.isScalable())
      return var;
    Var fresh = VarNode::make(var->name, fixed(var->type), var->loc);
    vars_[var.get()] = fresh;
    return fresh;
  }
  Expr visit(const LetNode *op) override {
    Expr value = mutate(op->value);
    Var var = rebind(op->var);
    Expr body = mutate(op->body);
    if (var == op->var && value == op->value && body == op->body)
      return Expr(op);
    return LetNode::make(var, value, body, op->loc);
  }
  Stmt visit(const LetStmtNode *op) override {
    Expr value = mutate(op->value);
    Var var = rebind(op->var);
    Stmt body = mutate(op->body);
    if (var == op->var && value == op->value && body == op->body)
      return Stmt(op);
    return LetStmtNode::make(var, value, body, op->loc);
  }

private:
  int vscale_;
  std::unordered_map<const VarNode *, Var> vars_;
};

} // namespace

std::optional<int64_t> scalableMultiplier(const Expr &e) {
  auto isVscale = [](const Expr &x) {
    const auto *call = x.as<CallNode>();
    return call && isVscaleCall(call);
  };
  if (isVscale(e))
    return 1;
  const auto *mul = e.as<BinaryNode>();
  if (!mul || mul->op != BinaryOp::Mul)
    return std::nullopt;
  const auto *a = mul->a.as<IntImmNode>(), *b = mul->b.as<IntImmNode>();
  if (b && isVscale(mul->a))
    return b->value;
  if (a && isVscale(mul->b))
    return a->value;
  return std::nullopt;
}

bool usesVscale(const Stmt &s) {
  VscaleFinder finder;
  static_cast<IRVisitor &>(finder).visit(s);
  return finder.found;
}

void rejectScalableVectors(const Stmt &s, const std::string &target) {
  VscaleFinder finder;
  static_cast<IRVisitor &>(finder).visit(s);
  if (finder.found)
    throw CompileError(finder.where, "scalable vectors (T.vscale()) are not supported by the " + target +
                                         " target: it has fixed-length vectors only");
}

Stmt fixVscale(const Stmt &s, int vscale) {
  return VscaleFixer(vscale).mutate(s);
}

} // namespace tirlower
