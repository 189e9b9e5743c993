// convert-blocks-to-opaque: replaces each block iteration variable by the value it is bound
// to, everywhere in the block (body, predicate, regions, allocations), leaving blocks without
// iteration variables (as TVM's ConvertBlocksToOpaque).
// Preconditions: lower-init-block has run (a block with T.init() is an error, since the init's
// guard is written in the iteration variables).
//
//   with T.block("B"):                              with T.block("B"):
//       v_i = T.axis.spatial(16, i * 4 + j)   ->        T.reads(A[i * 4 + j])
//       T.reads(A[v_i])                                 T.writes(B[i * 4 + j])
//       T.writes(B[v_i])                                B[i * 4 + j] = A[i * 4 + j]
//       B[v_i] = A[v_i]
#include "ir/visitor.h"
#include "transform/body_pass.h"
#include "transform/passes.h"

namespace tirlower {

namespace {

class OpaqueConverter : public IRMutator {
protected:
  using IRMutator::visit;

  Stmt visit(const BlockNode *op) override {
    if (op->init)
      throw CompileError(op->init->loc, "block \"" + op->name.str() +
                                            "\" still has T.init(); run lower-init-block before convert-blocks-to-opaque");
    Stmt mutated = IRMutator::visit(op);
    const auto *block = mutated.as<BlockNode>();
    if (block->iterVars.empty())
      return mutated;
    std::vector<std::pair<Var, Expr>> bindings;
    for (const BlockIterVar &iv : block->iterVars)
      bindings.emplace_back(iv.var, iv.value);
    BlockNode::Fields f = block->fields();
    f.iterVars.clear();
    // Substituting in a block without iteration variables reaches every part of it.
    Stmt opaque = BlockNode::make(std::move(f), block->loc);
    return substitute(opaque, bindings);
  }
};

} // namespace

PassInfo convertBlocksToOpaquePassInfo() {
  PassInfo info;
  info.name = "convert-blocks-to-opaque";
  info.establishes = {IRProperty::BlocksOpaque};
  info.requirements = {IRProperty::InitBlocksLowered};
  info.summary = "replace block iteration variables by their bound values (blocks become opaque)";
  info.create = [](const PassOptions &) {
    return std::make_unique<BodyPass>([](const PrimFunc &func, PassContext &) {
      return findBlock(func->body) ? OpaqueConverter().mutate(func->body) : func->body;
    });
  };
  return info;
}

} // namespace tirlower
