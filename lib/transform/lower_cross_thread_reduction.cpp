// lower-cross-thread-reduction: a reduction block whose reduce iteration variables are bound to
// loops bound to threads (threadIdx) sums across threads: run as written by the threads of a
// block at once, every thread would update the one output element together. As TVM's
// LowerCrossThreadReduction, on block-level TIR and with its output, block for block:
//   - "<name>_in_thread_init" and "<name>_in_thread" (when some reduce loop is serial or the block
//     has a predicate): each thread reduces its own part into a local in_thread_<W> buffer;
//   - "<name>_cross_thread": T.tvm_thread_allreduce combines the threads' values into a local
//     cross_thread_<W> buffer (under T.attr(comm_reducer, "reduce_scope", 0));
//   - "<name>_write_back": W[i] = cross_thread_<W>[0], by the first thread (T.where(t == 0)), or
//     by every thread when W is local (each thread's own copy);
// all inside the thread-bound reduce loops, which move out to wrap the four; the other blocks
// under the reduction's first loop (a shared-memory prefetch) stay in place. The new buffers are
// allocated by the enclosing block (the function's root: T.alloc_buffer at its top). A later
// block that reads such a result and writes non-local storage outside the reduction's thread
// loops is wrapped in a thread loop of its own and guarded to its first thread (the broadcast).
//
// What it lowers: a block with an init whose updates, with their lets inlined, match one of
// TVM's reducers (transform/reducer_patterns.h: + * min max of one value, a sum of two, argmax
// and argmin), the only writer of its outputs in its scope, the reduce loops the innermost
// statements around it and it the last block under the first of them, its thread-bound reduce
// loops bound to threadIdx. Any other reduction across threads (or across blockIdx) is a located
// error saying why.
//
// Preconditions: blocks are not lowered yet (this pass runs first). Floats are combined in
// another order (a tree over the threads).
//
//   for k0 in range(2):                            cross_thread_S = T.alloc_buffer((1,), strides=(1,), scope="local")
//     for k1 in T.thread_binding(32, "threadIdx.x"):   in_thread_S = T.alloc_buffer((1,), strides=(1,), scope="local")
//       with T.sblock("red"):                          for k1 in T.thread_binding(32, "threadIdx.x"):
//         vk = T.axis.reduce(64, k0 * 32 + k1)   ->      with T.sblock("red_in_thread_init"): in_thread_S[0] = 0
//         with T.init():                                 for k0 in range(2):
//           S[0] = T.float32(0)                            with T.sblock("red_in_thread"): (in_thread_S[0] += A[vk])
//         S[0] = S[0] + A[vk]                            with T.sblock("red_cross_thread"):
//                                                          T.attr(T.comm_reducer(...), "reduce_scope", 0)
//                                                          T.tvm_thread_allreduce(T.uint32(1), in_thread_S[0],
//                                                                                 True, cross_thread_S[0], k1)
//                                                        with T.sblock("red_write_back"):
//                                                          T.where(k1 == 0)
//                                                          S[0] = cross_thread_S[0]
#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>

#include "arith/expr_util.h"
#include "ir/attrs.h"
#include "ir/equality.h"
#include "ir/gpu_builtins.h"
#include "ir/storage_scope.h"
#include "ir/visitor.h"
#include "transform/body_pass.h"
#include "transform/passes.h"
#include "transform/cross_thread_blocks.h"

namespace tirlower {

namespace {

std::optional<ThreadTag> threadTagOf(const ForNode &loop) {
  if (loop.forKind != ForKind::ThreadBinding)
    return std::nullopt;
  return parseThreadTag(loop.threadTag.view());
}

bool isThreadIdx(const ForNode &loop) {
  std::optional<ThreadTag> tag = threadTagOf(loop);
  return tag && tag->kind == ThreadTag::Kind::Thread;
}

bool uses(const Expr &e, const std::vector<Var> &vars) { return e && usesAnyVar(e, vars); }

bool isLocal(const Buffer &buffer) { return buffer->scope.view() == scope::kLocal; }

// A thread index a reduction ran over: its tag's dimension, and the range of its loop.
struct ReductionThread {
  int dim = 0;
  Expr min, extent;
};

class CrossThreadLowerer : public IRMutator {
public:
  Stmt run(const Stmt &body) {
    root_ = body;
    Stmt result = mutate(body);
    return rootAllocs_.empty() ? result : withRootAllocs(result);
  }

protected:
  using IRMutator::visit;

