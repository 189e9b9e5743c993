// Interpreter throughput on a matmul-style nest. Hidden ([.speed]): run with
// `interp_unit "[speed]"` to print iterations per second.
#include <catch2/catch.hpp>

#include <chrono>
#include <ctime>

#include "builders.h"

using namespace tirlower;
using namespace tirlower::test;

namespace {
// Wall and process CPU seconds of one run; on a loaded machine the CPU time is the honest one.
struct Timing {
  double wall, cpu;
};
Timing timeRun(const PrimFunc &f, std::vector<ArgValue> &args) {
  const auto wall = std::chrono::steady_clock::now();
  const std::clock_t cpu = std::clock();
  RunResult r = run(f, args);
  Timing t{std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count(),
           double(std::clock() - cpu) / CLOCKS_PER_SEC};
  REQUIRE(r.ok());
  return t;
}
} // namespace

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
  const Timing tm = timeRun(f, args);
  const double inner = double(M) * N * K;
  WARN("matmul " << M << "x" << N << "x" << K << ": wall " << tm.wall << " s, cpu " << tm.cpu << " s, "
                 << inner / tm.cpu / 1e6 << " M inner iterations per cpu second");

  // A simple scalar loop: O[i] = A[i] + 1.
  constexpr int L = 1 << 22;
  Buffer x = buffer("X", dims({L})), y = buffer("Y", dims({L}));
  Var t = var("t");
  PrimFunc g = func("inc", {x, y}, loop(t, L, store(y, load(x, {t}) + fc(1), {t})));
  std::vector<ArgValue> gargs = makeRandomArgs(g, 1);
  const Timing t2 = timeRun(g, gargs);
  WARN("scalar loop O[i] = A[i] + 1: wall " << t2.wall << " s, cpu " << t2.cpu << " s, " << L / t2.cpu / 1e6
                                            << " M iterations per cpu second");
}
