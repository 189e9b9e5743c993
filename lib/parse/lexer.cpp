// The lexer: TVMScript text to tokens with Python's line structure (INDENT/DEDENT from the
// leading spaces, NEWLINE at the end of logical lines, none inside brackets, comments and
// backslash continuations skipped), in batches: tokenize() lexes a whole range at once,
// TokenStream a window around the parser's position. What each token looks like is in
// token_scan.h.
#include "parse/lexer.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "parse/token_scan.h"

namespace tirlower {

using namespace lexing;

// The tokenizer proper. It produces tokens in batches on request (TokenStream), so a large
// input is never held as one token array; its only look-behind is the kinds of the last two
// tokens it produced.
class Lexer {
public:
  Lexer(std::string_view text, uint32_t fileId, uint32_t begin, uint32_t end, DiagnosticSink &diagnostics)
      : text_(text.substr(0, end)), fileId_(fileId), pos_(begin), diagnostics_(diagnostics) {
    indents_.push_back(0);
  }

  bool done() const { return done_; }
  bool insideBrackets() const { return depth_ > 0; }

  // Appends tokens to `out` until it holds at least `want` tokens or the input is exhausted
  // (EndOfFile is then the last token appended).
  // Tokens are written through a cursor into room made in `out` beforehand (push_back on
  // the vector reloaded its bounds for every token): the first `have` items of `out` are
  // tokens, the rest room. Returns the number of tokens in `out` afterwards. `out` only grows
  // (reused storage is not initialized again).
  size_t lexSome(std::vector<Token> &out, size_t have, size_t want) {
    out_ = &out;
    while (!done_ && have < want) {
      size_t room = std::min(want - have, kOutputStep);
      if (out.size() < have + room + kOutputSlack)
        out.resize(have + room + kOutputSlack);
      outBegin_ = out.data();
      cursor_ = outBegin_ + have;
      limit_ = outBegin_ + out.size();
      stop_ = cursor_ + room;
      lexUntilStop();
      have = static_cast<size_t>(cursor_ - outBegin_);
    }
    out_ = nullptr;
    outBegin_ = cursor_ = limit_ = stop_ = nullptr;
    return have;
  }

private:
  // Lexes until stop_ is reached or the input ends.
  void lexUntilStop() {
    while (cursor_ < stop_) {
      if (atLineStart_ && depth_ == 0) {
        if (!handleIndentation()) {
          finish();
          break;
        }
        atLineStart_ = false;
      }
      if (lexCommonTokens()) // a line ended: its indentation next
        continue;
      if (cursor_ >= stop_)
        break;
      pos_ = skipBlanks(pos_); // the blanks between tokens
      if (pos_ >= text_.size()) {
        finish();
        break;
      }
      char c = text_[pos_];
      if (isIdentStart(c)) {
        lexName(); // the commonest token, lexed without a call
        continue;
      }
      if (Tok single = kSingleCharToken[static_cast<unsigned char>(c)]; single != Tok::Error) {
        if (single == Tok::LParen || single == Tok::LBracket || single == Tok::LBrace)
          openBracket();
        else if (single == Tok::RParen || single == Tok::RBracket || single == Tok::RBrace)
          closeBracket();
        push(single, pos_, pos_ + 1);
        ++pos_;
        continue;
      }
      if (c == '\n') { // the commonest byte after names and punctuation: tested before the rare ones
        newline();
        continue;
      }
      if (c == '\r' && (pos_ + 1 >= text_.size() || text_[pos_ + 1] != '\n')) {
        loneCarriageReturn();
        continue;
      }
      if (c == '\t' || c == '\r' || c == '\f') {
        ++pos_;
        continue;
      }
      if (c == '#') {
        skipComment();
        continue;
      }
      if (c == '\\' && pos_ + 1 < text_.size() && (text_[pos_ + 1] == '\n' || text_[pos_ + 1] == '\r')) {
        pos_ += text_[pos_ + 1] == '\r' && pos_ + 2 < text_.size() && text_[pos_ + 2] == '\n' ? 3 : 2;
        continue;
      }
      lexToken(c);
    }
  }