  Stmt visit(const ForNode *op) override {
    std::optional<ThreadTag> tag = threadTagOf(*op);
    bool threadIdx = tag && tag->kind == ThreadTag::Kind::Thread, blockIdx = tag && tag->kind == ThreadTag::Kind::Block;
    threadDepth_ += threadIdx;
    blockDepth_ += blockIdx;
    scopes_.push_back(op);
    loops_.push_back(op);
    Stmt result = IRMutator::visit(op);
    loops_.pop_back();
    scopes_.pop_back();
    threadDepth_ -= threadIdx;
    blockDepth_ -= blockIdx;
    // A kernel ends: its reductions' results are no longer produced across its threads.
    if (blockIdx || (threadIdx && threadDepth_ == 0 && blockDepth_ == 0))
      producedBy_.clear();
    auto it = replacements_.find(op);
    return it == replacements_.end() ? result : it->second;
  }

  Stmt visit(const BlockNode *op) override {
    std::vector<const ForNode *> reductionLoops = crossThreadLoops(*op);
    if (!reductionLoops.empty()) {
      // The reduction's statements replace its first loop, when the visit returns to it.
      lowerReduction(*op, reductionLoops);
      return EvaluateNode::make(intImm(0), op->loc);
    }
    if (!producedBy_.empty())
      if (std::map<int, ReductionThread> unbound = broadcastThreads(*op); !unbound.empty())
        return broadcast(*op, unbound);
    scopes_.push_back(nullptr);
    blocks_.push_back(op);
    Stmt result = IRMutator::visit(op);
    blocks_.pop_back();
    scopes_.pop_back();
    auto it = allocs_.find(op);
    if (it == allocs_.end())
      return result;
    BlockNode::Fields f = static_cast<const BlockNode &>(*result).fields();
    f.allocBuffers.insert(f.allocBuffers.end(), it->second.begin(), it->second.end());
    return BlockNode::make(std::move(f), result->loc);
  }

  // Any other statement between a block and its loops breaks the nest the reduction needs.
  Stmt visit(const IfThenElseNode *op) override { return scoped(op, [&] { return IRMutator::visit(op); }); }
  Stmt visit(const LetStmtNode *op) override { return scoped(op, [&] { return IRMutator::visit(op); }); }
  Stmt visit(const AttrStmtNode *op) override { return scoped(op, [&] { return IRMutator::visit(op); }); }
  Stmt visit(const AllocBufferNode *op) override { return scoped(op, [&] { return IRMutator::visit(op); }); }
  Stmt visit(const DeclBufferNode *op) override { return scoped(op, [&] { return IRMutator::visit(op); }); }
  Stmt visit(const AllocateNode *op) override { return scoped(op, [&] { return IRMutator::visit(op); }); }
  Stmt visit(const WhileNode *op) override { return scoped(op, [&] { return IRMutator::visit(op); }); }

private:
  template <typename F> Stmt scoped(const StmtNode *op, F &&visitChildren) {
    scopes_.push_back(op);
    Stmt result = visitChildren();
    scopes_.pop_back();
    return result;
  }

  [[noreturn]] static void fail(const BlockNode &block, SourceRange where, const std::string &why) {
    throw CompileError(where.valid() ? where : block.loc,
                       "block \"" + block.name.str() + "\" reduces across threads, which lower-cross-thread-reduction "
                                                        "cannot lower: " + why);
  }

