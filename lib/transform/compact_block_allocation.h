// compact-buffer-allocation's in-place compaction (compact_block_allocation.cpp): each
// allocation shrinks to the region its accesses touch where it is, as TVM's
// CompactBufferAllocation does on schedulable TIR.
#pragma once

#include "ir/stmt.h"

namespace tirlower {

// Shrinks the allocations of the blocks in `body` (`T.sblock_alloc_buffer`) to the region
// their bodies touch, rewriting the accesses, the blocks' `T.reads`/`T.writes` and the
// sources of `T.match_buffer`. With `flatAllocations`, the T.alloc_buffer statements of `body`
// (the root block's allocations, as tirlower reads them) shrink in place too. Returns `body`
// itself when nothing shrinks.
Stmt compactInPlace(const Stmt &body, bool flatAllocations);

} // namespace tirlower
