// Lowering of expression ASTs to typed IR: names, literals and their typing, operators.
// Buffer accesses and slices are lower_access.cpp.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>

#include "ir/edit_distance.h"
#include "ir/vscale.h"
#include "parse/parser_impl.h"

namespace tirlower {

namespace {

bool fitsInt32(int64_t v) {
  return v >= INT32_MIN && v <= INT32_MAX;
}
DataType literalIntType(int64_t v) {
  return fitsInt32(v) ? DataType::int32() : DataType::int64();
}

const char *opText(Tok op) {
  switch (op) {
  case Tok::Plus: return "+";
  case Tok::Minus: return "-";
  case Tok::Star: return "*";
  case Tok::Slash: return "/";
  case Tok::SlashSlash: return "//";
  case Tok::Percent: return "%";
  case Tok::Less: return "<";
  case Tok::LessEqual: return "<=";
  case Tok::Greater: return ">";
  case Tok::GreaterEqual: return ">=";
  case Tok::EqualEqual: return "==";
  case Tok::NotEqual: return "!=";
  case Tok::LessLess: return "<<";
  case Tok::GreaterGreater: return ">>";
  case Tok::Amp: return "&";
  case Tok::Pipe: return "|";
  case Tok::Caret: return "^";
  default: return "?";
  }
}

// The intrinsic an operator token stands for (TVM builds `a << b` as T.shift_left(a, b)), or
// null for the arithmetic operators.
const IntrinsicInfo *bitwiseIntrinsic(Tok op) {
  switch (op) {
  case Tok::LessLess: return &intrinsicInfo(IntrinsicId::ShiftLeft);
  case Tok::GreaterGreater: return &intrinsicInfo(IntrinsicId::ShiftRight);
  case Tok::Amp: return &intrinsicInfo(IntrinsicId::BitwiseAnd);
  case Tok::Pipe: return &intrinsicInfo(IntrinsicId::BitwiseOr);
  case Tok::Caret: return &intrinsicInfo(IntrinsicId::BitwiseXor);
  default: return nullptr;
  }
}

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t floorMod(int64_t a, int64_t b) {
  return a - floorDiv(a, b) * b;
}

} // namespace

int64_t Parser::intLiteral(uint32_t id) {
  std::string_view digits = nodeText(id); // an Int token: decimal digits only
  int64_t value = 0;
  if (digits.size() <= 18) { // fits int64 whatever the digits
    for (char c : digits)
      value = value * 10 + (c - '0');
    return value;
  }
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size())
    fail(nodeRange(id),
         "integer literal too large: " + std::string(digits.substr(0, 40)) + (digits.size() > 40 ? "..." : ""));
  return value;
}

double Parser::floatLiteral(uint32_t id) {
  std::string digits(nodeText(id));
  if (digits.front() == '.')
    digits.insert(digits.begin(), '0');
  double value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec == std::errc::result_out_of_range || !std::isfinite(value))
    fail(nodeRange(id), "floating-point literal out of range");
  if (ec != std::errc() || end != digits.data() + digits.size())
    fail(nodeRange(id), "invalid floating-point literal");
  return value;
}

std::string Parser::stringLiteral(uint32_t id) {
  if (node(id).kind != Ast::String)
    fail(nodeRange(id), "expected a string");
  bool ok = true;
  std::string value = decodeString(nodeText(id), ok);
  if (!ok)
    fail(nodeRange(id), "invalid escape sequence in string literal");
  return value;
}

DataType Parser::dtypeArgument(uint32_t id) {
  if (node(id).kind != Ast::String)
    fail(nodeRange(id), "expected a dtype string such as \"float32\"");
  std::string name = stringLiteral(id);
  std::optional<DataType> type = DataType::parse(name);
  if (!type)
    fail(nodeRange(id), "unknown dtype '" + name + "'");
  return *type;
}

int64_t Parser::constantInt(uint32_t id, const char *what) {
  Typed value = lower(id);
  const int64_t *constant = asConstInt(value.expr);
  if (!constant || value.expr->type.isBool())
    fail(nodeRange(id), std::string(what) + " must be a constant integer");
  return *constant;
}

