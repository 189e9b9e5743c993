// Parsing the intrinsics TVM prints and the bitwise operators: each call becomes the table's
// CallNode with the type TVM gives it; `<< >> & | ^ ~` bind as in Python and become
// shift_left/shift_right/bitwise_* calls; Python integer literals fold as Python computes them;
// T.max_value, T.min_value and T.infinity fold to TVM's constants.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "ir/intrinsics.h"
#include "test_util.h"

using namespace tirlower;
using tirlower::test::function;
using tirlower::test::parse;

namespace {

const char *kParams = "A: T.Buffer((16,), \"float32\"), H: T.Buffer((16,), \"float16\"), "
                      "B: T.Buffer((16,), \"int32\"), L: T.Buffer((16,), \"int64\"), M: T.Buffer((16,), \"bool\"), "
                      "n: T.int32, k: T.int32";

// The value of `B[0] = <expr>` (or A/H/L/M) parsed in a function with kParams.
Expr valueOf(const std::string &target, const std::string &expr) {
  auto p = parse(function(kParams, "    " + target + "[0] = " + expr + "\n"));
  INFO(p->rendered());
  REQUIRE(p->module);
  const auto *store = p->func().body.as<BufferStoreNode>();
  REQUIRE(store);
  return store->value;
}

std::string errorOf(const std::string &target, const std::string &expr) {
  auto p = parse(function(kParams, "    " + target + "[0] = " + expr + "\n"));
  REQUIRE(!p->diagnostics.diagnostics.empty());
  return p->diagnostics.diagnostics[0].message;
}

const CallNode *callOf(const Expr &e, const char *name) {
  const auto *call = e.as<CallNode>();
  REQUIRE(call);
  CHECK(call->op.view() == name);
  return call;
}

} // namespace

TEST_CASE("every intrinsic parses to its table row with TVM's type", "[parse][intrinsics]") {
  struct Case {
    const char *target, *text, *op;
    DataType type;
  };
  const DataType f16(DataType::Code::Float, 16);
  const Case cases[] = {
      {"A", "T.exp(A[1])", "exp", DataType::float32()},
      {"A", "T.exp10(A[1])", "exp10", DataType::float32()},
      {"H", "T.log1p(H[1])", "log1p", f16},
      {"A", "T.rsqrt(A[1])", "rsqrt", DataType::float32()},
      {"A", "T.sigmoid(A[1])", "sigmoid", DataType::float32()},
      {"A", "T.erf(A[1])", "erf", DataType::float32()},
      {"A", "T.asin(A[1])", "asin", DataType::float32()},
      {"A", "T.acos(A[1])", "acos", DataType::float32()},
      {"A", "T.atan(A[1])", "atan", DataType::float32()},
      {"A", "T.sinh(A[1])", "sinh", DataType::float32()},
      {"A", "T.cosh(A[1])", "cosh", DataType::float32()},
      {"A", "T.nearbyint(A[1])", "nearbyint", DataType::float32()},
      {"A", "T.atan2(A[1], 0.5)", "atan2", DataType::float32()},
      {"H", "T.copysign(H[1], -1.0)", "copysign", f16},
      {"A", "T.fmod(A[1], A[2])", "fmod", DataType::float32()},
      {"M", "T.isinf(H[1])", "isinf", DataType::boolean()},
      {"M", "T.isfinite(A[1])", "isfinite", DataType::boolean()},
      {"B", "T.abs(B[1])", "abs", DataType::int32()},
      {"B", "T.shift_left(B[1], 2)", "shift_left", DataType::int32()},
      {"L", "T.shift_right(L[1], 2)", "shift_right", DataType::int64()},
      {"B", "T.bitwise_and(B[1], 7)", "bitwise_and", DataType::int32()},
      {"M", "T.bitwise_or(M[1], M[2])", "bitwise_or", DataType::boolean()},
      {"L", "T.bitwise_xor(L[1], L[2])", "bitwise_xor", DataType::int64()},
      {"B", "T.bitwise_not(n)", "bitwise_not", DataType::int32()},
      {"M", "T.likely(n < k)", "likely", DataType::boolean()},
      {"A", "T.reinterpret(\"float32\", B[1])", "reinterpret", DataType::float32()},
      {"L", "T.reinterpret(\"int64\", T.Cast(\"float64\", A[1]))", "reinterpret", DataType::int64()},
      {"B", "T.q_multiply_shift(B[1], 1518500250, 31, -2)", "q_multiply_shift", DataType::int32()},
      {"B", "T.q_multiply_shift_per_axis(B[1], B[2], n, k, 31, T.bool(True), M[1])", "q_multiply_shift_per_axis",
       DataType::int32()},
      {"A", "T.call_pure_extern(\"float32\", \"f\", A[1], \"s\")", "call_pure_extern", DataType::float32()},
  };
  for (const Case &c : cases) {
    INFO(c.text);
    Expr e = valueOf(c.target, c.text);
    const CallNode *call = callOf(e, c.op);
    CHECK(call->type == c.type);
    CHECK(call->intrinsic == findIntrinsic(c.op));
  }
  // A literal operand takes the other operand's type; declared types are not arguments.
  Expr e1 = valueOf("H", "T.copysign(H[1], -1.0)");
  const CallNode *copysign = callOf(e1, "copysign");
  CHECK(copysign->args[1]->type == f16);
  CHECK(copysign->args[1].as<FloatImmNode>()->value == -1.0);
  Expr e2 = valueOf("A", "T.reinterpret(\"float32\", B[1])");
  const CallNode *reinterpret = callOf(e2, "reinterpret");
  CHECK(reinterpret->args.size() == 1);
  Expr e3 = valueOf("B", "T.q_multiply_shift(B[1], 1518500250, 31, -2)");
  const CallNode *q = callOf(e3, "q_multiply_shift");
  for (const Expr &arg : q->args)
    CHECK(arg->type == DataType::int32());
  CHECK(*asConstInt(q->args[3]) == -2);
  Expr e4 = valueOf("A", "T.call_pure_extern(\"float32\", \"f\", A[1], \"s\")");
  const CallNode *ext = callOf(e4, "call_pure_extern");
  CHECK(ext->args[0].as<StringImmNode>()->value == "f");
  CHECK(ext->args[2].as<StringImmNode>()->value == "s");
}

