#include "ir/symbol.h"

#include <memory>
#include <unordered_set>

namespace tirlower {

namespace {
struct InternTable {
  // Strings live in nodes of the set; node-based containers never move their elements.
  std::unordered_set<std::string> strings;
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
  auto it = strings.find(std::string(text));
  if (it == strings.end())
    it = strings.emplace(text).first;
  text_ = &*it;
}

const std::string &Symbol::str() const { return text_ ? *text_ : emptyString(); }

} // namespace tirlower
