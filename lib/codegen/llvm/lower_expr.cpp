// Expressions of the LLVM lowering. Integer arithmetic wraps (no nsw/nuw flags), floats follow
// IEEE (no fast-math flags) except that a float `a * b + c` becomes `llvm.fmuladd` unless
// options.fpContract is off (as TVM's LLVM target lowers it), floor division and modulo are
// exact for negative operands, and scalar `and`/`or` short-circuit as C's `&&`/`||` do (a guard
// may protect a load).
#include "codegen/llvm/function_lowering.h"

namespace tirlower {

llvm::Type *FunctionLowering::typeOf(DataType type) const {
  llvm::Type *scalar = nullptr;
  switch (type.code()) {
  case DataType::Code::Int:
  case DataType::Code::UInt: scalar = llvm::Type::getIntNTy(context_, static_cast<unsigned>(type.bits())); break;
  case DataType::Code::Bool: scalar = llvm::Type::getInt1Ty(context_); break;
  case DataType::Code::Float:
    if (type.bits() == 16)
      scalar = llvm::Type::getHalfTy(context_);
    else if (type.bits() == 32)
      scalar = llvm::Type::getFloatTy(context_);
    else if (type.bits() == 64)
      scalar = llvm::Type::getDoubleTy(context_);
    break;
  case DataType::Code::Handle: scalar = llvm::PointerType::getUnqual(context_); break;
  case DataType::Code::Void: return llvm::Type::getVoidTy(context_);
  case DataType::Code::BFloat: break;
  }
  if (!scalar)
    throw CompileError(SourceRange{}, "LLVM emitter: type " + type.str() + " is not supported");
  return type.isVector() ? llvm::FixedVectorType::get(scalar, static_cast<unsigned>(type.lanes())) : scalar;
}

llvm::Type *FunctionLowering::memoryTypeOf(DataType type) const {
  if (!type.isBool())
    return typeOf(type);
  llvm::Type *byte = llvm::Type::getInt8Ty(context_);
  return type.isVector() ? llvm::FixedVectorType::get(byte, static_cast<unsigned>(type.lanes())) : byte;
}

llvm::Constant *FunctionLowering::constantOf(DataType type, int64_t value) const {
  llvm::Type *scalar = typeOf(type.element());
  llvm::Constant *c = type.isFloat() ? llvm::ConstantFP::get(scalar, static_cast<double>(value))
                                     : llvm::ConstantInt::get(scalar, static_cast<uint64_t>(value), type.isInt());
  return type.isVector() ? llvm::ConstantVector::getSplat(llvm::ElementCount::getFixed(type.lanes()), c) : c;
}

llvm::Value *FunctionLowering::splatIfVector(DataType type, llvm::Value *scalar) {
  return type.isVector() ? builder_.CreateVectorSplat(static_cast<unsigned>(type.lanes()), scalar) : scalar;
}

void FunctionLowering::bind(const VarNode *var, llvm::Value *value) {
  values_[var] = value;
}

llvm::Value *FunctionLowering::valueOf(const VarNode *var, SourceRange where) {
  auto it = values_.find(var);
  if (it != values_.end())
    return it->second;
  auto wide = wideValues_.find(var);
  if (wide == wideValues_.end())
    throw CompileError(where, "LLVM emitter: variable '" + var->name.str() + "' is used outside its definition");
  // An int32 variable held as i64: its i32 value, made once, right after the i64 value's
  // definition (so it dominates every use of the variable).
  llvm::IRBuilderBase::InsertPointGuard guard(builder_);
  llvm::Value *value = wide->second.value;
  if (auto *phi = llvm::dyn_cast<llvm::PHINode>(value))
    builder_.SetInsertPoint(phi->getParent(), phi->getParent()->getFirstInsertionPt());
  else if (auto *instruction = llvm::dyn_cast<llvm::Instruction>(value))
    builder_.SetInsertPoint(instruction->getParent(), std::next(instruction->getIterator()));
  llvm::Value *narrow = builder_.CreateTrunc(value, builder_.getInt32Ty(), var->name.str() + ".i32");
  values_[var] = narrow;
  return narrow;
}

llvm::Value *FunctionLowering::lowerExpr(const Expr &expr) { return visitExpr(expr); }

llvm::Value *FunctionLowering::visitVar(const VarNode *op) { return valueOf(op, op->loc); }

llvm::Value *FunctionLowering::visitIntImm(const IntImmNode *op) { return constantOf(op->type, op->value); }

llvm::Value *FunctionLowering::visitFloatImm(const FloatImmNode *op) {
  return llvm::ConstantFP::get(typeOf(op->type), op->value);
}

llvm::Value *FunctionLowering::visitStringImm(const StringImmNode *op) {
  return builder_.CreateGlobalStringPtr(op->value, "str");
}

llvm::Value *FunctionLowering::visitNot(const NotNode *op) { return builder_.CreateNot(lowerExpr(op->a)); }

llvm::Value *FunctionLowering::visitSelect(const SelectNode *op) {
  llvm::Value *condition = lowerExpr(op->condition);
  return builder_.CreateSelect(condition, lowerExpr(op->trueValue), lowerExpr(op->falseValue));
}

llvm::Value *FunctionLowering::visitCast(const CastNode *op) {
  // int32 to int64, as int64-indexed modules widen their int32 indices: 64-bit index arithmetic
  // where it fits (lower_index.cpp), so that no trunc/sext pair of a 64-bit loop variable remains.
  DataType from = op->value->type;
  if (op->type.isInt() && op->type.bits() == 64 && op->type.isScalar() && from.isInt() && from.bits() == 32 &&
      from.isScalar())
    return wideOf(lowerIndex(op->value));
  return lowerCast(op->type, op->value->type, lowerExpr(op->value));
}

llvm::Value *FunctionLowering::visitBroadcast(const BroadcastNode *op) {
  return builder_.CreateVectorSplat(static_cast<unsigned>(op->lanes), lowerExpr(op->value));
}

llvm::Value *FunctionLowering::visitLet(const LetNode *op) {
  if (op->value->type.isIndex())
    letSets_[op->var.get()] = modularSet(op->value);
  if (op->var->type.isInt() && op->var->type.bits() == 32 && op->var->type.isScalar())
    bindIndex(op->var.get(), lowerIndex(op->value));
  else
    bind(op->var.get(), lowerExpr(op->value));
  llvm::Value *body = lowerExpr(op->body);
  unbind(op->var.get());
  return body;
}

llvm::Value *FunctionLowering::visitRamp(const RampNode *op) {
  DataType type = op->type;
  llvm::Value *base = splatIfVector(type, lowerExpr(op->base));
  llvm::Value *stride = splatIfVector(type, lowerExpr(op->stride));
  std::vector<llvm::Constant *> lanes;
  for (int k = 0; k < op->lanes; ++k)
    lanes.push_back(llvm::ConstantInt::get(typeOf(type.element()), static_cast<uint64_t>(k), type.isInt()));
  return builder_.CreateAdd(base, builder_.CreateMul(stride, llvm::ConstantVector::get(lanes)));
}

llvm::Value *FunctionLowering::visitBinary(const BinaryNode *op) {
  if ((op->op == BinaryOp::And || op->op == BinaryOp::Or) && op->type.isScalar())
    return lowerShortCircuit(op);
  if (llvm::Value *fused = lowerMulAdd(op))
    return fused;
  if (isComparison(op->op) && op->a->type.isInt() && op->a->type.bits() == 32 && op->a->type.isScalar())
    return lowerIndexCompare(op);
  llvm::Value *a = lowerExpr(op->a);
  llvm::Value *b = lowerExpr(op->b);
  if (isComparison(op->op))
    return lowerCompare(op->op, op->a->type, a, b);
  return lowerArithmetic(op->op, op->a->type, a, b);
}

// A float `c + a * b` or `a * b + c` (the right operand tried first, as TVM's LowerIntrin does)
// as `llvm.fmuladd(a, b, c)`: the code generator fuses it into one rounding where the CPU has
// an FMA instruction and the fusion is faster, and emits a multiply and an add elsewhere
// (x86-64's generic CPU). Null when the expression is not of that form or contraction is off.
llvm::Value *FunctionLowering::lowerMulAdd(const BinaryNode *op) {
  if (!options_.fpContract || op->op != BinaryOp::Add || !op->type.isFloat())
    return nullptr;
  const Expr *addend = &op->a;
  const auto *product = op->b.as<BinaryNode>();
  if (!product || product->op != BinaryOp::Mul) {
    addend = &op->b;
    product = op->a.as<BinaryNode>();
    if (!product || product->op != BinaryOp::Mul)
      return nullptr;
  }
  // The operands in the order they are written.
  llvm::Value *c = addend == &op->a ? lowerExpr(*addend) : nullptr;
  llvm::Value *a = lowerExpr(product->a);
  llvm::Value *b = lowerExpr(product->b);
  if (!c)
    c = lowerExpr(*addend);
  return builder_.CreateIntrinsic(llvm::Intrinsic::fmuladd, {a->getType()}, {a, b, c});
}

llvm::Value *FunctionLowering::lowerShortCircuit(const BinaryNode *op) {
  bool isAnd = op->op == BinaryOp::And;
  llvm::Value *a = lowerExpr(op->a);
  llvm::BasicBlock *decided = builder_.GetInsertBlock();
  llvm::BasicBlock *right = newBlock(isAnd ? "and.rhs" : "or.rhs");
  llvm::BasicBlock *join = newBlock(isAnd ? "and.end" : "or.end");
  builder_.CreateCondBr(a, isAnd ? right : join, isAnd ? join : right);
  builder_.SetInsertPoint(right);
  llvm::Value *b = lowerExpr(op->b);
  llvm::BasicBlock *rightEnd = builder_.GetInsertBlock();
  builder_.CreateBr(join);
  builder_.SetInsertPoint(join);
  llvm::PHINode *result = builder_.CreatePHI(builder_.getInt1Ty(), 2);
  result->addIncoming(builder_.getInt1(!isAnd), decided);
  result->addIncoming(b, rightEnd);
  return result;
}

llvm::Value *FunctionLowering::lowerArithmetic(BinaryOp op, DataType type, llvm::Value *a, llvm::Value *b) {
  bool isFloat = type.isFloat(), isSigned = type.isInt();
  switch (op) {
  case BinaryOp::Add: return isFloat ? builder_.CreateFAdd(a, b) : builder_.CreateAdd(a, b);
  case BinaryOp::Sub: return isFloat ? builder_.CreateFSub(a, b) : builder_.CreateSub(a, b);
  case BinaryOp::Mul: return isFloat ? builder_.CreateFMul(a, b) : builder_.CreateMul(a, b);
  case BinaryOp::Div:
    return isFloat ? builder_.CreateFDiv(a, b) : isSigned ? signedDivide(false, type, a, b) : builder_.CreateUDiv(a, b);
  case BinaryOp::Mod: // C's fmod for floats, truncating remainder for integers
    return isFloat ? builder_.CreateFRem(a, b) : isSigned ? signedDivide(true, type, a, b) : builder_.CreateURem(a, b);
  case BinaryOp::FloorDiv: return lowerFloorDivMod(false, type, a, b);
  case BinaryOp::FloorMod: return lowerFloorDivMod(true, type, a, b);
  case BinaryOp::Min:
  case BinaryOp::Max: {
    // a < b ? a : b (and a > b ? a : b), as the C emitter writes them: with a NaN operand the
    // result is b.
    bool isMax = op == BinaryOp::Max;
    llvm::Value *pick = isFloat    ? (isMax ? builder_.CreateFCmpOGT(a, b) : builder_.CreateFCmpOLT(a, b))
                        : isSigned ? (isMax ? builder_.CreateICmpSGT(a, b) : builder_.CreateICmpSLT(a, b))
                                   : (isMax ? builder_.CreateICmpUGT(a, b) : builder_.CreateICmpULT(a, b));
    return builder_.CreateSelect(pick, a, b);
  }
  case BinaryOp::And: return builder_.CreateAnd(a, b);
  case BinaryOp::Or: return builder_.CreateOr(a, b);
  default: break;
  }
  throw CompileError(SourceRange{}, std::string("LLVM emitter: unexpected operator ") + binaryOpName(op));
}

// Integers: q = a / b rounded toward zero, minus one when the remainder is non-zero and has the
// sign opposite to b's; the floor modulo is that remainder plus b. Floats: floor(a / b) and
// a - floor(a / b) * b. Unsigned operands: plain division.
llvm::Value *FunctionLowering::lowerFloorDivMod(bool isMod, DataType type, llvm::Value *a, llvm::Value *b) {
  if (type.isFloat()) {
    llvm::Value *quotient = builder_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, builder_.CreateFDiv(a, b));
    return isMod ? builder_.CreateFSub(a, builder_.CreateFMul(quotient, b)) : quotient;
  }
  if (type.isUInt())
    return isMod ? builder_.CreateURem(a, b) : builder_.CreateUDiv(a, b);
  if (llvm::Value *direct = floorDivModByPositiveConstant(isMod, a, b))
    return direct;
  llvm::Value *remainder = signedDivide(true, type, a, b);
  llvm::Value *zero = constantOf(type, 0);
  llvm::Value *signsDiffer = builder_.CreateICmpSLT(builder_.CreateXor(remainder, b), zero);
  llvm::Value *adjust = builder_.CreateAnd(builder_.CreateICmpNE(remainder, zero), signsDiffer);
  if (isMod)
    return builder_.CreateSelect(adjust, builder_.CreateAdd(remainder, b), remainder, "floormod");
  llvm::Value *quotient = signedDivide(false, type, a, b);
  return builder_.CreateSelect(adjust, builder_.CreateSub(quotient, constantOf(type, 1)), quotient, "floordiv");
}

