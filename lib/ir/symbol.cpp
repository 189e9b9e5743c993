#include "ir/symbol.h"

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
  auto &strings = table().strings;
  auto it = strings.find(text);
  if (it == strings.end())
    it = strings.emplace(text).first;
  text_ = &*it;
}

const std::string &Symbol::str() const {
  return text_ ? *text_ : emptyString();
}

} // namespace tirlower
