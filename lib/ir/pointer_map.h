// A hash map from node pointers to values in one open-addressing array: no allocation per
// entry (the analyzer's memo tables take an entry for every expression they see, and a node
// per entry in std::unordered_map was a fifth of the lowering pipeline's allocations). The
// first InlineSlots slots live in the map itself, so a small query allocates nothing.
// Pointers into the table are invalidated by the next insertion or erasure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>

namespace tirlower {

template <typename Key, typename Value, size_t InlineSlots = 16> class PointerMap {
  static_assert((InlineSlots & (InlineSlots - 1)) == 0, "a power of two");

public:
  PointerMap() = default;
  // slots_ may point into the object itself: copies and moves take the entries, slot by slot
  // (same capacity, so same places) or by taking over the heap array.
  PointerMap(const PointerMap &other) { copyFrom(other); }
  PointerMap(PointerMap &&other) noexcept { moveFrom(std::move(other)); }
  PointerMap &operator=(const PointerMap &other) {
    if (this != &other) {
      clear();
      copyFrom(other);
    }
    return *this;
  }
  PointerMap &operator=(PointerMap &&other) noexcept {
    if (this != &other) {
      clear();
      moveFrom(std::move(other));
    }
    return *this;
  }
  // Only occupied slots hold a value: an analyzer query makes two maps and most queries fill a
  // few slots, so constructing and destroying every slot's value was a cost of its own.
  ~PointerMap() { destroyValues(slots_, capacity_); }

  const Value *find(const Key *key) const {
    for (size_t k = slotOf(key);; k = (k + 1) & (capacity_ - 1)) {
      const Slot &slot = slots_[k];
      if (slot.key == key)
        return slot.value();
      if (slot.key == nullptr)
        return nullptr;
    }
  }
  Value *find(const Key *key) { return const_cast<Value *>(std::as_const(*this).find(key)); }

  // Adds `value` under `key` unless the key is present already.
  void insert(const Key *key, Value value) {
    if (2 * (size_ + 1) > capacity_)
      grow();
    size_t k = slotOf(key);
    while (slots_[k].key != nullptr) {
      if (slots_[k].key == key)
        return;
      k = (k + 1) & (capacity_ - 1);
    }
    ::new (slots_[k].storage) Value(std::move(value));
    slots_[k].key = key;
    ++size_;
  }

  // The value under `key`, added as Value() when the key is absent.
  Value &operator[](const Key *key) {
    if (Value *found = find(key))
      return *found;
    insert(key, Value());
    return *find(key);
  }

  // Removes `key`'s entry, if any. Linear probing without tombstones: the entries after the
  // hole that could have probed through it move back into it.
  void erase(const Key *key) {
    const size_t mask = capacity_ - 1;
    size_t hole = slotOf(key);
    while (slots_[hole].key != key) {
      if (slots_[hole].key == nullptr)
        return;
      hole = (hole + 1) & mask;
    }
    slots_[hole].value()->~Value();
    slots_[hole].key = nullptr;
    --size_;
    for (size_t k = (hole + 1) & mask; slots_[k].key != nullptr; k = (k + 1) & mask) {
      // An entry whose home slot lies at or before the hole (cyclically, on its way to k) would
      // no longer be found past the hole: move it into the hole.
      size_t home = slotOf(slots_[k].key);
      if (((k - home) & mask) < ((k - hole) & mask))
        continue;
      ::new (slots_[hole].storage) Value(std::move(*slots_[k].value()));
      slots_[hole].key = slots_[k].key;
      slots_[k].value()->~Value();
      slots_[k].key = nullptr;
      hole = k;
    }
  }

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

private:
  struct Slot {
    const Key *key = nullptr;
    alignas(Value) unsigned char storage[sizeof(Value)];
    Value *value() { return std::launder(reinterpret_cast<Value *>(storage)); }
    const Value *value() const { return std::launder(reinterpret_cast<const Value *>(storage)); }
  };

  size_t slotOf(const Key *key) const { return slotOf(key, capacity_); }
  static size_t slotOf(const Key *key, size_t capacity) {
    auto bits = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(key));
    bits *= 0x9e3779b97f4a7c15ULL; // Fibonacci hashing: node addresses differ in their middle bits
    return static_cast<size_t>(bits >> 32) & (capacity - 1);
  }

  // Empty, back in the inline slots.
  void clear() {
    destroyValues(slots_, capacity_);
    for (size_t k = 0; k < capacity_; ++k)
      slots_[k].key = nullptr;
    heap_.reset();
    slots_ = inline_;
    capacity_ = InlineSlots;
    size_ = 0;
  }

  void copyFrom(const PointerMap &other) {
    if (other.capacity_ > InlineSlots) {
      heap_.reset(new Slot[other.capacity_]);
      slots_ = heap_.get();
    }
    capacity_ = other.capacity_;
    for (size_t k = 0; k < capacity_; ++k)
      if (other.slots_[k].key != nullptr) {
        ::new (slots_[k].storage) Value(*other.slots_[k].value());
        slots_[k].key = other.slots_[k].key;
      }
    size_ = other.size_;
  }

  void moveFrom(PointerMap &&other) {
    if (other.heap_) {
      heap_ = std::move(other.heap_);
      slots_ = heap_.get();
      capacity_ = other.capacity_;
      size_ = other.size_;
    } else {
      for (size_t k = 0; k < InlineSlots; ++k)
        if (other.inline_[k].key != nullptr) {
          ::new (inline_[k].storage) Value(std::move(*other.inline_[k].value()));
          inline_[k].key = other.inline_[k].key;
          other.inline_[k].value()->~Value();
          other.inline_[k].key = nullptr;
        }
      size_ = other.size_;
    }
    other.slots_ = other.inline_;
    other.capacity_ = InlineSlots;
    other.size_ = 0;
  }

  static void destroyValues(Slot *slots, size_t capacity) {
    for (size_t k = 0; k < capacity; ++k)
      if (slots[k].key != nullptr)
        slots[k].value()->~Value();
  }

  void grow() {
    size_t capacity = capacity_ * 2;
    std::unique_ptr<Slot[]> bigger(new Slot[capacity]);
    for (size_t k = 0; k < capacity_; ++k) {
      Slot &slot = slots_[k];
      if (slot.key == nullptr)
        continue;
      size_t j = slotOf(slot.key, capacity);
      while (bigger[j].key != nullptr)
        j = (j + 1) & (capacity - 1);
      ::new (bigger[j].storage) Value(std::move(*slot.value()));
      bigger[j].key = slot.key;
    }
    destroyValues(slots_, capacity_);
    for (size_t k = 0; k < capacity_; ++k)
      slots_[k].key = nullptr; // the inline slots stay empty while the heap holds the entries
    heap_ = std::move(bigger);
    slots_ = heap_.get();
    capacity_ = capacity;
  }

  Slot inline_[InlineSlots];
  std::unique_ptr<Slot[]> heap_;
  Slot *slots_ = inline_;
  size_t capacity_ = InlineSlots; // a power of two, at most half full
  size_t size_ = 0;
};

} // namespace tirlower
