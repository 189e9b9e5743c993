// How far an expression moves when one variable moves by one, when that is a constant: the
// question loop rewrites ask of an index (outer-loop-vectorize, collapse-loops).
#pragma once

#include <cstdint>
#include <optional>

#include "arith/analyzer.h"

namespace tirlower {

// e[var := var + 1] - e, simplified by `analyzer`: 0 when e does not use var, the constant when
// the difference simplifies to one, else nullopt (not affine in var, or not provably so).
std::optional<int64_t> constantStep(Analyzer &analyzer, const Expr &e, const Var &var);

} // namespace tirlower
