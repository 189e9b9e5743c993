// thread-sync: inserts T.tvm_storage_sync("shared") barriers, as TVM's ThreadSync("shared"),
// wherever threads of a block could otherwise touch an element of shared storage that another
// thread wrote (or write one another read) with no barrier in between: between statements of a
// kernel, and at the start of a loop body when an iteration's accesses meet the next one's. It
// then marks the function "tirlower.explicit_barriers": from here on its barriers are all there
// are (the interpreter stops implying them, see ir/function.h).
//
// This file is the barrier planner: it walks each kernel (an outermost launch, its work-group
// size from the thread-extent census, ir/thread_extents.h) and summarises each statement's
// accesses before its first barrier and after its last. The accesses and whether two of them
// meet are the storage-access analysis's (transform/storage_access.h): two accesses of one
// shared buffer, one of them a write, meet when two different threads may reach the same
// element: not when some index's ranges are disjoint (with the loop ranges and the thread-index
// guards of ifs and launches around each access), and not when lib/arith proves that an index
// gives each thread its own slots (arith/thread_disjoint.h: `sum(c_k * digit_k) + rest`, the
// coefficients constants or symbolic strides such as `(n + 7) // 8 * 8`). Anything else meets.
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

#include "ir/attrs.h"
#include "ir/functor.h"
#include "ir/gpu_builtins.h"
#include "ir/storage_scope.h"
#include "ir/thread_extents.h"
#include "ir/visitor.h"
#include "transform/passes.h"
#include "transform/storage_access.h"

namespace tirlower {

namespace {

struct Summary {
  std::vector<SharedAccess> head; // before the first barrier
  std::vector<SharedAccess> tail; // after the last barrier (everything when there is none)
  bool barrier = false;           // every thread passes a barrier in it
  bool warpBarrier = false;       // every thread that runs it passes one warp barrier (or a barrier) in it
};

void append(std::vector<SharedAccess> &to, const std::vector<SharedAccess> &from) {
  to.insert(to.end(), from.begin(), from.end());
}

// A summary as seen from outside a statement that not every thread running it passes through
// whole (a branch, a shorter launch, a loop of thread-dependent bounds): a warp barrier inside
// orders nothing for threads outside it.
Summary withoutWarpOrder(Summary sum) {
  for (SharedAccess &a : sum.head)
    a.warpBefore = false;
  for (SharedAccess &a : sum.tail)
    a.warpAfter = false;
  sum.warpBarrier = false;
  return sum;
}

Stmt makeSync(SourceRange loc) {
  return makeSharedStorageSync(loc);
}

bool isSync(const Stmt &s) {
  return storageSyncOf(s) != nullptr;
}

class Planner : private StmtFunctor<std::pair<Stmt, Summary>(const Stmt &, const Stmt &)> {
public:
  Planner(std::array<int64_t, 3> local, int64_t warpSize) : acc_(local, warpSize) {}

  std::pair<Stmt, Summary> plan(const Stmt &s) { return visitStmt(s, s); }

private:
  // One method per statement kind; `s` is the statement itself (returned when unchanged).
  std::pair<Stmt, Summary> visitSeqStmt(const SeqStmtNode *, const Stmt &s) override { return planSeq(s); }

  std::pair<Stmt, Summary> visitBufferStore(const BufferStoreNode *op, const Stmt &s) override {
    std::vector<SharedAccess> acc = acc_.loads(op->value);
    for (const Expr &i : op->indices)
      append(acc, acc_.loads(i));
    if (isSharedBuffer(*op->buffer))
      acc.push_back(acc_.record(*op->buffer, op->indices, true, op->loc));
    return leaf(s, std::move(acc));
  }

  std::pair<Stmt, Summary> visitEvaluate(const EvaluateNode *op, const Stmt &s) override {
    if (const CallNode *sync = storageSyncOf(s); sync && storageSyncScope(*sync) == scope::kWarp) {
      // CUDA's __syncwarp(): it orders the lanes of a warp that reach it.
      if (!acc_.warpSize())
        throw CompileError(op->loc, "thread-sync: T.tvm_storage_sync(\"warp\") orders the lanes of a warp, whose "
                                    "size the target declares: give --subgroup-size=N (thread-sync's option "
                                    "subgroup-size)");
      Summary sum;
      sum.warpBarrier = warpOrderHolds();
      return {s, sum};
    }
    if (isSync(s)) {
      Summary sum;
      sum.barrier = uniform();
      sum.warpBarrier = sum.barrier;
      return {s, sum};
    }
    const auto *call = op->value.as<CallNode>();
    if (call && isThreadAllreduce(*call)) {
      // A collective: the values are read before the threads meet, the results written after.
      Summary sum;
      sum.barrier = uniform();
      size_t count =
          call->args.empty() || !asConstInt(call->args[0]) ? 0 : static_cast<size_t>(*asConstInt(call->args[0]));
      for (size_t a = 1; a < call->args.size(); ++a) {
        const auto *dest = call->args[a].as<BufferLoadNode>();
        if (a > count + 1 && a <= 2 * count + 1 && dest) {
          if (isSharedBuffer(*dest->buffer))
            sum.tail.push_back(acc_.record(*dest->buffer, dest->indices, true, op->loc));
          continue;
        }
        append(sum.head, acc_.loads(call->args[a]));
      }
      if (!sum.barrier)
        append(sum.tail, sum.head);
      return {s, sum};
    }
    return leaf(s, acc_.loads(op->value));
  }

