// The TVMScript text of expressions (script_expr_printer.h), with the fewest parentheses
// Python's precedence allows: `a - (b - c)`, `(a < b) == c` (comparisons never chain),
// `not (a and b)`; the names variables and buffers print by, and index maps (lambdas).
#include "ir/script_expr_printer.h"

#include "ir/intrinsics.h"
#include "ir/script_literals.h"

namespace tirlower {

namespace {
// The infix spelling of an operator for operands of `type`, or null when it prints as a call.
const char *infixSpelling(BinaryOp op, DataType type) {
  bool isFloat = type.isFloat();
  switch (op) {
  case BinaryOp::Add: return " + ";
  case BinaryOp::Sub: return " - ";
  case BinaryOp::Mul: return " * ";
  case BinaryOp::Div: return isFloat ? " / " : nullptr;
  case BinaryOp::Mod: return nullptr;
  case BinaryOp::FloorDiv: return isFloat ? nullptr : " // ";
  case BinaryOp::FloorMod: return isFloat ? nullptr : " % ";
  case BinaryOp::Min:
  case BinaryOp::Max: return nullptr;
  case BinaryOp::EQ: return " == ";
  case BinaryOp::NE: return " != ";
  case BinaryOp::LT: return " < ";
  case BinaryOp::LE: return " <= ";
  case BinaryOp::GT: return " > ";
  case BinaryOp::GE: return " >= ";
  case BinaryOp::And: return " and ";
  case BinaryOp::Or: return " or ";
  }
  return nullptr;
}

const char *callSpelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Div: return "T.truncdiv(";
  case BinaryOp::Mod: return "T.truncmod(";
  case BinaryOp::FloorDiv: return "T.floordiv(";
  case BinaryOp::FloorMod: return "T.floormod(";
  case BinaryOp::Min: return "T.min(";
  case BinaryOp::Max: return "T.max(";
  default: break;
  }
  return "T.?(";
}

// Python's precedence, for TVMScript: all six comparisons share one level (and chain, so the
// printer parenthesises them), `and`/`or` bind below `not`. The C emitter's table is C's
// (cPrecedence in c_family.h: == below <, && and || as C has them): the two encode two
// languages, not one fact.
int binaryPrecedence(BinaryOp op, DataType operandType) {
  if (!infixSpelling(op, operandType))
    return kPrecAtom;
  switch (op) {
  case BinaryOp::Add:
  case BinaryOp::Sub: return kPrecAdd;
  case BinaryOp::Mul:
  case BinaryOp::Div:
  case BinaryOp::FloorDiv:
  case BinaryOp::FloorMod: return kPrecMul;
  case BinaryOp::And: return kPrecAnd;
  case BinaryOp::Or: return kPrecOr;
  default: return kPrecCompare;
  }
}
// The precedence of a call the table spells as a Python operator (`a >> b`, `~a`).
int callPrecedence(const CallNode *call) {
  if (!call->intrinsic)
    return kPrecAtom;
  switch (call->intrinsic->level) {
  case OperatorLevel::None: return kPrecAtom;
  case OperatorLevel::BitOr: return kPrecBitOr;
  case OperatorLevel::BitXor: return kPrecBitXor;
  case OperatorLevel::BitAnd: return kPrecBitAnd;
  case OperatorLevel::Shift: return kPrecShift;
  case OperatorLevel::Unary: return kPrecUnary;
  }
  return kPrecAtom;
}

// exprPrecedence, inlined into the printer's recursion.
// kind-switch: a classification of four kinds, not a walk, hence a switch rather than a functor.
inline int precedenceOf(const ExprNode *expr) {
  switch (expr->kind()) {
  case ExprKind::Call: return callPrecedence(static_cast<const CallNode *>(expr));
  case ExprKind::Binary: {
    const auto *node = static_cast<const BinaryNode *>(expr);
    return binaryPrecedence(node->op, node->a->type);
  }
  case ExprKind::Not: return kPrecNot;
  case ExprKind::IntImm: {
    const auto *node = static_cast<const IntImmNode *>(expr);
    return node->type == DataType::int32() && node->value < 0 ? kPrecUnary : kPrecAtom;
  }
  default: return kPrecAtom;
  }
}
} // namespace

