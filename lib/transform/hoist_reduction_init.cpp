// hoist-reduction-init: moves a reduction's initialisation, guarded by "the loop variable is at
// its first value", out of the loop, so that the loop holds only the update (which the C
// compiler and LLVM can then keep in a register and vectorise). After lower-init-block the init
// is the first statement of the innermost reduction loop; hoisting it repeats outwards through
// every loop whose variable the guard tests, and through a loop between the guard's loops when
// splitting that loop in two (distribution) provably changes nothing.
//
// Hoisting `for v in range(m, m + e): {if v == m and c: I}; R` to
// `if e > 0 and c[v := m]: I[v := m]` followed by `for v: R` runs I at the same point of the
// program (just before the first iteration's R), so it is the same program whatever I and R
// read and write; `e > 0` is dropped when the analyzer proves it. Only serial and unrolled loops
// are hoisted out of, and only a guarded statement that opens the loop's body.
//
// Distributing `for j: {if c: I}; R` (c tests an outer loop's variable, not j) into
// `for j: if c: I` followed by `for j: R` reorders I of later iterations before R of earlier
// ones; it is done only when that cannot be observed: I is stores to buffers whose every
// access in R uses the same indices, one of which is j itself (so iterations touch disjoint
// elements), I and c read nothing R writes, R calls nothing opaque, and the stored buffers are
// the function's own allocations or parameters of a function with noalias.
//
// Preconditions: blocks lowered (lower-opaque-block); any buffer rank.
//
//   for i in range(4):                        for i in range(4):
//       for k in range(8):                        B[i] = T.float32(0.0)
//           if k == 0:                    ->      for k in range(8):
//               B[i] = T.float32(0.0)                 B[i] = B[i] + A[i, k]
//           B[i] = B[i] + A[i, k]
#include "arith/analyzer.h"
#include "ir/equality.h"
#include "ir/intrinsics.h"
#include "ir/visitor.h"
#include "transform/body_pass.h"
#include "transform/passes.h"
#include "ir/attrs.h"
#include "arith/expr_util.h"

#include <unordered_set>

