// legalize-layouts: derives the layout transforms that make buffers satisfy their layout
// requirements (the "solver" of the tensor layout design) and adds them to the function's
// layout_transform_map, for apply-layout-transforms to apply.
//
// For each requirement (layout_requirements.h) on a buffer with a layout annotation: the
// buffer's layout after the transforms already pending for it is computed (layoutAfterMap);
// if that does not satisfy the requirement, the map between the two layout strings is added
// (indexMapFromLayouts; ":texture" also adds an axis separator before the last two dimensions
// and puts the parameter and its aliases in scope "global.texture"). The buffer's pending maps
// and the new one are composed into one map; maps that compose to the identity cancel and are
// removed. A map that pads gets pad_value 0 unless a pending one states another. --remarks
// reports each choice; a requirement it cannot meet by a transform (no layout annotation,
// other dimension names, wildcards, an unmet alignment, a texture of other than float32 or of
// a non-parameter) is a warning, left for verify-layouts to reject. So is a requirement whose
// layout an earlier requirement met on the same data does not accept (other dimension names):
// the earlier one stays met (a later map would silently undo it).
//
// Preconditions: run before apply-layout-transforms.
//
//   A: T.Buffer((1, 8, 8, 16), "float32", layout="NHWC")     with --require-layout='A=NCHW4c'
//   -> T.transform_layout(A, lambda n, h, w, c: [n, c // 4, h, w, c % 4])
//      (after apply-layout-transforms: A: T.Buffer((1, 4, 8, 8, 4), "float32", layout="NCHW4c"))
#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "arith/expr_util.h"
#include "arith/index_map_ops.h"
#include "ir/script_expr_printer.h"
#include "ir/visitor.h"
#include "transform/layout_requirements.h"
#include "transform/passes.h"
#include "ir/storage_scope.h"

namespace tirlower {

namespace {

// Replaces buffer objects (the scope change of a texture) everywhere in a body.
class BufferReplacer : public IRMutator {
public:
  explicit BufferReplacer(const std::unordered_map<const BufferNode *, Buffer> &replacement)
      : replacement_(replacement) {}

protected:
  Buffer mutateBuffer(const Buffer &buffer) override {
    auto it = replacement_.find(buffer.get());
    return it == replacement_.end() ? buffer : it->second;
  }

private:
  const std::unordered_map<const BufferNode *, Buffer> &replacement_;
};

class BufferViews : public IRVisitor {
public:
  explicit BufferViews(const VarNode *data) : data_(data) {}
  using IRVisitor::visit;
  std::vector<Buffer> views;
  void visitBuffer(const Buffer &buffer) override {
    if (buffer->data.get() == data_ && std::find(views.begin(), views.end(), buffer) == views.end())
      views.push_back(buffer);
  }

private:
  const VarNode *data_;
};

// The layout without alignments: the index map between layouts ignores them.
Layout withoutAlignment(const Layout &layout) {
  std::string text;
  for (const DimDescription &dim : layout.dims())
    text += DimDescription{dim.name, dim.factor, 1, dim.order}.str();
  return text.empty() ? layout : *Layout::parse(text);
}

bool isIdentity(const IndexMap &map, const std::vector<Expr> &shape) {
  if (!map->axisSeparators.empty() || map->finalIndices.size() != map->initialIndices.size())
    return false;
  Analyzer analyzer;
  for (size_t k = 0; k < shape.size(); ++k)
    analyzer.bindRange(map->initialIndices[k], IntImmNode::make(shape[k]->type, 0), shape[k]);
  for (size_t k = 0; k < map->finalIndices.size(); ++k)
    if (!analyzer.canProveEqual(map->finalIndices[k], map->initialIndices[k]))
      return false;
  return true;
}

Expr zeroOf(DataType type) {
  return type.isFloat() ? FloatImmNode::make(type, 0.0) : IntImmNode::make(type, 0);
}

class Legalizer {
public:
  Legalizer(const PrimFunc &func, PassContext &ctx) : func_(func), ctx_(ctx), fields_(func->fields()) {}

  PrimFunc run(const std::vector<BufferRequirement> &requirements) {
    for (const BufferRequirement &entry : requirements)
      legalize(entry);
    if (!changed_)
      return func_;
    if (!rescoped_.empty()) {
      BufferReplacer replacer(rescoped_);
      fields_.body = replacer.mutate(fields_.body);
      for (BufferBinding &binding : fields_.bufferMap)
        binding.buffer = current(binding.buffer);
      for (LayoutTransform &t : fields_.layoutTransforms)
        t.buffer = current(t.buffer);
    }
    return PrimFuncNode::make(std::move(fields_));
  }

private:
  Buffer current(const Buffer &buffer) const {
    auto it = rescoped_.find(buffer.get());
    return it == rescoped_.end() ? buffer : it->second;
  }

