// What the OpenCL emitter must know about a kernel before writing it, beyond the access census
// (ir/access_census.h, which CFamilyEmitter holds): which buffers are images, the launch
// geometry implied by its thread bindings, its asserts and where barriers go.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "codegen/launch_geometry.h"
#include "ir/function.h"

namespace tirlower {

// A flattened buffer that OpenCL holds in an image2d_t of float4 texels: scope "global.texture",
// physical rank 2 (shape of size 2, axis_separators [1]), float32 elements with an innermost
// extent that is a multiple of 4, or float32x4 elements (one texel each).
bool isTextureBuffer(const BufferNode &buffer);
// A parameter buffer (declared N-d) whose storage is an image: "global.texture", physical rank 2.
bool isTextureParam(const BufferNode &buffer);
// Whether an integer expression is a multiple of 4 by its form (constants, sums and products).
bool isMultipleOf4(const Expr &e);

struct KernelCensus {
  std::array<int64_t, 3> groups{1, 1, 1}, local{1, 1, 1};
  // Where the number of groups depends on scalar parameters (launch_geometry.h); null elsewhere.
  std::array<Expr, 3> symbolicGroups;
  bool hasTexture = false;
  std::vector<std::string> assertMessages; // in program order; non-empty adds the tl_error argument
  // Outermost thread launches (AttrStmt or thread-bound For) that touch what an earlier one
  // wrote: with a single work-group, a barrier goes before them.
  std::unordered_set<const StmtNode *> barrierBefore;
};

// Throws CompileError for a thread binding it cannot launch (unknown tag, a work-group extent
// that is not a constant, a block extent that is not an expression of scalar parameters).
KernelCensus takeCensus(const PrimFuncNode &func);

} // namespace tirlower
