// A hash map from node pointers to values in one open-addressing array: no allocation per
// entry (the analyzer's memo tables take an entry for every expression they see, and a node
// per entry in std::unordered_map was a fifth of the lowering pipeline's allocations).
// Entries are never erased; pointers into the table are invalidated by the next insertion.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace tirlower {

template <typename Key, typename Value> class PointerMap {
public:
  const Value *find(const Key *key) const {
    if (slots_.empty())
      return nullptr;
    for (size_t k = slotOf(key);; k = (k + 1) & (slots_.size() - 1)) {
      const Slot &slot = slots_[k];
      if (slot.key == key)
        return &slot.value;
      if (slot.key == nullptr)
        return nullptr;
    }
  }

  // Adds `value` under `key` unless the key is present already.
  void insert(const Key *key, Value value) {
    if (2 * (size_ + 1) > slots_.size())
      grow();
    size_t k = slotOf(key);
    while (slots_[k].key != nullptr) {
      if (slots_[k].key == key)
        return;
      k = (k + 1) & (slots_.size() - 1);
    }
    slots_[k] = {key, std::move(value)};
    ++size_;
  }

  size_t size() const { return size_; }

private:
  struct Slot {
    const Key *key = nullptr;
    Value value{};
  };

  size_t slotOf(const Key *key) const {
    auto bits = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(key));
    bits *= 0x9e3779b97f4a7c15ULL; // Fibonacci hashing: node addresses differ in their middle bits
    return static_cast<size_t>(bits >> 32) & (slots_.size() - 1);
  }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 16 : old.size() * 2, Slot{});
    for (Slot &slot : old) {
      if (slot.key == nullptr)
        continue;
      size_t k = slotOf(slot.key);
      while (slots_[k].key != nullptr)
        k = (k + 1) & (slots_.size() - 1);
      slots_[k] = std::move(slot);
    }
  }

  std::vector<Slot> slots_; // a power of two in size, at most half full
  size_t size_ = 0;
};

} // namespace tirlower
