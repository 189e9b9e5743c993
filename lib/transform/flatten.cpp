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

#include <algorithm>
#include <cstdint>
#include <optional>
#include <unordered_map>

#include "arith/analyzer.h"
#include "arith/int_ops.h"
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

// The axes [begin, end) of each physical axis, in order: a range over the separators, read as
// it is iterated (a vector of the groups was an allocation per buffer access).
class AxisGroups {
public:
  explicit AxisGroups(const BufferNode &b) : b_(b) {}
  class Iterator {
  public:
    Iterator(const BufferNode &b, size_t group) : b_(&b), group_(group) {}
    std::pair<size_t, size_t> operator*() const {
      const std::vector<int> &seps = b_->axisSeparators;
      size_t begin = group_ == 0 ? 0 : static_cast<size_t>(seps[group_ - 1]);
      size_t end = group_ < seps.size() ? static_cast<size_t>(seps[group_]) : b_->shape.size();
      return {begin, end};
    }
    Iterator &operator++() {
      ++group_;
      return *this;
    }
    bool operator!=(const Iterator &other) const { return group_ != other.group_; }

  private:
    const BufferNode *b_;
    size_t group_;
  };
  Iterator begin() const { return {b_, 0}; }
  Iterator end() const { return {b_, b_.axisSeparators.size() + 1}; }

private:
  const BufferNode &b_;
};

AxisGroups axisGroups(const BufferNode &b) {
  return AxisGroups(b);
}

Expr indexConst(int64_t v, DataType type) {
  return IntImmNode::make(type, v);
}

Expr castTo(const Expr &e, DataType type) {
  return e->type == type ? e : CastNode::make(type.withLanes(e->type.lanes()), e);
}

// The value of an int64 sum or product of integer constants (widened by casts), as the
// analyzer would fold it; nullopt for anything else, and on overflow (which the analyzer
// reports as an error).
std::optional<int64_t> constantProduct(const Expr &e) {
  if (e->type != DataType::int64())
    return std::nullopt;
  if (const int64_t *v = asConstInt(e))
    return *v;
  if (const auto *cast = e.as<CastNode>()) {
    const int64_t *v = asConstInt(cast->value);
    if (v && cast->value->type.isInt() && cast->value->type.isScalar())
      return *v; // a signed integer widens to int64 unchanged
    return std::nullopt;
  }
  const auto *op = e.as<BinaryNode>();
  if (!op || (op->op != BinaryOp::Add && op->op != BinaryOp::Mul))
    return std::nullopt;
  std::optional<int64_t> a = constantProduct(op->a), b = constantProduct(op->b);
  if (!a || !b)
    return std::nullopt;
  return op->op == BinaryOp::Add ? checkedAdd(*a, *b) : checkedMul(*a, *b);
}

// True when the exact value of `e` (computed in int64) provably fits in int32. A buffer's
// extents are constants in nearly every function, and folding them here costs a fraction of
// an analyzer query.
bool fitsInt32(Analyzer &analyzer, const Expr &e) {
  if (std::optional<int64_t> v = constantProduct(e))
    return *v >= INT32_MIN && *v <= INT32_MAX;
  IntBounds b = analyzer.bounds(analyzer.simplify(e));
  return b.min && b.max && *b.min >= INT32_MIN && *b.max <= INT32_MAX;
}

