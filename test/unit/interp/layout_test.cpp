// Layouts: a repack written through a flattened alias, and axis_separators, compared with a
// repack computed here independently.
#include <catch2/catch.hpp>

#include "builders.h"

using namespace tirlower;
using namespace tirlower::test;

namespace {
constexpr int N = 1, H = 3, W = 5, C = 8, CO = C / 4;

// out[n][c/4][h][w][c%4] = in[n][h][w][c], computed directly.
std::vector<double> repackReference(const BufferData &in) {
  std::vector<double> out(static_cast<size_t>(N * H * W * C));
  for (int n = 0; n < N; ++n)
    for (int h = 0; h < H; ++h)
      for (int w = 0; w < W; ++w)
        for (int ch = 0; ch < C; ++ch) {
          const size_t src = static_cast<size_t>(((n * H + h) * W + w) * C + ch);
          const size_t dst = static_cast<size_t>((((n * CO + ch / 4) * H + h) * W + w) * 4 + ch % 4);
          out[dst] = in.getFloat(src);
        }
  return out;
}
} // namespace

TEST_CASE("NHWC to NCHW4c repack through a flattened alias", "[interp]") {
  Buffer in = buffer("A", dims({N, H, W, C}));
  Buffer out = buffer("B", dims({N, CO, H, W, 4}));
  // The lowered form: the body writes a 1-d alias over B's data.
  Buffer flat = buffer("B_flat", dims({N * CO * H * W * 4}), f32(), out->data);
  Var n = var("n"), co = var("co"), h = var("h"), w = var("w"), ci = var("ci");
  Expr dst = (((n * c(CO) + co) * c(H) + h) * c(W) + w) * c(4) + ci;
  Stmt body = loop(
      n, N, loop(co, CO, loop(h, H, loop(w, W, loop(ci, 4, store(flat, load(in, {n, h, w, co * c(4) + ci}), {dst}))))));
  PrimFunc f = func("repack", {in, out}, DeclBufferNode::make(flat, false, body));
  RandomArgOptions uninitialized;
  uninitialized.initialize = false;
  std::vector<ArgValue> args = makeRandomArgs(f, 11, uninitialized); // B starts uninitialised
  args[0].buffer = makeRandomArgs(f, 11)[0].buffer;
  REQUIRE(run(f, args).ok());
  const std::vector<double> expected = repackReference(*args[0].buffer);
  for (size_t k = 0; k < expected.size(); ++k) {
    INFO("element " << k);
    REQUIRE(args[1].buffer->isInitialized(k));
    REQUIRE(args[1].buffer->getFloat(k) == expected[k]);
  }

  SECTION("the same repack written through the 5-d buffer with axis_separators") {
    Buffer sep = buffer("B_sep", dims({N, CO, H, W, 4}), f32(), out->data, {}, nullptr, {3});
    Stmt nd = loop(
        n, N,
        loop(co, CO,
             loop(h, H, loop(w, W, loop(ci, 4, store(sep, load(in, {n, h, w, co * c(4) + ci}), {n, co, h, w, ci}))))));
    PrimFunc g = func("repack_sep", {in, sep}, nd);
    std::vector<ArgValue> gargs = {args[0], ArgValue::ofBuffer(storage(f32(), expected.size()))};
    REQUIRE(run(g, gargs).ok());
    for (size_t k = 0; k < expected.size(); ++k)
      REQUIRE(gargs[1].buffer->getFloat(k) == expected[k]);

    // Read back through a flattened 2-d view (physical axes [n*CO + co, (h*W + w)*4 + ci]).
    Buffer twoD = buffer("B_2d", dims({N * CO * H, W * 4}), f32(), sep->data, {}, nullptr, {1});
    Buffer check = buffer("check", dims({N * CO * H, W * 4}));
    Var r = var("r"), q = var("q");
    PrimFunc read =
        func("read2d", {sep, check},
             DeclBufferNode::make(twoD, false,
                                  loop(r, N * CO * H, loop(q, W * 4, store(check, load(twoD, {r, q}), {r, q})))));
    std::vector<ArgValue> rargs = {gargs[1], ArgValue::ofBuffer(storage(f32(), expected.size()))};
    REQUIRE(run(read, rargs).ok());
    for (size_t k = 0; k < expected.size(); ++k)
      REQUIRE(rargs[1].buffer->getFloat(k) == expected[k]);
  }
}

TEST_CASE("Allocate with a decl_buffer view and a matmul-style nest", "[interp]") {
  constexpr int M = 6, K = 5, P = 4;
  Buffer a = buffer("A", dims({M, K})), b = buffer("B", dims({K, P})), out = buffer("C", dims({M, P}));
  Var accData = VarNode::makeHandle(Symbol("acc"), f32(), Symbol("local"));
  Buffer acc = buffer("acc_buf", dims({1}), f32(), accData);
  Var i = var("i"), j = var("j"), k = var("k");
  Stmt inner = seq({store(acc, fc(0), {c(0)}),
                    loop(k, K, store(acc, load(acc, {c(0)}) + load(a, {i, k}) * load(b, {k, j}), {c(0)})),
                    store(out, load(acc, {c(0)}), {i, j})});
  Stmt body = AllocateNode::make(accData, f32(), dims({1}), Symbol("local"),
                                 DeclBufferNode::make(acc, false, loop(i, M, loop(j, P, inner))));
  PrimFunc f = func("matmul", {a, b, out}, body);
  std::vector<ArgValue> args = makeRandomArgs(f, 21);
  RunResult r = run(f, args);
  REQUIRE(r.ok());
  CHECK(r.steps == M + M * P + M * P * K);
  for (int x = 0; x < M; ++x)
    for (int y = 0; y < P; ++y) {
      float sum = 0;
      for (int z = 0; z < K; ++z)
        sum = sum + static_cast<float>(args[0].buffer->getFloat(x * K + z)) *
                        static_cast<float>(args[1].buffer->getFloat(z * P + y));
      REQUIRE(args[2].buffer->getFloat(x * P + y) == static_cast<double>(sum));
    }
}
