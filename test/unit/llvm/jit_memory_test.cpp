// JIT-compiled control flow and storage: asserts (return 1), heap allocations (freed, and
// return 2 when malloc fails), stack allocations, bool buffers, lets, while loops, lazy
// if_then_else and short-circuit conditions, call_extern.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "codegen/llvm/llvm_emitter.h"
#include "llvm_test_ir.h"

using namespace tirlower;
using namespace tirlower::llvmtest;

namespace {

Var handleVar(const char *name, DataType pointee = DataType::float32()) {
  return VarNode::makeHandle(Symbol(name), pointee, Symbol("global"));
}

// Out[i] = 2 * A[n - 1 - i] through a scratch buffer T of `constantExtent` elements (n when 0);
// asserts n > 0 inside the scratch's scope, so the failing path must free it.
PrimFunc reverseThroughScratch(const char *name, int64_t constantExtent, bool viaAllocate) {
  FuncBuilder fb(name);
  Var n = fb.scalarParam("n");
  Expr extent = constantExtent ? i32(constantExtent) : Expr(n);
  Buffer a = fb.bufferParam("A", n), out = fb.bufferParam("Out", n);
  Var data = handleVar("T");
  Buffer t = flatBuffer("T", data, extent);
  Var i = var("i"), j = var("j");
  Stmt body = seq({AssertStmtNode::make(bin(BinaryOp::GT, n, i32(0)), "n must be positive"),
                   loop(i, n, store(t, bin(BinaryOp::Mul, load(a, i), f32(2.0)), i)),
                   loop(j, n, store(out, load(t, bin(BinaryOp::Sub, bin(BinaryOp::Sub, n, i32(1)), j)), j))});
  Stmt scoped = viaAllocate ? AllocateNode::make(data, DataType::float32(), {extent}, Symbol("global"),
                                                 DeclBufferNode::make(t, false, body))
                            : DeclBufferNode::make(t, true, body);
  return fb.build(scoped);
}

using ReverseFn = int32_t (*)(int32_t, const float *, float *);

void checkReverse(ReverseFn fn, int count) {
  std::vector<float> a(static_cast<size_t>(count)), out(static_cast<size_t>(count), 0.0f);
  for (int k = 0; k < count; ++k)
    a[k] = static_cast<float>(k * k) - 7.5f;
  REQUIRE(fn(count, a.data(), out.data()) == 0);
  for (int k = 0; k < count; ++k)
    CHECK(out[k] == 2.0f * a[count - 1 - k]);
}

} // namespace

// Under AddressSanitizer malloc of 2^62 bytes aborts ("allocation-size-too-big") instead of
// returning NULL, which "a failed heap allocation returns 2" needs: let it return NULL, as the C
// library does. ASAN_OPTIONS given at run time still apply on top of this.
#if defined(__SANITIZE_ADDRESS__)
#define TL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TL_ASAN 1
#endif
#endif
#ifdef TL_ASAN
extern "C" const char *__asan_default_options() { return "allocator_may_return_null=1"; }
#endif

TEST_CASE("an assert returns 1 when it fails and 0 otherwise", "[llvm][jit]") {
  FuncBuilder fb("checked");
  Var n = fb.scalarParam("n");
  Buffer a = fb.bufferParam("A", 1);
  PrimFunc func = fb.build(seq({AssertStmtNode::make(bin(BinaryOp::LT, n, i32(10)), "n < 10"),
                                store(a, CastNode::make(DataType::float32(), n), i32(0))}));
  JitModule jit(moduleOf({func}), {});
  auto fn = jit.function<int32_t (*)(int32_t, float *)>("checked");
  float value = -1.0f;
  CHECK(fn(12, &value) == 1);
  CHECK(value == -1.0f);
  CHECK(fn(3, &value) == 0);
  CHECK(value == 3.0f);
}

