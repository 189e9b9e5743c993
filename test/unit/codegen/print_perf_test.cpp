// Printing speed (hidden: run with `codegen_unit [.perf]`). The target is >= 1M lines/s for
// parse + print together, so printing alone should stay well above that.
#include <catch2/catch.hpp>

#include <chrono>

#include "codegen/json_emitter.h"
#include "codegen/tir_printer.h"
#include "ir_builders.h"

using namespace tirlower;
using namespace tirlower::testing;

TEST_CASE("printing is linear and fast", "[.perf]") {
  FuncBuilder fb("big");
  Buffer A = fb.bufferParam("A", {1024, 1024});
  Buffer B = fb.bufferParam("B", {1024, 1024});
  Var n = fb.scalarParam("n");
  std::vector<Stmt> loops;
  const int kLoops = 100000;
  for (int k = 0; k < kLoops; ++k) {
    Var i = var("i"), j = var("j");
    Expr index = bin(BinaryOp::Add, bin(BinaryOp::Mul, i, i32(4)), bin(BinaryOp::FloorMod, j, n));
    Stmt store1 = store(A, bin(BinaryOp::Add, load(B, {i, index}), f32(0.5)), {i, j});
    Stmt store2 = store(B, bin(BinaryOp::Mul, load(A, {i, j}), load(B, {j, i})), {j, i});
    loops.push_back(loop(i, 1024, loop(j, 1024, SeqStmtNode::make({store1, store2}))));
  }
  Module m = moduleOf({fb.build(SeqStmtNode::make(std::move(loops)))});
  auto start = std::chrono::steady_clock::now();
  std::string text = printModule(m);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  WARN("printed " << lines << " lines in " << seconds * 1000 << " ms: " << lines / seconds / 1e6 << " M lines/s");
  CHECK(lines >= 4 * kLoops);
  start = std::chrono::steady_clock::now();
  std::string json = emitJson(m, nullptr);
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  WARN("JSON: " << json.size() / 1e6 << " MB in " << seconds * 1000 << " ms");
}
