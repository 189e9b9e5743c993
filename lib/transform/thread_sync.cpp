// thread-sync: inserts T.tvm_storage_sync("shared") barriers, as TVM's ThreadSync("shared"),
// wherever threads of a block could otherwise touch an element of shared storage that another
// thread wrote (or write one another read) with no barrier in between: between statements of a
// kernel, and at the start of a loop body when an iteration's accesses meet the next one's. It
// then marks the function "tirlower.explicit_barriers": from here on its barriers are all there
// are (the interpreter stops implying them, see ir/function.h).
//
// Two accesses of one shared buffer, one of them a write, meet when two different threads may
// reach the same element: not when some index's ranges are disjoint (with the loop ranges and the
// thread-index guards of ifs and launches around each access), and not when an index is
// `sum(c_d * thread_d) + rest` with the same injective thread part for both and rests that stay
// within its smallest step (each thread owns its slots). Anything else meets.
//
// A barrier can only stand where every thread of the block arrives: a meeting that needs one
// inside thread-divergent control flow (an if or loop whose condition or bounds differ between
// threads, a launch shorter than its kernel's), or inside a single statement, is a located error.
// Existing barriers are kept, so running the pass again changes nothing.
//
// Preconditions: blocks are lowered; thread-bound loops are launches (lower-thread-binding).
//
//   with T.launch_thread("threadIdx.x", 64) as tx:       with T.launch_thread(...) as tx:
//       S[tx] = A[tx]                              ->        S[tx] = A[tx]
//       B[tx] = S[63 - tx]                                   T.tvm_storage_sync("shared")
//                                                            B[tx] = S[63 - tx]
#include <array>

#include "arith/analyzer.h"
#include "arith/expr_util.h"
#include "ir/functor.h"
#include "ir/visitor.h"
#include "transform/passes.h"
#include "ir/attrs.h"
#include "ir/gpu_builtins.h"
#include "ir/storage_scope.h"

namespace tirlower {

namespace {

struct LoopRange {
  Var var;
  Expr min, extent;
};

struct Access {
  const VarNode *data;
  std::string name;
  std::vector<Expr> index; // thread variables replaced by the kernel's canonical ones
  std::array<std::pair<int64_t, int64_t>, 3> threads; // thread index ranges where it happens
  std::vector<LoopRange> loops;                        // the loops around it
  bool write = false;
  SourceRange loc;
};

struct Summary {
  std::vector<Access> head; // before the first barrier
  std::vector<Access> tail; // after the last barrier (everything when there is none)
  bool barrier = false;     // every thread passes a barrier in it
};

void append(std::vector<Access> &to, const std::vector<Access> &from) { to.insert(to.end(), from.begin(), from.end()); }

Stmt makeSync(SourceRange loc) {
  return makeSharedStorageSync(loc);
}

bool isSync(const Stmt &s) {
  return storageSyncOf(s) != nullptr;
}

class Planner : private StmtFunctor<std::pair<Stmt, Summary>(const Stmt &, const Stmt &)> {
public:
  explicit Planner(std::array<int64_t, 3> local) : local_(local) {
    for (int d = 0; d < 3; ++d) {
      canon_[d] = VarNode::make(Symbol(std::string("threadIdx.") + static_cast<char>('x' + d)), DataType::int32());
      other_[d] = VarNode::make(Symbol(std::string("threadIdx.") + static_cast<char>('x' + d) + "'"), DataType::int32());
      threads_[d] = {0, local_[d] - 1};
      simplifier_.bindRange(canon_[d], 0, local_[d]);
    }
  }

  std::pair<Stmt, Summary> plan(const Stmt &s) { return visitStmt(s, s); }

private:
  // One method per statement kind; `s` is the statement itself (returned when unchanged).
  std::pair<Stmt, Summary> visitSeqStmt(const SeqStmtNode *, const Stmt &s) override { return planSeq(s); }

  std::pair<Stmt, Summary> visitBufferStore(const BufferStoreNode *op, const Stmt &s) override {
    std::vector<Access> acc = loads(op->value);
    for (const Expr &i : op->indices)
      append(acc, loads(i));
    if (isSharedBuffer(*op->buffer))
      acc.push_back(record(*op->buffer, op->indices, true, op->loc));
    return leaf(s, std::move(acc));
  }

