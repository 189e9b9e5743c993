// The intrinsic table against TVM's definitions of its intrinsics (python/tvm/tirx/op.py,
// src/tirx/op/op.cc and builtin.cc): every name TVM's TOPI prints is a row, and each row's
// arity, argument and result types, effect, lane-wise flag and math functions are as TVM
// defines them. The expectations are written out here by kind, not read from the table.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "ir/intrinsics.h"

using namespace tirlower;

namespace {

const DataType f16 = DataType(DataType::Code::Float, 16), f32 = DataType::float32(), f64 = DataType::float64();
const DataType i8 = DataType(DataType::Code::Int, 8), i32 = DataType::int32(), i64 = DataType::int64();
const DataType u8 = DataType(DataType::Code::UInt, 8), b1 = DataType::boolean();

const std::vector<std::string> kFloatUnary = {"exp",  "exp2", "exp10", "log",   "log2",  "log10", "log1p",
                                              "sqrt", "rsqrt", "tanh", "sigmoid", "erf", "sin",   "cos",
                                              "tan",  "asin", "acos",  "atan",  "sinh",  "cosh",  "fabs",
                                              "floor", "ceil", "round", "nearbyint", "trunc"};
const std::vector<std::string> kFloatBinary = {"pow", "atan2", "fmod", "copysign"};
const std::vector<std::string> kPredicates = {"isnan", "isinf", "isfinite"};
const std::vector<std::string> kShifts = {"shift_left", "shift_right"};
const std::vector<std::string> kBitwise = {"bitwise_and", "bitwise_or", "bitwise_xor"};
const std::vector<std::string> kOthers = {"abs",         "bitwise_not",      "likely",      "assume",
                                          "if_then_else", "call_extern",     "call_pure_extern", "reinterpret",
                                          "q_multiply_shift", "q_multiply_shift_per_axis", "vscale"};
// The GPU builtins TVM's GPU lowering prints (src/tir/op/builtin.cc: opaque calls).
const std::vector<std::string> kGpu = {"tvm_storage_sync",      "tvm_thread_allreduce", "tvm_warp_shuffle",
                                       "tvm_warp_shuffle_up",   "tvm_warp_shuffle_down", "tvm_warp_activemask"};
const DataType u32 = DataType(DataType::Code::UInt, 32), handle = DataType::handle();

const IntrinsicInfo &row(const std::string &name) {
  const IntrinsicInfo *info = findIntrinsic(name);
  REQUIRE(info);
  return *info;
}

IntrinsicTyping type(const std::string &name, std::vector<DataType> args,
                     std::optional<DataType> declared = std::nullopt) {
  return typeIntrinsicCall(row(name), args, declared);
}

bool accepts(const std::string &name, std::vector<DataType> args, DataType result,
             std::optional<DataType> declared = std::nullopt) {
  IntrinsicTyping t = type(name, std::move(args), declared);
  return t.type && *t.type == result;
}

bool rejects(const std::string &name, std::vector<DataType> args, std::optional<DataType> declared = std::nullopt) {
  IntrinsicTyping t = type(name, std::move(args), declared);
  return !t.type && !t.error.empty();
}

} // namespace

TEST_CASE("the table has exactly the intrinsics TVM prints, each once and in id order", "[ir][intrinsics]") {
  std::set<std::string> expected;
  for (const auto *list : {&kFloatUnary, &kFloatBinary, &kPredicates, &kShifts, &kBitwise, &kOthers, &kGpu})
    expected.insert(list->begin(), list->end());
  std::set<std::string> names;
  size_t k = 0;
  for (const IntrinsicInfo &info : intrinsicTable()) {
    CHECK(static_cast<size_t>(info.id) == k++);
    CHECK(names.insert(std::string(info.name)).second);
    CHECK(&intrinsicInfo(info.id) == &info);
    CHECK(findIntrinsic(info.name) == &info);
    CHECK(findIntrinsic(Symbol(info.name)) == &info);
  }
  CHECK(names == expected);
  CHECK(findIntrinsic("tir.exp") == &row("exp")); // TVM's op names
  CHECK(findIntrinsic("tirx.sqrt") == &row("sqrt"));
  CHECK(findIntrinsic("exp3") == nullptr);
  CHECK(findIntrinsic("LShift") == &row("shift_left")); // TVM 0.27's node names
  CHECK(findIntrinsic("BitwiseNot") == &row("bitwise_not"));
  CHECK(findIntrinsic(Symbol("tvm_storage_sync")) == &row("tvm_storage_sync"));
  CHECK(findIntrinsic(Symbol("tvm_unknown_builtin")) == nullptr);
}

