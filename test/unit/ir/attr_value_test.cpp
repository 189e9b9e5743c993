// AttrValue: the JSON-like attribute tree; copies share their payload until one is modified.
#include <catch2/catch.hpp>

#include "ir/attr_value.h"

using namespace tirlower;

TEST_CASE("attribute values hold scalars, strings, lists and dicts", "[ir][attr]") {
  CHECK(AttrValue().isNone());
  CHECK(AttrValue::boolean(true).asBool());
  CHECK(AttrValue::integer(-7).asInt() == -7);
  CHECK(AttrValue::real(0.5).asFloat() == 0.5);
  CHECK(AttrValue::string("main").asString() == "main");
  CHECK(AttrValue().asString().empty());
  CHECK(AttrValue::integer(3).items().empty());
  AttrValue list = AttrValue::list({AttrValue::integer(1), AttrValue::string("x")});
  REQUIRE(list.items().size() == 2);
  CHECK(list.items()[1].asString() == "x");
  CHECK(AttrValue::dict().empty());
  CHECK(AttrValue().empty());
}

TEST_CASE("dicts keep insertion order; set replaces in place; erase removes", "[ir][attr]") {
  AttrValue d;
  d.set("global_symbol", AttrValue::string("main"));
  d.set("tir.noalias", AttrValue::boolean(true));
  d.set("global_symbol", AttrValue::string("kernel"));
  CHECK(d.kind() == AttrValue::Kind::Dict);
  REQUIRE(d.entries().size() == 2);
  CHECK(d.entries()[0].first == "global_symbol");
  CHECK(d.find("global_symbol")->asString() == "kernel");
  CHECK(d.find("missing") == nullptr);
  CHECK(d.erase("global_symbol"));
  CHECK_FALSE(d.erase("global_symbol"));
  REQUIRE(d.entries().size() == 1);
  CHECK(d.entries()[0].first == "tir.noalias");
}

TEST_CASE("a copy is independent of the value it was copied from", "[ir][attr]") {
  AttrValue original = AttrValue::dict({{"a", AttrValue::integer(1)}});
  AttrValue copy = original;
  CHECK(copy == original);
  copy.set("b", AttrValue::integer(2));
  copy.set("a", AttrValue::integer(10));
  CHECK(original.entries().size() == 1);
  CHECK(original.find("a")->asInt() == 1);
  CHECK(copy.find("a")->asInt() == 10);
  CHECK_FALSE(copy == original);
  AttrValue erased = original;
  CHECK(erased.erase("a"));
  CHECK(erased.empty());
  CHECK(original.find("a") != nullptr);
}
