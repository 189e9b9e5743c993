#include "transform/storage_access.h"

#include <algorithm>
#include <limits>

#include "arith/expr_util.h"
#include "arith/int_ops.h"
#include "arith/thread_disjoint.h"
#include "ir/storage_scope.h"
#include "ir/visitor.h"

namespace tirlower {

SharedAccessAnalysis::SharedAccessAnalysis(std::array<int64_t, 3> local, int64_t warpSize)
    : local_(local), warpSize_(warpSize) {
  for (int d = 0; d < 3; ++d) {
    canon_[d] = VarNode::make(Symbol(std::string("threadIdx.") + static_cast<char>('x' + d)), DataType::int32());
    other_[d] = VarNode::make(Symbol(std::string("threadIdx.") + static_cast<char>('x' + d) + "'"), DataType::int32());
    threads_[d] = {0, local_[d] - 1};
    simplifier_.bindRange(canon_[d], 0, local_[d]);
  }
}

Expr SharedAccessAnalysis::canonical(const Expr &e) const {
  return subst_.empty() ? e : substitute(e, subst_);
}

bool SharedAccessAnalysis::isVarying(const Expr &e) const {
  struct Finder : IRVisitor {
    const SharedAccessAnalysis *p;
    bool found = false;
    using IRVisitor::visit;
    void visit(const VarNode *op) override {
      for (int d = 0; d < 3; ++d)
        found |= op == p->canon_[d].get() && p->local_[d] > 1;
      found |= std::find(p->varying_.begin(), p->varying_.end(), op) != p->varying_.end();
    }
    void visit(const BufferLoadNode *op) override {
      found = true;
      IRVisitor::visit(op);
    }
  } finder;
  finder.p = this;
  finder.visit(canonical(e));
  return finder.found;
}

// An int64 thread variable, as Relax's functions bind them, is canonicalized to
// int64(threadIdx), and lower-thread-allreduce indexes with int32 of that.
bool SharedAccessAnalysis::isThreadIndex(const Expr &e, int d) const {
  const Expr *inner = &e;
  while (const auto *cast = inner->as<CastNode>()) {
    if (!cast->type.isInt() || cast->type.isVector() || cast->type.bits() < 32)
      return false;
    inner = &cast->value;
  }
  return inner->get() == canon_[d].get();
}

void SharedAccessAnalysis::bindValue(const Var &var, const Expr &value) {
  subst_.emplace_back(var, value);
}

void SharedAccessAnalysis::unbindValue() {
  subst_.pop_back();
}

void SharedAccessAnalysis::markVarying(const VarNode *var) {
  varying_.push_back(var);
}

void SharedAccessAnalysis::enterLoop(const Var &var, const Expr &min, const Expr &extent) {
  loops_.push_back({var, min, extent});
  extents_.push_back(asConstInt(extent) ? Expr() : extent);
  simplifier_.bindRange(var, min, extent);
}

void SharedAccessAnalysis::exitLoop() {
  simplifier_.unbind(loops_.back().var);
  loops_.pop_back();
  extents_.pop_back();
}

bool SharedAccessAnalysis::enterLaunch(const AttrStmtNode &op, const ThreadTag &tag) {
  const VarNode *var = op.threadVar();
  const int64_t *extent = asConstInt(op.value);
  extents_.push_back(extent ? Expr() : canonical(op.value));
  launchSaved_.push_back(threads_);
  Expr index = tag.kind == ThreadTag::Kind::Thread ? Expr(canon_[tag.dim]) : Expr(blockVar(tag));
  // blockIdx and virtual thread indices are the same for all the threads of a block.
  subst_.emplace_back(Var(var), var->type == DataType::int32() ? index : CastNode::make(var->type, index));
  if (tag.kind != ThreadTag::Kind::Thread)
    return true;
  int d = tag.dim;
  if (extent && *extent < local_[d])
    threads_[d] = {threads_[d].first, std::min(threads_[d].second, *extent - 1)};
  return extent && *extent >= local_[d];
}

void SharedAccessAnalysis::exitLaunch(const ThreadTag &) {
  subst_.pop_back();
  threads_ = launchSaved_.back();
  launchSaved_.pop_back();
  extents_.pop_back();
}

Var SharedAccessAnalysis::blockVar(const ThreadTag &tag) {
  int slot = tag.kind == ThreadTag::Kind::Block ? tag.dim : 3 + tag.dim;
  if (!blocks_[slot])
    blocks_[slot] =
        VarNode::make(Symbol(tag.kind == ThreadTag::Kind::Block ? "blockIdx" : "vthread"), DataType::int32());
  return blocks_[slot];
}

GuardState SharedAccessAnalysis::enterGuard(const Expr &condition) {
  GuardState saved{threads_, congruences_, false};
  saved.threadsOnly = refine(canonical(condition));
  // The range's ends moved onto the congruence: `tx % 32 == 0` in 32 threads leaves thread 0.
  for (int d = 0; d < 3; ++d) {
    auto [m, r] = congruences_[d];
    auto [lo, hi] = threads_[d];
    if (m <= 1 || lo > hi)
      continue;
    int64_t first = lo + (((r - lo) % m) + m) % m, last = hi - (((hi - r) % m) + m) % m;
    if (first <= last)
      threads_[d] = {first, last};
  }
  return saved;
}

// `tx % m == r` (or `r == tx % m`): every thread that passes has tx = m * q + r. A congruence
// that does not refine the one already known is left out (the thread set stays larger).
bool SharedAccessAnalysis::refineCongruence(const BinaryNode &eq) {
  const auto *mod = eq.a.as<BinaryNode>();
  const int64_t *r = asConstInt(eq.b);
  if (!mod || !r) {
    mod = eq.b.as<BinaryNode>();
    r = asConstInt(eq.a);
  }
  const int64_t *m = mod && mod->op == BinaryOp::FloorMod ? asConstInt(mod->b) : nullptr;
  if (!r || !m || *m <= 0 || *r < 0 || *r >= *m)
    return false;
  for (int d = 0; d < 3; ++d) {
    if (!isThreadIndex(mod->a, d))
      continue;
    ThreadCongruence &known = congruences_[d];
    if (known.modulus <= 1 || (*m % known.modulus == 0 && *r % known.modulus == known.residue))
      known = {*m, *r};
    return true;
  }
  return false;
}

bool SharedAccessAnalysis::refine(const Expr &c) {
  const auto *b = c.as<BinaryNode>();
  if (!b)
    return false;
  if (b->op == BinaryOp::And) {
    bool first = refine(b->a);
    return refine(b->b) && first;
  }
  if (b->op == BinaryOp::EQ && refineCongruence(*b))
    return true;
  bool understood = false;
  for (int d = 0; d < 3; ++d) {
    const int64_t *k = nullptr;
    BinaryOp op = b->op;
    if (isThreadIndex(b->a, d))
      k = asConstInt(b->b);
    else if (isThreadIndex(b->b, d)) {
      k = asConstInt(b->a);
      op = op == BinaryOp::LT   ? BinaryOp::GT
           : op == BinaryOp::GT ? BinaryOp::LT
           : op == BinaryOp::LE ? BinaryOp::GE
           : op == BinaryOp::GE ? BinaryOp::LE
                                : op;
    }
    if (!k)
      continue;
    understood = true;
    auto [lo, hi] = threads_[d];
    switch (op) { // kind-switch: the comparisons that bound a thread index
    case BinaryOp::LT: hi = std::min(hi, *k - 1); break;
    case BinaryOp::LE: hi = std::min(hi, *k); break;
    case BinaryOp::GT: lo = std::max(lo, *k + 1); break;
    case BinaryOp::GE: lo = std::max(lo, *k); break;
    case BinaryOp::EQ:
      lo = std::max(lo, *k);
      hi = std::min(hi, *k);
      break;
    default: understood = false; break;
    }
    threads_[d] = {lo, hi};
  }
  return understood;
}

SharedAccess SharedAccessAnalysis::record(const BufferNode &buffer, const std::vector<Expr> &indices, bool write,
                                          SourceRange loc) {
  SharedAccess a;
  a.data = buffer.data.get();
  a.name = buffer.name.str();
  a.write = write;
  a.loc = loc;
  a.threads = threads_;
  a.congruences = congruences_;
  a.loops = loops_;
  for (const Expr &e : extents_)
    if (e)
      a.extents.push_back(e);
  for (const Expr &i : indices) {
    Expr c = simplifier_.simplify(canonical(i));
    a.index.push_back(c->type.isVector() ? nullptr : c); // a vector index always meets
  }
  return a;
}

std::vector<SharedAccess> SharedAccessAnalysis::loads(const Expr &e) {
  struct Collector : IRVisitor {
    SharedAccessAnalysis *p;
    std::vector<SharedAccess> out;
    using IRVisitor::visit;
    void visit(const BufferLoadNode *op) override {
      if (isSharedBuffer(*op->buffer))
        out.push_back(p->record(*op->buffer, op->indices, false, op->loc));
      IRVisitor::visit(op);
    }
  } collector;
  collector.p = this;
  collector.visit(e);
  return std::move(collector.out);
}

namespace {

// What holds of sizes where both accesses happen: every launch and loop around them runs at
// least once, so each non-constant extent is at least 1 (`(n + 63) // 64 >= 1`: n >= 1). The
// variables so bounded are bound in `sizes` from there up.
void bindSizeFacts(Analyzer &sizes, const std::vector<Expr> &extents) {
  std::vector<std::pair<Var, int64_t>> lows;
  for (const Expr &e : extents) {
    std::optional<std::pair<Var, int64_t>> low = sizeLowerBound(e, 1);
    if (!low || !low->first->type.isInt() || low->first->type.isVector())
      continue;
    auto it = std::find_if(lows.begin(), lows.end(), [&](const auto &l) { return l.first.get() == low->first.get(); });
    if (it == lows.end())
      lows.push_back(*low);
    else
      it->second = std::max(it->second, low->second);
  }
  for (const auto &[var, low] : lows) {
    std::optional<int64_t> span = checkedSub(typeMax(var->type), low);
    if (span && *span >= 0 && *span < std::numeric_limits<int64_t>::max())
      sizes.bindRange(var, low, *span + 1);
  }
}

} // namespace

// Whether every thread of both accesses is in one warp: the least and the greatest linear id
// (x fastest) of their ranges are.
bool SharedAccessAnalysis::inOneWarp(const SharedAccess &a, const SharedAccess &b) const {
  int64_t lo = 0, hi = 0;
  for (int d = 2; d >= 0; --d) {
    lo = lo * local_[d] + std::min(a.threads[d].first, b.threads[d].first);
    hi = hi * local_[d] + std::max(a.threads[d].second, b.threads[d].second);
  }
  return lo >= 0 && lo / warpSize_ == hi / warpSize_;
}

bool SharedAccessAnalysis::meet(const SharedAccess &a, const SharedAccess &b, size_t carried, bool warpOrdered) {
  if (a.data != b.data || (!a.write && !b.write) || a.index.size() != b.index.size())
    return false;
  bool single = true; // both by the same single thread
  for (int d = 0; d < 3; ++d)
    single &= a.threads[d].first == a.threads[d].second && a.threads[d] == b.threads[d];
  if (single)
    return false;
  warpOrdered = warpOrdered && warpSize_ > 0;
  if (warpOrdered && inOneWarp(a, b))
    return false;
  Analyzer analyzer;
  std::vector<std::pair<Var, Expr>> renamed;
  for (const LoopRange &l : a.loops)
    analyzer.bindRange(l.var, l.min, l.extent);
  for (size_t depth = 0; depth < b.loops.size(); ++depth) {
    const LoopRange &l = b.loops[depth];
    if (depth < carried) {
      analyzer.bindRange(l.var, l.min, l.extent);
      continue;
    }
    Var next = VarNode::make(l.var->name, l.var->type);
    renamed.emplace_back(l.var, next);
    analyzer.bindRange(next, substitute(l.min, renamed), substitute(l.extent, renamed));
  }
  std::vector<std::pair<Var, Expr>> otherThread = renamed;
  for (int d = 0; d < 3; ++d) {
    analyzer.bindRange(canon_[d], a.threads[d].first,
                       std::max<int64_t>(a.threads[d].second - a.threads[d].first + 1, 0));
    analyzer.bindRange(other_[d], b.threads[d].first,
                       std::max<int64_t>(b.threads[d].second - b.threads[d].first + 1, 0));
    otherThread.emplace_back(canon_[d], other_[d]);
  }
  for (size_t k = 0; k < a.index.size(); ++k) {
    if (!a.index[k] || !b.index[k])
      continue;
    if (a.index[k]->type != b.index[k]->type)
      return true;
    IntBounds diff = analyzer.bounds(analyzer.simplify(a.index[k] - substitute(b.index[k], otherThread)));
    if ((diff.min && *diff.min > 0) || (diff.max && *diff.max < 0))
      return false;
    // Thread indices are bound to the union of both ranges for the digits' values.
    Analyzer both = analyzer;
    ThreadIndexSpace space{{canon_[0], canon_[1], canon_[2]}, {}, {}, 0};
    // A warp is x // size with y and z: the x extent is a multiple of the size, or x is all.
    if (warpOrdered && (local_[0] % warpSize_ == 0 || local_[1] * local_[2] == 1))
      space.groupSize = warpSize_;
    for (int d = 0; d < 3; ++d) {
      const ThreadCongruence &ca = a.congruences[d], &cb = b.congruences[d];
      space.congruences.push_back(ca.modulus == cb.modulus && ca.residue == cb.residue ? ca : ThreadCongruence{});
      int64_t lo = std::min(a.threads[d].first, b.threads[d].first);
      int64_t hi = std::max(a.threads[d].second, b.threads[d].second);
      space.varying.push_back(hi > lo);
      both.bindRange(canon_[d], lo, std::max<int64_t>(hi - lo + 1, 0));
    }
    std::optional<Analyzer> sizes;
    SizeFacts facts = [&]() -> Analyzer * {
      sizes = both;
      sizes->assumeNoOverflow();
      std::vector<Expr> extents = a.extents;
      for (const Expr &e : b.extents)
        extents.push_back(renamed.empty() ? e : substitute(e, renamed));
      bindSizeFacts(*sizes, extents);
      return &*sizes;
    };
    if (differentThreadsNeverMeet(a.index[k], renamed.empty() ? b.index[k] : substitute(b.index[k], renamed), space,
                                  both, facts))
      return false;
  }
  return true;
}

} // namespace tirlower
