// lower-thread-allreduce: turns each T.tvm_thread_allreduce into a tree reduction through shared
// storage with barriers, as TVM's LowerThreadAllreduce does for a target whose warp is one
// thread. The threads that differ only in the reduced thread indices (those of the call's
// thread variables) form a group of n; each writes its value (the identity when its condition
// is false) to its slot of a shared buffer of groups x n elements, then the first half adds the
// second half in log2(n) steps, and every thread reads the group's result into its destinations.
// The interpreter runs T.tvm_thread_allreduce with the same tree, so the results agree bit for bit.
//
// Preconditions: thread-bound loops are launches (lower-thread-binding); every thread extent of
// the kernel is a constant; the call stands in a reduce_scope attribute (its T.comm_reducer).
//
//   with T.attr(T.comm_reducer(lambda x, y: x + y, [T.float32(0)]), "reduce_scope", 0):
//       T.tvm_thread_allreduce(T.uint32(1), v[0], True, r[0], tx)      (tx: threadIdx.x, 32)
//   ->
//   with T.attr(T.comm_reducer(...), "reduce_scope", 0):
//       red_buf0 = T.alloc_buffer((32,), "float32", scope="shared")
//       T.tvm_storage_sync("shared")
//       red_buf0[tx] = v[0]
//       T.tvm_storage_sync("shared")
//       if tx < 16:
//           red_buf0[tx] = red_buf0[tx] + red_buf0[tx + 16]
//       T.tvm_storage_sync("shared")
//       ...                                                  (8, 4, 2, 1)
//       r[0] = red_buf0[0]
#include <array>

#include "ir/visitor.h"
#include "transform/body_pass.h"
#include "transform/passes.h"
#include "ir/attrs.h"
#include "ir/gpu_builtins.h"
#include "ir/storage_scope.h"
#include "ir/thread_extents.h"

namespace tirlower {

namespace {

Stmt sync(SourceRange loc) {
  return makeSharedStorageSync(loc);
}

class AllreduceLowerer : public IRMutator {
protected:
  using IRMutator::visit;

  Stmt visit(const AttrStmtNode *op) override {
    if (op->reducer) {
      reducers_.push_back(op->reducer.get());
      Stmt s = IRMutator::visit(op);
      reducers_.pop_back();
      return s;
    }
    if (!op->isThreadLaunch())
      return IRMutator::visit(op);
    std::optional<ThreadTag> tag = parseThreadTag(op->threadTag.view());
    bool outermost = launches_.empty();
    if (outermost)
      measureKernel(Stmt(op));
    launches_.push_back({op->threadVar(), tag ? *tag : ThreadTag{}});
    Stmt s = IRMutator::visit(op);
    launches_.pop_back();
    return s;
  }

  Stmt visit(const ForNode *op) override {
    if (op->forKind == ForKind::ThreadBinding && containsAllreduce(op->body))
      throw CompileError(op->loc, "a T.tvm_thread_allreduce inside a thread-bound loop: run lower-thread-binding "
                                  "first (the reduction needs thread launches)");
    return IRMutator::visit(op);
  }

  Stmt visit(const EvaluateNode *op) override {
    const auto *call = op->value.as<CallNode>();
    if (!call || !isThreadAllreduce(*call))
      return Stmt(op);
    return lower(*call, op->loc);
  }

private:
  struct Launch {
    const VarNode *var;
    ThreadTag tag;
  };

  static bool containsAllreduce(const Stmt &s) {
    struct Finder : IRVisitor {
      bool found = false;
      using IRVisitor::visit;
      void visit(const CallNode *op) override {
        found |= isThreadAllreduce(*op);
        IRVisitor::visit(op);
      }
    } finder;
    finder.visit(s);
    return finder.found;
  }

  // The launched thread extents of the kernel (the largest launch per dimension).
  void measureKernel(const Stmt &kernel) {
    ThreadExtentCensus census = threadExtentCensus(kernel);
    local_ = census.local;
    constant_ = census.localConstant;
  }

  // The shared buffers and thread indices of one reduction tree.
  struct Tree {
    const CommReducerNode &reducer;
    std::vector<Buffer> bufs; // per reduced value, one slot per thread of the block
    Expr reduceIndex;         // the thread's index over the reduced dimensions
    Expr base;                // the first slot of the thread's group
    SourceRange loc;
    // The group's slot `offset`.
    Expr slot(Expr offset) const {
      const int64_t *b = asConstInt(base);
      return b && *b == 0 ? offset : base + offset;
    }
  };

  // The thread's reduce index (over the reduced dimensions) and group index (over the others),
  // x fastest, with the number of threads each counts.
  struct ThreadIndices {
    Expr reduce, group;
    int64_t reduced = 1, groups = 1;
  };

