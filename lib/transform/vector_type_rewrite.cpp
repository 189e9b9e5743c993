// vector-type-rewrite: for targets without pointer casts (SPIR-V style, OpenCL with typed
// vectors). A scalar buffer whose every access is a stride-1 Ramp of one width N with a base
// provably a multiple of N is accessed through an N-lane alias over the same data instead;
// any other buffer is left unchanged, and --remarks says why.
//
// Preconditions: none checked; it finds work after vectorize, where vector indices stand in the
// last dimension (after flatten, every index does).
//
//   for i in range(16):                                   A_x4 = T.decl_buffer((16,), "float32x4", data=A.data)
//       A[T.Ramp(i * 4, 1, 4)] = T.Broadcast(x, 4)   ->   for i in range(16):
//                                                             A_x4[i] = T.Broadcast(x, 4)
#include "transform/passes.h"
#include "transform/vector_alias.h"

namespace tirlower {

PassInfo vectorTypeRewritePassInfo() {
  PassInfo info;
  info.name = "vector-type-rewrite";
  info.summary = "access scalar buffers used only by aligned stride-1 ramps through a vector-typed alias";
  info.create = [](const PassOptions &) { return vectorAliasPass(VectorAliasMode::AllOrNothing); };
  return info;
}

} // namespace tirlower
