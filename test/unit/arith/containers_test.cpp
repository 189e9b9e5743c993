// The small containers behind the analyzer: PointerMap (memo tables) and LinearSum's term
// lookup, which scans short sums and indexes long ones.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "arith/linear_sum.h"
#include "arith/pointer_map.h"

using namespace tirlower;

TEST_CASE("PointerMap finds what was inserted, keeps the first value, grows", "[arith][containers]") {
  std::vector<std::unique_ptr<int>> keys;
  for (int k = 0; k < 1000; ++k)
    keys.push_back(std::make_unique<int>(k));
  PointerMap<int, std::string> map;
  CHECK(map.find(keys[0].get()) == nullptr);
  for (int k = 0; k < 1000; k += 2)
    map.insert(keys[k].get(), std::to_string(k));
  map.insert(keys[10].get(), "replaced?");
  CHECK(map.size() == 500);
  for (int k = 0; k < 1000; ++k) {
    const std::string *value = map.find(keys[k].get());
    if (k % 2 == 0) {
      REQUIRE(value != nullptr);
      CHECK(*value == std::to_string(k));
    } else {
      CHECK(value == nullptr);
    }
  }
}

TEST_CASE("LinearSum merges equal terms in short and long sums", "[arith][containers]") {
  for (int count : {3, 40}) {
    std::vector<Var> vars;
    for (int k = 0; k < count; ++k)
      vars.push_back(VarNode::make(Symbol("v" + std::to_string(k)), DataType::int32()));
    LinearSum sum(DataType::int32());
    for (int round = 0; round < 3; ++round)
      for (int k = 0; k < count; ++k)
        REQUIRE(sum.addTerm(k + 1, {vars[static_cast<size_t>(k)]}));
    REQUIRE(sum.addTerm(2, {vars[1], vars[0]}));
    REQUIRE(sum.addTerm(5, {vars[0], vars[1]})); // the same product: atoms are sorted
    REQUIRE(sum.terms().size() == static_cast<size_t>(count) + 1);
    for (int k = 0; k < count; ++k)
      CHECK(sum.terms()[static_cast<size_t>(k)].coef == 3 * (k + 1));
    CHECK(sum.terms().back().coef == 7);
    REQUIRE(sum.scale(0));
    CHECK(sum.terms().empty());
    REQUIRE(sum.addTerm(4, {vars[2]}));
    REQUIRE(sum.addTerm(-1, {vars[2]}));
    REQUIRE(sum.terms().size() == 1);
    CHECK(sum.terms()[0].coef == 3);
  }
}
