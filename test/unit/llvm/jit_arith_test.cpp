// JIT-compiled arithmetic: elementwise add at every -O level, floor division tables, the NHWC to
// NCHW4c repack index arithmetic and math intrinsics, against values computed here in C++ and
// against the reference interpreter.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include <llvm/ADT/StringMap.h>
#include <llvm/Support/Host.h>

#include "codegen/llvm/llvm_emitter.h"
#include "interp/interpreter.h"
#include "llvm_test_ir.h"

using namespace tirlower;
using namespace tirlower::llvmtest;

namespace {

Expr floordiv(Expr a, Expr b) {
  return bin(BinaryOp::FloorDiv, std::move(a), std::move(b));
}
Expr floormod(Expr a, Expr b) {
  return bin(BinaryOp::FloorMod, std::move(a), std::move(b));
}

std::shared_ptr<BufferData> interpBuffer(const std::vector<float> &values) {
  auto data = std::make_shared<BufferData>(DataType::float32(), values.size());
  for (size_t k = 0; k < values.size(); ++k)
    data->setFloat(k, values[k]);
  return data;
}

} // namespace

TEST_CASE("elementwise add at every -O level matches C++ and the interpreter", "[llvm][jit]") {
  FuncBuilder fb("vadd");
  Var n = fb.scalarParam("n");
  Buffer a = fb.bufferParam("A", n), b = fb.bufferParam("B", n), c = fb.bufferParam("C", n);
  fb.f.params = {a->data, b->data, c->data, n};
  Var i = var("i");
  PrimFunc func = fb.noalias().build(loop(i, n, store(c, bin(BinaryOp::Add, load(a, i), load(b, i)), i)));

  const int count = 37;
  std::vector<float> x(count), y(count);
  for (int k = 0; k < count; ++k) {
    x[k] = 0.25f * static_cast<float>(k) - 3.0f;
    y[k] = 100.0f / static_cast<float>(k + 1);
  }
  std::vector<ArgValue> args = {ArgValue::ofBuffer(interpBuffer(x)), ArgValue::ofBuffer(interpBuffer(y)),
                                ArgValue::ofBuffer(interpBuffer(std::vector<float>(count, 0.0f))),
                                ArgValue::ofInt(count)};
  REQUIRE(run(func, args).ok());

  for (int level = 0; level <= 3; ++level) {
    LLVMEmitOptions options;
    options.optLevel = level;
    JitModule jit(moduleOf({func}), options);
    auto fn = jit.function<int32_t (*)(const float *, const float *, float *, int32_t)>("vadd");
    std::vector<float> z(count, -1.0f);
    REQUIRE(fn(x.data(), y.data(), z.data(), count) == 0);
    INFO("O" << level);
    for (int k = 0; k < count; ++k) {
      CHECK(z[k] == x[k] + y[k]);
      CHECK(z[k] == static_cast<float>(args[2].buffer->getFloat(static_cast<size_t>(k))));
    }
  }
}

TEST_CASE("floor and truncating division agree with C++ for negative operands", "[llvm][jit]") {
  for (bool vector : {false, true}) {
    FuncBuilder fb("divtable");
    Var n = fb.scalarParam("n");
    DataType t = DataType::int32();
    Buffer a = fb.bufferParam("A", n, t), b = fb.bufferParam("B", n, t);
    Buffer q = fb.bufferParam("Q", n, t), r = fb.bufferParam("R", n, t);
    Buffer tq = fb.bufferParam("TQ", n, t), tr = fb.bufferParam("TR", n, t);
    Var i = var("i");
    Expr index = vector ? ramp(bin(BinaryOp::Mul, i, i32(4)), 1, 4) : Expr(i);
    Expr x = load(a, index), y = load(b, index);
    Stmt body = seq({store(q, floordiv(x, y), index), store(r, floormod(x, y), index),
                     store(tq, bin(BinaryOp::Div, x, y), index), store(tr, bin(BinaryOp::Mod, x, y), index)});
    Expr trips = vector ? floordiv(n, i32(4)) : Expr(n);
    PrimFunc func = fb.build(loop(i, trips, body));

    std::vector<int32_t> xs, ys;
    for (int32_t u = -9; u <= 9; ++u)
      for (int32_t v : {-4, -3, -2, -1, 1, 2, 3, 4}) {
        xs.push_back(u);
        ys.push_back(v);
      }
    xs.push_back(INT32_MIN), ys.push_back(3);
    xs.push_back(INT32_MAX), ys.push_back(-2);
    while (xs.size() % 4)
      xs.push_back(-1), ys.push_back(7);
    size_t count = xs.size();
    std::vector<int32_t> fq(count), fr(count), dq(count), dr(count);
    for (int level : {0, 2}) {
      LLVMEmitOptions options;
      options.optLevel = level;
      JitModule jit(moduleOf({func}), options);
      using Fn = int32_t (*)(int32_t, const int32_t *, const int32_t *, int32_t *, int32_t *, int32_t *, int32_t *);
      auto fn = jit.function<Fn>("divtable");
      REQUIRE(fn(static_cast<int32_t>(count), xs.data(), ys.data(), fq.data(), fr.data(), dq.data(), dr.data()) == 0);
      for (size_t k = 0; k < count; ++k) {
        INFO(xs[k] << " by " << ys[k] << (vector ? " (int32x4)" : "") << " at O" << level);
        auto expectedQ = static_cast<int64_t>(std::floor(static_cast<double>(xs[k]) / ys[k]));
        CHECK(fq[k] == expectedQ);
        CHECK(fr[k] == static_cast<int64_t>(xs[k]) - expectedQ * ys[k]);
        CHECK(dq[k] == xs[k] / ys[k]);
        CHECK(dr[k] == xs[k] % ys[k]);
      }
    }
  }
}

