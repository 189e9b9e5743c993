// Semantic verification of a pipeline (--verify-semantics): every function of the input module
// runs once on seeded random inputs; after each pass, the transformed function runs on the same
// inputs and every buffer is compared element by element (exact for integers, bit-exact for
// floats). A parameter whose layout a pass changed (apply-layout-transforms) gets its inputs
// converted through the function's original layout_transform_map (the element at logical index
// x goes to physical index map(x)) and its outputs compared back through the same map; padding
// elements must hold pad_value. See docs/cli.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "interp/interpreter.h"
#include "ir/diagnostic.h"
#include "ir/function.h"

namespace tirlower {

// How far a float result may move when a pass reassociates arithmetic: `actual` matches
// `expected` when |actual - expected| <= relative * |expected| + absolute (relative 2^-12 and
// absolute 2^-16 for float32; 2^-40 and 2^-44 for float64; 2^-6 and 2^-8 for float16 and
// bfloat16). NaN matches NaN; an infinity only the same infinity. Integers stay exact.
struct FloatTolerance {
  double relative = 0, absolute = 0;
};
FloatTolerance reassociationTolerance(DataType type);

struct SemanticCheckOptions {
  uint64_t seed = 1;
  RunOptions run;
  RandomArgOptions random;
};

class SemanticChecker {
public:
  // Runs every function of `original` (the module before the first pass, with its
  // layout_transform_map entries) on random inputs.
  explicit SemanticChecker(const Module &original, SemanticCheckOptions options = {});
  ~SemanticChecker();
  SemanticChecker(const SemanticChecker &) = delete;
  SemanticChecker &operator=(const SemanticChecker &) = delete;

  // Warnings for functions that cannot be checked (their sizes cannot be computed, or their
  // run on the random inputs fails before any pass): they are skipped.
  const std::vector<Diagnostic> &skipped() const { return skipped_; }
  // Number of functions that are checked.
  size_t checkedFunctions() const { return functions_.size(); }

  // Runs the functions of `after` (the module after the pass named `passName`) and compares
  // them with the original runs. Returns the first difference as an error naming the pass, the
  // function and the first differing element (buffer, logical index, expected, actual).
  // `reassociated`: a pass so far may reassociate float arithmetic (PassInfo::reassociates), so
  // floats are compared within reassociationTolerance.
  std::optional<Diagnostic> check(const Module &after, const std::string &passName, bool reassociated = false) const;

  struct Reference;

private:
  std::vector<std::unique_ptr<Reference>> functions_;
  std::vector<Diagnostic> skipped_;
  SemanticCheckOptions options_;
};

} // namespace tirlower