  std::pair<Stmt, Summary> visitEvaluate(const EvaluateNode *op, const Stmt &s) override {
    if (isSync(s)) {
      Summary sum;
      sum.barrier = uniform();
      return {s, sum};
    }
    const auto *call = op->value.as<CallNode>();
    if (call && isThreadAllreduce(*call)) {
      // A collective: the values are read before the threads meet, the results written after.
      Summary sum;
      sum.barrier = uniform();
      size_t count = call->args.empty() || !asConstInt(call->args[0]) ? 0 : static_cast<size_t>(*asConstInt(call->args[0]));
      for (size_t a = 1; a < call->args.size(); ++a) {
        const auto *dest = call->args[a].as<BufferLoadNode>();
        if (a > count + 1 && a <= 2 * count + 1 && dest) {
          if (isSharedBuffer(*dest->buffer))
            sum.tail.push_back(record(*dest->buffer, dest->indices, true, op->loc));
          continue;
        }
        append(sum.head, loads(call->args[a]));
      }
      if (!sum.barrier)
        append(sum.tail, sum.head);
      return {s, sum};
    }
    return leaf(s, loads(op->value));
  }

  std::pair<Stmt, Summary> visitAssertStmt(const AssertStmtNode *op, const Stmt &s) override {
    return leaf(s, loads(op->condition));
  }

  std::pair<Stmt, Summary> visitIfThenElse(const IfThenElseNode *op, const Stmt &) override { return planIf(*op); }

  std::pair<Stmt, Summary> visitFor(const ForNode *op, const Stmt &) override { return planFor(*op); }

  std::pair<Stmt, Summary> visitWhile(const WhileNode *op, const Stmt &s) override {
    std::vector<Access> cond = loads(op->condition);
    Divergence d(*this, isVarying(op->condition), op->loc);
    auto [body, sum] = planLoopBody(op->body, op->loc, loops_.size());
    Summary out;
    out.head = cond;
    append(out.head, sum.head);
    out.tail = cond;
    append(out.tail, sum.tail);
    return {body == op->body ? s : WhileNode::make(op->condition, body, op->loc), out};
  }

  std::pair<Stmt, Summary> visitLetStmt(const LetStmtNode *op, const Stmt &s) override {
    std::vector<Access> value = loads(op->value);
    subst_.emplace_back(op->var, canonical(op->value));
    if (isVarying(op->value))
      varying_.push_back(op->var.get());
    auto [body, sum] = plan(op->body);
    subst_.pop_back();
    return {body == op->body ? s : LetStmtNode::make(op->var, op->value, body, op->loc), prefix(value, sum)};
  }

  std::pair<Stmt, Summary> visitAllocate(const AllocateNode *op, const Stmt &s) override {
    auto [body, sum] = plan(op->body);
    return {body == op->body ? s : AllocateNode::make(op->bufferVar, op->dtype, op->extents, op->scope, body, op->loc),
            sum};
  }

  std::pair<Stmt, Summary> visitDeclBuffer(const DeclBufferNode *op, const Stmt &s) override {
    auto [body, sum] = plan(op->body);
    return {body == op->body ? s : DeclBufferNode::make(op->buffer, op->allocates, body, op->loc), sum};
  }

  std::pair<Stmt, Summary> visitAllocBuffer(const AllocBufferNode *op, const Stmt &s) override {
    auto [body, sum] = plan(op->body);
    return {body == op->body ? s : AllocBufferNode::make(op->buffer, body, op->loc), sum};
  }

  std::pair<Stmt, Summary> visitAttrStmt(const AttrStmtNode *op, const Stmt &) override { return planAttr(*op); }

  std::pair<Stmt, Summary> visitBlock(const BlockNode *op, const Stmt &) override {
    throw CompileError(op->loc, "thread-sync needs lowered blocks; run lower-opaque-block first");
  }

  // Marks the statements compiled in its lifetime as thread-divergent (when `divergent`).
  class Divergence {
  public:
    Divergence(Planner &p, bool divergent, SourceRange where) : p_(p), active_(divergent) {
      if (active_)
        p_.divergence_.push_back(where);
    }
    ~Divergence() {
      if (active_)
        p_.divergence_.pop_back();
    }

  private:
    Planner &p_;
    bool active_;
  };

  bool uniform() const { return divergence_.empty(); }

