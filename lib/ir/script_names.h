// Printed names: every IR name becomes a valid, unique Python identifier, in the order the
// objects are first seen, so printed text is deterministic and reparses to distinct objects.
// Both tables are on the printer's hot path (one lookup per variable reference), hence the
// transparent string hashing and the open-addressing identity map.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/symbol.h"

namespace tirlower {

// Replaces characters that cannot appear in a Python identifier by '_' (and prefixes '_' to a
// leading digit); an empty name becomes "v".
std::string sanitizeIdentifier(std::string_view name);
bool isValidIdentifier(std::string_view name);
// Python keywords, plus `T` and `I`, which the printed text uses as module aliases.
bool isReservedName(std::string_view name);

// Bump storage for names: the views it hands out stay valid until clear(), and storing a
// name costs a copy into a chunk instead of an allocation per name.
class StringArena {
public:
  // Stores the concatenation of `head` and `tail`.
  std::string_view store(std::string_view head, std::string_view tail = {});
  // Forgets every string; keeps the first chunk for reuse.
  void clear();

private:
  struct Chunk {
    std::unique_ptr<char[]> data;
    size_t size = 0;
  };
  std::vector<Chunk> chunks_;
  size_t used_ = 0; // bytes taken in chunks_.back()
};

class NameTable {
public:
  // A name not handed out before: the sanitized hint itself when free, else hint_1, hint_2, ...
  // The view stays valid until clear().
  std::string_view fresh(std::string_view hint);
  // The same for an interned name, which the table can refer to instead of copying it.
  std::string_view fresh(Symbol hint);
  // Forgets every name; keeps the memory of a small table for the next function.
  void clear();

private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t index = 0;      // 1 + position in entries_
    uint32_t generation = 0; // the slot is free unless this is the table's generation_
  };
  // Every name handed out (and every reserved base asked for), with the next suffix to try.
  struct Entry {
    std::string_view name;
    int nextSuffix = 1;
  };
  // fresh(); a stable hint outlives the table, which then refers to it instead of a copy.
  std::string_view freshFrom(std::string_view hint, bool stableHint);
  // freshFrom() for a valid identifier `base` with hash `hash`.
  std::string_view freshValid(std::string_view base, uint64_t hash, bool stableBase);
  // The slot holding `name`, or the empty slot where it would go.
  size_t slotFor(std::string_view name, uint64_t hash) const;
  // Puts `name` in the empty slot `slot` (copied into storage_ unless it outlives the table);
  // returns its position in entries_.
  size_t add(size_t slot, std::string_view name, uint64_t hash, bool copy);
  void grow();
  bool isFree(const Slot &slot) const { return slot.generation != generation_; }

  std::vector<Slot> slots_;
  // clear() frees every slot at once by starting a new generation.
  uint32_t generation_ = 1;
  std::vector<Entry> entries_;
  StringArena storage_;
  std::string scratch_; // candidate names with a suffix
};

// The printed name of each object (variable or buffer), keyed by identity. The table holds
// views: the names themselves live in a NameTable or StringArena (or an interned Symbol).
class IdentityNames {
public:
  // The object's name, or an empty view when it has none (names are never empty).
  std::string_view find(const void *object) const {
    return slots_.empty() ? std::string_view() : slots_[slotOf(object)].name; // empty slots have no name
  }
  // Adds `name` for `object` unless it has one; returns the object's name either way.
  std::string_view insert(const void *object, std::string_view name);
  // Gives `object` the name `name`, replacing any name it had (a redefinition).
  std::string_view assign(const void *object, std::string_view name);
  // Forgets every name; keeps the memory of a small table for the next function.
  void clear();

private:
  struct Slot {
    const void *object = nullptr; // null marks an empty slot
    std::string_view name;
  };
  // The slot holding `object`, or the empty slot where it would go.
  size_t slotOf(const void *object) const {
    // Fibonacci hashing of the address; nodes are at least 16-byte aligned.
    uint64_t bits = reinterpret_cast<uintptr_t>(object) >> 4;
    size_t mask = slots_.size() - 1;
    size_t slot = static_cast<size_t>((bits * 0x9E3779B97F4A7C15ull) >> 20) & mask;
    while (slots_[slot].object && slots_[slot].object != object)
      slot = (slot + 1) & mask;
    return slot;
  }
  void grow();
  std::vector<Slot> slots_;
  size_t size_ = 0;
};

} // namespace tirlower