  // No token produced yet (EndOfFile is only ever the last token).
  static constexpr Tok kNone = Tok::EndOfFile;

  // A line end: NEWLINE unless inside brackets or after a line of no tokens.
  void newline() {
    if (depth_ == 0) {
      if (last_ != kNone && last_ != Tok::Newline && last_ != Tok::Indent && last_ != Tok::Dedent)
        push(Tok::Newline, pos_, pos_ + 1);
      atLineStart_ = true;
    }
    ++pos_;
  }

  void finish() {
    uint32_t eof = static_cast<uint32_t>(text_.size());
    if (!brackets_.empty()) {
      size_t open = brackets_.back();
      error(open, open + 1, std::string("'") + text_[open] + "' was never closed");
      push(Tok::Error, eof, eof);
    }
    if (last_ != kNone && last_ != Tok::Newline && last_ != Tok::Dedent && last_ != Tok::Indent)
      push(Tok::Newline, eof, eof);
    while (indents_.size() > 1) {
      indents_.pop_back();
      push(Tok::Dedent, eof, eof);
    }
    push(Tok::EndOfFile, eof, eof);
    done_ = true;
    stop_ = cursor_; // lexUntilStop returns
  }

  void push(Tok kind, size_t begin, size_t end) {
    if (cursor_ == limit_) [[unlikely]]
      growOutput();
    *cursor_++ = {kind, static_cast<uint32_t>(begin), static_cast<uint32_t>(end)};
    beforeLast_ = last_;
    last_ = kind;
  }
  [[gnu::noinline]] void growOutput() {
    size_t used = static_cast<size_t>(cursor_ - outBegin_), stop = static_cast<size_t>(stop_ - outBegin_);
    out_->resize(used + std::max<size_t>(used, kOutputStep));
    outBegin_ = out_->data();
    cursor_ = outBegin_ + used;
    limit_ = outBegin_ + out_->size();
    stop_ = outBegin_ + stop;
  }
  void error(size_t begin, size_t end, std::string message) {
    diagnostics_.error({fileId_, static_cast<uint32_t>(begin), static_cast<uint32_t>(end)}, std::move(message));
  }
  void openBracket() {
    ++depth_;
    brackets_.push_back(pos_);
  }
  void closeBracket() {
    if (depth_ == 0)
      return;
    --depth_;
    brackets_.pop_back();
  }
  // A comment ends at a newline, or at a lone carriage return (then reported).
  void skipComment() {
    while (pos_ < text_.size() && text_[pos_] != '\n' &&
           !(text_[pos_] == '\r' && (pos_ + 1 >= text_.size() || text_[pos_ + 1] != '\n')))
      ++pos_;
  }
  // Line ends are LF or CRLF; a CR alone (classic Mac line ends) would silently join lines, so
  // it is an error, reported once per input.
  void loneCarriageReturn() {
    if (!reportedCarriageReturn_)
      error(pos_, pos_ + 1,
            "carriage return without a newline: line ends must be LF or CRLF (convert CR-only line ends first)");
    reportedCarriageReturn_ = true;
    ++pos_;
  }

  // Measures the indentation of the next non-blank line and emits INDENT/DEDENT. Returns
  // false at the end of input.
  bool handleIndentation() {
    while (pos_ < text_.size()) {
      size_t lineStart = pos_;
      uint32_t width = 0;
      size_t tabAt = SIZE_MAX;
      pos_ = skipIndentation(pos_);
      width = static_cast<uint32_t>(pos_ - lineStart);
      while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\f')) {
        if (text_[pos_] == '\t') {
          if (tabAt == SIZE_MAX)
            tabAt = pos_;
          width = (width / 8 + 1) * 8;
        } else if (text_[pos_] == ' ') {
          ++width;
        }
        ++pos_;
      }
      if (pos_ < text_.size() && text_[pos_] == '\r') {
        if (pos_ + 1 >= text_.size() || text_[pos_ + 1] != '\n')
          loneCarriageReturn();
        else
          ++pos_;
      }
      if (pos_ >= text_.size())
        return false;
      char c = text_[pos_];
      if (c == '\n') {
        ++pos_;
        continue;
      }
      if (c == '#') {
        skipComment();
        continue;
      }
      if (tabAt != SIZE_MAX) {
        if (!reportedTab_)
          error(tabAt, tabAt + 1, "tab character in indentation; indent with spaces");
        reportedTab_ = true;
        // Tabs count to multiples of 8 as in Python, but a line may only open a block after
        // a ':', so one stray tab gives one error instead of a cascade.
        bool opensBlock = last_ == Tok::Newline && beforeLast_ == Tok::Colon;
        if (width > indents_.back() && !opensBlock)
          width = indents_.back();
      }
      applyIndentation(width, lineStart);
      return true;
    }
    return false;
  }