namespace {

// The divisor's value when it is a positive integer constant (or a splat of one).
const llvm::APInt *positiveConstant(llvm::Value *divisor) {
  auto *constant = llvm::dyn_cast<llvm::Constant>(divisor);
  if (constant && constant->getType()->isVectorTy())
    constant = constant->getSplatValue();
  auto *scalar = llvm::dyn_cast_or_null<llvm::ConstantInt>(constant);
  return scalar && scalar->getValue().isStrictlyPositive() ? &scalar->getValue() : nullptr;
}

} // namespace

// Floor division by a positive constant c, the common case of index arithmetic, in fewer
// instructions (less work for the optimiser, too): by 2^k an arithmetic shift and a mask, exact
// for every sign in two's complement; otherwise sdiv/srem corrected when the remainder is
// negative (c > 0, so MIN / -1 cannot occur). Null for other divisors.
llvm::Value *FunctionLowering::floorDivModByPositiveConstant(bool isMod, llvm::Value *a, llvm::Value *b) {
  const llvm::APInt *c = positiveConstant(b);
  if (!c)
    return nullptr;
  llvm::Type *type = a->getType();
  if (c->isPowerOf2()) {
    if (isMod)
      return builder_.CreateAnd(a, llvm::ConstantInt::get(type, *c - 1), "floormod");
    return builder_.CreateAShr(a, llvm::ConstantInt::get(type, c->logBase2()), "floordiv");
  }
  llvm::Value *remainder = builder_.CreateSRem(a, b);
  llvm::Value *negative = builder_.CreateICmpSLT(remainder, llvm::Constant::getNullValue(type));
  if (isMod)
    return builder_.CreateSelect(negative, builder_.CreateAdd(remainder, b), remainder, "floormod");
  llvm::Value *quotient = builder_.CreateSDiv(a, b);
  return builder_.CreateSelect(negative, builder_.CreateSub(quotient, llvm::ConstantInt::get(type, 1)), quotient,
                               "floordiv");
}

