// Which data a statement reads and writes, and which variables it mentions: what a C-family or
// LLVM emitter must know about a function before writing it (const pointers, unused parameters
// and lets, handles that escape into calls). One walk, shared by the C, OpenCL and LLVM emitters.
#pragma once

#include <cstddef>
#include <vector>

#include "ir/stmt.h"

namespace tirlower {

// A set of variables by address in one open-addressing array: a census takes an entry for
// every variable a function mentions, and a heap node per entry (std::unordered_set) was the
// emitters' largest cost in malloc.
class VarSet {
public:
  void insert(const VarNode *var);
  size_t count(const VarNode *var) const;

private:
  size_t slotOf(const VarNode *var) const;
  void grow();

  std::vector<const VarNode *> slots_; // empty, or a power of two at most half full
  size_t size_ = 0;
};

struct AccessCensus {
  // Data variables loaded from and stored to, through any buffer (aliases count).
  VarSet read, written;
  // Every variable mentioned, a buffer's data, shape, strides and element offset included.
  VarSet used;
  // Handle variables used as values (passed to a call, say), where the callee may write through
  // them: neither a buffer's data nor an attribute's subject counts.
  VarSet escaped;

  // `countAssume`: whether the arguments of T.assume count as uses (they do not where the
  // emitter writes nothing for it, as the C emitter).
  static AccessCensus of(const Stmt &body, bool countAssume = true);
};

} // namespace tirlower
