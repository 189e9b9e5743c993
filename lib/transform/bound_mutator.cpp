#include "transform/bound_mutator.h"

namespace tirlower {

Stmt BoundMutator::visit(const ForNode *op) {
  Expr min = mutate(op->min), extent = mutate(op->extent);
  analyzer_.bindRange(op->loopVar, min, extent);
  Stmt body = mutate(op->body);
  analyzer_.unbind(op->loopVar);
  if (min == op->min && extent == op->extent && body == op->body)
    return Stmt(op);
  return ForNode::make(op->loopVar, min, extent, op->forKind, body, op->threadTag, op->annotations, op->loc);
}

Stmt BoundMutator::visit(const LetStmtNode *op) {
  Expr value = mutate(op->value);
  if (value->type.isIndex())
    analyzer_.bindValue(op->var, value);
  Stmt body = mutate(op->body);
  analyzer_.unbind(op->var);
  if (value == op->value && body == op->body)
    return Stmt(op);
  return LetStmtNode::make(op->var, value, body, op->loc);
}

Stmt BoundMutator::visit(const AttrStmtNode *op) {
  const VarNode *var = op->threadVar();
  if (!var)
    return IRMutator::visit(op);
  Expr value = mutate(op->value);
  Var thread(var);
  analyzer_.bindRange(thread, intImm(0, var->type), value);
  Stmt body = mutate(op->body);
  analyzer_.unbind(thread);
  if (value == op->value && body == op->body)
    return Stmt(op);
  return AttrStmtNode::like(*op, op->node, value, body);
}

} // namespace tirlower