TEST_CASE("heap storage: variable and large extents use malloc/free", "[llvm][jit]") {
  for (bool viaAllocate : {false, true}) {
    PrimFunc variable = reverseThroughScratch("rev_var", 0, viaAllocate);
    PrimFunc large = reverseThroughScratch("rev_large", 100000, viaAllocate);
    PrimFunc small = reverseThroughScratch("rev_small", 64, viaAllocate);
    for (int level : {0, 3}) {
      LLVMEmitOptions options;
      options.optLevel = level;
      JitModule jit(moduleOf({variable, large, small}), options);
      if (level == 0) {
        CHECK(jit.irText().find("call ptr @malloc") != std::string::npos);
        CHECK(jit.irText().find("call void @free") != std::string::npos);
      }
      for (const char *symbol : {"rev_var", "rev_large", "rev_small"}) {
        INFO(symbol << " at O" << level << (viaAllocate ? " via T.allocate" : " via decl_buffer"));
        auto fn = jit.function<ReverseFn>(symbol);
        checkReverse(fn, 1);
        checkReverse(fn, 61);
        CHECK(fn(0, nullptr, nullptr) == 1); // the assert inside the scope frees and returns 1
      }
    }
  }
}

TEST_CASE("a failed heap allocation returns 2", "[llvm][jit]") {
  FuncBuilder fb("huge");
  Var n = fb.scalarParam("n", DataType::int64());
  Buffer out = fb.bufferParam("Out", 1);
  Var data = handleVar("T");
  Buffer t = flatBuffer("T", data, n);
  Stmt body = DeclBufferNode::make(t, true,
                                   seq({store(t, f32(4.0), IntImmNode::make(DataType::int64(), 0)),
                                        store(out, load(t, IntImmNode::make(DataType::int64(), 0)), i32(0))}));
  JitModule jit(moduleOf({fb.build(body)}), {});
  auto fn = jit.function<int32_t (*)(int64_t, float *)>("huge");
  float value = 0.0f;
  CHECK(fn(int64_t(1) << 60, &value) == 2);
  CHECK(fn(16, &value) == 0);
  CHECK(value == 4.0f);
}

TEST_CASE("bool buffers, lets, while loops and call_extern", "[llvm][jit]") {
  FuncBuilder fb("misc");
  Buffer a = fb.bufferParam("A", 8, DataType::int32());
  Buffer flags = fb.bufferParam("F", 8, DataType::boolean());
  Buffer out = fb.bufferParam("Out", 8, DataType::int32());
  Buffer m = fb.bufferParam("M", 8);
  Var i = var("i"), twice = var("twice");
  Var kData = handleVar("K", DataType::int32());
  Buffer counter = flatBuffer("K", kData, i32(1), DataType::int32());
  Expr x = load(a, i);
  Stmt perElement = LetStmtNode::make(
      twice, bin(BinaryOp::Mul, x, i32(2)),
      seq({store(flags, bin(BinaryOp::GT, twice, i32(5)), i),
           store(out, SelectNode::make(load(flags, i), twice, bin(BinaryOp::Sub, i32(0), x)), i),
           store(m,
                 call(DataType::float32(), "call_extern",
                      {StringImmNode::make("fmaxf"), CastNode::make(DataType::float32(), x), f32(1.5)}),
                 i)}));
  // K[0] = 1; while K[0] < 100: K[0] = K[0] * 3; Out[0] += K[0]
  Stmt whileLoop = DeclBufferNode::make(
      counter, true,
      seq({store(counter, i32(1), i32(0)),
           WhileNode::make(bin(BinaryOp::LT, load(counter, i32(0)), i32(100)),
                           seq({store(counter, bin(BinaryOp::Mul, load(counter, i32(0)), i32(3)), i32(0)),
                                store(out, bin(BinaryOp::Add, load(out, i32(0)), load(counter, i32(0))), i32(0))}))}));
  PrimFunc func = fb.build(seq({loop(i, i32(8), perElement), whileLoop}));
  JitModule jit(moduleOf({func}), {});
  std::vector<int32_t> input = {-3, 0, 1, 2, 3, 4, 7, -8}, output(8);
  bool flagOut[8] = {};
  std::vector<float> maxes(8);
  auto fn = jit.function<int32_t (*)(const int32_t *, bool *, int32_t *, float *)>("misc");
  REQUIRE(fn(input.data(), flagOut, output.data(), maxes.data()) == 0);
  for (int e = 0; e < 8; ++e) {
    INFO("element " << e);
    CHECK(flagOut[e] == (2 * input[e] > 5));
    int32_t expected = 2 * input[e] > 5 ? 2 * input[e] : -input[e];
    if (e == 0)
      expected += 3 + 9 + 27 + 81 + 243;
    CHECK(output[e] == expected);
    CHECK(maxes[e] == std::max(static_cast<float>(input[e]), 1.5f));
  }
}