std::pair<int64_t, bool> Parser::laneCount(uint32_t id, const char *what) {
  Typed value = lower(id);
  if (std::optional<int64_t> k = scalableMultiplier(value.expr)) {
    if (*k < 1 || *k > 65535)
      fail(nodeRange(id), std::string(what) + " must be T.vscale() times a constant between 1 and 65535");
    return {*k, true};
  }
  const int64_t *constant = asConstInt(value.expr);
  if (!constant || value.expr->type.isBool())
    fail(nodeRange(id), std::string(what) + " must be a constant integer or T.vscale() * a constant");
  return {*constant, false};
}

void Parser::undefinedName(uint32_t id) {
  std::string_view name = nodeText(id);
  ClosestName closest(name, 2);
  for (std::string_view candidate : scope_.visibleNames())
    closest.consider(candidate);
  std::string_view best = closest.best();
  std::string message = "use of undefined name '" + std::string(name) + "'";
  if (best.empty())
    fail(nodeRange(id), message);
  failWithNote(nodeRange(id), message, nodeRange(id), "did you mean '" + std::string(best) + "'?");
}

Typed Parser::lowerName(uint32_t id) {
  const Binding *binding = scope_.find(nodeText(id));
  if (!binding)
    undefinedName(id);
  switch (binding->kind) {
  case Binding::Kind::Var:
    if (!func_.freeVars.empty())
      checkFreeVarUse(id, binding->var.get());
    return {binding->var, false};
  case Binding::Kind::Poisoned: failSilently();
  case Binding::Kind::Buffer: break;
  }
  fail(nodeRange(id), "buffer '" + std::string(nodeText(id)) + "' cannot be used as a value; index it or use '" +
                          std::string(nodeText(id)) + ".data'");
}

Expr Parser::typedLiteral(const Typed &literal, DataType type, SourceRange where) {
  if (type.isVector()) {
    Expr scalar = typedLiteral(literal, type.element(), where);
    return checked(where, [&] { return BroadcastNode::make(scalar, type.lanes(), where, type.isScalable()); });
  }
  const Expr &e = literal.expr;
  auto checkRange = [&](double value) {
    if (std::isfinite(value) && std::fabs(value) >= floatOverflowThreshold(type)) {
      char text[32];
      auto written = std::to_chars(text, text + sizeof text, value); // the shortest form that reads back
      fail(where, "the value " + std::string(text, written.ptr) + " does not fit " + type.str() +
                      " (it would round to infinity; write T." + type.str() + "(\"inf\") for an infinity)");
    }
  };
  auto sameLoc = [&](const SourceRange &loc) {
    return loc.fileId == where.fileId && loc.begin == where.begin && loc.end == where.end;
  };
  if (const auto *i = e.as<IntImmNode>()) {
    if (i->type == type && sameLoc(i->loc))
      return e; // the node this would build (most literals already have the type they get)
    if (type.isFloat()) {
      checkRange(static_cast<double>(i->value));
      return FloatImmNode::make(type, static_cast<double>(i->value), where);
    }
    if (type.isIntOrUInt())
      return checked(where, [&] { return IntImmNode::make(type, i->value, where); });
    fail(where, "cannot use the integer literal " + std::to_string(i->value) + " as a value of type " + type.str());
  }
  const auto *f = e.as<FloatImmNode>();
  if (f && type.isFloat()) {
    checkRange(f->value);
    if (f->type == type && sameLoc(f->loc))
      return e;
    return FloatImmNode::make(type, f->value, where);
  }
  fail(where, "cannot use a floating-point literal as a value of type " + type.str());
}

Expr Parser::defaultTyped(const Typed &value, SourceRange) {
  return value.expr;
}