TEST_CASE("float -> float intrinsics", "[ir][intrinsics]") {
  for (const std::string &name : kFloatUnary) {
    INFO(name);
    CHECK(intrinsicArity(row(name)) == std::pair<size_t, size_t>(1, 1));
    CHECK(accepts(name, {f32}, f32));
    CHECK(accepts(name, {f64}, f64));
    CHECK(accepts(name, {f16.withLanes(4)}, f16.withLanes(4)));
    IntrinsicTyping bad = type(name, {i32});
    CHECK(bad.error == "T." + name + " expects a floating-point argument, not int32");
    CHECK(bad.argument == 0);
    CHECK(type(name, {f32, f32}).error == "T." + name + " takes 1 argument, not 2");
    CHECK(rejects(name, {}));
    CHECK(rejects(name, {b1}));
  }
}

TEST_CASE("(float, float) -> float intrinsics", "[ir][intrinsics]") {
  for (const std::string &name : kFloatBinary) {
    INFO(name);
    CHECK(intrinsicArity(row(name)) == std::pair<size_t, size_t>(2, 2));
    CHECK(accepts(name, {f32, f32}, f32));
    CHECK(accepts(name, {f64.withLanes(2), f64.withLanes(2)}, f64.withLanes(2)));
    CHECK(type(name, {f32, f64}).error == "operands of 'T." + name + "' have different types: float32 and float64");
    CHECK(type(name, {i32, i32}).error == "T." + name + " expects floating-point arguments, not int32");
    CHECK(rejects(name, {f32}));
  }
}

TEST_CASE("float -> bool predicates", "[ir][intrinsics]") {
  for (const std::string &name : kPredicates) {
    INFO(name);
    CHECK(accepts(name, {f32}, b1));
    CHECK(accepts(name, {f16.withLanes(8)}, DataType::boolean(8)));
    CHECK(rejects(name, {i32}));
    CHECK(row(name).predicate);
  }
  CHECK(row("isnan").predicate(NAN));
  CHECK_FALSE(row("isnan").predicate(INFINITY));
  CHECK(row("isinf").predicate(-INFINITY));
  CHECK_FALSE(row("isinf").predicate(NAN));
  CHECK(row("isfinite").predicate(1e308));
  CHECK_FALSE(row("isfinite").predicate(NAN));
  CHECK_FALSE(row("isfinite").predicate(INFINITY));
}

