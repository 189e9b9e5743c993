// Whole functions run by the interpreter, checked against values computed here in plain C++.
#include <catch2/catch.hpp>

#include "builders.h"

using namespace tirlower;
using namespace tirlower::test;

TEST_CASE("elementwise add of random inputs", "[interp]") {
  Buffer a = buffer("A", dims({64})), b = buffer("B", dims({64})), out = buffer("C", dims({64}));
  Var i = var("i");
  PrimFunc f = func("add", {a, b, out}, loop(i, 64, store(out, load(a, {i}) + load(b, {i}), {i})));
  std::vector<ArgValue> args = makeRandomArgs(f, 7);
  RunResult r = run(f, args);
  REQUIRE(r.ok());
  CHECK(r.steps == 64);
  for (size_t k = 0; k < 64; ++k) {
    float x = static_cast<float>(args[0].buffer->getFloat(k)), y = static_cast<float>(args[1].buffer->getFloat(k));
    REQUIRE(args[2].buffer->getFloat(k) == static_cast<double>(x + y));
  }
}

TEST_CASE("2-d transpose", "[interp]") {
  Buffer a = buffer("A", dims({3, 5}), i32()), t = buffer("T", dims({5, 3}), i32());
  Var i = var("i"), j = var("j");
  PrimFunc f = func("transpose", {a, t}, loop(i, 3, loop(j, 5, store(t, load(a, {i, j}), {j, i}))));
  std::vector<ArgValue> args = {ArgValue::ofBuffer(storage(i32(), 15)), ArgValue::ofBuffer(storage(i32(), 15))};
  for (int k = 0; k < 15; ++k)
    args[0].buffer->setInt(k, 100 + k);
  REQUIRE(run(f, args).ok());
  for (int r = 0; r < 5; ++r)
    for (int col = 0; col < 3; ++col)
      REQUIRE(args[1].buffer->getInt(r * 3 + col) == 100 + col * 5 + r);
}

TEST_CASE("symbolic shape bound by a scalar parameter", "[interp]") {
  Var n = var("n");
  Buffer a = buffer("A", {n}), b = buffer("B", {n});
  Var i = var("i");
  PrimFunc f = func("scale", {n, a, b}, loop(i, n, store(b, load(a, {i}) * fc(2.0), {i})));
  RandomArgOptions options;
  options.scalars["n"] = ArgValue::ofInt(13);
  std::vector<ArgValue> args = makeRandomArgs(f, 3, options);
  REQUIRE(args[1].buffer->size() == 13);
  RunResult r = run(f, args);
  REQUIRE(r.ok());
  CHECK(r.steps == 13);
  for (size_t k = 0; k < 13; ++k)
    REQUIRE(args[2].buffer->getFloat(k) == 2 * args[1].buffer->getFloat(k));

  SECTION("storage smaller than the shape needs is rejected before running") {
    args[0] = ArgValue::ofInt(20);
    RunResult small = run(f, args);
    REQUIRE(small.status == RunStatus::Error);
    CHECK_THAT(errorText(small), Catch::Contains("needs 20"));
  }
}

TEST_CASE("strides and elem_offset address the declared layout", "[interp]") {
  // A 3x4 view with row stride 10 and column stride 2, starting at element 5.
  Buffer a = buffer("A", dims({3, 4}), i32(), nullptr, dims({10, 2}), c(5));
  Buffer out = buffer("O", dims({3, 4}), i32());
  Var i = var("i"), j = var("j");
  PrimFunc f = func("gather", {a, out}, loop(i, 3, loop(j, 4, store(out, load(a, {i, j}), {i, j}))));
  REQUIRE(physicalElementCount(a) == 5 + 2 * 10 + 3 * 2 + 1);
  std::vector<ArgValue> args = makeRandomArgs(f, 1);
  REQUIRE(args[0].buffer->size() == 32);
  for (int k = 0; k < 32; ++k)
    args[0].buffer->setInt(k, k * 3);
  REQUIRE(run(f, args).ok());
  for (int r = 0; r < 3; ++r)
    for (int col = 0; col < 4; ++col)
      REQUIRE(args[1].buffer->getInt(r * 4 + col) == (5 + r * 10 + col * 2) * 3);
}

