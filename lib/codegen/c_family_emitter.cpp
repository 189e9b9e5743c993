#include "codegen/c_family_emitter.h"

#include <algorithm>

#include "codegen/launch_geometry.h"
#include "ir/intrinsics.h"

namespace tirlower {

CFamilyEmitter::CFamilyEmitter(const PrimFuncNode &func, AccessCensus access, std::string &body)
    : func_(func), access_(std::move(access)), body_(body), out_(&body) {}

// ---- names and lines ----------------------------------------------------------------------------

namespace {

size_t pointerHash(const void *p) {
  uint64_t v = reinterpret_cast<uintptr_t>(p);
  return static_cast<size_t>((v ^ (v >> 17)) * 0x9E3779B97F4A7C15ull >> 32);
}

size_t nameHash(std::string_view name) { // FNV-1a
  uint64_t h = 1469598103934665603ull;
  for (char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return static_cast<size_t>(h ^ (h >> 32));
}

constexpr size_t kFirstTableSize = 32;

} // namespace

const std::string *CFamilyEmitter::boundName(const void *object) const {
  if (byObject_.empty())
    return nullptr;
  const size_t mask = byObject_.size() - 1;
  for (size_t k = pointerHash(object) & mask;; k = (k + 1) & mask) {
    if (byObject_[k].first == object)
      return &strings_[byObject_[k].second];
    if (!byObject_[k].first)
      return nullptr;
  }
}

bool CFamilyEmitter::isTaken(std::string_view name) const {
  if (byName_.empty())
    return false;
  const size_t mask = byName_.size() - 1;
  for (size_t k = nameHash(name) & mask;; k = (k + 1) & mask) {
    if (!byName_[k])
      return false;
    if (strings_[byName_[k] - 1] == name)
      return true;
  }
}

const std::string &CFamilyEmitter::take(std::string name, const void *object) {
  // Both tables stay at most half full.
  if ((strings_.size() + 1) * 2 > byName_.size()) {
    byName_.assign(std::max(kFirstTableSize, byName_.size() * 2), 0);
    const size_t mask = byName_.size() - 1;
    for (size_t index = 0; index < strings_.size(); ++index) {
      size_t k = nameHash(strings_[index]) & mask;
      while (byName_[k])
        k = (k + 1) & mask;
      byName_[k] = static_cast<uint32_t>(index + 1);
    }
  }
  const auto index = static_cast<uint32_t>(strings_.size());
  strings_.push_back(std::move(name));
  {
    const size_t mask = byName_.size() - 1;
    size_t k = nameHash(strings_.back()) & mask;
    while (byName_[k])
      k = (k + 1) & mask;
    byName_[k] = index + 1;
  }
  if (object) {
    if ((objectCount_ + 1) * 2 > byObject_.size()) {
      std::vector<std::pair<const void *, uint32_t>> old(std::max(kFirstTableSize, byObject_.size() * 2));
      old.swap(byObject_);
      const size_t mask = byObject_.size() - 1;
      for (const auto &entry : old) {
        if (!entry.first)
          continue;
        size_t k = pointerHash(entry.first) & mask;
        while (byObject_[k].first)
          k = (k + 1) & mask;
        byObject_[k] = entry;
      }
    }
    const size_t mask = byObject_.size() - 1;
    size_t k = pointerHash(object) & mask;
    while (byObject_[k].first && byObject_[k].first != object)
      k = (k + 1) & mask;
    if (!byObject_[k].first)
      ++objectCount_;
    byObject_[k] = {object, index}; // an object bound again takes its new name
  }
  return strings_.back();
}

const std::string &CFamilyEmitter::bind(const void *object, std::string_view hint) {
  std::string name = cIdentifier(hint);
  if (!isTaken(name) && !isReservedName(name)) // most names: no copy of the base kept
    return take(std::move(name), object);
  const std::string base = name;
  for (int n = 1; isTaken(name) || isReservedName(name); ++n) {
    name = base;
    name += '_';
    name += std::to_string(n);
  }
  return take(std::move(name), object);
}

const std::string &CFamilyEmitter::nameOf(const VarNode *var, SourceRange where) {
  const std::string *name = boundName(var);
  if (!name)
    fail(where, "variable '" + var->name.str() + "' is used outside its definition");
  return *name;
}

void CFamilyEmitter::line(std::string_view text) {
  const size_t indent = static_cast<size_t>(indent_) * 2;
  if (!lineOpen_) {
    body_.append(indent, ' ');
    body_ += text;
    body_ += '\n';
    return;
  }
  // Before the open line (rare: a declaration an expression of that line needs).
  std::string whole(indent, ' ');
  whole += text;
  whole += '\n';
  body_.insert(lineStart_, whole);
  lineStart_ += whole.size();
}

void CFamilyEmitter::beginLine() {
  lineStart_ = body_.size();
  lineOpen_ = true;
  body_.append(static_cast<size_t>(indent_) * 2, ' ');
}

void CFamilyEmitter::endLine() {
  body_ += '\n';
  lineOpen_ = false;
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
  beginLine();
  out() += "if (";
  statementExpr(op->condition);
  out() += ") {";
  endLine();
  block(op->thenCase);
  if (op->elseCase) {
    line("} else {");
    block(op->elseCase);
  }
  line("}");
}

void CFamilyEmitter::visitLetStmt(const LetStmtNode *op) {
  // The value is written before the name is bound (a name it binds comes first).
  const std::string &value = statementValue(op->value, /*statementPosition=*/true);
  const std::string &name = bind(op->var.get(), op->var->name.view());
  if (std::optional<IntRanges::Range> r = ranges_.of(op->value))
    ranges_.set(op->var.get(), *r);
  if (access_.used.count(op->var.get())) {
    beginLine();
    out() += "const ";
    out() += typeName(op->var->type, op->loc);
    out() += ' ';
    out() += name;
    out() += " = ";
    out() += value;
    out() += ';';
    endLine();
  } else if (!dropUnusedConstantLets_ || !asConstInt(op->value)) {
    beginLine();
    out() += "(void)(";
    out() += value;
    out() += ");";
    endLine();
  }
  emitStmt(op->body);
}

void CFamilyEmitter::allocation(const VarNode *data, DataType type, const std::vector<Expr> &extents, Symbol scope,
                                SourceRange where, const Stmt &body) {
  declareStorage(data, type, extents, scope, where);
  emitStmt(body);
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
  if (op->isThreadLaunch()) // the OpenCL kernel emitter writes them before this
    fail(op->loc, cpuThreadLaunchMessage(*op, func_));
  if (const auto *data = op->node.as<VarNode>(); data && op->key.view() == "nontemporal_store") {
    streaming_.push_back(data);
    emitStmt(op->body);
    streaming_.pop_back();
    return;
  }
  beginLine();
  out() += "/* attr \"";
  out() += op->key.view();
  out() += "\" */";
  endLine();
  emitStmt(op->body);
}

void CFamilyEmitter::visitEvaluate(const EvaluateNode *op) {
  if (op->value->kind() == ExprKind::IntImm || op->value->kind() == ExprKind::FloatImm)
    return;
  if (const auto *c = op->value.as<CallNode>(); c && c->intrinsic && c->intrinsic->id == IntrinsicId::Assume)
    return; // a fact for the compiler, nothing to compute
  beginLine();
  out() += "(void)(";
  expr(op->value);
  out() += ");";
  endLine();
}

void CFamilyEmitter::emitLoop(const ForNode *op) {
  std::string t = typeName(op->loopVar->type, op->loc);
  // The bounds are written before the variable is bound (a name they bind comes first).
  std::string min = exprText(op->min), extent = exprText(op->extent);
  bool zeroMin = asConstInt(op->min) && *asConstInt(op->min) == 0;
  const std::string &name = bind(op->loopVar.get(), op->loopVar->name.view());
  beginLine();
  std::string &o = out();
  appendAll(o, "for (", t, ' ', name, " = ", min, "; ", name, " < ");
  if (zeroMin)
    o += extent;
  else
    appendAll(o, '(', min, ") + (", extent, ')');
  appendAll(o, "; ++", name, ") {");
  endLine();
  ranges_.setLoop(op->loopVar.get(), op->min, op->extent);
  block(op->body);
  ranges_.erase(op->loopVar.get());
  line("}");
}

// ---- expressions --------------------------------------------------------------------------------

std::string CFamilyEmitter::exprText(const Expr &e, int parent, bool right) {
  std::string text;
  std::string *saved = out_;
  out_ = &text;
  try {
    visitExpr(e, parent, right);
  } catch (...) {
    out_ = saved;
    throw;
  }
  out_ = saved;
  return text;
}

const std::string &CFamilyEmitter::statementValue(const Expr &e, bool statementPosition) {
  valueText_.clear();
  std::string *saved = out_;
  out_ = &valueText_;
  try {
    if (statementPosition)
      statementExpr(e);
    else
      visitExpr(e, 0, false);
  } catch (...) {
    out_ = saved;
    throw;
  }
  out_ = saved;
  return valueText_;
}

void CFamilyEmitter::visitVar(const VarNode *op, int, bool) {
  out() += nameOf(op, op->loc);
}

void CFamilyEmitter::visitSelect(const SelectNode *op, int, bool) {
  conditional(op->condition, op->trueValue, op->falseValue, op->loc);
}

void CFamilyEmitter::conditional(const Expr &condition, const Expr &trueValue, const Expr &falseValue,
                                 SourceRange where) {
  if (condition->type.isVector())
    return vectorSelect(condition, trueValue, falseValue, where);
  ternary(condition, trueValue, falseValue);
}

void CFamilyEmitter::ternary(const Expr &condition, const Expr &trueValue, const Expr &falseValue) {
  // The operands are written in order (writing one may declare what it uses, or bind names).
  out() += '(';
  expr(condition, 1);
  out() += " ? ";
  expr(trueValue, 1);
  out() += " : ";
  expr(falseValue, 1);
  out() += ')';
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
