// arith/thread_disjoint.h: whether indices of two different threads can be equal, with constant
// and symbolic coefficients, each claim of disjointness checked by enumerating the threads (and
// sizes) with test_util's own evaluator.
#include <catch2/catch.hpp>

#include <functional>

#include "arith/expr_util.h"
#include "arith/thread_disjoint.h"
#include "ir/script_expr_printer.h"
#include "test_util.h"

using namespace tirlower;
using namespace tirlower::test;

namespace {

constexpr int64_t kThreads = 64;

struct Setup {
  Var tx = var("threadIdx.x");
  Var n = var("n", DataType::int64());
  Analyzer analyzer;
  Analyzer sizes;
  ThreadIndexSpace space{{tx}, {true}, {}, 0};
  // n is at least `low` where the accesses happen (as a launch of a size over n tells).
  explicit Setup(int64_t low) {
    analyzer.bindRange(tx, 0, kThreads);
    sizes = analyzer;
    sizes.assumeNoOverflow();
    sizes.bindRange(n, low, int64_t{1} << 40);
  }
  Expr wide(const Expr &e) { return CastNode::make(DataType::int64(), e); }
  // (n + m - 1) // m * m: n rounded up to a multiple of m
  Expr roundUp(int64_t m) {
    return fdiv(n + c(m - 1, DataType::int64()), c(m, DataType::int64())) * c(m, DataType::int64());
  }
};

// Two different threads (for any n from `low` on, up to low + 40, and in one iteration of a loop
// `loop` over [0, 4) when given) that reach one element.
bool collide(const Setup &s, const Expr &a, const Expr &b, int64_t low, const Var &loop = {}) {
  for (int64_t size = low; size < low + 40; ++size)
    for (int64_t i = 0; i < (loop ? 4 : 1); ++i)
      for (int64_t t1 = 0; t1 < kThreads; ++t1)
        for (int64_t t2 = 0; t2 < kThreads; ++t2) {
          Env e1{{s.tx.get(), t1}, {s.n.get(), size}}, e2{{s.tx.get(), t2}, {s.n.get(), size}};
          if (loop)
            e1[loop.get()] = e2[loop.get()] = i;
          if (t1 != t2 && eval(a, e1) == eval(b, e2))
            return true;
        }
  return false;
}

// Two threads of one block of kThreads that reach one element, among the pairs `counts` takes
// (the threads a guard leaves, or the threads of different warps).
bool collidePairs(const Setup &s, const Expr &a, const Expr &b, const std::function<bool(int64_t, int64_t)> &counts) {
  for (int64_t t1 = 0; t1 < kThreads; ++t1)
    for (int64_t t2 = 0; t2 < kThreads; ++t2)
      if (t1 != t2 && counts(t1, t2) && eval(a, {{s.tx.get(), t1}}) == eval(b, {{s.tx.get(), t2}}))
        return true;
  return false;
}

} // namespace

TEST_CASE("constant coefficients: each thread its own slots", "[thread-disjoint]") {
  Setup s(1);
  Expr own = fdiv(s.tx, 8) * c(8) + fmod(s.tx, 8);
  CHECK(differentThreadsNeverMeet(own, own, s.space, s.analyzer));
  CHECK(!collide(s, own, own, 1));
  // tx // 16 * 8 + tx % 8: threads tx and tx + 8 share an element.
  Expr shared = fdiv(s.tx, 16) * c(8) + fmod(s.tx, 8);
  CHECK(!differentThreadsNeverMeet(shared, shared, s.space, s.analyzer));
  CHECK(collide(s, shared, shared, 1));
  // A shift smaller than the smallest step stays within the thread's slot: tx * 4 and tx * 4 + 3.
  CHECK(differentThreadsNeverMeet(s.tx * c(4), s.tx * c(4) + c(3), s.space, s.analyzer));
  CHECK(!differentThreadsNeverMeet(s.tx * c(4), s.tx * c(4) + c(4), s.space, s.analyzer));
}

