// apply-layout-transforms: applies each function's layout_transform_map.
//
// For every buffer named by a T.transform_layout (or a --transform-layout/--layout flag), the
// index maps are applied in order to the buffer, to every alias that views the same data the
// same way, and to every load and store of them. Parameters change their declared shape: the
// caller passes data in the new layout. Axis separators come from T.AXIS_SEPARATOR in the map.
// A map that does not cover the new shape pads the buffer: pad_value is then required, and a
// buffer the function writes gets its padding filled with it first. The attribute is removed,
// so a second run changes nothing. A layout annotation follows the maps: layout="NHWC" with
// the map of NHWC->NCHW4c (or an equivalent lambda) becomes layout="NCHW4c"; a map that no
// layout string describes leaves the layout unnamed (the annotation is dropped).
//
// Preconditions: accesses of a transformed buffer use scalar indices (run before vectorize);
// transformed buffers have no strides.
//
//   T.transform_layout(x, lambda i, j: [j, i])      x = T.alloc_buffer((128, 64), "float32")
//   x = T.alloc_buffer((64, 128), "float32")   ->   x[15, 10] = T.float32(7)
//   x[10, 15] = T.float32(7)
#include "transform/passes.h"

#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "arith/index_map_ops.h"
#include "ir/script_expr_printer.h"
#include "transform/bound_mutator.h"

