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

TEST_CASE("the census records each buffer's variables, buffers sharing data each their own", "[ir]") {
  Var a = VarNode::makeHandle(Symbol("A"), DataType::float32(), Symbol("global"));
  Var first = VarNode::make(Symbol("first"), DataType::int32()),
      second = VarNode::make(Symbol("second"), DataType::int32());
  Buffer one = makeBuffer("A1", a, first), two = makeBuffer("A2", a, second);
  Var i = VarNode::make(Symbol("i"), DataType::int32());
  Stmt body = SeqStmtNode::make({
      BufferStoreNode::make(one, BufferLoadNode::make(one, {i}), {intImm(0)}),
      BufferStoreNode::make(one, BufferLoadNode::make(two, {i}), {intImm(1)}),
  });
  AccessCensus census = AccessCensus::of(body);
  CHECK(census.used.count(first.get()));
  CHECK(census.used.count(second.get()));
  CHECK(census.read.count(a.get()));
  CHECK(census.written.count(a.get()));
}

TEST_CASE("a variable set holds what was inserted as it grows, copied and moved", "[ir]") {
  std::vector<Var> vars, others;
  for (int k = 0; k < 100; ++k) {
    vars.push_back(VarNode::make(Symbol("v" + std::to_string(k)), DataType::int32()));
    others.push_back(VarNode::make(Symbol("w" + std::to_string(k)), DataType::int32()));
  }
  VarSet set;
  for (size_t n = 0; n < vars.size(); ++n) {
    set.insert(vars[n].get());
    set.insert(vars[n / 2].get()); // again: no second entry
    VarSet copy = set, moved = std::move(copy);
    for (size_t k = 0; k < vars.size(); ++k) {
      CAPTURE(n, k);
      CHECK(moved.count(vars[k].get()) == (k <= n ? 1u : 0u));
      CHECK(set.count(others[k].get()) == 0);
    }
  }
}
