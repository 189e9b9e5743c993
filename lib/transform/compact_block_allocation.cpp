// compact-buffer-allocation on schedulable TIR: a block's allocation (`T.sblock_alloc_buffer`)
// shrinks, where it is, to the region the block's body touches (TVM's CompactBufferAllocation).
// The region of an axis is the union over the accesses (loads, stores, the sources of
// `T.match_buffer`) of the index's interval with every loop inside the block relaxed over its
// range, and the thread loops outside it whose threads share the storage ("global" storage
// under any thread loop, "shared" under threadIdx and vthread loops, "warp" under threadIdx.x):
// an offset (the index with those loops at their minimum) plus a constant interval; offsets of
// different accesses must differ by a constant. Conditions narrow the loops they bound: an
// access under `if 2 <= i and i < 18:`, `T.if_then_else(...)` or a block's `T.where(...)` sees
// i in [2, 18) (conditions linear in one loop variable, compared without overflow). The start of
// the region is clamped at 0 (`T.max(0, h * 8 - 1)` where 0 is not proven), accesses and regions
// subtract it, and an axis keeps its extent when the region is not smaller, or cannot be
// expressed so (a non-affine index, an offset that depends on a variable bound inside). A buffer
// is left alone when its data is used other than by accesses of it (an alias, an address), when an
// access is a vector, or when it has strides, an offset or axis separators. A block's
// buffer_dim_align ([write index, axis, factor, offset]) gives the written buffer strides over its
// compacted shape, each raised to the next factor * k + offset (TVM's storage_align).
//
// Preconditions: blocks opaque (convert-blocks-to-opaque); an access through a variable of a
// block with iteration variables leaves its axis as it is.
//
//   for i in range(16):                        for i in range(16):
//       with T.sblock(""):                         with T.sblock(""):
//           B = T.sblock_alloc_buffer((16, 16)) ->     B = T.sblock_alloc_buffer((1, 16))
//           for j in range(16):                        for j in range(16):
//               B[i, j] = A[i, j]                          B[0, j] = A[i, j]
#include "transform/compact_block_allocation.h"
#include "transform/loop_restrictions.h"

#include <algorithm>
#include <unordered_map>

#include "arith/analyzer.h"
#include "arith/expr_util.h"
#include "ir/attrs.h"
#include "ir/intrinsics.h"
#include "ir/storage_scope.h"
#include "ir/visitor.h"

namespace tirlower {

namespace {

// The interval of one axis: [offset + lo, offset + hi].
struct AxisRegion {
  Expr offset;
  int64_t lo = 0, hi = 0;
};

// One allocation being measured.
struct Site {
  Buffer buffer;
  size_t depth = 0;                            // loops around the allocation
  std::vector<std::optional<AxisRegion>> axes; // the union so far; nullopt: kept
  bool accessed = false, opaque = false;
  std::vector<std::pair<int64_t, int64_t>> aligns; // per axis (factor, offset) of buffer_dim_align; empty: none
};

// Whether the storage is shared by the threads of a thread loop (TVM's CanRelaxStorageUnderThread).
bool sharedAcross(const Buffer &buffer, const ThreadTag &tag) {
  StorageRank rank = StorageScope::parse(buffer->scope.view()).rank;
  switch (rank) { // kind-switch: which thread loops share each rank of storage
  case StorageRank::Global: return true;
  case StorageRank::Shared: return tag.kind != ThreadTag::Kind::Block;
  case StorageRank::Warp: return tag.kind == ThreadTag::Kind::Thread && tag.dim == 0;
  case StorageRank::Local:
  case StorageRank::Texture:
  case StorageRank::Other: return false;
  }
  return false;
}

bool compactableInPlace(const Buffer &b) {
  if (!b->strides.empty() || !b->axisSeparators.empty())
    return false;
  return !b->elemOffset || (asConstInt(b->elemOffset) && *asConstInt(b->elemOffset) == 0);
}

// Walks the body, measuring every allocation's accessed region.
class RegionCollector : public IRVisitor {
public:
  explicit RegionCollector(bool flat) : flat_(flat) {}
  std::unordered_map<const VarNode *, Site> sites; // by data variable
  void collect(const Stmt &s) { visit(s); }

protected:
  using IRVisitor::visit;