std::pair<Expr, Expr> Parser::unify(const Typed &a, const Typed &b, SourceRange where, std::string_view op) {
  if (a.literal && b.literal) {
    DataType ta = a.expr->type, tb = b.expr->type;
    DataType t = ta.isFloat() || tb.isFloat()                           ? DataType::float32()
                 : (ta == DataType::int64() || tb == DataType::int64()) ? DataType::int64()
                                                                        : DataType::int32();
    return {typedLiteral(a, t, a.expr->loc), typedLiteral(b, t, b.expr->loc)};
  }
  if (a.literal)
    return {typedLiteral(a, b.expr->type, a.expr->loc), b.expr};
  if (b.literal)
    return {a.expr, typedLiteral(b, a.expr->type, b.expr->loc)};
  if (a.expr->type != b.expr->type)
    fail(where, "operands of '" + std::string(op) + "' have different types: " + a.expr->type.str() + " and " +
                    b.expr->type.str());
  return {a.expr, b.expr};
}

Expr Parser::makeBinary(BinaryOp op, const Typed &a, const Typed &b, SourceRange where, std::string_view opText) {
  std::pair<Expr, Expr> xY = unify(a, b, where, opText);
  Expr x = xY.first, y = xY.second;
  return checked(where, [&] { return BinaryNode::make(op, x, y, where); });
}

Expr Parser::lowerValue(uint32_t id) {
  return lower(id).expr;
}

Expr Parser::lowerAs(uint32_t id, DataType type) {
  Typed value = lower(id);
  if (value.literal)
    return typedLiteral(value, type, nodeRange(id));
  return value.expr;
}

Expr Parser::lowerIndex(uint32_t id) {
  Expr value = node(id).kind == Ast::Slice ? lowerSlice(id) : lowerValue(id);
  if (!value->type.isIntOrUInt())
    fail(nodeRange(id), "index must be an integer, not " + value->type.str());
  return value;
}

Expr Parser::lowerIfCondition(uint32_t id) {
  // An integer condition (`if i:`, which TVM reads) is true when it is not zero.
  Expr condition = lowerValue(id);
  if (condition->type.isIndex())
    return checked(nodeRange(id), [&] {
      return BinaryNode::make(BinaryOp::NE, condition, IntImmNode::make(condition->type, 0), nodeRange(id));
    });
  if (!condition->type.isBool())
    fail(nodeRange(id), "if condition must be bool, not " + condition->type.str());
  return condition;
}

Expr Parser::lowerBool(uint32_t id, const char *what) {
  Expr value = lowerValue(id);
  if (!value->type.isBool())
    fail(nodeRange(id), std::string(what) + " must be bool, not " + value->type.str());
  return value;
}

Typed Parser::lower(uint32_t id) {
  const AstNode n = node(id);
  SourceRange where = nodeRange(id);
  switch (n.kind) {
  case Ast::Int: {
    int64_t v = intLiteral(id);
    return {IntImmNode::make(literalIntType(v), v, where), true};
  }
  case Ast::Float: return {FloatImmNode::make(DataType::float32(), floatLiteral(id), where), true};
  case Ast::True: return {IntImmNode::make(DataType::boolean(), 1, where), false};
  case Ast::False: return {IntImmNode::make(DataType::boolean(), 0, where), false};
  case Ast::Name: return lowerName(id);
  case Ast::Attr: return lowerAttribute(id);
  case Ast::Subscript: return lowerSubscript(id);
  case Ast::Call: return lowerCall(id);
  case Ast::Binary: return lowerBinary(id);
  case Ast::Compare: return lowerCompare(id);
  case Ast::And:
  case Ast::Or: {
    Expr a = lowerBool(child(id, 0), n.kind == Ast::And ? "operand of 'and'" : "operand of 'or'");
    Expr b = lowerBool(child(id, 1), n.kind == Ast::And ? "operand of 'and'" : "operand of 'or'");
    return {checked(where,
                    [&] { return BinaryNode::make(n.kind == Ast::And ? BinaryOp::And : BinaryOp::Or, a, b, where); }),
            false};
  }
  case Ast::Not: {
    Expr a = lowerBool(child(id, 0), "operand of 'not'");
    return {checked(where, [&] { return NotNode::make(a, where); }), false};
  }
  case Ast::Invert: return lowerInvert(id);
  case Ast::Neg: return lowerNegation(id);
  case Ast::String: fail(where, "a string is not a value here");
  case Ast::None: fail(where, "'None' is not a value here");
  case Ast::Tuple:
  case Ast::List: fail(where, "a list or tuple is not a value here");
  case Ast::Dict: fail(where, "a dict is not a value here");
  case Ast::Lambda: fail(where, "a lambda is only allowed as an index map");
  case Ast::Slice: fail(where, "a slice is only allowed as a buffer index");
  case Ast::Keyword: fail(where, "unexpected keyword argument");
  case Ast::Empty: fail(where, "expected an expression");
  }
  fail(where, "unsupported expression");
}

