// Vector values: Ramp/Broadcast, vector buffers (a float32x4 element is four consecutive
// scalars), the lanes rule, and aliases that reinterpret the bytes with another dtype.
#include <catch2/catch.hpp>

#include <cstring>

#include "builders.h"

using namespace tirlower;
using namespace tirlower::test;

TEST_CASE("Ramp loads and stores with vector arithmetic", "[interp]") {
  Buffer a = buffer("A", dims({16})), out = buffer("O", dims({16}));
  Var v = var("v");
  // O[v*4 : v*4+4] = A[v*4 : v*4+4] * 2 + broadcast(v)
  Expr idx = RampNode::make(v * c(4), c(1), 4);
  Expr value = load(a, {idx}) * BroadcastNode::make(fc(2.0), 4) + BroadcastNode::make(CastNode::make(f32(), v), 4);
  PrimFunc f = func("vec", {a, out}, loop(v, 4, store(out, value, {idx})));
  std::vector<ArgValue> args = makeRandomArgs(f, 8);
  REQUIRE(run(f, args).ok());
  for (int k = 0; k < 16; ++k)
    REQUIRE(args[1].buffer->getFloat(k) ==
            static_cast<double>(static_cast<float>(args[0].buffer->getFloat(k)) * 2.0f + static_cast<float>(k / 4)));

  SECTION("strided ramp gathers every other element") {
    Buffer half = buffer("H", dims({8}));
    Var q = var("q");
    Expr even = RampNode::make(q * c(8), c(2), 4);
    PrimFunc g =
        func("gather", {a, half}, loop(q, 2, store(half, load(a, {even}), {RampNode::make(q * c(4), c(1), 4)})));
    std::vector<ArgValue> gargs = {args[0], ArgValue::ofBuffer(storage(f32(), 8))};
    REQUIRE(run(g, gargs).ok());
    for (int k = 0; k < 8; ++k)
      REQUIRE(gargs[1].buffer->getFloat(k) == args[0].buffer->getFloat(2 * k));
  }
}

TEST_CASE("float32x4 buffers and the lanes rule", "[interp]") {
  // A: 4 elements of float32x4 = 16 floats. Reading A[Ramp(0, 2, 2)] yields 8 lanes: elements 0 and 2.
  Buffer a = buffer("A", dims({4}), f32(4)), out = buffer("O", dims({8}));
  Expr wide = load(a, {RampNode::make(c(0), c(2), 2)});
  REQUIRE(wide->type == f32(8));
  PrimFunc f = func("lanes", {a, out}, store(out, wide, {RampNode::make(c(0), c(1), 8)}));
  std::vector<ArgValue> args = makeRandomArgs(f, 12);
  REQUIRE(args[0].buffer->size() == 16);
  REQUIRE(args[0].buffer->elementType() == f32());
  REQUIRE(run(f, args).ok());
  for (int k = 0; k < 4; ++k) {
    REQUIRE(args[1].buffer->getFloat(k) == args[0].buffer->getFloat(k));
    REQUIRE(args[1].buffer->getFloat(4 + k) == args[0].buffer->getFloat(8 + k));
  }

  SECTION("a scalar float32 alias of a float32x4 buffer sees the same floats") {
    Buffer scalarView = buffer("A_flat", dims({16}), f32(), a->data);
    Buffer o = buffer("O1", dims({1}));
    // A[2] is a float32x4 value; A_flat[9] is its second lane.
    PrimFunc g =
        func("view", {a, o}, DeclBufferNode::make(scalarView, false, store(o, load(scalarView, {c(9)}), {c(0)})));
    std::vector<ArgValue> gargs = {args[0], ArgValue::ofBuffer(storage(f32(), 1))};
    REQUIRE(run(g, gargs).ok());
    CHECK(gargs[1].buffer->getFloat(0) == args[0].buffer->getFloat(9));
  }

  SECTION("storing a float32x4 element writes four consecutive scalars") {
    Buffer src = buffer("S", dims({4}));
    PrimFunc g = func("put", {src, a}, store(a, load(src, {RampNode::make(c(0), c(1), 4)}), {c(3)}));
    std::vector<ArgValue> gargs = makeRandomArgs(g, 2);
    REQUIRE(run(g, gargs).ok());
    for (int k = 0; k < 4; ++k)
      REQUIRE(gargs[1].buffer->getFloat(12 + k) == gargs[0].buffer->getFloat(k));
  }
}

TEST_CASE("an alias with another dtype reinterprets the bytes", "[interp]") {
  Buffer a = buffer("A", dims({4})), bits = buffer("Bits", dims({4}), i32());
  Buffer asInt = buffer("A_i32", dims({4}), i32(), a->data);
  Var i = var("i");
  PrimFunc f =
      func("bitcast", {a, bits}, DeclBufferNode::make(asInt, false, loop(i, 4, store(bits, load(asInt, {i}), {i}))));
  std::vector<ArgValue> args = makeRandomArgs(f, 6);
  args[0].buffer->setFloat(0, 1.0);
  args[0].buffer->setFloat(1, -2.5);
  REQUIRE(run(f, args).ok());
  for (int k = 0; k < 4; ++k) {
    const float value = static_cast<float>(args[0].buffer->getFloat(k));
    int32_t expected;
    std::memcpy(&expected, &value, 4);
    REQUIRE(args[1].buffer->getInt(k) == expected);
  }
  CHECK(args[1].buffer->getInt(0) == 0x3f800000);

  SECTION("an int8 alias writes single bytes of a float") {
    Buffer bytes = buffer("A_i8", dims({16}), i8(), a->data);
    // Sets the top byte of A[0] (little-endian) to 0x40: 1.0f (0x3f800000) becomes 0x40800000 = 4.0f.
    PrimFunc g = func("poke", {a}, DeclBufferNode::make(bytes, false, store(bytes, c(0x40, i8()), {c(3)})));
    std::vector<ArgValue> gargs = {args[0]};
    REQUIRE(run(g, gargs).ok());
    CHECK(gargs[0].buffer->getFloat(0) == 4.0);
  }
}

TEST_CASE("vector select, comparisons and casts work per lane", "[interp]") {
  Buffer a = buffer("A", dims({8}), i32()), out = buffer("O", dims({8}), i8());
  Expr idx = RampNode::make(c(0), c(1), 8);
  Expr x = load(a, {idx});
  // clamp to int8 range with a per-lane select, then cast: values outside [-128, 127] saturate.
  Expr hi = BroadcastNode::make(c(127), 8), lo = BroadcastNode::make(c(-128), 8);
  Expr clamped = SelectNode::make(bin(BinaryOp::GT, x, hi), hi, SelectNode::make(bin(BinaryOp::LT, x, lo), lo, x));
  PrimFunc f = func("sat", {a, out}, store(out, CastNode::make(DataType(DataType::Code::Int, 8, 8), clamped), {idx}));
  std::vector<ArgValue> args = {ArgValue::ofBuffer(storage(i32(), 8)), ArgValue::ofBuffer(storage(i8(), 8))};
  const int64_t input[8] = {0, 1, -1, 127, 128, -129, 1000, -1000};
  const int64_t expected[8] = {0, 1, -1, 127, 127, -128, 127, -128};
  for (int k = 0; k < 8; ++k)
    args[0].buffer->setInt(k, input[k]);
  REQUIRE(run(f, args).ok());
  for (int k = 0; k < 8; ++k)
    REQUIRE(args[1].buffer->getInt(k) == expected[k]);
}
