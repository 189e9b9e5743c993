#include <catch2/catch.hpp>

#include "ir/attrs.h"
#include "ir/thread_extents.h"

using namespace tirlower;

namespace {
Stmt launch(const char *tag, Expr extent, Stmt body, std::string_view key = attr::kThreadExtent) {
  Var v = VarNode::make(Symbol(tag), DataType::int32());
  return AttrStmtNode::make(v, Symbol(key), std::move(extent), std::move(body), {}, Symbol(tag));
}
} // namespace

TEST_CASE("the thread-extent census: every binding in walk order, the work-group size of the launches", "[ir]") {
  Var n = VarNode::make(Symbol("n"), DataType::int32());
  Var i = VarNode::make(Symbol("i"), DataType::int32());
  Stmt leaf = EvaluateNode::make(intImm(0));
  Stmt loop = ForNode::make(i, intImm(0), intImm(128), ForKind::ThreadBinding, leaf, Symbol("threadIdx.x"));
  Stmt body = launch("blockIdx.x", n,
                     SeqStmtNode::make({launch("threadIdx.x", intImm(32), leaf),
                                        launch("threadIdx.x", intImm(64), leaf), launch("threadIdx.y", n, leaf),
                                        launch("vthread", intImm(2), leaf, attr::kVirtualThread), loop}));
  ThreadExtentCensus census = threadExtentCensus(body);
  REQUIRE(census.bindings.size() == 6);
  CHECK(census.bindings[0].tag.view() == "blockIdx.x");
  CHECK(census.bindings[0].axis->kind == ThreadTag::Kind::Block);
  CHECK(census.bindings[1].isThreadLaunch());
  CHECK(census.bindings[4].form == ThreadBinding::Form::VirtualThread);
  CHECK(census.bindings[5].form == ThreadBinding::Form::Loop);
  CHECK_FALSE(census.bindings[5].isThreadLaunch());
  // The largest constant launch per dimension; a loop does not count (it is no launch yet).
  CHECK(census.local == std::array<int64_t, 3>{64, 1, 1});
  CHECK(census.localConstant == std::array<bool, 3>{true, false, true});
  REQUIRE(census.firstSymbolicLaunch());
  CHECK(census.firstSymbolicLaunch()->tag.view() == "threadIdx.y");
  CHECK_FALSE(threadExtentCensus(launch("threadIdx.z", intImm(4), leaf)).firstSymbolicLaunch());
  CHECK(threadExtentCensus(leaf).local == std::array<int64_t, 3>{1, 1, 1});
}
