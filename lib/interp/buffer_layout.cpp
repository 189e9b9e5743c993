#include "interp/buffer_layout.h"

namespace tirlower {

BufferLayout::BufferLayout(Compiler &compiler, const BufferNode &buffer, SourceRange use)
    : buffer_(buffer), rank_(buffer.rank()), rowMajor_(buffer.strides.empty()), extents_(rank_), strides_(rank_),
      dynExtents_(rank_), dynStrides_(rank_) {
  auto compileIndex = [&](const Expr &e) {
    if (!e->type.isIndex())
      throw CompileError(use, "buffer '" + buffer.name.str() + "' has a non-integer extent, stride or offset");
    return compiler.expr(e);
  };
  for (size_t k = 0; k < rank_; ++k) {
    const int64_t *c = asConstInt(buffer.shape[k]);
    extentCode_.push_back(c ? nullptr : compileIndex(buffer.shape[k]));
    extents_[k] = c ? *c : 0;
    dynamic_ |= !c;
    if (!rowMajor_) {
      const int64_t *s = asConstInt(buffer.strides[k]);
      strideCode_.push_back(s ? nullptr : compileIndex(buffer.strides[k]));
      strides_[k] = s ? *s : 0;
      dynamic_ |= !s;
    }
  }
  if (buffer.elemOffset) {
    const int64_t *c = asConstInt(buffer.elemOffset);
    offsetCode_ = c ? nullptr : compileIndex(buffer.elemOffset);
    offset_ = c ? *c : 0;
    dynamic_ |= !c;
  }
  if (rowMajor_ && !dynamic_)
    computeRowMajorStrides(strides_.data(), extents_.data());
  for (size_t k = 0; k < rank_ && !dynamic_; ++k)
    if (extents_[k] < 0)
      throw CompileError(use, "buffer '" + buffer.name.str() + "' has negative extent " + std::to_string(extents_[k]) +
                                  " in dimension " + std::to_string(k));
}

void BufferLayout::computeRowMajorStrides(int64_t *strides, const int64_t *extents) const {
  uint64_t stride = 1;
  for (size_t k = rank_; k-- > 0;) {
    strides[k] = static_cast<int64_t>(stride);
    stride *= static_cast<uint64_t>(extents[k]);
  }
}

BufferLayout::Resolved BufferLayout::resolveDynamic(Frame &frame) const {
  int64_t *extents = dynExtents_.data(), *strides = dynStrides_.data();
  for (size_t k = 0; k < rank_; ++k) {
    extents[k] = extentCode_[k] ? extentCode_[k]->scalar(frame).i : extents_[k];
    if (extents[k] < 0)
      runtimeError(buffer_.loc, "buffer '" + buffer_.name.str() + "' has negative extent " +
                                    std::to_string(extents[k]) + " in dimension " + std::to_string(k));
    if (!rowMajor_)
      strides[k] = strideCode_[k] ? strideCode_[k]->scalar(frame).i : strides_[k];
  }
  if (rowMajor_)
    computeRowMajorStrides(strides, extents);
  return {extents, strides, offsetCode_ ? offsetCode_->scalar(frame).i : offset_};
}

uint64_t BufferLayout::requiredScalars(Frame &frame) const {
  const Resolved r = resolve(frame);
  if (r.offset < 0)
    runtimeError(buffer_.loc,
                 "buffer '" + buffer_.name.str() + "' has negative elem_offset " + std::to_string(r.offset));
  // The largest element offset plus one; an empty view needs nothing beyond its offset.
  __int128 last = r.offset;
  for (size_t k = 0; k < rank_; ++k) {
    if (r.extents[k] == 0)
      return static_cast<uint64_t>(r.offset) * static_cast<uint64_t>(buffer_.dtype.lanes());
    if (r.strides[k] > 0)
      last += static_cast<__int128>(r.extents[k] - 1) * r.strides[k];
  }
  const __int128 scalars = (last + 1) * buffer_.dtype.lanes();
  if (scalars > static_cast<__int128>(INT64_MAX))
    runtimeError(buffer_.loc, "buffer '" + buffer_.name.str() + "' is too large");
  return static_cast<uint64_t>(scalars);
}

} // namespace tirlower