  SourceRange where(const BufferRequirement &entry) const {
    return entry.requirement.loc.valid() ? entry.requirement.loc : entry.buffer->loc;
  }

  void remark(const BufferRequirement &entry, const std::string &message) {
    if (ctx_.remarks)
      ctx_.diagnostics.remark(where(entry), "legalize-layouts: buffer '" + entry.buffer->name.str() + "': " + message);
  }

  // A warning with a note at the requirement (and at `other`, a requirement it conflicts with).
  void cannot(const BufferRequirement &entry, const std::string &why, const LayoutRequirement *other = nullptr) {
    Diagnostic d{Severity::Warning,
                 entry.buffer->loc.valid() ? entry.buffer->loc : func_->loc,
                 "legalize-layouts: cannot make buffer '" + entry.buffer->name.str() + "' \"" +
                     entry.requirement.spec() + "\": " + why,
                 {}};
    noteRequirementSource(d, entry.requirement, *func_);
    if (other)
      noteRequirementSource(d, *other, *func_);
    ctx_.diagnostics.report(std::move(d));
  }

  void legalize(const BufferRequirement &entry) {
    const Buffer &buffer = entry.buffer;
    const LayoutRequirement &requirement = entry.requirement;
    std::optional<Layout> layout = buffer->layout.empty() ? std::nullopt : Layout::parse(buffer->layout.view());
    if (!layout)
      return cannot(entry, "it has no layout annotation (give it one: layout=\"NHWC\")");
    // The pending transforms of this data, and the layout they lead to.
    std::vector<size_t> pending;
    std::vector<Expr> shape = current(buffer)->shape;
    std::optional<Layout> effective = layout;
    std::vector<int> separators = buffer->axisSeparators;
    for (size_t k = 0; k < fields_.layoutTransforms.size(); ++k) {
      const LayoutTransform &t = fields_.layoutTransforms[k];
      if (t.buffer->data != buffer->data)
        continue;
      if (!structurallyEqual(t.buffer->shape, buffer->shape))
        return cannot(entry, "its data has layout transforms given for '" + t.buffer->name.str() +
                                 "', a view of it with another shape");
      pending.push_back(k);
      MappedShape mapped = mapShape(t.map, shape);
      if (effective)
        effective = layoutAfterMap(*effective, t.map, shape, mapped);
      shape = std::move(mapped.shape);
      separators = t.map->axisSeparators;
    }
    if (!effective)
      return cannot(entry, "the layout transforms already given for it leave its layout unnamed");
    const Layout &required = requirement.layout;
    int rowSeparator = static_cast<int>(required.numDims()) - 2;
    bool textureDone = !requirement.texture || (hasTextureScope(*current(buffer)) &&
                                                separators == std::vector<int>{rowSeparator});
    std::string namesDiffer = required.namesMismatch(*effective);
    if (namesDiffer.empty() && textureDone) {
      // Only strides are left to check; a transform of dimension order does not change them.
      std::vector<std::optional<int64_t>> strides =
          pending.empty() ? elementStrides(*current(buffer)) : rowMajorStrides(shape);
      if (std::string why = required.unsatisfiedReason(shape.size(), strides, &*effective); !why.empty())
        return cannot(entry, why);
      remark(entry, "layout \"" + effective->name() + "\" already satisfies \"" + requirement.spec() + "\"");
      chosen_[buffer->data.get()].push_back(requirement);
      return;
    }
    bool wildcard = required.isAnyRank();
    for (const DimDescription &dim : required.dims())
      wildcard = wildcard || dim.isAny();
    if (wildcard)
      return cannot(entry, "a requirement with wildcard dimensions names no layout to transform to");
    // The requirements met earlier on this data stay met: a new layout must carry their names.
    for (const LayoutRequirement &earlier : chosen_[buffer->data.get()])
      if (!earlier.layout.namesMismatch(required).empty())
        return cannot(entry, "it conflicts with \"" + earlier.spec() + "\", required first", &earlier);
    if (requirement.texture && !isParam(buffer))
      return cannot(entry, "only a parameter can be a texture");
    if (requirement.texture && buffer->dtype != DataType::float32())
      return cannot(entry, "a texture holds float32 elements, not " + buffer->dtype.str());
    if (std::optional<std::string> problem = indexMapFromLayoutsProblem(*effective, withoutAlignment(required)))
      return cannot(entry, *problem);
    DataType indexType = shape.empty() ? DataType::int32() : shape.front()->type;
    IndexMap step = indexMapFromLayouts(*effective, withoutAlignment(required), where(entry), indexType);
    if (requirement.texture)
      step = IndexMapNode::make(step->initialIndices, step->finalIndices, {rowSeparator}, step->loc);
    compose(entry, pending, step, *effective);
    if (requirement.texture)
      rescope(buffer);
    chosen_[buffer->data.get()].push_back(requirement);
    changed_ = true;
  }