TEST_CASE("NHWC to NCHW4c repack index arithmetic", "[llvm][jit]") {
  const int N = 2, H = 3, W = 5, C = 8, CO = C / 4;
  FuncBuilder fb("repack");
  Buffer in = fb.bufferParam("In", N * H * W * C), out = fb.bufferParam("Out", N * CO * H * W * 4);
  Var o = var("o");
  Expr c4 = floormod(o, i32(4));
  Expr w = floormod(floordiv(o, i32(4)), i32(W));
  Expr h = floormod(floordiv(o, i32(4 * W)), i32(H));
  Expr co = floormod(floordiv(o, i32(4 * W * H)), i32(CO));
  Expr nn = floordiv(o, i32(4 * W * H * CO));
  Expr source = ((nn * i32(H) + h) * i32(W) + w) * i32(C) + co * i32(4) + c4;
  PrimFunc func = fb.noalias().build(loop(o, i32(N * CO * H * W * 4), store(out, load(in, source), o)));

  std::vector<float> input(N * H * W * C), output(N * CO * H * W * 4, -1.0f);
  for (size_t k = 0; k < input.size(); ++k)
    input[k] = static_cast<float>(k) * 0.5f + 1.0f;
  JitModule jit(moduleOf({func}), {});
  REQUIRE(jit.function<int32_t (*)(const float *, float *)>("repack")(input.data(), output.data()) == 0);
  for (int n = 0; n < N; ++n)
    for (int c = 0; c < C; ++c)
      for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
          float expected = input[((n * H + y) * W + x) * C + c];
          CHECK(output[(((n * CO + c / 4) * H + y) * W + x) * 4 + c % 4] == expected);
        }

  std::vector<ArgValue> args = {ArgValue::ofBuffer(interpBuffer(input)),
                                ArgValue::ofBuffer(interpBuffer(std::vector<float>(output.size(), 0.0f)))};
  REQUIRE(run(func, args).ok());
  for (size_t k = 0; k < output.size(); ++k)
    CHECK(static_cast<float>(args[1].buffer->getFloat(k)) == output[k]);
}

