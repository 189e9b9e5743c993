// lower-init-block: moves each block's `T.init()` into its body, guarded by "every reduce
// iteration variable is at the minimum of its domain" (as TVM's LowerInitBlock).
// Preconditions: none; a function without blocks is unchanged.
//
//   with T.block("sum"):                          with T.block("sum"):
//       v_i, v_k = T.axis.remap("SR", [i, k])         v_i, v_k = T.axis.remap("SR", [i, k])
//       with T.init():                       ->       if v_k == 0:
//           B[v_i] = T.float32(0.0)                       B[v_i] = T.float32(0.0)
//       B[v_i] = B[v_i] + A[v_i, v_k]                 B[v_i] = B[v_i] + A[v_i, v_k]
#include "ir/visitor.h"
#include "transform/body_pass.h"
#include "transform/passes.h"

namespace tirlower {

namespace {

class InitLowerer : public IRMutator {
protected:
  using IRMutator::visit;

  Stmt visit(const BlockNode *op) override {
    Stmt mutated = IRMutator::visit(op);
    const auto *block = mutated.as<BlockNode>();
    if (!block->init)
      return mutated;
    Expr condition;
    for (const BlockIterVar &iv : block->iterVars) {
      if (iv.kind != IterKind::Reduce)
        continue;
      Expr atMin = BinaryNode::make(BinaryOp::EQ, iv.var, iv.min, block->init->loc);
      condition = condition ? BinaryNode::make(BinaryOp::And, condition, atMin, block->init->loc) : atMin;
    }
    BlockNode::Fields f = block->fields();
    f.body = SeqStmtNode::make({IfThenElseNode::make(condition, f.init, nullptr, f.init->loc), f.body}, f.body->loc);
    f.init = nullptr;
    return BlockNode::make(std::move(f), block->loc);
  }
};

} // namespace

PassInfo lowerInitBlockPassInfo() {
  PassInfo info;
  info.name = "lower-init-block";
  info.establishes = {IRProperty::InitBlocksLowered};
  info.summary = "move each block's T.init() into its body, guarded by its reduce variables being at their minimum";
  info.create = [](const PassOptions &) {
    return std::make_unique<BodyPass>([](const PrimFunc &func, PassContext &) {
      return findBlock(func->body) ? InitLowerer().mutate(func->body) : func->body;
    });
  };
  return info;
}

} // namespace tirlower
