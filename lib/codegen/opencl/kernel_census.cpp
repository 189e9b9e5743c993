#include "codegen/opencl/kernel_census.h"

#include <algorithm>

#include "ir/diagnostic.h"
#include "ir/visitor.h"

namespace tirlower {

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
    if (op->key.view() == "thread_extent")
      bind(op->threadTag.view(), op->value, op->loc);
    if (const int64_t *extent = asConstInt(op->value); op->key.view() == "virtual_thread" && !(extent && *extent == 1))
      throw CompileError(op->loc, "OpenCL emitter: virtual thread '" + op->threadTag.str() +
                                      "' has an extent other than 1; virtual threads are not lowered (only an "
                                      "extent of 1, which names index 0, is supported)");
    IRVisitor::visit(op);
  }
  void visit(const AssertStmtNode *op) override {
    census_.assertMessages.push_back(op->message);
    IRVisitor::visit(op);
  }

private:
  void bind(std::string_view tag, const Expr &extent, SourceRange where) {
    LaunchGeometry geometry;
    geometry.groups = census_.groups;
    geometry.local = census_.local;
    addThreadBinding(geometry, tag, extent, where);
    if (!geometry.error.empty())
      throw CompileError(where, "OpenCL emitter: " + geometry.error);
    census_.groups = geometry.groups;
    census_.local = geometry.local;
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
