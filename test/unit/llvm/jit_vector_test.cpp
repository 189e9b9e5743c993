// JIT-compiled vector accesses: float32x4 Ramp loads/stores (aligned and not), gathers and
// scatters of strided Ramps, M-lane element buffers, vector compares/selects/broadcasts; results
// against C++ and the reference interpreter.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "codegen/llvm/llvm_emitter.h"
#include "interp/interpreter.h"
#include "llvm_test_ir.h"

using namespace tirlower;
using namespace tirlower::llvmtest;

namespace {

// C[ramp(4i, 1, 4)] = A[ramp(4i, 1, 4)] * B[ramp(4i, 1, 4)] + broadcast(0.5) for i < n.
PrimFunc vectorFma() {
  FuncBuilder fb("vfma");
  Var n = fb.scalarParam("n");
  Expr extent = bin(BinaryOp::Mul, n, i32(4));
  Buffer a = fb.bufferParam("A", extent), b = fb.bufferParam("B", extent), c = fb.bufferParam("C", extent);
  Var i = var("i");
  Expr index = ramp(bin(BinaryOp::Mul, i, i32(4)), 1, 4);
  Expr value = bin(BinaryOp::Add, bin(BinaryOp::Mul, load(a, index), load(b, index)), BroadcastNode::make(f32(0.5), 4));
  return fb.noalias().build(loop(i, n, store(c, value, index)));
}

} // namespace

TEST_CASE("float32x4 ramp loads and stores, aligned and unaligned", "[llvm][jit][vector]") {
  PrimFunc func = vectorFma();
  const int groups = 9, count = groups * 4;
  alignas(64) float a[count + 1], b[count + 1], c[count + 1];
  for (int k = 0; k <= count; ++k) {
    a[k] = static_cast<float>(k) * 0.75f - 4.0f;
    b[k] = 2.0f - static_cast<float>(k % 5);
  }
  std::vector<ArgValue> args = {ArgValue::ofInt(groups)};
  for (const float *source : {a, b, c}) {
    auto data = std::make_shared<BufferData>(DataType::float32(), static_cast<size_t>(count));
    for (int k = 0; k < count; ++k)
      data->setFloat(static_cast<size_t>(k), source == c ? 0.0f : source[k]);
    args.push_back(ArgValue::ofBuffer(data));
  }
  REQUIRE(run(func, args).ok());

  for (int alignment : {0, 16}) {
    for (int level : {0, 3}) {
      LLVMEmitOptions options;
      options.optLevel = level;
      options.paramAlignment = alignment;
      JitModule jit(moduleOf({func}), options);
      if (level == 0)
        CHECK(jit.irText().find(alignment ? "<4 x float>, ptr %" : "load <4 x float>") != std::string::npos);
      if (level == 0)
        CHECK((jit.irText().find(", align 16") != std::string::npos) == (alignment == 16));
      auto fn = jit.function<int32_t (*)(int32_t, const float *, const float *, float *)>("vfma");
      // Aligned pointers always; element-aligned (offset by one float) only without the promise.
      int shift = alignment ? 0 : 1;
      for (int k = 0; k <= count; ++k)
        c[k] = -100.0f;
      REQUIRE(fn(groups, a + shift, b + shift, c + shift) == 0);
      INFO("alignment " << alignment << ", O" << level);
      for (int k = 0; k < count; ++k) {
        CHECK(c[k + shift] == a[k + shift] * b[k + shift] + 0.5f);
        if (!shift)
          CHECK(c[k] == static_cast<float>(args[3].buffer->getFloat(static_cast<size_t>(k))));
      }
      CHECK(c[shift ? 0 : count] == -100.0f); // nothing written outside
    }
  }
}

TEST_CASE("strided ramps gather and scatter lane by lane", "[llvm][jit][vector]") {
  // Out[ramp(8i + 1, 2, 4)] = In[ramp(3i, 3, 4)] for i < 4: a gather and a scatter.
  FuncBuilder fb("strided");
  Buffer in = fb.bufferParam("In", 48), out = fb.bufferParam("Out", 32);
  Var i = var("i");
  Expr source = ramp(bin(BinaryOp::Mul, i, i32(3)), 3, 4);
  Expr target = ramp(bin(BinaryOp::Add, bin(BinaryOp::Mul, i, i32(8)), i32(1)), 2, 4);
  PrimFunc func = fb.build(loop(i, i32(4), store(out, load(in, source), target)));
  std::vector<float> input(48), output(32, -1.0f);
  for (int k = 0; k < 48; ++k)
    input[k] = static_cast<float>(k * 7 % 11) - 5.0f;
  std::vector<float> expected(32, -1.0f);
  for (int g = 0; g < 4; ++g)
    for (int lane = 0; lane < 4; ++lane)
      expected[8 * g + 1 + 2 * lane] = input[3 * g + 3 * lane];
  for (int level : {0, 2}) {
    LLVMEmitOptions options;
    options.optLevel = level;
    JitModule jit(moduleOf({func}), options);
    std::fill(output.begin(), output.end(), -1.0f);
    REQUIRE(jit.function<int32_t (*)(const float *, float *)>("strided")(input.data(), output.data()) == 0);
    CHECK(output == expected);
  }
}

TEST_CASE("M-lane element buffers load and store whole elements", "[llvm][jit][vector]") {
  // A float32x4 buffer X of 6 elements; Y[ramp(i, 1, 2)] (two float32x4 elements, 8 lanes) and a
  // vector compare/select: Y = select(X > 0, X, 0) for element pairs.
  FuncBuilder fb("mlane");
  DataType f4 = DataType::float32(4);
  Buffer x = fb.bufferParam("X", 6, f4), y = fb.bufferParam("Y", 6, f4);
  Buffer z = fb.bufferParam("Z", 6, f4);
  Var i = var("i"), j = var("j");
  Expr pair = ramp(bin(BinaryOp::Mul, i, i32(2)), 1, 2);
  Expr lanes = load(x, pair);
  Expr zero = BroadcastNode::make(f32(0.0), 8);
  Stmt relu = loop(i, i32(3), store(y, SelectNode::make(bin(BinaryOp::GT, lanes, zero), lanes, zero), pair));
  Stmt copy = loop(j, i32(6), store(z, bin(BinaryOp::Mul, load(x, j), BroadcastNode::make(f32(3.0), 4)), j));
  PrimFunc func = fb.build(seq({relu, copy}));
  std::vector<float> input(24), relu8(24), tripled(24);
  for (int k = 0; k < 24; ++k)
    input[k] = static_cast<float>((k * 5) % 9) - 4.0f;
  JitModule jit(moduleOf({func}), {});
  CHECK(jit.irText().find("<8 x float>") != std::string::npos);
  REQUIRE(jit.function<int32_t (*)(const float *, float *, float *)>("mlane")(input.data(), relu8.data(),
                                                                              tripled.data()) == 0);
  for (int k = 0; k < 24; ++k) {
    CHECK(relu8[k] == (input[k] > 0.0f ? input[k] : 0.0f));
    CHECK(tripled[k] == input[k] * 3.0f);
  }
}
