// --verify-semantics' checker: a deliberately broken flatten (wrong row stride) and a layout
// pass that leaves padding unfilled, both built only here, are caught and named; a correct
// flatten and the real apply-layout-transforms pass (with padding) pass.
#include <catch2/catch.hpp>

#include "builders.h"
#include "interp/semantic_check.h"
#include "transform/pass_manager.h"

using namespace tirlower;
using namespace tirlower::test;

namespace {

constexpr int64_t Rows = 4, Cols = 8;

// B[i, j] = A[i, j] * 2 over 4x8 float32 buffers.
PrimFunc scale2d() {
  Buffer a = buffer("A", dims({Rows, Cols})), b = buffer("B", dims({Rows, Cols}));
  Var i = var("i"), j = var("j");
  return func("scale", {a, b}, loop(i, Rows, loop(j, Cols, store(b, load(a, {i, j}) * fc(2.0), {i, j}))));
}

// The same function written through 1-d aliases of A and B with row stride `stride`: a flatten
// (stride 8 is right; any other is a broken pass).
class FlattenWithStride : public Pass {
public:
  explicit FlattenWithStride(int64_t stride) : stride_(stride) {}
  std::optional<Module> run(const Module &module, PassContext &) override {
    Module out = module;
    for (PrimFunc &f : out.functions) {
      Buffer a = f->bufferMap[0].buffer, b = f->bufferMap[1].buffer;
      Buffer aFlat = buffer("A_flat", dims({Rows * Cols}), f32(), a->data);
      Buffer bFlat = buffer("B_flat", dims({Rows * Cols}), f32(), b->data);
      Var i = var("i"), j = var("j");
      Expr offset = i * c(stride_) + j;
      Stmt body = loop(i, Rows, loop(j, Cols, store(bFlat, load(aFlat, {offset}) * fc(2.0), {offset})));
      PrimFuncNode::Fields fields = f->fields();
      fields.body = DeclBufferNode::make(aFlat, false, DeclBufferNode::make(bFlat, false, body));
      f = PrimFuncNode::make(std::move(fields));
    }
    return out;
  }

private:
  int64_t stride_;
};

PassInfo flattenInfo(const std::string &name, int64_t stride) {
  PassInfo info;
  info.name = name;
  info.summary = "flatten with row stride " + std::to_string(stride);
  info.create = [stride](const PassOptions &) { return std::make_unique<FlattenWithStride>(stride); };
  return info;
}

// Keeps the first difference the checker reports after a pass.
class CheckEachPass : public PassInstrumentation {
public:
  explicit CheckEachPass(const SemanticChecker &checker) : checker_(checker) {}
  void afterPass(const PassInstance &instance, const Module &, const Module &after, bool identical) override {
    if (!failure && !identical)
      failure = checker_.check(after, instance.info->name);
  }
  std::optional<Diagnostic> failure;

private:
  const SemanticChecker &checker_;
};

class Collector : public DiagnosticSink {
public:
  void report(Diagnostic d) override { diagnostics.push_back(std::move(d)); }
  std::vector<Diagnostic> diagnostics;
};

// Runs `passes` on `module` under the checker; returns the first difference.
std::optional<Diagnostic> verify(const Module &module, const std::vector<const PassInfo *> &passes) {
  SemanticChecker checker(module, {});
  REQUIRE(checker.skipped().empty());
  REQUIRE(checker.checkedFunctions() == module.functions.size());
  PassManager manager;
  for (const PassInfo *info : passes)
    manager.add(*info, {});
  Collector diagnostics;
  PassContext context{diagnostics};
  CheckEachPass instrumentation(checker);
  std::optional<Module> lowered = manager.run(module, context, &instrumentation);
  REQUIRE(lowered);
  return instrumentation.failure;
}

} // namespace

TEST_CASE("a flatten with the right stride keeps the semantics", "[semantic-check]") {
  Module module;
  module.functions.push_back(scale2d());
  PassInfo good = flattenInfo("good-flatten", Cols);
  CHECK_FALSE(verify(module, {&good}));
}