TEST_CASE("symbolic strides: proven with the sizes' facts, never assumed", "[thread-disjoint]") {
  // The flattened element of S[i, tx // 8, tx % 8] for S of shape (4, R, C),
  // R = (n + 31) // 32 * 32, C = (n + 7) // 8 * 8, the digits widened to int64 as TVM prints them.
  Setup s(1);
  Var i = var("i", DataType::int64());
  s.analyzer.bindRange(i, 0, 4);
  s.sizes.bindRange(i, 0, 4);
  Expr rows = s.roundUp(32), cols = s.roundUp(8);
  Expr own = (i * rows + s.wide(fdiv(s.tx, 8))) * cols + s.wide(fmod(s.tx, 8));
  CHECK(differentThreadsNeverMeet(own, own, s.space, s.analyzer, &s.sizes));
  CHECK(!collide(s, own, own, 1, i));
  // Without facts about sizes a symbolic coefficient is not accepted.
  CHECK(!differentThreadsNeverMeet(own, own, s.space, s.analyzer));
  // With n >= 0 only, C may be 0 and every thread of a row meets.
  Setup zero(0);
  Expr ownZero = s.wide(fdiv(zero.tx, 8)) * zero.roundUp(8) + s.wide(fmod(zero.tx, 8));
  CHECK(!differentThreadsNeverMeet(ownZero, ownZero, zero.space, zero.analyzer, &zero.sizes));
  CHECK(collide(zero, ownZero, ownZero, 0));

  // tx % 16 needs C >= 16, which n >= 1 does not give (C = 8 for n <= 8: threads 8 and 16 meet).
  Expr narrow = s.wide(fdiv(s.tx, 8)) * cols + s.wide(fmod(s.tx, 16));
  CHECK(!differentThreadsNeverMeet(narrow, narrow, s.space, s.analyzer, &s.sizes));
  CHECK(collide(s, narrow, narrow, 1));
  // ... which a row of a multiple of 16 does.
  Expr wideRow = s.wide(fdiv(s.tx, 16)) * s.roundUp(16) + s.wide(fmod(s.tx, 16));
  CHECK(differentThreadsNeverMeet(wideRow, wideRow, s.space, s.analyzer, &s.sizes));
  CHECK(!collide(s, wideRow, wideRow, 1));
  // Two symbolic strides over each other, the loop variable below them:
  // S[tx // 8, tx % 8, i] = tx // 8 * (R * C) + tx % 8 * C + i.
  Expr plane = s.wide(fdiv(s.tx, 8)) * (rows * cols) + s.wide(fmod(s.tx, 8)) * cols + i;
  CHECK(differentThreadsNeverMeet(plane, plane, s.space, s.analyzer, &s.sizes));
  CHECK(!collide(s, plane, plane, 1, i));
  // A rest 8 further than the other side's: no constant digit reaches it, but a row may (C = 8:
  // thread 0's shifted element is thread 8's).
  Expr row = s.wide(fdiv(s.tx, 8)) * cols + s.wide(fmod(s.tx, 8));
  CHECK(!differentThreadsNeverMeet(row, row + c(8, DataType::int64()), s.space, s.analyzer, &s.sizes));
  CHECK(collide(s, row, row + c(8, DataType::int64()), 1));
  CHECK(differentThreadsNeverMeet(row, row + c(0, DataType::int64()), s.space, s.analyzer, &s.sizes));
  // Two digits over one stride: tx % 8 * C + tx // 8 * C needs C >= 8 * C, which fails
  // (threads 1 and 8 meet).
  Expr folded = s.wide(fmod(s.tx, 8)) * cols + s.wide(fdiv(s.tx, 8)) * cols;
  CHECK(!differentThreadsNeverMeet(folded, folded, s.space, s.analyzer, &s.sizes));
  CHECK(collide(s, folded, folded, 1));
  // Rests that differ by less than the smallest step cannot bridge it; by a whole row they can.
  Expr one = c(1, DataType::int64());
  CHECK(differentThreadsNeverMeet(own, own + c(0, DataType::int64()), s.space, s.analyzer, &s.sizes));
  Expr nextRow = (i * rows + s.wide(fdiv(s.tx, 8)) + one) * cols + s.wide(fmod(s.tx, 8));
  CHECK(!differentThreadsNeverMeet(own, nextRow, s.space, s.analyzer, &s.sizes));
}

