// Intrinsic calls: math functions at the precision of their type (expf for float32, exp for
// float64; the 16-bit formats compute in float and round), `likely`, and the lazy
// `if_then_else`. `call_extern` and unknown intrinsics are errors when evaluated, so a call in
// code that never runs does not stop the interpreter.
#include <cmath>
#include <string_view>

#include "interp/compiler.h"

namespace tirlower {
namespace {

enum class MathOp : uint8_t {
  Exp,
  Exp2,
  Log,
  Log2,
  Sqrt,
  Rsqrt,
  Sin,
  Cos,
  Tanh,
  Sigmoid,
  Fabs,
  Abs,
  Floor,
  Ceil,
  Round,
  Trunc,
  Pow,
  Fmod
};

struct MathEntry {
  std::string_view name;
  MathOp op;
  int arity;
};

constexpr MathEntry kMathOps[] = {
    {"exp", MathOp::Exp, 1},         {"exp2", MathOp::Exp2, 1}, {"log", MathOp::Log, 1},
    {"log2", MathOp::Log2, 1},       {"sqrt", MathOp::Sqrt, 1}, {"rsqrt", MathOp::Rsqrt, 1},
    {"sin", MathOp::Sin, 1},         {"cos", MathOp::Cos, 1},   {"tanh", MathOp::Tanh, 1},
    {"sigmoid", MathOp::Sigmoid, 1}, {"fabs", MathOp::Fabs, 1}, {"abs", MathOp::Abs, 1},
    {"floor", MathOp::Floor, 1},     {"ceil", MathOp::Ceil, 1}, {"round", MathOp::Round, 1},
    {"trunc", MathOp::Trunc, 1},     {"pow", MathOp::Pow, 2},   {"fmod", MathOp::Fmod, 2},
};

// T is float or double; the std:: overloads pick expf/exp and so on.
template <typename T> T applyMath(MathOp op, T x, T y) {
  switch (op) {
  case MathOp::Exp: return std::exp(x);
  case MathOp::Exp2: return std::exp2(x);
  case MathOp::Log: return std::log(x);
  case MathOp::Log2: return std::log2(x);
  case MathOp::Sqrt: return std::sqrt(x);
  case MathOp::Rsqrt: return T(1) / std::sqrt(x);
  case MathOp::Sin: return std::sin(x);
  case MathOp::Cos: return std::cos(x);
  case MathOp::Tanh: return std::tanh(x);
  case MathOp::Sigmoid: return T(1) / (T(1) + std::exp(-x));
  case MathOp::Fabs:
  case MathOp::Abs: return std::fabs(x);
  case MathOp::Floor: return std::floor(x);
  case MathOp::Ceil: return std::ceil(x);
  case MathOp::Round: return std::round(x);
  case MathOp::Trunc: return std::trunc(x);
  case MathOp::Pow: return std::pow(x, y);
  case MathOp::Fmod: return std::fmod(x, y);
  }
  return x;
}

class MathCode : public ExprCode {
public:
  MathCode(DataType type, SourceRange loc, MathOp op, std::vector<ExprCodePtr> args)
      : ExprCode(type, loc), op_(op), kind_(numKind(type)), args_(std::move(args)), x_(lanes), y_(lanes) {}

  void eval(Frame &frame, Cell *out) const override {
    args_[0]->eval(frame, x_.data());
    if (args_.size() > 1)
      args_[1]->eval(frame, y_.data());
    for (int l = 0; l < lanes; ++l)
      out[l] = one(x_.data()[l], args_.size() > 1 ? y_.data()[l] : x_.data()[l]);
  }

private:
  Cell one(Cell x, Cell y) const {
    Cell c;
    switch (kind_) {
    case NumKind::F64: c.f = applyMath<double>(op_, x.f, y.f); break;
    case NumKind::F32: c.f = applyMath<float>(op_, static_cast<float>(x.f), static_cast<float>(y.f)); break;
    case NumKind::F16:
    case NumKind::BF16:
      c.f = roundToKind(applyMath<float>(op_, static_cast<float>(x.f), static_cast<float>(y.f)), kind_);
      break;
    case NumKind::Int: // only abs reaches here (checked when compiled)
      c = normalizeInt(x.i < 0 ? 0 - x.u : x.u, kind_, type.bits());
      break;
    default: c = x; break; // abs of an unsigned value
    }
    return c;
  }