  static Summary prefix(const std::vector<Access> &first, const Summary &then) {
    Summary out = then;
    std::vector<Access> head = first;
    append(head, then.head);
    out.head = std::move(head);
    if (!then.barrier) {
      std::vector<Access> tail = first;
      append(tail, then.tail);
      out.tail = std::move(tail);
    }
    return out;
  }

  std::pair<Stmt, Summary> leaf(const Stmt &s, std::vector<Access> acc) {
    for (size_t a = 0; a < acc.size(); ++a)
      for (size_t b = a; b < acc.size(); ++b)
        if (meet(acc[a], acc[b]))
          fail(acc[a], acc[b], "within one statement, where no barrier can separate them");
    Summary sum;
    sum.head = acc;
    sum.tail = std::move(acc);
    return {s, sum};
  }

  std::pair<Stmt, Summary> planSeq(const Stmt &seq) {
    const std::vector<Stmt> &stmts = seq.as<SeqStmtNode>()->stmts;
    std::vector<Stmt> out;
    std::vector<Access> pending;
    Summary sum;
    bool changed = false;
    for (const Stmt &s : stmts) {
      auto [planned, part] = plan(s);
      changed |= planned != s;
      if (const Access *a = firstMeeting(pending, part.head)) {
        requireUniform(*a, *meetingPartner_, s->loc);
        out.push_back(makeSync(s->loc));
        changed = true;
        pending.clear();
        sum.barrier = true;
      }
      if (!sum.barrier)
        append(sum.head, part.head);
      if (part.barrier) {
        pending = part.tail;
        sum.barrier = true;
      } else {
        append(pending, part.tail);
      }
      out.push_back(planned);
    }
    sum.tail = std::move(pending);
    return {changed ? SeqStmtNode::make(std::move(out), seq->loc) : seq, sum};
  }

  // A loop body, with a barrier at its start when one iteration's accesses meet the next one's.
  // The loops from `depth` on in loops_ (this loop's variable and the loops inside the body)
  // take other values in the next iteration.
  std::pair<Stmt, Summary> planLoopBody(const Stmt &body, SourceRange loopLoc, size_t depth) {
    auto [planned, sum] = plan(body);
    if (const Access *a = firstMeeting(sum.tail, sum.head, depth)) {
      requireUniform(*a, *meetingPartner_, loopLoc);
      planned = SeqStmtNode::make({makeSync(body->loc), planned}, body->loc);
      sum.head.clear();
      sum.barrier = true;
    }
    return {planned, sum};
  }

  std::pair<Stmt, Summary> planIf(const IfThenElseNode &op) {
    std::vector<Access> cond = loads(op.condition);
    Divergence d(*this, isVarying(op.condition), op.loc);
    Stmt thenCase, elseCase;
    Summary thenSum, elseSum;
    {
      Guard guard(*this, op.condition);
      std::tie(thenCase, thenSum) = plan(op.thenCase);
    }
    if (op.elseCase)
      std::tie(elseCase, elseSum) = plan(op.elseCase);
    Summary out;
    out.head = cond;
    append(out.head, thenSum.head);
    append(out.head, elseSum.head);
    out.barrier = uniform() && thenSum.barrier && op.elseCase && elseSum.barrier;
    if (!out.barrier)
      out.tail = cond;
    append(out.tail, thenSum.tail);
    append(out.tail, elseSum.tail);
    bool same = thenCase == op.thenCase && elseCase == op.elseCase;
    return {same ? Stmt(&op) : IfThenElseNode::make(op.condition, thenCase, elseCase, op.loc), out};
  }

