#include "ir/symbol.h"

#include <array>
#include <mutex>
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
  // Strings live in nodes of the set; node-based containers never move their elements, so a
  // string's address stays valid without the lock.
  std::unordered_set<std::string, NameHash, std::equal_to<>> strings;
  // Taken only on a miss of the thread's recent cache (--threads=N interns from workers).
  std::mutex mutex;
  InternTable() { strings.reserve(4096); }
};

InternTable &table() {
  static InternTable instance;
  return instance;
}

// Direct-mapped cache of recent names in front of the set, one per thread: names repeat (loop
// variables, buffers, dtypes), and the set of a large module no longer fits in the processor's
// caches. Entries point into the set, whose strings live as long as the process.
struct Recent {
  size_t hash = 0;
  const std::string *text = nullptr;
};
thread_local std::array<Recent, 1024> recent{};

const std::string &emptyString() {
  static const std::string empty;
  return empty;
}
} // namespace

Symbol::Symbol(std::string_view text) {
  size_t hash = NameHash()(text);
  Recent &cached = recent[hash % recent.size()];
  if (cached.text && cached.hash == hash && *cached.text == text) {
    text_ = cached.text;
    return;
  }
  InternTable &interned = table();
  {
    std::lock_guard<std::mutex> lock(interned.mutex);
    auto it = interned.strings.find(text);
    if (it == interned.strings.end())
      it = interned.strings.emplace(text).first;
    text_ = &*it;
  }
  cached = {hash, text_};
}

const std::string &Symbol::str() const {
  return text_ ? *text_ : emptyString();
}

} // namespace tirlower
