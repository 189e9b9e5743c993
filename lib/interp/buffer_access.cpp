// Buffer reads and writes. An access resolves the buffer's layout, checks every index against
// its extent (RunOptions::checkLogicalBounds) and the element against the storage, checks
// reads for uninitialised bytes, and converts between bytes and cells. Under the lanes rule an
// M-lane dtype read with an N-lane last index yields N*M lanes: lane n*M+m is scalar m of the
// element at index lane n.
#include <cstring>
#include <sstream>

#include "interp/buffer_layout.h"
#include "interp/kernel.h"

namespace tirlower {
namespace {

class Access {
public:
  Access(Compiler &compiler, const Buffer &buffer, const std::vector<Expr> &indices, SourceRange loc, bool isStore)
      : buffer_(buffer), layout_(compiler, *buffer, loc), scalarType_(buffer->dtype.element()),
        elemLanes_(buffer->dtype.lanes()), laneBytes_(buffer->dtype.laneBytes()), elemBytes_(laneBytes_ * elemLanes_),
        isStore_(isStore), loc_(loc), current_(indices.size()) {
    format_ = scalarFormat(scalarType_); // rejects types the interpreter cannot store
    if (!compiler.isBound(buffer->data.get()))
      throw CompileError(loc, "the data of buffer '" + buffer->name.str() + "' (variable '" + buffer->data->name.str() +
                                  "') is not defined here");
    dataSlot_ = compiler.slotOf(buffer->data.get(), loc);
    for (const Expr &index : indices) {
      const VarNode *v = index.as<VarNode>();
      indexSlots_.push_back(v && v->type.isScalar() ? compiler.slotOf(v, loc) : -1);
      indices_.push_back(compiler.expr(index));
    }
    indexLanes_ = indices_.empty() ? 1 : indices_.back()->lanes;
    lastIndex_ = Scratch(indexLanes_);
  }

  int elemLanes() const { return elemLanes_; }
  DataType scalarType() const { return scalarType_; }
  ScalarFormat format() const { return format_; }
  int laneBytes() const { return laneBytes_; }

  // The element addressed by scalar indices.
  uint8_t *locateScalar(Frame &frame) const {
    const BufferLayout::Resolved r = layout_.resolve(frame);
    uint64_t offset = static_cast<uint64_t>(r.offset);
    for (size_t k = 0; k < indices_.size(); ++k) {
      const int64_t i = scalarIndex(frame, k);
      current_[k] = i;
      if (frame.checkLogicalBounds && (i < 0 || i >= r.extents[k]))
        outOfBounds(k, r.extents[k]);
      offset += static_cast<uint64_t>(i) * static_cast<uint64_t>(r.strides[k]);
    }
    return checkedPointer(frame, static_cast<int64_t>(offset));
  }

  // Calls visit(lane, pointer) for each lane of a vector last index, in lane order.
  template <typename Visit> void forEachElement(Frame &frame, Visit &&visit) const {
    const BufferLayout::Resolved r = layout_.resolve(frame);
    uint64_t offset = static_cast<uint64_t>(r.offset);
    const size_t last = indices_.size() - 1;
    for (size_t k = 0; k < last; ++k) {
      const int64_t i = scalarIndex(frame, k);
      current_[k] = i;
      if (frame.checkLogicalBounds && (i < 0 || i >= r.extents[k]))
        outOfBounds(k, r.extents[k]);
      offset += static_cast<uint64_t>(i) * static_cast<uint64_t>(r.strides[k]);
    }
    Cell *lastIndex = lastIndex_.data();
    indices_[last]->eval(frame, lastIndex);
    for (int n = 0; n < indexLanes_; ++n) {
      const int64_t i = lastIndex[n].i;
      current_[last] = i;
      if (frame.checkLogicalBounds && (i < 0 || i >= r.extents[last]))
        outOfBounds(last, r.extents[last]);
      const uint64_t laneOffset = offset + static_cast<uint64_t>(i) * static_cast<uint64_t>(r.strides[last]);
      visit(n, checkedPointer(frame, static_cast<int64_t>(laneOffset)));
    }
  }

