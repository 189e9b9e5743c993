// The rows of the intrinsic table and the typing rules. Semantics follow TVM's LLVM build
// (its primary CPU target): round and nearbyint round half to even (llvm.nearbyint), tanh,
// tan and exp10 are TVM's expansions, the other transcendental functions are libm's float or
// double functions (docs/intrinsics.md lists each row).
#include "ir/intrinsics.h"

#include <array>
#include <cmath>
#include <unordered_map>

namespace tirlower {

namespace {

using Id = IntrinsicId;
using Rule = TypeRule;
using Effect = CallEffect;
using Eval = IntrinsicEval;
using Level = OperatorLevel;

// Rows by kind. The lambdas give each libm function its float and double overloads.
#define TL_UNARY(fn) +[](float x) { return std::fn(x); }, +[](double x) { return std::fn(x); }
#define TL_BINARY(fn) +[](float x, float y) { return std::fn(x, y); }, +[](double x, double y) { return std::fn(x, y); }
#define TL_NONE nullptr, nullptr, nullptr, nullptr

// A float -> float libm function with the same name in C, OpenCL C and LLVM's libm call.
constexpr IntrinsicInfo libmUnary(Id id, std::string_view name, float (*f)(float), double (*d)(double),
                                  std::string_view llvm) {
  return {id,      name, Rule::FloatUnary, Effect::Pure, true, Eval::Math, f, d, nullptr, nullptr, nullptr, name, false,
          name,    llvm, Level::None,      ""};
}

constexpr IntrinsicInfo libmBinary(Id id, std::string_view name, float (*f)(float, float),
                                   double (*d)(double, double), std::string_view llvm) {
  return {id,   name, Rule::FloatBinary, Effect::Pure, true, Eval::Math, nullptr, nullptr, f, d, nullptr, name, false,
          name, llvm, Level::None,       ""};
}

// Computed by expandIntrinsic everywhere but OpenCL C, which has the builtin `opencl` (empty:
// expanded there too).
constexpr IntrinsicInfo expanded(Id id, std::string_view name, Rule rule, std::string_view opencl) {
  return {id, name, rule, Effect::Pure, true, Eval::Expand, TL_NONE, nullptr, "", false, opencl, "", Level::None, ""};
}

constexpr IntrinsicInfo predicate(Id id, std::string_view name, bool (*test)(double)) {
  return {id,   name, Rule::FloatPredicate, Effect::Pure, true, Eval::Math, TL_NONE, test, name, true,
          name, "",   Level::None,          ""};
}

// Integer and bool operations the emitters spell as operators; TVMScript prints them so too.
constexpr IntrinsicInfo bitOperator(Id id, std::string_view name, Rule rule, Level level, std::string_view text) {
  return {id, name, rule, Effect::Pure, true, Eval::Special, TL_NONE, nullptr, "", false, "", "", level, text};
}

constexpr IntrinsicInfo special(Id id, std::string_view name, Rule rule, Effect effect, bool lanewise) {
  return {id, name, rule, effect, lanewise, Eval::Special, TL_NONE, nullptr, "", false, "", "", Level::None, ""};
}

bool isNan(double x) { return std::isnan(x); }
bool isInf(double x) { return std::isinf(x); }
bool isFinite(double x) { return std::isfinite(x); }

constexpr IntrinsicInfo kTable[] = {
    libmUnary(Id::Exp, "exp", TL_UNARY(exp), "llvm.exp"),
    libmUnary(Id::Exp2, "exp2", TL_UNARY(exp2), "llvm.exp2"),
    expanded(Id::Exp10, "exp10", Rule::FloatUnary, "exp10"),
    libmUnary(Id::Log, "log", TL_UNARY(log), "llvm.log"),
    libmUnary(Id::Log2, "log2", TL_UNARY(log2), "llvm.log2"),
    libmUnary(Id::Log10, "log10", TL_UNARY(log10), "llvm.log10"),
    libmUnary(Id::Log1p, "log1p", TL_UNARY(log1p), "libm"),
    libmUnary(Id::Sqrt, "sqrt", TL_UNARY(sqrt), "llvm.sqrt"),
    expanded(Id::Rsqrt, "rsqrt", Rule::FloatUnary, "rsqrt"),
    libmBinary(Id::Pow, "pow", TL_BINARY(pow), "llvm.pow"),
    expanded(Id::Tanh, "tanh", Rule::FloatUnary, "tanh"),
    expanded(Id::Sigmoid, "sigmoid", Rule::FloatUnary, ""),
    libmUnary(Id::Erf, "erf", TL_UNARY(erf), "libm"),
    libmUnary(Id::Sin, "sin", TL_UNARY(sin), "llvm.sin"),
    libmUnary(Id::Cos, "cos", TL_UNARY(cos), "llvm.cos"),
    expanded(Id::Tan, "tan", Rule::FloatUnary, "tan"),
    libmUnary(Id::Asin, "asin", TL_UNARY(asin), "libm"),
    libmUnary(Id::Acos, "acos", TL_UNARY(acos), "libm"),
    libmUnary(Id::Atan, "atan", TL_UNARY(atan), "libm"),
    libmBinary(Id::Atan2, "atan2", TL_BINARY(atan2), "libm"),
    libmUnary(Id::Sinh, "sinh", TL_UNARY(sinh), "libm"),
    libmUnary(Id::Cosh, "cosh", TL_UNARY(cosh), "libm"),
    libmUnary(Id::Fabs, "fabs", TL_UNARY(fabs), "llvm.fabs"),
    // abs: fabs on floats; integers wrap (abs of the minimum is the minimum), unsigned: itself.
    {Id::Abs, "abs", Rule::Numeric, Effect::Pure, true, Eval::Special, TL_UNARY(fabs), nullptr, nullptr, nullptr, "fabs", false, "fabs",
     "llvm.fabs", Level::None, ""},
    libmUnary(Id::Floor, "floor", TL_UNARY(floor), "llvm.floor"),
    libmUnary(Id::Ceil, "ceil", TL_UNARY(ceil), "llvm.ceil"),
    // Half to even, as TVM's LLVM build rounds (llvm.nearbyint); OpenCL C's rint.
    {Id::Round, "round", Rule::FloatUnary, Effect::Pure, true, Eval::Math, TL_UNARY(nearbyint), nullptr, nullptr, nullptr, "nearbyint",
     false, "rint", "llvm.nearbyint", Level::None, ""},
    {Id::Nearbyint, "nearbyint", Rule::FloatUnary, Effect::Pure, true, Eval::Math, TL_UNARY(nearbyint), nullptr,
     nullptr, nullptr, "nearbyint", false, "rint", "llvm.nearbyint", Level::None, ""},
    libmUnary(Id::Trunc, "trunc", TL_UNARY(trunc), "llvm.trunc"),
    predicate(Id::IsNan, "isnan", isNan),
    predicate(Id::IsInf, "isinf", isInf),
    predicate(Id::IsFinite, "isfinite", isFinite),
    // fmod is LLVM's frem (the emitter's own code).
    libmBinary(Id::Fmod, "fmod", TL_BINARY(fmod), ""),
    libmBinary(Id::Copysign, "copysign", TL_BINARY(copysign), "llvm.copysign"),
    special(Id::Likely, "likely", Rule::BoolUnary, Effect::ExprAnnotation, true),
    special(Id::Assume, "assume", Rule::BoolUnary, Effect::EmbedInfo, false),
    special(Id::IfThenElse, "if_then_else", Rule::IfThenElse, Effect::Pure, true),
    special(Id::CallExtern, "call_extern", Rule::Extern, Effect::Opaque, false),
    special(Id::CallPureExtern, "call_pure_extern", Rule::Extern, Effect::Pure, false),
    special(Id::Reinterpret, "reinterpret", Rule::Reinterpret, Effect::Pure, true),
    expanded(Id::QMultiplyShift, "q_multiply_shift", Rule::QMultiplyShift, ""),
    expanded(Id::QMultiplyShiftPerAxis, "q_multiply_shift_per_axis", Rule::QMultiplyShiftPerAxis, ""),
    bitOperator(Id::ShiftLeft, "shift_left", Rule::IntegerBinary, Level::Shift, " << "),
    bitOperator(Id::ShiftRight, "shift_right", Rule::IntegerBinary, Level::Shift, " >> "),
    bitOperator(Id::BitwiseAnd, "bitwise_and", Rule::BitwiseBinary, Level::BitAnd, " & "),
    bitOperator(Id::BitwiseOr, "bitwise_or", Rule::BitwiseBinary, Level::BitOr, " | "),
    bitOperator(Id::BitwiseXor, "bitwise_xor", Rule::BitwiseBinary, Level::BitXor, " ^ "),
    bitOperator(Id::BitwiseNot, "bitwise_not", Rule::BitwiseUnary, Level::Unary, "~"),
    // The lane multiplier of scalable vectors (Arm SVE's vscale): fixed by the target at run
    // time; the interpreter takes it as an option, the emitters reject it.
    special(Id::VScale, "vscale", Rule::VScale, Effect::Pure, false),
    // GPU builtins: opaque (no pass may drop, move or duplicate a barrier or a collective).
    special(Id::StorageSync, builtin::kStorageSync, Rule::StorageSync, Effect::Opaque, false),
    special(Id::ThreadAllreduce, builtin::kThreadAllreduce, Rule::ThreadAllreduce, Effect::Opaque, false),
    special(Id::WarpShuffle, builtin::kWarpShuffle, Rule::WarpShuffle, Effect::Opaque, false),
    special(Id::WarpShuffleUp, builtin::kWarpShuffleUp, Rule::WarpShuffle, Effect::Opaque, false),
    special(Id::WarpShuffleDown, builtin::kWarpShuffleDown, Rule::WarpShuffle, Effect::Opaque, false),
    special(Id::WarpActiveMask, builtin::kWarpActiveMask, Rule::WarpActiveMask, Effect::Opaque, false),
};

#undef TL_UNARY
#undef TL_BINARY
#undef TL_NONE

constexpr bool inIdOrder() {
  for (size_t k = 0; k < std::size(kTable); ++k)
    if (static_cast<size_t>(kTable[k].id) != k)
      return false;
  return static_cast<size_t>(Id::WarpActiveMask) + 1 == std::size(kTable);
}
static_assert(inIdOrder(), "the intrinsic table lists every IntrinsicId once, in order");

IntrinsicTyping failure(std::string message, int argument = -1) {
  IntrinsicTyping t;
  t.error = std::move(message);
  t.argument = argument;
  return t;
}

IntrinsicTyping success(DataType type) {
  IntrinsicTyping t;
  t.type = type;
  return t;
}

bool isFloatType(DataType t) {
  return t.isFloat();
}
bool isIntegerType(DataType t) {
  return t.isIntOrUInt();
}
bool isNumeric(DataType t) {
  return t.isFloat() || t.isIntOrUInt();
}
bool isBitwise(DataType t) {
  return t.isIntOrUInt() || t.isBool();
}
bool isBoolType(DataType t) {
  return t.isBool();
}

// How messages name the call: "T.exp", or the operator it was written with ("'<<'").
struct Spelling {
  std::string_view intrinsic; // "pow": messages say "T.pow"
  std::string_view op;        // "<<" when written as an operator
  bool isOperator() const { return !op.empty(); }
  // Built only for a message: typing a well-typed call allocates nothing.
  std::string name() const { return isOperator() ? std::string(op) : "T." + std::string(intrinsic); }
  std::string subject() const { return isOperator() ? "'" + name() + "'" : name(); }
};

// Two operands of one type satisfying `ok`; the result has that type.
IntrinsicTyping sameTypePair(const Spelling &who, std::span<const DataType> args, bool (*ok)(DataType),
                             const char *expected) {
  if (args[0] != args[1])
    return failure("operands of '" + who.name() + "' have different types: " + args[0].str() + " and " +
                   args[1].str());
  if (!ok(args[0]))
    return failure(who.subject() + " expects " + expected + (who.isOperator() ? " operands" : " arguments") + ", not " +
                   args[0].str());
  return success(args[0]);
}

IntrinsicTyping oneArgument(const Spelling &who, DataType arg, bool (*ok)(DataType), const char *expected,
                            DataType result) {
  if (!ok(arg))
    return failure(who.subject() + " expects " + expected + (who.isOperator() ? " operand" : " argument") + ", not " +
                       arg.str(),
                   0);
  return success(result);
}

// (uint32 mask, value, lane or delta, width, warp size) -> the value's type.
IntrinsicTyping typeWarpShuffle(const Spelling &who, std::span<const DataType> args) {
  static constexpr const char *kOperands[] = {"mask", "value", "lane", "width", "warp size"};
  if (args[0] != DataType::uint32())
    return failure("the mask of " + who.name() + " is a uint32, not " + args[0].str(), 0);
  if (!args[1].isScalar() || !(args[1].isIntOrUInt() || args[1].isFloat()))
    return failure(who.name() + " shuffles a scalar number, not " + args[1].str(), 1);
  for (int k = 2; k < 5; ++k)
    if (!args[k].isScalar() || !args[k].isIntOrUInt())
      return failure("the " + std::string(kOperands[k]) + " of " + who.name() + " is a scalar integer, not " +
                         args[k].str(),
                     k);
  return success(args[1]);
}

} // namespace

std::span<const IntrinsicInfo> intrinsicTable() {
  return kTable;
}

const IntrinsicInfo &intrinsicInfo(IntrinsicId id) {
  return kTable[static_cast<size_t>(id)];
}

const IntrinsicInfo *findIntrinsic(std::string_view name) {
  // TVM 0.27 makes shifts and bitwise operations nodes of their own and prints one whose
  // operator form would fold (two constants) by its node name: T.LShift(1, 4), T.BitwiseNot(7).
  struct Alias {
    std::string_view name;
    IntrinsicId id;
  };
  static constexpr Alias kNodeNames[] = {
      {"LShift", Id::ShiftLeft},       {"RShift", Id::ShiftRight},    {"BitwiseAnd", Id::BitwiseAnd},
      {"BitwiseOr", Id::BitwiseOr},    {"BitwiseXor", Id::BitwiseXor}, {"BitwiseNot", Id::BitwiseNot},
  };
  for (std::string_view prefix : {"tir.", "tirx."})
    if (name.substr(0, prefix.size()) == prefix)
      name.remove_prefix(prefix.size());
  for (const IntrinsicInfo &info : kTable)
    if (info.name == name)
      return &info;
  for (const Alias &alias : kNodeNames)
    if (alias.name == name)
      return &intrinsicInfo(alias.id);
  return nullptr;
}

const IntrinsicInfo *findIntrinsic(Symbol name) {
  // Symbols are interned: one lookup per distinct name, then by identity.
  thread_local std::unordered_map<Symbol, const IntrinsicInfo *> known;
  auto [it, inserted] = known.try_emplace(name, nullptr);
  if (inserted)
    it->second = findIntrinsic(name.view());
  return it->second;
}

bool hasDeclaredType(const IntrinsicInfo &info) {
  return info.rule == TypeRule::Extern || info.rule == TypeRule::Reinterpret;
}

std::pair<size_t, size_t> intrinsicArity(const IntrinsicInfo &info) {
  switch (info.rule) {
  case Rule::FloatUnary:
  case Rule::FloatPredicate:
  case Rule::Numeric:
  case Rule::BitwiseUnary:
  case Rule::BoolUnary:
  case Rule::Reinterpret: return {1, 1};
  case Rule::FloatBinary:
  case Rule::IntegerBinary:
  case Rule::BitwiseBinary: return {2, 2};
  case Rule::IfThenElse: return {3, 3};
  case Rule::QMultiplyShift: return {4, 4};
  case Rule::QMultiplyShiftPerAxis: return {7, 7};
  case Rule::Extern: return {1, SIZE_MAX};
  case Rule::VScale:
  case Rule::WarpActiveMask: return {0, 0};
  case Rule::StorageSync: return {1, 1};
  case Rule::ThreadAllreduce: return {4, SIZE_MAX};
  case Rule::WarpShuffle: return {5, 5};
  }
  return {0, 0};
}

IntrinsicTyping typeIntrinsicCall(const IntrinsicInfo &info, std::span<const DataType> args,
                                  std::optional<DataType> declared, std::string_view spelled) {
  const Spelling who{info.name, spelled};
  auto [least, most] = intrinsicArity(info);
  if (args.size() < least || args.size() > most) {
    std::string count = least == most          ? std::to_string(least)
                        : most == SIZE_MAX     ? "at least " + std::to_string(least)
                                               : std::to_string(least) + " to " + std::to_string(most);
    return failure(who.name() + " takes " + count + " argument" + (count == "1" ? "" : "s") + ", not " +
                   std::to_string(args.size()));
  }
  if (hasDeclaredType(info) && !declared)
    return failure(who.name() + " needs its result type");
  switch (info.rule) {
  case Rule::FloatUnary: return oneArgument(who, args[0], isFloatType, "a floating-point", args[0]);
  case Rule::FloatPredicate:
    return oneArgument(who, args[0], isFloatType, "a floating-point",
                       DataType::boolean().withLanesOf(args[0]));
  case Rule::Numeric: return oneArgument(who, args[0], isNumeric, "a numeric", args[0]);
  case Rule::BitwiseUnary: return oneArgument(who, args[0], isBitwise, "an integer or bool", args[0]);
  case Rule::BoolUnary: return oneArgument(who, args[0], isBoolType, "a bool", args[0]);
  case Rule::FloatBinary: return sameTypePair(who, args, isFloatType, "floating-point");
  case Rule::IntegerBinary: return sameTypePair(who, args, isIntegerType, "integer");
  case Rule::BitwiseBinary: return sameTypePair(who, args, isBitwise, "integer or bool");
  case Rule::IfThenElse:
    if (!args[0].isBool())
      return failure("condition of T.if_then_else must be bool, not " + args[0].str(), 0);
    if (args[1] != args[2])
      return failure("T.if_then_else branches have different types: " + args[1].str() + " and " + args[2].str());
    if (args[0].isVector() && !args[0].sameLanes(args[1]))
      return failure("condition of T.if_then_else has " + std::to_string(args[0].lanes()) +
                     " lanes but the values have " + std::to_string(args[1].lanes()));
    return success(args[1]);
  case Rule::Extern:
    if (!args[0].isHandle())
      return failure(who.name() + " needs the function name as its first argument", 0);
    return success(*declared);
  case Rule::Reinterpret: {
    int64_t from = int64_t(args[0].bits()) * args[0].lanes(), to = int64_t(declared->bits()) * declared->lanes();
    if (args[0].isScalable() != declared->isScalable())
      from = -1; // a scalable vector has as many bits as a fixed one only for one vscale
    if (args[0].isHandle() || declared->isHandle() || args[0].isBool() || declared->isBool() || from != to)
      return failure(who.name() + " cannot reinterpret " + args[0].str() + " (" + std::to_string(from) +
                         " bits) as " + declared->str() + " (" + std::to_string(to) + " bits)",
                     0);
    return success(*declared);
  }
  case Rule::QMultiplyShift:
    for (size_t k = 0; k < args.size(); ++k) {
      if (args[k].element() != DataType::int32())
        return failure(who.name() + " expects int32 arguments, not " + args[k].str(), static_cast<int>(k));
      if (!args[k].sameLanes(args[0]))
        return failure("arguments of " + who.name() + " have different types: " + args[0].str() + " and " +
                       args[k].str());
    }
    return success(args[0]);
  case Rule::QMultiplyShiftPerAxis:
    for (size_t k = 0; k < args.size(); ++k) {
      DataType expected = k < 5 ? DataType::int32() : DataType::boolean();
      if (args[k].element() != expected)
        return failure(who.name() + " expects " + (k < 5 ? "int32" : "bool") + " argument " + std::to_string(k + 1) +
                           ", not " + args[k].str(),
                       static_cast<int>(k));
      if (!args[k].sameLanes(args[0]))
        return failure("arguments of " + who.name() + " have different lane counts: " + args[0].str() + " and " +
                       args[k].str());
    }
    return success(args[0]);
  case Rule::VScale: return success(DataType::int32());
  case Rule::StorageSync:
    if (!args[0].isHandle())
      return failure(who.name() + " takes the storage scope to synchronise, such as \"shared\"", 0);
    return success(DataType::int32());
  case Rule::ThreadAllreduce: return success(DataType::handle()); // the parser checks its operands
  case Rule::WarpShuffle: return typeWarpShuffle(who, args);
  case Rule::WarpActiveMask: return success(DataType::uint32());
  }
  return failure("unknown intrinsic rule");
}

bool isGpuBuiltin(const IntrinsicInfo &info) {
  return info.rule == Rule::StorageSync || info.rule == Rule::ThreadAllreduce || info.rule == Rule::WarpShuffle ||
         info.rule == Rule::WarpActiveMask;
}

bool isStatementIntrinsic(const IntrinsicInfo &info) {
  return info.rule == Rule::StorageSync || info.rule == Rule::ThreadAllreduce;
}

bool isWarpShuffle(const IntrinsicInfo &info) {
  return info.rule == Rule::WarpShuffle;
}

bool appliesLanewise(const CallNode &call) {
  const IntrinsicInfo *info = call.intrinsic;
  if (!info || !info->lanewise)
    return false;
  if (info->id == IntrinsicId::Reinterpret)
    return call.args[0]->type.bits() == call.type.bits();
  return true;
}

} // namespace tirlower