TEST_CASE("math intrinsics, casts and min/max", "[llvm][jit]") {
  FuncBuilder fb("math");
  Buffer a = fb.bufferParam("A", 8), out = fb.bufferParam("Out", 80);
  Buffer ints = fb.bufferParam("I", 16, DataType::int32());
  Var i = var("i");
  Expr x = load(a, i);
  DataType f = DataType::float32();
  std::vector<Expr> results = {call(f, "exp", {x}),
                               call(f, "sqrt", {call(f, "fabs", {x})}),
                               call(f, "tanh", {x}),
                               call(f, "sigmoid", {x}),
                               call(f, "floor", {x}),
                               call(f, "pow", {call(f, "fabs", {x}), f32(1.5)}),
                               call(f, "fmod", {x, f32(0.75)}),
                               bin(BinaryOp::Max, x, f32(0.5)),
                               bin(BinaryOp::FloorMod, x, f32(0.75)),
                               call(f, "round", {x})};
  std::vector<Stmt> stores;
  for (size_t k = 0; k < results.size(); ++k)
    stores.push_back(store(out, results[k], bin(BinaryOp::Add, bin(BinaryOp::Mul, i, i32(10)), i32(int64_t(k)))));
  stores.push_back(store(ints, CastNode::make(DataType::int32(), x), i));
  stores.push_back(store(ints, call(DataType::int32(), "abs", {CastNode::make(DataType::int32(), x)}),
                         bin(BinaryOp::Add, i, i32(8))));
  PrimFunc func = fb.build(loop(i, i32(8), seq(stores)));

  std::vector<float> input = {-2.75f, -1.5f, -0.25f, 0.0f, 0.3f, 1.25f, 2.5f, 3.75f};
  std::vector<float> output(80);
  std::vector<int32_t> integers(16);
  JitModule jit(moduleOf({func}), {});
  REQUIRE(jit.function<int32_t (*)(const float *, float *, int32_t *)>("math")(input.data(), output.data(),
                                                                               integers.data()) == 0);
  for (int k = 0; k < 8; ++k) {
    float v = input[k];
    INFO("x = " << v);
    const float *r = &output[k * 10];
    CHECK(r[0] == Approx(std::exp(v)));
    CHECK(r[1] == Approx(std::sqrt(std::fabs(v))));
    CHECK(r[2] == Approx(std::tanh(v)));
    CHECK(r[3] == Approx(1.0f / (1.0f + std::exp(-v))));
    CHECK(r[4] == std::floor(v));
    CHECK(r[5] == Approx(std::pow(std::fabs(v), 1.5f)));
    CHECK(r[6] == std::fmod(v, 0.75f));
    CHECK(r[7] == (v > 0.5f ? v : 0.5f));
    CHECK(r[8] == Approx(v - std::floor(v / 0.75f) * 0.75f).margin(1e-6));
    // T.round rounds half to even, as TVM's LLVM build does (llvm.nearbyint): 2.5 -> 2, -1.5 -> -2.
    CHECK(r[9] == std::nearbyint(v));
    if (v == 2.5f)
      CHECK(r[9] == 2.0f);
    CHECK(integers[k] == static_cast<int32_t>(v));
    CHECK(integers[k + 8] == std::abs(static_cast<int32_t>(v)));
  }
}

namespace {

bool hostHasFma() {
  llvm::StringMap<bool> features;
  return llvm::sys::getHostCPUFeatures(features) && features.lookup("fma");
}

} // namespace

TEST_CASE("a * b + c contracts into one rounding only with --fp-contract=on on an FMA CPU", "[llvm][jit]") {
  // D[i] = A[i] * B[i] + C[i]. With a = b = 1 + 2^-12 and c = -(1 + 2^-11), the exact product
  // is 1 + 2^-11 + 2^-24, which rounds to 1 + 2^-11 in float: two roundings give 0, one gives
  // 2^-24.
  FuncBuilder fb("muladd");
  Buffer a = fb.bufferParam("A", 1), b = fb.bufferParam("B", 1), c = fb.bufferParam("C", 1),
         d = fb.bufferParam("D", 1);
  fb.f.params = {a->data, b->data, c->data, d->data};
  Expr zero = i32(0);
  PrimFunc func = fb.noalias().build(
      store(d, bin(BinaryOp::Add, bin(BinaryOp::Mul, load(a, zero), load(b, zero)), load(c, zero)), zero));
  const float x = 1.0f + std::ldexp(1.0f, -12), addend = -(1.0f + std::ldexp(1.0f, -11));
  const float twoRoundings = x * x + addend;
  const float oneRounding = std::fma(x, x, addend);
  REQUIRE(twoRoundings == 0.0f);
  REQUIRE(oneRounding == std::ldexp(1.0f, -24));

  std::vector<ArgValue> args = {ArgValue::ofBuffer(interpBuffer({x})), ArgValue::ofBuffer(interpBuffer({x})),
                                ArgValue::ofBuffer(interpBuffer({addend})),
                                ArgValue::ofBuffer(interpBuffer({-1.0f}))};
  REQUIRE(run(func, args).ok());
  REQUIRE(args[3].buffer->getFloat(0) == twoRoundings); // the interpreter rounds twice

  auto compute = [&](const std::string &cpu, bool contract, int level) {
    LLVMEmitOptions options;
    options.cpu = cpu;
    options.fpContract = contract;
    options.optLevel = level;
    JitModule jit(moduleOf({func}), options);
    auto fn = jit.function<int32_t (*)(const float *, const float *, const float *, float *)>("muladd");
    float out = -1.0f;
    REQUIRE(fn(&x, &x, &addend, &out) == 0);
    return out;
  };
  for (int level : {0, 3}) {
    INFO("-O" << level);
#if defined(__x86_64__)
    // The generic x86-64 CPU has no FMA: llvm.fmuladd is a multiply and an add.
    CHECK(compute("", true, level) == twoRoundings);
#endif
    CHECK(compute("native", false, level) == twoRoundings);
    if (hostHasFma())
      CHECK(compute("native", true, level) == oneRounding);
  }
}

