// lower-match-buffer: replaces each buffer a block matches to a region of another
// (`B = T.match_buffer(A[v_i, 0:16], (16,))`) by a view of that region: a buffer over A's
// data with A's strides for the matched dimensions and the region's start as its element
// offset, declared where the block's body begins (as TVM's LowerMatchBuffer, which rewrites
// B's accesses into A's).
// Preconditions: the matched buffer declares no strides or elem_offset of its own, has the
// source's dtype, and its dimensions are the trailing dimensions of the region (the leading
// ones have extent 1); anything else is an error at the match.
//
//   with T.block("row"):                             with T.block("row"):
//       B = T.match_buffer(A[i, 0:16], (16,))  ->        B = T.decl_buffer((16,), data=A.data,
//       B[3] = T.float32(0)                                  strides=(1,), elem_offset=i * 16)
//                                                        B[3] = T.float32(0)
#include "ir/visitor.h"
#include "transform/body_pass.h"
#include "transform/passes.h"

namespace tirlower {

namespace {

class MatchBufferLowerer : public IRMutator {
protected:
  using IRMutator::visit;

  Stmt visit(const BlockNode *op) override {
    Stmt mutated = IRMutator::visit(op); // inner blocks first
    const auto *block = mutated.as<BlockNode>();
    if (block->matchBuffers.empty())
      return mutated;
    std::vector<std::pair<Buffer, Buffer>> views;
    for (const MatchBufferRegion &match : block->matchBuffers) {
      try {
        views.emplace_back(match.buffer, regionView(match));
      } catch (const IRTypeError &e) {
        throw CompileError(block->loc, "lower-match-buffer: " + std::string(e.what()));
      }
    }
    BlockNode::Fields f = block->fields();
    f.matchBuffers.clear();
    f.init = f.init ? substituteBuffers(f.init, views) : nullptr;
    f.body = substituteBuffers(f.body, views);
    for (auto it = views.rbegin(); it != views.rend(); ++it)
      f.body = DeclBufferNode::make(it->second, false, f.body, block->loc);
    return BlockNode::make(std::move(f), block->loc);
  }
};

} // namespace

PassInfo lowerMatchBufferPassInfo() {
  PassInfo info;
  info.name = "lower-match-buffer";
  info.establishes = {IRProperty::MatchBuffersLowered};
  info.summary = "replace buffers matched to a region inside a block by views of that region";
  info.create = [](const PassOptions &) {
    return std::make_unique<BodyPass>([](const PrimFunc &func, PassContext &) {
      return findBlock(func->body) ? MatchBufferLowerer().mutate(func->body) : func->body;
    });
  };
  return info;
}

} // namespace tirlower
