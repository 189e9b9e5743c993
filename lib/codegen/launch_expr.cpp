// Launch size expressions over a kernel's scalar parameters (launch_expr.h). A small closed
// language: what a symbolic thread extent of dlight's schedules is made of, `(n + 31) // 32`,
// and nothing a host could not evaluate.
#include "codegen/launch_expr.h"

#include <algorithm>

namespace tirlower {

namespace {

const char *opName(BinaryOp op) {
  switch (op) { // kind-switch: the launch language's spelling of each operator it takes
  case BinaryOp::Add: return "+";
  case BinaryOp::Sub: return "-";
  case BinaryOp::Mul: return "*";
  case BinaryOp::FloorDiv: return "floordiv";
  case BinaryOp::FloorMod: return "floormod";
  case BinaryOp::Div: return "truncdiv";
  case BinaryOp::Mod: return "truncmod";
  case BinaryOp::Min: return "min";
  case BinaryOp::Max: return "max";
  default: return nullptr;
  }
}

bool isParam(const VarNode *var, const PrimFuncNode &func) {
  return std::any_of(func.params.begin(), func.params.end(),
                     [&](const Var &p) { return p.get() == var && !func.bufferFor(p) && var->type.isInt(); });
}

} // namespace

std::string launchExprProblem(const Expr &e, const PrimFuncNode &func) {
  if (!e->type.isScalar() || !e->type.isIntOrUInt())
    return "it is not a scalar integer";
  if (asConstInt(e))
    return "";
  if (const auto *var = e.as<VarNode>())
    return isParam(var, func) ? "" : "'" + var->name.str() + "' is not a scalar parameter of the function";
  if (const auto *cast = e.as<CastNode>())
    return cast->value->type.isIntOrUInt() ? launchExprProblem(cast->value, func) : "it casts a non-integer";
  if (const auto *b = e.as<BinaryNode>()) {
    if (!opName(b->op))
      return std::string("it uses ") + binaryOpName(b->op);
    std::string problem = launchExprProblem(b->a, func);
    return problem.empty() ? launchExprProblem(b->b, func) : problem;
  }
  return "it is not made of constants, scalar parameters and integer arithmetic";
}

namespace {

// Binding strength in TVMScript: + - bind looser than * // %; calls and atoms tightest.
int precedence(const Expr &e) {
  const auto *b = e.as<BinaryNode>();
  if (!b)
    return 3;
  if (b->op == BinaryOp::Add || b->op == BinaryOp::Sub)
    return 1;
  if (b->op == BinaryOp::Mul || b->op == BinaryOp::FloorDiv || b->op == BinaryOp::FloorMod)
    return 2;
  return 3; // min(a, b), truncdiv(a, b)
}

std::string textOf(const Expr &e, const LaunchNamer &name);

// An operand, parenthesized where it binds looser than its operator (or as loosely, on the
// right: a - (b - c)).
std::string operand(const Expr &e, int outer, bool right, const LaunchNamer &name) {
  int inner = precedence(e);
  std::string text = textOf(e, name);
  return inner < outer || (right && inner == outer) ? "(" + text + ")" : text;
}

std::string textOf(const Expr &e, const LaunchNamer &name) {
  if (const int64_t *v = asConstInt(e))
    return std::to_string(*v);
  if (const auto *var = e.as<VarNode>())
    return name(var);
  if (const auto *cast = e.as<CastNode>())
    return cast->type.str() + "(" + textOf(cast->value, name) + ")";
  const auto *b = e.as<BinaryNode>();
  int p = precedence(e);
  if (p == 3)
    return std::string(opName(b->op)) + "(" + textOf(b->a, name) + ", " + textOf(b->b, name) + ")";
  const char *op = b->op == BinaryOp::FloorDiv ? "//" : b->op == BinaryOp::FloorMod ? "%" : opName(b->op);
  return operand(b->a, p, false, name) + " " + op + " " + operand(b->b, p, true, name);
}

} // namespace

std::string launchExprText(const Expr &e, const LaunchNamer &name) { return textOf(e, name); }

nlohmann::ordered_json launchExprJson(const Expr &e, const LaunchNamer &name) {
  using Json = nlohmann::ordered_json;
  if (const int64_t *v = asConstInt(e))
    return Json(*v);
  if (const auto *var = e.as<VarNode>())
    return Json(name(var));
  if (const auto *cast = e.as<CastNode>())
    return Json::array({"cast", cast->type.str(), launchExprJson(cast->value, name)});
  const auto *b = e.as<BinaryNode>();
  return Json::array({opName(b->op), launchExprJson(b->a, name), launchExprJson(b->b, name)});
}

std::string launchExprC(const Expr &e, const LaunchNamer &name) {
  if (const int64_t *v = asConstInt(e))
    return "INT64_C(" + std::to_string(*v) + ")";
  if (const auto *var = e.as<VarNode>())
    return "(int64_t)" + name(var);
  if (const auto *cast = e.as<CastNode>()) {
    DataType t = cast->type;
    std::string c = std::string(t.isUInt() ? "uint" : "int") + std::to_string(t.bits()) + "_t";
    return "(int64_t)(" + c + ")(" + launchExprC(cast->value, name) + ")";
  }
  const auto *b = e.as<BinaryNode>();
  std::string a = launchExprC(b->a, name), c = launchExprC(b->b, name);
  switch (b->op) { // kind-switch: C spelling per operator
  case BinaryOp::FloorDiv:
  case BinaryOp::FloorMod:
  case BinaryOp::Min:
  case BinaryOp::Max: return std::string("tl_launch_") + opName(b->op) + "(" + a + ", " + c + ")";
  case BinaryOp::Div: return "(" + a + " / " + c + ")";
  case BinaryOp::Mod: return "(" + a + " % " + c + ")";
  default: return "(" + a + " " + opName(b->op) + " " + c + ")";
  }
}

const char *launchHeaderHelpers() {
  return "static inline int64_t tl_launch_floordiv(int64_t a, int64_t b) {\n"
         "  int64_t q = a / b;\n"
         "  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;\n"
         "}\n"
         "static inline int64_t tl_launch_floormod(int64_t a, int64_t b) {\n"
         "  int64_t r = a % b;\n"
         "  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;\n"
         "}\n"
         "static inline int64_t tl_launch_min(int64_t a, int64_t b) { return a < b ? a : b; }\n"
         "static inline int64_t tl_launch_max(int64_t a, int64_t b) { return a > b ? a : b; }\n";
}

} // namespace tirlower
