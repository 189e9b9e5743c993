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
// by launches shorter than the kernel's) and the loops around it. Whether indices of two threads
// can be equal is lib/arith's question (arith/thread_disjoint.h).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "arith/analyzer.h"
#include "ir/stmt.h"

namespace tirlower {

struct LoopRange {
  Var var;
  Expr min, extent;
};

struct SharedAccess {
  const VarNode *data;
  std::string name;
  std::vector<Expr> index;                            // canonical; null for a vector index (it always meets)
  std::array<std::pair<int64_t, int64_t>, 3> threads; // thread index ranges where it happens
  std::vector<LoopRange> loops;                       // the loops around it
  std::vector<Expr> extents;                          // the non-constant extents of the launches and loops around it
  bool write = false;
  SourceRange loc;
};

using ThreadRanges = std::array<std::pair<int64_t, int64_t>, 3>;

class SharedAccessAnalysis {
public:
  // `local`: the kernel's work-group size (threadExtentCensus).
  explicit SharedAccessAnalysis(std::array<int64_t, 3> local);

  // The accesses of shared storage: a store's, and the loads in an expression.
  SharedAccess record(const BufferNode &buffer, const std::vector<Expr> &indices, bool write, SourceRange loc);
  std::vector<SharedAccess> loads(const Expr &e);

  // Whether two different threads can reach one element through the accesses, one of them a
  // write. Both happen in one iteration of the loops around them, except the loops from
  // `carried` deep on, in which b is in a later iteration (SIZE_MAX: none).
  bool meet(const SharedAccess &a, const SharedAccess &b, size_t carried = SIZE_MAX);

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
  // Narrows the thread ranges that `condition` bounds (tx < c, tx <= c, tx == c, and their
  // conjunctions) for a then-branch; returns the ranges to restore after it.
  ThreadRanges enterGuard(const Expr &condition);
  void exitGuard(const ThreadRanges &saved) { threads_ = saved; }

  size_t loopDepth() const { return loops_.size(); }

private:
  void refine(const Expr &condition);
  Var blockVar(const ThreadTag &tag);

  std::array<int64_t, 3> local_;
  std::array<Var, 3> canon_;
  std::array<Var, 6> blocks_;
  std::array<Var, 3> other_; // the thread indices of a second thread
  ThreadRanges threads_;
  std::vector<LoopRange> loops_;
  std::vector<Expr> extents_;
  std::vector<ThreadRanges> launchSaved_;
  Analyzer simplifier_; // the kernel's thread ranges and the loops around
  std::vector<std::pair<Var, Expr>> subst_;
  std::vector<const VarNode *> varying_;
};

} // namespace tirlower