  // The loops whose variables the block's reduce bindings use, outermost first, when one is
  // bound to a thread; empty when the block reduces within each thread (or is no reduction).
  std::vector<const ForNode *> crossThreadLoops(const BlockNode &block) const {
    std::vector<Var> reduceVars;
    for (const BlockIterVar &iv : block.iterVars)
      if (iv.kind == IterKind::Reduce)
        for (const ForNode *l : loops_)
          if (usesVar(iv.value, l->loopVar.get()))
            reduceVars.push_back(l->loopVar);
    std::vector<const ForNode *> result;
    bool bound = false;
    for (const ForNode *l : loops_)
      if (std::find(reduceVars.begin(), reduceVars.end(), l->loopVar) != reduceVars.end()) {
        result.push_back(l);
        bound = bound || l->forKind == ForKind::ThreadBinding;
      }
    if (!bound)
      result.clear();
    return result;
  }

  // The block's init values and updates (lets inlined), in the updates' order.
  static void initsAndUpdates(const BlockNode &block, std::vector<Expr> &inits, std::vector<ReductionUpdate> &updates) {
    auto storesOf = [&](const Stmt &s, const char *what) {
      std::vector<const BufferStoreNode *> stores;
      std::vector<Stmt> list = s.as<SeqStmtNode>() ? s.as<SeqStmtNode>()->stmts : std::vector<Stmt>{s};
      for (const Stmt &each : list) {
        const auto *store = each.as<BufferStoreNode>();
        if (!store)
          fail(block, each->loc, std::string("its ") + what + " is not a list of buffer stores");
        stores.push_back(store);
      }
      return stores;
    };
    // The body: stores, or lets `v_k: T.let = value_k` and then stores `W_k[i] = v_k` (argmax).
    Stmt body = block.body;
    std::vector<std::pair<Var, Expr>> lets;
    while (const auto *let = body.as<LetStmtNode>()) {
      lets.emplace_back(let->var, let->value);
      body = let->body;
    }
    std::vector<const BufferStoreNode *> stores = storesOf(body, "body");
    if (lets.empty()) {
      for (const BufferStoreNode *store : stores)
        updates.push_back({store->buffer, store->indices, store->value});
    } else {
      // The updates in the lets' order, each the value of the let its store stores.
      if (stores.size() != lets.size())
        fail(block, body->loc, "its body does not store each of its lets once");
      updates.resize(lets.size());
      for (const BufferStoreNode *store : stores) {
        size_t k = 0;
        while (k < lets.size() && store->value.get() != lets[k].first.get())
          ++k;
        if (k == lets.size() || updates[k].buffer)
          fail(block, store->loc, "its body does not store each of its lets once");
        updates[k] = {store->buffer, store->indices, lets[k].second};
      }
    }
    if (!block.init)
      fail(block, block.loc, "it has no init");
    std::vector<const BufferStoreNode *> initStores = storesOf(block.init, "init");
    if (initStores.size() != updates.size())
      fail(block, block.init->loc, "its init stores " + std::to_string(initStores.size()) + " values, its body " +
                                       std::to_string(updates.size()));
    inits.assign(updates.size(), Expr());
    for (const BufferStoreNode *init : initStores) {
      size_t k = 0;
      while (k < updates.size() && updates[k].buffer != init->buffer)
        ++k;
      if (k == updates.size() || inits[k] || !structurallyEqual(init->indices, updates[k].indices))
        fail(block, init->loc, "its init stores another element than its body");
      inits[k] = init->value;
    }
    for (size_t k = 1; k < updates.size(); ++k)
      if (!structurallyEqual(updates[k].indices, updates[0].indices))
        fail(block, block.body->loc, "its updates store elements of different indices");
  }

