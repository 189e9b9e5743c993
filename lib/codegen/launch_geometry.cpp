#include "codegen/launch_geometry.h"

#include <algorithm>

#include "codegen/launch_expr.h"
#include "ir/equality.h"
#include "ir/thread_extents.h"

namespace tirlower {

std::optional<ThreadAxis> parseThreadAxis(std::string_view tag) {
  std::optional<ThreadTag> parsed = parseThreadTag(tag);
  if (!parsed || parsed->kind == ThreadTag::Kind::Virtual)
    return std::nullopt;
  return ThreadAxis{parsed->kind == ThreadTag::Kind::Block, parsed->dim};
}

Expr LaunchGeometry::groupsExpr(int d) const {
  return symbolicGroups[d] ? symbolicGroups[d] : IntImmNode::make(DataType::int64(), groups[d]);
}

void addThreadBinding(LaunchGeometry &geometry, const PrimFuncNode &func, std::string_view tag, const Expr &extent,
                      SourceRange where) {
  geometry.bound = true;
  auto fail = [&](std::string message) {
    if (geometry.error.empty()) {
      geometry.error = std::move(message);
      geometry.errorLoc = where;
    }
  };
  std::optional<ThreadAxis> axis = parseThreadAxis(tag);
  if (!axis)
    return fail("unknown thread tag '" + std::string(tag) + "' (expected blockIdx.x|y|z or threadIdx.x|y|z)");
  const int64_t *value = asConstInt(extent);
  if (value && *value < 1)
    return fail("the extent of the loop bound to '" + std::string(tag) +
                "' must be positive to give a launch geometry");
  if (!value && !axis->isBlock)
    return fail("the extent of the loop bound to '" + std::string(tag) +
                "' must be a constant: it is a work-group size, which shared storage and barriers depend on");
  if (!value) {
    if (std::string problem = launchExprProblem(extent, func); !problem.empty())
      return fail("the extent of the loop bound to '" + std::string(tag) +
                  "' must be a constant or an expression of the function's scalar parameters to give a launch "
                  "geometry: " +
                  problem);
    Expr e = extent->type == DataType::int64() ? extent : CastNode::make(DataType::int64(), extent);
    Expr &slot = geometry.symbolicGroups[axis->dim];
    if (!slot) // the constant extents seen so far
      slot = geometry.groups[axis->dim] > 1
                 ? BinaryNode::make(BinaryOp::Max, e, IntImmNode::make(DataType::int64(), geometry.groups[axis->dim]))
                 : e;
    else if (!structurallyEqual(slot, e))
      slot = BinaryNode::make(BinaryOp::Max, slot, e);
    return;
  }
  int64_t &slot = axis->isBlock ? geometry.groups[axis->dim] : geometry.local[axis->dim];
  if (axis->isBlock && geometry.symbolicGroups[axis->dim] && *value > slot)
    geometry.symbolicGroups[axis->dim] = BinaryNode::make(BinaryOp::Max, geometry.symbolicGroups[axis->dim],
                                                          IntImmNode::make(DataType::int64(), *value));
  slot = std::max(slot, *value);
}

LaunchGeometry launchGeometryOf(const PrimFuncNode &func) {
  LaunchGeometry geometry;
  for (const ThreadBinding &b : threadExtentCensus(func.body).bindings)
    if (b.form != ThreadBinding::Form::VirtualThread)
      addThreadBinding(geometry, func, b.tag.view(), b.extent, b.loc);
  return geometry;
}

std::string cpuThreadLaunchMessage(const AttrStmtNode &launch, const PrimFuncNode &func) {
  const VarNode *var = launch.threadVar();
  std::string what = launch.threadTag.empty() ? "a thread launch" : "'" + launch.threadTag.str() + "'";
  return "function '" + func.name.str() + "' launches GPU threads (" + what +
         (var ? " as '" + var->name.str() + "'" : "") +
         "): it is GPU-scheduled TIR, which runs on a GPU; compile it with --target=opencl";
}

} // namespace tirlower
