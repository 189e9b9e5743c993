// Intrinsic calls, as the intrinsic table (ir/intrinsics.h) defines them: math functions at the
// precision of their type (expf for float32, exp for float64; the 16-bit formats compute in
// float and round), predicates, abs, shifts and bitwise operations, reinterpret, `likely`,
// `assume` (checked) and the lazy `if_then_else`. Composite intrinsics are compiled from their
// expansion (compile_expr.cpp). `call_extern` and unknown intrinsics are errors when evaluated,
// so a call in code that never runs does not stop the interpreter.
//
// Shifts: TIR defines a shift for amounts 0 to bits - 1 (`<<` wraps at the type's width, `>>`
// is arithmetic on signed types); LLVM and C leave other amounts undefined, so the interpreter
// reports them as errors, as it does a division by zero.
#include <cmath>
#include <cstring>
#include <string_view>

#include "interp/compiler.h"
#include "ir/intrinsics.h"

namespace tirlower {
namespace {

// Evaluates every argument into per-lane scratch, then computes lane by lane.
class LanewiseCode : public ExprCode {
public:
  LanewiseCode(DataType type, SourceRange loc, std::vector<ExprCodePtr> args)
      : ExprCode(type, loc), args_(std::move(args)), x_(args_[0]->lanes),
        y_(args_.size() > 1 ? args_[1]->lanes : 0) {}

  void eval(Frame &frame, Cell *out) const override {
    args_[0]->eval(frame, x_.data());
    if (args_.size() > 1)
      args_[1]->eval(frame, y_.data());
    for (int l = 0; l < lanes; ++l)
      out[l] = one(x_.data()[l], args_.size() > 1 ? y_.data()[l] : x_.data()[l]);
  }

protected:
  virtual Cell one(Cell x, Cell y) const = 0;
  DataType argType() const { return args_[0]->type; }

private:
  std::vector<ExprCodePtr> args_;
  Scratch x_, y_;
};

// A row's float and double functions.
class MathCode : public LanewiseCode {
public:
  MathCode(DataType type, SourceRange loc, const IntrinsicInfo &info, std::vector<ExprCodePtr> args)
      : LanewiseCode(type, loc, std::move(args)), info_(info), kind_(numKind(type)) {}

private:
  Cell one(Cell x, Cell y) const override {
    Cell c;
    bool binary = info_.f32x2 != nullptr;
    switch (kind_) {
    case NumKind::F64: c.f = binary ? info_.f64x2(x.f, y.f) : info_.f64(x.f); break;
    default: {
      float fx = static_cast<float>(x.f), fy = static_cast<float>(y.f);
      c.f = roundToKind(binary ? info_.f32x2(fx, fy) : info_.f32(fx), kind_);
      break;
    }
    }
    return c;
  }
  const IntrinsicInfo &info_;
  NumKind kind_;
};

class PredicateCode : public LanewiseCode {
public:
  PredicateCode(DataType type, SourceRange loc, bool (*test)(double), std::vector<ExprCodePtr> args)
      : LanewiseCode(type, loc, std::move(args)), test_(test) {}

private:
  Cell one(Cell x, Cell) const override {
    Cell c;
    c.u = test_(x.f) ? 1 : 0;
    return c;
  }
  bool (*test_)(double);
};

// abs of an integer wraps (abs(MIN) is MIN); of an unsigned value, the value.
class IntegerAbsCode : public LanewiseCode {
public:
  IntegerAbsCode(DataType type, SourceRange loc, std::vector<ExprCodePtr> args)
      : LanewiseCode(type, loc, std::move(args)), kind_(numKind(type)), bits_(type.bits()) {}

private:
  Cell one(Cell x, Cell) const override {
    if (kind_ != NumKind::Int)
      return x;
    return normalizeInt(x.i < 0 ? 0 - x.u : x.u, kind_, bits_);
  }
  NumKind kind_;
  int bits_;
};

class BitwiseCode : public LanewiseCode {
public:
  BitwiseCode(DataType type, SourceRange loc, IntrinsicId id, std::vector<ExprCodePtr> args)
      : LanewiseCode(type, loc, std::move(args)), id_(id), kind_(numKind(type)), bits_(type.bits()) {}

private:
  Cell one(Cell x, Cell y) const override {
    uint64_t v = 0;
    switch (id_) {
    case IntrinsicId::BitwiseAnd: v = x.u & y.u; break;
    case IntrinsicId::BitwiseOr: v = x.u | y.u; break;
    case IntrinsicId::BitwiseXor: v = x.u ^ y.u; break;
    default: v = ~x.u; break; // BitwiseNot
    }
    return normalizeInt(v, kind_, bits_);
  }
  IntrinsicId id_;
  NumKind kind_;
  int bits_;
};

class ShiftCode : public LanewiseCode {
public:
  ShiftCode(DataType type, SourceRange loc, bool left, std::vector<ExprCodePtr> args)
      : LanewiseCode(type, loc, std::move(args)), left_(left), kind_(numKind(type)), bits_(type.bits()) {}

private:
  Cell one(Cell x, Cell y) const override {
    if ((kind_ == NumKind::Int && y.i < 0) || y.u >= static_cast<uint64_t>(bits_))
      runtimeError(loc, "shift amount " + (kind_ == NumKind::Int ? std::to_string(y.i) : std::to_string(y.u)) +
                            " is out of range for " + type.element().str() + " (0 to " + std::to_string(bits_ - 1) +
                            ")");
    if (left_)
      return normalizeInt(x.u << y.u, kind_, bits_);
    Cell c;
    if (kind_ == NumKind::Int)
      c.i = x.i >> y.u;
    else
      c.u = x.u >> y.u;
    return c;
  }
  bool left_;
  NumKind kind_;
  int bits_;
};

// The bits of the argument's lanes read as the result's lanes (the total size is the same).
class ReinterpretCode : public ExprCode {
public:
  ReinterpretCode(DataType type, SourceRange loc, ExprCodePtr value)
      : ExprCode(type, loc), value_(std::move(value)), in_(value_->lanes),
        bytes_(static_cast<size_t>(type.bits() / 8) * static_cast<size_t>(lanes)) {}

