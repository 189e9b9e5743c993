// lower-cross-thread-reduction: a reduction block whose reduce iteration variables are bound to
// loops bound to threads (threadIdx) sums across threads: run as written by the threads of a
// block at once, every thread would update the one output element together. As TVM's
// LowerCrossThreadReduction, each thread first reduces its own part (the serial reduce loops)
// into a local `in_thread` value, T.tvm_thread_allreduce combines the threads' values, and one
// thread writes the result, or every thread when the destination is "local" (each thread's own:
// a later block that every thread runs reads it). The thread-bound reduce loops become thread
// launches around it. A reduction over a blockIdx-bound loop is an error (groups cannot combine).
//
// What it lowers: a reduction block at the bottom of a perfect nest of loops used only by its
// reduce bindings and its predicate (or by nothing), one of them thread-bound; a body
// `W[i] = f(W[i], v)` with f one of + * min max and an init `W[i] = identity of f`. Any other
// cross-thread reduction is a located error saying why.
//
// Preconditions: blocks are not lowered yet (this pass runs first). Floats are combined in
// another order (a tree over the threads).
//
//   for k0 in range(2):                            with T.launch_thread("threadIdx.x", 32) as k1:
//     for k1 in T.thread_binding(32, "threadIdx.x"):   in_thread = T.alloc_buffer((1,), scope="local")
//       with T.sblock("red"):                          cross = T.alloc_buffer((1,), scope="local")
//         vk = T.axis.reduce(64, k0 * 32 + k1)   ->    in_thread[0] = T.float32(0)
//         with T.init():                               for k0 in range(2):
//           S[0] = T.float32(0)                            in_thread[0] = in_thread[0] + A[k0 * 32 + k1]
//         S[0] = S[0] + A[vk]                          with T.attr(T.comm_reducer(...), "reduce_scope", 0):
//                                                          T.tvm_thread_allreduce(T.uint32(1), in_thread[0],
//                                                                                 True, cross[0], k1)
//                                                      if k1 == 0:
//                                                          S[0] = cross[0]
#include <cmath>
#include <limits>

#include "arith/expr_util.h"
#include "ir/visitor.h"
#include "transform/body_pass.h"
#include "transform/passes.h"
#include "ir/attrs.h"
#include "ir/gpu_builtins.h"
#include "ir/storage_scope.h"

namespace tirlower {

namespace {

bool isThreadIdx(const ForNode &loop) {
  std::optional<ThreadTag> tag = parseThreadTag(loop.threadTag.view());
  return loop.forKind == ForKind::ThreadBinding && tag && tag->kind == ThreadTag::Kind::Thread;
}

bool uses(const Expr &e, const std::vector<Var> &vars) { return e && usesAnyVar(e, vars); }

// Whether `value` is the identity of `op` over `type`.
bool isIdentity(BinaryOp op, const Expr &value) {
  DataType t = value->type;
  const int64_t *i = asConstInt(value);
  const auto *f = value.as<FloatImmNode>();
  double v = f ? f->value : i ? static_cast<double>(*i) : std::nan("");
  switch (op) {
  case BinaryOp::Add: return v == 0;
  case BinaryOp::Mul: return v == 1;
  case BinaryOp::Max:
  case BinaryOp::Min: {
    bool max = op == BinaryOp::Max;
    if (f) {
      double extreme = t.bits() == 32   ? std::numeric_limits<float>::max()
                       : t.bits() == 64 ? std::numeric_limits<double>::max()
                                        : 65504.0;
      return max ? (v == -extreme || v == -INFINITY) : (v == extreme || v == INFINITY);
    }
    if (!i || t.bits() > 64)
      return false;
    if (t.isUInt())
      return max ? *i == 0 : static_cast<uint64_t>(*i) == (t.bits() == 64 ? UINT64_MAX : (uint64_t(1) << t.bits()) - 1);
    int64_t lo = t.bits() == 64 ? INT64_MIN : -(int64_t(1) << (t.bits() - 1));
    return max ? *i == lo : *i == -(lo + 1);
  }
  default: return false;
  }
}

class CrossThreadLowerer : public IRMutator {
protected:
  using IRMutator::visit;