namespace tirlower {

namespace {

// Every buffer object of a function grouped by data variable, and which data is written.
class BufferCensus : public IRVisitor {
public:
  explicit BufferCensus(const PrimFuncNode &func) {
    for (const BufferBinding &b : func.bufferMap)
      note(b.buffer);
    visit(func.body);
  }
  std::unordered_map<const VarNode *, std::vector<Buffer>> viewsOf;
  std::unordered_set<const VarNode *> written;

protected:
  using IRVisitor::visit;
  void visitBuffer(const Buffer &buffer) override { note(buffer); }
  void visit(const BufferStoreNode *op) override {
    written.insert(op->buffer->data.get());
    IRVisitor::visit(op);
  }

private:
  void note(const Buffer &buffer) {
    if (!seen_.insert(buffer.get()).second)
      return;
    viewsOf[buffer->data.get()].push_back(buffer);
  }
  std::unordered_set<const BufferNode *> seen_;
};

// What happens to one data variable: the maps, the buffers before and after.
struct DataPlan {
  std::vector<const LayoutTransform *> transforms;
  std::unordered_map<const BufferNode *, Buffer> replacement; // every view that follows
  Buffer transformed;                                         // the new declared buffer
  Expr paddingPredicate;          // true on padding, over predicateVars; null when nothing to fill
  std::vector<Var> predicateVars; // one per axis of the new shape
  Expr padValue;
};

bool isZero(const Expr &e) {
  const int64_t *v = e ? asConstInt(e) : nullptr;
  return !e || (v && *v == 0);
}

bool sameView(const BufferNode &a, const BufferNode &b, Analyzer &analyzer) {
  if (a.dtype != b.dtype || a.shape.size() != b.shape.size() || !a.strides.empty() || !b.strides.empty())
    return false;
  for (size_t k = 0; k < a.shape.size(); ++k)
    if (!analyzer.canProveEqual(a.shape[k], b.shape[k]))
      return false;
  if (isZero(a.elemOffset) != isZero(b.elemOffset))
    return false;
  return isZero(a.elemOffset) || analyzer.canProveEqual(a.elemOffset, b.elemOffset);
}

// What the maps do to a declared shape: the shape after each map, the axis separators, which
// maps pad, and the inverse's padding predicate. It depends only on the maps (up to the names of
// their indices), the declared shape, dtype and separators, so functions that transform equal
// buffers by equal maps share one (PlanCache). Never holds a function's source locations.
struct ShapePlan {
  std::vector<std::vector<Expr>> shapes; // before the first map, then after each
  std::vector<MappedShape> steps;        // what each map did
  std::vector<int> separators;
  IndexMap composite;
  bool padded = false;
  bool inverted = false;  // paddingPredicate computed (only wanted for written buffers)
  Expr paddingPredicate;  // over predicateVars
  std::vector<Var> predicateVars;
};

ShapePlan planShapes(const BufferNode &declared, const std::vector<const LayoutTransform *> &transforms) {
  ShapePlan plan;
  plan.shapes.push_back(declared.shape);
  plan.separators = declared.axisSeparators;
  for (const LayoutTransform *t : transforms) {
    const std::vector<Expr> &shape = plan.shapes.back();
    MappedShape mapped;
    try {
      mapped = mapShape(t->map, shape);
    } catch (CompileError &error) {
      error.diagnostic().note(declared.loc, "buffer '" + declared.name.str() + "' declared here");
      throw;
    }
    if (!t->map->axisSeparators.empty()) {
      plan.separators = t->map->axisSeparators;
    } else if (!plan.separators.empty() && mapped.shape.size() != shape.size()) {
      throw CompileError(t->loc, "axis_separators of '" + declared.name.str() +
                                     "' refer to its axes before this transform, which changes its rank; state the "
                                     "separators in the index map with T.AXIS_SEPARATOR");
    }
    plan.padded = plan.padded || mapped.padded;
    plan.composite = plan.composite ? composeMaps(plan.composite, t->map) : t->map;
    plan.shapes.push_back(mapped.shape);
    plan.steps.push_back(std::move(mapped));
  }
  return plan;
}

// Shape plans and layout annotations already worked out in this run, by a key of everything they
// depend on; buffers with symbolic shapes, or maps that mention the function's variables, have no
// key and are planned each time.
class PlanCache {
public:
  // What a plan depends on: the buffer's dtype, constant shape and separators, and the maps up to
  // the names of their variables; nullopt when the shape is symbolic or a map mentions the
  // function's variables.
  static std::optional<std::string> key(const BufferNode &buffer,
                                        const std::vector<const LayoutTransform *> &transforms) {
    std::string k;
    appendTypeKey(k, buffer.dtype);
    k += '(';
    for (const Expr &extent : buffer.shape) {
      const int64_t *v = asConstInt(extent);
      if (!v)
        return std::nullopt;
      appendTypeKey(k, extent->type);
      k += std::to_string(*v);
      k += ',';
    }
    k += ")";
    for (int sep : buffer.axisSeparators)
      k += std::to_string(sep) + ",";
    for (const LayoutTransform *t : transforms) {
      std::optional<std::string> map = alphaKey(*t->map);
      if (!map)
        return std::nullopt;
      k += "/" + *map;
    }
    return k;
  }

  // `k`: key(declared, transforms).
  std::shared_ptr<ShapePlan> shapes(const BufferNode &declared, const std::vector<const LayoutTransform *> &transforms,
                                    std::optional<std::string> k) {
    if (!k)
      return std::make_shared<ShapePlan>(planShapes(declared, transforms));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto it = shapes_.find(*k); it != shapes_.end())
        return it->second;
    }
    // Planned outside the lock: two workers may both plan a new key, and both plans are equal.
    auto plan = std::make_shared<ShapePlan>(planShapes(declared, transforms));
    std::lock_guard<std::mutex> lock(mutex_);
    return shapes_.emplace(std::move(*k), std::move(plan)).first->second;
  }

  // The layout annotation after the maps: named when a layout string describes every map in turn
  // ("NHWC" and NHWC->NCHW4c give "NCHW4c"), else unnamed.
  // `k`: key(buffer, transforms).
  Symbol layoutAfter(const BufferNode &buffer, const std::vector<const LayoutTransform *> &transforms,
                     std::optional<std::string> k) {
    if (buffer.layout.empty())
      return Symbol();
    if (!k)
      return computeLayoutAfter(buffer, transforms);
    *k += '@';
    *k += buffer.layout.view();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto it = layouts_.find(*k); it != layouts_.end())
        return it->second;
    }
    Symbol layout = computeLayoutAfter(buffer, transforms);
    std::lock_guard<std::mutex> lock(mutex_);
    return layouts_.emplace(std::move(*k), layout).first->second;
  }

