// Exact arithmetic: integer division flavours, wrap-around, casts, and float32 computed in float.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "builders.h"

using namespace tirlower;
using namespace tirlower::test;

namespace {
// Runs `out[0] = make(x, y)` for scalar parameters x and y of type `in`.
template <typename Make>
RunResult evalScalar(DataType in, DataType outType, ArgValue xv, ArgValue yv, Make make,
                     std::shared_ptr<BufferData> &result) {
  Var x = var("x", in), y = var("y", in);
  Buffer out = buffer("out", dims({1}), outType);
  PrimFunc f = func("eval", {x, y, out}, store(out, make(Expr(x), Expr(y)), {c(0)}));
  result = storage(outType, 1);
  std::vector<ArgValue> args = {xv, yv, ArgValue::ofBuffer(result)};
  return run(f, args);
}

int64_t intOp(BinaryOp op, DataType type, int64_t a, int64_t b) {
  std::shared_ptr<BufferData> result;
  RunResult r = evalScalar(
      type, type, ArgValue::ofInt(a, type), ArgValue::ofInt(b, type), [&](Expr x, Expr y) { return bin(op, x, y); },
      result);
  REQUIRE(r.ok());
  return result->getInt(0);
}

float floatOp(BinaryOp op, float a, float b) {
  std::shared_ptr<BufferData> result;
  RunResult r = evalScalar(
      f32(), f32(), ArgValue::ofFloat(a), ArgValue::ofFloat(b), [&](Expr x, Expr y) { return bin(op, x, y); }, result);
  REQUIRE(r.ok());
  return static_cast<float>(result->getFloat(0));
}

uint32_t bitsOf(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  return u;
}
} // namespace

TEST_CASE("floor and truncating division on negatives", "[interp]") {
  struct Case {
    int64_t a, b, truncDiv, truncMod, floorDiv, floorMod;
  };
  // Derived by hand: trunc rounds the quotient toward zero, floor toward minus infinity; the
  // remainder takes the sign of the dividend (trunc) or of the divisor (floor).
  const Case cases[] = {
      {7, 2, 3, 1, 3, 1},  {-7, 2, -3, -1, -4, 1}, {7, -2, -3, 1, -4, -1}, {-7, -2, 3, -1, 3, -1},
      {6, 3, 2, 0, 2, 0},  {-6, 3, -2, 0, -2, 0},  {-1, 4, 0, -1, -1, 3},  {1, -4, 0, 1, -1, -3},
      {0, -5, 0, 0, 0, 0}, {-9, 10, 0, -9, -1, 1},
  };
  for (DataType type : {i32(), DataType::int64(), i8()}) {
    for (const Case &k : cases) {
      INFO(type.str() << ": " << k.a << " op " << k.b);
      CHECK(intOp(BinaryOp::Div, type, k.a, k.b) == k.truncDiv);
      CHECK(intOp(BinaryOp::Mod, type, k.a, k.b) == k.truncMod);
      CHECK(intOp(BinaryOp::FloorDiv, type, k.a, k.b) == k.floorDiv);
      CHECK(intOp(BinaryOp::FloorMod, type, k.a, k.b) == k.floorMod);
    }
  }
  // The most negative value divided by -1 wraps like C's two's complement negation.
  CHECK(intOp(BinaryOp::Div, i8(), -128, -1) == -128);
  CHECK(intOp(BinaryOp::FloorMod, i8(), -128, -1) == 0);
  CHECK(intOp(BinaryOp::Div, DataType::int64(), INT64_MIN, -1) == INT64_MIN);
}