  Stmt visit(const ForNode *op) override {
    // The perfect nest from this loop down to a block.
    std::vector<const ForNode *> chain;
    const StmtNode *s = op;
    while (const auto *loop = dynamic_cast<const ForNode *>(s)) {
      chain.push_back(loop);
      s = loop->body.get();
      if (const auto *seq = dynamic_cast<const SeqStmtNode *>(s); seq && seq->stmts.size() == 1)
        s = seq->stmts[0].get();
    }
    const auto *block = dynamic_cast<const BlockNode *>(s);
    if (block && crossThread(*block, chain) && nestOf(*block, chain))
      return lower(*block, chain);
    loops_.push_back(op);
    Stmt result = IRMutator::visit(op);
    loops_.pop_back();
    return result;
  }

  Stmt visit(const BlockNode *op) override {
    // A reduction across work-groups: nothing orders their updates (TVM rejects it too).
    for (const ForNode *l : loops_) {
      std::optional<ThreadTag> tag = parseThreadTag(l->threadTag.view());
      if (l->forKind != ForKind::ThreadBinding || !tag || tag->kind != ThreadTag::Kind::Block)
        continue;
      for (const BlockIterVar &iv : op->iterVars)
        if (iv.kind == IterKind::Reduce && uses(iv.value, {l->loopVar}))
          throw CompileError(op->loc, "block \"" + op->name.str() + "\" reduces over loop '" +
                                          l->loopVar->name.str() + "', which is bound to " + l->threadTag.str() +
                                          ": work-groups cannot combine a reduction (nothing orders them); bind its "
                                          "reduce loops to threadIdx or leave them serial");
    }
    // A cross-thread reduction whose loops never formed a nest this pass lowers.
    if (crossThread(*op, {}))
      throw CompileError(op->loc, "block \"" + op->name.str() +
                                      "\" reduces across threads (a reduce iteration variable is bound to a threadIdx "
                                      "loop), but lower-cross-thread-reduction cannot lower its loops: the loops "
                                      "from the outermost reduce loop down to the block must be a perfect nest used "
                                      "only by the reduce bindings and the predicate");
    return IRMutator::visit(op);
  }

private:
  // Some reduce binding uses a threadIdx-bound loop among `loops`.
  bool crossThread(const BlockNode &block, const std::vector<const ForNode *> &loops) const {
    std::vector<Var> threadVars;
    for (const ForNode *l : loops)
      if (isThreadIdx(*l))
        threadVars.push_back(l->loopVar);
    for (const ForNode *l : loops_)
      if (isThreadIdx(*l))
        threadVars.push_back(l->loopVar);
    for (const BlockIterVar &iv : block.iterVars)
      if (iv.kind == IterKind::Reduce && uses(iv.value, threadVars))
        return true;
    return false;
  }

  // The chain is exactly the block's reduction nest: its loops are used by reduce bindings and
  // the predicate only, and the reduce bindings and predicate use no other loop.
  bool nestOf(const BlockNode &block, const std::vector<const ForNode *> &chain) const {
    std::vector<Var> nest;
    for (const ForNode *l : chain)
      nest.push_back(l->loopVar);
    for (const BlockIterVar &iv : block.iterVars)
      if (iv.kind != IterKind::Reduce && uses(iv.value, nest))
        return false;
    std::vector<Var> outer;
    for (const ForNode *l : loops_)
      outer.push_back(l->loopVar);
    for (const BlockIterVar &iv : block.iterVars)
      if (iv.kind == IterKind::Reduce && uses(iv.value, outer))
        return false;
    return !uses(block.predicate, outer);
  }

  // What a cross-thread reduction block computes: W[index] = W[index] op value, every thread
  // starting from init's identity.
  struct Reduction {
    const BufferStoreNode *update = nullptr;
    const BufferStoreNode *init = nullptr;
    std::vector<Expr> index; // the element, with the block's bindings substituted
    BinaryOp op = BinaryOp::Add;
    Expr value;     // the combined value, with the bindings substituted
    Expr predicate; // the block's predicate, likewise; null when none
    DataType type;
  };

  [[noreturn]] static void fail(const BlockNode &block, SourceRange where, const std::string &why) {
    throw CompileError(where.valid() ? where : block.loc,
                       "block \"" + block.name.str() + "\" reduces across threads, which lower-cross-thread-reduction "
                                                        "cannot lower here: " + why);
  }