private:
  static Symbol computeLayoutAfter(const BufferNode &buffer, const std::vector<const LayoutTransform *> &transforms) {
    std::optional<Layout> layout = Layout::parse(buffer.layout.view());
    std::vector<Expr> shape = buffer.shape;
    for (const LayoutTransform *t : transforms) {
      if (!layout)
        return Symbol();
      MappedShape mapped = mapShape(t->map, shape);
      layout = layoutAfterMap(*layout, t->map, shape, mapped);
      shape = std::move(mapped.shape);
    }
    return layout ? Symbol(layout->name()) : Symbol();
  }

  // The workers of --threads=N share the cache; plans are immutable once built.
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<ShapePlan>> shapes_;
  std::unordered_map<std::string, Symbol> layouts_;
};

DataPlan planFor(const Buffer &declared, std::vector<const LayoutTransform *> transforms,
                 const std::vector<Buffer> &views, bool written, PlanCache &cache) {
  DataPlan plan;
  plan.transforms = std::move(transforms);
  const LayoutTransform &first = *plan.transforms.front();
  if (!declared->strides.empty())
    throw CompileError(Diagnostic{
        Severity::Error,
        first.loc,
        "cannot transform the layout of buffer '" + declared->name.str() + "': it has explicit strides",
        {}}.note(declared->loc, "buffer '" + declared->name.str() + "' declared here"));

  // Worked out once: formatting the maps is most of a cache hit's cost.
  std::optional<std::string> declaredKey = PlanCache::key(*declared, plan.transforms);
  std::shared_ptr<ShapePlan> shapes = cache.shapes(*declared, plan.transforms, declaredKey);
  for (size_t k = 0; k < plan.transforms.size(); ++k) {
    const LayoutTransform *t = plan.transforms[k];
    const MappedShape &mapped = shapes->steps[k];
    if (!mapped.padded)
      continue;
    if (!t->padValue) {
      std::string amount = mapped.paddingElements ? std::to_string(*mapped.paddingElements) + " element" +
                                                        (*mapped.paddingElements == 1 ? "" : "s") + " of padding"
                                                  : "padding";
      throw CompileError(t->loc, "layout transform of '" + declared->name.str() + "' from " +
                                     formatShape(shapes->shapes[k]) + " to " + formatShape(mapped.shape) + " adds " +
                                     amount + "; give pad_value= to say what the padding holds");
    }
    if (t->padValue->type != declared->dtype)
      throw CompileError(t->padValue->loc, "pad_value has type " + t->padValue->type.str() + " but buffer '" +
                                               declared->name.str() + "' holds " + declared->dtype.str());
    if (!plan.padValue)
      plan.padValue = t->padValue;
  }
  if (shapes->padded && written) {
    if (!shapes->inverted) {
      InverseMap inverse = inverseMap(shapes->composite, declared->shape);
      shapes->paddingPredicate = inverse.paddingPredicate;
      shapes->predicateVars = inverse.inverse->initialIndices;
      shapes->inverted = true;
    }
    plan.paddingPredicate = shapes->paddingPredicate;
    plan.predicateVars = shapes->predicateVars;
  }

  Analyzer analyzer;
  for (const Buffer &view : views) {
    if (view != declared && !sameView(*view, *declared, analyzer))
      throw CompileError(Diagnostic{
          Severity::Error,
          first.loc,
          "cannot apply the layout transform of '" + declared->name.str() + "' to its alias '" + view->name.str() +
              "', which views the same data as " + formatShape(view->shape) + " " + view->dtype.str() + " instead of " +
              formatShape(declared->shape) + " " + declared->dtype.str(),
          {}}.note(view->loc, "alias '" + view->name.str() + "' declared here"));
    BufferNode::Fields f = view->fields();
    f.shape = shapes->shapes.back();
    f.axisSeparators = shapes->separators;
    f.layout = cache.layoutAfter(*view, plan.transforms,
                                 view == declared ? declaredKey : PlanCache::key(*view, plan.transforms));
    plan.replacement.emplace(view.get(), BufferNode::make(std::move(f)));
  }
  plan.transformed = plan.replacement.at(declared.get());
  return plan;
}