namespace {

// Whether some lane of the divisor may be -1: anything but an integer constant (or a vector of
// them) without -1.
bool mayBeMinusOne(llvm::Value *divisor) {
  auto *constant = llvm::dyn_cast<llvm::Constant>(divisor);
  if (!constant)
    return true;
  if (auto *vector = llvm::dyn_cast<llvm::FixedVectorType>(constant->getType())) {
    for (unsigned k = 0; k < vector->getNumElements(); ++k) {
      auto *lane = llvm::dyn_cast_or_null<llvm::ConstantInt>(constant->getAggregateElement(k));
      if (!lane || lane->isMinusOne())
        return true;
    }
    return false;
  }
  auto *scalar = llvm::dyn_cast<llvm::ConstantInt>(constant);
  return !scalar || scalar->isMinusOne();
}

} // namespace

// sdiv/srem, except that MIN / -1 wraps to MIN with remainder 0 as TIR defines it (LLVM leaves
// it undefined, and x86's idiv traps): a -1 divisor is replaced by 1 and the quotient negated.
llvm::Value *FunctionLowering::signedDivide(bool isRem, DataType type, llvm::Value *a, llvm::Value *b) {
  if (!mayBeMinusOne(b))
    return isRem ? builder_.CreateSRem(a, b) : builder_.CreateSDiv(a, b);
  llvm::Value *minusOne = builder_.CreateICmpEQ(b, constantOf(type, -1));
  llvm::Value *divisor = builder_.CreateSelect(minusOne, constantOf(type, 1), b);
  if (isRem)
    return builder_.CreateSRem(a, divisor); // x % 1 == 0
  return builder_.CreateSelect(minusOne, builder_.CreateSub(constantOf(type, 0), a), builder_.CreateSDiv(a, divisor));
}

