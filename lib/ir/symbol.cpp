#include "ir/symbol.h"

#include <array>
#include <unordered_set>

namespace tirlower {

namespace {
// Transparent hashing: a lookup by string_view builds no std::string (one per name reference
// in the parser otherwise).
struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view text) const noexcept { return std::hash<std::string_view>()(text); }
};

struct InternTable {
  // Strings live in nodes of the set; node-based containers never move their elements.
  std::unordered_set<std::string, NameHash, std::equal_to<>> strings;
  // Direct-mapped cache of recent names in front of the set: names repeat (loop variables,
  // buffers, dtypes), and the set of a large module no longer fits in the processor's caches.
  struct Recent {
    size_t hash = 0;
    const std::string *text = nullptr;
  };
  std::array<Recent, 1024> recent{};
  InternTable() { strings.reserve(4096); }
};

InternTable &table() {
  static InternTable instance;
  return instance;
}

const std::string &emptyString() {
  static const std::string empty;
  return empty;
}
} // namespace

Symbol::Symbol(std::string_view text) {
  InternTable &interned = table();
  size_t hash = NameHash()(text);
  InternTable::Recent &recent = interned.recent[hash % interned.recent.size()];
  if (recent.text && recent.hash == hash && *recent.text == text) {
    text_ = recent.text;
    return;
  }
  auto it = interned.strings.find(text);
  if (it == interned.strings.end())
    it = interned.strings.emplace(text).first;
  text_ = &*it;
  recent = {hash, text_};
}

const std::string &Symbol::str() const {
  return text_ ? *text_ : emptyString();
}

} // namespace tirlower