  std::pair<Stmt, Summary> visitAssertStmt(const AssertStmtNode *op, const Stmt &s) override {
    return leaf(s, acc_.loads(op->condition));
  }

  std::pair<Stmt, Summary> visitIfThenElse(const IfThenElseNode *op, const Stmt &) override { return planIf(*op); }

  std::pair<Stmt, Summary> visitFor(const ForNode *op, const Stmt &) override { return planFor(*op); }

  std::pair<Stmt, Summary> visitWhile(const WhileNode *op, const Stmt &s) override {
    std::vector<SharedAccess> cond = acc_.loads(op->condition);
    Divergence d(*this, acc_.isVarying(op->condition), op->loc);
    auto [body, planned] = planLoopBody(op->body, op->loc, acc_.loopDepth());
    Summary sum = withoutWarpOrder(planned); // the iterations differ between threads
    Summary out;
    out.head = cond;
    append(out.head, sum.head);
    out.tail = cond;
    append(out.tail, sum.tail);
    return {body == op->body ? s : WhileNode::make(op->condition, body, op->loc), out};
  }

  std::pair<Stmt, Summary> visitLetStmt(const LetStmtNode *op, const Stmt &s) override {
    std::vector<SharedAccess> value = acc_.loads(op->value);
    acc_.bindValue(op->var, acc_.canonical(op->value));
    if (acc_.isVarying(op->value))
      acc_.markVarying(op->var.get());
    auto [planned, sum] = plan(op->body);
    acc_.unbindValue();
    auto [body, out] = prefixed(value, planned, sum, true);
    return {body == op->body ? s : LetStmtNode::make(op->var, op->value, body, op->loc), out};
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

  // Marks the statements compiled in its lifetime as thread-divergent (when `divergent`);
  // `threadsOnly`: by a condition on thread indices alone (an if's guard, a shorter launch).
  class Divergence {
  public:
    Divergence(Planner &p, bool divergent, SourceRange where, bool threadsOnly = false) : p_(p), active_(divergent) {
      if (active_)
        p_.divergence_.push_back({where, threadsOnly});
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

  // Whether a warp barrier here orders the lanes that pass it: the warp size is known, and the
  // threads that reach it differ only by guards on thread indices, so that the lanes of a warp
  // that run a statement around it meet at it in the same iteration of every loop around.
  bool warpOrderHolds() const {
    return acc_.warpSize() > 0 &&
           std::all_of(divergence_.begin(), divergence_.end(), [](const DivergentFlow &f) { return f.threadsOnly; });
  }

  // The accesses `first` (a let's value, a loop's bounds) before a statement's `then`: a barrier
  // at the start of `body` when they meet (`bodyRuns`: the body runs whenever `first` does).
  std::pair<Stmt, Summary> prefixed(const std::vector<SharedAccess> &first, Stmt body, Summary then, bool bodyRuns) {
    if (const SharedAccess *a = firstMeeting(first, then.head)) {
      SourceRange at = body->loc;
      for (const auto *seq = body.as<SeqStmtNode>(); seq && !seq->stmts.empty(); seq = seq->stmts[0].as<SeqStmtNode>())
        at = seq->stmts[0]->loc; // the body's first statement, which the barrier will precede
      requireUniform(*a, *meetingPartner_, at);
      body = SeqStmtNode::make({makeSync(at), body}, body->loc);
      then.head.clear();
      then.barrier = then.barrier || bodyRuns;
      then.warpBarrier = then.warpBarrier || bodyRuns;
    }
    Summary out = then;
    std::vector<SharedAccess> head = first;
    append(head, then.head);
    out.head = std::move(head);
    if (!then.barrier) {
      std::vector<SharedAccess> tail = first;
      for (SharedAccess &a : tail)
        a.warpAfter = then.warpBarrier;
      append(tail, then.tail);
      out.tail = std::move(tail);
    }
    return {body, out};
  }

  std::pair<Stmt, Summary> leaf(const Stmt &s, std::vector<SharedAccess> acc) {
    for (size_t a = 0; a < acc.size(); ++a)
      for (size_t b = a; b < acc.size(); ++b)
        if (acc_.meet(acc[a], acc[b]))
          fail(acc[a], acc[b], "within one statement, where no barrier can separate them");
    Summary sum;
    sum.head = acc;
    sum.tail = std::move(acc);
    return {s, sum};
  }

  std::pair<Stmt, Summary> planSeq(const Stmt &seq) {
    const std::vector<Stmt> &stmts = seq.as<SeqStmtNode>()->stmts;
    std::vector<Stmt> out;
    std::vector<SharedAccess> pending;
    Summary sum;
    bool changed = false;
    for (const Stmt &s : stmts) {
      auto [planned, part] = plan(s);
      changed |= planned != s;
      if (const SharedAccess *a = firstMeeting(pending, part.head)) {
        requireUniform(*a, *meetingPartner_, s->loc);
        out.push_back(makeSync(s->loc));
        changed = true;
        pending.clear();
        sum.barrier = sum.warpBarrier = true;
      }
      if (!sum.barrier)
        for (SharedAccess a : part.head) {
          a.warpBefore = a.warpBefore || sum.warpBarrier; // a warp barrier of an earlier statement
          sum.head.push_back(std::move(a));
        }
      if (part.barrier) {
        pending = part.tail;
        sum.barrier = true;
      } else {
        if (part.warpBarrier)
          for (SharedAccess &a : pending)
            a.warpAfter = true;
        append(pending, part.tail);
      }
      sum.warpBarrier = sum.warpBarrier || part.warpBarrier || part.barrier;
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
    if (const SharedAccess *a = firstMeeting(sum.tail, sum.head, depth)) {
      requireUniform(*a, *meetingPartner_, loopLoc);
      planned = SeqStmtNode::make({makeSync(body->loc), planned}, body->loc);
      sum.head.clear();
      sum.barrier = true;
    }
    return {planned, sum};
  }

  std::pair<Stmt, Summary> planIf(const IfThenElseNode &op) {
    std::vector<SharedAccess> cond = acc_.loads(op.condition);
    GuardState outside = acc_.enterGuard(op.condition);
    Divergence d(*this, acc_.isVarying(op.condition), op.loc, outside.threadsOnly);
    Stmt thenCase, elseCase;
    Summary thenSum, elseSum;
    std::tie(thenCase, thenSum) = plan(op.thenCase);
    acc_.exitGuard(outside);
    if (op.elseCase)
      std::tie(elseCase, elseSum) = plan(op.elseCase);
    thenSum = withoutWarpOrder(thenSum); // not every thread takes a branch
    elseSum = withoutWarpOrder(elseSum);
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
    std::vector<SharedAccess> bounds = acc_.loads(op.min);
    append(bounds, acc_.loads(op.extent));
    Expr min = acc_.canonical(op.min), extent = acc_.canonical(op.extent);
    bool varyingBounds = acc_.isVarying(op.min) || acc_.isVarying(op.extent);
    Divergence d(*this, varyingBounds, op.loc);
    if (varyingBounds)
      acc_.markVarying(op.loopVar.get());
    std::pair<Stmt, Summary> planned;
    const int64_t *once = asConstInt(extent);
    if (once && *once == 1) { // a loop of one iteration: its variable is its minimum
      acc_.bindValue(op.loopVar, min);
      planned = plan(op.body);
      acc_.unbindValue();
    } else {
      acc_.enterLoop(op.loopVar, min, extent);
      planned = planLoopBody(op.body, op.loc, acc_.loopDepth() - 1);
      acc_.exitLoop();
    }
    const int64_t *trips = asConstInt(op.extent);
    const bool runs = trips && *trips > 0;
    Summary sum = varyingBounds ? withoutWarpOrder(planned.second) : planned.second;
    sum.barrier = sum.barrier && runs;
    sum.warpBarrier = sum.warpBarrier && runs;
    auto [body, out] = prefixed(bounds, planned.first, sum, runs);
    Stmt s = body == op.body
                 ? Stmt(&op)
                 : ForNode::make(op.loopVar, op.min, op.extent, op.forKind, body, op.threadTag, op.annotations, op.loc);
    return {s, out};
  }

  std::pair<Stmt, Summary> planAttr(const AttrStmtNode &op) {
    const VarNode *var = op.threadVar();
    std::optional<ThreadTag> tag = parseThreadTag(op.threadTag.view());
    if (!var || !tag)
      return rebuildAttr(op);
    bool covers = acc_.enterLaunch(op, *tag);
    std::pair<Stmt, Summary> result;
    {
      Divergence div(*this, !covers, op.loc, true);
      result = rebuildAttr(op);
    }
    acc_.exitLaunch(*tag);
    if (!covers) // the threads past a shorter launch do not run it
      result.second = withoutWarpOrder(result.second);
    return result;
  }

  std::pair<Stmt, Summary> rebuildAttr(const AttrStmtNode &op) {
    auto [body, sum] = plan(op.body);
    return {body == op.body ? Stmt(&op) : AttrStmtNode::like(op, op.node, op.value, body), sum};
  }

  const SharedAccess *firstMeeting(const std::vector<SharedAccess> &before, const std::vector<SharedAccess> &after,
                                   size_t carried = SIZE_MAX) {
    for (const SharedAccess &b : after)
      for (const SharedAccess &a : before)
        if (acc_.meet(a, b, carried, a.warpAfter || b.warpBefore)) {
          meetingPartner_ = &b;
          return &a;
        }
    return nullptr;
  }

  void requireUniform(const SharedAccess &first, const SharedAccess &second, SourceRange at) {
    if (uniform())
      return;
    Diagnostic d{Severity::Error,
                 at,
                 "thread-sync: a barrier is needed here (threads of a block may " +
                     std::string(first.write && second.write ? "both write"
                                 : first.write               ? "read what another wrote"
                                                             : "overwrite what another read") +
                     " in shared buffer '" + first.name +
                     "'), but not every thread reaches this point: the control flow around it differs between threads",
                 {}};
    d.note(first.loc, first.write ? "the earlier write" : "the earlier read");
    d.note(second.loc, second.write ? "the later write" : "the later read");
    d.note(divergence_.back().where, "the thread-dependent control flow");
    throw CompileError(d);
  }

  [[noreturn]] void fail(const SharedAccess &a, const SharedAccess &b, const std::string &where) {
    Diagnostic d{Severity::Error,
                 b.loc,
                 "thread-sync: threads of a block may access one element of shared buffer '" + a.name +
                     "' (one of them writing) " + where,
                 {}};
    d.note(a.loc, "the other access");
    throw CompileError(d);
  }

  struct DivergentFlow {
    SourceRange where;
    bool threadsOnly;
  };

  SharedAccessAnalysis acc_;
  std::vector<DivergentFlow> divergence_;
  const SharedAccess *meetingPartner_ = nullptr;
};

// Plans each kernel (outermost launch) of a body.
class KernelSync : public IRMutator {
public:
  explicit KernelSync(int64_t warpSize) : warpSize_(warpSize) {}
  bool sawKernel = false;

protected:
  using IRMutator::visit;
  Stmt visit(const AttrStmtNode *op) override {
    if (!op->isThreadLaunch())
      return IRMutator::visit(op);
    sawKernel = true;
    ThreadExtentCensus census = threadExtentCensus(Stmt(op));
    if (const ThreadBinding *symbolic = census.firstSymbolicLaunch())
      throw CompileError(symbolic->loc, "thread-sync needs constant thread extents");
    Planner planner(census.local, warpSize_);
    return planner.plan(Stmt(op)).first;
  }
  Stmt visit(const ForNode *op) override {
    if (op->forKind == ForKind::ThreadBinding)
      throw CompileError(op->loc, "thread-sync needs thread launches; run lower-thread-binding first");
    return IRMutator::visit(op);
  }

private:
  int64_t warpSize_;
};

class ThreadSyncPass : public Pass {
public:
  explicit ThreadSyncPass(int64_t warpSize) : warpSize_(warpSize) {}
  std::optional<Module> run(Module module, PassContext &) override {
    for (PrimFunc &func : module.functions) {
      KernelSync sync(warpSize_);
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

private:
  int64_t warpSize_;
};

} // namespace

PassInfo threadSyncPassInfo() {
  PassInfo info;
  info.name = "thread-sync";
  info.requirements = {IRProperty::BlocksLowered, IRProperty::ThreadsLaunched};
  info.summary = "insert barriers (T.tvm_storage_sync) between threads' accesses of shared storage";
  static const PassOption<int64_t> kSubgroupSize{
      givenByFlag(integerOption("subgroup-size", "",
                                "the lanes of a warp (the device's sub-group size): what T.tvm_storage_sync(\"warp\") "
                                "orders; absent: the target has no warps",
                                1, 1024),
                  "--subgroup-size")};
  info.options = {kSubgroupSize};
  info.create = [](const PassOptions &options) {
    return std::make_unique<ThreadSyncPass>(kSubgroupSize.find(options).value_or(0));
  };
  return info;
}

} // namespace tirlower
