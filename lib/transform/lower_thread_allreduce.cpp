// lower-thread-allreduce: turns each T.tvm_thread_allreduce into a tree reduction through shared
// storage with barriers, as TVM's LowerThreadAllreduce does for a target whose warp is one
// thread. The threads that differ only in the reduced thread indices (those of the call's
// thread variables) form a group of n; each writes its value (the identity when its condition
// is false) to its slot of a shared buffer of groups x n elements, then the first half adds the
// second half in log2(n) steps, and every thread reads the group's result into its destinations.
// The interpreter runs T.tvm_thread_allreduce with the same tree, so the results agree bit for bit.
//
// With option subgroup-size (the target's sub-groups: warps of that many lanes), a group of a
// power of two of consecutive threads reduces within warps instead, as TVM lowers for CUDA
// (lowerWithWarps): T.tvm_warp_shuffle_down steps and a T.tvm_warp_shuffle broadcast, and
// across warps a shared staging of each warp's value.
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

#include "ir/attrs.h"
#include "ir/gpu_builtins.h"
#include "ir/storage_scope.h"
#include "ir/thread_extents.h"
#include "ir/visitor.h"
#include "transform/body_pass.h"
#include "transform/passes.h"

namespace tirlower {

namespace {

Stmt sync(SourceRange loc) {
  return makeSharedStorageSync(loc);
}

class AllreduceLowerer : public IRMutator {
public:
  explicit AllreduceLowerer(int64_t warpSize) : warpSize_(warpSize) {}

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
    std::array<bool, 3> reduced = reducedDimensions(call, count, loc);
    ThreadIndices indices = threadIndices(reduced, loc);
    if (Stmt warps = lowerWithWarps(call, reducer, indices, reduced, loc))
      return warps;
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
      auto it = std::find_if(launches_.rbegin(), launches_.rend(),
                             [&](const Launch &l) { return l.tag.kind == ThreadTag::Kind::Thread && l.tag.dim == d; });
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

  // One shared buffer per reduced value, `slots` long (or of `scope`, named `name` and a number).
  std::vector<Buffer> reductionBuffers(const CommReducerNode &reducer, int64_t slots, SourceRange loc,
                                       std::string_view scope = scope::kShared, const std::string &name = "red_buf") {
    std::vector<Buffer> bufs;
    for (size_t k = 0; k < reducer.lhs.size(); ++k) {
      BufferNode::Fields f;
      f.name = Symbol(name + std::to_string(counter_++));
      f.dtype = reducer.lhs[k]->type;
      f.shape = {intImm(slots)};
      f.scope = Symbol(scope);
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
      body =
          BufferStoreNode::make(tree.bufs[0], substitute(reducer.result[0], args), {tree.slot(tree.reduceIndex)}, loc);
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
      seq.push_back(BufferStoreNode::make(
          dest->buffer, BufferLoadNode::make(tree.bufs[k], {tree.slot(intImm(0))}, tree.loc), dest->indices, tree.loc));
    }
  }

  // With warps (the target's sub-groups of warpSize_ lanes), as TVM lowers for CUDA, when a group
  // is n consecutive threads (its reduced thread indices the fastest), n a power of two:
  //   n <= warp: the group's lanes combine by shuffles down (n / 2, ..., 1), which pair the values
  //     as the shared tree's steps do, and its first lane's result is shuffled to every lane;
  //   n a multiple of the warp, over threadIdx.x alone, at most warp x warp: each warp reduces
  //     so, its first lane stores the warp's value in shared storage, the first n / warp lanes
  //     reduce those by shuffles, and the first lane's result goes through shared storage to all.
  // Null otherwise: the shared tree.
  Stmt lowerWithWarps(const CallNode &call, const CommReducerNode &reducer, const ThreadIndices &indices,
                      const std::array<bool, 3> &reduced, SourceRange loc) {
    const int64_t lanes = warpSize_, n = indices.reduced;
    auto power = [](int64_t v) { return v >= 2 && (v & (v - 1)) == 0; };
    if (!power(lanes) || !power(n) || (n > lanes && (n / lanes > lanes || reduced[1] || reduced[2])))
      return nullptr;
    bool other = false; // the reduced indices come first among the launched ones
    for (int d = 0; d < 3; ++d) {
      if (local_[d] == 1)
        continue;
      if (reduced[d] && other)
        return nullptr;
      other |= !reduced[d];
    }
    for (const Var &v : reducer.lhs)
      if (v->type.isVector() || v->type.isBool() || !(v->type.isInt() || v->type.isUInt() || v->type.isFloat()))
        return nullptr;
    const size_t count = reducer.lhs.size();
    std::vector<Buffer> value = reductionBuffers(reducer, 1, loc, scope::kLocal);
    std::vector<Stmt> seq;
    Expr condition = call.args[1 + count];
    const int64_t *always = asConstInt(condition);
    for (size_t k = 0; k < count; ++k) {
      Stmt write = BufferStoreNode::make(value[k], call.args[1 + k], {intImm(0)}, loc);
      if (!always || *always == 0)
        write = IfThenElseNode::make(condition, write,
                                     BufferStoreNode::make(value[k], reducer.identity[k], {intImm(0)}, loc), loc);
      seq.push_back(write);
    }
    std::vector<Buffer> allocated = value;
    Buffer mask = shuffleTree(reducer, value, std::min(n, lanes), seq, allocated, loc);
    std::vector<Expr> results = n <= lanes ? broadcastInWarp(reducer, indices, value, mask, seq, loc)
                                           : acrossWarps(reducer, indices, value, seq, allocated, loc);
    for (size_t k = 0; k < count; ++k) {
      const auto *dest = call.args[2 + count + k].as<BufferLoadNode>();
      if (!dest)
        throw CompileError(loc, "the destinations of T.tvm_thread_allreduce are buffer elements");
      seq.push_back(BufferStoreNode::make(dest->buffer, results[k], dest->indices, loc));
    }
    Stmt body = SeqStmtNode::make(std::move(seq), loc);
    for (size_t k = allocated.size(); k-- > 0;)
      body = AllocBufferNode::make(allocated[k], body, loc);
    return body;
  }