  // The checks of a block that reduces across threads over `loops` (TVM's conditions).
  void checkReduction(const BlockNode &block, const std::vector<const ForNode *> &loops) const {
    for (const BlockIterVar &iv : block.iterVars)
      if (iv.kind != IterKind::Reduce && iv.kind != IterKind::Spatial)
        fail(block, block.loc, std::string("its iteration variable '") + iv.var->name.str() + "' is " +
                                   iterKindName(iv.kind) + ", not spatial or reduce");
    // The reduce loops are the innermost statements around the block (sequences aside).
    size_t inner = 0;
    for (auto it = scopes_.rbegin(); it != scopes_.rend() && inner < loops.size(); ++it, ++inner)
      if (std::find(loops.begin(), loops.end(), *it) == loops.end())
        fail(block, *it ? (*it)->loc : block.loc,
             "the loops its reduce bindings use must be the innermost statements around it");
    for (const ForNode *l : loops)
      if (l->forKind == ForKind::ThreadBinding && !isThreadIdx(*l))
        fail(block, l->loc, "loop '" + l->loopVar->name.str() + "' of its reduction is bound to " + l->threadTag.str() +
                                ": work-groups cannot combine a reduction (nothing orders them); bind its reduce "
                                "loops to threadIdx or leave them serial");
    // It is the last block under the first reduce loop.
    std::vector<const BlockNode *> after = blocksOf(loops.front()->body, false);
    if (after.empty() || after.back() != &block)
      fail(block, block.loc, "it is not the last block under its first reduce loop '" +
                                 loops.front()->loopVar->name.str() + "'");
    // The only writer of its outputs in its scope, and its reduce variables index no output.
    Stmt scope = blocks_.empty() ? root_ : blocks_.back()->body;
    for (const BlockNode *other : blocksOf(scope, false))
      if (other != &block)
        for (const BufferRegion &w : other->writes)
          for (const BufferRegion &mine : block.writes)
            if (w.buffer == mine.buffer)
              fail(block, block.loc, "block \"" + other->name.str() + "\" writes its output '" +
                                          mine.buffer->name.str() + "' too");
  }

  void lowerReduction(const BlockNode &block, const std::vector<const ForNode *> &loops) {
    checkReduction(block, loops);
    std::vector<Expr> inits;
    std::vector<ReductionUpdate> updates;
    initsAndUpdates(block, inits, updates);
    std::vector<Var> reduceVars;
    for (const BlockIterVar &iv : block.iterVars)
      if (iv.kind == IterKind::Reduce)
        reduceVars.push_back(iv.var);
    for (const Expr &index : updates[0].indices)
      if (uses(index, reduceVars))
        fail(block, block.body->loc, "a reduce variable indexes its output");
    std::optional<MatchedReducer> matched = matchReducer(inits, updates, block.loc);
    if (!matched && matchReducer(inits, updates, block.loc, true))
      fail(block, block.init->loc, "its init value is not the identity of its combiner, which every thread starts from");
    if (!matched)
      fail(block, block.body->loc,
           "its updates match no reducer (a sum, product, min or max of one value, a sum of two, argmax or argmin)");
    for (const ReductionUpdate &u : updates)
      if (isLocal(u.buffer) != isLocal(updates[0].buffer))
        fail(block, block.loc, "its outputs are not all local or all non-local");
    size_t bound = 0;
    for (const ForNode *l : loops)
      bound += l->forKind == ForKind::ThreadBinding;
    bool inThread = bound < loops.size() || (block.predicate && !isConstTrue(block.predicate));
    std::vector<Buffer> &scopeAllocs = blocks_.empty() ? rootAllocs_ : allocs_[blocks_.back()];
    std::vector<Buffer> cross, own;
    for (const ReductionUpdate &u : updates)
      cross.push_back(crossThreadScratchpad("cross_thread_", u.buffer, block.loc));
    scopeAllocs.insert(scopeAllocs.end(), cross.begin(), cross.end());
    if (inThread) {
      for (const ReductionUpdate &u : updates)
        own.push_back(crossThreadScratchpad("in_thread_", u.buffer, block.loc));
      scopeAllocs.insert(scopeAllocs.end(), own.begin(), own.end());
    }
    replacements_[loops.front()] = buildCrossThreadReduction({&block, loops, updates, *matched, cross, own});
    std::vector<ReductionThread> threads;
    for (const ForNode *l : loops)
      if (l->forKind == ForKind::ThreadBinding)
        threads.push_back({threadTagOf(*l)->dim, l->min, l->extent});
    for (const ReductionUpdate &u : updates)
      producedBy_[u.buffer.get()] = threads;
  }