int exprPrecedence(const ExprNode *expr) {
  return precedenceOf(expr);
}

void ScriptExprPrinter::printExpr(const Expr &expr) {
  printExprPrec(expr.get(), 0, false);
}

void ScriptExprPrinter::printIntLiteral(DataType type, int64_t value) {
  if (type == DataType::int32()) {
    appendInt(out_, value);
  } else if (type.isBool()) {
    out_ += value ? "True" : "False";
  } else {
    out_ += typeSpelling(type).annotation;
    out_ += '(';
    appendInt(out_, value);
    out_ += ')';
  }
}

void ScriptExprPrinter::printExprList(const std::vector<Expr> &exprs) {
  for (size_t k = 0; k < exprs.size(); ++k) {
    if (k)
      out_ += ", ";
    printExprPrec(exprs[k].get(), 0, false);
  }
}

void ScriptExprPrinter::printCallArgs(const std::vector<Expr> &args) {
  out_ += '(';
  printExprList(args);
  out_ += ')';
}

void ScriptExprPrinter::printShape(const std::vector<Expr> &shape, bool declared) {
  out_ += '(';
  if (declared)
    for (size_t k = 0; k < shape.size(); ++k) {
      if (k)
        out_ += ", ";
      printDeclared(shape[k]);
    }
  else
    printExprList(shape);
  if (shape.size() == 1)
    out_ += ',';
  out_ += ')';
}

void ScriptExprPrinter::printDeclared(const Expr &e) {
  const auto *var = e.as<VarNode>();
  if (!var || plain_ || !printed_.find(var).empty())
    return printExpr(e);
  out_ += '"';
  out_ += bindVar(var);
  out_ += '"';
}

void ScriptExprPrinter::printAccess(const BufferNode *buffer, const std::vector<Expr> &indices) {
  out_ += bufferName(buffer);
  out_ += '[';
  if (indices.empty())
    out_ += "()";
  printExprList(indices);
  out_ += ']';
}

namespace {
// An int32 constant prints as a bare Python number.
bool printsBare(const Expr &e) {
  return e->kind() == ExprKind::IntImm && e->type == DataType::int32();
}
} // namespace

void ScriptExprPrinter::visitBinary(const BinaryNode *node) {
  if (const char *infix = infixSpelling(node->op, node->a->type)) {
    int precedence = binaryPrecedence(node->op, node->a->type);
    if (printsBare(node->a) && printsBare(node->b)) {
      // `2 * 3` would be Python arithmetic, folded when parsed: spelling one operand as a TIR
      // constant keeps the operation (and the round trip).
      out_ += "T.int32(";
      appendInt(out_, static_cast<const IntImmNode &>(*node->a).value);
      out_ += ')';
    } else {
      printExprPrec(node->a.get(), precedence, precedence == kPrecCompare);
    }
    out_ += infix;
    printExprPrec(node->b.get(), precedence, true);
    return;
  }
  out_ += callSpelling(node->op);
  printExprPrec(node->a.get(), 0, false);
  out_ += ", ";
  printExprPrec(node->b.get(), 0, false);
  out_ += ')';
}

