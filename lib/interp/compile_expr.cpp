// Expression code: variables, constants, casts, ramps, broadcasts, lets, selects, logic.
// Arithmetic is in binary_code.cpp, intrinsics in call_code.cpp, buffer reads in
// buffer_access.cpp.
#include "interp/compiler.h"
#include "interp/warp_code.h"
#include "ir/gpu_builtins.h"

namespace tirlower {

Cell ExprCode::scalar(Frame &frame) const {
  Cell c;
  eval(frame, &c);
  return c;
}

void ExprCode::eval(Frame &frame, Cell *out) const {
  out[0] = scalar(frame);
}

int Compiler::bind(const Var &var) {
  int slot = nextSlot_;
  nextSlot_ += var->type.lanes();
  bindings_[var.get()].push_back(slot);
  return slot;
}

void Compiler::unbind(const Var &var) {
  auto it = bindings_.find(var.get());
  it->second.pop_back();
  if (it->second.empty())
    bindings_.erase(it);
}

bool Compiler::isBound(const VarNode *var) const {
  return bindings_.count(var) != 0;
}

int Compiler::slotOf(const VarNode *var, SourceRange use) const {
  auto it = bindings_.find(var);
  if (it == bindings_.end())
    throw CompileError(use.valid() ? use : var->loc,
                       "variable '" + var->name.str() + "' is used where it is not defined");
  return it->second.back();
}

namespace {

class ScalarVarCode : public ExprCode {
public:
  ScalarVarCode(DataType type, SourceRange loc, int slot) : ExprCode(type, loc), slot_(slot) {}
  Cell scalar(Frame &frame) const override { return frame.env[slot_]; }

private:
  int slot_;
};

class VectorVarCode : public ExprCode {
public:
  VectorVarCode(DataType type, SourceRange loc, int slot) : ExprCode(type, loc), slot_(slot) {}
  void eval(Frame &frame, Cell *out) const override {
    for (int l = 0; l < lanes; ++l)
      out[l] = frame.env[slot_ + l];
  }

private:
  int slot_;
};

class ConstCode : public ExprCode {
public:
  ConstCode(DataType type, SourceRange loc, Cell value) : ExprCode(type, loc), value_(value) {}
  Cell scalar(Frame &) const override { return value_; }

private:
  Cell value_;
};

class StringCode : public ExprCode {
public:
  using ExprCode::ExprCode;
  Cell scalar(Frame &) const override { runtimeError(loc, "the interpreter cannot use a string as a value"); }
};

class NotCode : public ExprCode {
public:
  NotCode(DataType type, SourceRange loc, ExprCodePtr a) : ExprCode(type, loc), a_(std::move(a)) {}
  Cell scalar(Frame &frame) const override {
    Cell c;
    c.u = a_->scalar(frame).u ^ 1;
    return c;
  }
  void eval(Frame &frame, Cell *out) const override {
    a_->eval(frame, out);
    for (int l = 0; l < lanes; ++l)
      out[l].u ^= 1;
  }

private:
  ExprCodePtr a_;
};

// Both values are evaluated, as in TVM's Select (use if_then_else for a lazy choice).
class SelectCode : public ExprCode {
public:
  SelectCode(DataType type, SourceRange loc, ExprCodePtr c, ExprCodePtr t, ExprCodePtr f)
      : ExprCode(type, loc), c_(std::move(c)), t_(std::move(t)), f_(std::move(f)), cond_(c_->lanes), other_(lanes) {}
  Cell scalar(Frame &frame) const override {
    Cell c = c_->scalar(frame), t = t_->scalar(frame), f = f_->scalar(frame);
    return c.u ? t : f;
  }
  void eval(Frame &frame, Cell *out) const override {
    c_->eval(frame, cond_.data());
    t_->eval(frame, out);
    f_->eval(frame, other_.data());
    for (int l = 0; l < lanes; ++l)
      if (!cond_.data()[c_->lanes == 1 ? 0 : l].u)
        out[l] = other_.data()[l];
  }

private:
  ExprCodePtr c_, t_, f_;
  Scratch cond_, other_;
};

class CastCode : public ExprCode {
public:
  CastCode(DataType type, SourceRange loc, ExprCodePtr a) : ExprCode(type, loc), a_(std::move(a)) {}
  Cell scalar(Frame &frame) const override { return castCell(a_->scalar(frame), a_->type, type, loc); }
  void eval(Frame &frame, Cell *out) const override {
    a_->eval(frame, out);
    for (int l = 0; l < lanes; ++l)
      out[l] = castCell(out[l], a_->type, type, loc);
  }

private:
  ExprCodePtr a_;
};

class RampCode : public ExprCode {
public:
  RampCode(DataType type, SourceRange loc, ExprCodePtr base, ExprCodePtr stride)
      : ExprCode(type, loc), base_(std::move(base)), stride_(std::move(stride)), kind_(numKind(type)) {}
  void eval(Frame &frame, Cell *out) const override {
    uint64_t base = base_->scalar(frame).u, stride = stride_->scalar(frame).u;
    for (int l = 0; l < lanes; ++l)
      out[l] = normalizeInt(base + stride * static_cast<uint64_t>(l), kind_, type.bits());
  }

private:
  ExprCodePtr base_, stride_;
  NumKind kind_;
};

class BroadcastCode : public ExprCode {
public:
  BroadcastCode(DataType type, SourceRange loc, ExprCodePtr value) : ExprCode(type, loc), value_(std::move(value)) {}
  void eval(Frame &frame, Cell *out) const override {
    Cell v = value_->scalar(frame);
    for (int l = 0; l < lanes; ++l)
      out[l] = v;
  }

private:
  ExprCodePtr value_;
};

class LetCode : public ExprCode {
public:
  LetCode(DataType type, SourceRange loc, int slot, ExprCodePtr value, ExprCodePtr body)
      : ExprCode(type, loc), slot_(slot), value_(std::move(value)), body_(std::move(body)) {}
  Cell scalar(Frame &frame) const override {
    value_->eval(frame, &frame.env[slot_]);
    return body_->scalar(frame);
  }
  void eval(Frame &frame, Cell *out) const override {
    value_->eval(frame, &frame.env[slot_]);
    body_->eval(frame, out);
  }

private:
  int slot_;
  ExprCodePtr value_, body_;
};

Cell constant(const Expr &e) {
  Cell c;
  if (const auto *imm = e.as<IntImmNode>())
    c = normalizeInt(static_cast<uint64_t>(imm->value), numKind(e->type), e->type.bits());
  else
    c.f = roundToKind(e.as<FloatImmNode>()->value, numKind(e->type));
  return c;
}

} // namespace

ExprCodePtr Compiler::expr(const Expr &e) { return visitExpr(e); }

ExprCodePtr Compiler::visitVar(const VarNode *op) {
  int slot = slotOf(op, op->loc);
  if (op->type.isVector())
    return std::make_unique<VectorVarCode>(op->type, op->loc, slot);
  return std::make_unique<ScalarVarCode>(op->type, op->loc, slot);
}

ExprCodePtr Compiler::visitIntImm(const IntImmNode *op) {
  return std::make_unique<ConstCode>(op->type, op->loc, constant(op));
}

ExprCodePtr Compiler::visitFloatImm(const FloatImmNode *op) {
  return std::make_unique<ConstCode>(op->type, op->loc, constant(op));
}

ExprCodePtr Compiler::visitStringImm(const StringImmNode *op) { return std::make_unique<StringCode>(op->type, op->loc); }

ExprCodePtr Compiler::visitBinary(const BinaryNode *op) {
  return makeBinaryCode(op->op, expr(op->a), expr(op->b), op->type, op->loc);
}

ExprCodePtr Compiler::visitNot(const NotNode *op) { return std::make_unique<NotCode>(op->type, op->loc, expr(op->a)); }

ExprCodePtr Compiler::visitSelect(const SelectNode *op) {
  return std::make_unique<SelectCode>(op->type, op->loc, expr(op->condition), expr(op->trueValue),
                                      expr(op->falseValue));
}

ExprCodePtr Compiler::visitCast(const CastNode *op) {
  numKind(op->type); // rejects void before run time
  return std::make_unique<CastCode>(op->type, op->loc, expr(op->value));
}

ExprCodePtr Compiler::visitRamp(const RampNode *op) {
  return std::make_unique<RampCode>(op->type, op->loc, expr(op->base), expr(op->stride));
}

ExprCodePtr Compiler::visitBroadcast(const BroadcastNode *op) {
  return std::make_unique<BroadcastCode>(op->type, op->loc, expr(op->value));
}

ExprCodePtr Compiler::visitLet(const LetNode *op) {
  ExprCodePtr value = expr(op->value);
  ScopedBinding binding(*this, op->var);
  return std::make_unique<LetCode>(op->type, op->loc, binding.slot(), std::move(value), expr(op->body));
}

ExprCodePtr Compiler::visitCall(const CallNode *op) {
  if (Expr expanded = expandIntrinsic(*op)) // composite intrinsics: the table's expansion
    return expr(expanded);
  if (isWarpIntrinsic(*op))
    return compileWarpCall(*this, *op);
  std::vector<ExprCodePtr> args;
  for (const Expr &arg : op->args)
    args.push_back(expr(arg));
  return makeCallCode(*op, std::move(args));
}

ExprCodePtr Compiler::visitBufferLoad(const BufferLoadNode *op) { return makeLoadCode(*this, *op); }

} // namespace tirlower
