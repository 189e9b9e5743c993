// Arithmetic analysis over integer index expressions: constant folding, a canonical
// sum-of-products form, floordiv/floormod rules that use known variable bounds, interval
// bounds and provers. Passes call this layer; they do not invent their own simplification.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>

#include "ir/expr.h"
#include "ir/pointer_map.h"

namespace tirlower {

// An inclusive integer interval; a missing end is unbounded.
struct IntBounds {
  std::optional<int64_t> min, max;
  static IntBounds exactly(int64_t v) { return {v, v}; }
  bool isConstant() const { return min && max && *min == *max; }
};

// While a SimplifiedScope is open on a thread, the analyzers of that thread remember what their
// simplify returned, with the bindings of the variables the result depends on (its own variables
// and, through let values, theirs). Given such an expression again under the same bindings,
// simplify returns it at once: simplification is idempotent on what is remembered (expressions
// whose floordiv/floormod divide a variable by a constant; test/unit/arith/property_test.cpp), so
// the answer is the one it would compute. The pass manager opens a scope per function around the
// function-local passes it runs on it, so the indices flatten simplified cost the simplify pass
// after it nothing. A scope keeps what it remembers alive until it closes; an inner scope starts
// empty and the outer one returns when it closes. Without a scope, nothing is remembered.
// A scope also remembers each index expression (a scalar integer) given to simplify with its
// answer: an expression structurally equal to one of them, under the same bindings, gets that
// answer (an index written in two statements is simplified once). Float and boolean roots are
// not kept by structure: they rarely repeat, and hashing each cost more than the hits saved.
class SimplifiedScope {
public:
  SimplifiedScope();
  ~SimplifiedScope();
  SimplifiedScope(const SimplifiedScope &) = delete;
  SimplifiedScope &operator=(const SimplifiedScope &) = delete;
  // How many simplify calls this scope answered from what it remembered.
  size_t hits() const;

  struct Table; // simplified_forms.cpp

private:
  std::unique_ptr<Table> table_;
  Table *previous_;
};

class Analyzer {
public:
  // Records that `var` lies in [min, min + extent) (loop variables, index map inputs).
  void bindRange(const Var &var, const Expr &min, const Expr &extent);
  void bindRange(const Var &var, int64_t min, int64_t extent);
  // Records that `var` equals `value` (let-bound values).
  void bindValue(const Var &var, const Expr &value);
  void unbind(const Var &var);

  // Simplifies without ever making the expression larger (by node count). Integer
  // expressions are put in canonical form; floordiv/floormod are simplified with the bounds
  // known for the variables. Integer arithmetic wraps (constant folds too). Throws CompileError
  // (located at `e`) on a division by a constant zero.
  Expr simplify(const Expr &e);

  IntBounds bounds(const Expr &e);
  // True only when `condition` (a scalar bool) is provably true for every binding.
  bool canProve(const Expr &condition);
  bool canProveEqual(const Expr &a, const Expr &b);

  // Integers wrap around (the interpreter's semantics), so by default a rewrite that holds only
  // without overflow is made only when the bounds prove that nothing wraps. Arithmetic on the
  // extents of buffers that exist (the shape an index map produces, its padding) cannot wrap:
  // an analyzer for that may assume so.
  void assumeNoOverflow() { noOverflow_ = true; }

private:
  // What is known of a bound variable: a range (min and extent set), a value, or both. One
  // open-addressing table (binding and unbinding allocate nothing while few are bound; three
  // node-based maps were a sixth of the passes' allocations).
  struct Bound {
    Var var; // keeps it alive
    Expr min, extent, value;
  };
  PointerMap<VarNode, Bound, 8> bound_;
  const Expr *valueOf(const VarNode *var) const {
    const Bound *b = bound_.find(var);
    return b && b->value ? &b->value : nullptr;
  }
  const Bound *rangeOf(const VarNode *var) const {
    const Bound *b = bound_.find(var);
    return b && b->min ? b : nullptr;
  }
  bool noOverflow_ = false;
  // simplified_forms.cpp: whether the open SimplifiedScope holds `e` as simplified under this
  // analyzer's present bindings; and recording that it is.
  // `inner`: the analyzer's own walk asks (it takes only what that walk itself returned, not an
  // input that Analyzer::simplify kept because the walk's answer was larger).
  bool knownSimplified(const Expr &e, bool inner) const;
  bool isCanonicalVarSum(const Expr &e);
  Expr settledWithoutWalk(const Expr &e) const;
  void rememberSimplified(const Expr &e, bool walkResult) const;
  // The open scope's answer for an expression structurally equal to `e` (`hash`: its
  // structuralHash) simplified under the same bindings, or null; and recording one.
  Expr knownAnswer(const Expr &e, size_t hash) const;
  void rememberAnswer(const Expr &e, size_t hash, const Expr &result) const;
  static bool simplifiedScopeOpen();
  bool sameBindings(uint32_t first, uint32_t count) const;
  bool captureBindings(const Expr &e, bool anyOp, uint32_t &first, uint32_t &count) const;
  friend class AnalyzerImpl;
};

} // namespace tirlower