void ScriptExprPrinter::visitCall(const CallNode *node) {
  const IntrinsicInfo *info = node->intrinsic;
  if (info && info->level == OperatorLevel::Unary) {
    out_ += info->operatorText;
    // A bare int32 operand would be Python's ~ on a number, folded when parsed.
    if (printsBare(node->args[0])) {
      out_ += "T.int32(";
      appendInt(out_, static_cast<const IntImmNode &>(*node->args[0]).value);
      out_ += ')';
    } else {
      printExprPrec(node->args[0].get(), kPrecUnary, false);
    }
    return;
  }
  if (info && info->level != OperatorLevel::None) {
    int precedence = callPrecedence(node);
    if (printsBare(node->args[0]) && printsBare(node->args[1])) {
      out_ += "T.int32(";
      appendInt(out_, static_cast<const IntImmNode &>(*node->args[0]).value);
      out_ += ')';
    } else {
      printExprPrec(node->args[0].get(), precedence, false);
    }
    out_ += info->operatorText;
    printExprPrec(node->args[1].get(), precedence, true);
    return;
  }
  out_ += "T.";
  out_ += node->op.view();
  if (info && hasDeclaredType(*info)) {
    out_ += '(';
    out_ += typeSpelling(node->type).quoted;
    if (!node->args.empty())
      out_ += ", ";
    printExprList(node->args);
    out_ += ')';
    return;
  }
  printCallArgs(node->args);
}

void ScriptExprPrinter::printExprPrec(const ExprNode *expr, int context, bool parenthesizeEqual) {
  // Most operands are variables and int32 literals: they bind at least as tightly as unary
  // minus, so below that they never take parentheses.
  if (context < kPrecUnary) {
    if (expr->kind() == ExprKind::Var) {
      out_ += varName(static_cast<const VarNode *>(expr));
      return;
    }
    if (expr->kind() == ExprKind::IntImm) {
      const auto *node = static_cast<const IntImmNode *>(expr);
      if (node->type == DataType::int32()) {
        appendInt(out_, node->value);
        return;
      }
    }
  }
  printCompoundExpr(expr, context, parenthesizeEqual);
}

void ScriptExprPrinter::printCompoundExpr(const ExprNode *expr, int context, bool parenthesizeEqual) {
  int precedence = precedenceOf(expr);
  bool parens = precedence < context || (parenthesizeEqual && precedence == context);
  if (parens)
    out_ += '(';
  visitExpr(expr);
  if (parens)
    out_ += ')';
}

// ---- one method per node (ExprFunctor), without the parentheses printCompoundExpr adds ----

void ScriptExprPrinter::visitVar(const VarNode *node) { out_ += varName(node); }

void ScriptExprPrinter::visitIntImm(const IntImmNode *node) { printIntLiteral(node->type, node->value); }

void ScriptExprPrinter::visitFloatImm(const FloatImmNode *node) { appendFloatLiteral(out_, node->value, node->type); }

void ScriptExprPrinter::visitStringImm(const StringImmNode *node) { appendQuoted(out_, node->value); }

void ScriptExprPrinter::visitNot(const NotNode *node) {
  out_ += "not ";
  printExprPrec(node->a.get(), kPrecNot, false);
}

void ScriptExprPrinter::visitSelect(const SelectNode *node) {
  out_ += "T.Select(";
  printExpr(node->condition);
  out_ += ", ";
  printExpr(node->trueValue);
  out_ += ", ";
  printExpr(node->falseValue);
  out_ += ')';
}

void ScriptExprPrinter::visitCast(const CastNode *node) {
  out_ += "T.Cast(";
  out_ += typeSpelling(node->type).quoted;
  out_ += ", ";
  printExpr(node->value);
  out_ += ')';
}

void ScriptExprPrinter::visitRamp(const RampNode *node) {
  out_ += "T.Ramp(";
  printExpr(node->base);
  out_ += ", ";
  printExpr(node->stride);
  out_ += ", ";
  printLanes(node->type, node->lanes);
  out_ += ')';
}

// A lane count: the number, or `T.vscale() * k` for a scalable vector.
void ScriptExprPrinter::printLanes(DataType type, int lanes) {
  if (type.isScalable())
    out_ += "T.vscale() * ";
  appendInt(out_, lanes);
}

void ScriptExprPrinter::visitBroadcast(const BroadcastNode *node) {
  out_ += "T.Broadcast(";
  printExpr(node->value);
  out_ += ", ";
  printLanes(node->type, node->lanes);
  out_ += ')';
}