  void visit(const VarNode *op) override {
    if (auto it = sites.find(op); it != sites.end())
      it->second.opaque = true;
  }
  void visitBuffer(const Buffer &b) override {
    if (auto it = sites.find(b->data.get()); it != sites.end() && it->second.buffer != b)
      it->second.opaque = true;
  }
  void visit(const BufferLoadNode *op) override {
    recordPoint(op->buffer, op->indices);
    IRVisitor::visit(op);
  }
  void visit(const BufferStoreNode *op) override {
    recordPoint(op->buffer, op->indices);
    IRVisitor::visit(op);
  }
  void visit(const ForNode *op) override {
    visit(op->min);
    visit(op->extent);
    std::optional<ThreadTag> tag;
    if (op->forKind == ForKind::ThreadBinding)
      tag = parseThreadTag(op->threadTag.view());
    loops_.push_back({op->loopVar, op->min, op->extent, tag});
    visit(op->body);
    loops_.pop_back();
  }
  void visit(const AttrStmtNode *op) override {
    const VarNode *var = op->isThreadLaunch() ? op->threadVar() : nullptr;
    if (!var)
      return IRVisitor::visit(op);
    visit(op->value);
    loops_.push_back({Var(var), intImm(0, op->value->type), op->value, parseThreadTag(op->threadTag.view())});
    visit(op->body);
    loops_.pop_back();
  }
  void visit(const LetStmtNode *op) override {
    visit(op->value);
    lets_.emplace_back(op->var, inlined(op->value));
    visit(op->body);
    lets_.pop_back();
  }
  void visit(const LetNode *op) override {
    visit(op->value);
    lets_.emplace_back(op->var, inlined(op->value));
    visit(op->body);
    lets_.pop_back();
  }
  void visit(const IfThenElseNode *op) override {
    visit(op->condition);
    size_t mark = restrictions_.size();
    narrow(op->condition, true);
    visit(op->thenCase);
    restrictions_.resize(mark);
    if (op->elseCase) {
      narrow(op->condition, false);
      visit(op->elseCase);
      restrictions_.resize(mark);
    }
  }
  void visit(const CallNode *op) override {
    if (!op->intrinsic || op->intrinsic->id != IntrinsicId::IfThenElse || op->args.size() != 3)
      return IRVisitor::visit(op);
    visit(op->args[0]);
    for (int arm = 1; arm <= 2; ++arm) {
      size_t mark = restrictions_.size();
      narrow(op->args[0], arm == 1);
      visit(op->args[arm]);
      restrictions_.resize(mark);
    }
  }
  void visit(const AllocBufferNode *op) override {
    if (flat_)
      open(op->buffer);
    IRVisitor::visit(op);
    if (flat_)
      close(op->buffer);
  }
  void visit(const BlockNode *op) override {
    recordAligns(*op);
    for (const BlockIterVar &iv : op->iterVars)
      iterVars_.push_back(iv.var);
    size_t mark = restrictions_.size();
    if (op->predicate)
      narrow(op->predicate, true);
    for (const Buffer &b : op->allocBuffers)
      open(b);
    for (const MatchBufferRegion &m : op->matchBuffers)
      recordRegion(m.source);
    IRVisitor::visit(op);
    for (const Buffer &b : op->allocBuffers)
      close(b);
    restrictions_.resize(mark);
    iterVars_.resize(iterVars_.size() - op->iterVars.size());
  }

private:
  // A block's buffer_dim_align entries [write index, axis, factor, offset] for the buffers it
  // writes that are measured here.
  void recordAligns(const BlockNode &block) {
    const AttrValue *aligns = block.annotations.find(attr::kBufferDimAlign);
    if (!aligns || aligns->kind() != AttrValue::Kind::List)
      return;
    for (const AttrValue &entry : aligns->items()) {
      if (entry.kind() != AttrValue::Kind::List || entry.items().size() != 4)
        continue;
      int64_t v[4];
      for (int k = 0; k < 4; ++k) {
        if (entry.items()[k].kind() != AttrValue::Kind::Int)
          return;
        v[k] = entry.items()[k].asInt();
      }
      if (v[0] < 0 || v[0] >= static_cast<int64_t>(block.writes.size()) || v[2] <= 0 || v[3] < 0 || v[3] >= v[2])
        continue;
      auto it = sites.find(block.writes[v[0]].buffer->data.get());
      if (it == sites.end() || v[1] < 0 || v[1] >= static_cast<int64_t>(it->second.buffer->rank()))
        continue;
      it->second.aligns.resize(it->second.buffer->rank());
      it->second.aligns[v[1]] = {v[2], v[3]};
    }
  }

