#include "codegen/launch_geometry.h"

#include <algorithm>

#include "ir/visitor.h"
#include "ir/attrs.h"

namespace tirlower {

std::optional<ThreadAxis> parseThreadAxis(std::string_view tag) {
  std::optional<ThreadTag> parsed = parseThreadTag(tag);
  if (!parsed || parsed->kind == ThreadTag::Kind::Virtual)
    return std::nullopt;
  return ThreadAxis{parsed->kind == ThreadTag::Kind::Block, parsed->dim};
}

void addThreadBinding(LaunchGeometry &geometry, std::string_view tag, const Expr &extent, SourceRange where) {
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
  if (!value || *value < 1)
    return fail("the extent of the loop bound to '" + std::string(tag) +
                "' must be a positive constant to give a launch geometry");
  int64_t &slot = axis->isBlock ? geometry.groups[axis->dim] : geometry.local[axis->dim];
  slot = std::max(slot, *value);
}

namespace {

class BindingVisitor : public IRVisitor {
public:
  explicit BindingVisitor(LaunchGeometry &geometry) : geometry_(geometry) {}
  using IRVisitor::visit;

protected:
  void visit(const ForNode *op) override {
    if (op->forKind == ForKind::ThreadBinding)
      addThreadBinding(geometry_, op->threadTag.view(), op->extent, op->loc);
    IRVisitor::visit(op);
  }
  void visit(const AttrStmtNode *op) override {
    if (op->key.view() == attr::kThreadExtent)
      addThreadBinding(geometry_, op->threadTag.view(), op->value, op->loc);
    IRVisitor::visit(op);
  }

private:
  LaunchGeometry &geometry_;
};

} // namespace

LaunchGeometry launchGeometryOf(const PrimFuncNode &func) {
  LaunchGeometry geometry;
  BindingVisitor visitor(geometry);
  visitor.visit(func.body);
  return geometry;
}

} // namespace tirlower
