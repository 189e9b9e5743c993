#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

#include "ir/script_literals.h"

using namespace tirlower;

namespace {
const DataType kF16(DataType::Code::Float, 16);
const DataType kBF16(DataType::Code::BFloat, 16);

uint64_t bitsOf(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}
uint32_t bitsOf(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}
} // namespace

TEST_CASE("floats print like Python's repr", "[codegen][float]") {
  DataType f64 = DataType::float64(), f32 = DataType::float32();
  CHECK(formatFloat(1.0, f64) == "1.0");
  CHECK(formatFloat(0.1, f64) == "0.1");
  CHECK(formatFloat(1e-05, f64) == "1e-05");
  CHECK(formatFloat(0.0001, f64) == "0.0001");
  CHECK(formatFloat(1e16, f64) == "1e+16");
  CHECK(formatFloat(1234567890123456.0, f64) == "1234567890123456.0");
  CHECK(formatFloat(123.456, f64) == "123.456");
  CHECK(formatFloat(-2.5, f64) == "-2.5");
  CHECK(formatFloat(-0.0, f64) == "-0.0");
  CHECK(formatFloat(0.0, f64) == "0.0");
  CHECK(formatFloat(5e-324, f64) == "5e-324");
  CHECK(formatFloat(1.5e300, f64) == "1.5e+300");
  CHECK(formatFloat(3.4028234663852886e+38, f64) == "3.4028234663852886e+38");
  // FLT_MAX's shortest float32 spelling, 3.4028235e+38, is beyond FLT_MAX as a double, which
  // TVM's parser rejects: the exact value is written instead, as TVM prints it.
  CHECK(formatFloat(3.4028234663852886e+38, f32) == "3.4028234663852886e+38");
  CHECK(formatFloat(-3.4028234663852886e+38, f32) == "-3.4028234663852886e+38");
  CHECK(formatFloat(0.1, f32) == "0.1");
  CHECK(formatFloat(static_cast<float>(0.1), f64) == "0.10000000149011612");
  CHECK(formatFloat(1e-07, f32) == "1e-07");
  CHECK(formatFloat(65504, kF16) == "65500.0"); // shortest: reads back as 65504
  CHECK(formatFloat(0.1, kF16) == "0.1");
  CHECK(formatFloat(2048, kF16) == "2048.0");
  CHECK(formatFloat(1.0 / 3, kBF16) == "0.334"); // 0.333984375
}

TEST_CASE("rounding to narrow float types", "[codegen][float]") {
  CHECK(roundToFloatType(65519.0, kF16) == 65504.0);
  CHECK(std::isinf(roundToFloatType(65520.0, kF16)));
  CHECK(roundToFloatType(std::ldexp(1.0, -24), kF16) == std::ldexp(1.0, -24));
  CHECK(roundToFloatType(std::ldexp(1.0, -26), kF16) == 0.0);
  CHECK(roundToFloatType(1.0 + std::ldexp(1.0, -11), kF16) == 1.0); // tie to even
  CHECK(roundToFloatType(0.1, DataType::float32()) == static_cast<double>(0.1f));
}

TEST_CASE("printed floats read back to the same bits", "[codegen][float]") {
  std::mt19937_64 random(12345);
  for (int k = 0; k < 20000; ++k) {
    uint64_t bits64 = random();
    double d;
    std::memcpy(&d, &bits64, sizeof d);
    if (std::isfinite(d)) {
      std::string text = formatFloat(d, DataType::float64());
      INFO(text);
      REQUIRE(bitsOf(std::strtod(text.c_str(), nullptr)) == bitsOf(d));
    }
    uint32_t bits32 = static_cast<uint32_t>(bits64 >> 17);
    float f;
    std::memcpy(&f, &bits32, sizeof f);
    if (std::isfinite(f)) {
      std::string text = formatFloat(f, DataType::float32());
      INFO(text);
      REQUIRE(bitsOf(std::strtof(text.c_str(), nullptr)) == bitsOf(f));
    }
    // Every half value: sign, exponent and mantissa from the random bits.
    double half =
        std::ldexp(1.0 + static_cast<double>(bits64 & 1023) / 1024, static_cast<int>((bits64 >> 10) % 30) - 14);
    if (bits64 & (1u << 20))
      half = -half;
    half = roundToFloatType(half, kF16);
    std::string text = formatFloat(half, kF16);
    INFO(text);
    REQUIRE(roundToFloatType(std::strtod(text.c_str(), nullptr), kF16) == half);
  }
}

TEST_CASE("strings and attribute values use Python literal syntax", "[codegen][float]") {
  std::string out;
  appendQuoted(out, "say \"hi\"\\\n\t");
  CHECK(out == R"("say \"hi\"\\\n\t")");
  out.clear();
  AttrValue dict = AttrValue::dict({{"s", AttrValue::string("x")},
                                    {"b", AttrValue::boolean(true)},
                                    {"i", AttrValue::integer(-3)},
                                    {"f", AttrValue::real(0.5)},
                                    {"l", AttrValue::list({AttrValue::integer(1), AttrValue::boolean(false)})},
                                    {"d", AttrValue::dict()},
                                    {"n", AttrValue()}});
  appendAttrValue(out, dict);
  CHECK(out == R"({"s": "x", "b": True, "i": -3, "f": 0.5, "l": [1, False], "d": {}, "n": None})");
}