// A pass builds these expressions itself: an error in them (an int64 overflow) is located at
// the buffer whose shape, strides or offset they come from.
template <typename Work> auto locatedAt(SourceRange where, Work work) {
  try {
    return work();
  } catch (CompileError &error) {
    if (!error.diagnostic().range.valid())
      error.diagnostic().range = where;
    throw;
  }
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
      locatedAt(b->loc, [&] { physicalShape(b.get(), type, f); });
      result = BufferNode::make(std::move(f));
    }
    flat_.emplace(b.get(), result);
    return result;
  }

  // The physical shape of `b` in `type`, into `f`; strides, offset and separators reset.
  void physicalShape(const BufferNode *b, DataType type, BufferNode::Fields &f) {
    {
      f.shape.clear();
      for (auto [begin, end] : axisGroups(*b)) {
        if (std::optional<int64_t> product = constantExtent(*b, begin, end); product && fitsType(type, *product)) {
          f.shape.push_back(indexConst(*product, type)); // what the simplifier folds the product to
          continue;
        }
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
      if (isParamBuffer(b))
        f.name = Symbol(b->name.str() + "_flat");
    }
  }

  // decideIndexType of a buffer without strides whose shape and element offset are constants,
  // from the values the expressions it builds would fold to; nullopt for any other buffer.
  static std::optional<DataType> constantIndexType(const BufferNode &b) {
    const int64_t *offset = isZero(b.elemOffset) ? nullptr : asConstInt(b.elemOffset);
    if (!b.strides.empty() || (!isZero(b.elemOffset) && !offset))
      return std::nullopt;
    bool fits = true, first = true;
    for (auto [begin, end] : axisGroups(b)) {
      std::optional<int64_t> extent = constantExtent(b, begin, end);
      if (extent && first && offset)
        extent = checkedAdd(*extent, *offset); // only the first physical axis carries it
      first = false;
      if (!extent)
        return std::nullopt;
      fits = fits && *extent >= INT32_MIN && *extent <= INT32_MAX;
    }
    return fits ? DataType::int32() : DataType::int64();
  }

  // The product of the constant extents of axes [begin, end) without strides; nullopt otherwise
  // and on overflow.
  static std::optional<int64_t> constantExtent(const BufferNode &b, size_t begin, size_t end) {
    if (!b.strides.empty())
      return std::nullopt;
    std::optional<int64_t> product = 1;
    for (size_t k = begin; k < end && product; ++k) {
      const int64_t *v = asConstInt(b.shape[k]);
      product = v ? checkedMul(*product, *v) : std::nullopt;
    }
    return product;
  }

  // Integer arithmetic wraps, so the expressions built for the flat extents would wrap too:
  // where they are constants, their exact values must fit int64, else a located error.
  void checkConstantExtents(const BufferNode &b) {
    std::optional<int64_t> total = 0;
    auto add = [&](std::optional<int64_t> v) { total = total && v ? checkedAdd(*total, *v) : std::nullopt; };
    for (auto [begin, end] : axisGroups(b)) {
      std::optional<int64_t> extent = 1;
      for (size_t k = begin; k < end; ++k) {
        const int64_t *axis = asConstInt(b.shape[k]);
        const int64_t *stride = b.strides.empty() ? nullptr : asConstInt(b.strides[k]);
        if (!axis || (!b.strides.empty() && !stride))
          return; // symbolic: its values are the caller's to keep in range
        if (stride) {
          add(checkedMul(*axis, *stride));
          continue;
        }
        extent = extent ? checkedMul(*extent, *axis) : std::nullopt;
      }
      if (b.strides.empty())
        add(extent);
    }
    const int64_t *offset = b.elemOffset ? asConstInt(b.elemOffset) : nullptr;
    if (offset)
      add(*offset);
    if (!total)
      throw extentOverflow(b, offset);
  }

  // The error for a buffer of constant shape (and strides) whose flat extent overflows int64.
  static CompileError extentOverflow(const BufferNode &b, const int64_t *offset) {
    auto list = [](const std::vector<Expr> &values) {
      std::string text;
      for (const Expr &v : values)
        text += (text.empty() ? "" : ", ") + std::to_string(*asConstInt(v));
      return text;
    };
    std::string what = "shape (" + list(b.shape) + ")";
    if (!b.strides.empty())
      what += ", strides (" + list(b.strides) + ")";
    if (offset && *offset != 0)
      what += ", elem_offset " + std::to_string(*offset);
    return CompileError(b.loc, "integer overflow: the flat extent of buffer '" + b.name.str() + "' (" + what +
                                   ") does not fit in int64");
  }

  // The type of `b`'s flat indices: int32 when every physical extent, the element offset and
  // each stride term provably fit in int32 (from constants and the loop bounds in scope), else
  // int64 (docs/passes.md, "flatten"): n * n for a symbolic (n, n) buffer may not, and an
  // int32 flat index would wrap for n > 46340. Decided once per buffer.
  DataType indexTypeOf(const BufferNode &b) {
    auto known = indexTypes_.find(&b);
    if (known != indexTypes_.end())
      return known->second;
    DataType type = decideIndexType(b);
    indexTypes_.emplace(&b, type);
    return type;
  }

  DataType decideIndexType(const BufferNode &b) {
    checkConstantExtents(b);
    const DataType wide = DataType::int64();
    auto isWide = [&](const Expr &e) { return e && e->type == wide; };
    if (std::any_of(b.shape.begin(), b.shape.end(), isWide) ||
        std::any_of(b.strides.begin(), b.strides.end(), isWide) || isWide(b.elemOffset))
      return wide;
    if (std::optional<DataType> type = constantIndexType(b))
      return *type;
    return locatedAt(b.loc, [&] {
      Expr offset = isZero(b.elemOffset) ? Expr() : castTo(b.elemOffset, wide);
      for (auto [begin, end] : axisGroups(b)) {
        Expr extent = indexConst(1, wide);
        for (size_t k = begin; k < end; ++k) {
          Expr axis = castTo(b.shape[k], wide);
          if (!b.strides.empty()) {
            Expr term = axis * castTo(b.strides[k], wide);
            if (!fitsInt32(analyzer_, term))
              return wide;
            extent = extent + term;
          } else {
            extent = extent * axis;
          }
        }
        if (offset)
          extent = extent + offset;
        offset = Expr(); // only the first physical axis carries it
        if (!fitsInt32(analyzer_, extent))
          return wide;
      }
      return DataType::int32();
    });
  }

  std::vector<Expr> flatIndices(const BufferNode &b, const std::vector<Expr> &indices) {
    if (isFlat(b))
      return indices;
    DataType type = indexTypeOf(b);
    std::vector<Expr> out;
    for (auto [begin, end] : axisGroups(b)) {
      if (Expr sum = constantStrideSum(b, indices, begin, end, type)) {
        out.push_back(sum);
        continue;
      }
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

  // Axes [begin, end) of a buffer with a constant shape and no strides, scalar indices: the
  // sum of index * stride, strides as constants (`c // 4 * 1024 + h * 64 + w * 4 + c % 4`),
  // which is what the simplifier makes of the row-major nest (((0 * 8 + c // 4) * 16 + h) * 16
  // + w) * 4 + c % 4 at a fraction of the work; null when it does not apply. The strides fit
  // `type`: the group's extent does (indexTypeOf).
  Expr constantStrideSum(const BufferNode &b, const std::vector<Expr> &indices, size_t begin, size_t end,
                         DataType type) const {
    if (!b.strides.empty() || begin == end)
      return nullptr;
    for (size_t k = begin; k < end; ++k)
      if (!asConstInt(b.shape[k]) || !indices[k]->type.isScalar())
        return nullptr;
    std::vector<int64_t> strides(end - begin, 1);
    for (size_t k = end - 1; k > begin; --k) {
      std::optional<int64_t> next = checkedMul(strides[k - begin], *asConstInt(b.shape[k]));
      if (!next)
        return nullptr;
      strides[k - 1 - begin] = *next;
    }
    Expr sum;
    for (size_t k = begin; k < end; ++k) {
      const int64_t *v = asConstInt(indices[k]);
      if (v && *v == 0)
        continue;
      Expr index = castTo(indices[k], type);
      Expr term = strides[k - begin] == 1 ? index : index * indexConst(strides[k - begin], type);
      sum = sum ? sum + term : term;
    }
    return sum ? sum : indexConst(0, type);
  }

  bool isParamBuffer(const BufferNode *b) const {
    for (const BufferBinding &binding : func_.bufferMap)
      if (binding.buffer.get() == b)
        return true;
    return false;
  }

  const std::unordered_map<const BufferNode *, Buffer> &flattenedBuffers() const { return flat_; }

protected:
  using BoundMutator::visit;

  Buffer mutateBuffer(const Buffer &buffer) override { return flattened(buffer); }

  Expr visit(const BufferLoadNode *op) override {
    std::vector<Expr> indices;
    bool changed = mutateChanged(op->indices, indices);
    Buffer buffer = flattened(op->buffer);
    if (buffer == op->buffer && !changed)
      return Expr(op);
    return BufferLoadNode::make(buffer, flatIndices(*op->buffer, changed ? indices : op->indices), op->loc);
  }

  Stmt visit(const BufferStoreNode *op) override {
    std::vector<Expr> indices;
    bool changed = mutateChanged(op->indices, indices);
    Expr value = mutate(op->value);
    Buffer buffer = flattened(op->buffer);
    if (buffer == op->buffer && !changed && value == op->value)
      return Stmt(op);
    return BufferStoreNode::make(buffer, value, flatIndices(*op->buffer, changed ? indices : op->indices), op->loc);
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
      extents.push_back(locatedAt(op->loc, [&] {
        // One extent in the extents' type, or int64 when their product may not fit in int32.
        DataType type = alloc->extents.front()->type;
        Expr exact = indexConst(1, DataType::int64());
        for (const Expr &e : alloc->extents)
          exact = exact * castTo(e, DataType::int64());
        if (type != DataType::int64() && !fitsInt32(analyzer_, exact))
          type = DataType::int64();
        Expr total = indexConst(1, type);
        for (const Expr &e : alloc->extents)
          total = total * castTo(e, type);
        return analyzer_.simplify(total);
      }));
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
  std::unordered_map<const BufferNode *, DataType> indexTypes_;
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

class FlattenPass : public FunctionPass {
public:
  std::optional<PrimFunc> runOnFunction(PrimFunc func, PassContext &ctx) override {
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
    return flattenFunction(func);
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