  bool isParam(const Buffer &buffer) const {
    for (const BufferBinding &binding : fields_.bufferMap)
      if (binding.buffer->data == buffer->data)
        return true;
    return false;
  }

  // Replaces the pending maps of the buffer by one map: theirs followed by `step`.
  void compose(const BufferRequirement &entry, const std::vector<size_t> &pending, const IndexMap &step,
               const Layout &effective) {
    const Buffer &buffer = entry.buffer;
    IndexMap composite;
    Expr padValue;
    for (size_t k : pending) {
      const LayoutTransform &t = fields_.layoutTransforms[k];
      composite = composite ? composeMaps(composite, t.map) : t.map;
      if (!padValue)
        padValue = t.padValue;
    }
    std::string from = "\"" + effective.name() + "\"";
    composite = composite ? composeMaps(composite, step) : step;
    std::vector<LayoutTransform> kept;
    for (size_t k = 0; k < fields_.layoutTransforms.size(); ++k)
      if (std::find(pending.begin(), pending.end(), k) == pending.end())
        kept.push_back(fields_.layoutTransforms[k]);
    std::string count = std::to_string(pending.size()) + " pending transform" + (pending.size() == 1 ? "" : "s");
    if (isIdentity(composite, buffer->shape)) {
      fields_.layoutTransforms = std::move(kept);
      remark(entry, from + " -> \"" + entry.requirement.spec() + "\" cancels its " + count + "; no transform is left");
      return;
    }
    bool padded = mapShape(composite, buffer->shape).padded;
    if (padded && !padValue)
      padValue = zeroOf(buffer->dtype);
    kept.push_back({current(buffer), composite, padded ? padValue : Expr(), where(entry)});
    fields_.layoutTransforms = std::move(kept);
    std::string message = from + " -> \"" + entry.requirement.spec() + "\" with " + formatIndexMap(*step);
    if (!pending.empty())
      message += ", composed with its " + count + " into " + formatIndexMap(*composite);
    if (padded)
      message += ", padded with pad_value " + formatExpr(padValue);
    remark(entry, message);
  }

  // ":texture": the parameter and every alias of its data move to scope "global.texture".
  void rescope(const Buffer &buffer) {
    BufferViews views(buffer->data.get());
    for (const BufferBinding &binding : fields_.bufferMap)
      views.visitBuffer(binding.buffer);
    views.visit(fields_.body);
    for (const Buffer &view : views.views) {
      if (hasTextureScope(*view) || rescoped_.count(view.get()))
        continue;
      BufferNode::Fields f = view->fields();
      f.scope = Symbol(scope::kTexture);
      rescoped_.emplace(view.get(), BufferNode::make(std::move(f)));
    }
    remark(BufferRequirement{{}, buffer}, "stored as an OpenCL image: scope \"global.texture\"");
  }

  const PrimFunc &func_;
  PassContext &ctx_;
  PrimFuncNode::Fields fields_;
  std::unordered_map<const BufferNode *, Buffer> rescoped_;
  // The requirements met or legalized so far, per data var: later ones must not undo them.
  std::unordered_map<const VarNode *, std::vector<LayoutRequirement>> chosen_;
  bool changed_ = false;
};

class LegalizeLayoutsPass : public Pass {
public:
  LegalizeLayoutsPass(std::vector<LayoutRequirement> required, const Target *target)
      : required_(std::move(required)), target_(target) {}

  std::optional<Module> run(Module module, PassContext &ctx) override {
    checkRequirementsApply(module, required_, "legalize-layouts");
    Module result = std::move(module);
    for (PrimFunc &func : result.functions)
      func = Legalizer(func, ctx).run(requirementsOf(*func, required_, target_));
    return result;
  }

private:
  std::vector<LayoutRequirement> required_;
  const Target *target_;
};

} // namespace

PassInfo legalizeLayoutsPassInfo() {
  PassInfo info;
  info.name = "legalize-layouts";
  info.summary = "add the layout transforms that make buffers satisfy their layout requirements (composed, "
                 "cancelled when they undo each other)";
  info.options = {requireOption(), targetOption()};
  info.create = [](const PassOptions &options) {
    return std::make_unique<LegalizeLayoutsPass>(requireOptionOf(options), targetOptionOf(options));
  };
  return info;
}

} // namespace tirlower