  std::pair<Stmt, Summary> planFor(const ForNode &op) {
    if (op.forKind == ForKind::ThreadBinding)
      throw CompileError(op.loc, "thread-sync needs thread launches; run lower-thread-binding first");
    std::vector<Access> bounds = loads(op.min);
    append(bounds, loads(op.extent));
    Expr min = canonical(op.min), extent = canonical(op.extent);
    bool varyingBounds = isVarying(op.min) || isVarying(op.extent);
    Divergence d(*this, varyingBounds, op.loc);
    if (varyingBounds)
      varying_.push_back(op.loopVar.get());
    std::pair<Stmt, Summary> planned;
    const int64_t *once = asConstInt(extent);
    if (once && *once == 1) { // a loop of one iteration: its variable is its minimum
      subst_.emplace_back(op.loopVar, min);
      planned = plan(op.body);
      subst_.pop_back();
    } else {
      loops_.push_back({op.loopVar, min, extent});
      simplifier_.bindRange(op.loopVar, min, extent);
      planned = planLoopBody(op.body, op.loc, loops_.size() - 1);
      simplifier_.unbind(op.loopVar);
      loops_.pop_back();
    }
    auto &[body, sum] = planned;
    const int64_t *trips = asConstInt(op.extent);
    sum.barrier = sum.barrier && trips && *trips > 0;
    Stmt s = body == op.body ? Stmt(&op)
                             : ForNode::make(op.loopVar, op.min, op.extent, op.forKind, body, op.threadTag,
                                             op.annotations, op.loc);
    return {s, prefix(bounds, sum)};
  }

  std::pair<Stmt, Summary> planAttr(const AttrStmtNode &op) {
    const VarNode *var = op.threadVar();
    std::optional<ThreadTag> tag = parseThreadTag(op.threadTag.view());
    if (!var || !tag)
      return rebuildAttr(op);
    if (tag->kind != ThreadTag::Kind::Thread) {
      // blockIdx and virtual thread indices are the same for all the threads of a block.
      subst_.emplace_back(Var(var), var->type == DataType::int32() ? Expr(blockVar(*tag))
                                                                  : CastNode::make(var->type, blockVar(*tag)));
      auto result = rebuildAttr(op);
      subst_.pop_back();
      return result;
    }
    int d = tag->dim;
    subst_.emplace_back(Var(var), var->type == DataType::int32() ? Expr(canon_[d]) : CastNode::make(var->type, canon_[d]));
    const int64_t *extent = asConstInt(op.value);
    bool covers = extent && *extent >= local_[d];
    Divergence div(*this, !covers, op.loc);
    std::pair<int64_t, int64_t> saved = threads_[d];
    if (extent && *extent < local_[d])
      narrow(d, threads_[d].first, std::min(threads_[d].second, *extent - 1));
    auto result = rebuildAttr(op);
    narrow(d, saved.first, saved.second);
    subst_.pop_back();
    return result;
  }

  std::pair<Stmt, Summary> rebuildAttr(const AttrStmtNode &op) {
    auto [body, sum] = plan(op.body);
    return {body == op.body ? Stmt(&op) : AttrStmtNode::like(op, op.node, op.value, body), sum};
  }

  Var blockVar(const ThreadTag &tag) {
    int slot = tag.kind == ThreadTag::Kind::Block ? tag.dim : 3 + tag.dim;
    if (!blocks_[slot])
      blocks_[slot] = VarNode::make(Symbol(tag.kind == ThreadTag::Kind::Block ? "blockIdx" : "vthread"),
                                    DataType::int32());
    return blocks_[slot];
  }

  void narrow(int d, int64_t lo, int64_t hi) { threads_[d] = {lo, hi}; }

  // Narrows the thread ranges that `condition` bounds (tx < c, tx <= c, tx == c, and their
  // conjunctions) for the then-branch.
  class Guard {
  public:
    Guard(Planner &p, const Expr &condition) : p_(p), saved_(p.threads_) { refine(p.canonical(condition)); }
    ~Guard() {
      for (int d = 0; d < 3; ++d)
        p_.narrow(d, saved_[d].first, saved_[d].second);
    }

  private:
    void refine(const Expr &c) {
      const auto *b = c.as<BinaryNode>();
      if (!b)
        return;
      if (b->op == BinaryOp::And) {
        refine(b->a);
        refine(b->b);
        return;
      }
      for (int d = 0; d < 3; ++d) {
        const int64_t *k = nullptr;
        BinaryOp op = b->op;
        if (p_.isThreadIndex(b->a, d))
          k = asConstInt(b->b);
        else if (p_.isThreadIndex(b->b, d)) {
          k = asConstInt(b->a);
          op = op == BinaryOp::LT ? BinaryOp::GT : op == BinaryOp::GT ? BinaryOp::LT
               : op == BinaryOp::LE ? BinaryOp::GE : op == BinaryOp::GE ? BinaryOp::LE : op;
        }
        if (!k)
          continue;
        auto [lo, hi] = p_.threads_[d];
        switch (op) {
        case BinaryOp::LT: hi = std::min(hi, *k - 1); break;
        case BinaryOp::LE: hi = std::min(hi, *k); break;
        case BinaryOp::GT: lo = std::max(lo, *k + 1); break;
        case BinaryOp::GE: lo = std::max(lo, *k); break;
        case BinaryOp::EQ:
          lo = std::max(lo, *k);
          hi = std::min(hi, *k);
          break;
        default: break;
        }
        p_.narrow(d, lo, hi);
      }
    }
    Planner &p_;
    std::array<std::pair<int64_t, int64_t>, 3> saved_;
  };