  void open(const Buffer &b) {
    if (!compactableInPlace(b))
      return;
    Site site;
    site.buffer = b;
    site.depth = loops_.size();
    site.axes.resize(b->rank());
    sites_.push_back(b->data.get());
    sites.emplace(b->data.get(), std::move(site));
  }
  // Measuring ends where the allocation's scope does; the site stays for the rewrite.
  void close(const Buffer &b) {
    if (!sites_.empty() && sites_.back() == b->data.get())
      sites_.pop_back();
  }

  Expr inlined(const Expr &e) const {
    if (lets_.empty())
      return e;
    return substitute(e, lets_);
  }

  void narrow(const Expr &condition, bool positive) {
    restrictionsOf(inlined(condition), positive, loops_, restrictions_);
  }

  // The relaxed loops of `site` at this point with their ranges narrowed by the conditions:
  // false when one is empty (the access never runs).
  bool relaxedLoops(const Site &site, std::vector<Loop> &relaxed) const {
    for (size_t k = 0; k < loops_.size(); ++k) {
      const Loop &loop = loops_[k];
      if (k < site.depth && !(loop.thread && sharedAcross(site.buffer, *loop.thread)))
        continue;
      Loop l = loop;
      const int64_t *min = asConstInt(loop.min), *extent = asConstInt(loop.extent);
      std::optional<int64_t> lo, hi;
      if (min && extent) {
        lo = *min;
        hi = *min + *extent - 1;
      }
      bool narrowed = false;
      for (const Restriction &r : restrictions_) {
        if (r.var != loop.var.get())
          continue;
        if (r.lo && (!lo || *r.lo > *lo))
          lo = r.lo, narrowed = true;
        if (r.hi && (!hi || *r.hi < *hi))
          hi = r.hi, narrowed = true;
      }
      if (lo && hi && *lo > *hi)
        return false;
      if (narrowed && lo && hi) {
        l.min = intImm(*lo, loop.var->type);
        l.extent = intImm(*hi - *lo + 1, loop.var->type);
      }
      relaxed.push_back(l);
    }
    return true;
  }

  // The interval [first, last] of indices over the relaxed loops, or nullopt.
  std::optional<AxisRegion> relax(const Expr &first, const Expr &last, const std::vector<Loop> &relaxed) const {
    std::vector<std::pair<Var, Expr>> mins;
    Analyzer analyzer;
    std::vector<Var> inner = iterVars_;
    for (const Loop &l : relaxed) {
      mins.emplace_back(l.var, l.min);
      analyzer.bindRange(l.var, l.min, l.extent);
      inner.push_back(l.var);
    }
    Expr lo = inlined(first), hi = inlined(last);
    Analyzer plain;
    Expr offset = plain.simplify(substitute(lo, mins));
    if (usesAnyVar(offset, inner))
      return std::nullopt;
    IntBounds low = narrowedBounds(analyzer, analyzer.simplify(lo - offset), restrictions_);
    IntBounds high = narrowedBounds(analyzer, analyzer.simplify(hi - offset), restrictions_);
    if (!low.min || !high.max || *high.max < *low.min)
      return std::nullopt;
    return AxisRegion{offset, *low.min, *high.max};
  }

