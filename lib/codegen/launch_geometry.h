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
// Work-group sizes are constants; a number of groups may be an expression of the function's
// scalar parameters (launch_expr.h), the largest of a dimension's extents (max(a, b) when they
// differ).
struct LaunchGeometry {
  bool bound = false; // the function has a thread_binding loop or a thread_extent attribute
  std::array<int64_t, 3> groups{1, 1, 1}, local{1, 1, 1}; // groups: of the constant extents
  // Where a blockIdx extent is not a constant: the number of groups of that dimension as an
  // int64 expression (the constant extents included); null elsewhere.
  std::array<Expr, 3> symbolicGroups;
  bool symbolic() const { return symbolicGroups[0] || symbolicGroups[1] || symbolicGroups[2]; }
  // The number of groups of dimension d as an int64 expression (a constant where it is one).
  Expr groupsExpr(int d) const;
  // Constant geometry only.
  std::array<int64_t, 3> global() const { return {groups[0] * local[0], groups[1] * local[1], groups[2] * local[2]}; }
  // Set when a binding cannot be launched: an unknown tag, a work-group extent that is not a
  // positive constant, a block extent that is not made of the function's scalar parameters
  // (the first such binding; the sizes then ignore it).
  std::string error;
  SourceRange errorLoc;
};

// Adds one binding (a thread_binding loop's or a thread_extent attribute's tag) of `func`.
void addThreadBinding(LaunchGeometry &geometry, const PrimFuncNode &func, std::string_view tag, const Expr &extent,
                      SourceRange where);

LaunchGeometry launchGeometryOf(const PrimFuncNode &func);

// The C and LLVM emitters' error for a thread launch (T.launch_thread, a virtual thread) in a
// function they are asked to write: the function launches GPU threads and needs
// --target=opencl (its thread variables have no value on the CPU).
std::string cpuThreadLaunchMessage(const AttrStmtNode &launch, const PrimFuncNode &func);

} // namespace tirlower
