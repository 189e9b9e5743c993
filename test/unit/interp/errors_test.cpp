// Every misuse is a located diagnostic in the result, never a crash.
#include <catch2/catch.hpp>

#include "builders.h"

using namespace tirlower;
using namespace tirlower::test;

namespace {
const SourceRange kWhere{1, 10, 20};
}

TEST_CASE("out-of-bounds accesses name the buffer, the index and the extent", "[interp]") {
  Buffer a = buffer("A", dims({16})), b = buffer("B", dims({16}));
  Var i = var("i");
  // Reads A[i + 1] for i in [0, 16): the last iteration reads A[16].
  Stmt body = BufferStoreNode::make(b, BufferLoadNode::make(a, {i + c(1)}, kWhere), {i});
  PrimFunc f = func("shift", {a, b}, loop(i, 16, body));
  std::vector<ArgValue> args = makeRandomArgs(f, 1);
  RunResult r = run(f, args);
  REQUIRE(r.status == RunStatus::Error);
  CHECK(errorText(r) == "out-of-bounds read of buffer 'A': index 16 is outside [0, 16) in dimension 0 (access A[16])");
  CHECK(r.error->range.begin == kWhere.begin);
  CHECK(r.returnCode != 0);
  CHECK(args[1].buffer->getFloat(14) == args[0].buffer->getFloat(15)); // the loop ran up to the fault

  SECTION("a write past the end of a 2-d buffer") {
    Buffer m = buffer("M", dims({4, 3}), i32());
    Var j = var("j");
    PrimFunc g = func("fill", {m}, loop(i, 4, loop(j, 4, store(m, i + j, {i, j}))));
    std::vector<ArgValue> margs = makeRandomArgs(g, 1);
    RunResult w = run(g, margs);
    REQUIRE(w.status == RunStatus::Error);
    CHECK(errorText(w) ==
          "out-of-bounds write of buffer 'M': index 3 is outside [0, 3) in dimension 1 (access M[0, 3])");
  }

  SECTION("without logical checks, the storage bound still holds") {
    RunOptions loose;
    loose.checkLogicalBounds = false;
    RunResult s = run(f, args, loose);
    REQUIRE(s.status == RunStatus::Error);
    CHECK_THAT(errorText(s), Catch::Contains("element offset 16 is outside its storage of 16 elements of float32"));
  }
}

TEST_CASE("reading uninitialised memory is an error", "[interp]") {
  Buffer tmp = buffer("tmp", dims({8}), i32());
  Buffer out = buffer("O", dims({8}), i32());
  Var i = var("i");
  // Writes tmp[0..6] only, then copies all eight elements.
  Stmt body = seq({loop(i, 7, store(tmp, i, {i})), loop(i, 8, store(out, load(tmp, {i}), {i}))});
  PrimFunc f = func("partial", {out}, AllocBufferNode::make(tmp, body));
  std::vector<ArgValue> args = makeRandomArgs(f, 5);
  RunResult r = run(f, args);
  REQUIRE(r.status == RunStatus::Error);
  CHECK(errorText(r) == "read of uninitialised memory: buffer 'tmp' at [7] (element offset 7)");
  for (int k = 0; k < 7; ++k)
    CHECK(args[0].buffer->getInt(k) == k);

  SECTION("caller storage that was never written") {
    Buffer in = buffer("I", dims({8}), i32());
    PrimFunc g = func("copy", {in, out}, loop(i, 8, store(out, load(in, {i}), {i})));
    std::vector<ArgValue> gargs = {ArgValue::ofBuffer(storage(i32(), 8)), ArgValue::ofBuffer(storage(i32(), 8))};
    CHECK(run(g, gargs).status == RunStatus::Error);
    gargs[0].buffer->markAllInitialized();
    CHECK(run(g, gargs).ok());
  }
}

