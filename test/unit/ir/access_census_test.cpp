#include <catch2/catch.hpp>

#include "ir/access_census.h"

using namespace tirlower;

namespace {
Buffer makeBuffer(const char *name, Var data, Expr elemOffset = Expr()) {
  BufferNode::Fields f;
  f.name = Symbol(name);
  f.data = data;
  f.dtype = DataType::float32();
  f.shape = {intImm(16)};
  f.elemOffset = elemOffset;
  return BufferNode::make(std::move(f));
}
} // namespace

TEST_CASE("the access census: data read and written through aliases, variables used, escaped handles", "[ir]") {
  Var a = VarNode::makeHandle(Symbol("A"), DataType::float32(), Symbol("global"));
  Var b = VarNode::makeHandle(Symbol("B"), DataType::float32(), Symbol("global"));
  Var h = VarNode::makeHandle(Symbol("h"), DataType::float32(), Symbol("global"));
  Var offset = VarNode::make(Symbol("offset"), DataType::int32());
  Var i = VarNode::make(Symbol("i"), DataType::int32());
  Buffer bufA = makeBuffer("A", a), viewB = makeBuffer("B", b, offset);
  Expr assume = CallNode::make(DataType::boolean(), Symbol("assume"), {BinaryNode::make(BinaryOp::LT, i, intImm(4))});
  Stmt body = SeqStmtNode::make({
      BufferStoreNode::make(viewB, BufferLoadNode::make(bufA, {i}), {intImm(0)}),
      EvaluateNode::make(assume),
      EvaluateNode::make(CallNode::make(DataType::int32(), Symbol("call_extern"), {StringImmNode::make("f"), h})),
      AttrStmtNode::make(a, Symbol("pragma"), intImm(0), EvaluateNode::make(intImm(0))),
  });
  AccessCensus census = AccessCensus::of(body);
  CHECK(census.read.count(a.get()));
  CHECK(census.written.count(b.get()));
  CHECK_FALSE(census.written.count(a.get()));
  CHECK(census.used.count(offset.get())); // a view's element offset is a use
  CHECK(census.used.count(i.get()));
  CHECK(census.escaped.count(h.get()));
  CHECK_FALSE(census.escaped.count(a.get())); // data and an attribute's subject do not escape
  CHECK_FALSE(AccessCensus::of(SeqStmtNode::make({EvaluateNode::make(assume)}), false).used.count(i.get()));
}