  Stmt lower(const BlockNode &block, const std::vector<const ForNode *> &chain) {
    Reduction reduction = reductionOf(block);
    std::vector<const ForNode *> threads, serial;
    for (const ForNode *l : chain)
      (isThreadIdx(*l) ? threads : serial).push_back(l);
    for (const ForNode *l : chain)
      if (l->forKind == ForKind::ThreadBinding && !isThreadIdx(*l))
        fail(block, l->loc, "a loop of its reduction is bound to " + l->threadTag.str() + ", not to a threadIdx");
    return launch(allreduce(block, reduction, threads, serial), threads);
  }

  // The block's reduction, checked to be one store W[i] = f(W[i], v) with an init W[i] = identity.
  static Reduction reductionOf(const BlockNode &block) {
    if (!block.allocBuffers.empty() || !block.matchBuffers.empty())
      fail(block, block.loc, "it allocates or matches buffers");
    Reduction r;
    r.update = block.body.as<BufferStoreNode>();
    r.init = block.init ? block.init.as<BufferStoreNode>() : nullptr;
    if (!r.update || !r.init)
      fail(block, block.body->loc, "its body must be one store W[i] = f(W[i], v) with an init W[i] = identity");
    std::vector<std::pair<Var, Expr>> bindings;
    for (const BlockIterVar &iv : block.iterVars)
      bindings.emplace_back(iv.var, iv.value);
    auto bind = [&](const Expr &e) { return e ? substitute(e, bindings) : e; };
    for (const Expr &i : r.update->indices)
      r.index.push_back(bind(i));
    std::vector<Expr> initIndex;
    for (const Expr &i : r.init->indices)
      initIndex.push_back(bind(i));
    if (r.init->buffer != r.update->buffer || !structurallyEqual(initIndex, r.index))
      fail(block, r.init->loc, "its init stores another element than its body");
    // The combiner: f(W[i], v) or f(v, W[i]).
    const auto *combine = r.update->value.as<BinaryNode>();
    auto isTarget = [&](const Expr &e) {
      const auto *load = e.as<BufferLoadNode>();
      return load && load->buffer == r.update->buffer && structurallyEqual(load->indices, r.update->indices);
    };
    if (!combine || (combine->op != BinaryOp::Add && combine->op != BinaryOp::Mul && combine->op != BinaryOp::Min &&
                     combine->op != BinaryOp::Max) ||
        (!isTarget(combine->a) && !isTarget(combine->b)))
      fail(block, r.update->loc, "its body is not W[i] = W[i] + v (or *, T.min, T.max)");
    r.op = combine->op;
    r.value = bind(isTarget(combine->a) ? combine->b : combine->a);
    if (!isIdentity(combine->op, r.init->value))
      fail(block, r.init->loc, "its init value is not the identity of its combiner, which every thread starts from");
    r.type = r.update->value->type;
    r.predicate = bind(block.predicate);
    return r;
  }

