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

std::string sanitizeIdentifier(std::string_view name) {
  if (name.empty())
    return "v";
  std::string out;
  out.reserve(name.size() + 1);
  if (!isIdentifierStart(name.front()))
    out += isIdentifierChar(name.front()) ? "_" : "";
  for (char c : name)
    out += isIdentifierChar(c) ? c : '_';
  return out;
}

bool isReservedName(std::string_view name) {
  return std::find(kReserved.begin(), kReserved.end(), name) != kReserved.end();
}

std::string NameTable::fresh(std::string_view hint) {
  std::string base = sanitizeIdentifier(hint);
  if (!isReservedName(base) && taken_.insert(base).second)
    return base;
  int &suffix = nextSuffix_[base];
  if (suffix == 0)
    suffix = 1;
  std::string candidate;
  for (;; ++suffix) {
    char digits[16];
    auto [end, ec] = std::to_chars(digits, digits + sizeof digits, suffix);
    (void)ec;
    candidate.assign(base).append("_").append(digits, end);
    if (taken_.insert(candidate).second)
      break;
  }
  ++suffix;
  return candidate;
}

} // namespace tirlower
