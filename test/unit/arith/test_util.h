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

// As eval, with TIR's int32 semantics: every +, - and * wraps around to 32 bits, and / and %
// truncate (INT32_MIN / -1 wraps too).
inline int64_t wrap32(int64_t v) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
}
inline int64_t evalInt32(const Expr &e, const Env &env) {
  auto *b = e.as<BinaryNode>();
  if (!b) {
    if (auto *s = e.as<SelectNode>())
      return evalInt32(s->condition, env) ? evalInt32(s->trueValue, env) : evalInt32(s->falseValue, env);
    if (auto *n = e.as<NotNode>())
      return !evalInt32(n->a, env);
    return eval(e, env); // variables and constants
  }
  int64_t x = evalInt32(b->a, env), y = evalInt32(b->b, env);
  switch (b->op) {
  case BinaryOp::Add: return wrap32(x + y);
  case BinaryOp::Sub: return wrap32(x - y);
  case BinaryOp::Mul: return wrap32(x * y);
  case BinaryOp::Div: return wrap32(x / y);
  case BinaryOp::Mod: return wrap32(x % y);
  case BinaryOp::FloorDiv: return wrap32(evalFloorDiv(x, y));
  case BinaryOp::FloorMod: return wrap32(evalFloorMod(x, y));
  default: return eval(BinaryNode::make(b->op, IntImmNode::make(b->a->type, x), IntImmNode::make(b->b->type, y)), env);
  }
}

} // namespace tirlower::test
