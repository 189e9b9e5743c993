#include <catch2/catch.hpp>

#include "arith/analyzer.h"
#include "arith/expr_util.h"
#include "test_util.h"

using namespace tirlower;
using namespace tirlower::test;

TEST_CASE("interval bounds", "[bounds]") {
  Analyzer a;
  Var i = var("i"), j = var("j"), n = var("n"), k = var("k");
  a.bindRange(i, 0, 8);
  a.bindRange(j, 0, 16);
  IntBounds b = a.bounds(i * c(16) + j);
  CHECK(*b.min == 0);
  CHECK(*b.max == 127);
  b = a.bounds(fdiv(i * c(16) + j, 4));
  CHECK(*b.min == 0);
  CHECK(*b.max == 31);
  b = a.bounds(fmod(n, 4));
  CHECK(*b.min == 0);
  CHECK(*b.max == 3);
  b = a.bounds(n + c(1));
  CHECK(!b.max);
  CHECK(a.bounds(i - i).isConstant());
  b = a.bounds(bin(BinaryOp::Min, i, j - c(20)));
  CHECK(*b.max == -5);
  a.bindRange(k, c(0), n);
  b = a.bounds(k);
  CHECK(*b.min == 0);
  CHECK(!b.max);
  b = a.bounds(c(3) - i);
  CHECK(*b.min == -4);
  CHECK(*b.max == 3);
}

TEST_CASE("provers", "[bounds]") {
  Analyzer a;
  Var i = var("i"), j = var("j"), n = var("n");
  a.bindRange(i, 0, 8);
  a.bindRange(j, 0, 16);
  CHECK(a.canProve(bin(BinaryOp::LT, i * c(16) + j, c(128))));
  CHECK_FALSE(a.canProve(bin(BinaryOp::LT, i * c(16) + j, c(127))));
  CHECK(a.canProve(bin(BinaryOp::GE, i, c(0))));
  CHECK_FALSE(a.canProve(bin(BinaryOp::GE, n, c(0))));
  CHECK(a.canProve(bin(BinaryOp::LE, n, n)));
  CHECK(a.canProve(bin(BinaryOp::And, bin(BinaryOp::LT, i, c(8)), bin(BinaryOp::LT, j, c(16)))));
  // n is unbounded: n * 4 + 3 may wrap around, so its quotient by 4 is not n for every n.
  CHECK_FALSE(a.canProveEqual(fdiv(n * c(4) + c(3), 4), n));
  CHECK(a.canProveEqual(fdiv(i * c(16) + j, 16) * c(16) + fmod(i * c(16) + j, 16), i * c(16) + j));
  CHECK_FALSE(a.canProveEqual(fdiv(n, 4) * c(4), n));
  a.bindRange(n, 0, 4);
  CHECK(a.canProveEqual(fdiv(n, 4), c(0)));
}
