#include "ir/script_names.h"

#include <algorithm>
#include <array>
#include <charconv>

namespace tirlower {

namespace {
enum CharClass : uint8_t { kIdentifierChar = 1, kIdentifierStart = 2 };
constexpr auto kCharClasses = [] {
  std::array<uint8_t, 256> classes{};
  for (int c = 0; c < 256; ++c) {
    bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    bool digit = c >= '0' && c <= '9';
    classes[static_cast<size_t>(c)] = (letter ? kIdentifierStart | kIdentifierChar : 0) | (digit ? kIdentifierChar : 0);
  }
  return classes;
}();
bool isIdentifierStart(char c) {
  return kCharClasses[static_cast<unsigned char>(c)] & kIdentifierStart;
}
bool isIdentifierChar(char c) {
  return kCharClasses[static_cast<unsigned char>(c)] & kIdentifierChar;
}

// ir-names: Python's keywords (global among them) and the script's module names
constexpr std::array<std::string_view, 37> kReserved = {
    "False",    "None",   "True",  "and",  "as",     "assert",   "async",   "await", "break", "class",
    "continue", "def",    "del",   "elif", "else",   "except",   "finally", "for",   "from",  "global",
    "if",       "import", "in",    "is",   "lambda", "nonlocal", "not",     "or",    "pass",  "raise",
    "return",   "try",    "while", "with", "yield",  "T",        "I"};
} // namespace

bool isValidIdentifier(std::string_view name) {
  return !name.empty() && isIdentifierStart(name.front()) && std::all_of(name.begin(), name.end(), isIdentifierChar);
}

std::string sanitizeIdentifier(std::string_view name) {
  if (name.empty())
    return "v";
  std::string out;
  out.reserve(name.size() + 1);
  if (!isIdentifierStart(name.front()) && isIdentifierChar(name.front()))
    out += '_';
  for (char c : name)
    out += isIdentifierChar(c) ? c : '_';
  return out;
}

namespace {
// Up to 8 characters packed into an integer, first character lowest: names of the same length
// are equal exactly when their packings are.
constexpr uint64_t packShortName(std::string_view name) {
  uint64_t packed = 0;
  for (size_t k = 0; k < name.size(); ++k)
    packed |= uint64_t(static_cast<unsigned char>(name[k])) << (8 * k);
  return packed;
}
} // namespace

bool isReservedName(std::string_view name) {
  // The reserved words grouped by length and packed: a printed name is compared only with
  // the few words of its own length (one lookup per name handed out).
  static constexpr size_t kMaxLength = 8, kMaxPerLength = 12;
  struct Group {
    std::array<uint64_t, kMaxPerLength> words{};
    size_t count = 0;
  };
  static constexpr auto kByLength = [] {
    std::array<Group, kMaxLength + 1> table{};
    for (std::string_view word : kReserved) {
      Group &group = table[word.size()];
      group.words[group.count++] = packShortName(word);
    }
    return table;
  }();
  // Bit n of kLengthsByFirst[c]: some reserved word of length n starts with c. Most names
  // are rejected by this one lookup.
  static constexpr auto kLengthsByFirst = [] {
    std::array<uint16_t, 256> table{};
    for (std::string_view word : kReserved)
      table[static_cast<unsigned char>(word.front())] |= static_cast<uint16_t>(1u << word.size());
    return table;
  }();
  if (name.empty() || name.size() > kMaxLength ||
      !((kLengthsByFirst[static_cast<unsigned char>(name.front())] >> name.size()) & 1))
    return false;
  const Group &group = kByLength[name.size()];
  uint64_t packed = packShortName(name);
  for (size_t k = 0; k < group.count; ++k)
    if (group.words[k] == packed)
      return true;
  return false;
}

namespace {
// FNV-1a: names are short, so a byte loop beats a general-purpose string hash. The high bits
// are folded in because tables index by the low ones.
constexpr uint64_t kFnvBasis = 0xcbf29ce484222325ull, kFnvPrime = 0x100000001b3ull;
uint64_t finishHash(uint64_t hash) {
  return hash ^ (hash >> 32);
}
uint64_t hashName(std::string_view name) {
  uint64_t hash = kFnvBasis;
  for (char c : name)
    hash = (hash ^ static_cast<unsigned char>(c)) * kFnvPrime;
  return finishHash(hash);
}
// isValidIdentifier(name) and hashName(name) in one pass over the name.
bool hashIdentifier(std::string_view name, uint64_t &hash) {
  uint64_t h = kFnvBasis;
  uint8_t valid = kIdentifierChar;
  for (char c : name) {
    valid &= kCharClasses[static_cast<unsigned char>(c)];
    h = (h ^ static_cast<unsigned char>(c)) * kFnvPrime;
  }
  hash = finishHash(h);
  return valid && !name.empty() && isIdentifierStart(name.front());
}

// Strings longer than this get a chunk of their own.
constexpr size_t kChunkSize = 4096;
} // namespace

std::string_view StringArena::store(std::string_view head, std::string_view tail) {
  size_t size = head.size() + tail.size();
  if (chunks_.empty() || chunks_.back().size - used_ < size) {
    size_t chunkSize = std::max(size, kChunkSize);
    chunks_.push_back({std::make_unique<char[]>(chunkSize), chunkSize});
    used_ = 0;
  }
  char *begin = chunks_.back().data.get() + used_;
  std::copy(head.begin(), head.end(), begin);
  std::copy(tail.begin(), tail.end(), begin + head.size());
  used_ += size;
  return {begin, size};
}

void StringArena::clear() {
  if (chunks_.size() > 1)
    chunks_.resize(1);
  used_ = 0;
}

size_t NameTable::slotFor(std::string_view name, uint64_t hash) const {
  size_t mask = slots_.size() - 1;
  size_t slot = hash & mask;
  for (;; slot = (slot + 1) & mask) {
    const Slot &entry = slots_[slot];
    if (isFree(entry) || (entry.hash == hash && entries_[entry.index - 1].name == name))
      return slot;
  }
}

namespace {
// Tables start small: the printer makes one per function and one per index-map lambda, most
// holding a handful of names.
constexpr size_t kInitialSlots = 32;
// clear() keeps tables up to this size and releases bigger ones, so that one huge function
// does not make clearing cost its size for every later function.
constexpr size_t kKeptSlots = 1024;
} // namespace

void NameTable::clear() {
  entries_.clear();
  storage_.clear();
  if (slots_.size() > kKeptSlots) {
    slots_ = {};
  } else if (++generation_ == 0) {
    // Wrapped around: slots of generations long gone could read as current.
    std::fill(slots_.begin(), slots_.end(), Slot{});
    generation_ = 1;
  }
}

void NameTable::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? kInitialSlots : old.size() * 2, Slot{});
  size_t mask = slots_.size() - 1;
  for (const Slot &entry : old) {
    if (isFree(entry))
      continue;
    size_t slot = entry.hash & mask;
    while (!isFree(slots_[slot]))
      slot = (slot + 1) & mask;
    slots_[slot] = entry;
  }
}

