// Interpreter throughput on a matmul-style nest. Hidden ([.speed]): run with
// `interp_unit "[speed]"` to print iterations per second.
#include <catch2/catch.hpp>

#include <chrono>

#include "builders.h"

using namespace tirlower;
using namespace tirlower::test;

TEST_CASE("matmul 256x256x32 throughput", "[.speed]") {
  constexpr int M = 256, N = 256, K = 32;
  Buffer a = buffer("A", dims({M, K})), b = buffer("B", dims({K, N})), out = buffer("C", dims({M, N}));
  Var i = var("i"), j = var("j"), k = var("k");
  Stmt body = loop(i, M,
                   loop(j, N,
                        seq({store(out, fc(0), {i, j}),
                             loop(k, K, store(out, load(out, {i, j}) + load(a, {i, k}) * load(b, {k, j}), {i, j}))})));
  PrimFunc f = func("matmul", {a, b, out}, body);
  std::vector<ArgValue> args = makeRandomArgs(f, 1);
  const auto start = std::chrono::steady_clock::now();
  RunResult r = run(f, args);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(r.ok());
  const double inner = double(M) * N * K;
  WARN("matmul " << M << "x" << N << "x" << K << ": " << seconds << " s, " << inner / seconds / 1e6
                 << " M inner iterations/s");

  // A simple scalar loop: O[i] = A[i] + 1.
  constexpr int L = 1 << 22;
  Buffer x = buffer("X", dims({L})), y = buffer("Y", dims({L}));
  Var t = var("t");
  PrimFunc g = func("inc", {x, y}, loop(t, L, store(y, load(x, {t}) + fc(1), {t})));
  std::vector<ArgValue> gargs = makeRandomArgs(g, 1);
  const auto s2 = std::chrono::steady_clock::now();
  REQUIRE(run(g, gargs).ok());
  const double sec2 = std::chrono::duration<double>(std::chrono::steady_clock::now() - s2).count();
  WARN("scalar loop: " << L / sec2 / 1e6 << " M iterations/s");
}