TEST_CASE("abs, shifts, bitwise operations, likely and assume", "[ir][intrinsics]") {
  CHECK(accepts("abs", {i8}, i8));
  CHECK(accepts("abs", {u8.withLanes(4)}, u8.withLanes(4)));
  CHECK(accepts("abs", {f32}, f32));
  CHECK(type("abs", {b1}).error == "T.abs expects a numeric argument, not bool");
  for (const std::string &name : kShifts) {
    INFO(name);
    CHECK(accepts(name, {i32, i32}, i32));
    CHECK(accepts(name, {u8.withLanes(4), u8.withLanes(4)}, u8.withLanes(4)));
    CHECK(type(name, {f32, f32}).error == "T." + name + " expects integer arguments, not float32");
    CHECK(rejects(name, {b1, b1}));
    CHECK(rejects(name, {i32, i64}));
  }
  for (const std::string &name : kBitwise) {
    INFO(name);
    CHECK(accepts(name, {i64, i64}, i64));
    CHECK(accepts(name, {b1, b1}, b1));
    CHECK(type(name, {f32, f32}).error == "T." + name + " expects integer or bool arguments, not float32");
  }
  CHECK(accepts("bitwise_not", {i8}, i8));
  CHECK(accepts("bitwise_not", {DataType::boolean(4)}, DataType::boolean(4)));
  CHECK(rejects("bitwise_not", {f64}));
  // The operators name themselves in messages.
  CHECK(typeIntrinsicCall(row("shift_left"), std::vector<DataType>{f32, f32}, std::nullopt, "<<").error ==
        "'<<' expects integer operands, not float32");
  CHECK(typeIntrinsicCall(row("bitwise_not"), std::vector<DataType>{f32}, std::nullopt, "~").error ==
        "'~' expects an integer or bool operand, not float32");
  for (const char *name : {"likely", "assume"}) {
    CHECK(accepts(name, {b1}, b1));
    CHECK(type(name, {i32}).error == std::string("T.") + name + " expects a bool argument, not int32");
  }
}

TEST_CASE("if_then_else, extern calls, reinterpret and q_multiply_shift", "[ir][intrinsics]") {
  CHECK(accepts("if_then_else", {b1, f32, f32}, f32));
  CHECK(accepts("if_then_else", {b1, f32.withLanes(4), f32.withLanes(4)}, f32.withLanes(4)));
  CHECK(accepts("if_then_else", {DataType::boolean(4), i8.withLanes(4), i8.withLanes(4)}, i8.withLanes(4)));
  CHECK(rejects("if_then_else", {DataType::boolean(2), f32.withLanes(4), f32.withLanes(4)}));
  CHECK(rejects("if_then_else", {i32, f32, f32}));
  CHECK(rejects("if_then_else", {b1, f32, f64}));

  const DataType handle = DataType::handle();
  CHECK(accepts("call_extern", {handle}, f32, f32)); // the name only
  CHECK(accepts("call_pure_extern", {handle, f32, i32, handle}, i64, i64));
  CHECK(rejects("call_extern", {}, f32));
  CHECK(rejects("call_extern", {f32}, f32)); // the first argument is the function's name
  CHECK(rejects("call_extern", {handle}));   // the result type is declared
  CHECK(intrinsicArity(row("call_extern")).second == SIZE_MAX);

  CHECK(accepts("reinterpret", {i32}, f32, f32));
  CHECK(accepts("reinterpret", {f16.withLanes(4)}, i64, i64)); // 64 bits either way
  CHECK(accepts("reinterpret", {i64}, f32.withLanes(2), f32.withLanes(2)));
  CHECK(type("reinterpret", {i32}, f64).error == "T.reinterpret cannot reinterpret int32 (32 bits) as float64 (64 bits)");
  CHECK(rejects("reinterpret", {b1}, b1));
  // A scalable vector has as many bits as a fixed one only for one vscale.
  const DataType sve = DataType(DataType::Code::Float, 32, 4, true);
  CHECK(sve.str() == "float32xvscalex4");
  CHECK(DataType::parse("int32xvscalex4") == DataType(DataType::Code::Int, 32, 4, true));
  CHECK(rejects("reinterpret", {sve}, f32.withLanes(4)));
  CHECK(accepts("reinterpret", {sve}, DataType(DataType::Code::Int, 32, 4, true), DataType(DataType::Code::Int, 32, 4, true)));

  CHECK(accepts("vscale", {}, i32));
  CHECK(rejects("vscale", {i32}));
  CHECK(intrinsicArity(row("vscale")) == std::pair<size_t, size_t>(0, 0));

  CHECK(accepts("q_multiply_shift", {i32, i32, i32, i32}, i32));
  CHECK(accepts("q_multiply_shift", {i32.withLanes(4), i32.withLanes(4), i32.withLanes(4), i32.withLanes(4)},
                i32.withLanes(4)));
  CHECK(type("q_multiply_shift", {i32, i64, i32, i32}).error == "T.q_multiply_shift expects int32 arguments, not int64");
  CHECK(type("q_multiply_shift", {i32, i64, i32, i32}).argument == 1);
  CHECK(rejects("q_multiply_shift", {i32, i32, i32}));
  CHECK(rejects("q_multiply_shift", {i32.withLanes(4), i32, i32, i32}));
  const DataType b1x4 = DataType::boolean(4), i32x4 = i32.withLanes(4);
  CHECK(accepts("q_multiply_shift_per_axis", {i32, i32, i32, i32, i32, b1, b1}, i32));
  CHECK(accepts("q_multiply_shift_per_axis", {i32x4, i32x4, i32x4, i32x4, i32x4, b1x4, b1x4}, i32x4));
  CHECK(type("q_multiply_shift_per_axis", {i32, i32, i32, i32, i32, i32, b1}).error ==
        "T.q_multiply_shift_per_axis expects bool argument 6, not int32");
  CHECK(rejects("q_multiply_shift_per_axis", {i32, i32, i32, i32, i32, b1}));
  CHECK(hasDeclaredType(row("reinterpret")));
  CHECK(hasDeclaredType(row("call_pure_extern")));
  CHECK_FALSE(hasDeclaredType(row("q_multiply_shift")));
}

