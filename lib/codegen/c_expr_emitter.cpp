// Expressions of the C emitter. Operators are parenthesised by C precedence (cPrecedence):
// `parent` is the precedence of the enclosing operator, `right` whether this is its right
// operand; 11 stands for a unary operator or cast, 1 for the conditional operator.
#include "codegen/c_function_emitter.h"
#include "ir/intrinsics.h"

namespace tirlower {

namespace {
// libm's name for `op` on `type`: the float function for float32 and float16 (which TVM's
// LLVM build also computes in float), the double one for float64.
std::string mathName(const std::string &op, DataType type) {
  std::string base = op == "abs" ? "fabs" : op;
  return type.element().bits() <= 32 ? base + "f" : base;
}

// GCC evaluates _Float16 expressions in float and rounds only on assignment and casts (C11's
// excess precision): a scalar float16 result is cast so that it rounds after every operation,
// as TVM (and the interpreter) compute. Clang and GCC's vector code need no cast.
bool isScalarHalf(DataType type) {
  return type.isScalar() && type.code() == DataType::Code::Float && type.bits() == 16;
}
std::string roundedHalf(const std::string &text) {
  return "((_Float16)(" + text + "))";
}

std::string quoted(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string intLiteral(DataType type, int64_t v) {
  if (type.isBool())
    return v ? "true" : "false";
  if (type.isInt() && type.bits() == 64)
    return v == INT64_MIN ? "INT64_MIN" : "INT64_C(" + std::to_string(v) + ")";
  if (type.isUInt() && type.bits() == 64)
    return "UINT64_C(" + std::to_string(static_cast<uint64_t>(v)) + ")";
  if (type.isUInt() && type.bits() == 32)
    return std::to_string(v) + "u";
  if (type.isInt() && type.bits() == 32) {
    if (v == INT32_MIN)
      return "(-2147483647 - 1)";
    return v < 0 ? "(" + std::to_string(v) + ")" : std::to_string(v);
  }
  return "((" + std::string(type.isUInt() ? "uint" : "int") + std::to_string(type.bits()) + "_t)" +
         (v < 0 ? "(" + std::to_string(v) + ")" : std::to_string(v)) + ")";
}

bool isArithmetic(BinaryOp op) {
  return op == BinaryOp::Add || op == BinaryOp::Sub || op == BinaryOp::Mul || op == BinaryOp::Div;
}

} // namespace

std::string CFunctionEmitter::visitIntImm(const IntImmNode *op, int, bool) {
  return intLiteral(op->type, op->value);
}

std::string CFunctionEmitter::visitFloatImm(const FloatImmNode *op, int, bool) {
  return cFloatLiteral(op->value, op->type);
}

std::string CFunctionEmitter::visitStringImm(const StringImmNode *op, int, bool) {
  return quoted(op->value);
}

std::string CFunctionEmitter::visitNot(const NotNode *op, int, bool) {
  if (op->type.isVector())
    return "(" + expr(op->a, 11) + " ^ " + support_.broadcast(op->type) + "(1))";
  return "!" + expr(op->a, 11);
}

std::string CFunctionEmitter::vectorSelect(const Expr &condition, const Expr &trueValue, const Expr &falseValue,
                                           SourceRange) {
  return support_.select(trueValue->type) + "(" + expr(condition) + ", " + expr(trueValue) + ", " + expr(falseValue) +
         ")";
}

std::string CFunctionEmitter::visitCast(const CastNode *op, int, bool) {
  if (op->type.isVector())
    return support_.convert(op->value->type, op->type) + "(" + expr(op->value) + ")";
  if (op->type.isBool())
    return "(" + expr(op->value, 6) + " != 0)";
  return "(" + support_.typeName(op->type) + ")" + expr(op->value, 11);
}

std::string CFunctionEmitter::visitRamp(const RampNode *op, int, bool) {
  return support_.ramp(op->type) + "(" + expr(op->base) + ", " + expr(op->stride) + ")";
}

std::string CFunctionEmitter::visitBroadcast(const BroadcastNode *op, int, bool) {
  return support_.broadcast(op->type) + "(" + expr(op->value) + ")";
}

// A GNU statement expression: ({ const T x = value; body; }).
std::string CFunctionEmitter::visitLet(const LetNode *op, int, bool) {
  std::string value = expr(op->value);
  std::string name = bind(op->var.get(), op->var->name.view());
  return "({ const " + support_.typeName(op->var->type) + " " + name + " = " + value + "; " + expr(op->body) + "; })";
}

std::string CFunctionEmitter::visitBinary(const BinaryNode *op, int parent, bool right) {
  const DataType t = op->a->type;
  const bool vector = t.isVector();
  auto call2 = [&](const std::string &fn) { return fn + "(" + expr(op->a) + ", " + expr(op->b) + ")"; };
  const BinaryPlan plan = binaryForm(op);
  switch (plan.form) {
  case BinaryForm::Floor:
    if (t.isFloat()) {
      if (!vector)
        return plan.op == BinaryOp::FloorDiv ? floatFloorDiv(op) : floatFloorMod(op);
      std::string fn =
          plan.op == BinaryOp::FloorDiv ? support_.floatFloorDiv(t.element()) : support_.floatFloorMod(t.element());
      return call2(support_.lanewise(fn, t, 2));
    }
    if (plan.op == BinaryOp::FloorDiv)
      return call2(vector ? support_.lanewise(support_.floorDiv(t.element()), t, 2) : support_.floorDiv(t));
    return call2(vector ? support_.lanewise(support_.floorMod(t.element()), t, 2) : support_.floorMod(t));
  case BinaryForm::MinMax: return call2(support_.minMax(plan.op == BinaryOp::Max, t));
  case BinaryForm::FloatMod:
    if (vector)
      return call2(support_.lanewise(mathName("fmod", t), t, 2));
    return isScalarHalf(t) ? roundedHalf(call2(mathName("fmod", t))) : call2(mathName("fmod", t));
  case BinaryForm::Trunc: {
    std::string fn = plan.op == BinaryOp::Div ? support_.truncDiv(t.element()) : support_.truncMod(t.element());
    return call2(vector ? support_.lanewise(fn, t, 2) : fn);
  }
  case BinaryForm::Wrapping: {
    // In the unsigned type; a vector is reinterpreted as the unsigned vector of the same size.
    std::string u = "(" + support_.typeName(DataType(DataType::Code::UInt, t.bits(), t.lanes())) + ")";
    return "(" + support_.typeName(t) + ")(" + u + expr(op->a, 11) + " " + cInfixOperator(plan.op, false) + " " + u +
           expr(op->b, 11) + ")";
  }
  case BinaryForm::Infix: break;
  }
  return infix(op, plan.op, parent, right);
}

std::string CFunctionEmitter::infix(const BinaryNode *op, BinaryOp kind, int parent, bool right) {
  const DataType t = op->a->type;
  const bool vector = t.isVector();
  if (vector && isComparison(kind))
    return support_.compare(cInfixOperator(kind, false), t) + "(" + expr(op->a) + ", " + expr(op->b) + ")";
  int p = cPrecedence(kind);
  // Vector and/or are the bitwise & and |: their binary operands get parentheses (the
  // precedence is right without them, but -Wparentheses asks for them); so does an `&&`
  // inside `||`.
  int operand = vector && (kind == BinaryOp::And || kind == BinaryOp::Or) ? 11
                : kind == BinaryOp::Or                                    ? cPrecedence(BinaryOp::And) + 1
                                                                          : p;
  std::string text =
      expr(op->a, operand, false) + " " + cInfixOperator(kind, vector) + " " + expr(op->b, operand, true);
  // Integers narrower than int are promoted in C: the result is converted back so that it
  // wraps at the type's width like TIR's (int8 100 + 100 is -56 wherever it is used).
  if (!vector && t.isIntOrUInt() && t.bits() < 32 && isArithmetic(kind)) {
    // uint16 operands promote to (signed) int, where 65535 * 65535 overflows: multiply in uint32.
    if (t.isUInt() && t.bits() == 16 && kind == BinaryOp::Mul)
      text = "(uint32_t)" + expr(op->a, 11) + " * " + expr(op->b, 11);
    return "((" + support_.typeName(t) + ")(" + text + "))";
  }
  if (isScalarHalf(t) && isArithmetic(kind))
    return roundedHalf(text);
  bool wrap = p < parent || (p == parent && right) || (parent >= 6 && parent <= 7 && p <= 7);
  return wrap ? "(" + text + ")" : text;
}

std::string CFunctionEmitter::floatFloorDiv(const BinaryNode *op) {
  std::string a = expr(op->a, 10), b = expr(op->b, 10, true);
  if (isScalarHalf(op->type))
    return roundedHalf(mathName("floor", op->type) + "(" + roundedHalf(a + " / " + b) + ")");
  return mathName("floor", op->type) + "(" + a + " / " + b + ")";
}

std::string CFunctionEmitter::floatFloorMod(const BinaryNode *op) {
  std::string a = expr(op->a, 10), b = expr(op->b, 10, true);
  if (isScalarHalf(op->type))
    return roundedHalf(a + " - " +
                       roundedHalf(mathName("floor", op->type) + "(" + roundedHalf(a + " / " + b) + ") * " + b));
  return "(" + a + " - " + mathName("floor", op->type) + "(" + a + " / " + b + ") * " + b + ")";
}

// Intrinsic calls, spelled as the intrinsic table says: libm functions (lane by lane on
// vectors), the table's expansion for composite ones, and C operators for the bitwise ones.
std::string CFunctionEmitter::visitCall(const CallNode *op, int parent, bool right) {
  const IntrinsicInfo *info = op->intrinsic;
  if (!info)
    fail(op->loc, "unknown intrinsic T." + op->op.str());
  if (Expr expanded = expandIntrinsic(*op))
    return expr(expanded, parent, right);
  const DataType t = op->type;
  auto args = [&](size_t from) {
    std::string text;
    for (size_t k = from; k < op->args.size(); ++k)
      text += (k > from ? ", " : "") + expr(op->args[k]);
    return text;
  };
  switch (info->id) {
  case IntrinsicId::IfThenElse: return ternary(op->args[0], op->args[1], op->args[2]);
  case IntrinsicId::Likely: return "(" + expr(op->args[0]) + ")";
  case IntrinsicId::Assume: return "true"; // a hint: its statement emits nothing
  case IntrinsicId::CallExtern:
  case IntrinsicId::CallPureExtern: {
    const std::string &fn = op->args[0].as<StringImmNode>()->value;
    std::string proto = support_.typeName(t) + " " + fn + "(";
    for (size_t k = 1; k < op->args.size(); ++k)
      proto += (k > 1 ? ", " : "") + support_.typeName(op->args[k]->type);
    externs_.insert(proto + (op->args.size() == 1 ? "void" : "") + ");");
    return fn + "(" + args(1) + ")";
  }
  case IntrinsicId::Reinterpret:
    return support_.reinterpret(op->args[0]->type, t, op->loc) + "(" + expr(op->args[0]) + ")";
  case IntrinsicId::ShiftLeft:
  case IntrinsicId::ShiftRight:
  case IntrinsicId::BitwiseAnd:
  case IntrinsicId::BitwiseOr:
  case IntrinsicId::BitwiseXor: return bitwise(op, info->operatorText);
  case IntrinsicId::BitwiseNot: {
    std::string a = expr(op->args[0], 11);
    if (t.isBool())
      return t.isVector() ? "(" + a + " ^ " + support_.broadcast(t) + "(1))" : "(!" + a + ")";
    return t.isVector() ? "(~" + a + ")" : "((" + support_.typeName(t) + ")~" + a + ")";
  }
  case IntrinsicId::Abs:
    if (t.isUInt())
      return "(" + expr(op->args[0]) + ")";
    if (t.isInt()) {
      std::string fn = support_.integerAbs(t.element());
      return (t.isVector() ? support_.lanewise(fn, t, 1) : fn) + "(" + expr(op->args[0]) + ")";
    }
    break;
  default: break;
  }
  if (info->c.empty() || !op->args[0]->type.isFloat() || op->args[0]->type.code() == DataType::Code::BFloat)
    fail(op->loc, "T." + op->op.str() + " is not supported on " + op->args[0]->type.str());
  DataType argType = op->args[0]->type;
  std::string fn = info->cTypeGeneric ? std::string(info->c) : mathName(std::string(info->c), argType);
  if (t.isVector())
    return support_.lanewise(fn, t, static_cast<int>(op->args.size()), argType) + "(" + args(0) + ")";
  return isScalarHalf(t) ? roundedHalf(fn + "(" + args(0) + ")") : fn + "(" + args(0) + ")";
}

// Shifts and bitwise operations. Scalars narrower than int are promoted and converted back;
// a left shift of a signed value is done on its unsigned type (C leaves shifting a negative
// value undefined; TIR wraps), on vectors too.
std::string CFunctionEmitter::bitwise(const CallNode *op, std::string_view text) {
  DataType t = op->type;
  std::string a = expr(op->args[0], 11), b = expr(op->args[1], 11), o(text);
  if (op->intrinsic->id == IntrinsicId::ShiftLeft && t.isInt()) {
    std::string u = support_.typeName(DataType(DataType::Code::UInt, t.bits(), t.lanes()));
    return "((" + support_.typeName(t) + ")((" + u + ")" + a + o + (t.isVector() ? "(" + u + ")" : "") + b + "))";
  }
  if (t.isVector())
    return "(" + a + o + b + ")";
  return "((" + support_.typeName(t) + ")(" + a + o + b + "))";
}

} // namespace tirlower