TEST_CASE("a failed assert returns non-zero with its message", "[interp]") {
  Var n = var("n");
  Buffer out = buffer("O", dims({1}), i32());
  Stmt body =
      seq({AssertStmtNode::make(bin(BinaryOp::LT, n, c(10)), "n must be below 10", kWhere), store(out, n, {c(0)})});
  PrimFunc f = func("checked", {n, out}, body);
  std::vector<ArgValue> args = {ArgValue::ofInt(3), ArgValue::ofBuffer(storage(i32(), 1))};
  RunResult ok = run(f, args);
  REQUIRE(ok.ok());
  CHECK(ok.returnCode == 0);
  CHECK(args[1].buffer->getInt(0) == 3);
  args[0] = ArgValue::ofInt(12);
  RunResult bad = run(f, args);
  CHECK(bad.status == RunStatus::AssertFailed);
  CHECK(bad.returnCode == 1); // what the emitted C returns (docs/abi.md)
  CHECK(errorText(bad) == "assertion failed: n must be below 10");
  CHECK(bad.error->range.begin == kWhere.begin);
  CHECK(args[1].buffer->getInt(0) == 3); // the store after the assert did not run
}

TEST_CASE("the step limit stops an infinite loop", "[interp]") {
  Buffer out = buffer("O", dims({1}), i32());
  Stmt spin = WhileNode::make(IntImmNode::make(DataType::boolean(), 1), store(out, c(1), {c(0)}), kWhere);
  PrimFunc f = func("spin", {out}, spin);
  std::vector<ArgValue> args = makeRandomArgs(f, 1);
  RunOptions options;
  options.stepLimit = 1000;
  RunResult r = run(f, args, options);
  REQUIRE(r.status == RunStatus::Error);
  CHECK_THAT(errorText(r), Catch::StartsWith("step limit of 1000 loop iterations exceeded"));
  CHECK(r.steps == 1001);
  CHECK(r.error->range.begin == kWhere.begin);
}

TEST_CASE("division by zero, call_extern and undefined variables are errors", "[interp]") {
  Var x = var("x"), y = var("y");
  Buffer out = buffer("O", dims({1}), i32());
  PrimFunc div = func("div", {x, y, out}, store(out, bin(BinaryOp::FloorDiv, x, y), {c(0)}));
  std::vector<ArgValue> args = {ArgValue::ofInt(5), ArgValue::ofInt(0), ArgValue::ofBuffer(storage(i32(), 1))};
  RunResult r = run(div, args);
  REQUIRE(r.status == RunStatus::Error);
  CHECK(errorText(r) == "division by zero in floordiv");

  Expr ext = CallNode::make(i32(), Symbol("call_extern"), {StringImmNode::make("rand")}, kWhere);
  PrimFunc g = func("ext", {out}, store(out, ext, {c(0)}));
  std::vector<ArgValue> gargs = {ArgValue::ofBuffer(storage(i32(), 1))};
  RunResult e = run(g, gargs);
  REQUIRE(e.status == RunStatus::Error);
  CHECK_THAT(errorText(e), Catch::Contains("call_extern"));
  CHECK(e.error->range.begin == kWhere.begin);

  // call_extern in a branch that never runs is harmless.
  PrimFunc h = func("guarded", {out},
                    IfThenElseNode::make(IntImmNode::make(DataType::boolean(), 0), store(out, ext, {c(0)}), nullptr));
  CHECK(run(h, gargs).ok());

  Var ghost = var("ghost");
  PrimFunc u = func("undefined", {out}, store(out, ghost, {c(0)}));
  RunResult ur = run(u, gargs);
  REQUIRE(ur.status == RunStatus::Error);
  CHECK(errorText(ur) == "variable 'ghost' is used where it is not defined");
}

TEST_CASE("if_then_else is lazy, Select is not", "[interp]") {
  Var i = var("i");
  Buffer a = buffer("A", dims({4})), out = buffer("O", dims({6}));
  Expr inside = bin(BinaryOp::LT, i, c(4));
  Expr lazy = CallNode::make(f32(), Symbol("if_then_else"), {inside, load(a, {i}), fc(0)});
  PrimFunc f = func("pad", {a, out}, loop(i, 6, store(out, lazy, {i})));
  std::vector<ArgValue> args = makeRandomArgs(f, 4);
  REQUIRE(run(f, args).ok());
  CHECK(args[1].buffer->getFloat(3) == args[0].buffer->getFloat(3));
  CHECK(args[1].buffer->getFloat(5) == 0.0);

  PrimFunc g = func("eager", {a, out}, loop(i, 6, store(out, SelectNode::make(inside, load(a, {i}), fc(0)), {i})));
  RunResult r = run(g, args);
  REQUIRE(r.status == RunStatus::Error);
  CHECK_THAT(errorText(r), Catch::Contains("index 4 is outside [0, 4)"));
}