  // The group's first lane in its warp (group * n, modulo the warp when groups span warps) gives
  // every lane of the group its result.
  std::vector<Expr> broadcastInWarp(const CommReducerNode &reducer, const ThreadIndices &indices,
                                    const std::vector<Buffer> &value, const Buffer &mask, std::vector<Stmt> &seq,
                                    SourceRange loc) const {
    const int64_t lanes = warpSize_, n = indices.reduced;
    std::vector<Expr> results;
    Expr lane = indices.groups == 1 ? intImm(0) : indices.group * intImm(n);
    if (indices.groups * n > lanes)
      lane = BinaryNode::make(BinaryOp::FloorMod, lane, intImm(lanes), loc);
    for (size_t k = 0; k < reducer.lhs.size(); ++k) {
      Expr v = BufferLoadNode::make(value[k], {intImm(0)}, loc);
      seq.push_back(BufferStoreNode::make(
          value[k], makeWarpShuffle(BufferLoadNode::make(mask, {intImm(0)}, loc), v, lane, lanes, lanes, loc),
          {intImm(0)}, loc));
      results.push_back(BufferLoadNode::make(value[k], {intImm(0)}, loc));
    }
    return results;
  }

  // Each warp's first lane stages its value in shared storage; the first n / warp lanes reduce
  // those by shuffles, and the first lane's result reaches every thread through shared storage.
  std::vector<Expr> acrossWarps(const CommReducerNode &reducer, const ThreadIndices &indices,
                                const std::vector<Buffer> &value, std::vector<Stmt> &seq,
                                std::vector<Buffer> &allocated, SourceRange loc) {
    const int64_t lanes = warpSize_, n = indices.reduced;
    const size_t count = reducer.lhs.size();
    std::vector<Expr> results;
    const int64_t warps = n / lanes;
    Expr group = indices.groups == 1 ? Expr(intImm(0)) : indices.group;
    auto at = [&](int64_t stride, Expr offset) {
      return indices.groups == 1 ? offset : group * intImm(stride) + offset;
    };
    auto is = [&](BinaryOp op, Expr a, int64_t b) { return BinaryNode::make(op, std::move(a), intImm(b), loc); };
    std::vector<Buffer> staging =
        reductionBuffers(reducer, warps * indices.groups, loc, scope::kShared, "red_buf_staging");
    std::vector<Buffer> second = reductionBuffers(reducer, 1, loc, scope::kLocal);
    std::vector<Buffer> result = reductionBuffers(reducer, indices.groups, loc, scope::kShared, "red_result");
    std::vector<Stmt> stage, gather, keep;
    Expr warp = is(BinaryOp::FloorDiv, indices.reduce, lanes);
    for (size_t k = 0; k < count; ++k) {
      stage.push_back(
          BufferStoreNode::make(staging[k], BufferLoadNode::make(value[k], {intImm(0)}, loc), {at(warps, warp)}, loc));
      gather.push_back(BufferStoreNode::make(
          second[k], BufferLoadNode::make(staging[k], {at(warps, indices.reduce)}, loc), {intImm(0)}, loc));
      keep.push_back(BufferStoreNode::make(result[k], BufferLoadNode::make(second[k], {intImm(0)}, loc), {group}, loc));
    }
    seq.push_back(IfThenElseNode::make(
        BinaryNode::make(BinaryOp::EQ, is(BinaryOp::FloorMod, indices.reduce, lanes), intImm(0), loc),
        SeqStmtNode::make(stage, loc), nullptr, loc));
    seq.push_back(sync(loc));
    seq.push_back(
        IfThenElseNode::make(is(BinaryOp::LT, indices.reduce, warps), SeqStmtNode::make(gather, loc), nullptr, loc));
    shuffleTree(reducer, second, warps, seq, allocated, loc);
    seq.push_back(IfThenElseNode::make(BinaryNode::make(BinaryOp::EQ, indices.reduce, intImm(0), loc),
                                       SeqStmtNode::make(keep, loc), nullptr, loc));
    seq.push_back(sync(loc));
    for (size_t k = 0; k < count; ++k)
      results.push_back(BufferLoadNode::make(result[k], {group}, loc));
    allocated.insert(allocated.end(), second.begin(), second.end());
    allocated.insert(allocated.end(), staging.begin(), staging.end());
    allocated.insert(allocated.end(), result.begin(), result.end());
    return results;
  }

