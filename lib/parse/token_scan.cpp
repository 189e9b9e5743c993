// The tokens of TVMScript one at a time (token_scan.h): the scanners of the rarer tokens,
// the names of token kinds in messages, and the value of a string token.
#include "parse/token_scan.h"

#include <string>

namespace tirlower {
namespace lexing {

std::pair<Tok, size_t> scanPunctuation(char c, char next) {
  switch (c) {
  case '(': return {Tok::LParen, 1};
  case ')': return {Tok::RParen, 1};
  case '[': return {Tok::LBracket, 1};
  case ']': return {Tok::RBracket, 1};
  case '{': return {Tok::LBrace, 1};
  case '}': return {Tok::RBrace, 1};
  case ',': return {Tok::Comma, 1};
  case ':': return {Tok::Colon, 1};
  case '.': return {Tok::Dot, 1};
  case '@': return {Tok::At, 1};
  case '+': return {Tok::Plus, 1};
  case '%': return {Tok::Percent, 1};
  case '&': return {Tok::Amp, 1};
  case '|': return {Tok::Pipe, 1};
  case '^': return {Tok::Caret, 1};
  case '~': return {Tok::Tilde, 1};
  case '-': return next == '>' ? std::pair{Tok::Arrow, size_t(2)} : std::pair{Tok::Minus, size_t(1)};
  case '*': return next == '*' ? std::pair{Tok::StarStar, size_t(2)} : std::pair{Tok::Star, size_t(1)};
  case '/': return next == '/' ? std::pair{Tok::SlashSlash, size_t(2)} : std::pair{Tok::Slash, size_t(1)};
  case '<':
    if (next == '=')
      return {Tok::LessEqual, 2};
    return next == '<' ? std::pair{Tok::LessLess, size_t(2)} : std::pair{Tok::Less, size_t(1)};
  case '>':
    if (next == '=')
      return {Tok::GreaterEqual, 2};
    return next == '>' ? std::pair{Tok::GreaterGreater, size_t(2)} : std::pair{Tok::Greater, size_t(1)};
  case '=': return next == '=' ? std::pair{Tok::EqualEqual, size_t(2)} : std::pair{Tok::Assign, size_t(1)};
  case '!':
    if (next == '=')
      return {Tok::NotEqual, 2};
    break;
  default: break;
  }
  return {Tok::Error, 1};
}

// Through locals: numbers are mostly one or two digits, and reloading members per byte was most
// of their cost when this was a method of the lexer.
std::pair<Tok, size_t> scanNumber(std::string_view text, size_t start) {
  const char *data = text.data();
  const size_t size = text.size();
  size_t pos = start;
  bool isFloat = false;
  while (pos < size && isDigit(data[pos]))
    ++pos;
  if (pos < size && data[pos] == '.') {
    isFloat = true;
    ++pos;
    while (pos < size && isDigit(data[pos]))
      ++pos;
  }
  if (pos < size && (data[pos] == 'e' || data[pos] == 'E')) {
    size_t save = pos++;
    if (pos < size && (data[pos] == '+' || data[pos] == '-'))
      ++pos;
    if (pos < size && isDigit(data[pos])) {
      isFloat = true;
      while (pos < size && isDigit(data[pos]))
        ++pos;
    } else {
      pos = save;
    }
  }
  if (pos < size && isIdentChar(data[pos])) {
    while (pos < size && isIdentChar(data[pos]))
      ++pos;
    return {Tok::Error, pos};
  }
  return {isFloat ? Tok::Float : Tok::Int, pos};
}

std::pair<bool, size_t> scanString(std::string_view text, size_t start, char quote) {
  bool triple = start + 2 < text.size() && text[start + 1] == quote && text[start + 2] == quote;
  size_t pos = start + (triple ? 3 : 1);
  while (pos < text.size()) {
    char c = text[pos];
    if (c == '\\' && pos + 1 < text.size()) {
      pos += 2;
      continue;
    }
    if (c == '\n' && !triple)
      break;
    if (c == quote) {
      if (!triple)
        return {true, pos + 1};
      if (pos + 2 < text.size() && text[pos + 1] == quote && text[pos + 2] == quote)
        return {true, pos + 3};
    }
    ++pos;
  }
  return {false, pos};
}

size_t scanInvalid(std::string_view text, size_t start) {
  size_t pos = start;
  while (pos < text.size()) {
    char d = text[pos];
    if (isIdentChar(d) || d == ' ' || d == '\n' || d == '\t' || d == '#' || d == '"' || d == '\'' ||
        std::string_view("()[]{},:.@+-*/%<>=&|^~").find(d) != std::string_view::npos)
      break;
    ++pos;
  }
  return pos == start ? pos + 1 : pos;
}

} // namespace lexing

const char *tokenName(Tok kind) {
  switch (kind) {
  case Tok::EndOfFile: return "end of input";
  case Tok::Newline: return "end of line";
  case Tok::Indent: return "indent";
  case Tok::Dedent: return "dedent";
  case Tok::Name: return "name";
  case Tok::Int: return "integer";
  case Tok::Float: return "number";
  case Tok::String: return "string";
  case Tok::KwDef: return "'def'";
  case Tok::KwClass: return "'class'";
  case Tok::KwFor: return "'for'";
  case Tok::KwIn: return "'in'";
  case Tok::KwIf: return "'if'";
  case Tok::KwElif: return "'elif'";
  case Tok::KwElse: return "'else'";
  case Tok::KwWhile: return "'while'";
  case Tok::KwWith: return "'with'";
  case Tok::KwAs: return "'as'";
  case Tok::KwAssert: return "'assert'";
  case Tok::KwAnd: return "'and'";
  case Tok::KwOr: return "'or'";
  case Tok::KwNot: return "'not'";
  case Tok::KwLambda: return "'lambda'";
  case Tok::KwTrue: return "'True'";
  case Tok::KwFalse: return "'False'";
  case Tok::KwNone: return "'None'";
  case Tok::KwReturn: return "'return'";
  case Tok::KwPass: return "'pass'";
  case Tok::KwFrom: return "'from'";
  case Tok::KwImport: return "'import'";
  case Tok::LParen: return "'('";
  case Tok::RParen: return "')'";
  case Tok::LBracket: return "'['";
  case Tok::RBracket: return "']'";
  case Tok::LBrace: return "'{'";
  case Tok::RBrace: return "'}'";
  case Tok::Comma: return "','";
  case Tok::Colon: return "':'";
  case Tok::Dot: return "'.'";
  case Tok::At: return "'@'";
  case Tok::Arrow: return "'->'";
  case Tok::Assign: return "'='";
  case Tok::Plus: return "'+'";
  case Tok::Minus: return "'-'";
  case Tok::Star: return "'*'";
  case Tok::StarStar: return "'**'";
  case Tok::Slash: return "'/'";
  case Tok::SlashSlash: return "'//'";
  case Tok::Percent: return "'%'";
  case Tok::Less: return "'<'";
  case Tok::LessEqual: return "'<='";
  case Tok::Greater: return "'>'";
  case Tok::GreaterEqual: return "'>='";
  case Tok::EqualEqual: return "'=='";
  case Tok::NotEqual: return "'!='";
  case Tok::LessLess: return "'<<'";
  case Tok::GreaterGreater: return "'>>'";
  case Tok::Amp: return "'&'";
  case Tok::Pipe: return "'|'";
  case Tok::Caret: return "'^'";
  case Tok::Tilde: return "'~'";
  case Tok::Error: return "invalid token";
  }
  return "token";
}

std::string decodeString(std::string_view token, bool &ok) {
  ok = true;
  char quote = token.front();
  size_t q = token.size() >= 6 && token[1] == quote && token[2] == quote ? 3 : 1;
  std::string_view body = token.substr(q, token.size() - 2 * q);
  if (body.find('\\') == std::string_view::npos) // no escapes: the text itself ("float32", "NHWC")
    return std::string(body);
  std::string out;
  out.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\' || i + 1 == body.size()) {
      out += c;
      continue;
    }
    char e = body[++i];
    switch (e) {
    case 'n': out += '\n'; break;
    case 't': out += '\t'; break;
    case 'r': out += '\r'; break;
    case '0': out += '\0'; break;
    case '\\': out += '\\'; break;
    case '\'': out += '\''; break;
    case '"': out += '"'; break;
    case '\n': break;
    default:
      ok = false;
      out += '\\';
      out += e;
      break;
    }
  }
  return out;
}

} // namespace tirlower
