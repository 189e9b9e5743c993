// The C emitter: one traversal that writes C11 for a flattened module. Buffers are pointers to
// their scalar element type; vector values use the typedefs and helpers of CSupport.
#include "codegen/c_emitter.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "codegen/c_family.h"
#include "codegen/c_support.h"
#include "ir/access_census.h"
#include "ir/elem_offset.h"
#include "ir/functor.h"
#include "ir/intrinsics.h"
#include "ir/visitor.h"

namespace tirlower {

namespace {

int precedence(BinaryOp op) {
  switch (op) {
  case BinaryOp::Mul:
  case BinaryOp::Div:
  case BinaryOp::Mod: return 10;
  case BinaryOp::Add:
  case BinaryOp::Sub: return 9;
  case BinaryOp::LT:
  case BinaryOp::LE:
  case BinaryOp::GT:
  case BinaryOp::GE: return 7;
  case BinaryOp::EQ:
  case BinaryOp::NE: return 6;
  case BinaryOp::And: return 3;
  case BinaryOp::Or: return 2;
  default: return 20; // emitted as function calls
  }
}

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

class FunctionEmitter : private StmtFunctor<void(const Stmt &)>,
                        private ExprFunctor<std::string(const Expr &, int, bool)> {
public:
  FunctionEmitter(const PrimFuncNode &func, CSupport &support, const CEmitOptions &options,
                  std::set<std::string> &externs)
      : func_(func), support_(support), options_(options), externs_(externs),
        census_(AccessCensus::of(func.body, /*countAssume=*/false)) {}

  std::string emit(const std::string &symbol) {
    std::string signature = "int32_t " + symbol + "(";
    bool noalias = false;
    if (const AttrValue *a = func_.attrs.find("tir.noalias"))
      noalias = a->kind() == AttrValue::Kind::Bool ? a->asBool() : a->asInt() != 0;
    for (size_t k = 0; k < func_.params.size(); ++k) {
      const Var &param = func_.params[k];
      std::string name = bind(param.get(), param->name.view());
      if (k)
        signature += ", ";
      if (Buffer buffer = func_.bufferFor(param)) {
        bool readOnly = !census_.written.count(param.get());
        dataType_[param.get()] = buffer->dtype.element();
        signature += std::string(readOnly ? "const " : "") + support_.scalarTypeName(buffer->dtype.element()) + " *" +
                     (noalias ? "restrict " : "") + name;
        pointer_[buffer.get()] = name;
      } else if (param->type.isHandle()) {
        DataType pointee = param->pointeeType.isVoid() ? DataType::voidType() : param->pointeeType.element();
        dataType_[param.get()] = pointee;
        signature += support_.scalarTypeName(pointee) + " *" + name;
      } else {
        signature += support_.scalarTypeName(param->type) + " " + name;
      }
    }
    if (func_.params.empty())
      signature += "void";
    signature += ")";
    indent_ = 1;
    for (const Var &param : func_.params)
      if (!census_.used.count(param.get()))
        line("(void)" + names_.at(param.get()) + ";");
    emitStmt(func_.body);
    line("return 0;");
    return signature + " {\n" + body_ + "}\n";
  }

private:
  // ---- names -----------------------------------------------------------------------------
  std::string bind(const void *object, std::string_view hint) {
    std::string base = cIdentifier(hint), name = base;
    for (int n = 1; taken_.count(name) || isReservedCName(name); ++n)
      name = base + "_" + std::to_string(n);
    taken_.insert(name);
    names_[object] = name;
    return name;
  }
  const std::string &nameOf(const VarNode *var) {
    auto it = names_.find(var);
    if (it == names_.end())
      throw CompileError(var->loc, "C emitter: variable '" + var->name.str() + "' is used outside its definition");
    return it->second;
  }

  void line(const std::string &text) {
    body_.append(static_cast<size_t>(indent_) * 2, ' ');
    body_ += text;
    body_ += '\n';
  }

  // ---- buffers ----------------------------------------------------------------------------
  // The C pointer through which `buffer` is accessed, checking that C can express it.
  const std::string &pointerOf(const Buffer &buffer, SourceRange where) {
    pointerCheck(buffer, where);
    auto it = pointer_.find(buffer.get());
    if (it != pointer_.end())
      return it->second;
    // A view over known data: reuse the data's pointer, or cast it when the element type differs
    // (the alias in the IR states the reinterpretation).
    const VarNode *data = buffer->data.get();
    auto dataType = dataType_.find(data);
    if (dataType == dataType_.end())
      throw CompileError(where, "C emitter: buffer '" + buffer->name.str() + "' views data that is not defined");
    std::string base = nameOf(data);
    DataType element = buffer->dtype.element();
    if (dataType->second != element) {
      std::string name = bind(buffer.get(), buffer->name.view());
      bool readOnly = !census_.written.count(data) && isParamData(data);
      std::string t = std::string(readOnly ? "const " : "") + support_.scalarTypeName(element);
      line(t + " *" + name + " = (" + t + " *)" + base + ";");
      base = name;
    }
    return pointer_.emplace(buffer.get(), base).first->second;
  }

  bool isParamData(const VarNode *data) const {
    for (const Var &p : func_.params)
      if (p.get() == data)
        return true;
    return false;
  }

  void declareStorage(const VarNode *data, DataType element, const std::vector<Expr> &extents, int lanes,
                      SourceRange where) {
    if (element.isHandle() || element.isVoid())
      throw CompileError(where, "C emitter: cannot allocate elements of type " + element.str());
    std::string name = bind(data, data->name.view());
    dataType_[data] = element;
    std::string t = support_.scalarTypeName(element);
    int64_t count = lanes;
    bool constant = true;
    std::string countText = std::to_string(lanes);
    for (const Expr &e : extents) {
      const int64_t *v = asConstInt(e);
      if (v && count <= (int64_t(1) << 40) / std::max<int64_t>(*v, 1))
        count *= *v;
      else
        constant = false;
      countText += " * (size_t)(" + expr(e) + ")";
    }
    if (constant && count * element.laneBytes() <= 256 * 1024) {
      line(t + " " + name + "[" + std::to_string(std::max<int64_t>(count, 1)) + "] __attribute__((aligned(64)));");
      return;
    }
    line(t + " *" + name + " = (" + t + " *)malloc(sizeof(" + t + ") * " + countText + ");");
    line("if (!" + name + ") {");
    ++indent_;
    freeHeap();
    line("return 2;");
    --indent_;
    line("}");
    heap_.push_back(name);
  }

  void freeHeap() {
    for (auto it = heap_.rbegin(); it != heap_.rend(); ++it)
      line("free(" + *it + ");");
  }

  // ---- statements (StmtFunctor) -----------------------------------------------------------
  void emitStmt(const Stmt &s) { visitStmt(s); }

  void visitBlock(const BlockNode *op) override { throw CompileError(op->loc, "C emitter: " + blockMessage(*op)); }
  void visitSeqStmt(const SeqStmtNode *op) override {
    for (const Stmt &child : op->stmts)
      emitStmt(child);
  }
  void visitWhile(const WhileNode *op) override {
    line("while (" + expr(op->condition) + ") {");
    block(op->body);
    line("}");
  }
  void visitIfThenElse(const IfThenElseNode *op) override {
    line("if (" + expr(op->condition) + ") {");
    block(op->thenCase);
    if (op->elseCase) {
      line("} else {");
      block(op->elseCase);
    }
    line("}");
  }
  void visitLetStmt(const LetStmtNode *op) override {
    std::string value = expr(op->value);
    std::string name = bind(op->var.get(), op->var->name.view());
    if (std::optional<IntRanges::Range> r = ranges_.of(op->value))
      ranges_.set(op->var.get(), *r);
    if (census_.used.count(op->var.get()))
      line("const " + support_.typeName(op->var->type) + " " + name + " = " + value + ";");
    else
      line("(void)(" + value + ");");
    emitStmt(op->body);
  }
  void visitAllocate(const AllocateNode *op) override {
    const size_t heapBefore = heap_.size();
    declareStorage(op->bufferVar.get(), op->dtype.element(), op->extents, op->dtype.lanes(), op->loc);
    scoped(heapBefore, op->body);
  }
  void visitAllocBuffer(const AllocBufferNode *op) override {
    pointerCheck(op->buffer, op->buffer->loc.valid() ? op->buffer->loc : op->loc);
    const size_t heapBefore = heap_.size();
    declareStorage(op->buffer->data.get(), op->buffer->dtype.element(), op->buffer->shape, op->buffer->dtype.lanes(),
                   op->loc);
    scoped(heapBefore, op->body);
  }
  void visitDeclBuffer(const DeclBufferNode *op) override {
    pointerCheck(op->buffer, op->buffer->loc.valid() ? op->buffer->loc : op->loc);
    if (op->allocates) {
      const size_t heapBefore = heap_.size();
      declareStorage(op->buffer->data.get(), op->buffer->dtype.element(), op->buffer->shape, op->buffer->dtype.lanes(),
                     op->loc);
      return scoped(heapBefore, op->body);
    }
    emitStmt(op->body);
  }
  void visitAttrStmt(const AttrStmtNode *op) override {
    line("/* attr \"" + op->key.str() + "\" */");
    emitStmt(op->body);
  }
  void visitAssertStmt(const AssertStmtNode *op) override {
    line("if (!(" + expr(op->condition) + ")) {");
    ++indent_;
    line("/* assert: " + commentText(op->message) + " */");
    freeHeap();
    line("return 1;");
    --indent_;
    line("}");
  }
  void visitEvaluate(const EvaluateNode *op) override {
    if (op->value->kind() == ExprKind::IntImm || op->value->kind() == ExprKind::FloatImm)
      return;
    if (const auto *c = op->value.as<CallNode>(); c && c->intrinsic && c->intrinsic->id == IntrinsicId::Assume)
      return; // a fact for the compiler, nothing to compute
    line("(void)(" + expr(op->value) + ");");
  }

  static std::string commentText(const std::string &text) {
    std::string out;
    for (size_t k = 0; k < text.size(); ++k)
      out += (text[k] == '*' && k + 1 < text.size() && text[k + 1] == '/') || text[k] == '\n' ? ' ' : text[k];
    return out;
  }

  // Declared buffers must be 1-d even when nothing accesses them yet.
  void pointerCheck(const Buffer &buffer, SourceRange where) {
    if (buffer->shape.size() == 1 && buffer->axisSeparators.empty())
      return;
    std::string rank = std::to_string(buffer->shape.size());
    if (!buffer->axisSeparators.empty() && buffer->axisSeparators.size() + 1 == buffer->shape.size())
      throw CompileError(where, "buffer '" + buffer->name.str() + "' has physical rank " + rank +
                                    " (from its axis separators); the C emitter takes 1-d buffers only" +
                                    (buffer->scope.view().find("texture") != std::string_view::npos
                                         ? " (a texture buffer needs --emit=opencl)"
                                         : ""));
    throw CompileError(where, "buffer '" + buffer->name.str() + "' has rank " + rank +
                                  "; the C emitter takes 1-d buffers only (run the flatten pass first)");
  }

  // The body of an allocation: the heap storage declared since `heapBefore` (the allocation's
  // own, when it is on the heap) is freed where the body ends, in the C block that declared it,
  // so once per execution of the allocation (every iteration of an enclosing loop). Early
  // returns (asserts, a failed malloc) free what is live at that point: heap_ holds exactly the
  // storage whose scope encloses the statement being emitted.
  void scoped(size_t heapBefore, const Stmt &body) {
    emitStmt(body);
    while (heap_.size() > heapBefore) {
      line("free(" + heap_.back() + ");");
      heap_.pop_back();
    }
  }

  void block(const Stmt &body) {
    ++indent_;
    emitStmt(body);
    --indent_;
  }

  void visitFor(const ForNode *op) override {
    std::string t = support_.scalarTypeName(op->loopVar->type);
    std::string min = expr(op->min);
    bool zeroMin = asConstInt(op->min) && *asConstInt(op->min) == 0;
    std::string end = zeroMin ? expr(op->extent) : "(" + min + ") + (" + expr(op->extent) + ")";
    std::string name = bind(op->loopVar.get(), op->loopVar->name.view());
    bool parallel = op->forKind == ForKind::Parallel && options_.openmp && !inParallel_;
    if (parallel)
      line("#pragma omp parallel for");
    line("for (" + t + " " + name + " = " + min + "; " + name + " < " + end + "; ++" + name + ") {");
    ranges_.setLoop(op->loopVar.get(), op->min, op->extent);
    bool saved = inParallel_;
    inParallel_ |= parallel;
    block(op->body);
    inParallel_ = saved;
    ranges_.erase(op->loopVar.get());
    line("}");
  }

  void visitBufferStore(const BufferStoreNode *op) override {
    const std::string &pointer = pointerOf(op->buffer, op->loc);
    const Expr &index = op->indices.front();
    DataType valueType = op->value->type;
    std::string value = expr(op->value);
    if (valueType.isScalar()) {
      line(pointer + "[" + expr(flatElemOffset(*op->buffer, index)) + "] = " + value + ";");
      return;
    }
    int elementLanes = op->buffer->dtype.lanes();
    if (Expr start = contiguousElemOffset(*op->buffer, index)) {
      line(support_.vectorStore(valueType) + "(" + pointer + " + " + expr(start) + ", " + value + ");");
      return;
    }
    // Scatter lane by lane: index lane k covers elementLanes value lanes.
    std::string it = support_.typeName(index->type);
    line("{");
    ++indent_;
    line(it + " tl_index = " + expr(index) + ";");
    line(support_.typeName(valueType) + " tl_value = " + value + ";");
    line("for (int k = 0; k < " + std::to_string(index->type.lanes()) + "; ++k)");
    line("  for (int m = 0; m < " + std::to_string(elementLanes) + "; ++m)");
    line("    " + pointer + "[" + offsetText(*op->buffer, "tl_index[k]") + " * " + std::to_string(elementLanes) +
         " + m] = tl_value[k * " + std::to_string(elementLanes) + " + m];");
    --indent_;
    line("}");
  }

  std::string offsetText(const BufferNode &buffer, const std::string &index) {
    std::string e = "(" + index + ")";
    if (!buffer.strides.empty())
      e = "(" + e + " * " + expr(buffer.strides[0]) + ")";
    if (buffer.elemOffset)
      e = "(" + e + " + " + expr(buffer.elemOffset) + ")";
    return e;
  }

  // ---- expressions (ExprFunctor): `parent` is the C precedence of the enclosing operator,
  // `right` whether this is its right operand ----
  std::string expr(const Expr &e, int parent = 0, bool right = false) { return visitExpr(e, parent, right); }

  std::string visitVar(const VarNode *op, int, bool) override { return nameOf(op); }
  std::string visitIntImm(const IntImmNode *op, int, bool) override { return intLiteral(op->type, op->value); }
  std::string visitFloatImm(const FloatImmNode *op, int, bool) override { return cFloatLiteral(op->value, op->type); }
  std::string visitStringImm(const StringImmNode *op, int, bool) override { return quoted(op->value); }
  std::string visitNot(const NotNode *op, int, bool) override {
    if (op->type.isVector())
      return "(" + expr(op->a, 11) + " ^ " + support_.broadcast(op->type) + "(1))";
    return "!" + expr(op->a, 11);
  }
  std::string visitSelect(const SelectNode *op, int, bool) override {
    if (op->condition->type.isVector())
      return support_.select(op->type) + "(" + expr(op->condition) + ", " + expr(op->trueValue) + ", " +
             expr(op->falseValue) + ")";
    return "(" + expr(op->condition, 1) + " ? " + expr(op->trueValue, 1) + " : " + expr(op->falseValue, 1) + ")";
  }
  std::string visitCast(const CastNode *op, int, bool) override {
    if (op->type.isVector())
      return support_.convert(op->value->type, op->type) + "(" + expr(op->value) + ")";
    if (op->type.isBool())
      return "(" + expr(op->value, 6) + " != 0)";
    return "(" + support_.typeName(op->type) + ")" + expr(op->value, 11);
  }
  std::string visitRamp(const RampNode *op, int, bool) override {
    return support_.ramp(op->type) + "(" + expr(op->base) + ", " + expr(op->stride) + ")";
  }
  std::string visitBroadcast(const BroadcastNode *op, int, bool) override {
    return support_.broadcast(op->type) + "(" + expr(op->value) + ")";
  }
  std::string visitLet(const LetNode *op, int, bool) override {
    std::string value = expr(op->value);
    std::string name = bind(op->var.get(), op->var->name.view());
    return "({ const " + support_.typeName(op->var->type) + " " + name + " = " + value + "; " + expr(op->body) +
           "; })";
  }

  static std::string quoted(const std::string &text) {
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

  static std::string intLiteral(DataType type, int64_t v) {
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

  std::string visitBinary(const BinaryNode *op, int parent, bool right) override {
    DataType t = op->a->type;
    bool vector = t.isVector();
    auto call2 = [&](const std::string &fn) { return fn + "(" + expr(op->a) + ", " + expr(op->b) + ")"; };
    switch (op->op) {
    case BinaryOp::FloorDiv:
      if (t.isFloat())
        return vector ? call2(support_.lanewise(support_.floatFloorDiv(t.element()), t, 2)) : floatFloorDiv(op);
      if (t.isUInt())
        break;
      return call2(vector ? support_.lanewise(support_.floorDiv(t.element()), t, 2) : support_.floorDiv(t));
    case BinaryOp::FloorMod:
      if (t.isFloat())
        return vector ? call2(support_.lanewise(support_.floatFloorMod(t.element()), t, 2)) : floatFloorMod(op);
      if (t.isUInt())
        break;
      return call2(vector ? support_.lanewise(support_.floorMod(t.element()), t, 2) : support_.floorMod(t));
    case BinaryOp::Min:
    case BinaryOp::Max: return call2(support_.minMax(op->op == BinaryOp::Max, t));
    case BinaryOp::Mod:
      if (t.isFloat()) {
        if (vector)
          return call2(support_.lanewise(mathName("fmod", t), t, 2));
        return isScalarHalf(t) ? roundedHalf(call2(mathName("fmod", t))) : call2(mathName("fmod", t));
      }
      [[fallthrough]];
    case BinaryOp::Div:
      // MIN / -1 and MIN % -1 are undefined in C (TIR wraps): a helper unless the divisor
      // cannot be -1. Scalars narrower than int are promoted, where it cannot happen.
      if (t.isInt() && (vector || t.bits() >= 32) && ranges_.mayBeMinusOne(op->b)) {
        std::string fn = op->op == BinaryOp::Div ? support_.truncDiv(t.element()) : support_.truncMod(t.element());
        return call2(vector ? support_.lanewise(fn, t, 2) : fn);
      }
      break;
    default: break;
    }
    BinaryOp effective = op->op == BinaryOp::FloorDiv   ? BinaryOp::Div
                         : op->op == BinaryOp::FloorMod ? BinaryOp::Mod
                                                        : op->op;
    if (vector && isComparison(effective))
      return call2(support_.compare(cInfixOperator(effective, false), t));
    if (ranges_.mayOverflow(op)) {
      // TIR integers wrap around; signed overflow is undefined in C, so compute in unsigned.
      // A vector is reinterpreted as the unsigned vector of the same size.
      std::string u = "(" + support_.typeName(DataType(DataType::Code::UInt, t.bits(), t.lanes())) + ")";
      return "(" + support_.typeName(t) + ")(" + u + expr(op->a, 11) + " " + cInfixOperator(effective, false) + " " +
             u + expr(op->b, 11) + ")";
    }
    int p = precedence(effective);
    // Vector and/or are the bitwise & and |: their binary operands get parentheses (the
    // precedence is right without them, but -Wparentheses asks for them); so does an `&&`
    // inside `||`.
    int operand = vector && (effective == BinaryOp::And || effective == BinaryOp::Or) ? 11
                  : effective == BinaryOp::Or                                         ? precedence(BinaryOp::And) + 1
                                                                                      : p;
    std::string text =
        expr(op->a, operand, false) + " " + cInfixOperator(effective, vector) + " " + expr(op->b, operand, true);
    // Integers narrower than int are promoted in C: the result is converted back so that it
    // wraps at the type's width like TIR's (int8 100 + 100 is -56 wherever it is used).
    if (!vector && t.isIntOrUInt() && t.bits() < 32 &&
        (effective == BinaryOp::Add || effective == BinaryOp::Sub || effective == BinaryOp::Mul ||
         effective == BinaryOp::Div)) {
      // uint16 operands promote to (signed) int, where 65535 * 65535 overflows: multiply in uint32.
      if (t.isUInt() && t.bits() == 16 && effective == BinaryOp::Mul)
        text = "(uint32_t)" + expr(op->a, 11) + " * " + expr(op->b, 11);
      return "((" + support_.typeName(t) + ")(" + text + "))";
    }
    if (isScalarHalf(t) && (effective == BinaryOp::Add || effective == BinaryOp::Sub ||
                            effective == BinaryOp::Mul || effective == BinaryOp::Div))
      return roundedHalf(text);
    bool wrap = p < parent || (p == parent && right) || (parent >= 6 && parent <= 7 && p <= 7);
    return wrap ? "(" + text + ")" : text;
  }

  std::string floatFloorDiv(const BinaryNode *op) {
    std::string a = expr(op->a, 10), b = expr(op->b, 10, true);
    if (isScalarHalf(op->type))
      return roundedHalf(mathName("floor", op->type) + "(" + roundedHalf(a + " / " + b) + ")");
    return mathName("floor", op->type) + "(" + a + " / " + b + ")";
  }
  std::string floatFloorMod(const BinaryNode *op) {
    std::string a = expr(op->a, 10), b = expr(op->b, 10, true);
    if (isScalarHalf(op->type))
      return roundedHalf(a + " - " +
                         roundedHalf(mathName("floor", op->type) + "(" + roundedHalf(a + " / " + b) + ") * " + b));
    return "(" + a + " - " + mathName("floor", op->type) + "(" + a + " / " + b + ") * " + b + ")";
  }

  // Intrinsic calls, spelled as the intrinsic table says: libm functions (lane by lane on
  // vectors), the table's expansion for composite ones, and C operators for the bitwise ones.
  std::string visitCall(const CallNode *op, int parent, bool right) override {
    const IntrinsicInfo *info = op->intrinsic;
    if (!info)
      throw CompileError(op->loc, "C emitter: unknown intrinsic T." + op->op.str());
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
    case IntrinsicId::IfThenElse:
      return "(" + expr(op->args[0], 1) + " ? " + expr(op->args[1], 1) + " : " + expr(op->args[2], 1) + ")";
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
      throw CompileError(op->loc, "C emitter: T." + op->op.str() + " is not supported on " + op->args[0]->type.str());
    DataType argType = op->args[0]->type;
    std::string fn = info->cTypeGeneric ? std::string(info->c) : mathName(std::string(info->c), argType);
    if (t.isVector())
      return support_.lanewise(fn, t, static_cast<int>(op->args.size()), argType) + "(" + args(0) + ")";
    return isScalarHalf(t) ? roundedHalf(fn + "(" + args(0) + ")") : fn + "(" + args(0) + ")";
  }

  // Shifts and bitwise operations. Scalars narrower than int are promoted and converted back;
  // a left shift of a signed value is done on its unsigned type (C leaves shifting a negative
  // value undefined; TIR wraps), on vectors too.
  std::string bitwise(const CallNode *op, std::string_view text) {
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

  std::string visitBufferLoad(const BufferLoadNode *op, int, bool) override {
    const std::string &pointer = pointerOf(op->buffer, op->loc);
    const Expr &index = op->indices.front();
    if (op->type.isScalar())
      return pointer + "[" + expr(flatElemOffset(*op->buffer, index)) + "]";
    if (Expr start = contiguousElemOffset(*op->buffer, index))
      return support_.vectorLoad(op->type) + "(" + pointer + " + " + expr(start) + ")";
    // Gather lane by lane.
    int elementLanes = op->buffer->dtype.lanes();
    std::string vt = support_.typeName(op->type), it = support_.typeName(index->type);
    const int lanes = op->type.lanes(), physical = cVectorLanes(lanes);
    std::string padding = physical == lanes
                              ? ""
                              : "for (int k = " + std::to_string(lanes) + "; k < " + std::to_string(physical) +
                                    "; ++k) tl_value[k] = tl_value[" + std::to_string(lanes - 1) + "]; ";
    return "({ " + it + " tl_index = " + expr(index) + "; " + vt + " tl_value; for (int k = 0; k < " +
           std::to_string(index->type.lanes()) + "; ++k) for (int m = 0; m < " + std::to_string(elementLanes) +
           "; ++m) tl_value[k * " + std::to_string(elementLanes) + " + m] = " + pointer + "[" +
           offsetText(*op->buffer, "tl_index[k]") + " * " + std::to_string(elementLanes) + " + m]; " + padding +
           "tl_value; })";
  }

  const PrimFuncNode &func_;
  CSupport &support_;
  const CEmitOptions &options_;
  std::set<std::string> &externs_;
  AccessCensus census_; // T.assume emits nothing: what only it uses is unused in C
  std::unordered_map<const void *, std::string> names_;
  std::unordered_set<std::string> taken_;
  std::unordered_map<const BufferNode *, std::string> pointer_;
  std::unordered_map<const VarNode *, DataType> dataType_;
  IntRanges ranges_; // loop and let variables with known bounds
  std::vector<std::string> heap_;
  std::string body_;
  int indent_ = 0;
  bool inParallel_ = false;
};

} // namespace

std::string emitC(const Module &module, const CEmitOptions &options, DiagnosticSink &diagnostics) {
  CSupport support;
  std::set<std::string> externs;
  std::string functions;
  std::unordered_set<std::string> symbols;
  for (const PrimFunc &func : module.functions) {
    std::string symbol = cSymbolName(*func);
    if (symbol != cIdentifier(func->globalSymbol()))
      diagnostics.warning(func->loc, "C symbol '" + cIdentifier(func->globalSymbol()) + "' of function '" +
                                         func->name.str() + "' is renamed '" + symbol +
                                         "'; set \"global_symbol\" in T.func_attr to choose the name");
    if (!symbols.insert(symbol).second)
      throw CompileError(func->loc, "two functions have the C symbol '" + symbol + "'");
    FunctionEmitter emitter(*func, support, options, externs);
    functions += "\n" + emitter.emit(symbol);
  }
  std::string out = "// Generated by tirlower. C11 with GCC/Clang vector extensions.\n"
                    "#include <math.h>\n#include <stdbool.h>\n#include <stdint.h>\n#include <stdlib.h>\n"
                    "#include <string.h>\n\n"
                    "#ifdef __GNUC__\n"
                    "/* The vector helpers are static: their by-value vector ABI never crosses this file. */\n"
                    "#pragma GCC diagnostic ignored \"-Wpsabi\"\n"
                    "#endif\n\n";
  out += support.preamble();
  for (const std::string &proto : externs)
    out += "extern " + proto + "\n";
  return out + functions;
}

} // namespace tirlower
