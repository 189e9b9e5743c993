#include <catch2/catch.hpp>

#include "ir/script_expr_printer.h"
#include "ir_builders.h"

using namespace tirlower;
using namespace tirlower::testing;

namespace {
struct Names {
  Var a = var("a"), b = var("b"), c = var("c"), d = var("d");
  Var x = var("x", DataType::float32()), y = var("y", DataType::float32());
  Var p = var("p", DataType::boolean()), q = var("q", DataType::boolean()), r = var("r", DataType::boolean());
};
} // namespace

TEST_CASE("arithmetic prints with minimal parentheses", "[codegen][print]") {
  Names n;
  using B = BinaryOp;
  CHECK(formatExpr(bin(B::Add, n.a, bin(B::Mul, n.b, n.c))) == "a + b * c");
  CHECK(formatExpr(bin(B::Mul, bin(B::Add, n.a, n.b), n.c)) == "(a + b) * c");
  CHECK(formatExpr(bin(B::Sub, n.a, bin(B::Sub, n.b, n.c))) == "a - (b - c)");
  CHECK(formatExpr(bin(B::Sub, bin(B::Sub, n.a, n.b), n.c)) == "a - b - c");
  CHECK(formatExpr(bin(B::Add, n.a, bin(B::Add, n.b, n.c))) == "a + (b + c)");
  CHECK(formatExpr(bin(B::Add, n.a, bin(B::Sub, n.b, n.c))) == "a + (b - c)");
  CHECK(formatExpr(bin(B::FloorDiv, n.a, n.b)) == "a // b");
  CHECK(formatExpr(bin(B::FloorMod, n.a, n.b)) == "a % b");
  CHECK(formatExpr(bin(B::FloorDiv, bin(B::Add, n.a, n.b), n.c)) == "(a + b) // c");
  CHECK(formatExpr(bin(B::FloorDiv, n.a, bin(B::Mul, n.b, n.c))) == "a // (b * c)");
  CHECK(formatExpr(bin(B::FloorMod, bin(B::Mul, n.a, n.b), n.c)) == "a * b % c");
  CHECK(formatExpr(bin(B::Add, bin(B::FloorMod, n.a, i32(4)), bin(B::FloorDiv, n.b, i32(4)))) == "a % 4 + b // 4");
  CHECK(formatExpr(bin(B::Div, n.a, n.b)) == "T.truncdiv(a, b)");
  CHECK(formatExpr(bin(B::Mod, n.a, n.b)) == "T.truncmod(a, b)");
  CHECK(formatExpr(bin(B::Mul, bin(B::Div, n.a, n.b), n.c)) == "T.truncdiv(a, b) * c");
  CHECK(formatExpr(bin(B::Div, n.x, n.y)) == "x / y");
  CHECK(formatExpr(bin(B::Div, n.x, bin(B::Mul, n.x, n.y))) == "x / (x * y)");
  CHECK(formatExpr(bin(B::FloorDiv, n.x, n.y)) == "T.floordiv(x, y)");
  CHECK(formatExpr(bin(B::FloorMod, n.x, n.y)) == "T.floormod(x, y)");
  CHECK(formatExpr(bin(B::Min, bin(B::Add, n.a, n.b), n.c)) == "T.min(a + b, c)");
  CHECK(formatExpr(bin(B::Max, n.a, n.b)) == "T.max(a, b)");
  CHECK(formatExpr(bin(B::Mul, n.a, i32(-1))) == "a * -1");
  CHECK(formatExpr(bin(B::Add, i32(-1), n.a)) == "-1 + a");
  CHECK(formatExpr(bin(B::Sub, n.a, i32(-1))) == "a - -1");
}

TEST_CASE("comparisons never chain and logic follows Python precedence", "[codegen][print]") {
  Names n;
  using B = BinaryOp;
  Expr lt = bin(B::LT, n.a, n.b), ge = bin(B::GE, n.c, n.d);
  CHECK(formatExpr(lt) == "a < b");
  CHECK(formatExpr(bin(B::LE, bin(B::Add, n.a, i32(1)), n.b)) == "a + 1 <= b");
  CHECK(formatExpr(bin(B::EQ, lt, ge)) == "(a < b) == (c >= d)");
  CHECK(formatExpr(bin(B::NE, n.p, bin(B::EQ, n.q, n.r))) == "p != (q == r)");
  CHECK(formatExpr(bin(B::GT, n.a, n.b)) == "a > b");
  CHECK(formatExpr(bin(B::And, lt, ge)) == "a < b and c >= d");
  CHECK(formatExpr(bin(B::Or, n.p, bin(B::And, n.q, n.r))) == "p or q and r");
  CHECK(formatExpr(bin(B::And, bin(B::Or, n.p, n.q), n.r)) == "(p or q) and r");
  CHECK(formatExpr(bin(B::And, n.p, bin(B::And, n.q, n.r))) == "p and (q and r)");
  CHECK(formatExpr(bin(B::And, bin(B::And, n.p, n.q), n.r)) == "p and q and r");
  CHECK(formatExpr(NotNode::make(bin(B::And, n.p, n.q))) == "not (p and q)");
  CHECK(formatExpr(bin(B::And, NotNode::make(n.p), n.q)) == "not p and q");
  CHECK(formatExpr(NotNode::make(lt)) == "not a < b");
  CHECK(formatExpr(NotNode::make(NotNode::make(n.p))) == "not not p");
  CHECK(formatExpr(bin(B::EQ, NotNode::make(n.p), n.q)) == "(not p) == q");
}

