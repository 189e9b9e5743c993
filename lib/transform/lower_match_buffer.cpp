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
#include "ir/equality.h"
#include "ir/visitor.h"
#include "transform/body_pass.h"
#include "transform/passes.h"

namespace tirlower {

namespace {

Expr multiply(const Expr &a, const Expr &b) {
  const int64_t *x = asConstInt(a), *y = asConstInt(b);
  if (x && *x == 1)
    return b;
  if (y && *y == 1)
    return a;
  if (x && y)
    return intImm(*x * *y, a->type);
  return BinaryNode::make(BinaryOp::Mul, a, b);
}

Expr add(const Expr &a, const Expr &b) {
  const int64_t *x = asConstInt(a), *y = asConstInt(b);
  if (x && *x == 0)
    return b;
  if (y && *y == 0)
    return a;
  if (x && y)
    return intImm(*x + *y, a->type);
  return BinaryNode::make(BinaryOp::Add, a, b);
}

Expr asType(const Expr &e, DataType type) { return e->type == type ? e : CastNode::make(type, e); }

// The view of `match.source` that `match.buffer` stands for.
Buffer regionView(const MatchBufferRegion &match, SourceRange loc) {
  const BufferNode &source = *match.source.buffer, &matched = *match.buffer;
  auto error = [&](const std::string &why) {
    throw CompileError(loc, "cannot lower T.match_buffer of '" + matched.name.str() + "' to a region of '" +
                                source.name.str() + "': " + why);
  };
  if (!matched.strides.empty() || (matched.elemOffset && !asConstInt(matched.elemOffset)))
    error("a matched buffer with strides or elem_offset of its own is not supported");
  if (matched.dtype != source.dtype)
    error("the dtypes differ (" + matched.dtype.str() + " and " + source.dtype.str() + ")");
  const std::vector<Range> &region = match.source.region;
  size_t rank = matched.rank(), lead = region.size() - std::min(region.size(), rank);
  if (rank > region.size())
    error("the matched buffer has more dimensions than the region");
  for (size_t k = 0; k < lead; ++k)
    if (const int64_t *e = asConstInt(region[k].extent); !e || *e != 1)
      error("region dimension " + std::to_string(k) + " has extent other than 1 and no matching dimension");
  DataType index = source.shape.empty() ? DataType::int32() : source.shape[0]->type;
  std::vector<Expr> strides(source.rank());
  for (size_t k = source.rank(); k-- > 0;)
    strides[k] = !source.strides.empty()       ? asType(source.strides[k], index)
                 : k + 1 == source.rank()      ? intImm(1, index)
                                               : multiply(strides[k + 1], asType(source.shape[k + 1], index));
  Expr offset = source.elemOffset ? asType(source.elemOffset, index) : intImm(0, index);
  for (size_t k = 0; k < region.size(); ++k)
    offset = add(offset, multiply(asType(region[k].min, index), strides[k]));
  BufferNode::Fields f = matched.fields();
  f.data = source.data;
  f.scope = source.scope;
  f.strides.assign(strides.begin() + static_cast<std::ptrdiff_t>(lead), strides.end());
  for (Expr &stride : f.strides)
    stride = asType(stride, f.shape.empty() ? index : f.shape[0]->type);
  f.elemOffset = offset;
  if (!f.shape.empty() && f.elemOffset->type != f.shape[0]->type)
    f.elemOffset = asType(f.elemOffset, f.shape[0]->type);
  return BufferNode::make(std::move(f));
}

class MatchBufferLowerer : public IRMutator {
protected:
  using IRMutator::visit;

  Buffer mutateBuffer(const Buffer &buffer) override {
    for (const auto &[from, to] : replaced_)
      if (from == buffer)
        return to;
    return buffer;
  }

  Expr visit(const VarNode *op) override {
    for (const auto &[from, to] : replaced_)
      if (from->data.get() == op)
        return to->data;
    return Expr(op);
  }

  Stmt visit(const BlockNode *op) override {
    if (op->matchBuffers.empty())
      return IRMutator::visit(op);
    size_t mark = replaced_.size();
    std::vector<Buffer> views;
    for (const MatchBufferRegion &match : op->matchBuffers) {
      MatchBufferRegion source{match.buffer, mutate(match.source, &unused_)};
      views.push_back(regionView(source, op->loc));
      replaced_.emplace_back(match.buffer, views.back());
    }
    BlockNode::Fields f = op->fields();
    f.matchBuffers.clear();
    Stmt lowered = IRMutator::visit(BlockNode::make(std::move(f), op->loc).as<BlockNode>());
    replaced_.resize(mark);
    BlockNode::Fields out = lowered.as<BlockNode>()->fields();
    for (auto it = views.rbegin(); it != views.rend(); ++it)
      out.body = DeclBufferNode::make(*it, false, out.body, op->loc);
    return BlockNode::make(std::move(out), op->loc);
  }

private:
  std::vector<std::pair<Buffer, Buffer>> replaced_;
  bool unused_ = false;
};

} // namespace

PassInfo lowerMatchBufferPassInfo() {
  PassInfo info;
  info.name = "lower-match-buffer";
  info.summary = "replace buffers matched to a region inside a block by views of that region";
  info.create = [](const PassOptions &) {
    return std::make_unique<BodyPass>(
        [](const PrimFunc &func, PassContext &) { return MatchBufferLowerer().mutate(func->body); });
  };
  return info;
}

} // namespace tirlower