  bool hasVectorIndex() const { return indexLanes_ > 1; }

  // Marks the element at `element` (a pointer locateScalar gave) uninitialised again.
  void forget(Frame &frame, const uint8_t *element) const {
    BufferData *storage = frame.env[dataSlot_].p;
    std::memset(storage->initMap() + (element - storage->bytes()), 0, static_cast<size_t>(elemBytes_));
  }

private:
  // A plain variable index is read from its slot directly: most indices are loop variables.
  int64_t scalarIndex(Frame &frame, size_t k) const {
    const int slot = indexSlots_[k];
    return slot >= 0 ? frame.env[static_cast<size_t>(slot)].i : indices_[k]->scalar(frame).i;
  }

  static bool allInitialized(const uint8_t *init, int count) {
    if (count == 4) {
      uint32_t word;
      std::memcpy(&word, init, 4);
      return word == 0x01010101u;
    }
    for (int b = 0; b < count; ++b)
      if (!init[b])
        return false;
    return true;
  }

  uint8_t *checkedPointer(Frame &frame, int64_t offset) const {
    BufferData *storage = frame.env[dataSlot_].p;
    const uint64_t capacity = storage->byteSize() / static_cast<uint64_t>(elemBytes_);
    if (offset < 0 || static_cast<uint64_t>(offset) >= capacity)
      runtimeError(loc_, std::string("out-of-bounds ") + (isStore_ ? "write" : "read") + " of buffer '" +
                             buffer_->name.str() + "' at " + accessText() + ": element offset " +
                             std::to_string(offset) + " is outside its storage of " + std::to_string(capacity) +
                             " elements of " + buffer_->dtype.str());
    const size_t byteOffset = static_cast<size_t>(offset) * static_cast<size_t>(elemBytes_);
    if (storage->raceLog) [[unlikely]]
      checkRace(frame, *storage, byteOffset, static_cast<size_t>(elemBytes_), isStore_, loc_, buffer_->name);
    uint8_t *init = storage->initMap() + byteOffset;
    if (isStore_) {
      std::memset(init, 1, static_cast<size_t>(elemBytes_));
    } else if (frame.checkUninitialized && !allInitialized(init, elemBytes_)) {
      if (frame.undefinedAllowed) { // a value in a kernel with warp collectives (kernel.h)
        frame.undefinedSeen = true;
        return storage->bytes() + byteOffset;
      }
      runtimeError(loc_, "read of uninitialised memory: buffer '" + buffer_->name.str() + "' at " + accessText() +
                             " (element offset " + std::to_string(offset) + ")" +
                             (storage->raceLog ? "; in shared storage another thread may be meant to write it first, "
                                                 "which needs a barrier (T.tvm_storage_sync(\"shared\")) in between"
                                               : ""));
    }
    return storage->bytes() + byteOffset;
  }

  [[noreturn]] void outOfBounds(size_t dim, int64_t extent) const {
    runtimeError(loc_, std::string("out-of-bounds ") + (isStore_ ? "write" : "read") + " of buffer '" +
                           buffer_->name.str() + "': index " + std::to_string(current_[dim]) + " is outside [0, " +
                           std::to_string(extent) + ") in dimension " + std::to_string(dim) + " (access " +
                           buffer_->name.str() + accessText(dim + 1) + ")");
  }

  // "[3, 2]"; with `known` < rank, the indices not computed yet are shown as "_".
  std::string accessText(size_t known = SIZE_MAX) const {
    std::ostringstream out;
    out << '[';
    for (size_t k = 0; k < current_.size(); ++k) {
      if (k)
        out << ", ";
      if (k < known)
        out << current_[k];
      else
        out << '_';
    }
    out << ']';
    return out.str();
  }