TEST_CASE("literals are typed except int32 and bool", "[codegen][print]") {
  CHECK(formatExpr(i32(16)) == "16");
  CHECK(formatExpr(i32(-1)) == "-1");
  CHECK(formatExpr(intImm(16, DataType::int64())) == "T.int64(16)");
  CHECK(formatExpr(intImm(-3, DataType(DataType::Code::Int, 8))) == "T.int8(-3)");
  CHECK(formatExpr(intImm(3, DataType(DataType::Code::UInt, 8))) == "T.uint8(3)");
  CHECK(formatExpr(intImm(1, DataType::boolean())) == "True");
  CHECK(formatExpr(intImm(0, DataType::boolean())) == "False");
  CHECK(formatExpr(f32(1.5)) == "T.float32(1.5)");
  CHECK(formatExpr(f32(1)) == "T.float32(1.0)");
  CHECK(formatExpr(f32(0.1)) == "T.float32(0.1)");
  CHECK(formatExpr(FloatImmNode::make(DataType::float64(), 0.1)) == "T.float64(0.1)");
  CHECK(formatExpr(FloatImmNode::make(DataType::float64(), 1e-05)) == "T.float64(1e-05)");
  CHECK(formatExpr(f32(INFINITY)) == "T.float32(\"inf\")");
  CHECK(formatExpr(f32(-INFINITY)) == "T.float32(\"-inf\")");
  CHECK(formatExpr(f32(NAN)) == "T.float32(\"nan\")");
  CHECK(formatExpr(FloatImmNode::make(DataType(DataType::Code::Float, 16), 0.1)) == "T.float16(0.1)");
  CHECK(formatExpr(FloatImmNode::make(DataType(DataType::Code::BFloat, 16), 1.5)) == "T.bfloat16(1.5)");
  CHECK(formatExpr(StringImmNode::make("a\"b\\c\nd\te")) == R"("a\"b\\c\nd\te")");
  Var i = var("i", DataType::int64());
  CHECK(formatExpr(bin(BinaryOp::Add, i, intImm(1, DataType::int64()))) == "i + T.int64(1)");
}

TEST_CASE("calls, casts, vectors, lets and loads", "[codegen][print]") {
  Names n;
  Buffer A = buffer("A", {16, 64});
  Buffer S = buffer("S", {});
  CHECK(formatExpr(CastNode::make(DataType::float32(), n.a)) == "T.Cast(\"float32\", a)");
  CHECK(formatExpr(SelectNode::make(bin(BinaryOp::LT, n.a, n.b), n.a, n.b)) == "T.Select(a < b, a, b)");
  CHECK(formatExpr(RampNode::make(bin(BinaryOp::Mul, n.a, i32(4)), i32(1), 4)) == "T.Ramp(a * 4, 1, 4)");
  CHECK(formatExpr(BroadcastNode::make(n.x, 4)) == "T.Broadcast(x, 4)");
  CHECK(formatExpr(CastNode::make(DataType::float32(4), RampNode::make(n.a, i32(1), 4))) ==
        "T.Cast(\"float32x4\", T.Ramp(a, 1, 4))");
  Var t = var("t");
  CHECK(formatExpr(LetNode::make(t, n.a, bin(BinaryOp::Add, t, i32(1)))) == "T.Let(t + 1, where={t: a})");
  CHECK(formatExpr(CallNode::make(DataType::float32(), Symbol("call_extern"), {StringImmNode::make("f"), n.x, n.a})) ==
        "T.call_extern(\"float32\", \"f\", x, a)");
  CHECK(formatExpr(CallNode::make(DataType::float32(), Symbol("exp"), {n.x})) == "T.exp(x)");
  CHECK(formatExpr(CallNode::make(DataType::float32(), Symbol("if_then_else"),
                                 {bin(BinaryOp::LT, n.a, i32(3)), n.x, f32(0)})) ==
        "T.if_then_else(a < 3, x, T.float32(0.0))");
  CHECK(formatExpr(load(A, {n.a, bin(BinaryOp::Add, n.b, i32(1))})) == "A[a, b + 1]");
  CHECK(formatExpr(bin(BinaryOp::Mul, load(A, {n.a, n.b}), n.x)) == "A[a, b] * x");
  CHECK(formatExpr(load(S, {})) == "S[()]");
  CHECK(formatExpr(load(A, {n.a, RampNode::make(i32(0), i32(1), 4)})) == "A[a, T.Ramp(0, 1, 4)]");
}