TEST_CASE("T.assume is a statement-level hint", "[parse][intrinsics]") {
  auto p = parse(function(kParams, "    T.evaluate(T.assume(n >= 0 and n < 16))\n    B[n] = 1\n"));
  INFO(p->rendered());
  REQUIRE(p->module);
  const auto *eval = p->func().body.as<SeqStmtNode>()->stmts[0].as<EvaluateNode>();
  REQUIRE(eval);
  CHECK(callOf(eval->value, "assume")->type == DataType::boolean());
}

TEST_CASE("bitwise operators bind as in Python", "[parse][intrinsics]") {
  // | < ^ < & < << >> < + -: n | k ^ n & k << n + k is n | (k ^ (n & (k << (n + k)))).
  Expr e = valueOf("B", "n | k ^ n & k << n + k");
  const CallNode *orCall = callOf(e, "bitwise_or");
  const CallNode *xorCall = callOf(orCall->args[1], "bitwise_xor");
  const CallNode *andCall = callOf(xorCall->args[1], "bitwise_and");
  const CallNode *shl = callOf(andCall->args[1], "shift_left");
  CHECK(shl->args[1].as<BinaryNode>()->op == BinaryOp::Add);
  // Left-associative within a level; comparisons bind looser than all of them.
  Expr shifts = valueOf("B", "n >> k << 1");
  const CallNode *shr = callOf(shifts, "shift_left");
  callOf(shr->args[0], "shift_right");
  Expr comparison = valueOf("M", "n & 3 == k | 1");
  const auto *eq = comparison.as<BinaryNode>();
  REQUIRE(eq);
  CHECK(eq->op == BinaryOp::EQ);
  callOf(eq->a, "bitwise_and");
  callOf(eq->b, "bitwise_or");
  // ~ is unary, at the level of unary minus: ~n * k is (~n) * k, -~n is -(~n).
  Expr product = valueOf("B", "~n * k");
  const auto *mul = product.as<BinaryNode>();
  REQUIRE(mul);
  callOf(mul->a, "bitwise_not");
  Expr negation = valueOf("B", "-~n");
  const auto *neg = negation.as<BinaryNode>();
  REQUIRE(neg); // negation is multiplication by -1
  callOf(neg->a, "bitwise_not");
  // On bools the operators are the bitwise calls too (TVM's & on bool).
  CHECK(callOf(valueOf("M", "M[1] & (n > 0) | ~M[2]"), "bitwise_or")->type == DataType::boolean());
  // A literal operand takes the other operand's type.
  Expr shifted = valueOf("L", "L[1] << 40");
  const CallNode *wide = callOf(shifted, "shift_left");
  CHECK(wide->args[1]->type == DataType::int64());
}

