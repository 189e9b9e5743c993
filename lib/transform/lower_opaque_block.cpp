// lower-opaque-block: removes opaque blocks: a block's allocations become T.alloc_buffer
// statements around its body, its predicate (T.where) an if, and its reads, writes and
// annotations are dropped (as TVM's LowerOpaqueBlock). The result is low-level TIR.
// Preconditions: convert-blocks-to-opaque and lower-match-buffer have run (a block with
// iteration variables or matched buffers is an error naming the pass to run first).
//
//   with T.block("B"):                     if i < 10:
//       T.where(i < 10)              ->        C = T.alloc_buffer((4,), "float32")
//       T.reads(A[i])                          C[0] = A[i]
//       T.writes(B[i])                         B[i] = C[0]
//       C = T.alloc_buffer((4,), "float32")
//       C[0] = A[i]
//       B[i] = C[0]
#include "ir/visitor.h"
#include "transform/body_pass.h"
#include "transform/passes.h"

namespace tirlower {

namespace {

class OpaqueBlockLowerer : public IRMutator {
protected:
  using IRMutator::visit;

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
      body = IfThenElseNode::make(op->predicate, body, nullptr, op->loc);
    return body;
  }
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
