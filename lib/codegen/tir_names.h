// Printed names: every IR name becomes a valid, unique Python identifier, in the order the
// objects are first seen, so printed text is deterministic and reparses to distinct objects.
// Both tables are on the printer's hot path (one lookup per variable reference), hence the
// transparent string hashing and the open-addressing identity map.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace tirlower {

// Replaces characters that cannot appear in a Python identifier by '_' (and prefixes '_' to a
// leading digit); an empty name becomes "v".
std::string sanitizeIdentifier(std::string_view name);
bool isValidIdentifier(std::string_view name);
// Python keywords, plus `T` and `I`, which the printed text uses as module aliases.
bool isReservedName(std::string_view name);

class NameTable {
public:
  // A name not handed out before: the sanitized hint itself when free, else hint_1, hint_2, ...
  std::string fresh(std::string_view hint);
  // Forgets every name; keeps the memory of a small table for the next function.
  void clear();

private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t index = 0; // 1 + position in names_; 0 marks an empty slot
  };
  // Position of `name` in names_, or -1.
  int64_t find(std::string_view name, uint64_t hash) const;
  size_t add(std::string_view name, uint64_t hash);
  void grow();

  std::vector<Slot> slots_;
  // Every name handed out (and every reserved base asked for), with the next suffix to try.
  std::vector<std::string> names_;
  std::vector<int> nextSuffix_;
};

// The printed name of each object (variable or buffer), keyed by identity. Names are stable
// in memory: references stay valid while more names are added.
class IdentityNames {
public:
  const std::string *find(const void *object) const;
  // Adds `name` for `object` unless it has one; returns the object's name either way.
  const std::string &insert(const void *object, std::string name);
  // Gives `object` the name `name`, replacing any name it had (a redefinition).
  const std::string &assign(const void *object, std::string name);
  // Forgets every name; keeps the memory of a small table for the next function.
  void clear();

private:
  size_t slotOf(const void *object) const;
  void grow();
  std::vector<const void *> keys_;
  std::vector<uint32_t> values_;
  std::deque<std::string> names_;
};

} // namespace tirlower
