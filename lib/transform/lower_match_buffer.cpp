// lower-match-buffer: removes each buffer a block matches to a region of another
// (`B = T.match_buffer(A[v_i, 0:16], (16,))`), as TVM's LowerMatchBuffer: B's loads and stores
// become A's, at the region's start plus B's indices (B's dimensions are the region's trailing
// ones; the leading ones, of extent 1, stay at the region's start), and so do the regions of
// T.reads/T.writes and of matches nested inside that name B. The variables B's declaration
// binds take their values: strides written as names (`strides=("Bs_0", "Bs_1")`) are A's
// strides, an elem_offset name is the region's start offset. A stride, offset or dimension given
// as anything else must provably equal A's.
//
// A matched buffer whose data is used other than by its loads and stores (its address passed to
// a call, another view of it) becomes a view instead: a buffer over A's data with A's strides
// and the region's start as its element offset, declared where the block's body begins. That
// view cannot be given strides or an elem_offset of its own.
// Preconditions: the matched buffer has the source's dtype and no more dimensions than the
// region; the leading region dimensions it has no dimension for have extent 1. Anything else is
// an error at the match.
//
//   with T.block("row"):                             with T.block("row"):
//       B = T.match_buffer(A[i, 0:16], (16,))  ->        A[i, 3] = T.float32(0)
//       B[3] = T.float32(0)
#include <unordered_map>
#include <unordered_set>

#include "arith/analyzer.h"
#include "arith/expr_util.h"
#include "ir/visitor.h"
#include "transform/body_pass.h"
#include "transform/passes.h"

namespace tirlower {

namespace {

// The data variables used other than as the buffer of a load or store (opaque uses).
class OpaqueData : public IRVisitor {
public:
  std::unordered_set<const VarNode *> used;
  void run(const Stmt &s) { visit(s); }

protected:
  using IRVisitor::visit;
  void visit(const VarNode *op) override { used.insert(op); }
  void visitBuffer(const Buffer &b) override {
    if (!first_.emplace(b->data.get(), b.get()).second && first_[b->data.get()] != b.get())
      used.insert(b->data.get()); // two buffers over one data variable: an alias
  }

private:
  std::unordered_map<const VarNode *, const BufferNode *> first_;
};

Expr asType(const Expr &e, DataType type) {
  return e->type == type ? e : CastNode::make(type, e);
}

class MatchBufferLowerer : public IRMutator {
public:
  MatchBufferLowerer(const PrimFunc &func, std::unordered_set<const VarNode *> opaque) : opaque_(std::move(opaque)) {
    for (const Var &p : func->params)
      fixed_.insert(p.get());
  }

protected:
  using IRMutator::visit;

  Expr visit(const VarNode *op) override {
    auto it = binds_.find(op);
    return it == binds_.end() ? IRMutator::visit(op) : it->second;
  }
  Stmt visit(const ForNode *op) override {
    fixed_.insert(op->loopVar.get());
    analyzer_.bindRange(op->loopVar, op->min, op->extent);
    Stmt s = IRMutator::visit(op);
    analyzer_.unbind(op->loopVar);
    return s;
  }
  Expr visit(const BufferLoadNode *op) override {
    Expr e = IRMutator::visit(op);
    const auto *load = e.as<BufferLoadNode>();
    auto it = matched_.find(load->buffer.get());
    if (it == matched_.end())
      return e;
    return BufferLoadNode::make(it->second.buffer, sourceIndices(it->second, load->indices), load->loc);
  }
  Stmt visit(const BufferStoreNode *op) override {
    Stmt s = IRMutator::visit(op);
    const auto *store = s.as<BufferStoreNode>();
    auto it = matched_.find(store->buffer.get());
    if (it == matched_.end())
      return s;
    return BufferStoreNode::make(it->second.buffer, store->value, sourceIndices(it->second, store->indices),
                                 store->loc);
  }