class AccessRewriter : public BoundMutator {
public:
  explicit AccessRewriter(std::unordered_map<const VarNode *, DataPlan> &plans) : plans_(plans) {}

protected:
  using BoundMutator::visit;

  Buffer mutateBuffer(const Buffer &buffer) override {
    auto plan = plans_.find(buffer->data.get());
    if (plan == plans_.end())
      return buffer;
    auto it = plan->second.replacement.find(buffer.get());
    return it == plan->second.replacement.end() ? buffer : it->second;
  }

  Expr visit(const BufferLoadNode *op) override {
    const DataPlan *plan = planOf(op->buffer);
    if (!plan)
      return BoundMutator::visit(op);
    std::vector<Expr> indices = rewrite(*plan, mutate(op->indices), op->loc);
    return BufferLoadNode::make(mutateBuffer(op->buffer), std::move(indices), op->loc);
  }

  Stmt visit(const BufferStoreNode *op) override {
    const DataPlan *plan = planOf(op->buffer);
    if (!plan)
      return BoundMutator::visit(op);
    Expr value = mutate(op->value);
    std::vector<Expr> indices = rewrite(*plan, mutate(op->indices), op->loc);
    return BufferStoreNode::make(mutateBuffer(op->buffer), value, std::move(indices), op->loc);
  }

  Stmt visit(const AllocBufferNode *op) override {
    Stmt s = BoundMutator::visit(op);
    const DataPlan *plan = planOf(op->buffer);
    if (!plan || !plan->paddingPredicate)
      return s;
    const auto *alloc = s.as<AllocBufferNode>();
    return AllocBufferNode::make(alloc->buffer, SeqStmtNode::make({fill(*plan), alloc->body}), op->loc);
  }

  Stmt visit(const DeclBufferNode *op) override {
    Stmt s = BoundMutator::visit(op);
    const DataPlan *plan = planOf(op->buffer);
    if (!plan || !plan->paddingPredicate || !op->allocates)
      return s;
    const auto *decl = s.as<DeclBufferNode>();
    return DeclBufferNode::make(decl->buffer, decl->allocates, SeqStmtNode::make({fill(*plan), decl->body}), op->loc);
  }

public:
  // The padding fill: store pad_value at every point of the new shape where the padding
  // predicate holds. It runs first in the buffer's scope; rewritten accesses never touch it.
  Stmt fill(const DataPlan &plan) {
    const Buffer &buffer = plan.transformed;
    std::vector<Var> axes;
    std::vector<Expr> indices;
    for (size_t k = 0; k < buffer->shape.size(); ++k) {
      Var axis = VarNode::make(Symbol("i" + std::to_string(k)), buffer->shape[k]->type);
      axes.push_back(axis);
      indices.push_back(axis);
    }
    // The predicate is written over the inverse map's inputs, one per new axis, in order.
    Stmt body = BufferStoreNode::make(buffer, plan.padValue, indices);
    std::vector<std::pair<Var, Expr>> bind;
    for (size_t k = 0; k < axes.size(); ++k)
      bind.emplace_back(plan.predicateVars[k], axes[k]);
    body = IfThenElseNode::make(substitute(plan.paddingPredicate, bind), body, nullptr);
    for (size_t k = axes.size(); k-- > 0;)
      body =
          ForNode::make(axes[k], IntImmNode::make(buffer->shape[k]->type, 0), buffer->shape[k], ForKind::Serial, body);
    return body;
  }

private:
  const DataPlan *planOf(const Buffer &original) const {
    auto plan = plans_.find(original->data.get());
    return plan == plans_.end() ? nullptr : &plan->second;
  }

