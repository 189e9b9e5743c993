// Per-thread index algebra: whether an index that one thread of a block computes can equal one
// that a different thread computes. thread-sync asks it of two accesses of one shared buffer
// (lib/transform/storage_access.h); any pass that needs to know that threads own their slots
// may ask it too.
//
// An index is read as `sum(c_k * d_k) + rest`: the digits d_k are thread indices, or X // c and
// X % c of a thread-dependent X; the coefficients c_k are constants, or a constant times a
// thread-free symbolic factor (a stride such as `(n + 7) // 8 * 8`); the rest has no thread
// index. Two indices with the same digits and coefficients never meet for different threads
// when the digits form a mixed-radix number (each coefficient at least the previous one times
// its digit's number of values), the difference of the rests stays where no other combination of
// digits reaches, and equal digits determine every thread index that differs between the
// threads. A symbolic coefficient is compared with the `sizes` analyzer: the facts about sizes
// that hold where the accesses happen (sizeLowerBound) with arithmetic on sizes taken not to wrap.
// Anything this cannot show is reported as meeting: disjointness is proven, never assumed.
//
// Two facts about the threads narrow the question. A guard `if t % 32 == 0:` (ThreadCongruence)
// leaves the threads t = 32 * q + r, so q is the digit: `S[t // 32]` under it is each warp's own
// element. And the lanes of a warp that a warp barrier has ordered need not be told apart
// (ThreadIndexSpace::groupSize): t = 32 * w + l, and only the group w must be determined.
#pragma once

#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "arith/analyzer.h"

namespace tirlower {

// What a guard such as `if t % 32 == 0:` says of a thread index on both sides: t % modulus is
// residue (modulus 1: nothing).
struct ThreadCongruence {
  int64_t modulus = 1;
  int64_t residue = 0;
};

struct ThreadIndexSpace {
  // The thread index variables (threadIdx.x, .y, .z). In the analyzer given with them each is
  // bound to the range that either thread's index takes.
  std::vector<Var> threads;
  // Per variable: whether the two threads may differ in it.
  std::vector<bool> varying;
  // Per variable (or empty: none): the congruence both threads' indices satisfy.
  std::vector<ThreadCongruence> congruences;
  // When positive: threads whose threads[0] lie in one group of `groupSize` consecutive values
  // (t // groupSize equal) and that are equal in every other thread index need not be told
  // apart (the lanes of one warp, which a warp barrier orders, when threads[0]'s extent is a
  // multiple of the warp size). Only threads of different groups must never meet.
  int64_t groupSize = 0;
};

// Gives the analyzer that proves the inequalities between symbolic coefficients, called only
// when an index has one (building it costs; null: none is accepted).
using SizeFacts = std::function<Analyzer *()>;

// Whether `a` for one thread never equals `b` for a different thread (of a different group,
// with space.groupSize). A congruence t % m == r is used by writing t as m * q + r (q the
// thread's digit instead of t); a group by writing t as groupSize * w + l, where l may differ
// between the threads. The thread variables of
// `space` stand for each thread's own indices on both sides. `analyzer` knows the ranges of the
// thread and loop variables; `sizes` (optional: without it no symbolic coefficient is accepted)
// proves the inequalities between symbolic coefficients.
bool differentThreadsNeverMeet(const Expr &a, const Expr &b, const ThreadIndexSpace &space, Analyzer &analyzer,
                               const SizeFacts &sizes);
bool differentThreadsNeverMeet(const Expr &a, const Expr &b, const ThreadIndexSpace &space, Analyzer &analyzer,
                               Analyzer *sizes = nullptr);

// The smallest value of the one variable of `e` that gives `e >= k`, for `e` nondecreasing in it
// (the variable, plus or minus a constant, times a positive constant, floordiv by a positive
// constant, casts to a wider integer), with the arithmetic taken not to wrap: `(n + 63) // 64 >= 1`
// gives n >= 1. Nothing for any other form.
std::optional<std::pair<Var, int64_t>> sizeLowerBound(const Expr &e, int64_t k);

} // namespace tirlower