TEST_CASE("integer arithmetic wraps at the type's width", "[interp]") {
  CHECK(intOp(BinaryOp::Add, i8(), 127, 1) == -128);
  CHECK(intOp(BinaryOp::Sub, i8(), -128, 1) == 127);
  CHECK(intOp(BinaryOp::Mul, i8(), 16, 16) == 0);
  CHECK(intOp(BinaryOp::Mul, i8(), 100, 3) == 44);   // 300 - 256
  CHECK(intOp(BinaryOp::Mul, i8(), -100, 3) == -44); // -300 + 256
  CHECK(intOp(BinaryOp::Add, i32(), INT32_MAX, 1) == INT32_MIN);
  CHECK(intOp(BinaryOp::Mul, DataType::int64(), INT64_MAX, 2) == -2);
  CHECK(intOp(BinaryOp::Sub, u8(), 0, 1) == 255);
  CHECK(intOp(BinaryOp::Add, u8(), 200, 100) == 44);
  CHECK(intOp(BinaryOp::Min, i8(), -3, 2) == -3);
  CHECK(intOp(BinaryOp::Max, u8(), 3, 250) == 250);
  std::shared_ptr<BufferData> result;
  // Intermediate values wrap too, not only stored ones: 127 + 1 < 127 in int8, and
  // (16 * 16) / 16 is 0 because 256 wrapped to 0 before the division.
  REQUIRE(evalScalar(
              i8(), DataType::boolean(), ArgValue::ofInt(127, i8()), ArgValue::ofInt(1, i8()),
              [](Expr x, Expr y) { return bin(BinaryOp::LT, x + y, x); }, result)
              .ok());
  CHECK(result->getInt(0) == 1);
  REQUIRE(evalScalar(
              i8(), i8(), ArgValue::ofInt(16, i8()), ArgValue::ofInt(16, i8()),
              [](Expr x, Expr y) { return bin(BinaryOp::Div, x * y, y); }, result)
              .ok());
  CHECK(result->getInt(0) == 0);
  REQUIRE(evalScalar(
              u8(), DataType::boolean(), ArgValue::ofUInt(255, u8()), ArgValue::ofUInt(1, u8()),
              [](Expr x, Expr y) { return bin(BinaryOp::EQ, x + y, bin(BinaryOp::Sub, y, y)); }, result)
              .ok());
  CHECK(result->getInt(0) == 1);
  // unsigned comparison: 250 > 3 although 250 is -6 as int8
  REQUIRE(evalScalar(
              u8(), DataType::boolean(), ArgValue::ofUInt(250, u8()), ArgValue::ofUInt(3, u8()),
              [](Expr x, Expr y) { return bin(BinaryOp::GT, x, y); }, result)
              .ok());
  CHECK(result->getInt(0) == 1);
}

TEST_CASE("float32 arithmetic is rounded like C float math", "[interp]") {
  // 2^24 + 1 + 1 in float stays 2^24 (each addition rounds to even); in double it is 2^24 + 2.
  Buffer a = buffer("A", dims({2})), out = buffer("O", dims({1}));
  PrimFunc f = func("sum", {a, out}, store(out, (load(a, {c(0)}) + load(a, {c(1)})) + load(a, {c(1)}), {c(0)}));
  std::vector<ArgValue> args = {ArgValue::ofBuffer(storage(f32(), 2)), ArgValue::ofBuffer(storage(f32(), 1))};
  args[0].buffer->setFloat(0, 16777216.0);
  args[0].buffer->setFloat(1, 1.0);
  REQUIRE(run(f, args).ok());
  CHECK(args[1].buffer->getFloat(0) == 16777216.0);

  // Random operands: every operation must be bit-identical to the same operation in C float.
  std::vector<ArgValue> r = makeRandomArgs(func("r", {buffer("R", dims({64}))}, EvaluateNode::make(c(0))), 9);
  for (size_t k = 0; k + 1 < 64; k += 2) {
    const float x = static_cast<float>(r[0].buffer->getFloat(k)) * 1000.0f;
    const float y = static_cast<float>(r[0].buffer->getFloat(k + 1)) / 7.0f;
    CHECK(bitsOf(floatOp(BinaryOp::Add, x, y)) == bitsOf(x + y));
    CHECK(bitsOf(floatOp(BinaryOp::Mul, x, y)) == bitsOf(x * y));
    CHECK(bitsOf(floatOp(BinaryOp::Div, x, y)) == bitsOf(x / y));
    CHECK(bitsOf(floatOp(BinaryOp::FloorMod, x, y)) == bitsOf(x - std::floor(x / y) * y));
  }

  // exp of float32 is expf: compare against std::exp(float) for a spread of inputs.
  for (float v : {0.1f, -2.5f, 3.75f, 10.3f, -0.001f}) {
    std::shared_ptr<BufferData> result;
    REQUIRE(evalScalar(
                f32(), f32(), ArgValue::ofFloat(v), ArgValue::ofFloat(0),
                [](Expr x, Expr) { return CallNode::make(f32(), Symbol("exp"), {x}); }, result)
                .ok());
    CHECK(bitsOf(static_cast<float>(result->getFloat(0))) == bitsOf(std::exp(v)));
  }
}