// Ordered float comparisons (false with a NaN operand) except `!=`, which is true, as in C.
llvm::Value *FunctionLowering::lowerCompare(BinaryOp op, DataType type, llvm::Value *a, llvm::Value *b) {
  using P = llvm::CmpInst::Predicate;
  bool isFloat = type.isFloat(), isSigned = type.isInt();
  P predicate;
  switch (op) {
  case BinaryOp::EQ: predicate = isFloat ? P::FCMP_OEQ : P::ICMP_EQ; break;
  case BinaryOp::NE: predicate = isFloat ? P::FCMP_UNE : P::ICMP_NE; break;
  case BinaryOp::LT: predicate = isFloat ? P::FCMP_OLT : isSigned ? P::ICMP_SLT : P::ICMP_ULT; break;
  case BinaryOp::LE: predicate = isFloat ? P::FCMP_OLE : isSigned ? P::ICMP_SLE : P::ICMP_ULE; break;
  case BinaryOp::GT: predicate = isFloat ? P::FCMP_OGT : isSigned ? P::ICMP_SGT : P::ICMP_UGT; break;
  case BinaryOp::GE: predicate = isFloat ? P::FCMP_OGE : isSigned ? P::ICMP_SGE : P::ICMP_UGE; break;
  default: throw CompileError(SourceRange{}, "LLVM emitter: not a comparison");
  }
  return isFloat ? builder_.CreateFCmp(predicate, a, b) : builder_.CreateICmp(predicate, a, b);
}

