// Expressions. Every binary operation is parenthesised (the precedence arguments of
// CFamilyEmitter are ignored). Vector conditions are int masks (lanes
// -1 or 0), converted to the width select() needs at the point of use.
#include "codegen/c_family.h"
#include "codegen/opencl/kernel_emitter.h"
#include "ir/intrinsics.h"

namespace tirlower {

namespace {

// The integer type of a select() mask for values of `type` (same lane width).
DataType maskType(DataType type) {
  int bits = type.isBool() ? 32 : type.bits();
  return {DataType::Code::Int, bits, type.lanes()};
}

} // namespace

std::string KernelEmitter::typeName(DataType type, SourceRange where) {
  support_.noteType(type);
  return openclTypeName(type, where);
}

void KernelEmitter::visitIntImm(const IntImmNode *op, int, bool) {
  return put(openclIntLiteral(op->type, op->value));
}

void KernelEmitter::visitFloatImm(const FloatImmNode *op, int, bool) {
  support_.noteType(op->type);
  return put(openclFloatLiteral(op->type, op->value));
}

void KernelEmitter::visitStringImm(const StringImmNode *op, int, bool) {
  fail(op->loc, "a string is not a value in OpenCL C");
}

void KernelEmitter::visitNot(const NotNode *op, int, bool) {
  return put(std::string(op->type.isVector() ? "(~" : "(!") + exprText(op->a) + ")");
}

void KernelEmitter::visitBroadcast(const BroadcastNode *op, int, bool) {
  std::string t = typeName(op->type, op->loc);
  if (op->type.isBool())
    return put("((" + t + ")(-(int)(" + exprText(op->value) + ")))");
  return put("((" + t + ")(" + exprText(op->value) + "))");
}

void KernelEmitter::visitLet(const LetNode *op, int, bool) {
  // OpenCL C has no statement expressions: the binding becomes a declaration before the
  // statement that uses it.
  std::string value = exprText(op->value);
  std::string name = bind(op->var.get(), op->var->name.view());
  if (std::optional<IntRanges::Range> r = ranges_.of(op->value))
    ranges_.set(op->var.get(), *r);
  line("const " + typeName(op->var->type, op->loc) + " " + name + " = " + value + ";");
  return put(exprText(op->body));
}

std::string KernelEmitter::bare(const Expr &e) {
  std::string text = exprText(e);
  if (text.size() < 2 || text.front() != '(' || text.back() != ')')
    return text;
  int depth = 0;
  for (size_t k = 0; k + 1 < text.size(); ++k) {
    depth += text[k] == '(' ? 1 : text[k] == ')' ? -1 : 0;
    if (depth == 0)
      return text; // the first parenthesis closes before the end: "(a) + (b)"
  }
  return text.substr(1, text.size() - 2);
}

void KernelEmitter::visitBinary(const BinaryNode *op, int, bool) {
  const DataType t = op->a->type;
  auto call2 = [&](const std::string &fn) { return fn + "(" + exprText(op->a) + ", " + exprText(op->b) + ")"; };
  const BinaryPlan plan = binaryForm(op);
  switch (plan.form) {
  case BinaryForm::Floor:
    if (t.isBool())
      fail(op->loc, "floor division of bool values");
    return put(call2(plan.op == BinaryOp::FloorDiv ? support_.floorDiv(t, op->loc) : support_.floorMod(t, op->loc)));
  case BinaryForm::MinMax:
    if (t.isBool())
      return put(infix(op, plan.op == BinaryOp::Min ? BinaryOp::And : BinaryOp::Or));
    typeName(t, op->loc);
    return put(call2(plan.op == BinaryOp::Min ? "min" : "max"));
  case BinaryForm::FloatMod: return put(call2("fmod"));
  case BinaryForm::Trunc:
    return put(call2(plan.op == BinaryOp::Div ? support_.truncDiv(t, op->loc) : support_.truncMod(t, op->loc)));
  case BinaryForm::Wrapping: return put(wrapping(op));
  case BinaryForm::Infix: break;
  }
  return put(infix(op, plan.op));
}

std::string KernelEmitter::infix(const BinaryNode *op, BinaryOp kind) {
  const DataType t = op->a->type;
  const bool vector = t.isVector();
  std::string text = "(" + exprText(op->a) + " " + cInfixOperator(kind, vector) + " " + exprText(op->b) + ")";
  // Scalars narrower than int are promoted (as in C): the result is converted back so that it
  // wraps at its width like TIR's wherever it is used; ushort products are formed in uint
  // (65535 * 65535 overflows int).
  if (!vector && t.isIntOrUInt() && t.bits() < 32 &&
      (kind == BinaryOp::Add || kind == BinaryOp::Sub || kind == BinaryOp::Mul || kind == BinaryOp::Div ||
       kind == BinaryOp::Mod)) {
    if (t.isUInt() && t.bits() == 16 && kind == BinaryOp::Mul)
      text = "((uint)" + exprText(op->a) + " * " + exprText(op->b) + ")";
    return "((" + typeName(t, op->loc) + ")" + text + ")";
  }
  // Vector comparisons give masks as wide as their operands; keep int masks throughout.
  if (vector && isComparison(kind) && maskType(t).bits() != 32)
    return "convert_int" + std::to_string(t.lanes()) + text;
  return text;
}

namespace {

DataType unsignedType(DataType type) {
  return {DataType::Code::UInt, type.bits(), type.lanes()};
}

// `value` modulo 2^bits of `type`, as that unsigned scalar type's literal.
std::string unsignedLiteral(DataType type, int64_t value) {
  uint64_t bits = static_cast<uint64_t>(value);
  if (type.bits() < 64)
    bits &= (uint64_t(1) << type.bits()) - 1;
  return openclIntLiteral(unsignedType(type.element()), static_cast<int64_t>(bits));
}

} // namespace

std::string KernelEmitter::wrapping(const BinaryNode *op) {
  return "as_" + typeName(op->type, op->loc) + "(" + unsignedText(op->a) + " " +
         cInfixOperator(op->op, op->type.isVector()) + " " + unsignedText(op->b) + ")";
}

std::string KernelEmitter::unsignedText(const Expr &e) {
  DataType u = unsignedType(e->type);
  if (const auto *op = e.as<BinaryNode>(); op && ranges_.mayOverflow(op))
    return "(" + unsignedText(op->a) + " " + cInfixOperator(op->op, u.isVector()) + " " + unsignedText(op->b) + ")";
  if (const int64_t *v = asConstInt(e))
    return unsignedLiteral(u, *v);
  const auto *broadcast = e.as<BroadcastNode>();
  if (const int64_t *v = broadcast ? asConstInt(broadcast->value) : nullptr)
    return "((" + typeName(u, e->loc) + ")(" + unsignedLiteral(u, *v) + "))";
  return "as_" + typeName(u, e->loc) + "(" + bare(e) + ")";
}

// base + (0, 1, 2, 3) * stride; wrapping where a lane may leave a signed type's range.
void KernelEmitter::visitRamp(const RampNode *op, int, bool) {
  DataType type = op->type;
  std::string t = typeName(type, op->loc), lanes;
  const int64_t *stride = asConstInt(op->stride);
  bool wrap = false;
  if (type.isInt()) {
    // Every lane, and every lane offset k * stride, must stay in the type's range.
    __int128 last = static_cast<__int128>(op->lanes - 1) * (stride ? *stride : 0);
    __int128 limit = __int128(1) << (type.bits() - 1);
    std::optional<IntRanges::Range> base = ranges_.of(op->base);
    wrap = !stride || !base || last < -limit || last >= limit ||
           std::min<__int128>(base->first, base->first + last) < -limit ||
           std::max<__int128>(base->second, base->second + last) >= limit;
  }
  if (!wrap) {
    for (int k = 0; k < op->lanes; ++k)
      lanes += (k ? ", " : "") + (stride ? openclIntLiteral(op->stride->type, k * *stride) : std::to_string(k));
    std::string text = "((" + t + ")(" + exprText(op->base) + ") + (" + t + ")(" + lanes + ")";
    if (!stride)
      text += " * (" + t + ")(" + exprText(op->stride) + ")";
    return put(text + ")");
  }
  // In the unsigned type: (uint4)(b) + (uint4)(0u, 5u, 10u, 15u), or * (uint4)(stride).
  DataType u = unsignedType(type);
  std::string ut = typeName(u, op->loc);
  for (int k = 0; k < op->lanes; ++k)
    lanes +=
        (k ? ", " : "") +
        (stride ? unsignedLiteral(u, static_cast<int64_t>(static_cast<uint64_t>(k) * static_cast<uint64_t>(*stride)))
                : unsignedLiteral(u, k));
  std::string offsets = "(" + ut + ")(" + lanes + ")";
  if (!stride)
    offsets += " * (" + ut + ")(" + unsignedText(op->stride) + ")";
  return put("as_" + t + "((" + ut + ")(" + unsignedText(op->base) + ") + " + offsets + ")");
}

void KernelEmitter::visitCast(const CastNode *op, int, bool) {
  DataType from = op->value->type, to = op->type;
  std::string value = exprText(op->value);
  if (from == to)
    return put(value);
  std::string t = typeName(to, op->loc);
  if (to.isScalar()) {
    if (to.isBool())
      return put("(" + value + " != 0)");
    return put("((" + t + ")" + value + ")");
  }
  std::string lanes = std::to_string(to.lanes());
  if (to.isBool()) {
    std::string test = "(" + value + " != (" + typeName(from, op->loc) + ")(0))";
    return put(maskType(from).bits() == 32 ? test : "convert_int" + lanes + test);
  }
  if (from.isBool())
    return put("convert_" + t + "(-" + value + ")");
  return put("convert_" + t + "(" + value + ")");
}

void KernelEmitter::vectorSelect(const Expr &condition, const Expr &trueValue, const Expr &falseValue,
                                 SourceRange where) {
  std::string c = exprText(condition), t = exprText(trueValue), f = exprText(falseValue);
  DataType mask = maskType(trueValue->type);
  if (mask.bits() != 32)
    c = "convert_" + typeName(mask, where) + "(" + c + ")";
  return put("select(" + f + ", " + t + ", " + c + ")");
}

// Intrinsic calls, spelled as the intrinsic table says: the OpenCL C builtin (which takes
// vectors as they are), else the table's expansion, else code of its own here.
void KernelEmitter::visitCall(const CallNode *op, int, bool) {
  const IntrinsicInfo *info = op->intrinsic;
  const std::string &name = op->op.str();
  if (!info)
    fail(op->loc, "intrinsic T." + name + " has no OpenCL C equivalent");
  if (info->id == IntrinsicId::VScale)
    fail(op->loc, "scalable vectors (T.vscale()) are not supported by the OpenCL target");
  if (isGpuBuiltin(*info) && !isStatementIntrinsic(*info))
    return warpCall(op);
  const DataType t = op->type, argType = op->args[0]->type;
  switch (info->id) {
  case IntrinsicId::IfThenElse: return conditional(op->args[0], op->args[1], op->args[2], op->loc);
  case IntrinsicId::Likely: return put(exprText(op->args[0]));
  case IntrinsicId::Assume: return put("1"); // a hint: its statement emits nothing
  case IntrinsicId::CallExtern:
  case IntrinsicId::CallPureExtern:
    fail(op->loc, "T." + name + " cannot be expressed in OpenCL C: a kernel calls no external functions");
  case IntrinsicId::Reinterpret: return put("as_" + typeName(t, op->loc) + "(" + exprText(op->args[0]) + ")");
  case IntrinsicId::ShiftLeft:
  case IntrinsicId::ShiftRight:
  case IntrinsicId::BitwiseAnd:
  case IntrinsicId::BitwiseOr:
  case IntrinsicId::BitwiseXor: return put(bitwise(op));
  case IntrinsicId::BitwiseNot: {
    std::string a = exprText(op->args[0]);
    if (t.isBool() && t.isScalar())
      return put("(!" + a + ")");
    if (t.isVector() || t.isBool() || t.bits() >= 32)
      return put("(~" + a + ")");
    return put("((" + typeName(t, op->loc) + ")~" + a + ")");
  }
  case IntrinsicId::Abs:
    if (t.isUInt())
      return put("(" + exprText(op->args[0]) + ")");
    if (t.isInt()) // not OpenCL's abs: its result is unsigned, and PoCL's is poison for MIN
      return put(support_.integerAbs(t, op->loc) + "(" + exprText(op->args[0]) + ")");
    break;
  default: break;
  }
  if (info->opencl.empty()) {
    if (Expr expanded = expandIntrinsic(*op))
      return put(exprText(expanded));
    fail(op->loc, "intrinsic T." + name + " has no OpenCL C equivalent");
  }
  if (!argType.isFloat())
    fail(op->loc, "T." + name + " is not supported on " + t.str());
  typeName(argType, op->loc);
  std::string args;
  for (size_t k = 0; k < op->args.size(); ++k)
    args += (k ? ", " : "") + exprText(op->args[k]);
  std::string text = std::string(info->opencl) + "(" + args + ")";
  // isnan & co. give masks as wide as their operand's lanes; keep int masks throughout.
  if (info->rule == TypeRule::FloatPredicate && argType.isVector() && argType.bits() != 32)
    return put("convert_int" + std::to_string(argType.lanes()) + "(" + text + ")");
  return put(text);
}

// T.tvm_warp_shuffle[_up|_down](mask, value, lane or delta, width, warp size) as the helper
// computing CUDA's __shfl_*_sync with sub-group functions, T.tvm_warp_activemask() as the
// sub-group's lanes. Sub-group functions take no mask: every work-item of the sub-group reaches
// them (the interpreter checks that the lanes a mask names meet, at --warp-size).
void KernelEmitter::warpCall(const CallNode *op) {
  const int lanes = support_.subgroupSize();
  const std::string name = "T." + op->op.str();
  if (!lanes)
    fail(op->loc, name + " needs sub-group functions: give --subgroup-size=N when the device offers "
                         "cl_khr_subgroup_shuffle and cl_khr_subgroup_shuffle_relative and runs kernels in "
                         "sub-groups of N work-items (OpenCL has no warps otherwise)");
  if (op->intrinsic->id == IntrinsicId::WarpActiveMask)
    return put(support_.warpHelper("activemask", op->type, op->loc) + "()");
  const int64_t *warp = asConstInt(op->args[4]);
  if (!warp || *warp != lanes)
    fail(op->loc, name + " was lowered for warps of " +
                      (warp ? std::to_string(*warp) + " lanes" : std::string("a size that is not a constant")) +
                      ", but --subgroup-size=" + std::to_string(lanes) + " says the device's sub-groups have " +
                      std::to_string(lanes) + " work-items");
  const std::string kind = op->intrinsic->id == IntrinsicId::WarpShuffleUp     ? "shuffle_up"
                           : op->intrinsic->id == IntrinsicId::WarpShuffleDown ? "shuffle_down"
                                                                               : "shuffle";
  const std::string helper = support_.warpHelper(kind, op->type, op->loc);
  put(helper + "(" + bare(op->args[1]) + ", (uint)" + exprText(op->args[2]) + ", (uint)" + exprText(op->args[3]) +
      ")");
}

// Shifts and bitwise operations. A signed left shift is done on the unsigned type (OpenCL C
// leaves shifting a negative value undefined; TIR wraps); scalars narrower than int are
// promoted and converted back, as in C.
std::string KernelEmitter::bitwise(const CallNode *op) {
  const DataType t = op->type;
  std::string o(op->intrinsic->operatorText);
  if (op->intrinsic->id == IntrinsicId::ShiftLeft && t.isInt()) {
    DataType u(DataType::Code::UInt, t.bits(), t.lanes());
    if (t.isVector())
      return "as_" + typeName(t, op->loc) + "(as_" + typeName(u, op->loc) + "(" + exprText(op->args[0]) + ")" + o +
             "as_" + typeName(u, op->loc) + "(" + exprText(op->args[1]) + "))";
    return "((" + typeName(t, op->loc) + ")((" + typeName(u, op->loc) + ")" + exprText(op->args[0]) + o +
           exprText(op->args[1]) + "))";
  }
  std::string text = "(" + exprText(op->args[0]) + o + exprText(op->args[1]) + ")";
  if (t.isScalar() && !t.isBool() && t.bits() < 32)
    return "((" + typeName(t, op->loc) + ")" + text + ")";
  return text;
}

} // namespace tirlower