TEST_CASE("a flatten with a wrong stride is caught and named", "[semantic-check]") {
  Module module;
  module.functions.push_back(scale2d());
  PassInfo good = flattenInfo("good-flatten", Cols), broken = flattenInfo("broken-flatten", Cols - 1);
  std::optional<Diagnostic> failure = verify(module, {&good, &broken});
  REQUIRE(failure);
  CHECK(failure->severity == Severity::Error);
  // Reads and writes both use offset 7i + j, so flat elements 0..28 get the right values and
  // 29..31 (B[3, 5] onwards) keep their random input values.
  CHECK(failure->message.find("pass 'broken-flatten' changed the behaviour of function 'scale'") != std::string::npos);
  INFO(failure->message);
  CHECK(failure->message.find("buffer 'B' differs at logical index [3, 5]") != std::string::npos);
  CHECK(failure->message.find("expected ") != std::string::npos);
  CHECK(failure->message.find(", actual ") != std::string::npos);
}

namespace {

Expr blockOf(const Expr &index) {
  return bin(BinaryOp::FloorDiv, index, c(4));
}
Expr laneOf(const Expr &index) {
  return bin(BinaryOp::FloorMod, index, c(4));
}

// B[c] = A[c] + 1 over 10 elements, B transformed to [c // 4, c % 4] (padded to 3x4) with
// pad_value -1.
Module paddedBias() {
  Buffer a = buffer("A", dims({10})), b = buffer("B", dims({10}));
  Var i = var("i"), ci = var("c");
  PrimFuncNode::Fields fields = scale2d()->fields();
  fields.name = Symbol("bias");
  fields.params = {a->data, b->data};
  fields.bufferMap = {{a->data, a}, {b->data, b}};
  fields.body = loop(i, 10, store(b, load(a, {i}) + fc(1.0), {i}));
  fields.layoutTransforms.push_back({b, IndexMapNode::make({ci}, {blockOf(ci), laneOf(ci)}), fc(-1.0), {}});
  Module module;
  module.functions.push_back(PrimFuncNode::make(std::move(fields)));
  return module;
}

// Applies paddedBias's transform but forgets to fill B's padding with pad_value.
class ApplyWithoutPadding : public Pass {
public:
  std::optional<Module> run(const Module &module, PassContext &) override {
    Module out = module;
    for (PrimFunc &f : out.functions) {
      Buffer a = f->bufferMap[0].buffer;
      Buffer b = buffer("B", dims({3, 4}), f32(), f->bufferMap[1].buffer->data);
      Var i = var("i");
      PrimFuncNode::Fields fields = f->fields();
      fields.bufferMap[1].buffer = b;
      fields.layoutTransforms.clear();
      fields.body = loop(i, 10, store(b, load(a, {i}) + fc(1.0), {blockOf(i), laneOf(i)}));
      f = PrimFuncNode::make(std::move(fields));
    }
    return out;
  }
};

} // namespace

TEST_CASE("padding a pass leaves unfilled is caught", "[semantic-check]") {
  PassInfo info;
  info.name = "apply-without-padding";
  info.create = [](const PassOptions &) { return std::make_unique<ApplyWithoutPadding>(); };
  std::optional<Diagnostic> failure = verify(paddedBias(), {&info});
  REQUIRE(failure);
  INFO(failure->message);
  CHECK(failure->message.find("pass 'apply-without-padding' changed the behaviour of function 'bias': padding of "
                              "buffer 'B' at physical index [2, 2] is <uninitialised>, expected pad_value -1") !=
        std::string::npos);
}

TEST_CASE("apply-layout-transforms with padding keeps the semantics", "[semantic-check]") {
  Module module = paddedBias();
  const PassInfo *apply = PassRegistry::builtin().find("apply-layout-transforms");
  const PassInfo *flatten = PassRegistry::builtin().find("flatten");
  REQUIRE(apply);
  REQUIRE(flatten);
  CHECK_FALSE(verify(module, {apply, flatten}));
}