  void applyIndentation(uint32_t width, size_t lineStart) {
    if (width > indents_.back()) {
      indents_.push_back(width);
      push(Tok::Indent, pos_, pos_);
      return;
    }
    // Pop the levels the line is certainly out of; a width between two levels stays in the
    // inner one (after an error), so one bad line gives one error.
    while (indents_.size() > 1 && width < indents_.back() && width <= indents_[indents_.size() - 2]) {
      indents_.pop_back();
      push(Tok::Dedent, pos_, pos_);
    }
    if (width != indents_.back()) {
      error(lineStart, pos_ + 1, "unindent does not match any outer indentation level");
      indents_.back() = width;
    }
  }

  // The first byte at or after `pos` that is no blank. Through locals: the loop over members
  // reloaded them for every byte (the token pushes may alias them, as far as the compiler knows).
  // The spaces of an indentation (often dozens) eight at a time.
  size_t skipIndentation(size_t pos) const {
    const char *data = text_.data();
    const size_t size = text_.size();
    if constexpr (std::endian::native == std::endian::little) {
      constexpr uint64_t kSpaces = 0x2020202020202020u;
      for (; pos + 8 <= size; pos += 8) {
        uint64_t word;
        std::memcpy(&word, data + pos, 8);
        if (uint64_t other = word ^ kSpaces; other != 0)
          return pos + static_cast<size_t>(std::countr_zero(other) / 8); // the first byte no space
      }
    }
    while (pos < size && data[pos] == ' ')
      ++pos;
    return pos;
  }

  [[gnu::always_inline]] size_t skipBlanks(size_t pos) const {
    const char *data = text_.data();
    const size_t size = text_.size();
    while (pos < size && data[pos] == ' ')
      ++pos;
    return pos;
  }

  [[gnu::always_inline]] void lexName() {
    size_t start = pos_;
    {
      const char *data = text_.data();
      const size_t size = text_.size();
      size_t pos = start + 1;
      while (pos < size && isIdentChar(data[pos]))
        ++pos;
      pos_ = pos;
    }
    push(nameKind(text_.data(), text_.size(), start, pos_ - start), start, pos_);
  }

