#include <catch2/catch.hpp>

#include "../codegen/ir_builders.h"
#include "parse/diagnostic_engine.h"
#include "ir/equality.h"
#include "transform/passes.h"

using namespace tirlower;
using namespace tirlower::testing;

namespace {
Stmt simplified(FuncBuilder &builder, Stmt body) {
  Module module = moduleOf({builder.build(std::move(body))});
  const PassInfo info = simplifyPassInfo();
  std::unique_ptr<Pass> pass = info.create(passOptionsWithDefaults(info, {}));
  DiagnosticCollector sink;
  PassContext ctx{sink};
  std::optional<Module> out = pass->run(std::move(module), ctx);
  REQUIRE(out);
  return out->functions[0]->body;
}
} // namespace

// simplify inlines a let's pure value into its body, but not where a statement binds a
// variable the value reads again (IR that passes build: the same variable object bound by a
// nested loop); there the use keeps the let's variable, which means the outer binding.
TEST_CASE("simplify inlines lets but not under a rebinding of what they read", "[transform][simplify]") {
  FuncBuilder builder("f");
  Buffer a = builder.bufferParam("A", {8}, DataType::int32());
  Var i = var("i"), x = var("x");
  Expr plusOne = bin(BinaryOp::Add, i, i32(1));
  // for i in range(8): x = i + 1; A[0] = x; for i in range(2): A[i] = x
  Stmt inner = loop(i, 2, store(a, x, {i}));
  Stmt body = loop(i, 8, LetStmtNode::make(x, plusOne, SeqStmtNode::make({store(a, x, {i32(0)}), inner})));
  Stmt out = simplified(builder, body);
  const auto *let = out.as<ForNode>()->body.as<LetStmtNode>();
  REQUIRE(let);
  const auto *seq = let->body.as<SeqStmtNode>();
  REQUIRE(seq);
  // Outside the rebinding the value replaces x ...
  CHECK(structurallyEqual(seq->stmts[0].as<BufferStoreNode>()->value, plusOne));
  // ... inside it x stays.
  const auto *rebound = seq->stmts[1].as<ForNode>()->body.as<BufferStoreNode>();
  CHECK(rebound->value.same(x));
}