// `B.data`, `B.elem_offset`; T.<name> and other attributes are not values.
Typed Parser::lowerAttribute(uint32_t id) {
  SourceRange where = nodeRange(id);
  if (builtinName(id) == "AXIS_SEPARATOR")
    fail(where, "T.AXIS_SEPARATOR is only allowed in the result list of an index map");
  uint32_t base = child(id, 0);
  std::string_view attr = nodeName(id);
  if (node(base).kind == Ast::Name && nodeText(base) != "T") {
    Buffer buffer = bufferNamed(base);
    if (attr == "data")
      return {buffer->data, false};
    if (attr == "elem_offset") {
      // A matched buffer's offset is the region's start, which only lowering the match computes.
      if (matchedWithoutOffset_.count(buffer.get()))
        fail(where, "the element offset of matched buffer '" + std::string(nodeText(base)) +
                        "' is set by T.match_buffer, and tirlower cannot read it as a value yet");
      return {buffer->elemOffset ? buffer->elemOffset : IntImmNode::make(DataType::int32(), 0, where), false};
    }
    if (attr == "shape")
      fail(where, "'" + std::string(nodeText(base)) + ".shape' must be indexed with a constant");
    fail(where, "buffer '" + std::string(nodeText(base)) + "' has no attribute '" + std::string(attr) + "'");
  }
  if (!builtinName(id).empty())
    fail(where, "'T." + std::string(attr) + "' is not a value; did you mean to call it?");
  fail(where, "unsupported attribute access");
}

// `~x`: Python's ~ on an integer literal (-x - 1), else T.bitwise_not.
Typed Parser::lowerInvert(uint32_t id) {
  SourceRange where = nodeRange(id);
  Typed v = lower(child(id, 0));
  if (v.literal) { // Python's ~ on an int: -x - 1
    const auto *i = v.expr.as<IntImmNode>();
    if (!i)
      fail(where, "bad operand type for unary ~: a floating-point literal");
    return {IntImmNode::make(literalIntType(~i->value), ~i->value, where), true};
  }
  uint32_t operand = child(id, 0);
  return {makeIntrinsicCall(intrinsicInfo(IntrinsicId::BitwiseNot), {v.expr}, std::nullopt, where, &operand, "~"),
          false};
}

// `-x`: a negated literal or constant, else x * -1.
Typed Parser::lowerNegation(uint32_t id) {
  SourceRange where = nodeRange(id);
  // -9223372036854775808 is INT64_MIN (T.min_value("int64") prints so), though its digits
  // alone do not fit.
  if (node(child(id, 0)).kind == Ast::Int && nodeText(child(id, 0)) == "9223372036854775808")
    return {IntImmNode::make(DataType::int64(), INT64_MIN, where), true};
  Typed v = lower(child(id, 0));
  if (v.literal) {
    if (const auto *i = v.expr.as<IntImmNode>()) {
      if (i->value == INT64_MIN)
        fail(where, "integer literal too large");
      return {IntImmNode::make(literalIntType(-i->value), -i->value, where), true};
    }
    return {FloatImmNode::make(DataType::float32(), -v.expr.as<FloatImmNode>()->value, where), true};
  }
  if (const auto *i = v.expr.as<IntImmNode>(); i && !v.expr->type.isBool() && i->value != INT64_MIN)
    return {checked(where, [&] { return IntImmNode::make(v.expr->type, -i->value, where); }), false};
  if (const auto *f = v.expr.as<FloatImmNode>())
    return {FloatImmNode::make(v.expr->type, -f->value, where), false};
  Typed minusOne{IntImmNode::make(DataType::int32(), -1, where), true};
  return {makeBinary(BinaryOp::Mul, v, minusOne, where, "-"), false};
}