namespace tirlower {

namespace {

void conjuncts(const Expr &e, std::vector<Expr> &out) {
  const auto *b = e.as<BinaryNode>();
  if (b && b->op == BinaryOp::And) {
    conjuncts(b->a, out);
    conjuncts(b->b, out);
  } else {
    out.push_back(e);
  }
}

Expr conjunction(const std::vector<Expr> &terms, SourceRange loc) {
  Expr all;
  for (const Expr &t : terms)
    all = all ? BinaryNode::make(BinaryOp::And, all, t, loc) : t;
  return all;
}

bool sameValue(const Expr &a, const Expr &b) {
  const int64_t *x = asConstInt(a), *y = asConstInt(b);
  return (x && y) ? *x == *y : structurallyEqual(a, b);
}

// `var == min` or `min == var`.
bool testsFirst(const Expr &e, const VarNode *var, const Expr &min) {
  const auto *b = e.as<BinaryNode>();
  if (!b || b->op != BinaryOp::EQ)
    return false;
  if (b->a.get() == var)
    return sameValue(b->b, min);
  return b->b.get() == var && sameValue(b->a, min);
}

// The first-iteration-only statement of loop `loop`: `if loop.var == loop.min and c: I`, or a
// serial loop not depending on `loop.var` around one. Returns it with the test of loop.var
// removed and loop.var replaced by loop.min; null when `s` is not such a statement.
Stmt firstOnly(const Stmt &s, const ForNode *loop) {
  if (const auto *f = s.as<ForNode>()) {
    if (f->forKind != ForKind::Serial || usesVar(f->min, loop->loopVar.get()) ||
        usesVar(f->extent, loop->loopVar.get()))
      return nullptr;
    Stmt inner = firstOnly(f->body, loop);
    if (!inner)
      return nullptr;
    return ForNode::make(f->loopVar, f->min, f->extent, f->forKind, inner, f->threadTag, f->annotations, f->loc);
  }
  const auto *branch = s.as<IfThenElseNode>();
  if (!branch || branch->elseCase)
    return nullptr;
  std::vector<Expr> terms, kept;
  conjuncts(branch->condition, terms);
  bool found = false;
  for (const Expr &t : terms) {
    if (!found && testsFirst(t, loop->loopVar.get(), loop->min))
      found = true;
    else
      kept.push_back(t);
  }
  if (!found)
    return nullptr;
  std::vector<std::pair<Var, Expr>> first = {{loop->loopVar, loop->min}};
  Stmt body = substitute(branch->thenCase, first);
  if (kept.empty())
    return body;
  return IfThenElseNode::make(substitute(conjunction(kept, branch->loc), first), body, nullptr, branch->loc);
}

// Data variables a statement or expression reads and writes; whether it calls anything opaque.
struct Accesses : IRVisitor {
  std::unordered_set<const VarNode *> reads, writes;
  std::vector<const BufferLoadNode *> loads;
  std::vector<const BufferStoreNode *> stores;
  bool opaque = false;
  using IRVisitor::visit;
  void visit(const BufferLoadNode *op) override {
    reads.insert(op->buffer->data.get());
    loads.push_back(op);
    IRVisitor::visit(op);
  }
  void visit(const BufferStoreNode *op) override {
    writes.insert(op->buffer->data.get());
    stores.push_back(op);
    IRVisitor::visit(op);
  }
  void visit(const CallNode *op) override {
    opaque |= !op->intrinsic || op->intrinsic->effect >= CallEffect::EmbedInfo;
    IRVisitor::visit(op);
  }
};

// The init's stores, when it is nothing but stores (a sequence of them).
bool onlyStores(const Stmt &s, std::vector<const BufferStoreNode *> &out) {
  if (const auto *store = s.as<BufferStoreNode>()) {
    out.push_back(store);
    return true;
  }
  const auto *seq = s.as<SeqStmtNode>();
  if (!seq)
    return false;
  for (const Stmt &t : seq->stmts)
    if (!onlyStores(t, out))
      return false;
  return true;
}

struct Context {
  std::unordered_set<const VarNode *> enclosing; // variables of the loops around the current one
  std::unordered_set<const VarNode *> ownData;   // data of buffers the function allocates (allocatedData)
  bool noalias = false;
};

// Whether splitting `for j: {guarded}; rest` into two loops over j is unobservable (see the
// file comment), where `guarded` is `if c: I` and c tests an enclosing loop's first value.
bool distributable(const ForNode *loop, const IfThenElseNode *guarded, const Stmt &rest, const Context &ctx) {
  if (loop->forKind != ForKind::Serial || guarded->elseCase)
    return false;
  std::vector<Expr> terms;
  conjuncts(guarded->condition, terms);
  bool testsOuter = false;
  for (const Expr &t : terms) {
    const auto *b = t.as<BinaryNode>();
    if (usesVar(t, loop->loopVar.get()))
      return false;
    if (b && b->op == BinaryOp::EQ) {
      const auto *v = b->a.as<VarNode>();
      testsOuter |= v && ctx.enclosing.count(v);
    }
  }
  std::vector<const BufferStoreNode *> init;
  if (!testsOuter || !onlyStores(guarded->thenCase, init))
    return false;
  Accesses r, i;
  r.visit(rest);
  i.visit(guarded->thenCase);
  i.visit(guarded->condition);
  if (r.opaque || i.opaque)
    return false;
  for (const VarNode *read : i.reads)
    if (r.writes.count(read))
      return false;
  for (const BufferStoreNode *store : init) {
    const VarNode *data = store->buffer->data.get();
    if (!ctx.noalias && !ctx.ownData.count(data))
      return false;
    bool injective = false;
    for (const Expr &index : store->indices)
      injective |= index.get() == loop->loopVar.get();
    if (!injective)
      return false;
    for (const BufferStoreNode *other : init)
      if (other != store && other->buffer->data.get() == data)
        return false;
    // Another view of the same data (a different buffer) could place the indices elsewhere.
    for (const BufferLoadNode *load : r.loads)
      if (load->buffer->data.get() == data &&
          (load->buffer.get() != store->buffer.get() || !structurallyEqual(load->indices, store->indices)))
        return false;
    for (const BufferStoreNode *s : r.stores)
      if (s->buffer->data.get() == data &&
          (s->buffer.get() != store->buffer.get() || !structurallyEqual(s->indices, store->indices)))
        return false;
  }
  return true;
}

class InitHoister : public IRMutator {
public:
  explicit InitHoister(Context ctx) : ctx_(std::move(ctx)) {}

protected:
  using IRMutator::visit;

