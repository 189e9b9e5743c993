// A buffer's addressing at run time: extents, strides and elem_offset, in elements of the
// buffer's dtype. Constant layouts are folded when compiled; symbolic ones are evaluated at
// each use (variables are immutable in their scope, so that equals evaluating them once).
// Every buffer, with or without axis_separators, is addressed row-major over its logical
// shape: the physical multi-dimensional index of a buffer with separators linearises to the
// same flat offset, because all physical axes live in one allocation.
#pragma once

#include <cstdint>
#include <vector>

#include "interp/compiler.h"

namespace tirlower {

class BufferLayout {
public:
  BufferLayout(Compiler &compiler, const BufferNode &buffer, SourceRange use);

  struct Resolved {
    const int64_t *extents;
    const int64_t *strides;
    int64_t offset;
  };
  Resolved resolve(Frame &frame) const {
    if (!dynamic_)
      return {extents_.data(), strides_.data(), offset_};
    return resolveDynamic(frame);
  }

  // Scalar elements (of the dtype's element type) a storage needs to hold the view.
  uint64_t requiredScalars(Frame &frame) const;
  size_t rank() const { return rank_; }

private:
  Resolved resolveDynamic(Frame &frame) const;
  void computeRowMajorStrides(int64_t *strides, const int64_t *extents) const;

  const BufferNode &buffer_;
  size_t rank_;
  bool dynamic_ = false;
  bool rowMajor_;
  std::vector<int64_t> extents_, strides_;
  int64_t offset_ = 0;
  std::vector<ExprCodePtr> extentCode_, strideCode_;
  ExprCodePtr offsetCode_;
  mutable std::vector<int64_t> dynExtents_, dynStrides_;
};

} // namespace tirlower
