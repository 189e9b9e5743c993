// remove-no-op: deletes statements that do nothing: stores of a value to the element it was
// loaded from (indices provably equal under the loops and lets around it), evaluations of
// constants, loops that run no iteration, loops and branches whose bodies do nothing, and
// allocations and lets whose bodies do nothing. While loops are kept: an empty one may never end.
//
// Preconditions: none; any well-formed function. Stores with side effects in their value
// (calls) are kept.
//
//   for i in range(16):                  T.evaluate(0)
//       A[i] = A[i]               ->
#include "transform/body_pass.h"
#include "transform/passes.h"

#include "arith/analyzer.h"
#include "ir/equality.h"
#include "ir/intrinsics.h"
#include "ir/visitor.h"

namespace tirlower {

namespace {

// Calls that must stay: call_extern (opaque), assume (a fact for the compiler, kept as TVM
// keeps it), and calls of names the intrinsic table does not know.
bool hasSideEffects(const Expr &e) {
  struct Finder : IRVisitor {
    bool found = false;
    using IRVisitor::visit;
    void visit(const CallNode *op) override {
      found |= !op->intrinsic || op->intrinsic->effect >= CallEffect::EmbedInfo;
      IRVisitor::visit(op);
    }
  } finder;
  finder.visit(e);
  return finder.found;
}

Stmt noOp(SourceRange loc) {
  return SeqStmtNode::make({}, loc);
}

class NoOpRemover : public IRMutator {
protected:
  using IRMutator::visit;

  Stmt visit(const BufferStoreNode *op) override {
    if (const auto *load = op->value.as<BufferLoadNode>())
      if (load->buffer == op->buffer && sameIndices(load->indices, op->indices))
        return noOp(op->loc);
    return IRMutator::visit(op);
  }
  Stmt visit(const EvaluateNode *op) override { return hasSideEffects(op->value) ? Stmt(op) : noOp(op->loc); }
  Stmt visit(const ForNode *op) override {
    // A loop that provably runs no iteration (its extent at most 0 for every value of the loops
    // around it) does nothing.
    if (analyzer_.canProve(BinaryNode::make(BinaryOp::LE, op->extent, intImm(0, op->extent->type))))
      return noOp(op->loc);
    analyzer_.bindRange(op->loopVar, op->min, op->extent);
    Stmt s = IRMutator::visit(op);
    analyzer_.unbind(op->loopVar);
    return isNoOp(s.as<ForNode>()->body) ? noOp(op->loc) : s;
  }
  Stmt visit(const IfThenElseNode *op) override {
    Stmt s = IRMutator::visit(op);
    const auto *branch = s.as<IfThenElseNode>();
    bool thenEmpty = isNoOp(branch->thenCase), elseEmpty = !branch->elseCase || isNoOp(branch->elseCase);
    if (thenEmpty && elseEmpty && !hasSideEffects(branch->condition))
      return noOp(op->loc);
    if (!thenEmpty && elseEmpty && branch->elseCase)
      return IfThenElseNode::make(branch->condition, branch->thenCase, nullptr, op->loc);
    if (thenEmpty && !elseEmpty)
      return IfThenElseNode::make(NotNode::make(branch->condition, branch->condition->loc), branch->elseCase, nullptr,
                                  op->loc);
    return s;
  }
  Stmt visit(const LetStmtNode *op) override {
    lets_.emplace_back(op->var, op->value);
    Stmt s = dropIfEmpty(IRMutator::visit(op), op->value);
    lets_.pop_back();
    return s;
  }
  Stmt visit(const AllocateNode *op) override { return dropIfEmpty(IRMutator::visit(op), nullptr); }
  Stmt visit(const AllocBufferNode *op) override { return dropIfEmpty(IRMutator::visit(op), nullptr); }
  Stmt visit(const DeclBufferNode *op) override { return dropIfEmpty(IRMutator::visit(op), nullptr); }
  Stmt visit(const AttrStmtNode *op) override { return dropIfEmpty(IRMutator::visit(op), op->value); }
  Stmt visit(const SeqStmtNode *op) override {
    std::vector<Stmt> kept;
    bool changed = false;
    for (const Stmt &s : op->stmts) {
      Stmt m = mutate(s);
      changed |= m != s;
      if (isNoOp(m)) {
        changed = true;
        continue;
      }
      kept.push_back(m);
    }
    return changed ? SeqStmtNode::make(std::move(kept), op->loc) : Stmt(op);
  }

private:
  // Indices provably equal where the store is (`A[4 * io + ii] = A[i]` under `i = 4 * io + ii`).
  bool sameIndices(const std::vector<Expr> &a, const std::vector<Expr> &b) {
    if (a.size() != b.size())
      return false;
    for (size_t k = 0; k < a.size(); ++k)
      if (!structurallyEqual(a[k], b[k]) && !(a[k]->type == b[k]->type && a[k]->type.isScalar() &&
                                              analyzer_.canProveEqual(inlined(a[k]), inlined(b[k]))))
        return false;
    return true;
  }
  // `e` with the lets around the point replaced by their values (inner ones first: their values
  // may name outer ones).
  Expr inlined(Expr e) const {
    for (auto it = lets_.rbegin(); it != lets_.rend(); ++it)
      e = substitute(e, {*it});
    return e;
  }

  Analyzer analyzer_;                      // the ranges of the loops around the point
  std::vector<std::pair<Var, Expr>> lets_; // the lets around it, innermost last

  // A scoping statement whose body does nothing does nothing, unless its value has effects.
  static Stmt dropIfEmpty(Stmt s, const Expr &value) {
    const Stmt *body = nullptr;
    // kind-switch: the body of the scoping kinds, a classification, not a walk (loops are handled
    // elsewhere, so ir's scopedBody, which includes them, does not fit).
    switch (s->kind()) {
    case StmtKind::LetStmt: body = &s.as<LetStmtNode>()->body; break;
    case StmtKind::Allocate: body = &s.as<AllocateNode>()->body; break;
    case StmtKind::AllocBuffer: body = &s.as<AllocBufferNode>()->body; break;
    case StmtKind::DeclBuffer: body = &s.as<DeclBufferNode>()->body; break;
    case StmtKind::AttrStmt: body = &s.as<AttrStmtNode>()->body; break;
    default: return s;
    }
    if (isNoOp(*body) && !(value && hasSideEffects(value)))
      return noOp(s->loc);
    return s;
  }
};

} // namespace

PassInfo removeNoOpPassInfo() {
  PassInfo info;
  info.name = "remove-no-op";
  info.summary = "delete stores of a value to itself, empty loops and branches, and unused scopes";
  info.create = [](const PassOptions &) {
    return std::make_unique<BodyPass>(
        [](const PrimFunc &func, PassContext &) { return NoOpRemover().mutate(func->body); });
  };
  return info;
}

} // namespace tirlower
