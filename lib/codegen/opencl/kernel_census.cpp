#include "codegen/opencl/kernel_census.h"

#include <algorithm>

#include "ir/diagnostic.h"
#include "ir/visitor.h"

namespace tirlower {

std::optional<ThreadAxis> parseThreadTag(std::string_view tag) {
  bool block = tag.rfind("blockIdx.", 0) == 0;
  bool thread = tag.rfind("threadIdx.", 0) == 0;
  if (!block && !thread)
    return std::nullopt;
  std::string_view axis = tag.substr(block ? 9 : 10);
  if (axis.size() != 1 || axis[0] < 'x' || axis[0] > 'z')
    return std::nullopt;
  return ThreadAxis{block, axis[0] - 'x'};
}

namespace {

bool isTextureScope(const BufferNode &buffer) {
  return buffer.scope.view() == "global.texture";
}

class CensusVisitor : public IRVisitor {
public:
  explicit CensusVisitor(KernelCensus &census) : census_(census) {}
  using IRVisitor::visit;

protected:
  void visit(const VarNode *op) override { census_.used.insert(op); }
  void visitBuffer(const Buffer &b) override {
    census_.used.insert(b->data.get());
    census_.hasTexture |= isTextureBuffer(*b);
    for (const Expr &e : b->shape)
      IRVisitor::visit(e);
    for (const Expr &e : b->strides)
      IRVisitor::visit(e);
    if (b->elemOffset)
      IRVisitor::visit(b->elemOffset);
  }
  void visit(const BufferLoadNode *op) override {
    census_.read.insert(op->buffer->data.get());
    IRVisitor::visit(op);
  }
  void visit(const BufferStoreNode *op) override {
    census_.written.insert(op->buffer->data.get());
    IRVisitor::visit(op);
  }
  void visit(const ForNode *op) override {
    if (op->forKind == ForKind::ThreadBinding)
      bind(op->threadTag.view(), op->extent, op->loc);
    IRVisitor::visit(op);
  }
  void visit(const AttrStmtNode *op) override {
    if (const auto *var = op->node.as<VarNode>(); var && op->key.view() == "thread_extent")
      bind(var->name.view(), op->value, op->loc);
    IRVisitor::visit(op);
  }
  void visit(const AssertStmtNode *op) override {
    census_.assertMessages.push_back(op->message);
    IRVisitor::visit(op);
  }

private:
  void bind(std::string_view tag, const Expr &extent, SourceRange where) {
    std::optional<ThreadAxis> axis = parseThreadTag(tag);
    if (!axis)
      throw CompileError(where, "OpenCL emitter: unknown thread tag '" + std::string(tag) +
                                    "' (expected blockIdx.x|y|z or threadIdx.x|y|z)");
    const int64_t *value = asConstInt(extent);
    if (!value || *value < 1)
      throw CompileError(where, "OpenCL emitter: the extent of the loop bound to '" + std::string(tag) +
                                    "' must be a positive constant to give a launch geometry");
    int64_t &slot = axis->isBlock ? census_.groups[axis->dim] : census_.local[axis->dim];
    slot = std::max(slot, *value);
  }

  KernelCensus &census_;
};

} // namespace

bool isMultipleOf4(const Expr &e) {
  if (const int64_t *v = asConstInt(e))
    return *v % 4 == 0;
  const auto *b = e.as<BinaryNode>();
  if (b && b->op == BinaryOp::Mul)
    return isMultipleOf4(b->a) || isMultipleOf4(b->b);
  if (b && (b->op == BinaryOp::Add || b->op == BinaryOp::Sub))
    return isMultipleOf4(b->a) && isMultipleOf4(b->b);
  return false;
}

bool isTextureBuffer(const BufferNode &buffer) {
  if (!isTextureScope(buffer) || buffer.shape.size() != 2 || buffer.axisSeparators != std::vector<int>{1})
    return false;
  if (buffer.dtype == DataType::float32(4))
    return true;
  return buffer.dtype == DataType::float32() && isMultipleOf4(buffer.shape[1]);
}

bool isTextureParam(const BufferNode &buffer) {
  return isTextureScope(buffer) && buffer.physicalRank() == 2;
}

KernelCensus takeCensus(const PrimFuncNode &func) {
  KernelCensus census;
  CensusVisitor visitor(census);
  visitor.visit(func.body);
  for (const BufferBinding &binding : func.bufferMap)
    census.hasTexture |= isTextureParam(*binding.buffer);
  return census;
}

} // namespace tirlower