  Buffer buffer_;
  BufferLayout layout_;
  DataType scalarType_;
  int elemLanes_, laneBytes_, elemBytes_;
  bool isStore_;
  SourceRange loc_;
  ScalarFormat format_;
  int dataSlot_ = 0;
  std::vector<int> indexSlots_;
  int indexLanes_ = 1;
  std::vector<ExprCodePtr> indices_;
  mutable std::vector<int64_t> current_;
  Scratch lastIndex_;
};

class LoadCode : public ExprCode {
public:
  LoadCode(DataType type, SourceRange loc, std::unique_ptr<Access> access)
      : ExprCode(type, loc), access_(std::move(access)) {}
  Cell scalar(Frame &frame) const override { return loadFormat(access_->locateScalar(frame), access_->format()); }
  void eval(Frame &frame, Cell *out) const override {
    const int m = access_->elemLanes();
    if (!access_->hasVectorIndex())
      return readElement(access_->locateScalar(frame), out, m);
    access_->forEachElement(frame, [&](int n, const uint8_t *p) { readElement(p, out + n * m, m); });
  }

private:
  void readElement(const uint8_t *p, Cell *out, int count) const {
    for (int m = 0; m < count; ++m)
      out[m] = loadFormat(p + m * access_->laneBytes(), access_->format());
  }

  std::unique_ptr<Access> access_;
};

// The value is computed before the indices, as in `A[i] = v` compiled by C.
class StoreCode : public StmtCode {
public:
  StoreCode(SourceRange loc, ExprCodePtr value, std::unique_ptr<Access> access)
      : StmtCode(loc), value_(std::move(value)), access_(std::move(access)), values_(value_->lanes) {}
  void exec(Frame &frame) const override {
    if (value_->lanes == 1) {
      const Cell v = value_->scalar(frame);
      storeFormat(access_->locateScalar(frame), access_->format(), v);
      return;
    }
    Cell *values = values_.data();
    value_->eval(frame, values);
    const int m = access_->elemLanes();
    if (!access_->hasVectorIndex())
      return writeElement(access_->locateScalar(frame), values, m);
    access_->forEachElement(frame, [&](int n, uint8_t *p) { writeElement(p, values + n * m, m); });
  }

private:
  void writeElement(uint8_t *p, const Cell *values, int count) const {
    for (int m = 0; m < count; ++m)
      storeFormat(p + m * access_->laneBytes(), access_->format(), values[m]);
  }

  ExprCodePtr value_;
  std::unique_ptr<Access> access_;
  Scratch values_;
};

// A scalar store to local storage in a kernel with warp collectives: the value may be undefined
// (kernel.h), and the element is then left uninitialised.
class ToleratingStoreCode : public StmtCode {
public:
  ToleratingStoreCode(SourceRange loc, ExprCodePtr value, std::unique_ptr<Access> access)
      : StmtCode(loc), value_(std::move(value)), access_(std::move(access)) {}
  void exec(Frame &frame) const override {
    frame.undefinedAllowed = true;
    frame.undefinedSeen = false;
    const Cell v = value_->scalar(frame);
    frame.undefinedAllowed = false;
    uint8_t *element = access_->locateScalar(frame);
    storeFormat(element, access_->format(), v);
    if (frame.undefinedSeen) {
      access_->forget(frame, element);
      frame.undefinedSeen = false;
    }
  }

private:
  ExprCodePtr value_;
  std::unique_ptr<Access> access_;
};

} // namespace

ExprCodePtr makeLoadCode(Compiler &compiler, const BufferLoadNode &load) {
  auto access = std::make_unique<Access>(compiler, load.buffer, load.indices, load.loc, false);
  return std::make_unique<LoadCode>(load.type, load.loc, std::move(access));
}

StmtCodePtr makeStoreCode(Compiler &compiler, const BufferStoreNode &store, bool undefinedTolerated) {
  ExprCodePtr value = compiler.expr(store.value);
  auto access = std::make_unique<Access>(compiler, store.buffer, store.indices, store.loc, true);
  if (undefinedTolerated)
    return std::make_unique<ToleratingStoreCode>(store.loc, std::move(value), std::move(access));
  return std::make_unique<StoreCode>(store.loc, std::move(value), std::move(access));
}

} // namespace tirlower
