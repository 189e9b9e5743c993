// Python-style tokenizer for TVMScript: INDENT/DEDENT from leading spaces, NEWLINE at the end
// of logical lines (newlines inside brackets are ignored), `#` comments. Tokens are byte
// ranges of the source; values (numbers, strings) are decoded by the parser on demand.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
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
  LessLess,       // <<
  GreaterGreater, // >>
  Amp,            // &
  Pipe,           // |
  Caret,          // ^
  Tilde,          // ~
  Error, // an invalid character run; already reported
};

const char *tokenName(Tok kind);

struct Token {
  Tok kind;
  uint32_t begin;
  uint32_t end;
};

// Tokenizes text[begin, end) of `fileId` at once (the parser streams through a TokenStream);
// `text` is the whole file, offsets stay absolute.
// Lexical errors (tabs in indentation, unterminated strings, inconsistent dedent, invalid
// characters) are reported to `diagnostics`; the token stream is still well formed.
std::vector<Token> tokenize(std::string_view text, uint32_t fileId, uint32_t begin, uint32_t end,
                            DiagnosticSink &diagnostics);

class Lexer;

// The tokens of one input, lexed on demand as the parser reads them. Only a window around the
// read position is kept (the whole token array of a large module used to be its biggest
// allocation). References to tokens stay valid until the reader has moved kKeepBehind tokens
// past them.
class TokenStream {
public:
  static constexpr size_t kKeepBehind = 4096;

  TokenStream();
  ~TokenStream();
  TokenStream(const TokenStream &) = delete;
  TokenStream &operator=(const TokenStream &) = delete;

  // Lexical errors go to `diagnostics` as the tokens they concern are lexed.
  void start(std::string_view text, uint32_t fileId, uint32_t begin, uint32_t end, DiagnosticSink &diagnostics);
  // Token number `index`; past the end of input, the EndOfFile token. Asking for a token
  // releases those more than kKeepBehind before it.
  const Token &operator[](size_t index) {
    size_t offset = index - currentFirst_;
    return offset < currentSize_ ? currentTokens_[offset] : find(index);
  }
  // Token number `index` as operator[] gives it and, in `end`, the end of the run of lexed
  // tokens it begins: the parser reads on through the pointer up to `end` (the same validity as
  // a reference). Past the end of input, the EndOfFile token in a run of one.
  const Token *run(size_t index, const Token *&end) {
    const Token &token = (*this)[index];
    end = index - currentFirst_ < currentSize_ ? currentTokens_ + currentSize_ : &token + 1;
    return &token;
  }
  // Lexes ahead until the brackets open at the lexing position are closed or the input ends,
  // so that an unclosed-bracket error (located at its bracket, before the tokens read since)
  // is known before a later diagnostic is reported.
  void lexPastOpenBrackets();
  // Lexes the rest of the input (reporting its lexical errors); the reader is done.
  void lexToEnd();

private:
  static constexpr size_t kChunkSize = 4096;
  // A run of consecutive tokens; its storage never moves once lexed, so references into it
  // stay valid until the chunk is released.
  struct Chunk {
    size_t first = 0;
    size_t size = 0;           // tokens in it: the first `size` items of `tokens`
    std::vector<Token> tokens; // (the rest is room kept for reuse)
  };

  const Token &find(size_t index);
  void lexChunk(bool release);
  void setCurrent(const Chunk &chunk);

  std::unique_ptr<Lexer> lexer_;
  std::vector<Chunk> chunks_;             // live chunks, oldest first
  std::vector<std::vector<Token>> spare_; // storage of released chunks, for reuse
  size_t lexed_ = 0;                      // tokens lexed so far
  // The chunk operator[] looks in first (the newest).
  const Token *currentTokens_ = nullptr;
  size_t currentFirst_ = 0, currentSize_ = 0;
};

// Decodes a String token (quotes, escapes, triple quotes). `ok` is false for a bad escape.
std::string decodeString(std::string_view token, bool &ok);

} // namespace tirlower
