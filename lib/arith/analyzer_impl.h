// The analyzer's working state for one query: memo tables keyed by node (holding the nodes so
// addresses are never reused while the query runs) and the rewrite rules, split by topic over
// simplify.cpp (node dispatch), arith_rules.cpp (canonical sums, floordiv/floormod),
// fold_rules.cpp (constants, comparisons, min/max, logic, vectors) and bounds.cpp.
#pragma once

#include <optional>
#include <unordered_map>
#include <utility>

#include "arith/analyzer.h"
#include "arith/linear_sum.h"
#include "ir/pointer_map.h"

namespace tirlower {

// A split of an index: (source // lower) % extent; no extent means no modulo.
struct SplitView {
  Expr source;
  int64_t lower = 1;
  std::optional<int64_t> extent;
};
std::optional<SplitView> asSplit(const Expr &atom);
Expr makeSplit(const SplitView &split);

// Signed scalar integers get the canonical sum form; other types only fold constants.
inline bool isCanonicalType(DataType t) {
  return t.isInt() && t.isScalar();
}

class AnalyzerImpl {
public:
  explicit AnalyzerImpl(Analyzer &owner) : owner_(owner) {}

  Expr simplify(const Expr &e);
  IntBounds bounds(const Expr &e);
  IntBounds bounds(const LinearSum &s);     // as computed, wrap-around included
  IntBounds mathBounds(const LinearSum &s); // as an exact integer
  bool canProve(const Expr &condition);

  // arith_rules.cpp
  Expr simplifyIntArith(const Expr &e);
  std::optional<LinearSum> toSum(const Expr &e);
  void mergeSplits(LinearSum &s);

  // fold_rules.cpp
  Expr rewriteBinary(const BinaryNode *op, const Expr &a, const Expr &b);
  Expr rewriteNot(const NotNode *op, const Expr &a);
  Expr rewriteCast(const CastNode *op, const Expr &value);

private:
  Expr simplifyNode(const Expr &e);
  Expr rebuildArith(const Expr &e);
  std::optional<LinearSum> divideSum(const LinearSum &s, int64_t c);
  std::optional<LinearSum> modSum(const LinearSum &s, int64_t c);
  Expr rewriteCompare(const BinaryNode *op, const Expr &a, const Expr &b);
  Expr rewriteMinMax(const BinaryNode *op, const Expr &a, const Expr &b);
  Expr rewriteVector(const BinaryNode *op, const Expr &a, const Expr &b);
  std::optional<LinearSum> difference(const Expr &a, const Expr &b);
  IntBounds boundsNode(const Expr &e);
  class BoundsFunctor;   // bounds.cpp
  class SimplifyFunctor; // simplify.cpp

  // Known bounds of a sum also say that it computes its exact value (no wrap-around), or the
  // analyzer assumes that nothing overflows.
  bool exact(const IntBounds &b) const { return owner_.noOverflow_ || (b.min && b.max); }
  // Whether the sum as written computes its exact value (no wrap-around), or the analyzer
  // assumes that nothing overflows. Not exact(bounds(s)): bounds(s) of an int8/int16/uint8/
  // uint16 sum is the type's whole range when it may wrap, which has both ends.
  bool exact(const LinearSum &s);

  Analyzer &owner_;
  // Keyed by node; each entry keeps its key alive, so an address is never reused while cached.
  PointerMap<ExprNode, std::pair<Expr, Expr>> memo_;
  PointerMap<ExprNode, std::pair<Expr, IntBounds>> boundsMemo_;
  int letDepth_ = 0;
};

// Folds a binary operation of two constants; null when either is not a constant (or the
// floating-point result would not be exact). Throws CompileError on overflow or division by
// a constant zero.
Expr foldConstants(BinaryOp op, const Expr &a, const Expr &b, const SourceRange &loc, const Expr &where);
// The bool constant v.
Expr boolean(bool v);
// What comparing a value in `b` with 0 by `op` gives for every value in it, if it is decided.
std::optional<bool> decideAgainstZero(BinaryOp op, const IntBounds &b);

} // namespace tirlower
