// Which data a statement reads and writes, and which variables it mentions: what a C-family or
// LLVM emitter must know about a function before writing it (const pointers, unused parameters
// and lets, handles that escape into calls). One walk, shared by the C, OpenCL and LLVM emitters.
#pragma once

#include <unordered_set>

#include "ir/stmt.h"

namespace tirlower {

struct AccessCensus {
  // Data variables loaded from and stored to, through any buffer (aliases count).
  std::unordered_set<const VarNode *> read, written;
  // Every variable mentioned, a buffer's data, shape, strides and element offset included.
  std::unordered_set<const VarNode *> used;
  // Handle variables used as values (passed to a call, say), where the callee may write through
  // them: neither a buffer's data nor an attribute's subject counts.
  std::unordered_set<const VarNode *> escaped;

  // `countAssume`: whether the arguments of T.assume count as uses (they do not where the
  // emitter writes nothing for it, as the C emitter).
  static AccessCensus of(const Stmt &body, bool countAssume = true);
};

} // namespace tirlower