  void eval(Frame &frame, Cell *out) const override {
    value_->eval(frame, in_.data());
    DataType from = value_->type.element(), to = type.element();
    const size_t fromBytes = static_cast<size_t>(from.bits()) / 8, toBytes = static_cast<size_t>(to.bits()) / 8;
    for (int l = 0; l < value_->lanes; ++l)
      storeScalar(bytes_.data() + static_cast<size_t>(l) * fromBytes, from, in_.data()[l]);
    for (int l = 0; l < lanes; ++l)
      out[l] = loadScalar(bytes_.data() + static_cast<size_t>(l) * toBytes, to);
  }

private:
  ExprCodePtr value_;
  Scratch in_;
  mutable std::vector<uint8_t> bytes_;
};

class IdentityCode : public ExprCode {
public:
  IdentityCode(DataType type, SourceRange loc, ExprCodePtr value) : ExprCode(type, loc), value_(std::move(value)) {}
  Cell scalar(Frame &frame) const override { return value_->scalar(frame); }
  void eval(Frame &frame, Cell *out) const override { value_->eval(frame, out); }

private:
  ExprCodePtr value_;
};

// T.assume(c): TVM takes c as a fact and may compile code that is wrong when it does not hold;
// the interpreter checks it instead (every lane).
class AssumeCode : public ExprCode {
public:
  AssumeCode(DataType type, SourceRange loc, ExprCodePtr condition)
      : ExprCode(type, loc), condition_(std::move(condition)), cells_(condition_->lanes) {}
  void eval(Frame &frame, Cell *out) const override {
    condition_->eval(frame, cells_.data());
    for (int l = 0; l < lanes; ++l) {
      if (!cells_.data()[l].u)
        runtimeError(loc, "the condition of T.assume does not hold");
      out[l] = cells_.data()[l];
    }
  }

private:
  ExprCodePtr condition_;
  Scratch cells_;
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

} // namespace

ExprCodePtr makeCallCode(const CallNode &call, std::vector<ExprCodePtr> args) {
  const IntrinsicInfo *info = call.intrinsic;
  if (!info)
    return std::make_unique<UnsupportedCallCode>(call.type, call.loc,
                                                 "the interpreter does not know the intrinsic '" + call.op.str() + "'");
  const DataType type = call.type;
  if (info->eval == IntrinsicEval::Math) {
    if (info->predicate)
      return std::make_unique<PredicateCode>(type, call.loc, info->predicate, std::move(args));
    numKind(type); // rejects types the interpreter cannot compute with
    return std::make_unique<MathCode>(type, call.loc, *info, std::move(args));
  }
  switch (info->id) {
  case IntrinsicId::Abs:
    if (type.isFloat())
      return std::make_unique<MathCode>(type, call.loc, *info, std::move(args));
    return std::make_unique<IntegerAbsCode>(type, call.loc, std::move(args));
  case IntrinsicId::Likely: return std::make_unique<IdentityCode>(type, call.loc, std::move(args[0]));
  case IntrinsicId::Assume: return std::make_unique<AssumeCode>(type, call.loc, std::move(args[0]));
  case IntrinsicId::IfThenElse: return std::make_unique<IfThenElseCode>(type, call.loc, std::move(args));
  case IntrinsicId::Reinterpret: return std::make_unique<ReinterpretCode>(type, call.loc, std::move(args[0]));
  case IntrinsicId::ShiftLeft:
  case IntrinsicId::ShiftRight:
    return std::make_unique<ShiftCode>(type, call.loc, info->id == IntrinsicId::ShiftLeft, std::move(args));
  case IntrinsicId::BitwiseAnd:
  case IntrinsicId::BitwiseOr:
  case IntrinsicId::BitwiseXor:
  case IntrinsicId::BitwiseNot: return std::make_unique<BitwiseCode>(type, call.loc, info->id, std::move(args));
  default: break;
  }
  // call_extern and call_pure_extern: the interpreter has no foreign functions.
  return std::make_unique<UnsupportedCallCode>(type, call.loc, "the interpreter cannot run T." + call.op.str());
}

} // namespace tirlower
