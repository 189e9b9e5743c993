// compact-buffer-allocation: shrinks each T.alloc_buffer to the region its accesses touch and
// moves it into the innermost serial or unrolled loop that encloses every access (TVM's
// PlanAndUpdateBufferAllocationLocation with CompactBufferAllocation). A schedule's
// cache_write "local" accumulator, allocated whole at the top of the function, becomes a small
// tile per iteration of its loop: an array the C and LLVM emitters put on the stack and the C
// compiler or LLVM keeps in registers.
//
// For each axis, every access's index is split into an offset (the index with the loop
// variables inside the new location at their minimum) and a remainder whose interval must be
// constant; offsets of different accesses must differ by constants. The axis becomes the union
// of the intervals, and accesses subtract its start. An axis that does not fit this (a
// non-affine index, an offset that depends on a variable defined inside, a union no smaller
// than the axis) keeps its extent. The allocation moves into a loop only when no element is shared
// by two of its iterations (a reduction's accumulator carried across the loop stays outside it)
// and it stays within 256 KiB (the emitters' stack limit: larger ones would be malloc'd on every
// iteration); otherwise it moves less deep, or shrinks where it is. A buffer is left alone when
// its data variable is used other than by loads and stores of it (an alias, an address), when an
// access is a vector index, or when it has strides, an offset or axis separators.
//
// GPU storage is private to a thread ("local") or to a work-group ("shared") wherever it is
// allocated, so, as TVM's pass does, a "local" buffer also moves into thread-bound loops and a
// "shared" one into blockIdx-bound loops, without the per-iteration test (each thread or group
// has its own copy anyway); there an axis of symbolic extent, `(n + 31) // 32 * 32` rows of which
// each group touches 32, shrinks to the constant region the accesses touch.
//
// Functions with blocks, and every function under `place=in-place`, compact in place instead,
// as TVM's CompactBufferAllocation alone does (compact_block_allocation.cpp).
//
// Preconditions: blocks opaque (convert-blocks-to-opaque) or lowered.
//
//   acc = T.alloc_buffer((64, 16))            for i in range(64):
//   for i in range(64):                   ->      acc = T.alloc_buffer((1, 16))
//       for j in range(16):                       for j in range(16):
//           acc[i, j] = A[i, j]                       acc[0, j] = A[i, j]
//           B[i, j] = acc[i, j]                       B[i, j] = acc[0, j]
#include <algorithm>
#include <cstdint>
#include <unordered_set>

#include "arith/analyzer.h"
#include "arith/expr_util.h"
#include "ir/visitor.h"
#include "transform/body_pass.h"
#include "transform/compact_block_allocation.h"
#include "ir/storage_scope.h"
#include "transform/pass_options.h"
#include "transform/passes.h"

