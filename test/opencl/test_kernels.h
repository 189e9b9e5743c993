// Flattened PrimFuncs built by hand for the OpenCL tests, shaped as the flatten pass leaves them:
// parameter buffers keep their declared N-d shape, the body reaches them through DeclBuffer
// aliases of physical rank 1 (or 2 for textures) over the parameter's data variable.
#pragma once

#include "ir/function.h"

namespace tirlower::opencl_test {

// C = A + B over 256 floats, 4 groups of 64 work-items (blockIdx.x, threadIdx.x).
PrimFunc elementwiseAdd();
// B = relu(A) * 2 + 1 over 64 floats: A read as vload4 of a stride-1 ramp, B written through a
// float32x4 alias of its scalar data (vstore4), select() on a vector mask.
PrimFunc vectorScale();
// Q = A // B, R = A % B (floor semantics) over 32 int32 values, scalar loop and int4 vectors
// (QV, RV) bound to 8 work-items.
PrimFunc floorDivision();
// B = reverse of each 16-float block of A, squared plus itself, through __local memory and a
// barrier; threads launched with T.launch_thread (thread_extent attributes); a Let expression.
PrimFunc sharedReverse();
// With an int64 serial loop: B gathers the even then odd floats of each 8-float block of A
// (stride-2 ramps), and C scatters int32(A * 10) to the even slots of each block.
PrimFunc stridedGather();
// Less travelled paths, for a syntax check and a PoCL build: bool buffers (scalar and vector),
// float64 with a vector select, char comparisons, unsigned floor division, min/max, math,
// vector if_then_else, casts to and from bool vectors, a while loop with a Let condition, a
// float32x4 parameter gathered by a ramp, an int32 view of float data, a strided view with an
// element offset, and two threadIdx.x loops of different extents.
PrimFunc miscellany();

// NHWC [1, 4, 5, 8] float32 data and its NCHW4c texture [1, 2, 4, 5, 4], flattened to an image
// of 8 rows (n, c/4, h) and 5 texels (w).
constexpr int kN = 1, kH = 4, kW = 5, kC = 8;
// Packs X (NHWC buffer) into Y (write-only texture) a whole texel at a time.
PrimFunc packTexture();
// Unpacks Y (read-only texture) into Z (NHWC buffer) one scalar lane at a time.
PrimFunc unpackTexture();

// Sets A[i] = 1 for 8 work-items i after two asserts: `n > 0` (assert 1, before the thread
// loop) and `i < n` (assert 2, in each work-item); A: float32[8], n: int32.
PrimFunc kernelWithAssert();

// Expected errors.
PrimFunc rank2GlobalBuffer(); // a 2-d alias in "global" scope
PrimFunc textureReadWrite();  // one kernel reads and writes the same image
PrimFunc fiveLaneVector();    // a float32x5 value

} // namespace tirlower::opencl_test
