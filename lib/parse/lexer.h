// Python-style tokenizer for TVMScript: INDENT/DEDENT from leading spaces, NEWLINE at the end
// of logical lines (newlines inside brackets are ignored), `#` comments. Tokens are byte
// ranges of the source; values (numbers, strings) are decoded by the parser on demand.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/diagnostic.h"

namespace tirlower {

enum class Tok : uint8_t {
  EndOfFile,
  Newline,
  Indent,
  Dedent,
  Name,
  Int,
  Float,
  String,
  // keywords
  KwDef,
  KwClass,
  KwFor,
  KwIn,
  KwIf,
  KwElif,
  KwElse,
  KwWhile,
  KwWith,
  KwAs,
  KwAssert,
  KwAnd,
  KwOr,
  KwNot,
  KwLambda,
  KwTrue,
  KwFalse,
  KwNone,
  KwReturn,
  KwPass,
  KwFrom,
  KwImport,
  // punctuation
  LParen,
  RParen,
  LBracket,
  RBracket,
  LBrace,
  RBrace,
  Comma,
  Colon,
  Dot,
  At,
  Arrow,
  Assign,
  Plus,
  Minus,
  Star,
  StarStar,
  Slash,
  SlashSlash,
  Percent,
  Less,
  LessEqual,
  Greater,
  GreaterEqual,
  EqualEqual,
  NotEqual,
  Error, // an invalid character run; already reported
};

const char *tokenName(Tok kind);

struct Token {
  Tok kind;
  uint32_t begin;
  uint32_t end;
};

// Tokenizes text[begin, end) of `fileId`; `text` is the whole file, offsets stay absolute.
// Lexical errors (tabs in indentation, unterminated strings, inconsistent dedent, invalid
// characters) are reported to `diagnostics`; the token stream is still well formed.
std::vector<Token> tokenize(std::string_view text, uint32_t fileId, uint32_t begin, uint32_t end,
                            DiagnosticSink &diagnostics);

// Decodes a String token (quotes, escapes, triple quotes). `ok` is false for a bad escape.
std::string decodeString(std::string_view token, bool &ok);

} // namespace tirlower