  Stmt visit(const BlockNode *op) override {
    std::vector<std::pair<Buffer, Buffer>> views;
    std::vector<const BufferNode *> removed;
    for (const MatchBufferRegion &match : op->matchBuffers) {
      BufferRegion source = sourceRegion(match.source);
      if (!opaque_.count(match.buffer->data.get()) && bind(match.buffer, source, op->loc)) {
        matched_.emplace(match.buffer.get(), source);
        removed.push_back(match.buffer.get());
        continue;
      }
      try {
        views.emplace_back(match.buffer, regionView({match.buffer, source}));
      } catch (const IRTypeError &e) {
        throw CompileError(op->loc, "lower-match-buffer: " + std::string(e.what()));
      }
    }
    Stmt mutated = IRMutator::visit(op);
    const auto *block = mutated.as<BlockNode>();
    BlockNode::Fields f = block->fields();
    bool changed = !f.matchBuffers.empty();
    f.matchBuffers.clear();
    if (!matched_.empty() || !binds_.empty()) {
      for (auto *regions : {&f.reads, &f.writes})
        for (BufferRegion &r : *regions)
          r = sourceRegion(r);
      changed = true;
    }
    if (!views.empty()) {
      f.init = f.init ? substituteBuffers(f.init, views) : nullptr;
      f.body = substituteBuffers(f.body, views);
      for (auto it = views.rbegin(); it != views.rend(); ++it)
        f.body = DeclBufferNode::make(it->second, false, f.body, block->loc);
    }
    for (const BufferNode *b : removed)
      matched_.erase(b);
    return changed ? BlockNode::make(std::move(f), block->loc) : mutated;
  }

private:
  // `indices` of a matched buffer as indices of its source.
  std::vector<Expr> sourceIndices(const BufferRegion &source, const std::vector<Expr> &indices) {
    size_t lead = source.region.size() - indices.size();
    std::vector<Expr> out;
    for (size_t d = 0; d < source.region.size(); ++d) {
      const Expr &min = source.region[d].min;
      out.push_back(d < lead ? min : analyzer_.simplify(min + asType(indices[d - lead], min->type)));
    }
    return out;
  }
  // A region of a matched buffer (or of another) as a region of a buffer that is not matched.
  BufferRegion sourceRegion(const BufferRegion &r) {
    BufferRegion mapped{r.buffer, {}};
    for (const Range &range : r.region)
      mapped.region.push_back({mutate(range.min), mutate(range.extent)});
    auto it = matched_.find(r.buffer.get());
    if (it == matched_.end())
      return mapped;
    const BufferRegion &source = it->second;
    size_t lead = source.region.size() - mapped.region.size();
    BufferRegion out{source.buffer, {}};
    for (size_t d = 0; d < source.region.size(); ++d) {
      const Range &s = source.region[d];
      out.region.push_back(d < lead ? s
                                    : Range{analyzer_.simplify(s.min + asType(mapped.region[d - lead].min, s.min->type)),
                                            mapped.region[d - lead].extent});
    }
    return out;
  }

  // Binds `declared` (a stride, offset or extent of the matched buffer) to `value`: a name of its
  // own takes the value; anything else must provably equal it.
  bool bindOne(const Expr &declared, const Expr &value) {
    Expr v = asType(value, declared->type);
    if (const auto *var = declared.as<VarNode>(); var && !fixed_.count(var) && !binds_.count(var)) {
      binds_.emplace(var, v);
      return true;
    }
    return analyzer_.canProveEqual(mutate(declared), v);
  }

  // Checks `buffer` against the region it matches and binds the names its declaration gives;
  // false when the buffer cannot be replaced by its source's accesses (it becomes a view).
  bool bind(const Buffer &buffer, const BufferRegion &source, const SourceRange &loc) {
    const BufferNode &src = *source.buffer;
    if (buffer->dtype != src.dtype)
      throw CompileError(loc, "lower-match-buffer: cannot match buffer '" + buffer->name.str() + "' to a region of '" +
                                  src.name.str() + "': the dtypes differ (" + buffer->dtype.str() + " and " +
                                  src.dtype.str() + ")");
    size_t rank = buffer->rank(), lead = source.region.size() - std::min(rank, source.region.size());
    if (rank > source.region.size())
      return false;
    for (size_t d = 0; d < lead; ++d)
      if (const int64_t *e = asConstInt(source.region[d].extent); !e || *e != 1)
        return false;
    DataType index = src.shape.empty() ? DataType::int32() : src.shape[0]->type;
    std::vector<Expr> strides(src.rank());
    for (size_t k = src.rank(); k-- > 0;)
      strides[k] = !src.strides.empty()      ? asType(src.strides[k], index)
                   : k + 1 == src.rank() ? intImm(1, index)
                                              : analyzer_.simplify(strides[k + 1] * asType(src.shape[k + 1], index));
    if (!buffer->strides.empty())
      for (size_t d = 0; d < rank; ++d)
        if (!bindOne(buffer->strides[d], strides[lead + d]))
          return false;
    if (buffer->elemOffset) {
      Expr offset = src.elemOffset ? asType(src.elemOffset, index) : intImm(0, index);
      for (size_t k = 0; k < source.region.size(); ++k)
        offset = offset + asType(source.region[k].min, index) * strides[k];
      if (!bindOne(buffer->elemOffset, analyzer_.simplify(offset)))
        return false;
    }
    for (size_t d = 0; d < rank; ++d)
      if (!bindOne(buffer->shape[d], source.region[lead + d].extent))
        return false;
    return true;
  }

  std::unordered_set<const VarNode *> opaque_, fixed_;
  std::unordered_map<const BufferNode *, BufferRegion> matched_;
  std::unordered_map<const VarNode *, Expr> binds_;
  Analyzer analyzer_;
};

} // namespace

PassInfo lowerMatchBufferPassInfo() {
  PassInfo info;
  info.name = "lower-match-buffer";
  info.establishes = {IRProperty::MatchBuffersLowered};
  info.summary = "replace buffers matched to a region inside a block by accesses of that region";
  info.create = [](const PassOptions &) {
    return std::make_unique<BodyPass>([](const PrimFunc &func, PassContext &) {
      if (!findBlock(func->body))
        return func->body;
      OpaqueData opaque;
      opaque.run(func->body);
      return MatchBufferLowerer(func, std::move(opaque.used)).mutate(func->body);
    });
  };
  return info;
}

} // namespace tirlower
