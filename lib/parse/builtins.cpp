// The T.* functions usable in expressions: typed constants and type limits, casts, selects,
// vectors, lets, arithmetic helpers, and the intrinsics of lib/ir/intrinsics.h (math, bitwise,
// extern calls, ...), whose arity and types the table's rules check.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "ir/edit_distance.h"
#include "parse/parser_impl.h"

namespace tirlower {

namespace {

enum class Builtin : uint8_t {
  Cast,
  CastLower,
  Select,
  Ramp,
  Broadcast,
  Let,
  Min,
  Max,
  FloorDiv,
  FloorMod,
  TruncDiv,
  TruncMod,
  TypeLimit, // max_value, min_value, infinity: folded to a typed constant
};

struct BuiltinEntry {
  std::string_view name;
  Builtin kind;
};

constexpr std::array kBuiltins = {
    BuiltinEntry{"Cast", Builtin::Cast},
    BuiltinEntry{"cast", Builtin::CastLower},
    BuiltinEntry{"Select", Builtin::Select},
    BuiltinEntry{"Ramp", Builtin::Ramp},
    BuiltinEntry{"ramp", Builtin::Ramp},
    BuiltinEntry{"Broadcast", Builtin::Broadcast},
    BuiltinEntry{"broadcast", Builtin::Broadcast},
    BuiltinEntry{"Let", Builtin::Let},
    BuiltinEntry{"let", Builtin::Let},
    BuiltinEntry{"min", Builtin::Min},
    BuiltinEntry{"max", Builtin::Max},
    BuiltinEntry{"Min", Builtin::Min},
    BuiltinEntry{"Max", Builtin::Max},
    BuiltinEntry{"floordiv", Builtin::FloorDiv},
    BuiltinEntry{"floormod", Builtin::FloorMod},
    BuiltinEntry{"FloorDiv", Builtin::FloorDiv},
    BuiltinEntry{"FloorMod", Builtin::FloorMod},
    BuiltinEntry{"truncdiv", Builtin::TruncDiv},
    BuiltinEntry{"truncmod", Builtin::TruncMod},
    BuiltinEntry{"Div", Builtin::TruncDiv},
    BuiltinEntry{"Mod", Builtin::TruncMod},
    BuiltinEntry{"max_value", Builtin::TypeLimit},
    BuiltinEntry{"min_value", Builtin::TypeLimit},
    BuiltinEntry{"infinity", Builtin::TypeLimit},
};

// Builtins that are statements (or parts of them) rather than expressions.
constexpr std::array<std::string_view, 22> kStatementBuiltins = {
    "func_attr",      "alloc_buffer", "decl_buffer",      "buffer_decl",    "Buffer",
    "match_buffer",   "allocate",     "transform_layout", "attr",           "evaluate",
    "grid",           "serial",       "parallel",         "vectorized",     "unroll",
    "thread_binding", "handle",       "prim_func",        "AXIS_SEPARATOR", "int32",
    "float32",        "bool"};

const BuiltinEntry *findBuiltin(std::string_view name) {
  for (const BuiltinEntry &e : kBuiltins)
    if (e.name == name)
      return &e;
  return nullptr;
}

bool isStatementBuiltin(std::string_view name) {
  return std::find(kStatementBuiltins.begin(), kStatementBuiltins.end(), name) != kStatementBuiltins.end();
}

std::optional<DataType> dtypeBuiltin(std::string_view name) {
  if (name.empty() || name == "handle" || name == "void")
    return std::nullopt;
  return DataType::parse(name);
}

} // namespace

uint32_t Parser::CallArgs::find(std::string_view key) const {
  for (uint32_t keyword : keywords)
    if (parser->nodeName(keyword) == key)
      return parser->child(keyword, 0);
  return UINT32_MAX;
}

Parser::CallArgs Parser::splitArgs(uint32_t id, uint32_t first) const {
  const AstNode &n = node(id);
  uint32_t positional = first;
  while (positional < n.count && node(child(id, positional)).kind != Ast::Keyword)
    ++positional;
  return {ChildRange(children_, n.first + first, positional - first),
          ChildRange(children_, n.first + positional, n.count - positional), this};
}

Parser::CallArgs Parser::callArgs(uint32_t callId, std::string_view name, size_t minPositional, size_t maxPositional,
                                  std::initializer_list<std::string_view> allowedKeywords) {
  CallArgs args = splitArgs(callId, 1);
  for (size_t k = 0; k < args.keywords.size(); ++k) {
    uint32_t arg = args.keywords[k];
    if (node(arg).kind != Ast::Keyword)
      fail(nodeRange(arg), "positional argument after a keyword argument");
    std::string_view key = nodeName(arg);
    if (std::find(allowedKeywords.begin(), allowedKeywords.end(), key) == allowedKeywords.end())
      fail(range(node(arg).nameBegin, node(arg).nameEnd),
           "T." + std::string(name) + " got an unexpected keyword argument '" + std::string(key) + "'");
    for (size_t j = 0; j < k; ++j)
      if (nodeName(args.keywords[j]) == key)
        fail(nodeRange(arg), "keyword argument '" + std::string(key) + "' given twice");
  }
  size_t n = args.positional.size();
  if (n < minPositional || n > maxPositional) {
    std::string expected = minPositional == maxPositional ? std::to_string(minPositional)
                           : maxPositional == SIZE_MAX
                               ? "at least " + std::to_string(minPositional)
                               : std::to_string(minPositional) + " to " + std::to_string(maxPositional);
    fail(nodeRange(callId), "T." + std::string(name) + " expects " + expected + " positional argument" +
                                (expected == "1" ? "" : "s") + ", got " + std::to_string(n));
  }
  return args;
}

void Parser::unknownBuiltin(uint32_t id, std::string_view name) {
  std::string message = "unknown function 'T." + std::string(name) + "'";
  ClosestName closest(name, 2);
  for (const BuiltinEntry &e : kBuiltins)
    closest.consider(e.name);
  for (const IntrinsicInfo &info : intrinsicTable())
    closest.consider(info.name);
  for (std::string_view s : kStatementBuiltins)
    closest.consider(s);
  std::string_view best = closest.best();
  if (best.empty())
    fail(nodeRange(id), message);
  failWithNote(nodeRange(id), message, nodeRange(id), "did you mean 'T." + std::string(best) + "'?");
}

Typed Parser::lowerCall(uint32_t id) {
  uint32_t callee = child(id, 0);
  std::string_view name = builtinName(callee);
  if (!name.empty())
    return lowerBuiltin(id, name);
  if (node(callee).kind == Ast::Name) {
    std::string_view text = nodeText(callee);
    if (text == "range")
      fail(nodeRange(id), "'range' is only allowed as the iterator of a for loop");
    if (!scope_.find(text))
      undefinedName(callee);
    fail(nodeRange(callee), "'" + std::string(text) + "' is not callable");
  }
  fail(nodeRange(callee), "only T.* functions can be called");
}

Typed Parser::lowerBuiltin(uint32_t id, std::string_view name) {
  SourceRange where = nodeRange(id);
  if (std::optional<DataType> type = dtypeBuiltin(name))
    return lowerDtypeCall(id, name, *type);
  if (std::optional<Typed> operation = lowerOperatorCall(id, name))
    return *operation;
  const BuiltinEntry *entry = findBuiltin(name);
  if (!entry) {
    const IntrinsicInfo *info = findIntrinsic(name);
    if (info && !isStatementIntrinsic(*info))
      return lowerIntrinsic(id, *info);
    if (info || isStatementBuiltin(name))
      fail(where, "T." + std::string(name) + " is a statement, not an expression");
    unknownBuiltin(id, name);
  }
  std::string op(name);
  switch (entry->kind) {
  case Builtin::Cast:
  case Builtin::CastLower: {
    CallArgs args = callArgs(id, name, 2, 2, {});
    bool upper = entry->kind == Builtin::Cast;
    DataType type = dtypeArgument(args.positional[upper ? 0 : 1]);
    Expr value = lowerValue(args.positional[upper ? 1 : 0]);
    return {checked(where, [&] { return CastNode::make(type, value, where); }), false};
  }
  case Builtin::Select: {
    CallArgs args = callArgs(id, name, 3, 3, {});
    std::string what = "condition of T." + op;
    Expr condition = lowerBool(args.positional[0], what.c_str());
    std::pair<Expr, Expr> tF = unify(lower(args.positional[1]), lower(args.positional[2]), where, "T." + op);
    Expr t = tF.first, f = tF.second;
    return {checked(where, [&] { return SelectNode::make(condition, t, f, where); }), false};
  }
  case Builtin::Ramp: {
    CallArgs args = callArgs(id, name, 3, 3, {});
    std::pair<Expr, Expr> baseStride = unify(lower(args.positional[0]), lower(args.positional[1]), where, "T.Ramp");
    Expr base = baseStride.first, stride = baseStride.second;
    auto [lanes, scalable] = laneCount(args.positional[2], "the lane count of T.Ramp");
    if (!scalable && (lanes < 2 || lanes > 65535))
      fail(nodeRange(args.positional[2]), "T.Ramp needs between 2 and 65535 lanes, not " + std::to_string(lanes));
    return {checked(where, [&] { return RampNode::make(base, stride, static_cast<int>(lanes), where, scalable); }),
            false};
  }
  case Builtin::Broadcast: {
    CallArgs args = callArgs(id, name, 2, 2, {});
    Expr value = lowerValue(args.positional[0]);
    auto [lanes, scalable] = laneCount(args.positional[1], "the lane count of T.Broadcast");
    if (!scalable && (lanes < 2 || lanes > 65535))
      fail(nodeRange(args.positional[1]), "T.Broadcast needs between 2 and 65535 lanes, not " + std::to_string(lanes));
    return {checked(where, [&] { return BroadcastNode::make(value, static_cast<int>(lanes), where, scalable); }),
            false};
  }
  case Builtin::Let: return lowerLet(id, name);
  case Builtin::Min:
  case Builtin::Max:
  case Builtin::FloorDiv:
  case Builtin::FloorMod:
  case Builtin::TruncDiv:
  case Builtin::TruncMod: {
    BinaryOp binary = entry->kind == Builtin::Min        ? BinaryOp::Min
                      : entry->kind == Builtin::Max      ? BinaryOp::Max
                      : entry->kind == Builtin::FloorDiv ? BinaryOp::FloorDiv
                      : entry->kind == Builtin::FloorMod ? BinaryOp::FloorMod
                      : entry->kind == Builtin::TruncDiv ? BinaryOp::Div
                                                         : BinaryOp::Mod;
    // T.truncmod on floats is C's fmod (TVM's Mod node on floats), as T.Mod.
    bool integersOnly = entry->kind == Builtin::FloorMod || (entry->kind == Builtin::TruncDiv && name != "Div");
    return lowerBinaryBuiltin(id, name, binary, integersOnly);
  }
  case Builtin::TypeLimit: return typeLimit(id, name);
  }
  unknownBuiltin(id, name);
}

// T.float32(x), T.int8(x), ...: a literal typed as `type`, a string "inf"/"-inf"/"nan" for
// floats, or a cast of another value.
Typed Parser::lowerDtypeCall(uint32_t id, std::string_view name, DataType type) {
  SourceRange where = nodeRange(id);
  CallArgs args = callArgs(id, name, 1, 1, {});
  uint32_t arg = args.positional[0];
  if (node(arg).kind == Ast::String) {
    std::string text = stringLiteral(arg);
    if (!type.isFloat() || type.isVector())
      fail(nodeRange(arg), "T." + std::string(name) + " takes a number, not a string");
    double value = text == "inf" || text == "+inf" ? HUGE_VAL
                   : text == "-inf"                ? -HUGE_VAL
                   : text == "nan"                 ? NAN
                                                   : 0.0;
    if (value == 0.0)
      fail(nodeRange(arg), "expected \"inf\", \"-inf\" or \"nan\", not \"" + text + "\"");
    return {FloatImmNode::make(type, value, where), false};
  }
  Typed value = lower(arg);
  if (value.literal) {
    if (type.isIntOrUInt() && value.expr.as<FloatImmNode>())
      fail(nodeRange(arg), "T." + std::string(name) + " takes an integer, not a floating-point literal");
    Expr constant = typedLiteral(value, type, where);
    return {constant, false};
  }
  if (value.expr->type == type)
    return {value.expr, false};
  if (const auto *imm = value.expr.as<IntImmNode>(); imm && type.isBool() && value.expr->type.isBool())
    return {value.expr, false};
  return {checked(where, [&] { return CastNode::make(type, value.expr, where); }), false};
}

// T.Let(body, where={name: value, ...}): the names are in scope in the later values and the body.
Typed Parser::lowerLet(uint32_t id, std::string_view name) {
  SourceRange where = nodeRange(id);
  CallArgs args = callArgs(id, name, 1, 1, {"where"});
  uint32_t bindings = args.find("where");
  if (bindings == UINT32_MAX || node(bindings).kind != Ast::Dict || node(bindings).count == 0)
    fail(where, "T.Let needs where={name: value}");
  std::vector<std::pair<Var, Expr>> lets;
  scope_.push();
  struct PopScope {
    ScopeStack &scope;
    ~PopScope() { scope.pop(); }
  } popScope{scope_};
  for (uint32_t k = 0; k + 1 < node(bindings).count; k += 2) {
    uint32_t key = child(bindings, k);
    if (node(key).kind != Ast::Name)
      fail(nodeRange(key), "T.Let binds names; expected a name");
    Expr value = lowerValue(child(bindings, k + 1));
    Var var =
        checked(nodeRange(key), [&] { return VarNode::make(Symbol(nodeText(key)), value->type, nodeRange(key)); });
    scope_.define(nodeText(key), {Binding::Kind::Var, var, nullptr, nodeRange(key)});
    lets.emplace_back(var, value);
  }
  Expr body = lowerValue(args.positional[0]);
  for (auto it = lets.rbegin(); it != lets.rend(); ++it)
    body = checked(where, [&] { return LetNode::make(it->first, it->second, body, where); });
  return {body, false};
}

// T.min, T.max, T.floordiv, T.floormod, T.truncdiv (T.Div), T.truncmod (T.Mod): one binary
// node over the unified operands, which must be integers when `integersOnly`.
Typed Parser::lowerBinaryBuiltin(uint32_t id, std::string_view name, BinaryOp binary, bool integersOnly) {
  SourceRange where = nodeRange(id);
  std::string op(name);
  CallArgs args = callArgs(id, name, 2, 2, {});
  Typed a = lower(args.positional[0]), b = lower(args.positional[1]);
  std::pair<Expr, Expr> xY = unify(a, b, where, "T." + op);
  Expr x = xY.first, y = xY.second;
  if (integersOnly && !x->type.isIntOrUInt())
    fail(where, "T." + op + " expects integer operands, not " + x->type.str());
  return {checked(where, [&] { return BinaryNode::make(binary, x, y, where); }), false};
}

Expr Parser::makeIntrinsicCall(const IntrinsicInfo &info, std::vector<Expr> args, std::optional<DataType> declared,
                               SourceRange where, const uint32_t *operands, std::string_view spelled) {
  std::vector<DataType> types;
  types.reserve(args.size());
  for (const Expr &a : args)
    types.push_back(a->type);
  IntrinsicTyping typing = typeIntrinsicCall(info, types, declared, spelled);
  if (!typing.type)
    fail(operands && typing.argument >= 0 ? nodeRange(operands[typing.argument]) : where, typing.error);
  DataType type = *typing.type;
  return checked(where, [&] { return CallNode::make(type, Symbol(info.name), std::move(args), where); });
}

// T.<intrinsic>(...): the arguments are lowered as the rule needs them (a literal operand takes
// the other operand's type), then the table's rule checks them.
Typed Parser::lowerIntrinsic(uint32_t id, const IntrinsicInfo &info) {
  SourceRange where = nodeRange(id);
  const std::string label = "T." + std::string(info.name);
  auto [least, most] = intrinsicArity(info);
  const size_t declaredCount = hasDeclaredType(info) ? 1 : 0;
  CallArgs args = callArgs(id, info.name, least + declaredCount, most == SIZE_MAX ? SIZE_MAX : most + declaredCount, {});
  std::optional<DataType> declared;
  if (declaredCount)
    declared = dtypeArgument(args.positional[0]);
  std::vector<uint32_t> operands;
  for (size_t k = declaredCount; k < args.positional.size(); ++k)
    operands.push_back(args.positional[k]);
  std::vector<Expr> values;
  values.reserve(operands.size());
  switch (info.rule) {
  case TypeRule::FloatBinary:
  case TypeRule::IntegerBinary:
  case TypeRule::BitwiseBinary: {
    std::pair<Expr, Expr> xY = unify(lower(operands[0]), lower(operands[1]), where, label);
    values = {xY.first, xY.second};
    break;
  }
  case TypeRule::IfThenElse: {
    std::string what = "condition of " + label;
    values.push_back(lowerBool(operands[0], what.c_str()));
    std::pair<Expr, Expr> tF = unify(lower(operands[1]), lower(operands[2]), where, label);
    values.push_back(tF.first);
    values.push_back(tF.second);
    break;
  }
  case TypeRule::Extern:
    values.push_back(StringImmNode::make(stringLiteral(operands[0]), nodeRange(operands[0])));
    for (size_t k = 1; k < operands.size(); ++k)
      values.push_back(node(operands[k]).kind == Ast::String
                           ? StringImmNode::make(stringLiteral(operands[k]), nodeRange(operands[k]))
                           : lowerValue(operands[k]));
    break;
  case TypeRule::QMultiplyShift: {
    // Literal arguments take the type of the first one that is not a literal (int32 lanes).
    std::vector<Typed> typed;
    DataType type = DataType::int32();
    for (uint32_t operand : operands) {
      typed.push_back(lower(operand));
      if (!typed.back().literal && type == DataType::int32())
        type = typed.back().expr->type;
    }
    for (size_t k = 0; k < typed.size(); ++k)
      values.push_back(typed[k].literal ? typedLiteral(typed[k], type.element() == DataType::int32() ? type
                                                                                                    : DataType::int32(),
                                                       nodeRange(operands[k]))
                                        : typed[k].expr);
    break;
  }
  default:
    for (uint32_t operand : operands)
      values.push_back(lowerValue(operand));
    break;
  }
  return {makeIntrinsicCall(info, std::move(values), declared, where, operands.data()), false};
}

// T.max_value / T.min_value / T.infinity of a scalar dtype, folded to the constant TVM builds.
Typed Parser::typeLimit(uint32_t id, std::string_view name) {
  SourceRange where = nodeRange(id);
  CallArgs args = callArgs(id, name, 1, 1, {});
  DataType type = dtypeArgument(args.positional[0]);
  auto unsupported = [&] {
    fail(nodeRange(args.positional[0]), "T." + std::string(name) + " is not defined for " + type.str());
  };
  if (type.isVector())
    unsupported();
  const bool isMax = name == "max_value";
  if (type.isFloat()) {
    double max = type.code() == DataType::Code::BFloat ? 0x1.fep127
                 : type.bits() == 16                   ? 65504.0
                 : type.bits() == 32                   ? static_cast<double>(std::numeric_limits<float>::max())
                                                       : std::numeric_limits<double>::max();
    double value = name == "infinity" ? HUGE_VAL : isMax ? max : -max;
    return {FloatImmNode::make(type, value, where), false};
  }
  if (name == "infinity" || !type.isIntOrUInt() || (isMax && type.isUInt() && type.bits() == 64))
    unsupported(); // uint64's maximum is no int64 constant
  int64_t value = type.isUInt()     ? (isMax ? static_cast<int64_t>((uint64_t(1) << type.bits()) - 1) : 0)
                  : type.bits() == 64 ? (isMax ? INT64_MAX : INT64_MIN)
                  : isMax             ? (int64_t(1) << (type.bits() - 1)) - 1
                                      : -(int64_t(1) << (type.bits() - 1));
  return {checked(where, [&] { return IntImmNode::make(type, value, where); }), false};
}

AttrValue Parser::attrValue(uint32_t id) {
  const AstNode n = node(id);
  switch (n.kind) {
  case Ast::String: return AttrValue::string(stringLiteral(id));
  case Ast::True: return AttrValue::boolean(true);
  case Ast::False: return AttrValue::boolean(false);
  case Ast::None: return AttrValue();
  case Ast::List:
  case Ast::Tuple: {
    std::vector<AttrValue> items;
    for (uint32_t k = 0; k < n.count; ++k)
      items.push_back(attrValue(child(id, k)));
    return AttrValue::list(std::move(items));
  }
  case Ast::Dict: {
    std::vector<AttrValue::Entry> entries;
    for (uint32_t k = 0; k + 1 < n.count; k += 2) {
      uint32_t key = child(id, k);
      if (node(key).kind != Ast::String)
        fail(nodeRange(key), "attribute keys must be strings");
      std::string keyText = stringLiteral(key);
      for (const AttrValue::Entry &e : entries)
        if (e.first == keyText)
          fail(nodeRange(key), "duplicate attribute key '" + keyText + "'");
      entries.emplace_back(std::move(keyText), attrValue(child(id, k + 1)));
    }
    return AttrValue::dict(std::move(entries));
  }
  case Ast::Call:
    if (builtinName(child(id, 0)) == "target")
      return lowerTarget(id);
    break;
  default: break;
  }
  Expr value = lowerValue(id);
  if (const auto *i = value.as<IntImmNode>())
    return value->type.isBool() ? AttrValue::boolean(i->value != 0) : AttrValue::integer(i->value);
  if (const auto *f = value.as<FloatImmNode>())
    return AttrValue::real(f->value);
  fail(nodeRange(id), "attribute values must be constants (numbers, strings, bools, lists or dicts)");
}

IndexMap Parser::lowerIndexMap(uint32_t lambdaId, DataType indexType, size_t expectedInputs,
                               const std::string &bufferName) {
  SourceRange where = nodeRange(lambdaId);
  if (node(lambdaId).kind != Ast::Lambda)
    fail(where, "expected an index map: lambda i, j: [...]");
  uint32_t params = node(lambdaId).count - 1;
  if (expectedInputs != SIZE_MAX && params != expectedInputs)
    fail(where, "index map takes " + std::to_string(params) + " ind" + (params == 1 ? "ex" : "ices") + " but buffer '" +
                    bufferName + "' has rank " + std::to_string(expectedInputs));
  scope_.push();
  struct PopScope {
    ScopeStack &scope;
    ~PopScope() { scope.pop(); }
  } popScope{scope_};
  std::vector<Var> inputs;
  inputs.reserve(params);
  for (uint32_t k = 0; k < params; ++k) {
    uint32_t p = child(lambdaId, k);
    for (uint32_t j = 0; j < k; ++j)
      if (nodeText(child(lambdaId, j)) == nodeText(p))
        fail(nodeRange(p), "duplicate index map parameter '" + std::string(nodeText(p)) + "'");
    Var var = VarNode::make(Symbol(nodeText(p)), indexType, nodeRange(p));
    scope_.define(nodeText(p), {Binding::Kind::Var, var, nullptr, nodeRange(p)});
    inputs.push_back(var);
  }
  uint32_t body = child(lambdaId, params);
  if (node(body).kind != Ast::List && node(body).kind != Ast::Tuple)
    fail(nodeRange(body), "an index map returns a list of indices: lambda i, j: [j, i]");
  std::vector<Expr> outputs;
  outputs.reserve(node(body).count);
  std::vector<int> separators;
  for (uint32_t k = 0; k < node(body).count; ++k) {
    uint32_t item = child(body, k);
    if (builtinName(item) == "AXIS_SEPARATOR") {
      separators.push_back(static_cast<int>(outputs.size()));
      continue;
    }
    Expr value = lowerAs(item, indexType);
    if (!value->type.isIndex())
      fail(nodeRange(item), "index map results must be scalar integers, not " + value->type.str());
    outputs.push_back(value);
  }
  if (outputs.empty())
    fail(nodeRange(body), "an index map must return at least one index");
  return checked(where, [&] { return IndexMapNode::make(inputs, outputs, separators, where); });
}

} // namespace tirlower
