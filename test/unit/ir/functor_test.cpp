#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "ir/buffer.h"
#include "ir/edit_distance.h"
#include "ir/elem_offset.h"
#include "ir/equality.h"
#include "ir/functor.h"

using namespace tirlower;

namespace {

// The depth of the deepest leaf, with the depth so far as an extra argument.
class Depth : public ExprFunctor<int(const Expr &, int)> {
protected:
  int visitBinary(const BinaryNode *op, int depth) override {
    return std::max(visitExpr(op->a, depth + 1), visitExpr(op->b, depth + 1));
  }
  int visitExprDefault(const ExprNode *, int depth) override { return depth; }
};

class Kinds : public StmtFunctor<std::string(const Stmt &)> {
protected:
  std::string visitSeqStmt(const SeqStmtNode *op) override {
    std::string out;
    for (const Stmt &s : op->stmts)
      out += visitStmt(s) + ";";
    return out;
  }
  std::string visitEvaluate(const EvaluateNode *) override { return "evaluate"; }
};

Expr f32(double value) {
  return FloatImmNode::make(DataType::float32(), value);
}

} // namespace

TEST_CASE("functors dispatch on the node kind with extra arguments", "[ir]") {
  Var i = VarNode::make(Symbol("i"), DataType::int32());
  Expr sum = BinaryNode::make(BinaryOp::Add, BinaryNode::make(BinaryOp::Mul, i, intImm(2)), intImm(1));
  CHECK(Depth().visitExpr(sum, 0) == 2);
  CHECK(Depth().visitExpr(i, 5) == 5);
}

TEST_CASE("a node a functor does not handle is an internal error naming it", "[ir]") {
  Stmt seq = SeqStmtNode::make({EvaluateNode::make(intImm(0)), EvaluateNode::make(intImm(1))});
  CHECK(Kinds().visitStmt(seq) == "evaluate;evaluate;");
  Var i = VarNode::make(Symbol("i"), DataType::int32());
  Stmt store = LetStmtNode::make(i, intImm(1), EvaluateNode::make(intImm(0)));
  CHECK_THROWS_WITH(Kinds().visitStmt(store), "StmtFunctor has no method for let_stmt nodes");
}

TEST_CASE("structural equality: identity for variables, NaN equals NaN, signed zeros differ", "[ir]") {
  Var i = VarNode::make(Symbol("i"), DataType::int32()), j = VarNode::make(Symbol("i"), DataType::int32());
  CHECK(structurallyEqual(BinaryNode::make(BinaryOp::Add, i, intImm(1)), BinaryNode::make(BinaryOp::Add, i, intImm(1))));
  CHECK_FALSE(structurallyEqual(i, j));
  double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(structurallyEqual(f32(nan), f32(-nan)));
  CHECK_FALSE(structurallyEqual(f32(0.0), f32(-0.0)));
  CHECK_FALSE(structurallyEqual(f32(nan), f32(1.0)));
  CHECK(floatValueHash(nan) == floatValueHash(-nan));
  CHECK(structurallyEqual(std::vector<Expr>{i, intImm(2)}, std::vector<Expr>{i, intImm(2)}));
  CHECK_FALSE(structurallyEqual(std::vector<Expr>{i}, std::vector<Expr>{i, i}));
}

TEST_CASE("edit distance and the closest plausible name", "[ir]") {
  CHECK(editDistance("flatten", "flaten") == 1);
  CHECK(editDistance("kitten", "sitting") == 3);
  CHECK(editDistance("kitten", "sitting", 2) == 3); // capped at limit + 1
  CHECK(editDistance("a", "abcdef", 2) == 3);
  ClosestName closest("serail", 2);
  closest.consider("parallel");
  closest.consider("serial");
  closest.consider("serious");
  CHECK(closest.best() == "serial");
  ClosestName none("ab", 2);
  none.consider("xy");
  CHECK(none.best().empty());
}

TEST_CASE("a flat buffer's element offset applies its stride and elem_offset", "[ir]") {
  BufferNode::Fields f;
  f.name = Symbol("A");
  f.data = VarNode::makeHandle(Symbol("A"), DataType::float32(), Symbol("global"));
  f.dtype = DataType::float32();
  f.shape = {intImm(64)};
  Buffer plain = BufferNode::make(f);
  Var i = VarNode::make(Symbol("i"), DataType::int32());
  CHECK(flatElemOffset(*plain, i) == Expr(i));
  f.strides = {intImm(2)};
  f.elemOffset = intImm(3);
  Buffer view = BufferNode::make(f);
  Expr expected = BinaryNode::make(BinaryOp::Add, BinaryNode::make(BinaryOp::Mul, i, intImm(2)), intImm(3));
  CHECK(structurallyEqual(flatElemOffset(*view, i), expected));
  CHECK_FALSE(contiguousElemOffset(*view, RampNode::make(i, intImm(1), 4)));
  CHECK(structurallyEqual(contiguousElemOffset(*plain, RampNode::make(i, intImm(1), 4)), i));
}