void ScriptExprPrinter::visitLet(const LetNode *node) {
  std::string_view name = bindVar(node->var.get());
  out_ += "T.Let(";
  printExpr(node->body);
  out_ += ", where={";
  out_ += name;
  out_ += ": ";
  printExpr(node->value);
  out_ += "})";
}

void ScriptExprPrinter::visitBufferLoad(const BufferLoadNode *node) { printAccess(node->buffer.get(), node->indices); }

// ---- names ---------------------------------------------------------------------------------

void ScriptExprPrinter::resetNames() {
  names_.clear();
  printed_.clear();
  dataNames_.clear();
}

std::string_view ScriptExprPrinter::defineVar(const VarNode *var) {
  if (plain_)
    return var->name.view();
  if (std::string_view name = printed_.find(var); !name.empty())
    return name;
  return printed_.insert(var, names_.fresh(var->name));
}

std::string_view ScriptExprPrinter::defineBuffer(const BufferNode *buffer) {
  if (plain_)
    return buffer->name.view();
  if (std::string_view name = printed_.find(buffer); !name.empty())
    return name;
  return printed_.insert(buffer, names_.fresh(buffer->name));
}

std::string_view ScriptExprPrinter::bindVar(const VarNode *var) {
  if (plain_)
    return var->name.view();
  return printed_.assign(var, names_.fresh(var->name));
}

std::string_view ScriptExprPrinter::bindBuffer(const BufferNode *buffer) {
  if (plain_)
    return buffer->name.view();
  return printed_.assign(buffer, names_.fresh(buffer->name));
}

void ScriptExprPrinter::defineDataVar(const BufferNode *buffer, std::string_view bufferName, bool allocates) {
  if (plain_)
    return;
  const VarNode *data = buffer->data.get();
  if (allocates)
    printed_.assign(data, dataNames_.store(bufferName, ".data"));
  else if (printed_.find(data).empty())
    printed_.insert(data, dataNames_.store(bufferName, ".data"));
}

std::string_view ScriptExprPrinter::lambdaOrDefinedName(const VarNode *var) {
  for (const auto &[param, name] : lambdaNames_)
    if (param == var)
      return name;
  return defineVar(var);
}

// ---- index maps ------------------------------------------------------------------------------

void ScriptExprPrinter::beginLambda() {
  lambdaTable_.clear();
  lambdaNames_.clear();
}

std::string_view ScriptExprPrinter::lambdaParam(const VarNode *var) {
  if (plain_)
    return var->name.view();
  lambdaNames_.emplace_back(var, lambdaTable_.fresh(var->name));
  return lambdaNames_.back().second;
}

void ScriptExprPrinter::printIndexMap(const IndexMapNode &map) {
  beginLambda();
  out_ += "lambda";
  for (size_t k = 0; k < map.initialIndices.size(); ++k) {
    out_ += k ? ", " : " ";
    out_ += lambdaParam(map.initialIndices[k].get());
  }
  out_ += ": [";
  size_t separator = 0;
  bool first = true;
  for (size_t k = 0; k <= map.finalIndices.size(); ++k) {
    for (; separator < map.axisSeparators.size() && map.axisSeparators[separator] == static_cast<int>(k); ++separator) {
      out_ += first ? "" : ", ";
      out_ += "T.AXIS_SEPARATOR";
      first = false;
    }
    if (k == map.finalIndices.size())
      break;
    out_ += first ? "" : ", ";
    printExpr(map.finalIndices[k]);
    first = false;
  }
  out_ += ']';
  endLambda();
}

// ---- for messages ----------------------------------------------------------------------------

std::string formatExpr(const Expr &expr) {
  ScriptExprPrinter printer(/*plainNames=*/true);
  printer.printExpr(expr);
  return printer.take();
}

std::string formatIndexMap(const IndexMapNode &map) {
  ScriptExprPrinter printer(/*plainNames=*/true);
  printer.printIndexMap(map);
  return printer.take();
}

std::string formatShape(const std::vector<Expr> &shape) {
  ScriptExprPrinter printer(/*plainNames=*/true);
  printer.printShape(shape);
  return printer.take();
}

} // namespace tirlower
