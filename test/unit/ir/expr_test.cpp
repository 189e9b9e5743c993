#include <catch2/catch.hpp>

#include "ir/buffer.h"
#include "ir/stmt.h"
#include "ir/visitor.h"

using namespace tirlower;

namespace {
Buffer makeBuffer(const char *name, DataType dtype, std::vector<int64_t> shape) {
  BufferNode::Fields f;
  f.name = Symbol(name);
  f.data = VarNode::makeHandle(Symbol(name), dtype, Symbol("global"));
  f.dtype = dtype;
  for (int64_t s : shape)
    f.shape.push_back(intImm(s));
  return BufferNode::make(std::move(f));
}
} // namespace

TEST_CASE("the lanes rule types buffer accesses", "[ir]") {
  Buffer scalar = makeBuffer("A", DataType::float32(), {64});
  Buffer vector = makeBuffer("B", DataType::float32(4), {16});
  Expr ramp = RampNode::make(intImm(0), intImm(1), 4);
  CHECK(BufferLoadNode::make(scalar, {intImm(3)})->type == DataType::float32());
  CHECK(BufferLoadNode::make(scalar, {ramp})->type == DataType::float32(4));
  CHECK(BufferLoadNode::make(vector, {intImm(3)})->type == DataType::float32(4));
  CHECK(BufferLoadNode::make(vector, {ramp})->type == DataType::float32(16));
  CHECK_THROWS_AS(BufferLoadNode::make(scalar, {intImm(1), intImm(2)}), IRTypeError);
  CHECK_THROWS_AS(BufferStoreNode::make(scalar, FloatImmNode::make(DataType::float32(), 1.0), {ramp}), IRTypeError);
  Buffer twoD = makeBuffer("C", DataType::float32(), {4, 4});
  CHECK_THROWS_WITH(BufferLoadNode::make(twoD, {ramp, intImm(0)}), Catch::Contains("only the last index"));
}

TEST_CASE("binary nodes check operand types", "[ir]") {
  Var i = VarNode::make(Symbol("i"), DataType::int32());
  Var x = VarNode::make(Symbol("x"), DataType::int64());
  CHECK_THROWS_AS(BinaryNode::make(BinaryOp::Add, i, x), IRTypeError);
  CHECK(BinaryNode::make(BinaryOp::LT, i, intImm(4))->type == DataType::boolean());
  CHECK_THROWS_AS(IntImmNode::make(DataType(DataType::Code::Int, 8), 300), IRTypeError);
}

TEST_CASE("the mutator shares unchanged subtrees and substitute replaces variables", "[ir]") {
  Var i = VarNode::make(Symbol("i"), DataType::int32());
  Var j = VarNode::make(Symbol("j"), DataType::int32());
  Expr e = i * intImm(16) + j;
  Expr same = substitute(e, {{VarNode::make(Symbol("k"), DataType::int32()), intImm(0)}});
  CHECK(same == e);
  Expr replaced = substitute(e, {{j, intImm(3)}});
  CHECK(replaced != e);
  const auto *add = replaced.as<BinaryNode>();
  REQUIRE(add);
  CHECK(add->a == e.as<BinaryNode>()->a); // the untouched operand is shared
  REQUIRE(asConstInt(add->b));
  CHECK(*asConstInt(add->b) == 3);
}

TEST_CASE("small integer constants without a location are shared per thread", "[ir]") {
  Expr a = IntImmNode::make(DataType::int32(), 16), b = intImm(16);
  CHECK(a.same(b)); // one node for (int32, 16) on this thread
  CHECK(!a.same(intImm(16, DataType::int64())));
  CHECK(!a.same(intImm(17)));
  CHECK(intImm(-16).same(intImm(-16)));
  CHECK(intImm(1023, DataType::int64()).same(intImm(1023, DataType::int64())));
  // Outside the shared range, of another type, or located: a node of its own.
  CHECK(!intImm(1024).same(intImm(1024)));
  CHECK(!intImm(-17).same(intImm(-17)));
  CHECK(!intImm(1, DataType::boolean()).same(intImm(1, DataType::boolean())));
  CHECK(!intImm(3, DataType(DataType::Code::Int, 16)).same(intImm(3, DataType(DataType::Code::Int, 16))));
  Expr located = IntImmNode::make(DataType::int32(), 16, SourceRange{1, 4, 6});
  CHECK(!located.same(a));
  CHECK(located->loc.begin == 4);
  CHECK(!a->loc.valid());
  // A shared node stays what it is for every user: value, type, no location.
  CHECK(*asConstInt(a) == 16);
  CHECK(a->type == DataType::int32());
  // The checks still apply to shared values.
  CHECK_THROWS_AS(IntImmNode::make(DataType(DataType::Code::UInt, 32), -1), IRTypeError);
}
