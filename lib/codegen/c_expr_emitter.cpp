// Expressions of the C emitter. Operators are parenthesised by C precedence (cPrecedence):
// `parent` is the precedence of the enclosing operator, `right` whether this is its right
// operand; 11 stands for a unary operator or cast, 1 for the conditional operator.
#include "codegen/c_function_emitter.h"
#include "ir/intrinsics.h"

#include <charconv>

namespace tirlower {

namespace {
// libm's name for `op` on `type`: the float function for float32 and float16 (which TVM's
// LLVM build also computes in float), the double one for float64.
std::string mathName(std::string_view op, DataType type) {
  std::string name(op == "abs" ? "fabs" : op);
  if (type.element().bits() <= 32)
    name += 'f';
  return name;
}

// GCC evaluates _Float16 expressions in float and rounds only on assignment and casts (C11's
// excess precision): a scalar float16 result is cast so that it rounds after every operation,
// as TVM (and the interpreter) compute. Clang and GCC's vector code need no cast.
bool isScalarHalf(DataType type) {
  return type.isScalar() && type.code() == DataType::Code::Float && type.bits() == 16;
}
bool isBFloat16(DataType type) {
  return type.code() == DataType::Code::BFloat;
}
constexpr std::string_view kHalfOpen = "((_Float16)(", kHalfClose = "))";

void appendQuoted(std::string &out, const std::string &text) {
  out += '"';
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  out += '"';
}

template <typename T> void appendNumber(std::string &out, T v) {
  if (static_cast<uint64_t>(v) < 10) { // most integers written (a negative one is not)
    out += static_cast<char>('0' + v);
    return;
  }
  char buffer[24];
  std::to_chars_result r = std::to_chars(buffer, buffer + sizeof buffer, v);
  out.append(buffer, static_cast<size_t>(r.ptr - buffer));
}

// A number, parenthesised when negative.
void appendSigned(std::string &out, int64_t v) {
  if (v < 0)
    out += '(';
  appendNumber(out, v);
  if (v < 0)
    out += ')';
}

void appendIntLiteral(std::string &out, DataType type, int64_t v) {
  if (type.isBool()) {
    out += v ? "true" : "false";
  } else if (type.isInt() && type.bits() == 64) {
    if (v == INT64_MIN) {
      out += "INT64_MIN";
      return;
    }
    out += "INT64_C(";
    appendNumber(out, v);
    out += ')';
  } else if (type.isUInt() && type.bits() == 64) {
    out += "UINT64_C(";
    appendNumber(out, static_cast<uint64_t>(v));
    out += ')';
  } else if (type.isUInt() && type.bits() == 32) {
    appendNumber(out, v);
    out += 'u';
  } else if (type.isInt() && type.bits() == 32) {
    if (v == INT32_MIN)
      out += "(-2147483647 - 1)";
    else
      appendSigned(out, v);
  } else {
    out += "((";
    out += type.isUInt() ? "uint" : "int";
    appendNumber(out, type.bits());
    out += "_t)";
    appendSigned(out, v);
    out += ')';
  }
}

bool isArithmetic(BinaryOp op) {
  return op == BinaryOp::Add || op == BinaryOp::Sub || op == BinaryOp::Mul || op == BinaryOp::Div;
}

DataType unsignedOf(DataType t) {
  return DataType(DataType::Code::UInt, t.bits(), t.lanes());
}

} // namespace

void CFunctionEmitter::visitIntImm(const IntImmNode *op, int, bool) {
  appendIntLiteral(out(), op->type, op->value);
}

void CFunctionEmitter::visitFloatImm(const FloatImmNode *op, int, bool) {
  appendCFloatLiteral(out(), op->value, op->type);
}

void CFunctionEmitter::visitStringImm(const StringImmNode *op, int, bool) {
  appendQuoted(out(), op->value);
}

void CFunctionEmitter::visitNot(const NotNode *op, int, bool) {
  if (op->type.isVector()) {
    out() += '(';
    expr(op->a, 11);
    out() += " ^ ";
    out() += support_.broadcast(op->type);
    out() += "(1))";
    return;
  }
  out() += '!';
  expr(op->a, 11);
}

// GCC gives a vector operator's result (a & b, a + b) the plain vector type, without the
// typedef's aligned and may_alias attributes, and then rejects `c ? a & b : v` as a type mismatch
// in the conditional expression (clang accepts it). A cast to the typedef makes both arms one
// type; it changes no value.
void CFunctionEmitter::ternaryArm(const Expr &arm) {
  if (!arm->type.isVector())
    return CFamilyEmitter::ternaryArm(arm);
  out() += '(';
  out() += typeName(arm->type, arm->loc);
  out() += ")(";
  expr(arm, 0);
  out() += ')';
}

void CFunctionEmitter::vectorSelect(const Expr &condition, const Expr &trueValue, const Expr &falseValue, SourceRange) {
  out() += support_.select(trueValue->type);
  out() += '(';
  expr(condition);
  out() += ", ";
  expr(trueValue);
  out() += ", ";
  expr(falseValue);
  out() += ')';
}

void CFunctionEmitter::visitCast(const CastNode *op, int, bool) {
  const bool fromBF16 = isBFloat16(op->value->type), toBF16 = isBFloat16(op->type);
  if (fromBF16 != toBF16) { // through double: bfloat16 is a bit pattern in C
    const std::string &fn = toBF16 ? support_.bfloat16FromDouble() : support_.bfloat16ToDouble();
    if (op->type.isVector())
      return call1(support_.lanewise(fn, op->type, 1, op->value->type), op->value);
    if (toBF16)
      return call1(fn, op->value);
    out() += op->type.isBool() ? "(" : "((" + support_.scalarTypeName(op->type) + ")";
    call1(fn, op->value);
    out() += op->type.isBool() ? " != 0)" : ")";
    return;
  }
  if (op->type.isVector()) {
    out() += support_.convert(op->value->type, op->type);
    out() += '(';
    expr(op->value);
    out() += ')';
    return;
  }
  if (op->type.isBool()) {
    out() += '(';
    expr(op->value, 6);
    out() += " != 0)";
    return;
  }
  out() += '(';
  out() += support_.typeName(op->type);
  out() += ')';
  expr(op->value, 11);
}

void CFunctionEmitter::visitRamp(const RampNode *op, int, bool) {
  out() += support_.ramp(op->type);
  out() += '(';
  expr(op->base);
  out() += ", ";
  expr(op->stride);
  out() += ')';
}

void CFunctionEmitter::visitBroadcast(const BroadcastNode *op, int, bool) {
  out() += support_.broadcast(op->type);
  out() += '(';
  expr(op->value);
  out() += ')';
}

// A GNU statement expression: ({ const T x = value; body; }).
void CFunctionEmitter::visitLet(const LetNode *op, int, bool) {
  // The value is written before the name is bound (a name it binds comes first).
  std::string value = exprText(op->value);
  const std::string &name = bind(op->var.get(), op->var->name.view());
  out() += "({ const ";
  out() += support_.typeName(op->var->type);
  out() += ' ';
  out() += name;
  out() += " = ";
  out() += value;
  out() += "; ";
  expr(op->body);
  out() += "; })";
}

void CFunctionEmitter::call2(std::string_view fn, const BinaryNode *op) {
  out() += fn;
  out() += '(';
  expr(op->a);
  out() += ", ";
  expr(op->b);
  out() += ')';
}

void CFunctionEmitter::visitBinary(const BinaryNode *op, int parent, bool right) {
  const DataType t = op->a->type;
  const bool vector = t.isVector();
  if (isBFloat16(t))
    return bfloat16Binary(op);
  const BinaryPlan plan = binaryForm(op);
  switch (plan.form) {
  case BinaryForm::Floor:
    if (t.isFloat()) {
      if (!vector)
        return plan.op == BinaryOp::FloorDiv ? floatFloorDiv(op) : floatFloorMod(op);
      const std::string &fn =
          plan.op == BinaryOp::FloorDiv ? support_.floatFloorDiv(t.element()) : support_.floatFloorMod(t.element());
      return call2(support_.lanewise(fn, t, 2), op);
    }
    if (plan.op == BinaryOp::FloorDiv)
      return call2(vector ? support_.lanewise(support_.floorDiv(t.element()), t, 2) : support_.floorDiv(t), op);
    return call2(vector ? support_.lanewise(support_.floorMod(t.element()), t, 2) : support_.floorMod(t), op);
  case BinaryForm::MinMax: return call2(support_.minMax(plan.op == BinaryOp::Max, t), op);
  case BinaryForm::FloatMod:
    if (vector)
      return call2(support_.lanewise(mathName("fmod", t), t, 2), op);
    if (isScalarHalf(t)) {
      out() += kHalfOpen;
      call2(mathName("fmod", t), op);
      out() += kHalfClose;
      return;
    }
    return call2(mathName("fmod", t), op);
  case BinaryForm::Trunc: {
    const std::string &fn = plan.op == BinaryOp::Div ? support_.truncDiv(t.element()) : support_.truncMod(t.element());
    return call2(vector ? support_.lanewise(fn, t, 2) : fn, op);
  }
  case BinaryForm::Wrapping: {
    // In the unsigned type; a vector is reinterpreted as the unsigned vector of the same size.
    std::string_view u = support_.typeName(unsignedOf(t));
    std::string &o = out();
    o += '(';
    o += support_.typeName(t);
    o += ")((";
    o += u;
    o += ')';
    expr(op->a, 11);
    out() += cSpacedInfixOperator(plan.op, false);
    out() += '(';
    out() += u;
    out() += ')';
    expr(op->b, 11);
    out() += ')';
    return;
  }
  case BinaryForm::Infix: break;
  }
  infix(op, plan.op, parent, right);
}

// Scalar bfloat16 arithmetic and comparisons compute in double (exact for the operands) and
// round the result to bfloat16 as the interpreter does; vectors and other operations are refused.
void CFunctionEmitter::bfloat16Binary(const BinaryNode *op) {
  const BinaryOp kind = op->op;
  const bool arithmetic = kind == BinaryOp::Add || kind == BinaryOp::Sub || kind == BinaryOp::Mul ||
                          kind == BinaryOp::Div || kind == BinaryOp::Min || kind == BinaryOp::Max;
  if (op->a->type.isVector() || (!arithmetic && !isComparison(kind)))
    fail(op->loc, "C emitter: bfloat16 " + std::string(binaryOpName(kind)) + (op->a->type.isVector() ? " on vectors" : "") +
                      " is not supported (cast the operands to float32)");
  const std::string &widen = support_.bfloat16ToDouble();
  std::string a = widen + "(" + exprText(op->a) + ")", b = widen + "(" + exprText(op->b) + ")";
  std::string &o = out();
  if (isComparison(kind)) {
    appendAll(o, '(', a, ' ', cInfixOperator(kind, false), ' ', b, ')');
    return;
  }
  o += support_.bfloat16FromDouble();
  o += '(';
  if (kind == BinaryOp::Min || kind == BinaryOp::Max)
    appendAll(o, support_.minMax(kind == BinaryOp::Max, DataType::float64()), '(', a, ", ", b, ')');
  else
    appendAll(o, a, ' ', cInfixOperator(kind, false), ' ', b);
  o += ')';
}

void CFunctionEmitter::infix(const BinaryNode *op, BinaryOp kind, int parent, bool right) {
  const DataType t = op->a->type;
  const bool vector = t.isVector();
  if (vector && isComparison(kind)) {
    out() += support_.compare(cInfixOperator(kind, false), t);
    out() += '(';
    expr(op->a);
    out() += ", ";
    expr(op->b);
    out() += ')';
    return;
  }
  int p = cPrecedence(kind);
  // Vector and/or are the bitwise & and |: their binary operands get parentheses (the
  // precedence is right without them, but -Wparentheses asks for them); so does an `&&`
  // inside `||`.
  int operand = vector && (kind == BinaryOp::And || kind == BinaryOp::Or) ? 11
                : kind == BinaryOp::Or                                    ? cPrecedence(BinaryOp::And) + 1
                                                                          : p;
  auto operation = [&] {
    expr(op->a, operand, false);
    out() += cSpacedInfixOperator(kind, vector);
    expr(op->b, operand, true);
  };
  // Integers narrower than int are promoted in C: the result is converted back so that it
  // wraps at the type's width like TIR's (int8 100 + 100 is -56 wherever it is used).
  if (!vector && t.isIntOrUInt() && t.bits() < 32 && isArithmetic(kind)) {
    out() += "((";
    out() += support_.typeName(t);
    out() += ")(";
    // uint16 operands promote to (signed) int, where 65535 * 65535 overflows: multiply in uint32.
    if (t.isUInt() && t.bits() == 16 && kind == BinaryOp::Mul) {
      // The operands are written once as for any operation first (for the names they bind).
      exprText(op->a, operand, false);
      exprText(op->b, operand, true);
      out() += "(uint32_t)";
      expr(op->a, 11);
      out() += " * ";
      expr(op->b, 11);
    } else {
      operation();
    }
    out() += "))";
    return;
  }
  if (isScalarHalf(t) && isArithmetic(kind)) {
    out() += kHalfOpen;
    operation();
    out() += kHalfClose;
    return;
  }
  bool wrap = p < parent || (p == parent && right) || (parent >= 6 && parent <= 7 && p <= 7);
  if (wrap)
    out() += '(';
  operation();
  if (wrap)
    out() += ')';
}

void CFunctionEmitter::floatFloorDiv(const BinaryNode *op) {
  std::string fn = mathName("floor", op->type);
  const bool half = isScalarHalf(op->type);
  if (half)
    out() += kHalfOpen;
  out() += fn;
  out() += '(';
  if (half)
    out() += kHalfOpen;
  expr(op->a, 10);
  out() += " / ";
  expr(op->b, 10, true);
  if (half)
    out() += kHalfClose;
  out() += ')';
  if (half)
    out() += kHalfClose;
}

void CFunctionEmitter::floatFloorMod(const BinaryNode *op) {
  // The operands appear twice: written once, then copied.
  std::string a = exprText(op->a, 10), b = exprText(op->b, 10, true);
  std::string fn = mathName("floor", op->type);
  std::string &o = out();
  if (isScalarHalf(op->type)) {
    // ((_Float16)(a - ((_Float16)(floor(((_Float16)(a / b))) * b))))
    appendAll(o, kHalfOpen, a, " - ", kHalfOpen, fn, '(', kHalfOpen, a, " / ", b, kHalfClose, ") * ", b, kHalfClose,
              kHalfClose);
    return;
  }
  appendAll(o, '(', a, " - ", fn, '(', a, " / ", b, ") * ", b, ')');
}

void CFunctionEmitter::arguments(const CallNode *op, size_t from) {
  for (size_t k = from; k < op->args.size(); ++k) {
    if (k > from)
      out() += ", ";
    expr(op->args[k]);
  }
}

void CFunctionEmitter::call1(std::string_view fn, const Expr &arg) {
  out() += fn;
  out() += '(';
  expr(arg);
  out() += ')';
}

// Intrinsic calls, spelled as the intrinsic table says: libm functions (lane by lane on
// vectors), the table's expansion for composite ones, and C operators for the bitwise ones.
void CFunctionEmitter::visitCall(const CallNode *op, int parent, bool right) {
  const IntrinsicInfo *info = op->intrinsic;
  if (!info)
    fail(op->loc, "unknown intrinsic T." + op->op.str());
  if (isGpuBuiltin(*info))
    fail(op->loc, "T." + op->op.str() + " runs on the threads of a GPU kernel, which C code has none of (use "
                                         "--target=opencl)");
  if (Expr expanded = expandIntrinsic(*op))
    return expr(expanded, parent, right);
  const DataType t = op->type;
  switch (info->id) {
  case IntrinsicId::IfThenElse: return ternary(op->args[0], op->args[1], op->args[2]);
  case IntrinsicId::Likely: return call1("", op->args[0]);
  case IntrinsicId::Assume: out() += "true"; return; // a hint: its statement emits nothing
  case IntrinsicId::CallExtern:
  case IntrinsicId::CallPureExtern: return externCall(op);
  case IntrinsicId::Reinterpret: return call1(support_.reinterpret(op->args[0]->type, t, op->loc), op->args[0]);
  case IntrinsicId::ShiftLeft:
  case IntrinsicId::ShiftRight:
  case IntrinsicId::BitwiseAnd:
  case IntrinsicId::BitwiseOr:
  case IntrinsicId::BitwiseXor: return bitwise(op, info->operatorText);
  case IntrinsicId::BitwiseNot: return bitwiseNot(op);
  case IntrinsicId::VScale: fail(op->loc, "scalable vectors (T.vscale()) are not supported by the C target");
  case IntrinsicId::Abs:
    if (t.isUInt())
      return call1("", op->args[0]);
    if (t.isInt()) {
      const std::string &fn = support_.integerAbs(t.element());
      return call1(t.isVector() ? support_.lanewise(fn, t, 1) : fn, op->args[0]);
    }
    break;
  default: break;
  }
  if (info->c.empty() || !op->args[0]->type.isFloat() || op->args[0]->type.code() == DataType::Code::BFloat)
    fail(op->loc, "T." + op->op.str() + " is not supported on " + op->args[0]->type.str());
  DataType argType = op->args[0]->type;
  std::string fn = info->cTypeGeneric ? std::string(info->c) : mathName(info->c, argType);
  const bool half = !t.isVector() && isScalarHalf(t);
  if (half)
    out() += kHalfOpen;
  out() += t.isVector() ? support_.lanewise(fn, t, static_cast<int>(op->args.size()), argType) : fn;
  out() += '(';
  arguments(op, 0);
  out() += ')';
  if (half)
    out() += kHalfClose;
}

// T.call_extern: the call, and the function's prototype for the file.
void CFunctionEmitter::externCall(const CallNode *op) {
  const std::string &fn = op->args[0].as<StringImmNode>()->value;
  std::string proto(support_.typeName(op->type));
  proto += ' ';
  proto += fn;
  proto += '(';
  for (size_t k = 1; k < op->args.size(); ++k) {
    if (k > 1)
      proto += ", ";
    proto += support_.typeName(op->args[k]->type);
  }
  proto += op->args.size() == 1 ? "void);" : ");";
  support_.declareExtern(proto);
  out() += fn;
  out() += '(';
  arguments(op, 1);
  out() += ')';
}

void CFunctionEmitter::bitwiseNot(const CallNode *op) {
  const DataType t = op->type;
  if (t.isBool() && t.isVector()) {
    out() += '(';
    expr(op->args[0], 11);
    out() += " ^ ";
    out() += support_.broadcast(t);
    out() += "(1))";
    return;
  }
  if (t.isBool()) {
    out() += "(!";
  } else if (t.isVector()) {
    out() += "(~";
  } else {
    out() += "((";
    out() += support_.typeName(t);
    out() += ")~";
  }
  expr(op->args[0], 11);
  out() += ')';
}

// Shifts and bitwise operations. Scalars narrower than int are promoted and converted back;
// a left shift of a signed value is done on its unsigned type (C leaves shifting a negative
// value undefined; TIR wraps), on vectors too.
void CFunctionEmitter::bitwise(const CallNode *op, std::string_view text) {
  DataType t = op->type;
  if (op->intrinsic->id == IntrinsicId::ShiftLeft && t.isInt()) {
    std::string_view u = support_.typeName(unsignedOf(t));
    out() += "((";
    out() += support_.typeName(t);
    out() += ")((";
    out() += u;
    out() += ')';
    expr(op->args[0], 11);
    out() += text;
    if (t.isVector()) {
      out() += '(';
      out() += u;
      out() += ')';
    }
    expr(op->args[1], 11);
    out() += "))";
    return;
  }
  if (t.isVector()) {
    out() += '(';
    expr(op->args[0], 11);
    out() += text;
    expr(op->args[1], 11);
    out() += ')';
    return;
  }
  out() += "((";
  out() += support_.typeName(t);
  out() += ")(";
  expr(op->args[0], 11);
  out() += text;
  expr(op->args[1], 11);
  out() += "))";
}

} // namespace tirlower