  Expr canonical(const Expr &e) { return subst_.empty() ? e : substitute(e, subst_); }

  bool isVarying(const Expr &e) {
    struct Finder : IRVisitor {
      const Planner *p;
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

  Access record(const BufferNode &buffer, const std::vector<Expr> &indices, bool write, SourceRange loc) {
    Access a;
    a.data = buffer.data.get();
    a.name = buffer.name.str();
    a.write = write;
    a.loc = loc;
    a.threads = threads_;
    a.loops = loops_;
    for (const Expr &i : indices) {
      Expr c = simplifier_.simplify(canonical(i));
      a.index.push_back(c->type.isVector() ? nullptr : c); // a vector index always meets
    }
    return a;
  }

  std::vector<Access> loads(const Expr &e) {
    struct Collector : IRVisitor {
      Planner *p;
      std::vector<Access> out;
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

  // index = sum(coef * atom) + rest: an atom is a thread index, or X // c or X % c of a
  // thread-dependent X; the rest has no thread index. `sig` names the atom by its thread part
  // (X's rest aside), so the two sides of a comparison pair their atoms by it.
  struct Atom {
    std::string sig;
    int64_t coef;
    Expr value; // the atom as an expression
    Expr x;     // X for X // c and X % c
    BinaryOp op = BinaryOp::Add; // Add: a thread index; FloorDiv, FloorMod
    int64_t c = 0;
    int dim = 0;
  };

  // The thread index of dimension d (int32), possibly through casts to integer types of 32 bits
  // or more, which keep its value: an int64 thread variable, as Relax's functions bind them, is
  // canonicalized to int64(threadIdx), and lower-thread-allreduce indexes with int32 of that.
  bool isThreadIndex(const Expr &e, int d) const {
    const Expr *inner = &e;
    while (const auto *cast = inner->as<CastNode>()) {
      if (!cast->type.isInt() || cast->type.isVector() || cast->type.bits() < 32)
        return false;
      inner = &cast->value;
    }
    return inner->get() == canon_[d].get();
  }

  bool mentionsThread(const Expr &e) const {
    for (int d = 0; d < 3; ++d)
      if (usesAnyVar(e, {canon_[d]}))
        return true;
    return false;
  }

  bool decompose(const Expr &e, int64_t scale, std::vector<Atom> &atoms, Expr &rest) {
    auto add = [&](Atom atom) {
      for (Atom &a : atoms)
        if (a.sig == atom.sig) {
          a.coef += atom.coef;
          return true;
        }
      atoms.push_back(std::move(atom));
      return true;
    };
    for (int d = 0; d < 3; ++d)
      if (isThreadIndex(e, d))
        return add({"t" + std::to_string(d), scale, e, nullptr, BinaryOp::Add, 0, d});
    if (const auto *b = e.as<BinaryNode>()) {
      if (b->op == BinaryOp::Add)
        return decompose(b->a, scale, atoms, rest) && decompose(b->b, scale, atoms, rest);
      if (b->op == BinaryOp::Sub)
        return decompose(b->a, scale, atoms, rest) && decompose(b->b, -scale, atoms, rest);
      if (b->op == BinaryOp::Mul) {
        if (const int64_t *k = asConstInt(b->b))
          return decompose(b->a, scale * *k, atoms, rest);
        if (const int64_t *k = asConstInt(b->a))
          return decompose(b->b, scale * *k, atoms, rest);
      }
      const int64_t *c = asConstInt(b->b);
      if ((b->op == BinaryOp::FloorDiv || b->op == BinaryOp::FloorMod) && c && *c > 0 && mentionsThread(b->a)) {
        std::string inner = signature(b->a);
        if (inner.empty())
          return false;
        return add({std::string(b->op == BinaryOp::FloorDiv ? "d" : "m") + std::to_string(*c) + "(" + inner + ")",
                    scale, e, b->a, b->op, *c, 0});
      }
    }
    if (mentionsThread(e))
      return false;
    Expr term = scale == 1 ? e : e * intImm(scale, e->type);
    rest = rest ? rest + term : term;
    return true;
  }

  std::string signature(const Expr &e) {
    std::vector<Atom> atoms;
    Expr rest;
    if (!decompose(e, 1, atoms, rest))
      return "";
    std::vector<std::string> parts;
    for (const Atom &a : atoms)
      if (a.coef != 0)
        parts.push_back(std::to_string(a.coef) + "*" + a.sig);
    std::sort(parts.begin(), parts.end());
    std::string out;
    for (const std::string &p : parts)
      out += p + "+";
    return out;
  }

  // Two indices as the same mixed-radix number of thread digits: the atoms paired by signature
  // (same coefficients), sorted by |coef| with their numbers of values, each coefficient at
  // least the previous one times its number of values; and the bounds of rest(b) - rest(a).
  struct Digits {
    std::vector<Atom> a, b;
    std::vector<std::pair<int64_t, int64_t>> steps; // (|coef|, number of values), ascending
    IntBounds diff;
  };

  std::optional<Digits> digits(const Expr &ea, const Expr &eb, Analyzer &analyzer) {
    Digits g;
    Expr ra, rb;
    if (!decompose(ea, 1, g.a, ra) || !decompose(eb, 1, g.b, rb))
      return std::nullopt;
    std::erase_if(g.a, [](const Atom &a) { return a.coef == 0; });
    std::erase_if(g.b, [](const Atom &a) { return a.coef == 0; });
    auto bySig = [](const Atom &x, const Atom &y) { return x.sig < y.sig; };
    std::sort(g.a.begin(), g.a.end(), bySig);
    std::sort(g.b.begin(), g.b.end(), bySig);
    if (g.a.size() != g.b.size() || g.a.empty())
      return std::nullopt;
    for (size_t k = 0; k < g.a.size(); ++k) {
      if (g.a[k].sig != g.b[k].sig || g.a[k].coef != g.b[k].coef)
        return std::nullopt;
      IntBounds x = analyzer.bounds(g.a[k].value), y = analyzer.bounds(g.b[k].value);
      if (!x.min || !x.max || !y.min || !y.max)
        return std::nullopt;
      g.steps.emplace_back(std::abs(g.a[k].coef), std::max(*x.max, *y.max) - std::min(*x.min, *y.min) + 1);
    }
    std::sort(g.steps.begin(), g.steps.end());
    for (size_t k = 1; k < g.steps.size(); ++k)
      if (g.steps[k].first < g.steps[k - 1].first * g.steps[k - 1].second)
        return std::nullopt;
    Expr zero = intImm(0, ea->type);
    g.diff = analyzer.bounds(analyzer.simplify((rb ? rb : zero) - (ra ? ra : zero)));
    if (!g.diff.min || !g.diff.max)
      return std::nullopt;
    return g;
  }

  // Whether sum(c_k * d_k) = target has a solution with |d_k| < values_k over the first `count`
  // steps (largest first; each coefficient exceeds what the smaller ones can sum to, so at
  // most a few values of each digit remain).
  static bool representable(const std::vector<std::pair<int64_t, int64_t>> &steps, size_t count, int64_t target) {
    if (count == 0)
      return target == 0;
    auto [c, values] = steps[count - 1];
    int64_t reach = 0;
    for (size_t k = 0; k + 1 < count; ++k)
      reach += steps[k].first * (steps[k].second - 1);
    auto floorDiv = [](int64_t x, int64_t y) { return x / y - ((x % y != 0) && ((x < 0) != (y < 0))); };
    int64_t lo = std::max(-(values - 1), -floorDiv(-(target - reach), c));
    int64_t hi = std::min(values - 1, floorDiv(target + reach, c));
    for (int64_t d = lo; d <= hi; ++d)
      if (representable(steps, count - 1, target - c * d))
        return true;
    return false;
  }

  // The thread indices equal on both sides when every digit is: a thread index digit gives its
  // index, and X // c with X % c (or X % c alone when X has fewer than c values) gives X, whose
  // own digits are then compared the same way.
  std::array<bool, 3> recovered(const Digits &g, Analyzer &analyzer) {
    std::array<bool, 3> dims{false, false, false};
    for (size_t k = 0; k < g.a.size(); ++k) {
      const Atom &a = g.a[k];
      if (a.op == BinaryOp::Add) {
        dims[a.dim] = true;
        continue;
      }
      bool whole = a.op == BinaryOp::FloorDiv && a.c == 1;
      if (a.op == BinaryOp::FloorMod) {
        IntBounds x = analyzer.bounds(a.x), y = analyzer.bounds(g.b[k].x);
        whole = x.min && x.max && y.min && y.max && *x.min >= 0 && *y.min >= 0 &&
                std::max(*x.max, *y.max) - std::min(*x.min, *y.min) < a.c;
      }
      std::string inner = a.sig.substr(1 + std::to_string(a.c).size());
      for (const Atom &other : g.a)
        whole |= a.op == BinaryOp::FloorMod && other.op == BinaryOp::FloorDiv && other.c == a.c &&
                 other.sig.substr(1 + std::to_string(a.c).size()) == inner;
      if (!whole)
        continue;
      // X(thread 1) == X(thread 2): its digits with rests that differ by less than its step.
      std::optional<Digits> x = digits(a.x, g.b[k].x, analyzer);
      if (!x || *x->diff.min <= -x->steps[0].first || *x->diff.max >= x->steps[0].first)
        continue;
      std::array<bool, 3> deeper = recovered(*x, analyzer);
      for (int d = 0; d < 3; ++d)
        dims[d] |= deeper[d];
    }
    return dims;
  }

  // Whether ea for one thread never equals eb for a different one.
  bool neverMeet(const Expr &ea, const Expr &eb, Analyzer &analyzer, const std::array<bool, 3> &varying) {
    std::optional<Digits> g = digits(ea, eb, analyzer);
    if (!g || *g->diff.max - *g->diff.min > 1024)
      return false;
    for (int64_t target = *g->diff.min; target <= *g->diff.max; ++target) {
      if (target != 0) {
        if (representable(g->steps, g->steps.size(), target))
          return false;
        continue;
      }
      // Only equal digits give equal indices: the threads are then the same one if the digits
      // determine every thread index that differs between threads.
      std::array<bool, 3> dims = recovered(*g, analyzer);
      for (int d = 0; d < 3; ++d)
        if (varying[d] && !dims[d])
          return false;
    }
    return true;
  }

  // Whether two different threads can reach one element through the accesses, one of them a
  // write. Both happen in one iteration of the loops around them, except the loops from
  // `carried` deep on, in which b is in a later iteration (SIZE_MAX: none).
  bool meet(const Access &a, const Access &b, size_t carried = SIZE_MAX) {
    if (a.data != b.data || (!a.write && !b.write) || a.index.size() != b.index.size())
      return false;
    bool single = true; // both by the same single thread
    for (int d = 0; d < 3; ++d)
      single &= a.threads[d].first == a.threads[d].second && a.threads[d] == b.threads[d];
    if (single)
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
      analyzer.bindRange(canon_[d], a.threads[d].first, std::max<int64_t>(a.threads[d].second - a.threads[d].first + 1, 0));
      analyzer.bindRange(other_[d], b.threads[d].first, std::max<int64_t>(b.threads[d].second - b.threads[d].first + 1, 0));
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
      // Thread indices are bound to the union of both ranges for the atoms' values.
      Analyzer both = analyzer;
      bool varying[3];
      for (int d = 0; d < 3; ++d) {
        int64_t lo = std::min(a.threads[d].first, b.threads[d].first);
        int64_t hi = std::max(a.threads[d].second, b.threads[d].second);
        varying[d] = hi > lo;
        both.bindRange(canon_[d], lo, std::max<int64_t>(hi - lo + 1, 0));
      }
      if (neverMeet(a.index[k], renamed.empty() ? b.index[k] : substitute(b.index[k], renamed), both,
                    {varying[0], varying[1], varying[2]}))
        return false;
    }
    return true;
  }

  const Access *firstMeeting(const std::vector<Access> &before, const std::vector<Access> &after,
                             size_t carried = SIZE_MAX) {
    for (const Access &b : after)
      for (const Access &a : before)
        if (meet(a, b, carried)) {
          meetingPartner_ = &b;
          return &a;
        }
    return nullptr;
  }

  void requireUniform(const Access &first, const Access &second, SourceRange at) {
    if (uniform())
      return;
    Diagnostic d{Severity::Error, at,
                 "thread-sync: a barrier is needed here (threads of a block may " +
                     std::string(first.write && second.write ? "both write" : first.write ? "read what another wrote"
                                                                                          : "overwrite what another read") +
                     " in shared buffer '" + first.name +
                     "'), but not every thread reaches this point: the control flow around it differs between threads",
                 {}};
    d.note(first.loc, first.write ? "the earlier write" : "the earlier read");
    d.note(second.loc, second.write ? "the later write" : "the later read");
    d.note(divergence_.back(), "the thread-dependent control flow");
    throw CompileError(d);
  }

  [[noreturn]] void fail(const Access &a, const Access &b, const std::string &where) {
    Diagnostic d{Severity::Error, b.loc,
                 "thread-sync: threads of a block may access one element of shared buffer '" + a.name +
                     "' (one of them writing) " + where,
                 {}};
    d.note(a.loc, "the other access");
    throw CompileError(d);
  }

  std::array<int64_t, 3> local_;
  std::array<Var, 3> canon_;
  std::array<Var, 6> blocks_;
  std::array<Var, 3> other_; // the thread indices of a second thread
  std::array<std::pair<int64_t, int64_t>, 3> threads_;
  std::vector<LoopRange> loops_;
  Analyzer simplifier_; // the kernel's thread ranges and the loops around
  std::vector<std::pair<Var, Expr>> subst_;
  std::vector<const VarNode *> varying_;
  std::vector<SourceRange> divergence_;
  const Access *meetingPartner_ = nullptr;
};

// Plans each kernel (outermost launch) of a body.
class KernelSync : public IRMutator {
public:
  bool sawKernel = false;

protected:
  using IRMutator::visit;
  Stmt visit(const AttrStmtNode *op) override {
    if (!op->isThreadLaunch())
      return IRMutator::visit(op);
    sawKernel = true;
    struct Extents : IRVisitor {
      std::array<int64_t, 3> local{1, 1, 1};
      using IRVisitor::visit;
      void visit(const AttrStmtNode *a) override {
        std::optional<ThreadTag> tag = parseThreadTag(a->threadTag.view());
        if (a->key.view() == attr::kThreadExtent && tag && tag->kind == ThreadTag::Kind::Thread) {
          const int64_t *e = asConstInt(a->value);
          if (!e)
            throw CompileError(a->loc, "thread-sync needs constant thread extents");
          local[tag->dim] = std::max(local[tag->dim], *e);
        }
        IRVisitor::visit(a);
      }
    } extents;
    extents.visit(Stmt(op));
    Planner planner(extents.local);
    return planner.plan(Stmt(op)).first;
  }
  Stmt visit(const ForNode *op) override {
    if (op->forKind == ForKind::ThreadBinding)
      throw CompileError(op->loc, "thread-sync needs thread launches; run lower-thread-binding first");
    return IRMutator::visit(op);
  }
};

class ThreadSyncPass : public Pass {
public:
  std::optional<Module> run(Module module, PassContext &) override {
    for (PrimFunc &func : module.functions) {
      KernelSync sync;
      Stmt body = sync.mutate(func->body);
      if (!sync.sawKernel)
        continue;
      const AttrValue *mark = func->attrs.find(attr::kExplicitBarriers);
      if (body == func->body && mark && mark->kind() == AttrValue::Kind::Bool && mark->asBool())
        continue;
      PrimFuncNode::Fields f = func->fields();
      f.body = body;
      f.attrs.set(attr::kExplicitBarriers, AttrValue::boolean(true));
      func = PrimFuncNode::make(std::move(f));
    }
    return module;
  }
};

} // namespace

PassInfo threadSyncPassInfo() {
  PassInfo info;
  info.name = "thread-sync";
  info.requirements = {IRProperty::BlocksLowered, IRProperty::ThreadsLaunched};
  info.summary = "insert barriers (T.tvm_storage_sync) between threads' accesses of shared storage";
  info.create = [](const PassOptions &) { return std::make_unique<ThreadSyncPass>(); };
  return info;
}

} // namespace tirlower