size_t NameTable::add(size_t slot, std::string_view name, uint64_t hash, bool copy) {
  entries_.push_back({copy ? storage_.store(name) : name});
  slots_[slot] = {hash, static_cast<uint32_t>(entries_.size()), generation_};
  // At most half full, so probes stay short.
  if (entries_.size() * 2 > slots_.size())
    grow();
  return entries_.size() - 1;
}

std::string_view NameTable::fresh(std::string_view hint) {
  return freshFrom(hint, /*stableHint=*/false);
}

std::string_view NameTable::fresh(Symbol hint) {
  return freshFrom(hint.view(), /*stableHint=*/true);
}

std::string_view NameTable::freshFrom(std::string_view hint, bool stableHint) {
  uint64_t hash = 0;
  if (!hashIdentifier(hint, hash)) {
    std::string sanitized = sanitizeIdentifier(hint);
    return freshValid(sanitized, hashName(sanitized), /*stableBase=*/false);
  }
  return freshValid(hint, hash, stableHint);
}

std::string_view NameTable::freshValid(std::string_view base, uint64_t hash, bool stableBase) {
  if (slots_.empty())
    grow();
  size_t slot = slotFor(base, hash);
  size_t existing = isFree(slots_[slot]) ? 0 : slots_[slot].index;
  if (existing == 0) {
    existing = add(slot, base, hash, !stableBase);
    if (!isReservedName(base))
      return entries_[existing].name;
  } else {
    existing -= 1;
  }
  int suffix = entries_[existing].nextSuffix;
  size_t added = 0;
  for (;; ++suffix) {
    char digits[16];
    auto [end, ec] = std::to_chars(digits, digits + sizeof digits, suffix);
    (void)ec;
    scratch_.assign(base).append("_").append(digits, end);
    uint64_t candidateHash = hashName(scratch_);
    size_t candidateSlot = slotFor(scratch_, candidateHash);
    if (isFree(slots_[candidateSlot])) {
      added = add(candidateSlot, scratch_, candidateHash, /*copy=*/true);
      break;
    }
  }
  entries_[existing].nextSuffix = suffix + 1;
  return entries_[added].name;
}

void IdentityNames::clear() {
  size_ = 0;
  if (slots_.size() > kKeptSlots)
    slots_ = {};
  else
    std::fill(slots_.begin(), slots_.end(), Slot{});
}

void IdentityNames::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? kInitialSlots : old.size() * 2, Slot{});
  for (const Slot &entry : old)
    if (entry.object)
      slots_[slotOf(entry.object)] = entry;
}

std::string_view IdentityNames::assign(const void *object, std::string_view name) {
  if (!slots_.empty()) {
    Slot &entry = slots_[slotOf(object)];
    if (entry.object)
      return entry.name = name;
  }
  return insert(object, name);
}

std::string_view IdentityNames::insert(const void *object, std::string_view name) {
  if ((size_ + 1) * 2 > slots_.size())
    grow();
  Slot &entry = slots_[slotOf(object)];
  if (!entry.object) {
    entry = {object, name};
    ++size_;
  }
  return entry.name;
}

} // namespace tirlower
