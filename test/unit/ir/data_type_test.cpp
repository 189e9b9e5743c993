#include <catch2/catch.hpp>

#include "ir/data_type.h"

using namespace tirlower;

TEST_CASE("data types parse and print", "[ir]") {
  for (const char *text : {"int8", "int16", "int32", "int64", "uint8", "uint64", "float16", "float32", "float64",
                           "bfloat16", "bool", "handle", "float32x4", "int8x16", "boolx8", "float64x2"}) {
    auto t = DataType::parse(text);
    REQUIRE(t.has_value());
    CHECK(t->str() == text);
  }
  CHECK(DataType::parse("float")->str() == "float32");
  CHECK(DataType::parse("int")->str() == "int32");
  CHECK(DataType::parse("float32x4")->lanes() == 4);
  CHECK(DataType::parse("float32x4")->element() == DataType::float32());
  for (const char *bad : {"", "float31", "int7", "handlex4", "float32x0", "complex64", "int32x"})
    CHECK_FALSE(DataType::parse(bad).has_value());
}
