// Token helpers, error recovery and the expression grammar (Python precedence) into the
// arena AST.
#include <algorithm>
#include <array>

#include "parse/parser_impl.h"

namespace tirlower {

namespace {
constexpr uint32_t kMaxNesting = 200;
constexpr uint32_t kMaxDepth = 1000;

struct NestingGuard {
  uint32_t &counter;
  ~NestingGuard() { --counter; }
};
} // namespace

void Parser::expectFailed(const char *what) {
  const Token &t = peek();
  std::string found = t.kind == Tok::Name || t.kind == Tok::Int || t.kind == Tok::Float
                          ? "'" + std::string(tokenText(t)) + "'"
                          : tokenName(t.kind);
  if (t.kind == Tok::Error)
    failSilently();
  fail(tokenRange(t), std::string("expected ") + what + ", found " + found);
}

void Parser::report(Diagnostic diagnostic) {
  if (diagnostic.severity == Severity::Error)
    failed_ = true;
  tokens_.lexPastOpenBrackets();
  flushLexerDiagnostics(diagnostic.range.begin);
  diagnostics_.report(std::move(diagnostic));
}

void Parser::LexerSink::report(Diagnostic diagnostic) {
  parser.failed_ = true;
  // In source order; equal positions keep the order the lexer found them in. Only an
  // unclosed-bracket error (found at the end) goes anywhere but last.
  auto &pending = parser.lexerDiagnostics_;
  auto at = std::upper_bound(pending.begin() + static_cast<std::ptrdiff_t>(parser.nextLexerDiagnostic_), pending.end(),
                             diagnostic.range.begin,
                             [](uint32_t begin, const Diagnostic &d) { return begin < d.range.begin; });
  pending.insert(at, std::move(diagnostic));
}

void Parser::flushLexerDiagnostics(uint32_t upTo) {
  if (upTo == UINT32_MAX)
    tokens_.lexToEnd();
  while (nextLexerDiagnostic_ < lexerDiagnostics_.size() && lexerDiagnostics_[nextLexerDiagnostic_].range.begin <= upTo)
    diagnostics_.report(std::move(lexerDiagnostics_[nextLexerDiagnostic_++]));
}

void Parser::fail(SourceRange where, std::string message) {
  report({Severity::Error, where, std::move(message), {}});
  throw StatementFailed{};
}

void Parser::failWithNote(SourceRange where, std::string message, SourceRange noteAt, std::string note) {
  Diagnostic d{Severity::Error, where, std::move(message), {}};
  d.note(noteAt, std::move(note));
  report(std::move(d));
  throw StatementFailed{};
}

// Skips the rest of the current logical line, the block it opens, and any elif/else
// clauses that continue it.
void Parser::skipStatement() {
  while (true) {
    while (!at(Tok::Newline) && !at(Tok::EndOfFile) && !at(Tok::Dedent) && !at(Tok::Indent))
      advance();
    accept(Tok::Newline);
    if (at(Tok::Indent))
      skipBlock();
    if (!at(Tok::KwElif) && !at(Tok::KwElse))
      return;
  }
}

void Parser::skipBlock() {
  size_t depth = 0;
  while (!at(Tok::EndOfFile)) {
    Tok kind = peek().kind;
    advance();
    if (kind == Tok::Indent)
      ++depth;
    else if (kind == Tok::Dedent && --depth == 0)
      return;
  }
}

uint32_t Parser::makeNode(Ast kind, uint32_t begin, uint32_t end, const uint32_t *children, uint32_t count, Tok op) {
  // One pass over the children (short lists: a loop beats a memmove call) copies them and
  // finds the deepest.
  uint32_t depth = 0;
  auto first = static_cast<uint32_t>(children_.size());
  uint32_t *out = children_.append(count);
  for (uint32_t k = 0; k < count; ++k) {
    uint32_t c = children[k];
    out[k] = c;
    depth = std::max<uint32_t>(depth, ast_[c].depth);
  }
  if (depth + 1 > kMaxDepth) [[unlikely]] {
    children_.resize(first);
    failTooDeep(begin, end);
  }
  return ast_.push({kind, op, static_cast<uint16_t>(depth + 1), begin, end, begin, end, first, count});
}

void Parser::failTooDeep(uint32_t begin, uint32_t end) {
  fail(range(begin, end), "expression is too deeply nested (more than " + std::to_string(kMaxDepth) + " levels)");
}

void Parser::enterNesting(uint32_t at) {
  if (++nesting_ > kMaxNesting) {
    --nesting_;
    fail(range(at, at + 1), "nesting too deep (more than " + std::to_string(kMaxNesting) + " levels)");
  }
}

std::string_view Parser::builtinName(uint32_t id, std::string_view module) const {
  const AstNode &n = node(id);
  if (n.kind != Ast::Attr)
    return {};
  uint32_t base = child(id, 0);
  if (node(base).kind != Ast::Name || nodeText(base) != module)
    return {};
  return nodeName(id);
}

namespace {
// Python's binary operator precedences, loosest first; 0 for a token that is no binary
// operator. `not` (a prefix operator) sits between `and` and the comparisons; the bitwise
// operators between the comparisons and `+`: `|` < `^` < `&` < `<<` `>>`.
constexpr int kOrPrecedence = 1;
constexpr int kNotPrecedence = 3;
constexpr int kComparePrecedence = 4;
constexpr int kPowerPrecedence = 11;

constexpr std::array<uint8_t, 256> kBinaryPrecedence = [] {
  std::array<uint8_t, 256> table{};
  table[static_cast<size_t>(Tok::KwOr)] = 1;
  table[static_cast<size_t>(Tok::KwAnd)] = 2;
  for (Tok t : {Tok::Less, Tok::LessEqual, Tok::Greater, Tok::GreaterEqual, Tok::EqualEqual, Tok::NotEqual})
    table[static_cast<size_t>(t)] = kComparePrecedence;
  table[static_cast<size_t>(Tok::Pipe)] = 5;
  table[static_cast<size_t>(Tok::Caret)] = 6;
  table[static_cast<size_t>(Tok::Amp)] = 7;
  table[static_cast<size_t>(Tok::LessLess)] = table[static_cast<size_t>(Tok::GreaterGreater)] = 8;
  table[static_cast<size_t>(Tok::Plus)] = table[static_cast<size_t>(Tok::Minus)] = 9;
  for (Tok t : {Tok::Star, Tok::Slash, Tok::SlashSlash, Tok::Percent})
    table[static_cast<size_t>(t)] = 10;
  table[static_cast<size_t>(Tok::StarStar)] = kPowerPrecedence;
  return table;
}();

int binaryPrecedence(Tok kind) {
  return kBinaryPrecedence[static_cast<size_t>(kind)];
}

// The atoms parseAtom makes a node of from one token, by kind; Ast::Empty for the others.
constexpr std::array<Ast, 256> kLeafAtom = [] {
  std::array<Ast, 256> table{};
  table.fill(Ast::Empty);
  table[static_cast<size_t>(Tok::Name)] = Ast::Name;
  table[static_cast<size_t>(Tok::Int)] = Ast::Int;
  table[static_cast<size_t>(Tok::Float)] = Ast::Float;
  table[static_cast<size_t>(Tok::String)] = Ast::String;
  table[static_cast<size_t>(Tok::KwTrue)] = Ast::True;
  table[static_cast<size_t>(Tok::KwFalse)] = Ast::False;
  table[static_cast<size_t>(Tok::KwNone)] = Ast::None;
  return table;
}();
} // namespace

uint32_t Parser::parseExpr() {
  // An atom that no operator, attribute, call or subscript follows (most indices and arguments):
  // the node parseBinary would return, without descending through its levels.
  const Token &t = peek();
  if (Ast leaf = kLeafAtom[static_cast<size_t>(t.kind)]; leaf != Ast::Empty) {
    Tok next = peek(1).kind;
    if (binaryPrecedence(next) == 0 && next != Tok::Dot && next != Tok::LParen && next != Tok::LBracket) {
      uint32_t begin = t.begin, end = t.end;
      advance();
      return makeLeaf(leaf, begin, end);
    }
  }
  if (at(Tok::KwLambda))
    return parseLambda();
  return parseBinary(kOrPrecedence);
}


uint32_t Parser::parseLambda() {
  uint32_t begin = expect(Tok::KwLambda, "'lambda'").begin;
  size_t mark = scratch_.size();
  while (at(Tok::Name)) {
    const Token &t = peek();
    scratch_.push_back(makeLeaf(Ast::Name, t.begin, t.end));
    advance();
    if (!accept(Tok::Comma))
      break;
  }
  expect(Tok::Colon, "':' after the lambda parameters");
  scratch_.push_back(parseExpr());
  uint32_t id = makeNode(Ast::Lambda, begin, node(scratch_.back()).end, scratch_.data() + mark,
                         static_cast<uint32_t>(scratch_.size() - mark));
  scratch_.resize(mark);
  return id;
}

// Precedence climbing: one loop replaces a function per precedence level. Operators of equal
// precedence associate to the left; comparisons do not chain.
uint32_t Parser::parseBinary(int minPrecedence) {
  uint32_t left = minPrecedence <= kNotPrecedence && at(Tok::KwNot) ? parseNot() : parseUnary();
  while (true) {
    Tok op = peek().kind;
    int precedence = binaryPrecedence(op);
    if (precedence < minPrecedence || precedence == 0)
      return left;
    if (precedence == kPowerPrecedence)
      fail(tokenRange(peek()), "'**' is not supported; use T.pow");
    advance();
    uint32_t operands[2] = {left, parseBinary(precedence + 1)};
    uint32_t begin = node(left).begin, end = node(operands[1]).end;
    if (op == Tok::KwOr || op == Tok::KwAnd) {
      left = makeNode(op == Tok::KwOr ? Ast::Or : Ast::And, begin, end, operands, 2);
    } else if (precedence == kComparePrecedence) {
      left = makeNode(Ast::Compare, begin, end, operands, 2, op);
      if (binaryPrecedence(peek().kind) == kComparePrecedence) {
        advance();
        uint32_t next = parseBinary(kComparePrecedence + 1);
        fail(range(begin, node(next).end), "chained comparisons are not supported; combine them with 'and'");
      }
    } else {
      left = makeNode(Ast::Binary, begin, end, operands, 2, op);
    }
  }
}

uint32_t Parser::parseNot() {
  uint32_t begin = peek().begin;
  enterNesting(begin);
  NestingGuard guard{nesting_};
  advance();
  uint32_t operand = at(Tok::KwNot) ? parseNot() : parseBinary(kComparePrecedence);
  return makeNode(Ast::Not, begin, node(operand).end, &operand, 1);
}

uint32_t Parser::parseUnary() {
  const Token &t = peek();
  Tok kind = t.kind;
  if (kind != Tok::Minus && kind != Tok::Plus && kind != Tok::Tilde)
    return parsePostfix();
  uint32_t begin = t.begin;
  enterNesting(begin);
  NestingGuard guard{nesting_};
  advance();
  uint32_t operand = parseUnary();
  if (kind == Tok::Plus)
    return operand;
  return makeNode(kind == Tok::Minus ? Ast::Neg : Ast::Invert, begin, node(operand).end, &operand, 1);
}

uint32_t Parser::parsePostfix() {
  uint32_t base = parseAtom();
  while (true) {
    Tok next = peek().kind;
    if (next == Tok::Dot) {
      advance();
      const Token &name = expect(Tok::Name, "an attribute name after '.'");
      uint32_t id = makeNode(Ast::Attr, node(base).begin, name.end, &base, 1);
      ast_[id].nameBegin = name.begin;
      ast_[id].nameEnd = name.end;
      base = id;
      continue;
    }
    if (next == Tok::LParen || next == Tok::LBracket) {
      bool call = next == Tok::LParen;
      enterNesting(peek().begin);
      NestingGuard guard{nesting_};
      advance();
      // Items collect on the shared scratch stack (no allocation per call).
      size_t mark = scratch_.size();
      scratch_.push_back(base);
      if (call)
        parseItems(Tok::RParen, &Parser::parseCallArgument, scratch_);
      else
        parseItems(Tok::RBracket, &Parser::parseSubscriptItem, scratch_);
      auto count = static_cast<uint32_t>(scratch_.size() - mark);
      if (!call && count == 1)
        fail(range(node(base).begin, tokens_[pos_ - 1].end), "expected an index inside '[]'");
      base = makeNode(call ? Ast::Call : Ast::Subscript, node(base).begin, tokens_[pos_ - 1].end,
                      scratch_.data() + mark, count);
      scratch_.resize(mark);
      continue;
    }
    return base;
  }
}

void Parser::parseItems(Tok close, uint32_t (Parser::*item)(), std::vector<uint32_t> &out) {
  while (!at(close)) {
    out.push_back((this->*item)());
    if (!accept(Tok::Comma))
      break;
  }
  expect(close, tokenName(close));
}

uint32_t Parser::parseCallArgument() {
  if (at(Tok::Name) && peek(1).kind == Tok::Assign) {
    const Token name = peek();
    advance();
    advance();
    uint32_t value = parseExpr();
    uint32_t id = makeNode(Ast::Keyword, name.begin, node(value).end, &value, 1);
    ast_[id].nameBegin = name.begin;
    ast_[id].nameEnd = name.end;
    return id;
  }
  return parseExpr();
}

uint32_t Parser::parseSubscriptItem() {
  uint32_t begin = peek().begin;
  if (!at(Tok::Colon)) {
    uint32_t index = parseExpr();
    if (!at(Tok::Colon))
      return index;
    begin = node(index).begin;
    scratch_.push_back(index);
  } else {
    scratch_.push_back(makeLeaf(Ast::Empty, begin, begin));
  }
  // A slice start:stop[:step]; omitted parts are Empty nodes.
  size_t mark = scratch_.size() - 1;
  advance();
  uint32_t at0 = peek().begin;
  scratch_.push_back(at(Tok::Comma) || at(Tok::RBracket) || at(Tok::Colon) ? makeNode(Ast::Empty, at0, at0)
                                                                           : parseExpr());
  uint32_t step = UINT32_MAX;
  if (accept(Tok::Colon) && !at(Tok::Comma) && !at(Tok::RBracket))
    step = parseExpr();
  scratch_.push_back(step != UINT32_MAX ? step : makeNode(Ast::Empty, peek().begin, peek().begin));
  uint32_t id = makeNode(Ast::Slice, begin, tokens_[pos_ - 1].end, scratch_.data() + mark, 3);
  scratch_.resize(mark);
  return id;
}

uint32_t Parser::parseAtom() {
  const Token t = peek();
  switch (t.kind) {
  case Tok::Name: advance(); return makeLeaf(Ast::Name, t.begin, t.end);
  case Tok::Int: advance(); return makeLeaf(Ast::Int, t.begin, t.end);
  case Tok::Float: advance(); return makeLeaf(Ast::Float, t.begin, t.end);
  case Tok::String: advance(); return makeLeaf(Ast::String, t.begin, t.end);
  case Tok::KwTrue: advance(); return makeLeaf(Ast::True, t.begin, t.end);
  case Tok::KwFalse: advance(); return makeLeaf(Ast::False, t.begin, t.end);
  case Tok::KwNone: advance(); return makeLeaf(Ast::None, t.begin, t.end);
  case Tok::LParen:
  case Tok::LBracket:
  case Tok::LBrace: {
    enterNesting(t.begin);
    NestingGuard guard{nesting_};
    advance();
    size_t mark = scratch_.size();
    auto finish = [&](Ast kind) {
      uint32_t id = makeNode(kind, t.begin, tokens_[pos_ - 1].end, scratch_.data() + mark,
                             static_cast<uint32_t>(scratch_.size() - mark));
      scratch_.resize(mark);
      return id;
    };
    if (t.kind == Tok::LBrace) {
      while (!at(Tok::RBrace)) {
        scratch_.push_back(parseExpr());
        expect(Tok::Colon, "':' in a dict");
        scratch_.push_back(parseExpr());
        if (!accept(Tok::Comma))
          break;
      }
      expect(Tok::RBrace, "'}'");
      return finish(Ast::Dict);
    }
    if (t.kind == Tok::LBracket) {
      parseItems(Tok::RBracket, &Parser::parseExpr, scratch_);
      return finish(Ast::List);
    }
    bool tuple = at(Tok::RParen);
    while (!at(Tok::RParen)) {
      scratch_.push_back(parseExpr());
      if (!accept(Tok::Comma))
        break;
      tuple = true;
    }
    expect(Tok::RParen, "')'");
    if (!tuple) {
      // A parenthesized expression keeps its inner node, widened to cover the parentheses
      // so diagnostics underline what the user wrote.
      uint32_t inner = scratch_[mark];
      scratch_.resize(mark);
      ast_[inner].begin = t.begin;
      ast_[inner].end = tokens_[pos_ - 1].end;
      return inner;
    }
    return finish(Ast::Tuple);
  }
  case Tok::Error: failSilently();
  default: break;
  }
  std::string found = tokenName(t.kind);
  if (t.kind == Tok::KwLambda)
    fail(tokenRange(t), "a lambda is only allowed as an index map");
  fail(tokenRange(t), "expected an expression, found " + found);
}

} // namespace tirlower