  // The common tokens of a line: names, keywords, decimal integers, one-character punctuation
  // and `=`, `*`, `-`, `/`, `//`, `.` (not starting a longer token), and the line's end, until
  // another byte (a string, a float, a comparison, ...) or stop_; the main loop lexes that one.
  // Through locals: the main loop reloads the lexer's members around every token (a token
  // written through cursor_ may alias them, as far as the compiler knows). Returns whether it
  // stopped at the end of a logical line (then atLineStart_ is set).
  bool lexCommonTokens() {
    const char *data = text_.data();
    const size_t size = text_.size();
    Token *cursor = cursor_;
    Token *const stop = stop_; // before limit_: room for every token written here
    size_t pos = pos_;
    Tok last = last_, beforeLast = beforeLast_;
    bool lineEnded = false;
    while (cursor < stop) {
      while (pos < size && data[pos] == ' ')
        ++pos;
      if (pos >= size)
        break;
      const char c = data[pos];
      const size_t start = pos;
      Tok kind;
      if (isIdentStart(c)) {
        ++pos;
        while (pos < size && isIdentChar(data[pos]))
          ++pos;
        kind = nameKind(data, size, start, pos - start);
      } else if (isDigit(c)) {
        ++pos;
        while (pos < size && isDigit(data[pos]))
          ++pos;
        if (pos < size && (isIdentChar(data[pos]) || data[pos] == '.')) { // a float or an error
          pos = start;
          break;
        }
        kind = Tok::Int;
      } else if (c == '\n') {
        ++pos;
        if (depth_ > 0) // inside brackets: no token
          continue;
        atLineStart_ = lineEnded = true; // the main loop reads the next line's indentation
        if (last != kNone && last != Tok::Newline && last != Tok::Indent && last != Tok::Dedent) {
          *cursor++ = {Tok::Newline, static_cast<uint32_t>(start), static_cast<uint32_t>(pos)};
          beforeLast = last;
          last = Tok::Newline;
        }
        break;
      } else if (kind = kSingleCharToken[static_cast<unsigned char>(c)]; kind != Tok::Error) {
        if (kind >= Tok::LParen && kind <= Tok::RBrace) { // a bracket
          if (kind == Tok::LParen || kind == Tok::LBracket || kind == Tok::LBrace) {
            ++depth_;
            brackets_.push_back(start);
          } else {
            closeBracket();
          }
        }
        ++pos;
      } else if (kind = secondOf(c, pos + 1 < size ? data[pos + 1] : '\0'); kind != Tok::Error) {
        pos += kind == Tok::SlashSlash ? 2 : 1;
      } else {
        break;
      }
      *cursor++ = {kind, static_cast<uint32_t>(start), static_cast<uint32_t>(pos)};
      beforeLast = last;
      last = kind;
    }
    cursor_ = cursor;
    pos_ = pos;
    last_ = last;
    beforeLast_ = beforeLast;
    return lineEnded;
  }

  // A token the main loop does not lex inline: a number that is no plain integer, a string, an
  // operator of two characters, or invalid bytes.
  void lexToken(char c) {
    size_t start = pos_;
    if (isDigit(c) || (c == '.' && pos_ + 1 < text_.size() && isDigit(text_[pos_ + 1]))) {
      lexNumber();
      return;
    }
    if (c == '"' || c == '\'') {
      lexString(c);
      return;
    }
    auto [kind, length] = scanPunctuation(c, pos_ + 1 < text_.size() ? text_[pos_ + 1] : '\0');
    if (kind != Tok::Error) [[likely]] {
      if (kind == Tok::LParen || kind == Tok::LBracket || kind == Tok::LBrace)
        openBracket();
      else if (kind == Tok::RParen || kind == Tok::RBracket || kind == Tok::RBrace)
        closeBracket();
      pos_ += length;
      push(kind, start, pos_);
      return;
    }
    lexInvalid(start, c);
  }

  // Coalesces a run of invalid bytes starting at `start` into one diagnostic and token. Out of
  // line: the error path's strings made every call of lexToken pay for a larger frame.
  [[gnu::cold, gnu::noinline]] void lexInvalid(size_t start, char c) {
    pos_ = scanInvalid(text_, start);
    error(start, pos_,
          pos_ - start == 1 && static_cast<unsigned char>(c) >= 32 && static_cast<unsigned char>(c) < 127
              ? std::string("invalid character '") + c + "'"
              : "invalid characters in input");
    push(Tok::Error, start, pos_);
  }

  void lexNumber() {
    size_t start = pos_;
    auto [kind, end] = scanNumber(text_, start);
    pos_ = end;
    if (kind == Tok::Error)
      error(start, pos_, "invalid number '" + std::string(text_.substr(start, pos_ - start)) + "'");
    push(kind, start, pos_);
  }

  void lexString(char quote) {
    size_t start = pos_;
    auto [closed, end] = scanString(text_, start, quote);
    pos_ = end;
    if (closed) {
      push(Tok::String, start, pos_);
      return;
    }
    error(start, pos_, "unterminated string literal");
    push(Tok::Error, start, pos_);
    // The rest of the line is lost; do not let its open brackets swallow the file.
    depth_ = 0;
    brackets_.clear();
  }