  std::vector<Expr> rewrite(const DataPlan &plan, std::vector<Expr> indices, SourceRange where) {
    for (const Expr &index : indices)
      if (index->type.isVector())
        throw CompileError(where, "vector access of '" + plan.transformed->name.str() +
                                      "' cannot be rewritten by its layout transform; apply layout transforms "
                                      "before vectorize");
    for (const LayoutTransform *t : plan.transforms)
      indices = mapIndices(t->map, indices, analyzer_);
    return indices;
  }

  std::unordered_map<const VarNode *, DataPlan> &plans_;
};

} // namespace
} // namespace tirlower

namespace tirlower {
namespace {

PrimFunc applyToFunction(const PrimFunc &func, PlanCache &cache) {
  if (func->layoutTransforms.empty())
    return func;
  BufferCensus census(*func);
  // Group the transforms by data variable, keeping the order of their first appearance.
  std::vector<const VarNode *> order;
  std::unordered_map<const VarNode *, std::vector<const LayoutTransform *>> byData;
  std::unordered_map<const VarNode *, Buffer> declaredFor;
  for (const LayoutTransform &t : func->layoutTransforms) {
    const VarNode *data = t.buffer->data.get();
    auto [it, inserted] = byData.try_emplace(data);
    if (inserted) {
      order.push_back(data);
      declaredFor.emplace(data, t.buffer);
    }
    it->second.push_back(&t);
  }
  std::unordered_map<const VarNode *, DataPlan> plans;
  for (const VarNode *data : order) {
    const std::vector<Buffer> &views = census.viewsOf[data];
    plans.emplace(data, planFor(declaredFor.at(data), byData.at(data), views, census.written.count(data) > 0, cache));
  }

  AccessRewriter rewriter(plans);
  PrimFuncNode::Fields f = func->fields();
  Stmt body = rewriter.mutate(f.body);
  // Parameters: the signature takes the new layout; fill the padding of written ones first.
  std::vector<Stmt> prologue;
  for (BufferBinding &binding : f.bufferMap) {
    auto plan = plans.find(binding.buffer->data.get());
    if (plan == plans.end())
      continue;
    auto replaced = plan->second.replacement.find(binding.buffer.get());
    if (replaced == plan->second.replacement.end())
      continue;
    bool firstBinding = plan->second.transformed == replaced->second;
    binding.buffer = replaced->second;
    if (firstBinding && plan->second.paddingPredicate)
      prologue.push_back(rewriter.fill(plan->second));
  }
  prologue.push_back(body);
  f.body = SeqStmtNode::make(std::move(prologue), func->body->loc);
  f.layoutTransforms.clear();
  return PrimFuncNode::make(std::move(f));
}

// One cache per pass instance, for the whole run (every module the instance lowers): a plan
// depends only on its key.
class ApplyLayoutTransformsPass : public FunctionPass {
public:
  std::optional<PrimFunc> runOnFunction(PrimFunc func, PassContext &ctx) override {
    const BlockNode *block = func->layoutTransforms.empty() ? nullptr : findBlock(func->body);
    if (block) {
      ctx.diagnostics.error(block->loc, "apply-layout-transforms: " + blockMessage(*block));
      return std::nullopt;
    }
    return applyToFunction(func, cache_);
  }

private:
  PlanCache cache_;
};

} // namespace

PassInfo applyLayoutTransformsPassInfo() {
  PassInfo info;
  info.name = "apply-layout-transforms";
  info.summary = "apply each function's layout_transform_map to its buffers, aliases and accesses";
  info.establishes = {IRProperty::LayoutsApplied};
  info.create = [](const PassOptions &) { return std::make_unique<ApplyLayoutTransformsPass>(); };
  return info;
}

} // namespace tirlower