TEST_CASE("a claim of disjointness holds on every thread pair", "[thread-disjoint]") {
  Setup s(1);
  Expr cols = s.roundUp(8), cols16 = s.roundUp(16), rows = s.roundUp(32);
  std::vector<Expr> digits = {s.wide(fdiv(s.tx, 8)),  s.wide(fmod(s.tx, 8)), s.wide(fdiv(s.tx, 16)),
                              s.wide(fmod(s.tx, 16)), s.wide(s.tx),          s.wide(fdiv(s.tx, 4))};
  std::vector<Expr> strides = {c(1, DataType::int64()), c(8, DataType::int64()), cols, cols16, rows};
  int proven = 0;
  for (const Expr &hi : digits)
    for (const Expr &lo : digits)
      for (const Expr &stride : strides) {
        Expr index = hi * stride + lo;
        bool claim = differentThreadsNeverMeet(index, index, s.space, s.analyzer, &s.sizes);
        INFO(formatExpr(index));
        if (claim)
          CHECK(!collide(s, index, index, 1));
        proven += claim;
      }
  CHECK(proven >= 8); // the test exercises claims, not only refusals
}

TEST_CASE("sizeLowerBound: what a launch that runs says of its size", "[thread-disjoint]") {
  Var n = var("n", DataType::int64()), m = var("m");
  auto lo = [](const Expr &e, int64_t k) { return sizeLowerBound(e, k); };
  auto i64 = [](int64_t v) { return c(v, DataType::int64()); };
  std::optional<std::pair<Var, int64_t>> b = lo(fdiv(n + i64(63), i64(64)), 1);
  REQUIRE(b);
  CHECK(b->first.get() == n.get());
  CHECK(b->second == 1);
  CHECK(lo(fdiv(n + i64(7), i64(8)), 2)->second == 9);
  CHECK(lo(n * i64(4) - i64(3), 1)->second == 1);
  CHECK(lo(n * i64(4), 1)->second == 1);
  CHECK(lo(n * i64(4), 5)->second == 2);
  CHECK(lo(CastNode::make(DataType::int64(), m), 3)->first.get() == m.get());
  CHECK(!lo(i64(63) - n, 1)); // decreasing in n
  CHECK(!lo(n * n, 1));
  CHECK(!lo(n * i64(-2), 1));
  CHECK(!lo(fdiv(n, n), 1));
  CHECK(!lo(CastNode::make(DataType::int32(), n), 1)); // a narrowing cast may wrap
  // Each bound is the least: below it the expression is under k, from it on at least k.
  for (int64_t k = -3; k <= 5; ++k) {
    Expr e = fdiv(n * i64(3) + i64(5), i64(4));
    int64_t least = lo(e, k)->second;
    CHECK(eval(e, {{n.get(), least}}) >= k);
    CHECK(eval(e, {{n.get(), least - 1}}) < k);
  }
}

