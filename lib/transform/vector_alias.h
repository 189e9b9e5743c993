// The mechanism behind vector-type-rewrite and lower-vector-access: a stride-1 Ramp access of a
// scalar buffer whose base is provably a multiple of the lanes becomes a scalar-index access of
// a vector-typed alias over the same data (`float32[64]` read at Ramp(4*i, 1, 4) becomes
// `float32x4[16]` read at i). The alias is the IR's explicit pointer cast.
#pragma once

#include <functional>
#include <map>
#include <memory>

#include "transform/pass.h"

namespace tirlower {

enum class VectorAliasMode {
  AllOrNothing, // vector-type-rewrite: a buffer is rewritten only when every access can be
  PerAccess,    // lower-vector-access: each access that can be rewritten is
};

// Rewrites one function; remarks (when ctx.remarks) say what was rewritten or refused and why.
PrimFunc rewriteVectorAccesses(const PrimFunc &func, VectorAliasMode mode, PassContext &ctx);
// The pass of a mode: rewriteVectorAccesses on every function.
std::unique_ptr<Pass> vectorAliasPass(VectorAliasMode mode);

} // namespace tirlower
