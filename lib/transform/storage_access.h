// thread-sync's storage-access analysis: the accesses of shared storage in a kernel as the
// threads of a block see them, and whether two of them can meet (two different threads reaching
// one element, one of them writing). The barrier planner (thread_sync.cpp) walks the kernel,
// opening and closing the scopes below as it goes, and asks record/loads for the accesses of
// each statement and meet for each pair that no barrier separates.
//
// An access is kept in the kernel's terms: thread indices are the kernel's canonical
// threadIdx.x/y/z (a launch's own variable, possibly an int64 cast of it, is replaced), block and
// virtual-thread indices one variable per tag, let-bound variables and one-iteration loops
// their values; with the thread-index ranges where it happens (narrowed by the guards of ifs and
// by launches shorter than the kernel's), the congruences guards give (`if tx % 32 == 0:`) and
// the loops around it. Whether indices of two threads can be equal is lib/arith's question
// (arith/thread_disjoint.h).
//
// Warps: with the kernel's warp size (the sub-group size the target declares), two accesses a
// warp barrier (T.tvm_storage_sync("warp")) orders need only be apart for threads of different
// warps: the lanes of a warp are the threads of consecutive linear ids (x fastest) in groups of
// the warp size, as TVM lays them out. That is decided when every thread of both accesses is in
// one warp, or when the x extent is a multiple of the warp size or the block has x alone (a warp
// is then x // size with y and z); in other layouts a warp barrier orders nothing here.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "arith/analyzer.h"
#include "arith/thread_disjoint.h"
#include "ir/stmt.h"

namespace tirlower {

struct LoopRange {
  Var var;
  Expr min, extent;
};

using ThreadRanges = std::array<std::pair<int64_t, int64_t>, 3>;
using ThreadCongruences = std::array<ThreadCongruence, 3>;

struct SharedAccess {
  const VarNode *data;
  std::string name;
  std::vector<Expr> index;                            // canonical; null for a vector index (it always meets)
  ThreadRanges threads;                               // thread index ranges where it happens
  ThreadCongruences congruences;                      // what guards say of thread indices modulo a constant
  std::vector<LoopRange> loops;                       // the loops around it
  std::vector<Expr> extents;                          // the non-constant extents of the launches and loops around it
  bool write = false;
  SourceRange loc;
  // The barrier planner's: a warp barrier that every thread of the statement summarised passes
  // comes before this access (in a summary's head) or after it (in its tail).
  bool warpBefore = false, warpAfter = false;
};

// The thread sets of the guards around a point, saved by enterGuard to restore after its branch.
struct GuardState {
  ThreadRanges ranges;
  ThreadCongruences congruences;
  // Whether the guard's condition only bounds thread indices (comparisons with constants,
  // congruences, and conjunctions of them): the threads that pass it are those of the ranges.
  bool threadsOnly = false;
};

class SharedAccessAnalysis {
public:
  // `local`: the kernel's work-group size (threadExtentCensus); `warpSize`: its warps' lanes
  // (0: unknown, a warp barrier orders nothing).
  SharedAccessAnalysis(std::array<int64_t, 3> local, int64_t warpSize);

  // The accesses of shared storage: a store's, and the loads in an expression.
  SharedAccess record(const BufferNode &buffer, const std::vector<Expr> &indices, bool write, SourceRange loc);
  std::vector<SharedAccess> loads(const Expr &e);

  // Whether two different threads can reach one element through the accesses, one of them a
  // write. Both happen in one iteration of the loops around them, except the loops from
  // `carried` deep on, in which b is in a later iteration (SIZE_MAX: none). `warpOrdered`: a
  // warp barrier both threads pass lies between them, so only threads of different warps count.
  bool meet(const SharedAccess &a, const SharedAccess &b, size_t carried = SIZE_MAX, bool warpOrdered = false);
  int64_t warpSize() const { return warpSize_; }

  // `e` in the kernel's terms, and whether it may differ between threads of a block.
  Expr canonical(const Expr &e) const;
  bool isVarying(const Expr &e) const;
  // Whether `e` is the thread index of dimension d (through casts that keep its value).
  bool isThreadIndex(const Expr &e, int d) const;

  // Scopes, opened and closed in nesting order by the walk.
  void bindValue(const Var &var, const Expr &value); // a let, a loop of one iteration
  void unbindValue();
  void markVarying(const VarNode *var);                                // for the rest of the kernel
  void enterLoop(const Var &var, const Expr &min, const Expr &extent); // canonical bounds
  void exitLoop();
  // A thread launch of the kernel; returns whether it covers every thread of its dimension.
  bool enterLaunch(const AttrStmtNode &op, const ThreadTag &tag);
  void exitLaunch(const ThreadTag &tag);
  // Narrows the thread ranges that `condition` bounds (tx < c, tx <= c, tx == c, tx % m == r,
  // and their conjunctions) for a then-branch; returns the sets to restore after it.
  GuardState enterGuard(const Expr &condition);
  void exitGuard(const GuardState &saved) {
    threads_ = saved.ranges;
    congruences_ = saved.congruences;
  }

  size_t loopDepth() const { return loops_.size(); }

private:
  bool refine(const Expr &condition);
  bool refineCongruence(const BinaryNode &eq);
  bool inOneWarp(const SharedAccess &a, const SharedAccess &b) const;
  Var blockVar(const ThreadTag &tag);

  std::array<int64_t, 3> local_;
  std::array<Var, 3> canon_;
  std::array<Var, 6> blocks_;
  std::array<Var, 3> other_; // the thread indices of a second thread
  int64_t warpSize_;
  ThreadRanges threads_;
  ThreadCongruences congruences_;
  std::vector<LoopRange> loops_;
  std::vector<Expr> extents_;
  std::vector<ThreadRanges> launchSaved_;
  Analyzer simplifier_; // the kernel's thread ranges and the loops around
  std::vector<std::pair<Var, Expr>> subst_;
  std::vector<const VarNode *> varying_;
};

} // namespace tirlower
