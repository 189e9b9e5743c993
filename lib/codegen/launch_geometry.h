// The launch geometry a function's thread bindings imply, shared by the OpenCL emitter (the
// comment above each kernel, launchGeometry()) and --emit=json (each function's "launch").
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ir/function.h"

namespace tirlower {

// "blockIdx.y" -> {block, 1}; "threadIdx.z" -> {thread, 2}; anything else -> nullopt.
struct ThreadAxis {
  bool isBlock = false;
  int dim = 0;
};
std::optional<ThreadAxis> parseThreadAxis(std::string_view tag);

// Per dimension, the number of groups is the largest blockIdx extent and the work-group size
// the largest threadIdx extent; global = groups x local. Without thread bindings every size is 1.
struct LaunchGeometry {
  bool bound = false; // the function has a thread_binding loop or a thread_extent attribute
  std::array<int64_t, 3> groups{1, 1, 1}, local{1, 1, 1};
  std::array<int64_t, 3> global() const { return {groups[0] * local[0], groups[1] * local[1], groups[2] * local[2]}; }
  // Set when a binding cannot be launched: an unknown tag or an extent that is not a positive
  // constant (the first such binding; the sizes then ignore it).
  std::string error;
  SourceRange errorLoc;
};

// Adds one binding (a thread_binding loop's or a thread_extent attribute's tag).
void addThreadBinding(LaunchGeometry &geometry, std::string_view tag, const Expr &extent, SourceRange where);

LaunchGeometry launchGeometryOf(const PrimFuncNode &func);

} // namespace tirlower