  void record(const Buffer &b, const std::vector<Range> &region) {
    auto it = sites.find(b->data.get());
    if (it == sites.end() || it->second.buffer != b ||
        std::find(sites_.begin(), sites_.end(), b->data.get()) == sites_.end())
      return;
    Site &site = it->second;
    if (region.size() != b->rank()) {
      site.opaque = true;
      return;
    }
    std::vector<Loop> relaxed;
    if (!relaxedLoops(site, relaxed))
      return;
    bool first = !site.accessed;
    site.accessed = true;
    Analyzer plain;
    for (size_t d = 0; d < region.size(); ++d) {
      if (!first && !site.axes[d])
        continue;
      const Range &r = region[d];
      if (r.min->type.lanes() != 1) {
        site.opaque = true;
        return;
      }
      std::optional<AxisRegion> axis =
          relax(r.min, asConstInt(r.extent) && *asConstInt(r.extent) == 1 ? r.min : r.min + r.extent - intImm(1, r.min->type),
                relaxed);
      std::optional<AxisRegion> &all = site.axes[d];
      if (first || !axis) {
        all = axis;
        continue;
      }
      const int64_t *shift =
          axis->offset->type == all->offset->type ? asConstInt(plain.simplify(axis->offset - all->offset)) : nullptr;
      if (!shift) {
        all.reset();
        continue;
      }
      all->lo = std::min(all->lo, axis->lo + *shift);
      all->hi = std::max(all->hi, axis->hi + *shift);
    }
  }
  void recordPoint(const Buffer &b, const std::vector<Expr> &indices) {
    if (!sites.count(b->data.get()))
      return;
    std::vector<Range> region;
    for (const Expr &i : indices)
      region.push_back({i, intImm(1, i->type)});
    record(b, region);
  }
  void recordRegion(const BufferRegion &r) { record(r.buffer, r.region); }