  // The threads a block that reads a cross-thread result runs outside of: none when it writes
  // local storage, or when every reduction thread is bound around it.
  std::map<int, ReductionThread> broadcastThreads(const BlockNode &block) const {
    for (const BufferRegion &w : block.writes)
      if (isLocal(w.buffer))
        return {};
    std::map<int, ReductionThread> threads;
    for (const BufferRegion &r : block.reads)
      if (auto it = producedBy_.find(r.buffer.get()); it != producedBy_.end())
        for (const ReductionThread &t : it->second)
          threads[t.dim] = t;
    for (const ForNode *l : loops_)
      if (isThreadIdx(*l))
        threads.erase(threadTagOf(*l)->dim);
    return threads;
  }

  // The block in loops over those threads, run by the first of each.
  static Stmt broadcast(const BlockNode &block, const std::map<int, ReductionThread> &threads) {
    SourceRange loc = block.loc;
    Expr predicate = block.predicate && !isConstTrue(block.predicate) ? block.predicate : Expr();
    std::vector<std::pair<Var, const ReductionThread *>> vars;
    for (const auto &[dim, t] : threads) {
      std::string letter(1, static_cast<char>('x' + dim));
      Var v = VarNode::make(Symbol("t" + letter), t.min->type, loc);
      vars.emplace_back(v, &t);
      Expr first = BinaryNode::make(BinaryOp::EQ, v, t.min, loc);
      predicate = predicate ? BinaryNode::make(BinaryOp::And, first, predicate, loc) : first;
    }
    BlockNode::Fields f = block.fields();
    f.predicate = predicate;
    Stmt body = BlockNode::make(std::move(f), loc);
    for (const auto &[v, t] : vars) {
      std::string letter(1, static_cast<char>('x' + t->dim));
      body = ForNode::make(v, t->min, t->extent, ForKind::ThreadBinding, body, Symbol("threadIdx." + letter), {}, loc);
    }
    return body;
  }

  // The function's top allocations, then the reductions' buffers of the root scope.
  Stmt withRootAllocs(const Stmt &s) const {
    if (const auto *alloc = s.as<AllocBufferNode>())
      return AllocBufferNode::make(alloc->buffer, withRootAllocs(alloc->body), alloc->loc);
    Stmt result = s;
    for (auto it = rootAllocs_.rbegin(); it != rootAllocs_.rend(); ++it)
      result = AllocBufferNode::make(*it, result, (*it)->loc);
    return result;
  }

  Stmt root_; // the function's body
  std::vector<const StmtNode *> scopes_; // the statements around the visit; null for a block
  std::vector<const ForNode *> loops_;
  std::vector<const BlockNode *> blocks_;
  std::unordered_map<const ForNode *, Stmt> replacements_;
  std::unordered_map<const BlockNode *, std::vector<Buffer>> allocs_;
  std::vector<Buffer> rootAllocs_;
  std::unordered_map<const BufferNode *, std::vector<ReductionThread>> producedBy_;
  int threadDepth_ = 0, blockDepth_ = 0;
};

} // namespace

PassInfo lowerCrossThreadReductionPassInfo() {
  PassInfo info;
  info.name = "lower-cross-thread-reduction";
  info.summary = "reductions across threads become in-thread reductions and a T.tvm_thread_allreduce";
  info.reassociates = true;
  info.create = [](const PassOptions &) {
    return std::make_unique<BodyPass>(
        [](const PrimFunc &func, PassContext &) { return CrossThreadLowerer().run(func->body); });
  };
  return info;
}

} // namespace tirlower