namespace {
struct OperatorCall {
  std::string_view name;
  BinaryOp op;
};
// The operator nodes TVM prints as calls when it does not fold them (`T.Add(T.Add(i, 0), 0)`,
// `T.LT(0, 1)`); T.Min, T.Max, T.Div, T.Mod, T.FloorDiv and T.FloorMod are builtins.
constexpr OperatorCall kOperatorCalls[] = {
    {"Add", BinaryOp::Add}, {"Sub", BinaryOp::Sub}, {"Mul", BinaryOp::Mul}, {"EQ", BinaryOp::EQ},
    {"NE", BinaryOp::NE},   {"LT", BinaryOp::LT},   {"LE", BinaryOp::LE},   {"GT", BinaryOp::GT},
    {"GE", BinaryOp::GE},   {"And", BinaryOp::And}, {"Or", BinaryOp::Or},
};
} // namespace

// T.Add(a, b), T.LT(a, b), T.And(a, b), T.Not(a): the operation itself, never folded.
std::optional<Typed> Parser::lowerOperatorCall(uint32_t id, std::string_view name) {
  SourceRange where = nodeRange(id);
  if (name == "Not") {
    CallArgs args = callArgs(id, name, 1, 1, {});
    Expr a = lowerBool(args.positional[0], "operand of T.Not");
    return Typed{checked(where, [&] { return NotNode::make(a, where); }), false};
  }
  for (const OperatorCall &call : kOperatorCalls) {
    if (call.name != name)
      continue;
    CallArgs args = callArgs(id, name, 2, 2, {});
    if (isLogical(call.op)) {
      Expr a = lowerBool(args.positional[0], "operand of T.And/T.Or");
      Expr b = lowerBool(args.positional[1], "operand of T.And/T.Or");
      return Typed{checked(where, [&] { return BinaryNode::make(call.op, a, b, where); }), false};
    }
    Typed a = lower(args.positional[0]), b = lower(args.positional[1]);
    return Typed{makeBinary(call.op, a, b, where, "T." + std::string(name)), false};
  }
  return std::nullopt;
}

// `x op y` on two integer literals, as Python computes it (errors for what Python raises on, and
// for results beyond int64).
int64_t Parser::foldIntLiterals(Tok op, int64_t x, int64_t y, SourceRange where) {
  int64_t r = 0;
  bool overflow = false;
  switch (op) {
  case Tok::Plus: overflow = __builtin_add_overflow(x, y, &r); break;
  case Tok::Minus: overflow = __builtin_sub_overflow(x, y, &r); break;
  case Tok::Star: overflow = __builtin_mul_overflow(x, y, &r); break;
  case Tok::Slash:
    fail(where, "integer division with '/' is not supported; use '//' for floor division or T.truncdiv");
  case Tok::SlashSlash:
  case Tok::Percent:
    if (y == 0)
      fail(where, "division by zero");
    overflow = x == INT64_MIN && y == -1;
    r = op == Tok::SlashSlash ? floorDiv(x, y) : floorMod(x, y);
    break;
  // Python's integers: shifts by a negative count are errors, >> floors.
  case Tok::LessLess:
  case Tok::GreaterGreater:
    if (y < 0)
      fail(where, "negative shift count");
    if (op == Tok::GreaterGreater)
      r = y >= 63 ? (x < 0 ? -1 : 0) : x >> y;
    else
      overflow = x != 0 && (y >= 63 || (x << y) >> y != x || ((x << y) < 0) != (x < 0));
    if (op == Tok::LessLess && !overflow)
      r = x << y;
    break;
  case Tok::Amp: r = x & y; break;
  case Tok::Pipe: r = x | y; break;
  case Tok::Caret: r = x ^ y; break;
  default: break;
  }
  if (overflow)
    fail(where, "integer literal too large");
  return r;
}