TEST_CASE("Python integer literals fold as Python computes them", "[parse][intrinsics]") {
  auto literal = [&](const std::string &text) {
    Expr e = valueOf("L", "T.Cast(\"int64\", " + text + ")");
    const auto *cast = e.as<CastNode>();
    const Expr &v = cast ? cast->value : e;
    REQUIRE(asConstInt(v));
    return *asConstInt(v);
  };
  CHECK(literal("1 << 4 | 1") == 17);
  CHECK(literal("-17 >> 2") == -5); // floor, as Python's >>
  CHECK(literal("~5") == -6);
  CHECK(literal("~-1") == 0);
  CHECK(literal("6 & 3 ^ 8") == 10);
  CHECK(literal("1 << 40") == (int64_t(1) << 40));
  CHECK(literal("-9223372036854775808") == INT64_MIN);
  CHECK(errorOf("L", "1 << 63") == "integer literal too large");
  CHECK(errorOf("L", "3 << -1") == "negative shift count");
  // A typed constant is no Python literal: the call stays.
  callOf(valueOf("B", "T.int32(1) << 4"), "shift_left");
  callOf(valueOf("B", "~T.int32(5)"), "bitwise_not");
  // TVM 0.27 prints such unfoldable operations by their node names.
  callOf(valueOf("B", "T.LShift(1, 4)"), "shift_left");
  callOf(valueOf("B", "T.RShift(n, 4)"), "shift_right");
  callOf(valueOf("B", "T.BitwiseAnd(1, 4) + T.BitwiseOr(1, 4) + T.BitwiseXor(1, 4)").as<BinaryNode>()->b,
         "bitwise_xor");
  callOf(valueOf("B", "T.BitwiseNot(7)"), "bitwise_not");
}

TEST_CASE("T.max_value, T.min_value and T.infinity fold to TVM's constants", "[parse][intrinsics]") {
  auto floatValue = [&](const std::string &target, const std::string &text) {
    Expr e = valueOf(target, text);
    REQUIRE(e.as<FloatImmNode>());
    return e.as<FloatImmNode>()->value;
  };
  CHECK(floatValue("A", "T.max_value(\"float32\")") == std::numeric_limits<float>::max());
  CHECK(floatValue("A", "T.min_value(\"float32\")") == -std::numeric_limits<float>::max());
  CHECK(floatValue("H", "T.max_value(\"float16\")") == 65504.0);
  CHECK(floatValue("H", "T.min_value(\"float16\")") == -65504.0);
  CHECK(std::isinf(floatValue("A", "T.infinity(\"float32\")")));
  CHECK(valueOf("A", "T.infinity(\"float32\")")->type == DataType::float32());
  auto intValue = [&](const std::string &target, const std::string &text) {
    Expr e = valueOf(target, text);
    REQUIRE(asConstInt(e));
    return std::make_pair(e->type, *asConstInt(e));
  };
  CHECK(intValue("B", "T.max_value(\"int32\")") == std::make_pair(DataType::int32(), int64_t(2147483647)));
  CHECK(intValue("B", "T.min_value(\"int32\")") == std::make_pair(DataType::int32(), int64_t(-2147483648LL)));
  CHECK(intValue("L", "T.min_value(\"int64\")").second == INT64_MIN);
  CHECK(intValue("L", "T.max_value(\"int64\")").second == INT64_MAX);
  Expr u16 = valueOf("B", "T.Cast(\"int32\", T.max_value(\"uint16\"))").as<CastNode>()->value;
  CHECK(u16->type == DataType(DataType::Code::UInt, 16));
  CHECK(*asConstInt(u16) == 65535);
  CHECK(errorOf("L", "T.Cast(\"int64\", T.max_value(\"uint64\"))") == "T.max_value is not defined for uint64");
  CHECK(errorOf("A", "T.max_value(\"float32x4\")") == "T.max_value is not defined for float32x4");
}

TEST_CASE("intrinsic errors are located at the argument at fault", "[parse][intrinsics]") {
  auto p = parse(function(kParams, "    A[0] = T.exp(A[1]) + T.sqrt(B[1])\n"));
  CHECK(p->rendered() == "in.tir:5:33: error: T.sqrt expects a floating-point argument, not int32\n"
                         "    A[0] = T.exp(A[1]) + T.sqrt(B[1])\n"
                         "                                ^~~~\n");
  auto q = parse(function(kParams, "    B[0] = B[1] << A[2]\n"));
  CHECK(q->rendered() == "in.tir:5:12: error: operands of '<<' have different types: int32 and float32\n"
                         "    B[0] = B[1] << A[2]\n"
                         "           ^~~~~~~~~~~~\n");
  CHECK(errorOf("B", "T.shift_right(B[1])") == "T.shift_right expects 2 positional arguments, got 1");
  CHECK(errorOf("A", "T.reinterpret(\"float64\", A[1])") ==
        "T.reinterpret cannot reinterpret float32 (32 bits) as float64 (64 bits)");
  CHECK(errorOf("A", "T.tanhh(A[1])") == "unknown function 'T.tanhh'");
}