TEST_CASE("effects and lane-wise application follow TVM's call effect kinds", "[ir][intrinsics]") {
  for (const IntrinsicInfo &info : intrinsicTable()) {
    std::string name(info.name);
    INFO(name);
    const bool gpu = std::find(kGpu.begin(), kGpu.end(), name) != kGpu.end();
    CHECK(isGpuBuiltin(info) == gpu);
    CallEffect expected = name == "call_extern" || gpu ? CallEffect::Opaque
                          : name == "assume"          ? CallEffect::EmbedInfo
                          : name == "likely"    ? CallEffect::ExprAnnotation
                                                : CallEffect::Pure;
    CHECK(info.effect == expected);
    bool lanewise = name != "call_extern" && name != "call_pure_extern" && name != "assume" && name != "vscale" && !gpu;
    CHECK(info.lanewise == lanewise);
  }
  Expr x = VarNode::make(Symbol("x"), i32);
  Expr wide = VarNode::make(Symbol("w"), i64);
  CHECK(appliesLanewise(*CallNode::make(f32, Symbol("reinterpret"), {x}).as<CallNode>()));
  CHECK_FALSE(appliesLanewise(*CallNode::make(f32.withLanes(2), Symbol("reinterpret"), {wide}).as<CallNode>()));
  CHECK(appliesLanewise(*CallNode::make(f32, Symbol("exp"), {FloatImmNode::make(f32, 1)}).as<CallNode>()));
}

