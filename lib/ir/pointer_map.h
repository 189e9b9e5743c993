// A hash map from node pointers to values in one open-addressing array: no allocation per
// entry (the analyzer's memo tables take an entry for every expression they see, and a node
// per entry in std::unordered_map was a fifth of the lowering pipeline's allocations). The
// first InlineSlots slots live in the map itself, so a small query allocates nothing.
// Entries are never erased; pointers into the table are invalidated by the next insertion.
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
  PointerMap(const PointerMap &) = delete; // slots_ may point into the object itself
  PointerMap &operator=(const PointerMap &) = delete;
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