  bool flat_;
  std::vector<Loop> loops_;
  std::vector<std::pair<Var, Expr>> lets_;
  std::vector<Restriction> restrictions_;
  std::vector<Var> iterVars_;
  std::vector<const VarNode *> sites_; // allocations whose scope the walk is in
};

// What a compacted buffer becomes: its new buffer and the start of each axis (null: unchanged).
struct Compacted {
  Buffer buffer;
  std::vector<Expr> starts;
};

// The strides buffer_dim_align asks for over the (compacted) constant shape: innermost first,
// each axis's stride raised to the next factor * k + offset; false when the shape is symbolic.
bool alignedStrides(BufferNode::Fields &f, const std::vector<std::pair<int64_t, int64_t>> &aligns) {
  std::vector<Expr> strides(f.shape.size());
  int64_t stride = 1;
  for (size_t d = f.shape.size(); d-- > 0;) {
    const int64_t *extent = asConstInt(f.shape[d]);
    if (!extent)
      return false;
    if (auto [factor, offset] = aligns[d]; factor > 0)
      stride += ((factor + offset - stride % factor) % factor);
    strides[d] = intImm(stride, f.shape[d]->type);
    if (__builtin_mul_overflow(stride, *extent, &stride))
      return false;
  }
  f.strides = std::move(strides);
  return true;
}

// The new buffer of `site`, or nullopt when no axis shrinks and no stride is aligned.
std::optional<Compacted> plan(const Site &site, const std::vector<Loop> &outer) {
  if (site.opaque || !site.accessed)
    return std::nullopt;
  const Buffer &b = site.buffer;
  Analyzer analyzer, formAnalyzer;
  formAnalyzer.assumeNoOverflow();
  for (const Loop &l : outer) {
    analyzer.bindRange(l.var, l.min, l.extent);
    formAnalyzer.bindRange(l.var, l.min, l.extent);
  }
  Compacted c{b, std::vector<Expr>(b->rank())};
  BufferNode::Fields f = b->fields();
  bool shrunk = false;
  for (size_t d = 0; d < b->rank(); ++d) {
    const std::optional<AxisRegion> &axis = site.axes[d];
    if (!axis || axis->hi - axis->lo >= INT64_MAX - 1)
      continue;
    int64_t extent = axis->hi - axis->lo + 1;
    const int64_t *shape = asConstInt(b->shape[d]);
    if (shape && extent >= *shape)
      continue;
    Expr start = analyzer.simplify(axis->offset + intImm(axis->lo, axis->offset->type));
    // The clamp is a matter of form: accesses subtract the start in wrapping arithmetic and land
    // in [0, extent) either way. So the proof may assume that nothing wraps, as TVM's does
    // (`i * 8` is its own start, not `T.max(0, i * 8)`).
    if (!formAnalyzer.canProve(BinaryNode::make(BinaryOp::GE, start, intImm(0, start->type))))
      start = analyzer.simplify(BinaryNode::make(BinaryOp::Max, intImm(0, start->type), start));
    f.shape[d] = intImm(extent, b->shape[d]->type);
    c.starts[d] = start;
    shrunk = true;
  }
  bool aligned = !site.aligns.empty() && alignedStrides(f, site.aligns);
  if (!shrunk && !aligned)
    return std::nullopt;
  c.buffer = BufferNode::make(std::move(f));
  return c;
}

// The loops around each allocation (for clamping its start), found again on the way down.
class Planner : public IRVisitor {
public:
  Planner(const std::unordered_map<const VarNode *, Site> &sites) : sites_(sites) {}
  std::unordered_map<const BufferNode *, Compacted> plans;
  void run(const Stmt &s) { visit(s); }

protected:
  using IRVisitor::visit;
  void visit(const ForNode *op) override {
    loops_.push_back({op->loopVar, op->min, op->extent, {}});
    IRVisitor::visit(op);
    loops_.pop_back();
  }
  void visit(const AttrStmtNode *op) override {
    const VarNode *var = op->isThreadLaunch() ? op->threadVar() : nullptr;
    if (var)
      loops_.push_back({Var(var), intImm(0, op->value->type), op->value, {}});
    IRVisitor::visit(op);
    if (var)
      loops_.pop_back();
  }
  void visit(const AllocBufferNode *op) override {
    consider(op->buffer);
    IRVisitor::visit(op);
  }
  void visit(const BlockNode *op) override {
    for (const Buffer &b : op->allocBuffers)
      consider(b);
    IRVisitor::visit(op);
  }

private:
  void consider(const Buffer &b) {
    auto it = sites_.find(b->data.get());
    if (it == sites_.end() || it->second.buffer != b)
      return;
    if (std::optional<Compacted> c = plan(it->second, loops_))
      plans.emplace(b.get(), std::move(*c));
  }
  const std::unordered_map<const VarNode *, Site> &sites_;
  std::vector<Loop> loops_;
};

class InPlaceRewriter : public IRMutator {
public:
  explicit InPlaceRewriter(const std::unordered_map<const BufferNode *, Compacted> &plans) : plans_(plans) {}

protected:
  using IRMutator::visit;
  Expr visit(const BufferLoadNode *op) override {
    Expr e = IRMutator::visit(op);
    const auto *load = e.as<BufferLoadNode>();
    const Compacted *c = find(load->buffer);
    return c ? BufferLoadNode::make(c->buffer, shifted(*c, load->indices), load->loc) : e;
  }
  Stmt visit(const BufferStoreNode *op) override {
    Stmt s = IRMutator::visit(op);
    const auto *store = s.as<BufferStoreNode>();
    const Compacted *c = find(store->buffer);
    return c ? BufferStoreNode::make(c->buffer, store->value, shifted(*c, store->indices), store->loc) : s;
  }
  Stmt visit(const AllocBufferNode *op) override {
    Stmt s = IRMutator::visit(op);
    const auto *alloc = s.as<AllocBufferNode>();
    const Compacted *c = find(alloc->buffer);
    return c ? AllocBufferNode::make(c->buffer, alloc->body, alloc->loc) : s;
  }
  Stmt visit(const BlockNode *op) override {
    Stmt s = IRMutator::visit(op);
    const auto *block = s.as<BlockNode>();
    BlockNode::Fields f = block->fields();
    bool changed = false;
    for (Buffer &b : f.allocBuffers)
      if (const Compacted *c = find(b)) {
        b = c->buffer;
        changed = true;
      }
    for (auto *regions : {&f.reads, &f.writes})
      for (BufferRegion &r : *regions)
        changed |= shift(r);
    for (MatchBufferRegion &m : f.matchBuffers)
      changed |= shift(m.source);
    return changed ? BlockNode::make(std::move(f), block->loc) : s;
  }

private:
  const Compacted *find(const Buffer &b) const {
    auto it = plans_.find(b.get());
    return it == plans_.end() ? nullptr : &it->second;
  }
  Expr minus(const Expr &index, const Expr &start) {
    return start ? analyzer_.simplify(index - start) : index;
  }
  std::vector<Expr> shifted(const Compacted &c, const std::vector<Expr> &indices) {
    std::vector<Expr> out;
    for (size_t d = 0; d < indices.size(); ++d)
      out.push_back(minus(indices[d], c.starts[d]));
    return out;
  }
  bool shift(BufferRegion &r) {
    const Compacted *c = find(r.buffer);
    if (!c)
      return false;
    r.buffer = c->buffer;
    for (size_t d = 0; d < r.region.size(); ++d)
      r.region[d].min = minus(r.region[d].min, c->starts[d]);
    return true;
  }
  const std::unordered_map<const BufferNode *, Compacted> &plans_;
  Analyzer analyzer_;
};

// Whether every access and region of the planned buffers has its axis's index type (the
// rewrite subtracts the start): a mixed int32/int64 axis stays as it is.
class TypeCheck : public IRVisitor {
public:
  explicit TypeCheck(std::unordered_map<const BufferNode *, Compacted> &plans) : plans_(plans) {}
  void run(const Stmt &s) { visit(s); }

protected:
  using IRVisitor::visit;
  void visit(const BufferLoadNode *op) override {
    check(op->buffer, op->indices);
    IRVisitor::visit(op);
  }
  void visit(const BufferStoreNode *op) override {
    check(op->buffer, op->indices);
    IRVisitor::visit(op);
  }
  void visit(const BlockNode *op) override {
    for (const auto *regions : {&op->reads, &op->writes})
      for (const BufferRegion &r : *regions)
        checkRegion(r);
    for (const MatchBufferRegion &m : op->matchBuffers)
      checkRegion(m.source);
    IRVisitor::visit(op);
  }

private:
  void checkRegion(const BufferRegion &r) {
    std::vector<Expr> mins;
    for (const Range &range : r.region)
      mins.push_back(range.min);
    check(r.buffer, mins);
  }
  void check(const Buffer &b, const std::vector<Expr> &indices) {
    auto it = plans_.find(b.get());
    if (it == plans_.end())
      return;
    for (size_t d = 0; d < indices.size() && d < it->second.starts.size(); ++d)
      if (it->second.starts[d] && indices[d]->type != it->second.starts[d]->type) {
        plans_.erase(it);
        return;
      }
  }
  std::unordered_map<const BufferNode *, Compacted> &plans_;
};

} // namespace

Stmt compactInPlace(const Stmt &body, bool flatAllocations) {
  RegionCollector collector(flatAllocations);
  collector.collect(body);
  if (collector.sites.empty())
    return body;
  Planner planner(collector.sites);
  planner.run(body);
  if (planner.plans.empty())
    return body;
  TypeCheck(planner.plans).run(body);
  if (planner.plans.empty())
    return body;
  return InPlaceRewriter(planner.plans).mutate(body);
}

} // namespace tirlower