TEST_CASE("the math rows compute libm's functions; round is half to even", "[ir][intrinsics]") {
  struct Expect {
    const char *name;
    double (*f)(double);
    float (*g)(float);
  };
  const Expect unary[] = {{"exp", [](double x) { return std::exp(x); }, [](float x) { return std::exp(x); }},
                          {"exp2", [](double x) { return std::exp2(x); }, [](float x) { return std::exp2(x); }},
                          {"log", [](double x) { return std::log(x); }, [](float x) { return std::log(x); }},
                          {"log2", [](double x) { return std::log2(x); }, [](float x) { return std::log2(x); }},
                          {"log10", [](double x) { return std::log10(x); }, [](float x) { return std::log10(x); }},
                          {"log1p", [](double x) { return std::log1p(x); }, [](float x) { return std::log1p(x); }},
                          {"sqrt", [](double x) { return std::sqrt(x); }, [](float x) { return std::sqrt(x); }},
                          {"erf", [](double x) { return std::erf(x); }, [](float x) { return std::erf(x); }},
                          {"sin", [](double x) { return std::sin(x); }, [](float x) { return std::sin(x); }},
                          {"cos", [](double x) { return std::cos(x); }, [](float x) { return std::cos(x); }},
                          {"asin", [](double x) { return std::asin(x); }, [](float x) { return std::asin(x); }},
                          {"acos", [](double x) { return std::acos(x); }, [](float x) { return std::acos(x); }},
                          {"atan", [](double x) { return std::atan(x); }, [](float x) { return std::atan(x); }},
                          {"sinh", [](double x) { return std::sinh(x); }, [](float x) { return std::sinh(x); }},
                          {"cosh", [](double x) { return std::cosh(x); }, [](float x) { return std::cosh(x); }},
                          {"fabs", [](double x) { return std::fabs(x); }, [](float x) { return std::fabs(x); }},
                          {"floor", [](double x) { return std::floor(x); }, [](float x) { return std::floor(x); }},
                          {"ceil", [](double x) { return std::ceil(x); }, [](float x) { return std::ceil(x); }},
                          {"trunc", [](double x) { return std::trunc(x); }, [](float x) { return std::trunc(x); }}};
  for (const Expect &e : unary) {
    const IntrinsicInfo &info = row(e.name);
    INFO(e.name);
    REQUIRE(info.eval == IntrinsicEval::Math);
    for (double x : {0.375, 0.8125}) {
      CHECK(info.f64(x) == e.f(x));
      CHECK(info.f32(static_cast<float>(x)) == e.g(static_cast<float>(x)));
    }
  }
  CHECK(row("pow").f64x2(1.5, 2.0) == 2.25);
  CHECK(row("atan2").f64x2(1.0, 1.0) == std::atan(1.0));
  CHECK(row("fmod").f32x2(5.5f, 2.0f) == 1.5f);
  CHECK(row("copysign").f64x2(2.0, -0.0) == -2.0);
  // TVM: tir.round lowers to llvm.nearbyint (and folds constants with std::nearbyint).
  for (const char *name : {"round", "nearbyint"}) {
    CHECK(row(name).f32(2.5f) == 2.0f);
    CHECK(row(name).f32(3.5f) == 4.0f);
    CHECK(row(name).f64(-2.5) == -2.0);
    CHECK(row(name).f64(0.5000001) == 1.0);
  }
  for (const char *name : {"exp10", "rsqrt", "sigmoid", "tan", "tanh", "q_multiply_shift", "q_multiply_shift_per_axis"})
    CHECK(row(name).eval == IntrinsicEval::Expand);
}

TEST_CASE("CallNode::make checks calls of the table's intrinsics", "[ir][intrinsics]") {
  Expr x = VarNode::make(Symbol("x"), f32), n = VarNode::make(Symbol("n"), i32);
  CHECK(CallNode::make(f32, Symbol("exp"), {x}).as<CallNode>()->intrinsic == &row("exp"));
  CHECK_THROWS_AS(CallNode::make(f32, Symbol("exp"), {n}), IRTypeError);
  CHECK_THROWS_AS(CallNode::make(i32, Symbol("exp"), {x}), IRTypeError); // wrong result type
  CHECK_THROWS_AS(CallNode::make(f32, Symbol("pow"), {x}), IRTypeError);
  CHECK_THROWS_AS(CallNode::make(i32, Symbol("shift_left"), {n, x}), IRTypeError);
  CHECK_THROWS_AS(CallNode::make(f32, Symbol("call_extern"), {x}), IRTypeError);
  CHECK(CallNode::make(b1, Symbol("isnan"), {x})->type == b1);
  Expr sync = CallNode::make(i32, Symbol("tvm_storage_sync"), {StringImmNode::make("shared")});
  CHECK(sync.as<CallNode>()->intrinsic == &row("tvm_storage_sync"));
  // Names the table does not know are kept as they are (target builtins).
  Expr other = CallNode::make(i32, Symbol("tvm_unknown_builtin"), {StringImmNode::make("shared")});
  CHECK(other.as<CallNode>()->intrinsic == nullptr);
}