  Stmt lower(const CallNode &call, SourceRange loc) {
    const CommReducerNode &reducer = checkedReducer(call, loc);
    const size_t count = reducer.lhs.size();
    ThreadIndices indices = threadIndices(reducedDimensions(call, count, loc), loc);
    Expr base = indices.groups == 1 ? Expr(intImm(0)) : indices.group * intImm(indices.reduced);
    Tree tree{reducer, reductionBuffers(reducer, indices.groups * indices.reduced, loc), indices.reduce, base, loc};
    std::vector<Stmt> seq;
    seq.push_back(sync(loc));
    storeThreadValues(call, tree, seq);
    seq.push_back(sync(loc));
    combineHalves(tree, indices.reduced, seq);
    copyResults(call, tree, seq);
    Stmt body = SeqStmtNode::make(std::move(seq), loc);
    for (size_t k = count; k-- > 0;)
      body = AllocBufferNode::make(tree.bufs[k], body, loc);
    return body;
  }

  // The innermost reduce_scope's reducer, checked against the call's count of values.
  const CommReducerNode &checkedReducer(const CallNode &call, SourceRange loc) const {
    if (reducers_.empty())
      throw CompileError(loc, "T.tvm_thread_allreduce outside a reduce_scope attribute: no T.comm_reducer says how to "
                              "combine the values");
    if (launches_.empty())
      throw CompileError(loc, "T.tvm_thread_allreduce outside a thread launch");
    const CommReducerNode &reducer = *reducers_.back();
    const size_t count = reducer.lhs.size();
    const int64_t *declared = asConstInt(call.args[0]);
    if (!declared || static_cast<size_t>(*declared) != count || call.args.size() < 2 * count + 2)
      throw CompileError(loc, "T.tvm_thread_allreduce reduces " + std::to_string(declared ? *declared : 0) +
                                  " values but its reducer " + std::to_string(count));
    return reducer;
  }

  // Which thread dimensions the call reduces over (its trailing threadIdx arguments).
  std::array<bool, 3> reducedDimensions(const CallNode &call, size_t count, SourceRange loc) const {
    std::array<bool, 3> reduced{false, false, false};
    for (size_t a = 2 * count + 2; a < call.args.size(); ++a) {
      const auto *var = call.args[a].as<VarNode>();
      auto it = std::find_if(launches_.rbegin(), launches_.rend(), [&](const Launch &l) { return l.var == var; });
      if (!var || it == launches_.rend() || it->tag.kind != ThreadTag::Kind::Thread)
        throw CompileError(loc, "the threads of T.tvm_thread_allreduce are named by threadIdx variables of the "
                                "launches around it");
      reduced[it->tag.dim] = true;
    }
    return reduced;
  }

  ThreadIndices threadIndices(const std::array<bool, 3> &reduced, SourceRange loc) const {
    ThreadIndices out{intImm(0), intImm(0)};
    for (int d = 0; d < 3; ++d) {
      if (!constant_[d])
        throw CompileError(loc, "lower-thread-allreduce needs constant thread extents; threadIdx." +
                                    std::string(1, static_cast<char>('x' + d)) + " is launched with a symbolic one");
      if (local_[d] == 1)
        continue;
      auto it = std::find_if(launches_.rbegin(), launches_.rend(), [&](const Launch &l) {
        return l.tag.kind == ThreadTag::Kind::Thread && l.tag.dim == d;
      });
      if (it == launches_.rend())
        throw CompileError(loc, "T.tvm_thread_allreduce is not inside the launch of threadIdx." +
                                    std::string(1, static_cast<char>('x' + d)) +
                                    ", which its kernel launches with more than one thread");
      Expr index = Var(it->var);
      if (index->type != DataType::int32())
        index = CastNode::make(DataType::int32(), index, loc);
      if (reduced[d]) {
        out.reduce = out.reduced == 1 ? index : out.reduce + index * intImm(out.reduced);
        out.reduced *= local_[d];
      } else {
        out.group = out.groups == 1 ? index : out.group + index * intImm(out.groups);
        out.groups *= local_[d];
      }
    }
    return out;
  }

  // One shared buffer per reduced value, `slots` long.
  std::vector<Buffer> reductionBuffers(const CommReducerNode &reducer, int64_t slots, SourceRange loc) {
    std::vector<Buffer> bufs;
    for (size_t k = 0; k < reducer.lhs.size(); ++k) {
      BufferNode::Fields f;
      f.name = Symbol("red_buf" + std::to_string(counter_++));
      f.dtype = reducer.lhs[k]->type;
      f.shape = {intImm(slots)};
      f.scope = Symbol(scope::kShared);
      f.data = VarNode::makeHandle(f.name, f.dtype, f.scope, loc);
      f.loc = loc;
      bufs.push_back(BufferNode::make(std::move(f)));
    }
    return bufs;
  }