namespace tirlower {

namespace {

// Moved allocations larger than this would not be stack arrays.
constexpr int64_t kMaxMovedBytes = kMaxStackAllocationBytes;

struct Access {
  std::vector<Expr> indices;
  std::vector<const ForNode *> loops; // enclosing loops inside the allocation, outermost first
};

// Finds the accesses of one buffer in an allocation's body, and whether anything else uses it.
class AccessCollector : public IRVisitor {
public:
  explicit AccessCollector(const Buffer &buffer) : buffer_(buffer) {}
  std::vector<Access> accesses;
  std::unordered_set<const VarNode *> defined; // variables defined inside the body
  bool opaque = false;
  void collect(const Stmt &body) { visit(body); }

protected:
  using IRVisitor::visit;
  void visitBuffer(const Buffer &b) override {
    if (b != buffer_ && b->data == buffer_->data)
      opaque = true;
  }
  void visit(const VarNode *op) override {
    if (op == buffer_->data.get())
      opaque = true;
  }
  void visit(const BufferLoadNode *op) override {
    record(op->buffer, op->indices);
    IRVisitor::visit(op);
  }
  void visit(const BufferStoreNode *op) override {
    record(op->buffer, op->indices);
    IRVisitor::visit(op);
  }
  void visit(const ForNode *op) override {
    defined.insert(op->loopVar.get());
    visit(op->min);
    visit(op->extent);
    loops_.push_back(op);
    visit(op->body);
    loops_.pop_back();
  }
  void visit(const LetStmtNode *op) override {
    defined.insert(op->var.get());
    IRVisitor::visit(op);
  }
  void visit(const LetNode *op) override {
    defined.insert(op->var.get());
    IRVisitor::visit(op);
  }

private:
  void record(const Buffer &b, const std::vector<Expr> &indices) {
    if (b != buffer_)
      return;
    for (const Expr &i : indices)
      if (i->type.lanes() != 1)
        opaque = true;
    accesses.push_back({indices, loops_});
  }
  const Buffer &buffer_;
  std::vector<const ForNode *> loops_;
};

// The region of one axis: start = offset + lo, extent = hi - lo + 1.
struct AxisRegion {
  Expr offset;
  int64_t lo = 0, hi = 0;
};

// The thread indices of the launches around a "shared" allocation, with their extents: every
// thread of a work-group shares the buffer, so an index is relaxed over them as over an inner loop.
using SharedThreads = std::vector<std::pair<Var, int64_t>>;

// The interval of `index` over the loops of `access` inside the first `outer` ones (and over
// `threads`), or nullopt.
std::optional<AxisRegion> relax(const Expr &written, const Access &access, size_t outer,
                                const std::unordered_set<const VarNode *> &innerVars, const SharedThreads &threads) {
  std::vector<std::pair<Var, Expr>> single; // a loop of one iteration is its minimum (vthread.x of 1)
  for (const ForNode *loop : access.loops)
    if (const int64_t *trips = asConstInt(loop->extent); trips && *trips == 1)
      single.emplace_back(loop->loopVar, loop->min);
  Expr index = single.empty() ? written : substitute(written, single);
  std::vector<std::pair<Var, Expr>> mins;
  Analyzer analyzer;
  for (size_t k = outer; k < access.loops.size(); ++k) {
    const ForNode *loop = access.loops[k];
    mins.emplace_back(loop->loopVar, loop->min);
    analyzer.bindRange(loop->loopVar, loop->min, loop->extent);
  }
  for (const auto &[var, extent] : threads) {
    mins.emplace_back(var, intImm(0, var->type));
    analyzer.bindRange(var, 0, extent);
  }
  Analyzer plain;
  Expr offset = plain.simplify(substitute(index, mins));
  std::vector<Var> inner;
  for (const VarNode *v : innerVars)
    inner.emplace_back(v);
  if (usesAnyVar(offset, inner))
    return std::nullopt;
  const int64_t *zero = asConstInt(offset);
  IntBounds b = analyzer.bounds(zero && *zero == 0 ? index : analyzer.simplify(index - offset));
  if (!b.min || !b.max)
    return std::nullopt;
  return AxisRegion{offset, *b.min, *b.max};
}

// True when some access indexes axis `d` by a loop variable inside the allocation that runs over
// the whole axis (`for j in range(32): C[i, j]` on an axis of 32): no union can then be smaller
// than the axis, and working the regions out (an analyzer per access) is wasted.
bool coversAxis(const std::vector<Access> &accesses, size_t d, size_t outer, int64_t extent) {
  for (const Access &a : accesses) {
    const auto *var = a.indices[d].as<VarNode>();
    if (!var)
      continue;
    for (size_t k = outer; k < a.loops.size(); ++k) {
      const ForNode *loop = a.loops[k];
      const int64_t *min = asConstInt(loop->min), *trips = asConstInt(loop->extent);
      if (loop->loopVar.get() == var && min && *min == 0 && trips && *trips >= extent)
        return true;
    }
  }
  return false;
}

// The union of the accesses' regions on axis `d`, or nullopt when it cannot be expressed.
std::optional<AxisRegion> axisRegion(const std::vector<Access> &accesses, size_t d, size_t outer,
                                     const std::unordered_set<const VarNode *> &innerVars,
                                     const SharedThreads &threads) {
  std::optional<AxisRegion> all;
  Analyzer plain;
  for (const Access &a : accesses) {
    std::optional<AxisRegion> r = relax(a.indices[d], a, outer, innerVars, threads);
    if (!r)
      return std::nullopt;
    if (!all) {
      all = r;
      continue;
    }
    if (r->offset->type != all->offset->type) // int32 and int64 indices of one axis
      return std::nullopt;
    const int64_t *shift = asConstInt(plain.simplify(r->offset - all->offset));
    if (!shift)
      return std::nullopt;
    all->lo = std::min(all->lo, r->lo + *shift);
    all->hi = std::max(all->hi, r->hi + *shift);
  }
  return all;
}

// Replaces the accesses of `from` by `to` with shifted indices, and puts the allocation of `to`
// around the body of `home` (or around everything when `home` is null).
class Rewriter : public IRMutator {
public:
  Rewriter(Buffer from, Buffer to, std::vector<Expr> starts, const ForNode *home, SourceRange loc)
      : from_(std::move(from)), to_(std::move(to)), starts_(std::move(starts)), home_(home), loc_(loc) {}

protected:
  using IRMutator::visit;
  Expr visit(const BufferLoadNode *op) override {
    Expr e = IRMutator::visit(op);
    const auto *load = e.as<BufferLoadNode>();
    if (load->buffer != from_)
      return e;
    return BufferLoadNode::make(to_, shifted(load->indices), load->loc);
  }
  Stmt visit(const BufferStoreNode *op) override {
    Stmt s = IRMutator::visit(op);
    const auto *store = s.as<BufferStoreNode>();
    if (store->buffer != from_)
      return s;
    return BufferStoreNode::make(to_, store->value, shifted(store->indices), store->loc);
  }
  Stmt visit(const ForNode *op) override {
    Stmt s = IRMutator::visit(op);
    if (op != home_)
      return s;
    const auto *loop = s.as<ForNode>();
    return ForNode::make(loop->loopVar, loop->min, loop->extent, loop->forKind,
                         AllocBufferNode::make(to_, loop->body, loc_), loop->threadTag, loop->annotations, loop->loc);
  }

private:
  std::vector<Expr> shifted(const std::vector<Expr> &indices) {
    std::vector<Expr> out;
    for (size_t d = 0; d < indices.size(); ++d)
      out.push_back(starts_[d] ? analyzer_.simplify(indices[d] - starts_[d]) : indices[d]);
    return out;
  }
  Buffer from_, to_;
  std::vector<Expr> starts_; // null: the axis is unchanged
  const ForNode *home_;
  SourceRange loc_;
  Analyzer analyzer_;
};

// GPU storage private to each thread ("local") or work-group ("shared").
bool isGpuPrivate(const Buffer &b) {
  std::string_view scope = b->scope.view();
  return scope == scope::kLocal || scope == scope::kShared;
}

bool compactable(const Buffer &b) {
  if (!b->strides.empty() || !b->axisSeparators.empty())
    return false;
  if (b->elemOffset && !(asConstInt(b->elemOffset) && *asConstInt(b->elemOffset) == 0))
    return false;
  return isGpuPrivate(b) ||
         std::all_of(b->shape.begin(), b->shape.end(), [](const Expr &e) { return asConstInt(e) != nullptr; });
}

// The extent of axis d, or INT64_MAX for a symbolic one (any constant region is smaller).
int64_t axisExtent(const Buffer &b, size_t d) {
  const int64_t *v = asConstInt(b->shape[d]);
  return v ? *v : INT64_MAX;
}

// Whether `loop` is thread-bound and `buffer` has a copy per iteration of it: "local" storage
// per thread (block, thread and virtual thread loops), "shared" storage per work-group (block
// loops).
bool privatePerIteration(const Buffer &buffer, const ForNode *loop) {
  if (loop->forKind != ForKind::ThreadBinding || !isGpuPrivate(buffer))
    return false;
  std::optional<ThreadTag> tag = parseThreadTag(loop->threadTag.view());
  return tag && (buffer->scope.view() == scope::kLocal || tag->kind == ThreadTag::Kind::Block);
}

// The number of leading loops shared by every access, up to the first that is neither serial
// nor unrolled (an allocation does not move into vectorized, parallel or thread loops) nor a
// thread loop with a copy of the buffer per iteration.
size_t sharedLoops(const Buffer &buffer, const std::vector<Access> &accesses) {
  size_t n = accesses.front().loops.size();
  for (const Access &a : accesses) {
    size_t k = 0;
    while (k < n && k < a.loops.size() && a.loops[k] == accesses.front().loops[k])
      ++k;
    n = k;
  }
  for (size_t k = 0; k < n; ++k) {
    ForKind kind = accesses.front().loops[k]->forKind;
    if (kind != ForKind::Serial && kind != ForKind::Unrolled && !privatePerIteration(buffer, accesses.front().loops[k]))
      return k;
  }
  return n;
}

struct Plan {
  std::vector<Expr> shape, starts; // starts[d] null: axis d keeps its extent
  int64_t elements = 1;
};

// The compacted shape with the loops [0, outer) of the accesses outside the allocation, or
// nullopt when no axis shrinks.
std::optional<Plan> planAt(const Buffer &buffer, const std::vector<Access> &accesses, size_t outer,
                           const std::unordered_set<const VarNode *> &defined, const SharedThreads &threads) {
  std::unordered_set<const VarNode *> innerVars = defined;
  for (size_t k = 0; k < outer; ++k)
    innerVars.erase(accesses.front().loops[k]->loopVar.get());
  Plan plan{buffer->shape, std::vector<Expr>(buffer->rank()), 1};
  bool shrunk = false;
  Analyzer plain;
  for (size_t d = 0; d < buffer->rank(); ++d) {
    int64_t extent = axisExtent(buffer, d);
    if (coversAxis(accesses, d, outer, extent))
      continue; // the union is the whole axis: it keeps its extent
    std::optional<AxisRegion> r = axisRegion(accesses, d, outer, innerVars, threads);
    if (r && r->hi >= r->lo && r->hi - r->lo < extent - 1 && r->hi - r->lo < INT64_MAX - 1) {
      extent = r->hi - r->lo + 1;
      plan.shape[d] = intImm(extent, buffer->shape[d]->type);
      plan.starts[d] = plain.simplify(r->offset + intImm(r->lo, r->offset->type));
      shrunk = true;
    }
    plan.elements = plan.elements > INT64_MAX / std::max<int64_t>(extent, 1) ? INT64_MAX : plan.elements * extent;
  }
  if (!shrunk)
    return std::nullopt;
  return plan;
}

// True when the allocation may move into the loops [0, outer): it stays a stack array, and no
// element is shared by two iterations (fresh storage per iteration would lose a value carried
// from one to the next, as a reduction's accumulator is). Each loop of more than one iteration
// must own an axis whose start is c * v + constant in its variable v alone, with |c| at least
// the axis's extent: then distinct iterations touch disjoint boxes.
bool fitsPerIteration(const Plan &plan, const Buffer &buffer, const std::vector<const ForNode *> &loops, size_t outer) {
  int64_t elementBytes = std::max<int64_t>((buffer->dtype.bits() * buffer->dtype.lanes() + 7) / 8, 1);
  if (plan.elements > kMaxMovedBytes / elementBytes)
    return false;
  Analyzer plain;
  for (size_t k = 0; k < outer; ++k) {
    const ForNode *loop = loops[k];
    const int64_t *trips = asConstInt(loop->extent);
    if ((trips && *trips <= 1) || privatePerIteration(buffer, loop))
      continue;
    std::vector<Var> others;
    for (size_t j = 0; j < outer; ++j)
      if (j != k)
        others.push_back(loops[j]->loopVar);
    bool owned = false;
    for (size_t d = 0; d < plan.starts.size() && !owned; ++d) {
      const Expr &start = plan.starts[d];
      if (!start || usesAnyVar(start, others))
        continue;
      Expr next = substitute(start, {{loop->loopVar, loop->loopVar + intImm(1, loop->loopVar->type)}});
      const int64_t *step = asConstInt(plain.simplify(next - start));
      owned = step && (*step >= *asConstInt(plan.shape[d]) || -*step >= *asConstInt(plan.shape[d]));
    }
    if (!owned)
      return false;
  }
  return true;
}

// The compacted allocation with its body, or null when `buffer` stays as it is: the deepest
// location that keeps every iteration's elements its own.
Stmt compact(const Buffer &buffer, const Stmt &body, const SourceRange &loc, const SharedThreads &launched) {
  if (!compactable(buffer))
    return nullptr;
  AccessCollector collector(buffer);
  collector.collect(body);
  if (collector.opaque || collector.accesses.empty())
    return nullptr;
  const std::vector<Access> &accesses = collector.accesses;
  for (const Access &a : accesses)
    if (a.indices.size() != buffer->rank())
      return nullptr;
  for (size_t outer = sharedLoops(buffer, accesses);; --outer) {
    std::optional<Plan> plan = planAt(buffer, accesses, outer, collector.defined,
                                      buffer->scope.view() == scope::kShared ? launched : SharedThreads{});
    if (!plan)
      return nullptr;
    if (outer > 0 && !fitsPerIteration(*plan, buffer, accesses.front().loops, outer))
      continue;
    const ForNode *home = outer > 0 ? accesses.front().loops[outer - 1] : nullptr;
    BufferNode::Fields f = buffer->fields();
    f.shape = plan->shape;
    Buffer compacted = BufferNode::make(std::move(f));
    Stmt rewritten = Rewriter(buffer, compacted, plan->starts, home, loc).mutate(body);
    return home ? rewritten : AllocBufferNode::make(compacted, rewritten, loc);
  }
}

class Compactor : public IRMutator {
protected:
  using IRMutator::visit;
  Stmt visit(const AllocBufferNode *op) override {
    Stmt body = mutate(op->body);
    if (Stmt s = compact(op->buffer, body, op->loc, threads_))
      return s;
    return body == op->body ? Stmt(op) : AllocBufferNode::make(op->buffer, body, op->loc);
  }
  // A threadIdx launch around an allocation: its index differs between the threads that share
  // a "shared" buffer (a launch of a symbolic extent: the buffer's thread-dependent axes keep theirs).
  Stmt visit(const AttrStmtNode *op) override {
    std::optional<ThreadTag> tag = op->isThreadLaunch() ? parseThreadTag(op->threadTag.view()) : std::nullopt;
    if (!tag || tag->kind != ThreadTag::Kind::Thread || !op->threadVar())
      return IRMutator::visit(op);
    const int64_t *extent = asConstInt(op->value);
    threads_.emplace_back(Var(op->threadVar()), extent ? *extent : INT64_MAX);
    Stmt s = IRMutator::visit(op);
    threads_.pop_back();
    return s;
  }

private:
  SharedThreads threads_;
};

} // namespace

const PassOption<std::string> kPlace{
    choiceOption("place", {"loops", "in-place"}, "loops",
                 "loops: lowered TIR's allocations also move into the innermost loop around their accesses; in-place: "
                 "every allocation shrinks where it is (TVM's CompactBufferAllocation alone)")};

PassInfo compactBufferAllocationPassInfo() {
  PassInfo info;
  info.name = "compact-buffer-allocation";
  info.requirements = {IRProperty::BlocksOpaque};
  info.summary = "shrink each allocation to the region its accesses touch (in lowered TIR, inside the innermost loop "
                 "around them)";
  info.options = {kPlace};
  info.create = [](const PassOptions &options) {
    bool inPlace = kPlace.of(options) == "in-place";
    return std::make_unique<BodyPass>([inPlace](const PrimFunc &func, PassContext &) {
      // Schedulable TIR compacts in place, as TVM's pass does (the root block's allocations too).
      if (inPlace || findBlock(func->body))
        return compactInPlace(func->body, true);
      return Compactor().mutate(func->body);
    });
  };
  return info;
}

} // namespace tirlower
