// The C emitter's parts: functions written apart (each with its own CSupport, as on several
// threads) and joined give emitC's bytes; the bounds the C-family emitters use follow the
// variables' bounds as they change.
#include <catch2/catch.hpp>

#include <string>
#include <unordered_set>
#include <vector>

#include "codegen/c_emitter.h"
#include "codegen/c_family.h"
#include "codegen/c_support.h"
#include "ir/diagnostic.h"
#include "ir_builders.h"
#include "parse/diagnostic_engine.h"
#include "parse/parser.h"

using namespace tirlower;
using namespace tirlower::testing;

namespace {

// Three functions whose C needs helpers (floor division, max), vector typedefs and helpers, and
// external prototypes, some of them shared.
const char *kModule = R"(from tvm.script import tir as T


@T.prim_func
def floors(A: T.Buffer((64,), "int32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        A[i] = T.floordiv(A[i], 3) - T.floormod(A[i], 5)
        B[i] = T.max(B[i], T.float32(0))


@T.prim_func
def vectors(X: T.Buffer((64,), "float32"), n: T.int32):
    for i in range(8):
        X[T.Ramp(i * 8, 1, 8)] = X[T.Ramp(i * 8, 1, 8)] + T.Broadcast(T.float32(1), 8)
    X[0] = T.call_extern("float32", "hook", X[1], n)


@T.prim_func
def externs(Y: T.Buffer((16,), "float32"), m: T.int32):
    for j in range(16):
        Y[j] = T.max(T.call_extern("float32", "hook", Y[j], m), T.call_extern("float32", "other", Y[j]))
)";

Module parsed(const char *text) {
  SourceManager sources;
  DiagnosticCollector diagnostics;
  uint32_t id = sources.addFile("in.tir", text);
  std::optional<Module> module = parseModule(sources, id, diagnostics);
  REQUIRE(module);
  return *module;
}

} // namespace

TEST_CASE("functions written with a CSupport each and joined give emitC's bytes", "[c]") {
  Module module = parsed(kModule);
  REQUIRE(module.functions.size() == 3);
  DiagnosticCollector diagnostics;
  const std::string whole = emitC(module, CEmitOptions{}, diagnostics);

  // Each function apart, written in reverse order; the texts joined in module order and the
  // CSupports merged in another order still.
  std::unordered_set<std::string> symbols;
  std::vector<std::string> names;
  for (const PrimFunc &func : module.functions)
    names.push_back(cFunctionSymbol(*func, symbols, diagnostics));
  std::vector<std::string> texts(module.functions.size());
  std::vector<CSupport> supports(module.functions.size());
  for (size_t k = module.functions.size(); k-- > 0;)
    emitCFunction(*module.functions[k], names[k], CEmitOptions{}, supports[k], texts[k]);
  CSupport merged;
  for (size_t k : {1, 0, 2})
    merged.merge(supports[k]);
  std::string joined = cFileHead(merged);
  for (const std::string &text : texts)
    joined += text;
  CHECK(joined == whole);

  // What the functions need is defined once, in name order, whichever function needed it.
  CHECK(whole.find("tl_floordiv_int32(") != std::string::npos);
  CHECK(whole.find("typedef float tl_float32x8") != std::string::npos);
  size_t hook = whole.find("extern float hook(float, int32_t);\n"), other = whole.find("extern float other(float);\n");
  CHECK(hook != std::string::npos);
  CHECK(other != std::string::npos);
  CHECK(hook < other);
  CHECK(whole.find("extern float hook", hook + 1) == std::string::npos);
  size_t max = whole.find("static inline float tl_max_float32(");
  CHECK(max != std::string::npos);
  CHECK(whole.find("static inline float tl_max_float32(", max + 1) == std::string::npos);
}

TEST_CASE("a function's text is appended to what the buffer holds", "[c]") {
  Module module = parsed(kModule);
  DiagnosticCollector diagnostics;
  CSupport support;
  std::string alone, after = "// before\n";
  emitCFunction(*module.functions[0], "floors", CEmitOptions{}, support, alone);
  emitCFunction(*module.functions[0], "floors", CEmitOptions{}, support, after);
  CHECK(after == "// before\n" + alone);
  CHECK(alone.rfind("\n// floors(A, B): ", 0) == 0);
}

TEST_CASE("integer ranges follow the bounds of the variables as they change", "[c]") {
  Var i = var("i"), j = var("j");
  Expr index = bin(BinaryOp::Add, bin(BinaryOp::Mul, i, i32(64)), j);
  const auto *op = index.as<BinaryNode>();
  IntRanges ranges;
  CHECK(!ranges.of(index));
  CHECK(ranges.mayOverflow(op));
  ranges.setLoop(i.get(), i32(0), i32(16));
  ranges.setLoop(j.get(), i32(0), i32(64));
  CHECK(ranges.of(index) == IntRanges::Range{0, 1023});
  CHECK(!ranges.mayOverflow(op));
  ranges.setLoop(i.get(), i32(-4), i32(8));
  CHECK(ranges.of(index) == IntRanges::Range{-256, 255});
  ranges.set(j.get(), {0, INT64_MAX / 2});
  CHECK(!ranges.of(index)); // leaves int32
  CHECK(ranges.mayOverflow(op));
  ranges.set(j.get(), {5, 5});
  CHECK(ranges.of(index) == IntRanges::Range{-251, 197});
  ranges.erase(i.get());
  CHECK(!ranges.of(index));

  // A node the ranges remembered, freed by its owner, cannot be confused with a new node.
  ranges.setLoop(i.get(), i32(0), i32(4));
  for (int64_t k = 1; k <= 50; ++k) {
    Expr e = bin(BinaryOp::Mul, i, i32(k));
    CHECK(ranges.of(e) == IntRanges::Range{0, 3 * k});
  }
  // Floor division and modulo of a non-negative or a signed range; min and max.
  CHECK(ranges.of(bin(BinaryOp::FloorDiv, bin(BinaryOp::Sub, i, i32(5)), i32(2))) == IntRanges::Range{-3, -1});
  CHECK(ranges.of(bin(BinaryOp::FloorMod, i, i32(3))) == IntRanges::Range{0, 2});
  CHECK(ranges.of(bin(BinaryOp::FloorMod, bin(BinaryOp::Sub, i, i32(1)), i32(3))) == IntRanges::Range{0, 2});
  CHECK(ranges.of(bin(BinaryOp::Max, i, i32(2))) == IntRanges::Range{2, 3});
}

TEST_CASE("the spaced infix operators are the infix operators between spaces", "[c]") {
  for (int k = 0; k <= static_cast<int>(BinaryOp::Or); ++k) {
    for (bool vector : {false, true}) {
      auto op = static_cast<BinaryOp>(k);
      const char *bare = cInfixOperator(op, vector);
      CAPTURE(binaryOpName(op), vector);
      if (!bare)
        CHECK(cSpacedInfixOperator(op, vector).empty());
      else
        CHECK(cSpacedInfixOperator(op, vector) == " " + std::string(bare) + " ");
    }
  }
}