  MathOp op_;
  NumKind kind_;
  std::vector<ExprCodePtr> args_;
  Scratch x_, y_;
};

class IdentityCode : public ExprCode {
public:
  IdentityCode(DataType type, SourceRange loc, ExprCodePtr value) : ExprCode(type, loc), value_(std::move(value)) {}
  Cell scalar(Frame &frame) const override { return value_->scalar(frame); }
  void eval(Frame &frame, Cell *out) const override { value_->eval(frame, out); }

private:
  ExprCodePtr value_;
};

// Evaluates only the chosen branch; with a vector condition, only the branches some lane needs.
class IfThenElseCode : public ExprCode {
public:
  IfThenElseCode(DataType type, SourceRange loc, std::vector<ExprCodePtr> args)
      : ExprCode(type, loc), args_(std::move(args)), cond_(args_[0]->lanes), other_(lanes) {}
  Cell scalar(Frame &frame) const override {
    return args_[0]->scalar(frame).u ? args_[1]->scalar(frame) : args_[2]->scalar(frame);
  }
  void eval(Frame &frame, Cell *out) const override {
    const int condLanes = args_[0]->lanes;
    Cell *cond = cond_.data();
    args_[0]->eval(frame, cond);
    bool anyTrue = false, anyFalse = false;
    for (int l = 0; l < condLanes; ++l)
      (cond[l].u ? anyTrue : anyFalse) = true;
    if (!anyFalse)
      return args_[1]->eval(frame, out);
    if (!anyTrue)
      return args_[2]->eval(frame, out);
    args_[1]->eval(frame, out);
    args_[2]->eval(frame, other_.data());
    for (int l = 0; l < lanes; ++l)
      if (!cond[l].u)
        out[l] = other_.data()[l];
  }

private:
  std::vector<ExprCodePtr> args_;
  Scratch cond_, other_;
};

class UnsupportedCallCode : public ExprCode {
public:
  UnsupportedCallCode(DataType type, SourceRange loc, std::string message)
      : ExprCode(type, loc), message_(std::move(message)) {}
  Cell scalar(Frame &) const override { runtimeError(loc, message_); }
  void eval(Frame &, Cell *) const override { runtimeError(loc, message_); }

private:
  std::string message_;
};

void checkArity(const CallNode &call, size_t arity) {
  if (call.args.size() != arity)
    throw CompileError(call.loc, "T." + call.op.str() + " takes " + std::to_string(arity) + " argument" +
                                     (arity == 1 ? "" : "s") + ", not " + std::to_string(call.args.size()));
}

} // namespace

ExprCodePtr makeCallCode(const CallNode &call, std::vector<ExprCodePtr> args) {
  std::string_view name = call.op.view();
  if (name.substr(0, 4) == "tir.")
    name.remove_prefix(4);
  if (name == "likely") {
    checkArity(call, 1);
    return std::make_unique<IdentityCode>(call.type, call.loc, std::move(args[0]));
  }
  if (name == "if_then_else") {
    checkArity(call, 3);
    if (!call.args[0]->type.isBool() || call.args[1]->type != call.type || call.args[2]->type != call.type ||
        (call.args[0]->type.lanes() != 1 && call.args[0]->type.lanes() != call.type.lanes()))
      throw CompileError(call.loc, "T.if_then_else needs a bool condition and two values of type " + call.type.str());
    return std::make_unique<IfThenElseCode>(call.type, call.loc, std::move(args));
  }
  for (const MathEntry &entry : kMathOps) {
    if (entry.name != name)
      continue;
    checkArity(call, static_cast<size_t>(entry.arity));
    for (const Expr &arg : call.args)
      if (arg->type != call.type)
        throw CompileError(call.loc, "argument of T." + call.op.str() + " has type " + arg->type.str() +
                                         " but the call has type " + call.type.str());
    if (!call.type.isFloat() && !(entry.op == MathOp::Abs && call.type.isIntOrUInt()))
      throw CompileError(call.loc, "T." + call.op.str() + " of " + call.type.str() + " is not supported");
    return std::make_unique<MathCode>(call.type, call.loc, entry.op, std::move(args));
  }
  if (name == "call_extern" || name == "call_pure_extern")
    return std::make_unique<UnsupportedCallCode>(call.type, call.loc, "the interpreter cannot run T." + call.op.str());
  return std::make_unique<UnsupportedCallCode>(call.type, call.loc,
                                               "the interpreter does not know the intrinsic '" + call.op.str() + "'");
}

} // namespace tirlower
