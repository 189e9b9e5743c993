#include "arith/expr_util.h"

#include <functional>
#include <sstream>

#include "ir/buffer.h"
#include "ir/visitor.h"

namespace tirlower {

namespace {

class SizeCounter : public IRVisitor {
public:
  size_t count = 0;
  using IRVisitor::visit;

protected:
  void visit(const VarNode *) override { ++count; }
  void visit(const IntImmNode *) override { ++count; }
  void visit(const FloatImmNode *) override { ++count; }
  void visit(const StringImmNode *) override { ++count; }
  void visit(const BinaryNode *op) override { ++count, IRVisitor::visit(op); }
  void visit(const NotNode *op) override { ++count, IRVisitor::visit(op); }
  void visit(const SelectNode *op) override { ++count, IRVisitor::visit(op); }
  void visit(const CastNode *op) override { ++count, IRVisitor::visit(op); }
  void visit(const RampNode *op) override { ++count, IRVisitor::visit(op); }
  void visit(const BroadcastNode *op) override { ++count, IRVisitor::visit(op); }
  void visit(const LetNode *op) override { ++count, IRVisitor::visit(op); }
  void visit(const CallNode *op) override { ++count, IRVisitor::visit(op); }
  void visit(const BufferLoadNode *op) override { ++count, IRVisitor::visit(op); }
};

class VarFinder : public IRVisitor {
public:
  explicit VarFinder(const std::vector<Var> &vars) : vars_(vars) {}
  bool found = false;
  using IRVisitor::visit;

protected:
  void visit(const VarNode *op) override {
    for (const Var &v : vars_)
      found = found || v.get() == op;
  }

private:
  const std::vector<Var> &vars_;
};

int compareInts(int64_t a, int64_t b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

int compareLists(const std::vector<Expr> &a, const std::vector<Expr> &b) {
  if (int c = compareInts(static_cast<int64_t>(a.size()), static_cast<int64_t>(b.size())))
    return c;
  for (size_t k = 0; k < a.size(); ++k)
    if (int c = structuralCompare(a[k], b[k]))
      return c;
  return 0;
}

size_t mix(size_t seed, size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

} // namespace

size_t exprSize(const Expr &e) {
  SizeCounter counter;
  counter.visit(e);
  return counter.count;
}

bool usesAnyVar(const Expr &e, const std::vector<Var> &vars) {
  VarFinder finder(vars);
  finder.visit(e);
  return finder.found;
}

size_t structuralHash(const Expr &e) {
  const DataType t = e->type;
  size_t h =
      mix(static_cast<size_t>(e->kind()) * 31,
          static_cast<size_t>(t.code()) << 32 | static_cast<size_t>(t.bits()) << 16 | static_cast<size_t>(t.lanes()));
  switch (e->kind()) {
  case ExprKind::Var: return mix(h, std::hash<Symbol>()(e.as<VarNode>()->name));
  case ExprKind::IntImm: return mix(h, std::hash<int64_t>()(e.as<IntImmNode>()->value));
  case ExprKind::FloatImm: return mix(h, floatValueHash(e.as<FloatImmNode>()->value));
  case ExprKind::StringImm: return mix(h, std::hash<std::string>()(e.as<StringImmNode>()->value));
  case ExprKind::Binary: {
    auto *x = e.as<BinaryNode>();
    return mix(mix(mix(h, static_cast<size_t>(x->op)), structuralHash(x->a)), structuralHash(x->b));
  }
  case ExprKind::Not: return mix(h, structuralHash(e.as<NotNode>()->a));
  case ExprKind::Select: {
    auto *x = e.as<SelectNode>();
    return mix(mix(mix(h, structuralHash(x->condition)), structuralHash(x->trueValue)), structuralHash(x->falseValue));
  }
  case ExprKind::Cast: return mix(h, structuralHash(e.as<CastNode>()->value));
  case ExprKind::Ramp:
    return mix(mix(h, structuralHash(e.as<RampNode>()->base)), structuralHash(e.as<RampNode>()->stride));
  case ExprKind::Broadcast: return mix(h, structuralHash(e.as<BroadcastNode>()->value));
  case ExprKind::Let: return mix(mix(h, structuralHash(e.as<LetNode>()->value)), structuralHash(e.as<LetNode>()->body));
  case ExprKind::Call:
    for (const Expr &a : e.as<CallNode>()->args)
      h = mix(h, structuralHash(a));
    return mix(h, std::hash<Symbol>()(e.as<CallNode>()->op));
  case ExprKind::BufferLoad:
    for (const Expr &a : e.as<BufferLoadNode>()->indices)
      h = mix(h, structuralHash(a));
    return mix(h, std::hash<Symbol>()(e.as<BufferLoadNode>()->buffer->name));
  }
  return h;
}

int structuralCompare(const Expr &a, const Expr &b) {
  if (a.same(b))
    return 0;
  if (int c = compareInts(static_cast<int>(a->kind()), static_cast<int>(b->kind())))
    return c;
  if (a->type != b->type)
    return a->type.str() < b->type.str() ? -1 : 1;
  switch (a->kind()) {
  case ExprKind::Var: return a.as<VarNode>()->name.view().compare(b.as<VarNode>()->name.view());
  case ExprKind::IntImm: return compareInts(a.as<IntImmNode>()->value, b.as<IntImmNode>()->value);
  case ExprKind::FloatImm: {
    double x = a.as<FloatImmNode>()->value, y = b.as<FloatImmNode>()->value;
    return x < y ? -1 : (y < x ? 1 : 0);
  }
  case ExprKind::StringImm: return a.as<StringImmNode>()->value.compare(b.as<StringImmNode>()->value);
  case ExprKind::Binary: {
    auto *x = a.as<BinaryNode>(), *y = b.as<BinaryNode>();
    if (int c = compareInts(static_cast<int>(x->op), static_cast<int>(y->op)))
      return c;
    return compareLists({x->a, x->b}, {y->a, y->b});
  }
  case ExprKind::Not: return structuralCompare(a.as<NotNode>()->a, b.as<NotNode>()->a);
  case ExprKind::Select: {
    auto *x = a.as<SelectNode>(), *y = b.as<SelectNode>();
    return compareLists({x->condition, x->trueValue, x->falseValue}, {y->condition, y->trueValue, y->falseValue});
  }
  case ExprKind::Cast: return structuralCompare(a.as<CastNode>()->value, b.as<CastNode>()->value);
  case ExprKind::Ramp: {
    auto *x = a.as<RampNode>(), *y = b.as<RampNode>();
    if (int c = compareInts(x->lanes, y->lanes))
      return c;
    return compareLists({x->base, x->stride}, {y->base, y->stride});
  }
  case ExprKind::Broadcast: {
    auto *x = a.as<BroadcastNode>(), *y = b.as<BroadcastNode>();
    if (int c = compareInts(x->lanes, y->lanes))
      return c;
    return structuralCompare(x->value, y->value);
  }
  case ExprKind::Let: {
    auto *x = a.as<LetNode>(), *y = b.as<LetNode>();
    return compareLists({x->var, x->value, x->body}, {y->var, y->value, y->body});
  }
  case ExprKind::Call: {
    auto *x = a.as<CallNode>(), *y = b.as<CallNode>();
    if (int c = x->op.view().compare(y->op.view()))
      return c;
    return compareLists(x->args, y->args);
  }
  case ExprKind::BufferLoad: {
    auto *x = a.as<BufferLoadNode>(), *y = b.as<BufferLoadNode>();
    if (int c = x->buffer->name.view().compare(y->buffer->name.view()))
      return c;
    return compareLists(x->indices, y->indices);
  }
  }
  return 0;
}

namespace {

// Python precedence levels: or < and < not < comparison < additive < multiplicative < unary.
int precedence(const Expr &e) {
  if (auto *b = e.as<BinaryNode>()) {
    switch (b->op) {
    case BinaryOp::Or: return 1;
    case BinaryOp::And: return 2;
    case BinaryOp::Add:
    case BinaryOp::Sub: return 6;
    case BinaryOp::Mul:
    case BinaryOp::FloorDiv:
    case BinaryOp::FloorMod: return 7;
    case BinaryOp::Div:
    case BinaryOp::Mod: return b->type.isFloat() ? 7 : 10;
    case BinaryOp::Min:
    case BinaryOp::Max: return 10;
    default: return 4;
    }
  }
  if (e.as<NotNode>())
    return 3;
  if (auto *imm = e.as<IntImmNode>(); imm && imm->value < 0)
    return 8;
  return 10;
}

const char *infix(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add: return " + ";
  case BinaryOp::Sub: return " - ";
  case BinaryOp::Mul: return " * ";
  case BinaryOp::Div: return " / ";
  case BinaryOp::FloorDiv: return " // ";
  case BinaryOp::FloorMod: return " % ";
  case BinaryOp::EQ: return " == ";
  case BinaryOp::NE: return " != ";
  case BinaryOp::LT: return " < ";
  case BinaryOp::LE: return " <= ";
  case BinaryOp::GT: return " > ";
  case BinaryOp::GE: return " >= ";
  case BinaryOp::And: return " and ";
  case BinaryOp::Or: return " or ";
  default: return nullptr;
  }
}

void format(std::ostream &os, const Expr &e);

void formatOperand(std::ostream &os, const Expr &e, int parentPrecedence, bool right) {
  int p = precedence(e);
  bool parens = p < parentPrecedence || (right && p == parentPrecedence && p != 10);
  if (parens)
    os << '(';
  format(os, e);
  if (parens)
    os << ')';
}

void formatList(std::ostream &os, const std::vector<Expr> &list) {
  for (size_t k = 0; k < list.size(); ++k) {
    if (k)
      os << ", ";
    format(os, list[k]);
  }
}

void format(std::ostream &os, const Expr &e) {
  switch (e->kind()) {
  case ExprKind::Var: os << e.as<VarNode>()->name.view(); return;
  case ExprKind::IntImm:
    if (e->type.isBool())
      os << (e.as<IntImmNode>()->value ? "True" : "False");
    else
      os << e.as<IntImmNode>()->value;
    return;
  case ExprKind::FloatImm: os << e.as<FloatImmNode>()->value; return;
  case ExprKind::StringImm: os << '"' << e.as<StringImmNode>()->value << '"'; return;
  case ExprKind::Binary: {
    auto *b = e.as<BinaryNode>();
    const char *op = infix(b->op);
    if (!op || (b->op == BinaryOp::Div && !b->type.isFloat()) || b->op == BinaryOp::Mod) {
      const char *name = b->op == BinaryOp::Min   ? "min"
                         : b->op == BinaryOp::Max ? "max"
                         : b->op == BinaryOp::Div ? "T.truncdiv"
                                                  : "T.truncmod";
      os << name << '(';
      formatList(os, {b->a, b->b});
      os << ')';
      return;
    }
    int p = precedence(e);
    formatOperand(os, b->a, p, false);
    os << op;
    formatOperand(os, b->b, p, true);
    return;
  }
  case ExprKind::Not:
    os << "not ";
    formatOperand(os, e.as<NotNode>()->a, 3, false);
    return;
  case ExprKind::Select: {
    auto *s = e.as<SelectNode>();
    os << "T.Select(";
    formatList(os, {s->condition, s->trueValue, s->falseValue});
    os << ')';
    return;
  }
  case ExprKind::Cast:
    os << "T.Cast(\"" << e->type.str() << "\", ";
    format(os, e.as<CastNode>()->value);
    os << ')';
    return;
  case ExprKind::Ramp: {
    auto *r = e.as<RampNode>();
    os << "T.Ramp(";
    formatList(os, {r->base, r->stride});
    os << ", " << r->lanes << ')';
    return;
  }
  case ExprKind::Broadcast:
    os << "T.Broadcast(";
    format(os, e.as<BroadcastNode>()->value);
    os << ", " << e.as<BroadcastNode>()->lanes << ')';
    return;
  case ExprKind::Let: {
    auto *l = e.as<LetNode>();
    os << "T.Let(";
    formatList(os, {l->body, l->var, l->value});
    os << ')';
    return;
  }
  case ExprKind::Call:
    os << "T." << e.as<CallNode>()->op.view() << '(';
    formatList(os, e.as<CallNode>()->args);
    os << ')';
    return;
  case ExprKind::BufferLoad:
    os << e.as<BufferLoadNode>()->buffer->name.view() << '[';
    formatList(os, e.as<BufferLoadNode>()->indices);
    os << ']';
    return;
  }
}

} // namespace

std::string formatExpr(const Expr &e) {
  std::ostringstream os;
  format(os, e);
  return os.str();
}

std::string formatIndexMap(const IndexMapNode &map) {
  std::ostringstream os;
  os << "lambda ";
  for (size_t k = 0; k < map.initialIndices.size(); ++k)
    os << (k ? ", " : "") << map.initialIndices[k]->name.view();
  std::vector<std::string> items;
  size_t separator = 0;
  for (size_t k = 0; k <= map.finalIndices.size(); ++k) {
    for (; separator < map.axisSeparators.size() && map.axisSeparators[separator] == static_cast<int>(k); ++separator)
      items.push_back("T.AXIS_SEPARATOR");
    if (k < map.finalIndices.size())
      items.push_back(formatExpr(map.finalIndices[k]));
  }
  os << ": [";
  for (size_t k = 0; k < items.size(); ++k)
    os << (k ? ", " : "") << items[k];
  os << ']';
  return os.str();
}

std::string formatShape(const std::vector<Expr> &shape) {
  std::ostringstream os;
  os << '(';
  for (size_t k = 0; k < shape.size(); ++k) {
    if (k)
      os << ", ";
    format(os, shape[k]);
  }
  if (shape.size() == 1)
    os << ',';
  os << ')';
  return os.str();
}

} // namespace tirlower
