#include "codegen/c_family_emitter.h"

#include "ir/intrinsics.h"

namespace tirlower {

CFamilyEmitter::CFamilyEmitter(const PrimFuncNode &func, AccessCensus access)
    : func_(func), access_(std::move(access)) {}

// ---- names and lines ----------------------------------------------------------------------------

std::string CFamilyEmitter::bind(const void *object, std::string_view hint) {
  std::string base = cIdentifier(hint), name = base;
  for (int n = 1; taken_.count(name) || isReservedName(name); ++n)
    name = base + "_" + std::to_string(n);
  taken_.insert(name);
  names_[object] = name;
  return name;
}

const std::string &CFamilyEmitter::nameOf(const VarNode *var, SourceRange where) {
  auto it = names_.find(var);
  if (it == names_.end())
    fail(where, "variable '" + var->name.str() + "' is used outside its definition");
  return it->second;
}

void CFamilyEmitter::line(const std::string &text) {
  body_.append(static_cast<size_t>(indent_) * 2, ' ');
  body_ += text;
  body_ += '\n';
}

void CFamilyEmitter::block(const Stmt &body) {
  ++indent_;
  emitStmt(body);
  --indent_;
}

bool CFamilyEmitter::noalias() const {
  const AttrValue *a = func_.attrs.find("tir.noalias");
  if (!a)
    return false;
  return a->kind() == AttrValue::Kind::Bool ? a->asBool() : a->asInt() != 0;
}

// ---- statements ---------------------------------------------------------------------------------

void CFamilyEmitter::visitBlock(const BlockNode *op) {
  fail(op->loc, blockMessage(*op));
}

void CFamilyEmitter::visitSeqStmt(const SeqStmtNode *op) {
  for (const Stmt &child : op->stmts)
    emitStmt(child);
}

void CFamilyEmitter::visitIfThenElse(const IfThenElseNode *op) {
  line("if (" + statementExpr(op->condition) + ") {");
  block(op->thenCase);
  if (op->elseCase) {
    line("} else {");
    block(op->elseCase);
  }
  line("}");
}

void CFamilyEmitter::visitLetStmt(const LetStmtNode *op) {
  std::string value = statementExpr(op->value);
  std::string name = bind(op->var.get(), op->var->name.view());
  if (std::optional<IntRanges::Range> r = ranges_.of(op->value))
    ranges_.set(op->var.get(), *r);
  if (access_.used.count(op->var.get()))
    line("const " + typeName(op->var->type, op->loc) + " " + name + " = " + value + ";");
  else if (!dropUnusedConstantLets_ || !asConstInt(op->value))
    line("(void)(" + value + ");");
  emitStmt(op->body);
}

void CFamilyEmitter::allocation(const VarNode *data, DataType type, const std::vector<Expr> &extents, Symbol scope,
                                SourceRange where, const Stmt &body) {
  const size_t mark = storageMark();
  declareStorage(data, type, extents, scope, where);
  emitStmt(body);
  releaseStorage(mark);
}

void CFamilyEmitter::visitAllocate(const AllocateNode *op) {
  allocation(op->bufferVar.get(), op->dtype, op->extents, op->scope, op->loc, op->body);
}

void CFamilyEmitter::visitAllocBuffer(const AllocBufferNode *op) {
  checkDeclaredBuffer(op->buffer, op->loc);
  const BufferNode &b = *op->buffer;
  allocation(b.data.get(), b.dtype, b.shape, b.scope, op->loc, op->body);
}

void CFamilyEmitter::visitDeclBuffer(const DeclBufferNode *op) {
  checkDeclaredBuffer(op->buffer, op->loc);
  const BufferNode &b = *op->buffer;
  if (op->allocates)
    return allocation(b.data.get(), b.dtype, b.shape, b.scope, op->loc, op->body);
  emitStmt(op->body);
}

void CFamilyEmitter::visitAttrStmt(const AttrStmtNode *op) {
  if (const auto *data = op->node.as<VarNode>(); data && op->key.view() == "nontemporal_store") {
    streaming_.push_back(data);
    emitStmt(op->body);
    streaming_.pop_back();
    return;
  }
  line("/* attr \"" + op->key.str() + "\" */");
  emitStmt(op->body);
}

void CFamilyEmitter::visitEvaluate(const EvaluateNode *op) {
  if (op->value->kind() == ExprKind::IntImm || op->value->kind() == ExprKind::FloatImm)
    return;
  if (const auto *c = op->value.as<CallNode>(); c && c->intrinsic && c->intrinsic->id == IntrinsicId::Assume)
    return; // a fact for the compiler, nothing to compute
  line("(void)(" + expr(op->value) + ");");
}

void CFamilyEmitter::emitLoop(const ForNode *op) {
  std::string t = typeName(op->loopVar->type, op->loc);
  std::string min = expr(op->min);
  bool zeroMin = asConstInt(op->min) && *asConstInt(op->min) == 0;
  std::string end = zeroMin ? expr(op->extent) : "(" + min + ") + (" + expr(op->extent) + ")";
  std::string name = bind(op->loopVar.get(), op->loopVar->name.view());
  line("for (" + t + " " + name + " = " + min + "; " + name + " < " + end + "; ++" + name + ") {");
  ranges_.setLoop(op->loopVar.get(), op->min, op->extent);
  block(op->body);
  ranges_.erase(op->loopVar.get());
  line("}");
}

// ---- expressions --------------------------------------------------------------------------------

std::string CFamilyEmitter::visitVar(const VarNode *op, int, bool) {
  return nameOf(op, op->loc);
}

std::string CFamilyEmitter::visitSelect(const SelectNode *op, int, bool) {
  return conditional(op->condition, op->trueValue, op->falseValue, op->loc);
}

std::string CFamilyEmitter::conditional(const Expr &condition, const Expr &trueValue, const Expr &falseValue,
                                        SourceRange where) {
  if (condition->type.isVector())
    return vectorSelect(condition, trueValue, falseValue, where);
  return ternary(condition, trueValue, falseValue);
}

std::string CFamilyEmitter::ternary(const Expr &condition, const Expr &trueValue, const Expr &falseValue) {
  // Sequenced: writing an operand may declare what it uses (OpenCL lets) or bind names.
  std::string c = expr(condition, 1), t = expr(trueValue, 1), f = expr(falseValue, 1);
  return "(" + c + " ? " + t + " : " + f + ")";
}

namespace {
bool positiveConstant(const Expr &e) {
  const int64_t *v = asConstInt(e);
  return v && *v > 0;
}
} // namespace

bool CFamilyEmitter::provablyNonNegative(const Expr &e) const {
  std::optional<IntRanges::Range> range = ranges_.of(e);
  return range && range->first >= 0;
}

BinaryPlan CFamilyEmitter::binaryForm(const BinaryNode *op) const {
  const DataType t = op->a->type;
  switch (op->op) {
  case BinaryOp::FloorDiv:
  case BinaryOp::FloorMod:
    // Floor and truncation agree on unsigned values, and on a non-negative dividend with a
    // positive divisor: `c / 4` for a loop variable c in [0, 64), not tl_floordiv_int32(c, 4).
    if (t.isUInt() || (t.isScalar() && provablyNonNegative(op->a) && positiveConstant(op->b)))
      return {BinaryForm::Infix, op->op == BinaryOp::FloorDiv ? BinaryOp::Div : BinaryOp::Mod};
    return {BinaryForm::Floor, op->op};
  case BinaryOp::Min:
  case BinaryOp::Max: return {BinaryForm::MinMax, op->op};
  case BinaryOp::Mod:
    if (t.isFloat())
      return {BinaryForm::FloatMod, op->op};
    [[fallthrough]];
  case BinaryOp::Div:
    // MIN / -1 and MIN % -1 are undefined in C (TIR wraps): a helper unless the divisor cannot
    // be -1. Scalars narrower than int are promoted, where it cannot happen.
    if (t.isInt() && (t.isVector() || t.bits() >= 32) && ranges_.mayBeMinusOne(op->b))
      return {BinaryForm::Trunc, op->op};
    return {BinaryForm::Infix, op->op};
  default: break;
  }
  // TIR integers wrap around; signed overflow is undefined in C and OpenCL C (vector lanes,
  // which are not promoted, included).
  if (ranges_.mayOverflow(op))
    return {BinaryForm::Wrapping, op->op};
  return {BinaryForm::Infix, op->op};
}

} // namespace tirlower