TEST_CASE("index maps print as lambdas with axis separators", "[codegen][print]") {
  Var nn = var("n"), h = var("h"), w = var("w"), c = var("c");
  IndexMap map = IndexMapNode::make(
      {nn, h, w, c}, {nn, bin(BinaryOp::FloorDiv, c, i32(4)), h, w, bin(BinaryOp::FloorMod, c, i32(4))}, {3});
  CHECK(formatIndexMap(*map) == "lambda n, h, w, c: [n, c // 4, h, T.AXIS_SEPARATOR, w, c % 4]");
  IndexMap edges = IndexMapNode::make({nn}, {nn}, {0, 1});
  CHECK(formatIndexMap(*edges) == "lambda n: [T.AXIS_SEPARATOR, n, T.AXIS_SEPARATOR]");
}

TEST_CASE("shift and bitwise calls print as Python operators", "[codegen][print]") {
  Names n;
  auto call = [](const char *op, std::vector<Expr> args) {
    DataType t = args[0]->type;
    return CallNode::make(t, Symbol(op), std::move(args));
  };
  using B = BinaryOp;
  CHECK(formatExpr(call("shift_left", {n.a, i32(2)})) == "a << 2");
  CHECK(formatExpr(call("shift_right", {n.a, n.b})) == "a >> b");
  CHECK(formatExpr(call("bitwise_and", {n.a, n.b})) == "a & b");
  CHECK(formatExpr(call("bitwise_or", {n.a, n.b})) == "a | b");
  CHECK(formatExpr(call("bitwise_xor", {n.a, n.b})) == "a ^ b");
  CHECK(formatExpr(call("bitwise_not", {n.a})) == "~a");
  // Python: | < ^ < & < << >> < + - < * < unary.
  CHECK(formatExpr(call("bitwise_or", {n.a, call("bitwise_xor", {n.b, call("bitwise_and", {n.c, n.d})})})) ==
        "a | b ^ c & d");
  CHECK(formatExpr(call("bitwise_and", {call("bitwise_or", {n.a, n.b}), n.c})) == "(a | b) & c");
  CHECK(formatExpr(call("shift_left", {bin(B::Add, n.a, n.b), n.c})) == "a + b << c");
  CHECK(formatExpr(bin(B::Add, call("shift_left", {n.a, n.b}), n.c)) == "(a << b) + c");
  CHECK(formatExpr(call("shift_left", {n.a, call("shift_right", {n.b, n.c})})) == "a << (b >> c)");
  CHECK(formatExpr(call("shift_right", {call("shift_left", {n.a, n.b}), n.c})) == "a << b >> c");
  CHECK(formatExpr(call("bitwise_xor", {n.a, call("bitwise_xor", {n.b, n.c})})) == "a ^ (b ^ c)");
  CHECK(formatExpr(bin(B::EQ, call("bitwise_and", {n.a, i32(3)}), n.b)) == "a & 3 == b");
  CHECK(formatExpr(call("bitwise_and", {bin(B::EQ, n.a, n.b), n.p})) == "(a == b) & p");
  CHECK(formatExpr(call("bitwise_not", {bin(B::Add, n.a, n.b)})) == "~(a + b)");
  CHECK(formatExpr(bin(B::Mul, call("bitwise_not", {n.a}), n.b)) == "~a * b");
  CHECK(formatExpr(call("bitwise_not", {i32(-1)})) == "~T.int32(-1)");
  CHECK(formatExpr(call("bitwise_not", {call("bitwise_not", {n.a})})) == "~~a");
  // Two bare int32 constants would be Python arithmetic, folded when read back.
  CHECK(formatExpr(call("shift_left", {i32(1), i32(4)})) == "T.int32(1) << 4");
  CHECK(formatExpr(call("bitwise_not", {i32(5)})) == "~T.int32(5)");
  CHECK(formatExpr(call("bitwise_or", {n.p, n.q})) == "p | q");
}

TEST_CASE("calls with a declared type print it first", "[codegen][print]") {
  Names n;
  CHECK(formatExpr(CallNode::make(DataType::float32(), Symbol("reinterpret"), {n.a})) == "T.reinterpret(\"float32\", a)");
  CHECK(formatExpr(CallNode::make(DataType::int32(), Symbol("call_pure_extern"), {StringImmNode::make("g"), n.x})) ==
        "T.call_pure_extern(\"int32\", \"g\", x)");
  CHECK(formatExpr(CallNode::make(DataType::int32(), Symbol("q_multiply_shift"), {n.a, i32(1073741824), i32(31), n.b})) ==
        "T.q_multiply_shift(a, 1073741824, 31, b)");
}
