// --verify-semantics' checker: a deliberately broken flatten (wrong row stride) and a layout
// pass that leaves padding unfilled, both built only here, are caught and named; a correct
// flatten and the real apply-layout-transforms pass (with padding) pass. A pass declared to
// reassociate float addition is checked within the tolerance, and still caught when wrong.
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
  std::optional<Module> run(Module module, PassContext &) override {
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
    reassociated_ |= instance.info->reassociates;
    if (!failure && !identical)
      failure = checker_.check(after, instance.info->name, reassociated_);
  }
  std::optional<Diagnostic> failure;

private:
  const SemanticChecker &checker_;
  bool reassociated_ = false;
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
  std::optional<Module> run(Module module, PassContext &) override {
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

namespace {

constexpr int64_t SumRows = 64, SumTerms = 6;

// S[i] = sum of A[i, k], k = 0..5, added left to right, or right to left (reassociated), or
// right to left without the last term (a broken pass).
enum class SumOrder { LeftToRight, RightToLeft, RightToLeftDropLast };

Stmt sumRows(const Buffer &a, const Buffer &s, SumOrder order) {
  Var i = var("i");
  int64_t terms = order == SumOrder::RightToLeftDropLast ? SumTerms - 1 : SumTerms;
  Expr sum;
  for (int64_t k = 0; k < terms; ++k) {
    Expr term = load(a, {i, c(order == SumOrder::LeftToRight ? k : terms - 1 - k)});
    sum = !sum ? term : order == SumOrder::LeftToRight ? sum + term : term + sum;
  }
  return loop(i, SumRows, store(s, sum, {i}));
}

Module rowSums() {
  Buffer a = buffer("A", dims({SumRows, SumTerms})), s = buffer("S", dims({SumRows}));
  Module module;
  module.functions.push_back(func("row_sums", {a, s}, sumRows(a, s, SumOrder::LeftToRight)));
  return module;
}

class Reassociate : public Pass {
public:
  explicit Reassociate(SumOrder order) : order_(order) {}
  std::optional<Module> run(Module module, PassContext &) override {
    Module out = module;
    for (PrimFunc &f : out.functions) {
      PrimFuncNode::Fields fields = f->fields();
      fields.body = sumRows(f->bufferMap[0].buffer, f->bufferMap[1].buffer, order_);
      f = PrimFuncNode::make(std::move(fields));
    }
    return out;
  }

private:
  SumOrder order_;
};

PassInfo reassociateInfo(const std::string &name, SumOrder order, bool declared) {
  PassInfo info;
  info.name = name;
  info.reassociates = declared;
  info.create = [order](const PassOptions &) { return std::make_unique<Reassociate>(order); };
  return info;
}

} // namespace

TEST_CASE("reassociating float addition changes bits: caught unless the pass declares it", "[semantic-check]") {
  PassInfo undeclared = reassociateInfo("sum-right-to-left", SumOrder::RightToLeft, false);
  std::optional<Diagnostic> failure = verify(rowSums(), {&undeclared});
  REQUIRE(failure); // some of the 64 sums round differently
  INFO(failure->message);
  CHECK(failure->message.find("pass 'sum-right-to-left' changed the behaviour of function 'row_sums': buffer 'S' "
                              "differs at logical index") != std::string::npos);

  PassInfo declared = reassociateInfo("sum-right-to-left", SumOrder::RightToLeft, true);
  CHECK_FALSE(verify(rowSums(), {&declared}));
}

TEST_CASE("a reassociating pass is still caught when it computes something else", "[semantic-check]") {
  PassInfo broken = reassociateInfo("sum-drop-last", SumOrder::RightToLeftDropLast, true);
  std::optional<Diagnostic> failure = verify(rowSums(), {&broken});
  REQUIRE(failure);
  CHECK(failure->message.find("pass 'sum-drop-last' changed the behaviour") != std::string::npos);
  // The tolerance also covers the passes after a reassociating one: the sum stays reassociated.
  PassInfo declared = reassociateInfo("sum-right-to-left", SumOrder::RightToLeft, true);
  PassInfo again = reassociateInfo("sum-right-to-left-again", SumOrder::RightToLeft, false);
  CHECK_FALSE(verify(rowSums(), {&declared, &again}));
}

TEST_CASE("the reassociation tolerance per type", "[semantic-check]") {
  CHECK(reassociationTolerance(DataType::float32()).relative == 0x1p-12);
  CHECK(reassociationTolerance(DataType::float32()).absolute == 0x1p-16);
  CHECK(reassociationTolerance(DataType::float64()).relative == 0x1p-40);
  CHECK(reassociationTolerance(DataType(DataType::Code::Float, 16)).relative == 0x1p-6);
  CHECK(reassociationTolerance(DataType::int32()).relative == 0);
  CHECK(reassociationTolerance(DataType::int32()).absolute == 0);
}
