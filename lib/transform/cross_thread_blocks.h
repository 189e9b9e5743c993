// The statements TVM's LowerCrossThreadReduction makes of one reduction across threads
// (lower_cross_thread_reduction.cpp says which blocks it lowers and checks them): the
// "<name>_in_thread_init", "<name>_in_thread", "<name>_cross_thread" and "<name>_write_back"
// blocks inside the thread-bound reduce loops, which move out to wrap them.
#pragma once

#include <string>
#include <vector>

#include "ir/stmt.h"
#include "transform/reducer_patterns.h"

namespace tirlower {

struct CrossThreadPlan {
  const BlockNode *block = nullptr;         // the reduction block
  std::vector<const ForNode *> loops;       // the loops its reduce bindings use, outermost first
  std::vector<ReductionUpdate> updates;     // its updates, in the reducer's order
  MatchedReducer matched;                   // its reducer and each update's right-hand side
  std::vector<Buffer> cross, own;           // cross_thread_ and (when any) in_thread_ buffers
};

// The statement that replaces the reduction's first loop.
Stmt buildCrossThreadReduction(const CrossThreadPlan &plan);

// A (1,) local buffer with strides (1,) for `of`'s values: "cross_thread_W", "in_thread_W".
Buffer crossThreadScratchpad(const std::string &prefix, const Buffer &of, SourceRange loc);

// The blocks of a statement in text order; with `nested`, those inside other blocks too.
std::vector<const BlockNode *> blocksOf(const Stmt &stmt, bool nested);

// A constant true condition.
bool isConstTrue(const Expr &e);

} // namespace tirlower
