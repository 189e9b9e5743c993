// Intrinsic calls of the LLVM lowering, spelled as the intrinsic table says: an LLVM intrinsic
// by name ("llvm.exp", overloaded on the argument type: vectors as they are, libm where the
// target has no instruction), a libm call lane by lane, the table's expansion for composite
// intrinsics, or code of its own here (lazy if_then_else, shifts and bitwise operations,
// predicates, reinterpret, extern calls).
#include "codegen/llvm/function_lowering.h"

#include <llvm/IR/Intrinsics.h>

#include "ir/intrinsics.h"

namespace tirlower {

llvm::Value *FunctionLowering::visitCall(const CallNode *op) {
  const IntrinsicInfo *info = op->intrinsic;
  if (!info)
    throw CompileError(op->loc, "LLVM emitter: unknown intrinsic T." + op->op.str());
  if (isGpuBuiltin(*info))
    throw CompileError(op->loc, "LLVM emitter: T." + op->op.str() +
                                    " runs on the threads of a GPU kernel, which CPU code has none of (use "
                                    "--target=opencl)");
  if (Expr expanded = expandIntrinsic(*op))
    return lowerExpr(expanded);
  switch (info->id) {
  case IntrinsicId::IfThenElse: return lowerIfThenElse(op);
  case IntrinsicId::Likely: return lowerExpr(op->args[0]);
  case IntrinsicId::Assume: return constantOf(op->type, 1); // a hint: nothing to compute
  case IntrinsicId::CallExtern:
  case IntrinsicId::CallPureExtern: return lowerExtern(op);
  case IntrinsicId::Reinterpret: return builder_.CreateBitCast(lowerExpr(op->args[0]), typeOf(op->type));
  case IntrinsicId::VScale:
    throw CompileError(op->loc, "LLVM emitter: scalable vectors (T.vscale()) are not supported for this target");
  default: break;
  }
  std::vector<llvm::Value *> args;
  for (const Expr &arg : op->args)
    args.push_back(lowerExpr(arg));
  DataType type = op->type, argType = op->args[0]->type;
  switch (info->id) {
  case IntrinsicId::ShiftLeft: return builder_.CreateShl(args[0], args[1]);
  case IntrinsicId::ShiftRight:
    return type.isInt() ? builder_.CreateAShr(args[0], args[1]) : builder_.CreateLShr(args[0], args[1]);
  case IntrinsicId::BitwiseAnd: return builder_.CreateAnd(args[0], args[1]);
  case IntrinsicId::BitwiseOr: return builder_.CreateOr(args[0], args[1]);
  case IntrinsicId::BitwiseXor: return builder_.CreateXor(args[0], args[1]);
  case IntrinsicId::BitwiseNot: return builder_.CreateNot(args[0]);
  case IntrinsicId::Abs:
    if (type.isUInt())
      return args[0];
    if (type.isInt()) {
      llvm::Value *negative = builder_.CreateICmpSLT(args[0], constantOf(type, 0));
      return builder_.CreateSelect(negative, builder_.CreateNeg(args[0]), args[0]);
    }
    break;
  case IntrinsicId::IsNan: return builder_.CreateFCmpUNO(args[0], args[0]);
  case IntrinsicId::IsInf:
  case IntrinsicId::IsFinite: {
    llvm::Value *magnitude = builder_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, args[0]);
    llvm::Value *infinity = llvm::ConstantFP::getInfinity(typeOf(argType));
    return info->id == IntrinsicId::IsInf ? builder_.CreateFCmpOEQ(magnitude, infinity)
                                          : builder_.CreateFCmpONE(magnitude, infinity);
  }
  case IntrinsicId::Fmod: return builder_.CreateFRem(args[0], args[1]); // C's fmod
  default: break;
  }
  if (!argType.isFloat() || info->llvm.empty())
    throw CompileError(op->loc, "LLVM emitter: T." + op->op.str() + " is not supported on " + argType.str());
  if (info->llvm == "libm")
    return libmLanewise(op, std::string(info->c), args);
  llvm::Intrinsic::ID id = llvm::Function::lookupIntrinsicID(info->llvm);
  if (id == llvm::Intrinsic::not_intrinsic)
    throw CompileError(op->loc, "LLVM emitter: LLVM has no intrinsic " + std::string(info->llvm));
  llvm::Function *function = llvm::Intrinsic::getDeclaration(&module_, id, {args[0]->getType()});
  return builder_.CreateCall(function, args);
}