  Stmt visit(const ForNode *op) override {
    ctx_.enclosing.insert(op->loopVar.get());
    Stmt mutated = IRMutator::visit(op);
    ctx_.enclosing.erase(op->loopVar.get());
    const auto *loop = mutated.as<ForNode>();
    const auto *seq = loop->body.as<SeqStmtNode>();
    if (!seq || seq->stmts.size() < 2)
      return mutated;
    Stmt rest = SeqStmtNode::make({seq->stmts.begin() + 1, seq->stmts.end()}, seq->loc);
    if (loop->forKind == ForKind::Serial || loop->forKind == ForKind::Unrolled)
      if (Stmt hoisted = firstOnly(seq->stmts.front(), loop))
        return SeqStmtNode::make({guardExtent(loop, hoisted), withBody(loop, rest)}, loop->loc);
    const auto *guarded = seq->stmts.front().as<IfThenElseNode>();
    if (guarded && distributable(loop, guarded, rest, ctx_)) {
      // The init's loop gets a variable of its own: each loop binds a different variable.
      Var fresh = VarNode::make(loop->loopVar->name, loop->loopVar->type, loop->loopVar->loc);
      Stmt init = ForNode::make(fresh, loop->min, loop->extent, loop->forKind,
                                substitute(seq->stmts.front(), {{loop->loopVar, fresh}}), loop->threadTag,
                                loop->annotations, loop->loc);
      return SeqStmtNode::make({init, withBody(loop, rest)}, loop->loc);
    }
    return mutated;
  }

private:
  static Stmt withBody(const ForNode *loop, Stmt body) {
    return ForNode::make(loop->loopVar, loop->min, loop->extent, loop->forKind, std::move(body), loop->threadTag,
                         loop->annotations, loop->loc);
  }

  // `s` runs only when the loop has an iteration: `if extent > 0: s` unless that is provable.
  Stmt guardExtent(const ForNode *loop, Stmt s) {
    Expr zero = IntImmNode::make(loop->extent->type, 0, loop->loc);
    Expr positive = BinaryNode::make(BinaryOp::GT, loop->extent, zero, loop->loc);
    if (analyzer_.canProve(positive))
      return s;
    if (const auto *branch = s.as<IfThenElseNode>(); branch && !branch->elseCase)
      return IfThenElseNode::make(BinaryNode::make(BinaryOp::And, positive, branch->condition, loop->loc),
                                  branch->thenCase, nullptr, loop->loc);
    return IfThenElseNode::make(positive, s, nullptr, loop->loc);
  }

  Context ctx_;
  Analyzer analyzer_;
};

} // namespace

PassInfo hoistReductionInitPassInfo() {
  PassInfo info;
  info.name = "hoist-reduction-init";
  info.requirements = {IRProperty::BlocksLowered};
  info.summary = "move a reduction's first-iteration init out of its loops (distributing a loop between when legal)";
  info.create = [](const PassOptions &) {
    return std::make_unique<BodyPass>([](const PrimFunc &func, PassContext &) {
      Context ctx;
      ctx.noalias = noalias(*func);
      ctx.ownData = allocatedData(func->body);
      return InitHoister(std::move(ctx)).mutate(func->body);
    });
  };
  return info;
}

} // namespace tirlower
