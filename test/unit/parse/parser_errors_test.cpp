// Parser diagnostics: exact rendering, recovery across statements and functions, and no
// crash or hang on hostile input.
#include <catch2/catch.hpp>

#include <random>

#include "test_util.h"

using namespace tirlower;
using tirlower::test::function;
using tirlower::test::parse;

TEST_CASE("an undefined name renders with a caret and a suggestion", "[parse][errors]") {
  auto p =
      parse(function("A: T.Buffer((16,), \"float32\"), B: T.Buffer((16,), \"float32\")", "    for i in range(16):\n"
                                                                                         "        B[i] = Aa[i]\n"));
  CHECK_FALSE(p->module);
  CHECK(p->rendered() == "in.tir:6:16: error: use of undefined name 'Aa'\n"
                         "        B[i] = Aa[i]\n"
                         "               ^~\n"
                         "in.tir:6:16: note: did you mean 'A'?\n"
                         "        B[i] = Aa[i]\n"
                         "               ^~\n");
}

TEST_CASE("type errors cover the offending text", "[parse][errors]") {
  auto p = parse(function("A: T.Buffer((16,), \"float32\"), n: T.int64", "    A[0] = A[1] + n\n"));
  CHECK(p->rendered() == "in.tir:5:12: error: operands of '+' have different types: float32 and int64\n"
                         "    A[0] = A[1] + n\n"
                         "           ^~~~~~~~\n");
}

TEST_CASE("the lanes rule states both lane counts", "[parse][errors]") {
  auto p = parse(function("A: T.Buffer((16,), \"float32x2\")", "    A[0:4] = A[0:2]\n"));
  CHECK(p->rendered() == "in.tir:5:5: error: cannot store a value with 4 lanes into 'A': the access has 8 lanes "
                         "(4 index lanes x 2 element lanes)\n"
                         "    A[0:4] = A[0:2]\n"
                         "    ^~~~~~~~~~~~~~~\n");
}

TEST_CASE("recovery reports independent errors in several statements and functions", "[parse][errors]") {
  auto p = parse("from tvm.script import tir as T\n\n"
                 "@T.prim_func\n"
                 "def f(A: T.Buffer((16,), \"float32\")):\n"
                 "    A[0] = x\n"
                 "    A[1] = y\n"
                 "    for i in range(q):\n"
                 "        A[i] = never_reported\n"
                 "    B = T.alloc_buffer((4,), \"bad\")\n"
                 "    B[0] = A[0]\n" // B is poisoned: no cascade
                 "\n"
                 "@T.prim_func\n"
                 "def g(A: T.Buffer((16,) \"float32\")):\n"
                 "    A[0] = skipped_with_header\n"
                 "\n"
                 "@T.prim_func\n"
                 "def h(A: T.Buffer((16,), \"float32\")):\n"
                 "    A[0] = z\n");
  CHECK_FALSE(p->module);
  std::vector<std::string> messages;
  for (const Diagnostic &d : p->diagnostics.diagnostics)
    messages.push_back(d.message);
  CHECK(messages == std::vector<std::string>{"use of undefined name 'x'", "use of undefined name 'y'",
                                             "use of undefined name 'q'", "unknown dtype 'bad'",
                                             "expected ')', found string", "use of undefined name 'z'"});
}

TEST_CASE("hostile input never crashes or hangs", "[parse][errors]") {
  std::vector<std::string> inputs = {
      "",
      "\n\n\n",
      std::string("\0\xff\xfe\x01", 4),
      "@",
      "@T.prim_func",
      "@T.prim_func\ndef",
      "@T.prim_func\ndef f(",
      "@T.prim_func\ndef f():\n",
      "@T.prim_func\ndef f():\n    for",
      "@T.prim_func\ndef f():\n    x = (((",
      "@T.prim_func\ndef f():\n    x = )))",
      "@T.prim_func\ndef f():\n    x = 1 +",
      "@T.prim_func\ndef f():\n  if 1:\n      pass\n    pass\n",
      "@I.ir_module\nclass M:\n",
      "@I.ir_module\nclass M:\n    x = 1\n",
      "'''",
      "\"abc",
      "@T.prim_func\ndef f():\n    x = - - - - - - 1\n    T.evaluate(x)\n",
      "@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    A[0:] = A[:]\n",
      "@T.prim_func\ndef f():\n    x = 9223372036854775807 + 1\n",
      "@T.prim_func\ndef f():\n    x = -9223372036854775808\n",
      "@T.prim_func\ndef f():\n    x = 1e999\n",
  };
  std::string deep = "@T.prim_func\ndef f():\n    x = " + std::string(100000, '(') + "\n";
  inputs.push_back(deep);
  inputs.push_back("@T.prim_func\ndef f():\n    x = " + std::string(100000, '-') + "1\n");
  std::string chain = "@T.prim_func\ndef f(n: T.int32):\n    x = n";
  for (int k = 0; k < 5000; ++k)
    chain += " + n";
  inputs.push_back(chain + "\n");
  std::string indents = "@T.prim_func\ndef f(n: T.int32):\n";
  for (int k = 1; k < 1000; ++k)
    indents += std::string(k, ' ') + "if n > 0:\n";
  inputs.push_back(indents);
  std::mt19937 random(7);
  std::string alphabet = "T.()[]{}:,=+-*/%<>!\"'# \n\tabcxyz0123456789_@";
  for (int k = 0; k < 200; ++k) {
    std::string s = "@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    ";
    for (int j = 0; j < 60; ++j)
      s += alphabet[random() % alphabet.size()];
    inputs.push_back(s);
  }
  for (const std::string &input : inputs) {
    auto p = parse(input);
    (void)p->rendered();
  }
  SUCCEED();
}

TEST_CASE("declaration nesting is bounded", "[parse][errors]") {
  std::string body;
  for (int k = 0; k < 6000; ++k)
    body += "    x" + std::to_string(k) + " = " + std::to_string(k) + "\n";
  auto p = parse(function("A: T.Buffer((16,), \"int32\")", body + "    A[0] = x0\n"));
  CHECK_FALSE(p->module);
  REQUIRE_FALSE(p->diagnostics.diagnostics.empty());
  CHECK(p->diagnostics.diagnostics[0].message.find("too many nested declarations (more than 5000)") == 0);
  body.clear();
  for (int k = 0; k < 3000; ++k)
    body += "    x" + std::to_string(k) + " = " + std::to_string(k) + "\n";
  auto ok = parse(function("A: T.Buffer((16,), \"int32\")", body + "    A[0] = x0\n"));
  CHECK(ok->module);
}

TEST_CASE("a huge literal is located", "[parse][errors]") {
  auto p = parse(function("A: T.Buffer((16,), \"int64\")", "    A[0] = 99999999999999999999\n"));
  REQUIRE(p->diagnostics.diagnostics.size() == 1);
  CHECK(p->diagnostics.diagnostics[0].message.find("integer literal too large") == 0);
}
