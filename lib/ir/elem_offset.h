// Where an access of a flat (1-d) buffer falls in its data, as TVM's Buffer::ElemOffset: the one
// place that applies a view's stride and element offset (the C and LLVM emitters use it).
#pragma once

#include "ir/buffer.h"

namespace tirlower {

// The offset in scalars from the start of the data of element `index` of a flat buffer:
// index * strides[0] + elem_offset, each only when it is not the identity; the stride and the
// offset are cast to the index's element type and broadcast to its lanes.
Expr flatElemOffset(const BufferNode &buffer, const Expr &index);

// For an access whose lanes are contiguous in memory (an M-lane element at a scalar index, or
// a stride-1 ramp over an unstrided buffer), flatElemOffset of its first lane; else null.
Expr contiguousElemOffset(const BufferNode &buffer, const Expr &index);

} // namespace tirlower