TEST_CASE("a guard t % m == r: the threads it leaves", "[thread-disjoint]") {
  // if tx % 32 == 0: S[tx // 32] is written by one thread per warp, each at its own element.
  Setup s(1);
  auto guarded = [&](int64_t m, int64_t r) {
    ThreadIndexSpace space = s.space;
    space.congruences = {{m, r}};
    return space;
  };
  auto passes = [](int64_t m, int64_t r) {
    return [m, r](int64_t t1, int64_t t2) { return t1 % m == r && t2 % m == r; };
  };
  Expr warp = fdiv(s.tx, 32);
  CHECK(differentThreadsNeverMeet(warp, warp, guarded(32, 0), s.analyzer));
  CHECK(!collidePairs(s, warp, warp, passes(32, 0)));
  CHECK(!differentThreadsNeverMeet(warp, warp, s.space, s.analyzer)); // without the guard every lane writes
  CHECK(collidePairs(s, warp, warp, [](int64_t, int64_t) { return true; }));
  // tx // 64 under tx % 32 == 0: threads 0 and 32 both write element 0.
  Expr block = fdiv(s.tx, 64);
  CHECK(!differentThreadsNeverMeet(block, block, guarded(32, 0), s.analyzer));
  CHECK(collidePairs(s, block, block, passes(32, 0)));
  // Through the casts an int64 thread variable brings (int32(int64(tx)) % 32 == 0 guards it).
  Expr roundTrip = CastNode::make(DataType::int32(), s.wide(s.tx));
  CHECK(differentThreadsNeverMeet(fdiv(roundTrip, 32), fdiv(roundTrip, 32), guarded(32, 0), s.analyzer));
  CHECK(differentThreadsNeverMeet(s.wide(fdiv(s.tx, 32)), fdiv(s.wide(s.tx), c(32, DataType::int64())), guarded(32, 0),
                                  s.analyzer));
  CHECK(!collidePairs(s, fdiv(roundTrip, 32), fdiv(roundTrip, 32), passes(32, 0)));
  // A guard that only one thread passes (tx % 64 == 5 in 64 threads): nothing to tell apart.
  CHECK(differentThreadsNeverMeet(block, block, guarded(64, 5), s.analyzer));

  // Every claim against the brute-force evaluator, over digits, moduli and residues.
  std::vector<Expr> indices = {fdiv(s.tx, 32),       fdiv(s.tx, 8),        fdiv(s.tx, 16) * c(2) + c(1),
                               fmod(s.tx, 8),        fdiv(s.tx, 4) * c(3), fmod(fdiv(s.tx, 8), 4),
                               fdiv(s.tx + c(3), 8), s.tx - fmod(s.tx, 8), fdiv(s.tx, 8) + fmod(s.tx, 2) * c(8),
                               fdiv(s.tx, 16)};
  int proven = 0, refused = 0;
  for (int64_t m : {2, 4, 8, 16, 32})
    for (int64_t r : {int64_t{0}, int64_t{1}, m - 1})
      for (const Expr &a : indices)
        for (const Expr &b : indices) {
          bool claim = differentThreadsNeverMeet(a, b, guarded(m, r), s.analyzer);
          INFO(formatExpr(a) << " vs " << formatExpr(b) << " under tx % " << m << " == " << r);
          if (claim)
            CHECK(!collidePairs(s, a, b, passes(m, r)));
          proven += claim;
          refused += !claim;
        }
  CHECK(proven >= 20);
  CHECK(refused >= 20);
}