// Only the chosen branch is evaluated (it may load out of bounds otherwise).
llvm::Value *FunctionLowering::lowerIfThenElse(const CallNode *op) {
  llvm::Value *condition = lowerExpr(op->args[0]);
  if (op->args[0]->type.isVector()) // lane-wise: both sides are evaluated, as TVM does
    return builder_.CreateSelect(condition, lowerExpr(op->args[1]), lowerExpr(op->args[2]));
  llvm::BasicBlock *thenBlock = newBlock("ite.then");
  llvm::BasicBlock *elseBlock = newBlock("ite.else");
  llvm::BasicBlock *join = newBlock("ite.end");
  builder_.CreateCondBr(condition, thenBlock, elseBlock);
  builder_.SetInsertPoint(thenBlock);
  llvm::Value *thenValue = lowerExpr(op->args[1]);
  llvm::BasicBlock *thenEnd = builder_.GetInsertBlock();
  builder_.CreateBr(join);
  builder_.SetInsertPoint(elseBlock);
  llvm::Value *elseValue = lowerExpr(op->args[2]);
  llvm::BasicBlock *elseEnd = builder_.GetInsertBlock();
  builder_.CreateBr(join);
  builder_.SetInsertPoint(join);
  llvm::PHINode *result = builder_.CreatePHI(typeOf(op->type), 2);
  result->addIncoming(thenValue, thenEnd);
  result->addIncoming(elseValue, elseEnd);
  return result;
}

// `T.call_extern("f", args...)` declares `f` with the argument and result types of the call.
llvm::Value *FunctionLowering::lowerExtern(const CallNode *op) {
  const std::string &callee = op->args[0].as<StringImmNode>()->value;
  std::vector<llvm::Type *> types;
  std::vector<llvm::Value *> args;
  for (size_t k = 1; k < op->args.size(); ++k) {
    args.push_back(lowerExpr(op->args[k]));
    types.push_back(args.back()->getType());
  }
  llvm::Type *result = typeOf(op->type);
  auto *type = llvm::FunctionType::get(result, types, false);
  llvm::Function *existing = module_.getFunction(callee);
  if (existing && existing->getFunctionType() != type)
    throw CompileError(op->loc, "LLVM emitter: extern function '" + callee + "' is called with two different signatures");
  llvm::FunctionCallee function = module_.getOrInsertFunction(callee, type);
  llvm::Value *call = builder_.CreateCall(function, args);
  return result->isVoidTy() ? constantOf(DataType::int32(), 0) : call;
}

// The libm function `name` (its float version for float32 and float16, which is extended to
// float and the result rounded back, as TVM's LLVM build computes it), lane by lane.
llvm::Value *FunctionLowering::libmLanewise(const CallNode *op, const std::string &name,
                                            const std::vector<llvm::Value *> &args) {
  DataType type = op->type, scalar = type.element();
  if (scalar.code() != DataType::Code::Float)
    throw CompileError(op->loc, "LLVM emitter: T." + op->op.str() + " is not supported on " + type.str());
  const bool isDouble = scalar.bits() == 64;
  llvm::Type *computeType = isDouble ? builder_.getDoubleTy() : builder_.getFloatTy();
  llvm::Type *scalarType = typeOf(scalar);
  std::vector<llvm::Type *> parameterTypes(args.size(), computeType);
  llvm::FunctionCallee function = module_.getOrInsertFunction(
      isDouble ? name : name + "f", llvm::FunctionType::get(computeType, parameterTypes, false));
  auto one = [&](std::vector<llvm::Value *> lane) {
    for (llvm::Value *&v : lane)
      v = builder_.CreateFPCast(v, computeType);
    return builder_.CreateFPCast(builder_.CreateCall(function, lane), scalarType);
  };
  if (type.isScalar())
    return one(args);
  llvm::Value *result = llvm::UndefValue::get(typeOf(type));
  for (int k = 0; k < type.lanes(); ++k) {
    std::vector<llvm::Value *> lane;
    for (llvm::Value *arg : args)
      lane.push_back(builder_.CreateExtractElement(arg, static_cast<uint64_t>(k)));
    result = builder_.CreateInsertElement(result, one(lane), static_cast<uint64_t>(k));
  }
  return result;
}

} // namespace tirlower