TEST_CASE("GPU builtins: barriers, reductions and the warp operations TVM lowers CUDA reductions to",
          "[ir][intrinsics]") {
  CHECK(accepts("tvm_storage_sync", {handle}, i32));
  CHECK(rejects("tvm_storage_sync", {i32}));
  CHECK(isStatementIntrinsic(row("tvm_storage_sync")));
  CHECK(isStatementIntrinsic(row("tvm_thread_allreduce")));
  CHECK(accepts("tvm_thread_allreduce", {u32, f32, b1, f32, i32}, handle));
  CHECK(rejects("tvm_thread_allreduce", {u32, f32, b1}));
  // (uint32 mask, value, lane or delta, width, warp size) -> the value's type
  for (const char *name : {"tvm_warp_shuffle", "tvm_warp_shuffle_up", "tvm_warp_shuffle_down"}) {
    INFO(name);
    CHECK(isWarpShuffle(row(name)));
    CHECK_FALSE(isStatementIntrinsic(row(name)));
    CHECK(accepts(name, {u32, f32, i32, i32, i32}, f32));
    CHECK(accepts(name, {u32, i8, i32, i32, i32}, i8));
    CHECK(accepts(name, {u32, f16, i64, i32, i32}, f16));
    CHECK(rejects(name, {i32, f32, i32, i32, i32})); // the mask is a uint32
    CHECK(rejects(name, {u32, f32.withLanes(4), i32, i32, i32}));
    CHECK(rejects(name, {u32, b1, i32, i32, i32}));
    CHECK(rejects(name, {u32, f32, f32, i32, i32}));
    CHECK(rejects(name, {u32, f32, i32, i32}));
  }
  CHECK(type("tvm_warp_shuffle_down", {i32, f32, i32, i32, i32}).error ==
        "the mask of T.tvm_warp_shuffle_down is a uint32, not int32");
  CHECK(accepts("tvm_warp_activemask", {}, u32));
  CHECK(rejects("tvm_warp_activemask", {u32}));
  CHECK_FALSE(isWarpShuffle(row("tvm_warp_activemask")));
}

TEST_CASE("composite intrinsics expand into the table's simpler operations", "[ir][intrinsics]") {
  Expr x = VarNode::make(Symbol("x"), f32.withLanes(4));
  auto expand = [&](const char *name) {
    Expr call = CallNode::make(x->type, Symbol(name), {x});
    return expandIntrinsic(*call.as<CallNode>());
  };
  // 1 / sqrt(x): a division whose divisor calls sqrt, constants broadcast to the lanes.
  Expr rsqrt = expand("rsqrt");
  REQUIRE(rsqrt.as<BinaryNode>());
  CHECK(rsqrt.as<BinaryNode>()->op == BinaryOp::Div);
  CHECK(rsqrt.as<BinaryNode>()->a.as<BroadcastNode>());
  CHECK(rsqrt.as<BinaryNode>()->b.as<CallNode>()->op == Symbol("sqrt"));
  CHECK(rsqrt->type == x->type);
  // exp(x * 2.302585093): TVM's constant, not ln(10).
  Expr exp10 = expand("exp10");
  REQUIRE(exp10.as<CallNode>());
  CHECK(exp10.as<CallNode>()->op == Symbol("exp"));
  const auto *product = exp10.as<CallNode>()->args[0].as<BinaryNode>();
  REQUIRE(product);
  CHECK(product->b.as<BroadcastNode>()->value.as<FloatImmNode>()->value == 2.302585093);
  // tanh: a select on x >= 0 of two quotients.
  Expr tanh = expand("tanh");
  const ExprNode *body = tanh.get();
  while (const auto *let = static_cast<const LetNode *>(body->kind() == ExprKind::Let ? body : nullptr))
    body = let->body.get();
  CHECK(body->kind() == ExprKind::Select);
  CHECK(!expand("exp")); // direct spellings have no expansion
}
