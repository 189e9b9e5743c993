// Helpers shared by the arith tests: variable construction and an independent evaluator of
// integer expressions on concrete values (floor and truncating division written out here, not
// taken from lib/arith).
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

#include "ir/expr.h"

namespace tirlower::test {

inline Var var(const std::string &name, DataType t = DataType::int32()) {
  return VarNode::make(Symbol(name), t);
}
inline Expr c(int64_t v, DataType t = DataType::int32()) {
  return IntImmNode::make(t, v);
}
inline Expr bin(BinaryOp op, Expr a, Expr b) {
  return BinaryNode::make(op, std::move(a), std::move(b));
}
inline Expr fdiv(Expr a, Expr b) {
  return bin(BinaryOp::FloorDiv, std::move(a), std::move(b));
}
inline Expr fmod(Expr a, Expr b) {
  return bin(BinaryOp::FloorMod, std::move(a), std::move(b));
}
inline Expr fdiv(Expr a, int64_t b) {
  DataType t = a->type;
  return fdiv(std::move(a), c(b, t));
}
inline Expr fmod(Expr a, int64_t b) {
  DataType t = a->type;
  return fmod(std::move(a), c(b, t));
}

using Env = std::map<const VarNode *, int64_t>;

inline int64_t evalFloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}
inline int64_t evalFloorMod(int64_t a, int64_t b) {
  return a - evalFloorDiv(a, b) * b;
}

struct EvalError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline int64_t eval(const Expr &e, const Env &env) {
  if (auto *v = e.as<VarNode>()) {
    auto it = env.find(v);
    if (it == env.end())
      throw EvalError("unbound variable " + v->name.str());
    return it->second;
  }
  if (auto *imm = e.as<IntImmNode>())
    return imm->value;
  if (auto *n = e.as<NotNode>())
    return !eval(n->a, env);
  if (auto *s = e.as<SelectNode>())
    return eval(s->condition, env) ? eval(s->trueValue, env) : eval(s->falseValue, env);
  if (auto *cast = e.as<CastNode>())
    return eval(cast->value, env);
  auto *b = e.as<BinaryNode>();
  if (!b)
    throw EvalError("cannot evaluate node");
  int64_t x = eval(b->a, env), y = eval(b->b, env);
  switch (b->op) {
  case BinaryOp::Add: return x + y;
  case BinaryOp::Sub: return x - y;
  case BinaryOp::Mul: return x * y;
  case BinaryOp::Div: return x / y;
  case BinaryOp::Mod: return x % y;
  case BinaryOp::FloorDiv: return evalFloorDiv(x, y);
  case BinaryOp::FloorMod: return evalFloorMod(x, y);
  case BinaryOp::Min: return x < y ? x : y;
  case BinaryOp::Max: return x > y ? x : y;
  case BinaryOp::EQ: return x == y;
  case BinaryOp::NE: return x != y;
  case BinaryOp::LT: return x < y;
  case BinaryOp::LE: return x <= y;
  case BinaryOp::GT: return x > y;
  case BinaryOp::GE: return x >= y;
  case BinaryOp::And: return x && y;
  case BinaryOp::Or: return x || y;
  }
  throw EvalError("unknown operator");
}

} // namespace tirlower::test
