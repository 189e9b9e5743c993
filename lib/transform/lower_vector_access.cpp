// lower-vector-access: the explicit pointer cast of the vector design, for targets that allow
// pointer casts. Each stride-1 Ramp access with a base provably a multiple of its lanes becomes
// a scalar-index access of a vector-typed alias over the same data (the alias states the cast
// in the IR, so emitters never add one); other accesses of the same buffer stay as they are.
//
// Preconditions: none checked; it finds work after vectorize, where vector indices stand in the
// last dimension (after flatten, every index does).
//
//   B[T.Ramp(i * 4, 1, 4)] = A[T.Ramp(i * 4, 1, 4)]     B_x4 = T.decl_buffer((4,), "float32x4", data=B.data)
//   B[0] = A[0]                                    ->   ...
//                                                       B_x4[i] = A_x4[i]
//                                                       B[0] = A[0]
#include "transform/passes.h"
#include "transform/vector_alias.h"

namespace tirlower {

PassInfo lowerVectorAccessPassInfo() {
  PassInfo info;
  info.name = "lower-vector-access";
  info.summary = "turn aligned stride-1 ramp accesses into accesses of vector-typed aliases (explicit casts)";
  info.create = [](const PassOptions &) { return vectorAliasPass(VectorAliasMode::PerAccess); };
  return info;
}

} // namespace tirlower