  std::string_view text_;
  uint32_t fileId_;
  size_t pos_;
  DiagnosticSink &diagnostics_;
  // The room lexSome writes tokens into: [outBegin_, limit_) of *out_, written up to cursor_.
  static constexpr size_t kOutputStep = 4096, kOutputSlack = 64;
  std::vector<Token> *out_ = nullptr;
  Token *outBegin_ = nullptr, *cursor_ = nullptr, *limit_ = nullptr, *stop_ = nullptr;
  Tok last_ = kNone, beforeLast_ = kNone; // kinds of the last two tokens produced
  std::vector<uint32_t> indents_;
  uint32_t depth_ = 0;
  std::vector<size_t> brackets_; // offsets of the open brackets
  bool atLineStart_ = true;
  bool reportedTab_ = false;
  bool done_ = false;
  bool reportedCarriageReturn_ = false;
};

std::vector<Token> tokenize(std::string_view text, uint32_t fileId, uint32_t begin, uint32_t end,
                            DiagnosticSink &diagnostics) {
  end = std::min<uint32_t>(end, static_cast<uint32_t>(text.size()));
  begin = std::min(begin, end);
  Lexer lexer(text, fileId, begin, end, diagnostics);
  std::vector<Token> tokens;
  tokens.resize(lexer.lexSome(tokens, 0, SIZE_MAX));
  return tokens;
}

// ---- TokenStream -----------------------------------------------------------------------------

TokenStream::TokenStream() = default;
TokenStream::~TokenStream() = default;

void TokenStream::start(std::string_view text, uint32_t fileId, uint32_t begin, uint32_t end,
                        DiagnosticSink &diagnostics) {
  end = std::min<uint32_t>(end, static_cast<uint32_t>(text.size()));
  begin = std::min(begin, end);
  lexer_ = std::make_unique<Lexer>(text, fileId, begin, end, diagnostics);
  chunks_.clear();
  lexed_ = 0;
  currentTokens_ = nullptr;
  currentFirst_ = currentSize_ = 0;
}

void TokenStream::setCurrent(const Chunk &chunk) {
  currentTokens_ = chunk.tokens.data();
  currentFirst_ = chunk.first;
  currentSize_ = chunk.size;
}

void TokenStream::lexChunk(bool release) {
  std::vector<Token> tokens; // storage of a released chunk (its size its room) or new
  if (!spare_.empty()) {
    tokens = std::move(spare_.back());
    spare_.pop_back();
  }
  size_t count = lexer_->lexSome(tokens, 0, kChunkSize);
  size_t first = lexed_;
  lexed_ += count;
  // Release the chunks that end kKeepBehind tokens or more before the new one.
  size_t released = 0;
  while (release && released < chunks_.size() &&
         chunks_[released].first + chunks_[released].size + kKeepBehind <= first)
    spare_.push_back(std::move(chunks_[released++].tokens));
  chunks_.erase(chunks_.begin(), chunks_.begin() + static_cast<std::ptrdiff_t>(released));
  chunks_.push_back({first, count, std::move(tokens)});
  setCurrent(chunks_.back());
}

const Token &TokenStream::find(size_t index) {
  while (index >= lexed_ && !lexer_->done())
    lexChunk(/*release=*/true);
  if (index >= lexed_)
    return chunks_.back().tokens[chunks_.back().size - 1]; // EndOfFile
  for (const Chunk &chunk : chunks_)
    if (index - chunk.first < chunk.size) {
      setCurrent(chunk);
      return chunk.tokens[index - chunk.first];
    }
  throw std::logic_error("token " + std::to_string(index) + " was released");
}

void TokenStream::lexPastOpenBrackets() {
  while (lexer_ && lexer_->insideBrackets() && !lexer_->done())
    lexChunk(/*release=*/false);
}

void TokenStream::lexToEnd() {
  while (lexer_ && !lexer_->done())
    lexChunk(/*release=*/true);
}

} // namespace tirlower
