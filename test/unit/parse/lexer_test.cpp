// The tokenizer: indentation, bracket-continued lines, comments, literals and lexical errors.
#include <catch2/catch.hpp>

#include "parse/diagnostic_engine.h"
#include "parse/lexer.h"

using namespace tirlower;

namespace {
std::vector<Tok> kinds(const std::string &text, DiagnosticCollector &diagnostics) {
  std::vector<Tok> out;
  for (const Token &t : tokenize(text, 1, 0, UINT32_MAX, diagnostics))
    out.push_back(t.kind);
  return out;
}
std::vector<Tok> kinds(const std::string &text) {
  DiagnosticCollector diagnostics;
  auto out = kinds(text, diagnostics);
  CHECK(diagnostics.diagnostics.empty());
  return out;
}
} // namespace

TEST_CASE("indentation becomes INDENT and DEDENT", "[parse][lexer]") {
  CHECK(kinds("if x:\n    y\nz\n") == std::vector<Tok>{Tok::KwIf, Tok::Name, Tok::Colon, Tok::Newline, Tok::Indent,
                                                       Tok::Name, Tok::Newline, Tok::Dedent, Tok::Name, Tok::Newline,
                                                       Tok::EndOfFile});
  // Blank lines and comment-only lines do not count; dedents are closed at the end.
  CHECK(kinds("a:\n  b\n\n      # c\n  d") == std::vector<Tok>{Tok::Name, Tok::Colon, Tok::Newline, Tok::Indent,
                                                               Tok::Name, Tok::Newline, Tok::Name, Tok::Newline,
                                                               Tok::Dedent, Tok::EndOfFile});
}

TEST_CASE("newlines inside brackets are ignored", "[parse][lexer]") {
  CHECK(kinds("f(a,\n      b)\n") == std::vector<Tok>{Tok::Name, Tok::LParen, Tok::Name, Tok::Comma, Tok::Name,
                                                      Tok::RParen, Tok::Newline, Tok::EndOfFile});
}

TEST_CASE("numbers, strings and operators", "[parse][lexer]") {
  CHECK(kinds("1 1.0 1e-5 .5 'a\\'b' \"c\" // ** -> <= != ==") ==
        std::vector<Tok>{Tok::Int, Tok::Float, Tok::Float, Tok::Float, Tok::String, Tok::String, Tok::SlashSlash,
                         Tok::StarStar, Tok::Arrow, Tok::LessEqual, Tok::NotEqual, Tok::EqualEqual, Tok::Newline,
                         Tok::EndOfFile});
  bool ok = false;
  CHECK(decodeString("'a\\'b\\n'", ok) == "a'b\n");
  CHECK(ok);
  CHECK(decodeString("\"\"\"doc\"\"\"", ok) == "doc");
  decodeString("'\\q'", ok);
  CHECK_FALSE(ok);
}

TEST_CASE("lexical errors are located", "[parse][lexer]") {
  DiagnosticCollector d;
  kinds("x = 'abc\n", d);
  REQUIRE(d.diagnostics.size() == 1);
  CHECK(d.diagnostics[0].message == "unterminated string literal");
  CHECK(d.diagnostics[0].range.begin == 4);

  DiagnosticCollector tabs;
  kinds("a:\n\tb\n\tc\n", tabs);
  REQUIRE(tabs.diagnostics.size() == 1); // reported once per input
  CHECK(tabs.diagnostics[0].message.find("tab character") == 0);

  DiagnosticCollector dedent;
  kinds("a:\n    b\n  c\n", dedent);
  REQUIRE(dedent.diagnostics.size() == 1);
  CHECK(dedent.diagnostics[0].message == "unindent does not match any outer indentation level");

  DiagnosticCollector garbage;
  kinds(std::string("x \x01\x02\xff y"), garbage);
  REQUIRE(garbage.diagnostics.size() == 1);
  CHECK(garbage.diagnostics[0].message == "invalid characters in input");

  DiagnosticCollector unclosed;
  kinds("f(a,\n", unclosed);
  REQUIRE(unclosed.diagnostics.size() == 1);
  CHECK(unclosed.diagnostics[0].message == "'(' was never closed");
}

TEST_CASE("a range of the file is tokenized with absolute offsets", "[parse][lexer]") {
  DiagnosticCollector d;
  std::string text = "junk $$$\n// ----\nabc\n";
  auto tokens = tokenize(text, 1, 17, UINT32_MAX, d);
  REQUIRE(tokens.size() == 3);
  CHECK(tokens[0].kind == Tok::Name);
  CHECK(tokens[0].begin == 17);
  CHECK(d.diagnostics.empty());
}

TEST_CASE("adjacent tokens, and the bytes that end a run of common tokens", "[parse][lexer]") {
  // Names, integers and one- or two-character operators with no blanks between them; the
  // operators that start a longer token, floats and a number's suffix go the general way.
  DiagnosticCollector d;
  std::string text = "x=a*b-c/d//e.f[1]==g**h->i(2.5,3e1,.5,007)\n";
  std::vector<Token> tokens = tokenize(text, 1, 0, UINT32_MAX, d);
  CHECK(d.diagnostics.empty());
  std::vector<Tok> expected{Tok::Name,     Tok::Assign,   Tok::Name,     Tok::Star,       Tok::Name,       Tok::Minus,
                            Tok::Name,     Tok::Slash,    Tok::Name,     Tok::SlashSlash, Tok::Name,       Tok::Dot,
                            Tok::Name,     Tok::LBracket, Tok::Int,      Tok::RBracket,   Tok::EqualEqual, Tok::Name,
                            Tok::StarStar, Tok::Name,     Tok::Arrow,    Tok::Name,       Tok::LParen,     Tok::Float,
                            Tok::Comma,    Tok::Float,    Tok::Comma,    Tok::Float,      Tok::Comma,      Tok::Int,
                            Tok::RParen,   Tok::Newline,  Tok::EndOfFile};
  std::vector<Tok> got;
  std::string spelled;
  for (const Token &t : tokens) {
    got.push_back(t.kind);
    spelled += text.substr(t.begin, t.end - t.begin) + "|";
  }
  CHECK(got == expected);
  CHECK(spelled == "x|=|a|*|b|-|c|/|d|//|e|.|f|[|1|]|==|g|**|h|->|i|(|2.5|,|3e1|,|.5|,|007|)|\n||");

  // A line end closes the line at depth 0 (the next line's indentation follows), not inside
  // brackets; the input may end in a name or a number.
  CHECK(kinds("f(a,\n  1)\n  \ng = 12") == std::vector<Tok>{Tok::Name, Tok::LParen, Tok::Name, Tok::Comma, Tok::Int,
                                                            Tok::RParen, Tok::Newline, Tok::Name, Tok::Assign, Tok::Int,
                                                            Tok::Newline, Tok::EndOfFile});
  CHECK(kinds("a:\r\n  b\r\nc") == std::vector<Tok>{Tok::Name, Tok::Colon, Tok::Newline, Tok::Indent, Tok::Name,
                                                    Tok::Newline, Tok::Dedent, Tok::Name, Tok::Newline,
                                                    Tok::EndOfFile});
  DiagnosticCollector number;
  kinds("x = 12ab + 1\n", number);
  REQUIRE(number.diagnostics.size() == 1);
  CHECK(number.diagnostics[0].message == "invalid number '12ab'");
}
