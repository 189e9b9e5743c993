// The tokens of TVMScript one at a time, without the lexer's state: which bytes start and
// continue names and numbers, the keywords, the one-character punctuation, and scanners that
// find where a number, a string, an operator or a run of invalid bytes starting at an offset
// ends. The lexer (lexer.cpp) adds the line structure: indentation, line ends, brackets,
// comments, and reports what the scanners find wrong.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

#include "parse/lexer.h"

namespace tirlower {
namespace lexing {

// Character classes by table: the identifier and digit tests run once per input byte.
enum : uint8_t { kIdentStart = 1, kDigit = 2 };
inline constexpr std::array<uint8_t, 256> kCharClass = [] {
  std::array<uint8_t, 256> table{};
  for (int c = 'a'; c <= 'z'; ++c)
    table[static_cast<size_t>(c)] = kIdentStart;
  for (int c = 'A'; c <= 'Z'; ++c)
    table[static_cast<size_t>(c)] = kIdentStart;
  table['_'] = kIdentStart;
  for (int c = '0'; c <= '9'; ++c)
    table[static_cast<size_t>(c)] = kDigit;
  return table;
}();

inline bool isIdentStart(char c) {
  return kCharClass[static_cast<unsigned char>(c)] & kIdentStart;
}
inline bool isDigit(char c) {
  return kCharClass[static_cast<unsigned char>(c)] & kDigit;
}
inline bool isIdentChar(char c) {
  return kCharClass[static_cast<unsigned char>(c)] != 0;
}

// The brackets are the six kinds LParen .. RBrace (the lexer tests the range first).
static_assert(static_cast<int>(Tok::RBrace) - static_cast<int>(Tok::LParen) == 5 && Tok::RParen > Tok::LParen &&
              Tok::LBracket > Tok::RParen && Tok::RBracket > Tok::LBracket && Tok::LBrace > Tok::RBracket);

// Punctuation of one character that never starts a longer token ('.' may start a number, '-'
// an arrow, ...): lexed inline by the main loop. Tok::Error for every other byte.
inline constexpr std::array<Tok, 256> kSingleCharToken = [] {
  std::array<Tok, 256> table{};
  table.fill(Tok::Error);
  table['('] = Tok::LParen;
  table[')'] = Tok::RParen;
  table['['] = Tok::LBracket;
  table[']'] = Tok::RBracket;
  table['{'] = Tok::LBrace;
  table['}'] = Tok::RBrace;
  table[','] = Tok::Comma;
  table[':'] = Tok::Colon;
  table['@'] = Tok::At;
  table['+'] = Tok::Plus;
  table['%'] = Tok::Percent;
  table['&'] = Tok::Amp;
  table['|'] = Tok::Pipe;
  table['^'] = Tok::Caret;
  table['~'] = Tok::Tilde;
  return table;
}();

// A word of up to 8 bytes as one integer, first byte lowest: keywords are matched with one
// integer comparison instead of string comparisons.
constexpr uint64_t packWord(std::string_view s) {
  uint64_t value = 0;
  for (size_t k = s.size(); k-- > 0;)
    value = value << 8 | static_cast<unsigned char>(s[k]);
  return value;
}

// The keyword packed as `word` (packWord), or Tok::Name.
inline Tok keywordOrName(uint64_t word) {
  switch (word) {
  case packWord("in"): return Tok::KwIn;
  case packWord("if"): return Tok::KwIf;
  case packWord("as"): return Tok::KwAs;
  case packWord("or"): return Tok::KwOr;
  case packWord("def"): return Tok::KwDef;
  case packWord("for"): return Tok::KwFor;
  case packWord("and"): return Tok::KwAnd;
  case packWord("not"): return Tok::KwNot;
  case packWord("elif"): return Tok::KwElif;
  case packWord("else"): return Tok::KwElse;
  case packWord("with"): return Tok::KwWith;
  case packWord("True"): return Tok::KwTrue;
  case packWord("None"): return Tok::KwNone;
  case packWord("pass"): return Tok::KwPass;
  case packWord("from"): return Tok::KwFrom;
  case packWord("class"): return Tok::KwClass;
  case packWord("while"): return Tok::KwWhile;
  case packWord("False"): return Tok::KwFalse;
  case packWord("assert"): return Tok::KwAssert;
  case packWord("lambda"): return Tok::KwLambda;
  case packWord("return"): return Tok::KwReturn;
  case packWord("import"): return Tok::KwImport;
  default: return Tok::Name;
  }
}

// The keyword or Tok::Name of the name data[start, start + length).
[[gnu::always_inline]] inline Tok nameKind(const char *data, size_t size, size_t start, size_t length) {
  if (length < 2 || length > 6) // keywords have 2 to 6 letters
    return Tok::Name;
  uint64_t word;
  if (std::endian::native == std::endian::little && start + 8 <= size) {
    std::memcpy(&word, data + start, 8); // packWord of the name with one load
    word &= (uint64_t(1) << (8 * length)) - 1;
  } else {
    word = packWord(std::string_view(data + start, length));
  }
  return keywordOrName(word);
}

// The token of `=`, `*`, `-`, `/` or `.` followed by `next` when it is one of Assign, Star,
// Minus, Slash, SlashSlash or Dot; Tok::Error otherwise (another byte, or a longer token such
// as `==`, `**`, `->` or a number `.5`, which the lexer's slower path reads).
inline Tok secondOf(char c, char next) {
  switch (c) {
  case '=': return next == '=' ? Tok::Error : Tok::Assign;
  case '*': return next == '*' ? Tok::Error : Tok::Star;
  case '-': return next == '>' ? Tok::Error : Tok::Minus;
  case '/': return next == '/' ? Tok::SlashSlash : Tok::Slash;
  case '.': return isDigit(next) ? Tok::Error : Tok::Dot;
  default: return Tok::Error;
  }
}

// The operator or bracket token starting with `c` followed by `next` ('\0' at the end of
// input), and its length; Tok::Error when `c` starts none.
std::pair<Tok, size_t> scanPunctuation(char c, char next);

// The end of the number starting at `start` (digits, or a '.' followed by a digit) and its kind:
// Tok::Int, Tok::Float, or Tok::Error for digits running into a name ("12ab", to report).
std::pair<Tok, size_t> scanNumber(std::string_view text, size_t start);

// The end of the string literal opening with `quote` at `start` (triple-quoted when the quote
// is tripled) and whether it was closed: an unclosed one ends at the line end (or the input's
// end for a triple-quoted one).
std::pair<bool, size_t> scanString(std::string_view text, size_t start, char quote);

// The end of the run of bytes starting at `start` that no token starts with (at least one byte).
size_t scanInvalid(std::string_view text, size_t start);

} // namespace lexing
} // namespace tirlower