TEST_CASE("casts follow C: truncation toward zero, wrap for integers, overflow is an error", "[interp]") {
  auto castRun = [](DataType from, DataType to, ArgValue value, std::shared_ptr<BufferData> &result) {
    return evalScalar(
        from, to, value, value, [&](Expr x, Expr) { return CastNode::make(to, x); }, result);
  };
  std::shared_ptr<BufferData> result;
  REQUIRE(castRun(f32(), i32(), ArgValue::ofFloat(-2.75), result).ok());
  CHECK(result->getInt(0) == -2);
  REQUIRE(castRun(f32(), i32(), ArgValue::ofFloat(2.99), result).ok());
  CHECK(result->getInt(0) == 2);
  REQUIRE(castRun(f32(), i8(), ArgValue::ofFloat(-128.9), result).ok());
  CHECK(result->getInt(0) == -128);
  REQUIRE(castRun(i32(), i8(), ArgValue::ofInt(200), result).ok());
  CHECK(result->getInt(0) == -56);
  REQUIRE(castRun(i32(), u8(), ArgValue::ofInt(-1), result).ok());
  CHECK(result->getInt(0) == 255);
  REQUIRE(castRun(DataType::int64(), f32(), ArgValue::ofInt(16777217, DataType::int64()), result).ok());
  CHECK(result->getFloat(0) == 16777216.0);
  REQUIRE(castRun(DataType::float64(), f32(), ArgValue::ofFloat(0.1, DataType::float64()), result).ok());
  CHECK(result->getFloat(0) == static_cast<double>(0.1f));

  RunResult overflow = castRun(f32(), i8(), ArgValue::ofFloat(200.5), result);
  REQUIRE(overflow.status == RunStatus::Error);
  CHECK(errorText(overflow) == "cast of 200.5 to int8 overflows");
  CHECK(castRun(f32(), u8(), ArgValue::ofFloat(-1.0), result).status == RunStatus::Error);
  CHECK(castRun(f32(), i32(), ArgValue::ofFloat(NAN), result).status == RunStatus::Error);
}

TEST_CASE("float16 values are rounded to nearest even", "[interp]") {
  const DataType f16(DataType::Code::Float, 16);
  std::shared_ptr<BufferData> result;
  // 2049 is halfway between the float16 neighbours 2048 and 2050: ties go to even (2048).
  REQUIRE(evalScalar(
              f32(), f16, ArgValue::ofFloat(2049), ArgValue::ofFloat(0),
              [&](Expr x, Expr) { return CastNode::make(f16, x); }, result)
              .ok());
  CHECK(result->getFloat(0) == 2048.0);
  REQUIRE(evalScalar(
              f32(), f16, ArgValue::ofFloat(2051), ArgValue::ofFloat(0),
              [&](Expr x, Expr) { return CastNode::make(f16, x); }, result)
              .ok());
  CHECK(result->getFloat(0) == 2052.0);
  REQUIRE(evalScalar(
              f32(), f16, ArgValue::ofFloat(70000), ArgValue::ofFloat(0),
              [&](Expr x, Expr) { return CastNode::make(f16, x); }, result)
              .ok());
  CHECK(std::isinf(result->getFloat(0)));
}