  // mask[0] = T.tvm_warp_activemask(), then each value combines the one `offset` lanes down for
  // offset = top / 2, ..., 1 (into local temporaries). Returns the mask; the temporaries and the
  // mask join `allocated`.
  Buffer shuffleTree(const CommReducerNode &reducer, const std::vector<Buffer> &value, int64_t top,
                     std::vector<Stmt> &seq, std::vector<Buffer> &allocated, SourceRange loc) {
    const size_t count = reducer.lhs.size();
    std::vector<Buffer> moved = reductionBuffers(reducer, 1, loc, scope::kLocal, "t");
    BufferNode::Fields f;
    f.name = Symbol("mask" + std::to_string(counter_++));
    f.dtype = DataType::uint32();
    f.shape = {intImm(1)};
    f.scope = Symbol(scope::kLocal);
    f.data = VarNode::makeHandle(f.name, f.dtype, f.scope, loc);
    f.loc = loc;
    Buffer mask = BufferNode::make(std::move(f));
    allocated.insert(allocated.end(), moved.begin(), moved.end());
    allocated.push_back(mask);
    auto load = [&](const Buffer &b) { return BufferLoadNode::make(b, {intImm(0)}, loc); };
    seq.push_back(BufferStoreNode::make(mask, makeWarpActiveMask(loc), {intImm(0)}, loc));
    for (int64_t offset = top / 2; offset >= 1; offset /= 2) {
      for (size_t k = 0; k < count; ++k)
        seq.push_back(BufferStoreNode::make(
            moved[k], makeWarpShuffleDown(load(mask), load(value[k]), offset, warpSize_, warpSize_, loc), {intImm(0)},
            loc));
      std::vector<std::pair<Var, Expr>> args;
      for (size_t k = 0; k < count; ++k) {
        args.emplace_back(reducer.lhs[k], load(value[k]));
        args.emplace_back(reducer.rhs[k], load(moved[k]));
      }
      // Every result is computed before any is stored: each reads all the values.
      std::vector<Var> temps;
      std::vector<Stmt> stores;
      for (size_t k = 0; k < count; ++k) {
        temps.push_back(VarNode::make(Symbol("red_value" + std::to_string(k)), reducer.lhs[k]->type, loc));
        stores.push_back(BufferStoreNode::make(value[k], temps.back(), {intImm(0)}, loc));
      }
      Stmt body = count == 1 ? BufferStoreNode::make(value[0], substitute(reducer.result[0], args), {intImm(0)}, loc)
                             : SeqStmtNode::make(stores, loc);
      if (count > 1)
        for (size_t k = count; k-- > 0;)
          body = LetStmtNode::make(temps[k], substitute(reducer.result[k], args), body, loc);
      seq.push_back(body);
    }
    return mask;
  }

  int64_t warpSize_;
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
  info.summary = "cross-thread reductions (T.tvm_thread_allreduce) become shared-memory trees with barriers, or "
                 "warp shuffles where the target has sub-groups";
  static const PassOption<int64_t> kSubgroupSize{
      givenByFlag(integerOption("subgroup-size", "",
                                "the lanes of a warp (the device's sub-group size): reduce within warps by "
                                "shuffles; absent: shared-memory trees",
                                1, 1024),
                  "--subgroup-size")};
  info.options = {kSubgroupSize};
  // Across warps the values combine within each warp first, in another order than the tree's.
  info.reassociates = true;
  info.create = [](const PassOptions &options) {
    int64_t warpSize = kSubgroupSize.find(options).value_or(0);
    return std::make_unique<BodyPass>(
        [warpSize](const PrimFunc &func, PassContext &) { return AllreduceLowerer(warpSize).mutate(func->body); });
  };
  return info;
}

} // namespace tirlower