// `x op y` on two number literals of which one is a float, as Python computes it.
double Parser::foldFloatLiterals(Tok op, double x, double y, SourceRange where) {
  double r = 0;
  switch (op) {
  case Tok::Plus: r = x + y; break;
  case Tok::Minus: r = x - y; break;
  case Tok::Star: r = x * y; break;
  case Tok::Slash:
  case Tok::SlashSlash:
  case Tok::Percent:
    if (y == 0)
      fail(where, "division by zero");
    r = op == Tok::Slash ? x / y : op == Tok::SlashSlash ? std::floor(x / y) : x - std::floor(x / y) * y;
    break;
  default: break;
  }
  if (!std::isfinite(r))
    fail(where, "floating-point literal out of range");
  return r;
}

Typed Parser::lowerBinary(uint32_t id) {
  SourceRange where = nodeRange(id);
  Tok op = node(id).op;
  Typed a = lower(child(id, 0));
  Typed b = lower(child(id, 1));
  if (a.literal && b.literal) {
    const auto *ia = a.expr.as<IntImmNode>();
    const auto *ib = b.expr.as<IntImmNode>();
    if (ia && ib) {
      int64_t r = foldIntLiterals(op, ia->value, ib->value, where);
      return {IntImmNode::make(literalIntType(r), r, where), true};
    }
    if (bitwiseIntrinsic(op))
      fail(where, std::string("unsupported operand type for '") + opText(op) + "': a floating-point literal");
    double x = ia ? static_cast<double>(ia->value) : a.expr.as<FloatImmNode>()->value;
    double y = ib ? static_cast<double>(ib->value) : b.expr.as<FloatImmNode>()->value;
    double r = foldFloatLiterals(op, x, y, where);
    return {FloatImmNode::make(DataType::float32(), r, where), true};
  }
  std::pair<Expr, Expr> xY = unify(a, b, where, opText(op));
  Expr x = xY.first, y = xY.second;
  if (const IntrinsicInfo *info = bitwiseIntrinsic(op)) {
    uint32_t operands[2] = {child(id, 0), child(id, 1)};
    return {makeIntrinsicCall(*info, {x, y}, std::nullopt, where, operands, opText(op)), false};
  }
  BinaryOp binary = BinaryOp::Add;
  switch (op) {
  case Tok::Plus: binary = BinaryOp::Add; break;
  case Tok::Minus: binary = BinaryOp::Sub; break;
  case Tok::Star: binary = BinaryOp::Mul; break;
  case Tok::Slash:
    if (!x->type.isFloat())
      fail(where, "integer division with '/' is not supported; use '//' for floor division or T.truncdiv");
    binary = BinaryOp::Div;
    break;
  case Tok::SlashSlash: binary = BinaryOp::FloorDiv; break;
  case Tok::Percent: binary = BinaryOp::FloorMod; break;
  default: break;
  }
  return {checked(where, [&] { return BinaryNode::make(binary, x, y, where); }), false};
}

Typed Parser::lowerCompare(uint32_t id) {
  SourceRange where = nodeRange(id);
  Tok op = node(id).op;
  Typed a = lower(child(id, 0));
  Typed b = lower(child(id, 1));
  BinaryOp binary = BinaryOp::EQ;
  switch (op) {
  case Tok::Less: binary = BinaryOp::LT; break;
  case Tok::LessEqual: binary = BinaryOp::LE; break;
  case Tok::Greater: binary = BinaryOp::GT; break;
  case Tok::GreaterEqual: binary = BinaryOp::GE; break;
  case Tok::EqualEqual: binary = BinaryOp::EQ; break;
  case Tok::NotEqual: binary = BinaryOp::NE; break;
  default: break;
  }
  return {makeBinary(binary, a, b, where, opText(op)), false};
}

} // namespace tirlower