  // Each thread stores its values in its slot (the identity where the call's condition is false).
  void storeThreadValues(const CallNode &call, const Tree &tree, std::vector<Stmt> &seq) const {
    const size_t count = tree.reducer.lhs.size();
    Expr condition = call.args[1 + count];
    const int64_t *always = asConstInt(condition);
    for (size_t k = 0; k < count; ++k) {
      Stmt write = BufferStoreNode::make(tree.bufs[k], call.args[1 + k], {tree.slot(tree.reduceIndex)}, tree.loc);
      if (!always || *always == 0)
        write = IfThenElseNode::make(
            condition, write,
            BufferStoreNode::make(tree.bufs[k], tree.reducer.identity[k], {tree.slot(tree.reduceIndex)}, tree.loc),
            tree.loc);
      seq.push_back(write);
    }
  }

  // The tree over `n` slots: a first step folds the slots beyond the largest power of two, then
  // each step halves the active slots, each followed by a barrier.
  void combineHalves(const Tree &tree, int64_t n, std::vector<Stmt> &seq) const {
    int64_t align = 1;
    while (align < n)
      align <<= 1;
    if (align > n) {
      align >>= 1;
      combineStep(tree, align, n - align, seq);
    }
    while (align > 1) {
      align >>= 1;
      combineStep(tree, align, align, seq);
    }
  }

  // One step: slot i combines slot i + offset, for the threads with i < active.
  void combineStep(const Tree &tree, int64_t offset, int64_t active, std::vector<Stmt> &seq) const {
    const CommReducerNode &reducer = tree.reducer;
    const size_t count = reducer.lhs.size();
    const SourceRange loc = tree.loc;
    std::vector<std::pair<Var, Expr>> args;
    for (size_t k = 0; k < count; ++k) {
      args.emplace_back(reducer.lhs[k], BufferLoadNode::make(tree.bufs[k], {tree.slot(tree.reduceIndex)}, loc));
      args.emplace_back(reducer.rhs[k],
                        BufferLoadNode::make(tree.bufs[k], {tree.slot(tree.reduceIndex + intImm(offset))}, loc));
    }
    Stmt body;
    if (count == 1) {
      body = BufferStoreNode::make(tree.bufs[0], substitute(reducer.result[0], args), {tree.slot(tree.reduceIndex)}, loc);
    } else {
      // Every result is computed before any is stored: each reads all the slots.
      std::vector<Var> temps;
      std::vector<Stmt> stores;
      for (size_t k = 0; k < count; ++k) {
        temps.push_back(VarNode::make(Symbol("red_value" + std::to_string(k)), reducer.lhs[k]->type, loc));
        stores.push_back(BufferStoreNode::make(tree.bufs[k], temps.back(), {tree.slot(tree.reduceIndex)}, loc));
      }
      body = SeqStmtNode::make(stores, loc);
      for (size_t k = count; k-- > 0;)
        body = LetStmtNode::make(temps[k], substitute(reducer.result[k], args), body, loc);
    }
    seq.push_back(IfThenElseNode::make(BinaryNode::make(BinaryOp::LT, tree.reduceIndex, intImm(active), loc), body,
                                       nullptr, loc));
    seq.push_back(sync(loc));
  }

  // The group's first slot holds the results: they go to the call's destinations.
  void copyResults(const CallNode &call, const Tree &tree, std::vector<Stmt> &seq) const {
    const size_t count = tree.reducer.lhs.size();
    for (size_t k = 0; k < count; ++k) {
      const auto *dest = call.args[2 + count + k].as<BufferLoadNode>();
      if (!dest)
        throw CompileError(tree.loc, "the destinations of T.tvm_thread_allreduce are buffer elements");
      seq.push_back(BufferStoreNode::make(dest->buffer, BufferLoadNode::make(tree.bufs[k], {tree.slot(intImm(0))}, tree.loc),
                                          dest->indices, tree.loc));
    }
  }

  std::vector<const CommReducerNode *> reducers_;
  std::vector<Launch> launches_;
  std::array<int64_t, 3> local_{1, 1, 1};
  std::array<bool, 3> constant_{true, true, true};
  int counter_ = 0;
};

} // namespace

PassInfo lowerThreadAllreducePassInfo() {
  PassInfo info;
  info.name = "lower-thread-allreduce";
  info.requirements = {IRProperty::ThreadsLaunched};
  info.summary = "cross-thread reductions (T.tvm_thread_allreduce) become shared-memory trees with barriers";
  info.create = [](const PassOptions &) {
    return std::make_unique<BodyPass>(
        [](const PrimFunc &func, PassContext &) { return AllreduceLowerer().mutate(func->body); });
  };
  return info;
}

} // namespace tirlower