// C conversions: to bool is `!= 0`; float to integer truncates toward zero.
llvm::Value *FunctionLowering::lowerCast(DataType to, DataType from, llvm::Value *value) {
  llvm::Type *target = typeOf(to);
  if (to.element() == from.element())
    return value;
  if (to.isBool())
    return from.isFloat() ? builder_.CreateFCmpUNE(value, llvm::Constant::getNullValue(value->getType()))
                          : builder_.CreateICmpNE(value, llvm::Constant::getNullValue(value->getType()));
  if (from.isHandle() || to.isHandle()) {
    if (from.isHandle() && to.isIntOrUInt())
      return builder_.CreatePtrToInt(value, target);
    if (to.isHandle() && from.isIntOrUInt())
      return builder_.CreateIntToPtr(value, target);
    throw CompileError(SourceRange{}, "LLVM emitter: cannot cast " + from.str() + " to " + to.str());
  }
  bool fromSigned = from.isInt();
  if (to.isFloat()) {
    if (from.isFloat())
      return builder_.CreateFPCast(value, target);
    return fromSigned ? builder_.CreateSIToFP(value, target) : builder_.CreateUIToFP(value, target);
  }
  if (from.isFloat())
    return to.isInt() ? builder_.CreateFPToSI(value, target) : builder_.CreateFPToUI(value, target);
  return builder_.CreateIntCast(value, target, fromSigned);
}

} // namespace tirlower
