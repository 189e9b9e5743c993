#include "codegen/tir_names.h"

#include <algorithm>
#include <array>
#include <charconv>

namespace tirlower {

namespace {
bool isIdentifierStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isIdentifierChar(char c) {
  return isIdentifierStart(c) || (c >= '0' && c <= '9');
}

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

bool isReservedName(std::string_view name) {
  // The reserved words grouped by length: a printed name is compared only with the few
  // words of its own length (one lookup per name handed out).
  static constexpr size_t kMaxLength = 8;
  static constexpr auto kByLength = [] {
    std::array<std::array<std::string_view, 12>, kMaxLength + 1> table{};
    std::array<size_t, kMaxLength + 1> count{};
    for (std::string_view word : kReserved)
      table[word.size()][count[word.size()]++] = word;
    return table;
  }();
  if (name.empty() || name.size() > kMaxLength)
    return false;
  for (std::string_view word : kByLength[name.size()]) {
    if (word.empty())
      return false;
    if (word == name)
      return true;
  }
  return false;
}

namespace {
// FNV-1a: names are short, so a byte loop beats a general-purpose string hash. The high bits
// are folded in because tables index by the low ones; never 0 (an empty slot's hash).
uint64_t hashName(std::string_view name) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (char c : name)
    hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return (hash ^ (hash >> 32)) | 1;
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

int64_t NameTable::find(std::string_view name, uint64_t hash) const {
  if (slots_.empty())
    return -1;
  size_t mask = slots_.size() - 1;
  for (size_t slot = hash & mask;; slot = (slot + 1) & mask) {
    const Slot &entry = slots_[slot];
    if (entry.index == 0)
      return -1;
    if (entry.hash == hash && names_[entry.index - 1] == name)
      return entry.index - 1;
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
  names_.clear();
  nextSuffix_.clear();
  storage_.clear();
  if (slots_.size() > kKeptSlots)
    slots_ = {};
  else
    std::fill(slots_.begin(), slots_.end(), Slot{});
}

void NameTable::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? kInitialSlots : old.size() * 2, Slot{});
  size_t mask = slots_.size() - 1;
  for (const Slot &entry : old) {
    if (entry.index == 0)
      continue;
    size_t slot = entry.hash & mask;
    while (slots_[slot].index != 0)
      slot = (slot + 1) & mask;
    slots_[slot] = entry;
  }
}

size_t NameTable::add(std::string_view name, uint64_t hash) {
  if ((names_.size() + 1) * 2 > slots_.size())
    grow();
  size_t mask = slots_.size() - 1;
  size_t slot = hash & mask;
  while (slots_[slot].index != 0)
    slot = (slot + 1) & mask;
  names_.push_back(storage_.store(name));
  nextSuffix_.push_back(1);
  slots_[slot] = {hash, static_cast<uint32_t>(names_.size())};
  return names_.size() - 1;
}

std::string_view NameTable::fresh(std::string_view hint) {
  std::string sanitized;
  std::string_view base = hint;
  if (!isValidIdentifier(hint)) {
    sanitized = sanitizeIdentifier(hint);
    base = sanitized;
  }
  uint64_t hash = hashName(base);
  int64_t existing = find(base, hash);
  if (existing < 0) {
    existing = static_cast<int64_t>(add(base, hash));
    if (!isReservedName(base))
      return names_[static_cast<size_t>(existing)];
  }
  int suffix = nextSuffix_[static_cast<size_t>(existing)];
  size_t added = 0;
  for (;; ++suffix) {
    char digits[16];
    auto [end, ec] = std::to_chars(digits, digits + sizeof digits, suffix);
    (void)ec;
    scratch_.assign(base).append("_").append(digits, end);
    uint64_t candidateHash = hashName(scratch_);
    if (find(scratch_, candidateHash) < 0) {
      added = add(scratch_, candidateHash);
      break;
    }
  }
  nextSuffix_[static_cast<size_t>(existing)] = suffix + 1;
  return names_[added];
}

size_t IdentityNames::slotOf(const void *object) const {
  // Fibonacci hashing of the address; nodes are at least 16-byte aligned.
  uint64_t bits = reinterpret_cast<uintptr_t>(object) >> 4;
  size_t mask = keys_.size() - 1;
  size_t slot = static_cast<size_t>((bits * 0x9E3779B97F4A7C15ull) >> 20) & mask;
  while (keys_[slot] && keys_[slot] != object)
    slot = (slot + 1) & mask;
  return slot;
}

std::string_view IdentityNames::find(const void *object) const {
  if (keys_.empty())
    return {};
  size_t slot = slotOf(object);
  return keys_[slot] ? values_[slot] : std::string_view();
}

void IdentityNames::clear() {
  size_ = 0;
  if (keys_.size() > kKeptSlots) {
    keys_ = {};
    values_ = {};
  } else {
    std::fill(keys_.begin(), keys_.end(), nullptr);
  }
}

void IdentityNames::grow() {
  std::vector<const void *> oldKeys = std::move(keys_);
  std::vector<std::string_view> oldValues = std::move(values_);
  size_t capacity = oldKeys.empty() ? kInitialSlots : oldKeys.size() * 2;
  keys_.assign(capacity, nullptr);
  values_.assign(capacity, {});
  for (size_t k = 0; k < oldKeys.size(); ++k) {
    if (!oldKeys[k])
      continue;
    size_t slot = slotOf(oldKeys[k]);
    keys_[slot] = oldKeys[k];
    values_[slot] = oldValues[k];
  }
}

std::string_view IdentityNames::assign(const void *object, std::string_view name) {
  if (!keys_.empty()) {
    size_t slot = slotOf(object);
    if (keys_[slot])
      return values_[slot] = name;
  }
  return insert(object, name);
}

std::string_view IdentityNames::insert(const void *object, std::string_view name) {
  if ((size_ + 1) * 2 > keys_.size())
    grow();
  size_t slot = slotOf(object);
  if (keys_[slot])
    return values_[slot];
  keys_[slot] = object;
  values_[slot] = name;
  ++size_;
  return name;
}

} // namespace tirlower
