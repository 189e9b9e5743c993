// flatten (aliases: flatten-buffer, storage-flatten): lowers every buffer to its physical rank.
//
// A buffer becomes rank len(axis_separators) + 1: each group of axes between separators is
// combined row-major (or with the buffer's strides), and a non-zero elem_offset is added to
// the index. Parameters keep their declared buffer in the signature; the body accesses them
// through a flattened alias declared over the same data. Allocations take the physical shape.
// A flattened buffer's separators are [1, ..., N-1], so flattening again changes nothing and a
// flattened 2-d buffer stays distinct from an unflattened one. Index arithmetic is simplified
// with the loop bounds.
//
// Preconditions: layout transforms applied. A non-zero elem_offset with separators is an error.
//
//   def f(A: T.Buffer((64, 128), "float32")):     def f(A: T.Buffer((64, 128), "float32")):
//       A[20, 23] = T.float32(7)               ->      A_flat = T.decl_buffer((8192,), "float32", data=A.data)
//                                                      A_flat[2583] = T.float32(7)
#include "transform/passes.h"

#include <unordered_map>

#include "arith/analyzer.h"
#include "transform/bound_mutator.h"

namespace tirlower {

namespace {

bool isZero(const Expr &e) {
  const int64_t *v = e ? asConstInt(e) : nullptr;
  return !e || (v && *v == 0);
}

// True when the buffer already has its physical form.
bool isFlat(const BufferNode &b) {
  if (!b.strides.empty() || !isZero(b.elemOffset) || b.axisSeparators.size() + 1 != b.shape.size())
    return false;
  for (size_t k = 0; k < b.axisSeparators.size(); ++k)
    if (b.axisSeparators[k] != static_cast<int>(k) + 1)
      return false;
  return true;
}

// The axes [begin, end) of each physical axis.
std::vector<std::pair<size_t, size_t>> axisGroups(const BufferNode &b) {
  std::vector<std::pair<size_t, size_t>> groups;
  size_t begin = 0;
  for (int sep : b.axisSeparators) {
    groups.emplace_back(begin, static_cast<size_t>(sep));
    begin = static_cast<size_t>(sep);
  }
  groups.emplace_back(begin, b.shape.size());
  return groups;
}

Expr indexConst(int64_t v, DataType type) {
  return IntImmNode::make(type, v);
}

DataType indexTypeOf(const BufferNode &b) {
  for (const Expr &e : b.shape)
    if (e->type == DataType::int64())
      return DataType::int64();
  return DataType::int32();
}

Expr castTo(const Expr &e, DataType type) {
  return e->type == type ? e : CastNode::make(type.withLanes(e->type.lanes()), e);
}

// Elementwise arithmetic that broadcasts a scalar operand to the other's lanes.
Expr vectorOp(BinaryOp op, Expr a, Expr b) {
  int lanes = std::max(a->type.lanes(), b->type.lanes());
  if (a->type.lanes() != lanes)
    a = BroadcastNode::make(a, lanes);
  if (b->type.lanes() != lanes)
    b = BroadcastNode::make(b, lanes);
  return BinaryNode::make(op, a, b);
}

class Flattener : public BoundMutator {
public:
  Flattener(const PrimFuncNode &func) : func_(func) {}

  // The physical form of a buffer (the same object when it already is physical).
  Buffer flattened(const Buffer &b) {
    auto it = flat_.find(b.get());
    if (it != flat_.end())
      return it->second;
    Buffer result = b;
    if (!isFlat(*b)) {
      if (!isZero(b->elemOffset) && !b->axisSeparators.empty())
        throw CompileError(b->loc, "buffer '" + b->name.str() +
                                       "' has both a non-zero elem_offset and axis_separators; an element offset "
                                       "is only defined for a 1-d physical buffer");
      DataType type = indexTypeOf(*b);
      BufferNode::Fields f = b->fields();
      f.shape.clear();
      for (auto [begin, end] : axisGroups(*b)) {
        Expr extent = indexConst(1, type);
        if (begin < end && !b->strides.empty()) {
          extent = castTo(b->strides[begin], type) * castTo(b->shape[begin], type);
        } else {
          for (size_t k = begin; k < end; ++k)
            extent = extent * castTo(b->shape[k], type);
        }
        f.shape.push_back(analyzer_.simplify(extent));
      }
      if (!isZero(b->elemOffset))
        f.shape[0] = analyzer_.simplify(castTo(b->elemOffset, type) + f.shape[0]);
      f.strides.clear();
      f.elemOffset = nullptr;
      f.axisSeparators.clear();
      for (size_t k = 1; k < f.shape.size(); ++k)
        f.axisSeparators.push_back(static_cast<int>(k));
      f.layout = Symbol();
      if (isParam(b))
        f.name = Symbol(b->name.str() + "_flat");
      result = BufferNode::make(std::move(f));
    }
    flat_.emplace(b.get(), result);
    return result;
  }

  std::vector<Expr> flatIndices(const BufferNode &b, const std::vector<Expr> &indices) {
    if (isFlat(b))
      return indices;
    DataType type = indexTypeOf(b);
    std::vector<Expr> out;
    for (auto [begin, end] : axisGroups(b)) {
      Expr acc = indexConst(0, type);
      for (size_t k = begin; k < end; ++k) {
        Expr index = castTo(indices[k], type);
        if (!b.strides.empty()) {
          acc = vectorOp(BinaryOp::Add, acc, vectorOp(BinaryOp::Mul, index, castTo(b.strides[k], type)));
        } else {
          acc = vectorOp(BinaryOp::Add, vectorOp(BinaryOp::Mul, acc, castTo(b.shape[k], type)), index);
        }
      }
      out.push_back(acc);
    }
    if (!isZero(b.elemOffset))
      out[0] = vectorOp(BinaryOp::Add, out[0], castTo(b.elemOffset, type));
    for (Expr &e : out)
      e = simplifyIndex(e);
    return out;
  }

