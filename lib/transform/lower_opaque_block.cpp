// lower-opaque-block: removes opaque blocks: a block's allocations become T.alloc_buffer
// statements around its body, its predicate (T.where) an if, and its reads, writes and
// annotations are dropped (as TVM's LowerOpaqueBlock). A loop of one iteration without
// annotations (not thread-bound) goes too, its variable replaced by its start, as TVM's pass
// does. The result is low-level TIR; functions without blocks are left as they are.
// Preconditions: convert-blocks-to-opaque and lower-match-buffer have run (a block with
// iteration variables or matched buffers is an error naming the pass to run first).
//
//   for j in range(1):                     if i < 10:
//       with T.block("B"):                     C = T.alloc_buffer((4,), "float32")
//           T.where(i < 10)          ->        C[0] = A[i + 0]
//           T.reads(A[i + j])                  B[i] = C[0]
//           T.writes(B[i])
//           C = T.alloc_buffer((4,), "float32")
//           C[0] = A[i + j]
//           B[i] = C[0]
#include <unordered_map>

#include "ir/visitor.h"
#include "transform/body_pass.h"
#include "transform/passes.h"

namespace tirlower {

namespace {

class OpaqueBlockLowerer : public IRMutator {
protected:
  using IRMutator::visit;

  Expr visit(const VarNode *op) override {
    auto it = unitLoops_.find(op);
    return it == unitLoops_.end() ? IRMutator::visit(op) : it->second;
  }
  Stmt visit(const ForNode *op) override {
    const int64_t *extent = asConstInt(op->extent);
    if (!extent || *extent != 1 || op->forKind == ForKind::ThreadBinding || !op->annotations.empty())
      return IRMutator::visit(op);
    Expr min = mutate(op->min);
    unitLoops_.emplace(op->loopVar.get(), min->type == op->loopVar->type ? min : CastNode::make(op->loopVar->type, min));
    Stmt body = mutate(op->body);
    unitLoops_.erase(op->loopVar.get());
    return body;
  }

  Stmt visit(const BlockNode *op) override {
    if (!op->iterVars.empty())
      throw CompileError(op->loc, "block \"" + op->name.str() +
                                      "\" still has iteration variables; run convert-blocks-to-opaque first");
    if (!op->matchBuffers.empty())
      throw CompileError(op->loc, "block \"" + op->name.str() + "\" still matches buffer '" +
                                      op->matchBuffers.front().buffer->name.str() + "'; run lower-match-buffer first");
    if (op->init)
      throw CompileError(op->init->loc, "block \"" + op->name.str() + "\" still has T.init(); run lower-init-block first");
    Stmt body = mutate(op->body);
    for (auto it = op->allocBuffers.rbegin(); it != op->allocBuffers.rend(); ++it)
      body = AllocBufferNode::make(*it, body, op->loc);
    if (op->predicate)
      body = IfThenElseNode::make(mutate(op->predicate), body, nullptr, op->loc);
    return body;
  }

private:
  std::unordered_map<const VarNode *, Expr> unitLoops_; // loops of one iteration: their starts
};

} // namespace

PassInfo lowerOpaqueBlockPassInfo() {
  PassInfo info;
  info.name = "lower-opaque-block";
  info.establishes = {IRProperty::BlocksLowered};
  info.requirements = {IRProperty::BlocksOpaque, IRProperty::MatchBuffersLowered};
  info.summary = "remove opaque blocks: allocations become T.alloc_buffer, predicates become ifs";
  info.create = [](const PassOptions &) {
    return std::make_unique<BodyPass>([](const PrimFunc &func, PassContext &) {
      return findBlock(func->body) ? OpaqueBlockLowerer().mutate(func->body) : func->body;
    });
  };
  return info;
}

} // namespace tirlower