TEST_CASE("int32 index arithmetic: 64-bit where it provably fits, wrapping where it may not", "[llvm][jit]") {
  // for i < 8: v = i * 1000000000 (wraps from i = 3 on); W[i] = v; L[i] = v < 0;
  // F[i] = A[floordiv(i - 5, 2) + 3]; M[i] = A[floormod(i - 5, 3)]; T[i] = A[(i * 3) / 4]
  FuncBuilder fb("indexwidth");
  DataType t = DataType::int32();
  Buffer a = fb.bufferParam("A", 8, t);
  Buffer w = fb.bufferParam("W", 8, t), l = fb.bufferParam("L", 8, t);
  Buffer f = fb.bufferParam("F", 8, t), m = fb.bufferParam("M", 8, t), tq = fb.bufferParam("T", 8, t);
  Var i = var("i"), v = var("v");
  Expr iMinus5 = bin(BinaryOp::Sub, i, i32(5));
  Stmt body = LetStmtNode::make(
      v, bin(BinaryOp::Mul, i, i32(1000000000)),
      seq({store(w, v, i), store(l, SelectNode::make(bin(BinaryOp::LT, v, i32(0)), i32(1), i32(0)), i),
           store(f, load(a, bin(BinaryOp::Add, floordiv(iMinus5, i32(2)), i32(3))), i),
           store(m, load(a, floormod(iMinus5, i32(3))), i),
           store(tq, load(a, bin(BinaryOp::Div, bin(BinaryOp::Mul, i, i32(3)), i32(4))), i)}));
  PrimFunc func = fb.build(loop(i, i32(8), body));

  std::vector<int32_t> input = {10, 11, 12, 13, 14, 15, 16, 17};
  auto interpBufferOf = [](const std::vector<int32_t> &values) {
    auto data = std::make_shared<BufferData>(DataType::int32(), values.size());
    for (size_t k = 0; k < values.size(); ++k)
      data->setInt(k, values[k]);
    return data;
  };
  std::vector<ArgValue> args = {ArgValue::ofBuffer(interpBufferOf(input))};
  for (int k = 0; k < 5; ++k)
    args.push_back(ArgValue::ofBuffer(interpBufferOf(std::vector<int32_t>(8, 0))));
  REQUIRE(run(func, args).ok());

  for (int level : {0, 3}) {
    LLVMEmitOptions options;
    options.optLevel = level;
    JitModule jit(moduleOf({func}), options);
    using Fn = int32_t (*)(const int32_t *, int32_t *, int32_t *, int32_t *, int32_t *, int32_t *);
    std::vector<int32_t> ws(8), ls(8), fs(8), ms(8), ts(8);
    REQUIRE(jit.function<Fn>("indexwidth")(input.data(), ws.data(), ls.data(), fs.data(), ms.data(), ts.data()) == 0);
    if (level == 0) {
      // The in-range indices are i64 arithmetic on an i64 loop variable; the product that may
      // wrap is i32 arithmetic on the variable's i32 value.
      const std::string &ir = jit.irText();
      INFO(ir);
      CHECK(ir.find("%i = phi i64") != std::string::npos);
      CHECK(ir.find("%i.i32 = trunc i64 %i to i32") != std::string::npos);
      CHECK(ir.find("mul i32 %i.i32, 1000000000") != std::string::npos);
      CHECK(ir.find("lshr i64") != std::string::npos);
    }
    for (int k = 0; k < 8; ++k) {
      INFO("i = " << k << " at O" << level);
      auto wrapped = static_cast<int32_t>(static_cast<uint32_t>(k) * 1000000000u);
      CHECK(ws[k] == wrapped);
      CHECK(ls[k] == (wrapped < 0 ? 1 : 0));
      CHECK(fs[k] == input[static_cast<size_t>(std::floor((k - 5) / 2.0) + 3)]);
      CHECK(ms[k] == input[static_cast<size_t>(((k - 5) % 3 + 3) % 3)]);
      CHECK(ts[k] == input[static_cast<size_t>(k * 3 / 4)]);
      for (size_t out = 0; out < 5; ++out)
        CHECK(args[out + 1].buffer->getInt(static_cast<size_t>(k)) ==
              std::vector<int32_t>{ws[k], ls[k], fs[k], ms[k], ts[k]}[out]);
    }
  }
}