  bool isParam(const Buffer &b) const {
    for (const BufferBinding &binding : func_.bufferMap)
      if (binding.buffer == b)
        return true;
    return false;
  }

  const std::unordered_map<const BufferNode *, Buffer> &flattenedBuffers() const { return flat_; }

protected:
  using BoundMutator::visit;

  Buffer mutateBuffer(const Buffer &buffer) override { return flattened(buffer); }

  Expr visit(const BufferLoadNode *op) override {
    bool changed = false;
    std::vector<Expr> indices = mutate(op->indices, &changed);
    Buffer buffer = flattened(op->buffer);
    if (buffer == op->buffer && !changed)
      return Expr(op);
    return BufferLoadNode::make(buffer, flatIndices(*op->buffer, indices), op->loc);
  }

  Stmt visit(const BufferStoreNode *op) override {
    bool changed = false;
    std::vector<Expr> indices = mutate(op->indices, &changed);
    Expr value = mutate(op->value);
    Buffer buffer = flattened(op->buffer);
    if (buffer == op->buffer && !changed && value == op->value)
      return Stmt(op);
    return BufferStoreNode::make(buffer, value, flatIndices(*op->buffer, indices), op->loc);
  }

  Stmt visit(const AllocateNode *op) override {
    Stmt s = BoundMutator::visit(op);
    const auto *alloc = s.as<AllocateNode>();
    if (alloc->extents.size() <= 1)
      return s;
    // The storage takes the physical shape of the views over it, else one flat extent.
    std::vector<Expr> extents;
    if (const Buffer *view = physicalView(op->bufferVar)) {
      extents = flattened(*view)->shape;
    } else {
      Expr total = indexConst(1, alloc->extents.front()->type);
      for (const Expr &e : alloc->extents)
        total = total * castTo(e, total->type);
      extents.push_back(analyzer_.simplify(total));
    }
    return AllocateNode::make(alloc->bufferVar, alloc->dtype, std::move(extents), alloc->scope, alloc->body, op->loc);
  }

public:
  // Views (decl_buffer) of allocated data with more than one physical axis.
  std::unordered_map<const VarNode *, Buffer> multiAxisViews;

private:
  const Buffer *physicalView(const Var &data) const {
    auto it = multiAxisViews.find(data.get());
    return it == multiAxisViews.end() ? nullptr : &it->second;
  }

  Expr simplifyIndex(const Expr &e) {
    if (const auto *ramp = e.as<RampNode>())
      return RampNode::make(analyzer_.simplify(ramp->base), analyzer_.simplify(ramp->stride), ramp->lanes, e->loc);
    return analyzer_.simplify(e);
  }

  const PrimFuncNode &func_;
  std::unordered_map<const BufferNode *, Buffer> flat_;
};

// Finds the views of each allocated data variable that keep more than one physical axis.
class ViewFinder : public IRVisitor {
public:
  explicit ViewFinder(std::unordered_map<const VarNode *, Buffer> &out) : out_(out) {}
  using IRVisitor::visit;

protected:
  void visitBuffer(const Buffer &b) override {
    if (b->axisSeparators.empty())
      return;
    out_.try_emplace(b->data.get(), b);
  }

private:
  std::unordered_map<const VarNode *, Buffer> &out_;
};

// Which parameter buffers the body uses.
class ParamUse : public IRVisitor {
public:
  std::unordered_map<const BufferNode *, bool> used;
  using IRVisitor::visit;

protected:
  void visitBuffer(const Buffer &b) override { used[b.get()] = true; }
};

PrimFunc flattenFunction(const PrimFunc &func) {
  Flattener flattener(*func);
  ViewFinder(flattener.multiAxisViews).visit(func->body);
  ParamUse uses;
  uses.visit(func->body);
  Stmt body = flattener.mutate(func->body);

  // Declare the flattened aliases of the parameters the body uses, in parameter order.
  for (auto it = func->bufferMap.rbegin(); it != func->bufferMap.rend(); ++it) {
    const Buffer &param = it->buffer;
    if (!uses.used.count(param.get()))
      continue;
    Buffer flat = flattener.flattened(param);
    if (flat == param)
      continue;
    body = DeclBufferNode::make(flat, false, body, func->body->loc);
  }
  if (body == func->body)
    return func;
  PrimFuncNode::Fields f = func->fields();
  f.body = body;
  return PrimFuncNode::make(std::move(f));
}

class FlattenPass : public Pass {
public:
  std::optional<Module> run(Module module, PassContext &ctx) override {
    Module result = std::move(module);
    for (PrimFunc &func : result.functions) {
      if (const BlockNode *block = findBlock(func->body)) {
        ctx.diagnostics.error(block->loc, "flatten: " + blockMessage(*block));
        return std::nullopt;
      }
      if (!func->layoutTransforms.empty()) {
        ctx.diagnostics.error(func->layoutTransforms.front().loc,
                              "function '" + func->name.str() +
                                  "' still has layout transforms; run apply-layout-transforms before flatten");
        return std::nullopt;
      }
      func = flattenFunction(func);
    }
    return result;
  }
};

} // namespace

PassInfo flattenPassInfo() {
  PassInfo info;
  info.name = "flatten";
  info.requirements = {IRProperty::LayoutsApplied};
  info.aliases = {"flatten-buffer", "storage-flatten"};
  info.summary = "lower every buffer to its physical rank (axis separators + 1), row-major";
  info.establishes = {IRProperty::Flat};
  info.create = [](const PassOptions &) { return std::make_unique<FlattenPass>(); };
  return info;
}

} // namespace tirlower