  // The reduction as a T.tvm_thread_allreduce over the `threads` loops, after each thread folds
  // the iterations of the `serial` loops into its in-thread buffer; the first thread stores
  // the result.
  Stmt allreduce(const BlockNode &block, const Reduction &r, const std::vector<const ForNode *> &threads,
                 const std::vector<const ForNode *> &serial) const {
    SourceRange loc = block.loc;
    Var x = VarNode::make(Symbol("x0"), r.type, loc), y = VarNode::make(Symbol("y0"), r.type, loc);
    CommReducer reducer =
        CommReducerNode::make({x}, {y}, {BinaryNode::make(r.op, x, y, loc)}, {r.init->value}, loc);
    auto localBuffer = [&](const std::string &prefix) {
      BufferNode::Fields f;
      f.name = Symbol(prefix + r.update->buffer->name.str());
      f.dtype = r.type;
      f.shape = {intImm(1)};
      f.scope = Symbol(scope::kLocal);
      f.data = VarNode::makeHandle(f.name, r.type, f.scope, loc);
      f.loc = loc;
      return BufferNode::make(std::move(f));
    };
    Buffer cross = localBuffer("cross_thread_");
    Buffer inThread = serial.empty() ? nullptr : localBuffer("in_thread_");
    std::vector<Stmt> body;
    // A value the predicate leaves out is the identity, and is never evaluated (it may be out
    // of bounds there).
    Expr source =
        r.predicate ? CallNode::make(r.type, Symbol("if_then_else"), {r.predicate, r.value, r.init->value}, loc) : r.value;
    Expr condition = IntImmNode::make(DataType::boolean(), 1, loc);
    if (inThread) {
      Expr slot = BufferLoadNode::make(inThread, {intImm(0)}, loc);
      body.push_back(BufferStoreNode::make(inThread, r.init->value, {intImm(0)}, loc));
      body.push_back(inThreadLoops(r, inThread, slot, serial, loc));
      source = slot;
    }
    std::vector<Expr> args{IntImmNode::make(*DataType::parse("uint32"), 1, loc), source, condition,
                           BufferLoadNode::make(cross, {intImm(0)}, loc)};
    Expr first;
    for (const ForNode *l : threads) {
      args.push_back(l->loopVar);
      Expr atMin = BinaryNode::make(BinaryOp::EQ, l->loopVar, l->min, loc);
      first = first ? BinaryNode::make(BinaryOp::And, first, atMin, loc) : atMin;
    }
    Stmt call = EvaluateNode::make(CallNode::make(DataType::handle(), Symbol(builtin::kThreadAllreduce), args, loc), loc);
    body.push_back(AttrStmtNode::make(nullptr, Symbol(attr::kReduceScope), intImm(0), call, loc, {}, reducer));
    // Every thread has the result. A "local" destination is each thread's own, and a later block
    // that every thread runs reads its copy: all store it (the broadcast). Shared or global
    // storage is written once, by the first thread.
    Stmt store = BufferStoreNode::make(r.update->buffer, BufferLoadNode::make(cross, {intImm(0)}, loc), r.index, loc);
    body.push_back(r.update->buffer->scope.view() == scope::kLocal ? store : IfThenElseNode::make(first, store, nullptr, loc));
    Stmt result = AllocBufferNode::make(cross, SeqStmtNode::make(std::move(body), loc), loc);
    if (inThread)
      result = AllocBufferNode::make(inThread, result, loc);
    return result;
  }

  // The serial reduce loops, each thread combining its values into `inThread` (vectorized loops
  // become serial).
  static Stmt inThreadLoops(const Reduction &r, const Buffer &inThread, const Expr &slot,
                            const std::vector<const ForNode *> &serial, SourceRange loc) {
    Stmt step = BufferStoreNode::make(inThread, BinaryNode::make(r.op, slot, r.value, loc), {intImm(0)}, loc);
    if (r.predicate)
      step = IfThenElseNode::make(r.predicate, step, nullptr, loc);
    for (auto it = serial.rbegin(); it != serial.rend(); ++it) {
      const ForNode *l = *it;
      ForKind kind = l->forKind == ForKind::Vectorized ? ForKind::Serial : l->forKind;
      step = ForNode::make(l->loopVar, l->min, l->extent, kind, step, {}, l->annotations, l->loc);
    }
    return step;
  }

  // The thread-bound reduce loops become launches, outermost first.
  static Stmt launch(Stmt result, const std::vector<const ForNode *> &threads) {
    for (auto it = threads.rbegin(); it != threads.rend(); ++it) {
      const ForNode *l = *it;
      Var var = l->loopVar;
      if (!asConstInt(l->min) || *asConstInt(l->min) != 0) {
        Var index0 = VarNode::make(l->loopVar->name, l->loopVar->type, l->loopVar->loc);
        result = substitute(result, {{l->loopVar, index0 + l->min}});
        var = index0;
      }
      result = AttrStmtNode::make(var, Symbol(attr::kThreadExtent), l->extent, result, l->loc, l->threadTag);
    }
    return result;
  }

  std::vector<const ForNode *> loops_;
};

} // namespace

PassInfo lowerCrossThreadReductionPassInfo() {
  PassInfo info;
  info.name = "lower-cross-thread-reduction";
  info.summary = "reductions across threads become in-thread reductions and a T.tvm_thread_allreduce";
  info.reassociates = true;
  info.create = [](const PassOptions &) {
    return std::make_unique<BodyPass>(
        [](const PrimFunc &func, PassContext &) { return CrossThreadLowerer().mutate(func->body); });
  };
  return info;
}

} // namespace tirlower