TEST_CASE("int32 index arithmetic: nuw where no operand can be negative, shifts for powers of two, outer terms first",
          "[llvm][jit]") {
  // for i < 8: for j < 4: R[(7 - i) * 4 + j] = A[i * 4 + j]; S[(i - 2) * 4 + 8 + j] = A[i * 3 + j];
  //                       U[(j % 2) * 16 + i * 2 + j / 2] = A[i * 4 + j]
  FuncBuilder fb("indexflags");
  DataType t = DataType::int32();
  Buffer a = fb.bufferParam("A", 32, t), r = fb.bufferParam("R", 32, t), s = fb.bufferParam("S", 32, t);
  Buffer u = fb.bufferParam("U", 32, t);
  Var i = var("i"), j = var("j");
  Expr reversed = bin(BinaryOp::Add, bin(BinaryOp::Mul, bin(BinaryOp::Sub, i32(7), i), i32(4)), j);
  Expr shifted = bin(BinaryOp::Add,
                     bin(BinaryOp::Add, bin(BinaryOp::Mul, bin(BinaryOp::Sub, i, i32(2)), i32(4)), i32(8)), j);
  Expr oddHalf = bin(BinaryOp::Mul, floormod(j, i32(2)), i32(16));
  Expr interleaved =
      bin(BinaryOp::Add, bin(BinaryOp::Add, oddHalf, bin(BinaryOp::Mul, i, i32(2))), floordiv(j, i32(2)));
  Stmt body = seq({store(r, load(a, bin(BinaryOp::Add, bin(BinaryOp::Mul, i, i32(4)), j)), reversed),
                   store(s, load(a, bin(BinaryOp::Add, bin(BinaryOp::Mul, i, i32(3)), j)), shifted),
                   store(u, load(a, bin(BinaryOp::Add, bin(BinaryOp::Mul, i, i32(4)), j)), interleaved)});
  PrimFunc func = fb.build(loop(i, i32(8), loop(j, i32(4), body)));

  std::vector<int32_t> input(32);
  for (int k = 0; k < 32; ++k)
    input[static_cast<size_t>(k)] = 100 + k;
  for (int level : {0, 3}) {
    LLVMEmitOptions options;
    options.optLevel = level;
    JitModule jit(moduleOf({func}), options);
    if (level == 0) {
      const std::string &ir = jit.irText();
      INFO(ir);
      // Non-negative operands: nuw as well as nsw; a product by 4 is a shift.
      CHECK(ir.find("shl nuw nsw i64 %i, 2") != std::string::npos);
      CHECK(ir.find("mul nuw nsw i64 %i, 3") != std::string::npos);
      CHECK(ir.find("%j.next = add nuw nsw i64 %j, 1") != std::string::npos);
      // 7 - i never goes below zero; i - 2 may, so it and its product keep nsw alone.
      CHECK(ir.find("sub nuw nsw i64 7, %i") != std::string::npos);
      CHECK(ir.find("sub nsw i64 %i, 2") != std::string::npos);
      CHECK(ir.find("shl nsw i64 %") != std::string::npos);
      // The sum for U starts with the term that varies only in the outer loop (i * 2).
      size_t shift = ir.find(" = shl nuw nsw i64 %i, 1\n");
      REQUIRE(shift != std::string::npos);
      std::string name = ir.substr(ir.rfind('%', shift), shift - ir.rfind('%', shift));
      CHECK(ir.find("add nuw nsw i64 " + name + ", %") != std::string::npos);
    }
    std::vector<int32_t> rs(32, -1), ss(32, -1), us(32, -1);
    using Fn = int32_t (*)(const int32_t *, int32_t *, int32_t *, int32_t *);
    REQUIRE(jit.function<Fn>("indexflags")(input.data(), rs.data(), ss.data(), us.data()) == 0);
    std::vector<int32_t> expectR(32, -1), expectS(32, -1), expectU(32, -1);
    for (int x = 0; x < 8; ++x)
      for (int y = 0; y < 4; ++y) {
        expectR[static_cast<size_t>((7 - x) * 4 + y)] = input[static_cast<size_t>(x * 4 + y)];
        expectS[static_cast<size_t>((x - 2) * 4 + 8 + y)] = input[static_cast<size_t>(x * 3 + y)];
        expectU[static_cast<size_t>((y % 2) * 16 + x * 2 + y / 2)] = input[static_cast<size_t>(x * 4 + y)];
      }
    INFO("-O" << level);
    CHECK(rs == expectR);
    CHECK(ss == expectS);
    CHECK(us == expectU);
  }
}