TEST_CASE("loops of every kind run serially; lets, ifs and while loops", "[interp]") {
  Buffer out = buffer("O", dims({4, 4}), i32());
  Var i = var("i"), j = var("j"), s = var("s"), t = var("t");
  // O[i, j] = (let s = i * 4 + j in s) if j is even else -(i * 4 + j), built with every loop kind.
  Expr flat = i * c(4) + j;
  Stmt body = LetStmtNode::make(s, LetNode::make(t, flat, t),
                                IfThenElseNode::make(bin(BinaryOp::EQ, bin(BinaryOp::FloorMod, j, c(2)), c(0)),
                                                     store(out, s, {i, j}), store(out, c(0) - s, {i, j})));
  for (ForKind kind :
       {ForKind::Serial, ForKind::Parallel, ForKind::Vectorized, ForKind::Unrolled, ForKind::ThreadBinding}) {
    PrimFunc f = func("kinds", {out}, loop(i, 4, loop(j, 4, body, kind), kind));
    std::vector<ArgValue> args = makeRandomArgs(f, 2);
    REQUIRE(run(f, args).ok());
    for (int k = 0; k < 16; ++k)
      REQUIRE(args[0].buffer->getInt(k) == (k % 2 == 0 ? k : -k));
  }

  // While: count down a local counter held in a 1-element allocation.
  Buffer counter = buffer("cnt", dims({1}), i32());
  Buffer result = buffer("R", dims({1}), i32());
  Stmt loopBody =
      seq({store(counter, load(counter, {c(0)}) - c(3), {c(0)}), store(result, load(result, {c(0)}) + c(1), {c(0)})});
  Stmt whileLoop = WhileNode::make(bin(BinaryOp::GT, load(counter, {c(0)}), c(0)), loopBody);
  PrimFunc g = func(
      "countdown", {result},
      AllocBufferNode::make(counter, seq({store(counter, c(10), {c(0)}), store(result, c(0), {c(0)}), whileLoop})));
  std::vector<ArgValue> args = {ArgValue::ofBuffer(storage(i32(), 1))};
  RunResult r = run(g, args);
  REQUIRE(r.ok());
  CHECK(args[0].buffer->getInt(0) == 4); // 10, 7, 4, 1 -> four iterations
  CHECK(r.steps == 4);
}

TEST_CASE("random arguments are deterministic and in range", "[interp]") {
  Buffer a = buffer("A", dims({256})), b = buffer("B", dims({256}), i8());
  Buffer flags = buffer("F", dims({64}), DataType::boolean());
  PrimFunc f = func("f", {a, b, flags}, EvaluateNode::make(c(0)));
  std::vector<ArgValue> x = makeRandomArgs(f, 42), y = makeRandomArgs(f, 42), z = makeRandomArgs(f, 43);
  bool differs = false, sawNegative = false, sawTrue = false, sawFalse = false;
  for (size_t k = 0; k < 256; ++k) {
    const double v = x[0].buffer->getFloat(k);
    REQUIRE(v >= -1.0);
    REQUIRE(v < 1.0);
    REQUIRE(v == static_cast<double>(static_cast<float>(v)));
    REQUIRE(v == y[0].buffer->getFloat(k));
    differs |= v != z[0].buffer->getFloat(k);
    const int64_t q = x[1].buffer->getInt(k);
    REQUIRE(q >= -8);
    REQUIRE(q <= 8);
    sawNegative |= q < 0;
  }
  for (size_t k = 0; k < 64; ++k)
    (x[2].buffer->getInt(k) ? sawTrue : sawFalse) = true;
  CHECK(differs);
  CHECK(sawNegative);
  CHECK(sawTrue);
  CHECK(sawFalse);
  CHECK(x[0].buffer->isInitialized(255));
}