TEST_CASE("if_then_else is lazy and `and` short-circuits", "[llvm][jit]") {
  FuncBuilder fb("guarded");
  Var n = fb.scalarParam("n");
  Buffer a = fb.bufferParam("A", n), out = fb.bufferParam("Out", 16), hit = fb.bufferParam("H", 16, DataType::int32());
  Var i = var("i");
  Expr inside = bin(BinaryOp::LT, i, n);
  Stmt body = seq({store(out, call(DataType::float32(), "if_then_else", {inside, load(a, i), f32(-1.0)}), i),
                   IfThenElseNode::make(bin(BinaryOp::And, inside, bin(BinaryOp::GT, load(a, i), f32(0.0))),
                                        store(hit, i32(1), i), store(hit, i32(0), i))});
  PrimFunc func = fb.build(loop(i, i32(16), body));
  JitModule jit(moduleOf({func}), {});
  // A holds exactly n elements on the heap: reading past it would be caught by ASan builds.
  std::vector<float> a0 = {0.5f, -2.0f, 3.0f};
  std::vector<float> results(16);
  std::vector<int32_t> hits(16, 7);
  auto fn = jit.function<int32_t (*)(int32_t, const float *, float *, int32_t *)>("guarded");
  REQUIRE(fn(3, a0.data(), results.data(), hits.data()) == 0);
  for (int k = 0; k < 16; ++k) {
    CHECK(results[k] == (k < 3 ? a0[k] : -1.0f));
    CHECK(hits[k] == (k < 3 && a0[k] > 0.0f ? 1 : 0));
  }
}

TEST_CASE("loops are emitted rotated: a guard unless the loop provably runs, exit on next != end", "[llvm][jit]") {
  // C[0] counts `for i in range(m, m + n)`, C[1] sums `for j in range(n)`, C[2] counts
  // `for k in range(m, m + 3)`, C[3] sums `for l in range(4)`.
  FuncBuilder fb("loopcount");
  DataType t = DataType::int32();
  Buffer c = fb.bufferParam("C", 4, t);
  Var m = fb.scalarParam("m"), n = fb.scalarParam("n");
  Var i = var("i"), j = var("j"), k = var("k"), l = var("l");
  auto bump = [&](int slot, Expr by) {
    return store(c, bin(BinaryOp::Add, load(c, i32(slot)), std::move(by)), i32(slot));
  };
  PrimFunc func =
      fb.build(seq({ForNode::make(i, m, n, ForKind::Serial, bump(0, i32(1))), loop(j, n, bump(1, j)),
                    ForNode::make(k, m, i32(3), ForKind::Serial, bump(2, i32(1))), loop(l, i32(4), bump(3, l))}));
  for (int level : {0, 3}) {
    LLVMEmitOptions options;
    options.optLevel = level;
    JitModule jit(moduleOf({func}), options);
    if (level == 0) {
      // Three guards (symbolic extent or begin); the constant loop enters its body directly.
      const std::string &ir = jit.irText();
      INFO(ir);
      size_t guards = 0;
      for (size_t at = ir.find("icmp slt"); at != std::string::npos; at = ir.find("icmp slt", at + 1))
        ++guards;
      CHECK(guards == 3);
      CHECK(ir.find("icmp ne i64 %l.next, 4") != std::string::npos);
      CHECK(ir.find("icmp ne i64 %j.next, %") != std::string::npos);
    }
    auto fn = jit.function<int32_t (*)(int32_t *, int32_t, int32_t)>("loopcount");
    for (auto [from, count] : std::vector<std::pair<int32_t, int32_t>>{{0, 0}, {3, -2}, {-5, 7}, {4, 1}, {-1, 0}}) {
      INFO("m = " << from << ", n = " << count << " at O" << level);
      std::vector<int32_t> out(4, 100);
      REQUIRE(fn(out.data(), from, count) == 0);
      int32_t runs = std::max(count, 0);
      CHECK(out[0] == 100 + runs);
      CHECK(out[1] == 100 + runs * (runs - 1) / 2);
      CHECK(out[2] == 103);
      CHECK(out[3] == 106);
    }
  }
}
