#include "codegen/opencl/kernel_census.h"

#include <algorithm>
#include <unordered_map>

#include "codegen/source_names.h"
#include "ir/diagnostic.h"
#include "ir/storage_scope.h"
#include "ir/thread_extents.h"
#include "ir/visitor.h"

namespace tirlower {

namespace {

class CensusVisitor : public IRVisitor {
public:
  explicit CensusVisitor(KernelCensus &census) : census_(census) {}
  using IRVisitor::visit;

protected:
  void visitBuffer(const Buffer &b) override { census_.hasTexture |= isTextureBuffer(*b); }
  void visit(const AssertStmtNode *op) override {
    census_.assertMessages.push_back(op->message);
    IRVisitor::visit(op);
  }

private:
  KernelCensus &census_;
};

// The launch geometry of the function's thread bindings (in the order a walk meets them, so the
// first binding that cannot be launched is the one reported); a virtual thread of an extent
// other than 1 is an error there too.
void measureThreads(KernelCensus &census, const PrimFuncNode &func) {
  LaunchGeometry geometry;
  for (const ThreadBinding &b : threadExtentCensus(func.body).bindings) {
    if (b.form == ThreadBinding::Form::VirtualThread) {
      if (const int64_t *extent = asConstInt(b.extent); !(extent && *extent == 1))
        throw CompileError(b.loc, "OpenCL emitter: virtual thread '" + b.tag.str() +
                                      "' has an extent other than 1; virtual threads are not lowered (only an "
                                      "extent of 1, which names index 0, is supported)");
      continue;
    }
    addThreadBinding(geometry, func, b.tag.view(), b.extent, b.loc);
    if (!geometry.error.empty())
      throw CompileError(b.loc, "OpenCL emitter: " + geometry.error);
  }
  census.groups = geometry.groups;
  census.local = geometry.local;
  census.symbolicGroups = geometry.symbolicGroups;
}

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
  if (!hasTextureScope(buffer) || buffer.shape.size() != 2 || buffer.axisSeparators != std::vector<int>{1})
    return false;
  if (buffer.dtype == DataType::float32(4))
    return true;
  return buffer.dtype == DataType::float32() && isMultipleOf4(buffer.shape[1]);
}

bool isTextureParam(const BufferNode &buffer) {
  return hasTextureScope(buffer) && buffer.physicalRank() == 2;
}

namespace {

// The outermost thread launches (or thread-bound loops) of a function are, for TVM and the
// interpreter, kernels launched one after another; OpenCL runs them as one kernel, each
// work-item going through them in turn. That is the same unless a later one touches data an
// earlier one wrote (another work-item may not have written it yet): with one work-group a
// barrier before the later one makes it so; with several it is an error.
class KernelRegions : public IRVisitor {
public:
  KernelRegions(KernelCensus &census, bool oneGroup) : census_(census), oneGroup_(oneGroup) {}
  using IRVisitor::visit;
  void visit(const AttrStmtNode *op) override {
    if (op->isThreadLaunch())
      return region(op, [&] { IRVisitor::visit(op); });
    IRVisitor::visit(op);
  }
  void visit(const ForNode *op) override {
    if (op->forKind == ForKind::ThreadBinding)
      return region(op, [&] { IRVisitor::visit(op); });
    IRVisitor::visit(op);
  }
  void visit(const BufferLoadNode *op) override {
    touch(op->buffer, false, op->loc);
    IRVisitor::visit(op);
  }
  void visit(const BufferStoreNode *op) override {
    touch(op->buffer, true, op->loc);
    IRVisitor::visit(op);
  }

private:
  template <typename F> void region(const StmtNode *op, F body) {
    if (depth_++ == 0) {
      current_ = op;
      ++count_;
    }
    body();
    --depth_;
  }
  void touch(const Buffer &buffer, bool write, SourceRange loc) {
    if (depth_ == 0)
      return;
    auto it = writers_.find(buffer->data.get());
    if (it != writers_.end() && it->second.kernel != count_ && oneGroup_) {
      census_.barrierBefore.insert(current_);
      it->second.kernel = count_;
    } else if (it != writers_.end() && it->second.kernel != count_) {
      Diagnostic d{Severity::Error,
                   loc,
                   "OpenCL emitter: buffer " + quotedBufferName(*buffer) +
                       " is written by one kernel of this function and " + (write ? "written" : "read") +
                       " by a later one; OpenCL runs a function's kernels as one, and no barrier orders "
                       "work-groups: split the function in two",
                   {}};
      d.note(it->second.loc, "the earlier kernel's write");
      throw CompileError(d);
    }
    if (write && it == writers_.end())
      writers_[buffer->data.get()] = {count_, loc};
  }
  struct Writer {
    int kernel;
    SourceRange loc;
  };
  KernelCensus &census_;
  bool oneGroup_;
  std::unordered_map<const VarNode *, Writer> writers_;
  const StmtNode *current_ = nullptr;
  int depth_ = 0, count_ = 0;
};

} // namespace

KernelCensus takeCensus(const PrimFuncNode &func) {
  KernelCensus census;
  measureThreads(census, func);
  CensusVisitor visitor(census);
  visitor.visit(func.body);
  bool symbolic = census.symbolicGroups[0] || census.symbolicGroups[1] || census.symbolicGroups[2];
  KernelRegions regions(census, !symbolic && census.groups == std::array<int64_t, 3>{1, 1, 1});
  regions.visit(func.body);
  for (const BufferBinding &binding : func.bufferMap)
    census.hasTexture |= isTextureParam(*binding.buffer);
  return census;
}

} // namespace tirlower