TEST_CASE("groups: only threads of different warps must never meet", "[thread-disjoint]") {
  // After a warp barrier, the lanes of one warp are ordered: S[tx // 32] written by every lane is
  // each warp's own element.
  Setup s(1);
  auto grouped = [&](int64_t size) {
    ThreadIndexSpace space = s.space;
    space.groupSize = size;
    return space;
  };
  auto apart = [](int64_t size) { return [size](int64_t t1, int64_t t2) { return t1 / size != t2 / size; }; };
  Expr warp = fdiv(s.tx, 32), lane = fmod(s.tx, 32);
  CHECK(differentThreadsNeverMeet(warp, warp, grouped(32), s.analyzer));
  CHECK(!collidePairs(s, warp, warp, apart(32)));
  // tx % 32: lane k of every warp writes element k.
  CHECK(!differentThreadsNeverMeet(lane, lane, grouped(32), s.analyzer));
  CHECK(collidePairs(s, lane, lane, apart(32)));
  // tx // 2 within groups of 16: a pair {2k, 2k + 1} never spans two groups.
  Expr pair = fdiv(s.tx, 2);
  CHECK(differentThreadsNeverMeet(pair, pair, grouped(16), s.analyzer));
  CHECK(!collidePairs(s, pair, pair, apart(16)));
  CHECK(!differentThreadsNeverMeet(pair, pair, s.space, s.analyzer));
  // One group only (threads 0-15 of groups of 32): nothing to tell apart.
  Analyzer few;
  few.bindRange(s.tx, 0, 16);
  CHECK(differentThreadsNeverMeet(s.tx, s.tx + c(1), grouped(32), few));
  CHECK(!differentThreadsNeverMeet(s.tx, s.tx + c(1), s.space, few));

  std::vector<Expr> indices = {fdiv(s.tx, 32), fmod(s.tx, 32),        fdiv(s.tx, 2),         s.tx + c(1),
                               s.tx,           fdiv(s.tx, 16) * c(4), fdiv(s.tx + c(8), 16), fmod(s.tx, 16),
                               fdiv(s.tx, 64), s.tx - fmod(s.tx, 16)};
  int proven = 0, refused = 0;
  for (int64_t size : {4, 16, 32})
    for (const Expr &a : indices)
      for (const Expr &b : indices) {
        bool claim = differentThreadsNeverMeet(a, b, grouped(size), s.analyzer);
        INFO(formatExpr(a) << " vs " << formatExpr(b) << " in groups of " << size);
        if (claim)
          CHECK(!collidePairs(s, a, b, apart(size)));
        proven += claim;
        refused += !claim;
      }
  CHECK(proven >= 10);
  CHECK(refused >= 15);
}

TEST_CASE("digits on one side only: counted in that side's rest", "[thread-disjoint]") {
  // S[tx] against S[tx // 32 * 32]: thread 0's element is read by every lane of warp 0, but
  // after a warp barrier only other warps count, and those read their own warp's first element.
  Setup s(1);
  ThreadIndexSpace warps = s.space;
  warps.groupSize = 32;
  Expr lane0 = fdiv(s.tx, 32) * c(32);
  CHECK(!differentThreadsNeverMeet(s.tx, lane0, s.space, s.analyzer));
  CHECK(collidePairs(s, s.tx, lane0, [](int64_t, int64_t) { return true; }));
  CHECK(differentThreadsNeverMeet(s.tx, lane0, warps, s.analyzer));
  CHECK(!collidePairs(s, s.tx, lane0, [](int64_t t1, int64_t t2) { return t1 / 32 != t2 / 32; }));
  // ... and lane0 + 32 is the next warp's: warps 0 and 1 meet.
  CHECK(!differentThreadsNeverMeet(s.tx, lane0 + c(32), warps, s.analyzer));
  // A thread index in both sides' rests would stand for two threads at once: refused.
  CHECK(!differentThreadsNeverMeet(fdiv(s.tx, 8) * c(8) + fmod(s.tx, 4), fdiv(s.tx, 8) * c(8) + fmod(s.tx, 8), s.space,
                                   s.analyzer));

  std::vector<Expr> digits = {fdiv(s.tx, 8), fmod(s.tx, 8), fdiv(s.tx, 32), fmod(s.tx, 32), s.tx};
  std::vector<Expr> indices;
  for (const Expr &hi : digits)
    for (int64_t stride : {1, 8, 32})
      indices.push_back(hi * c(stride));
  for (const Expr &hi : digits)
    for (const Expr &lo : digits)
      indices.push_back(hi * c(32) + lo);
  int proven = 0;
  for (const Expr &a : indices)
    for (const Expr &b : indices) {
      bool claim = differentThreadsNeverMeet(a, b, s.space, s.analyzer);
      INFO(formatExpr(a) << " vs " << formatExpr(b));
      if (claim)
        CHECK(!collidePairs(s, a, b, [](int64_t, int64_t) { return true; }));
      proven += claim;
    }
  CHECK(proven >= 20);
}
