// Intrinsic calls of the LLVM lowering: lazy if_then_else, likely, call_extern and the math
// functions. Math maps to LLVM's overloaded intrinsics (which take vectors and lower to libm
// where the target has no instruction); tanh, which LLVM 15 has no intrinsic for, calls libm
// lane by lane.
#include "codegen/llvm/function_lowering.h"

#include <unordered_map>

namespace tirlower {

llvm::Value *FunctionLowering::lowerCall(const CallNode *op) {
  const std::string &name = op->op.str();
  if (name == "if_then_else")
    return lowerIfThenElse(op);
  if (name == "likely") {
    if (op->args.size() != 1)
      throw CompileError(op->loc, "T.likely takes one argument");
    return lowerExpr(op->args[0]);
  }
  if (name == "call_extern")
    return lowerExtern(op);
  return lowerMath(op);
}

// Only the chosen branch is evaluated (it may load out of bounds otherwise).
llvm::Value *FunctionLowering::lowerIfThenElse(const CallNode *op) {
  if (op->args.size() != 3)
    throw CompileError(op->loc, "T.if_then_else takes three arguments");
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
  const auto *callee = op->args.empty() ? nullptr : op->args[0].as<StringImmNode>();
  if (!callee)
    throw CompileError(op->loc, "call_extern needs the function name as its first argument");
  std::vector<llvm::Type *> types;
  std::vector<llvm::Value *> args;
  for (size_t k = 1; k < op->args.size(); ++k) {
    args.push_back(lowerExpr(op->args[k]));
    types.push_back(args.back()->getType());
  }
  llvm::Type *result = typeOf(op->type);
  auto *type = llvm::FunctionType::get(result, types, false);
  llvm::Function *existing = module_.getFunction(callee->value);
  if (existing && existing->getFunctionType() != type)
    throw CompileError(op->loc,
                       "LLVM emitter: extern function '" + callee->value + "' is called with two different signatures");
  llvm::FunctionCallee function = module_.getOrInsertFunction(callee->value, type);
  llvm::Value *call = builder_.CreateCall(function, args);
  return result->isVoidTy() ? constantOf(DataType::int32(), 0) : call;
}

llvm::Value *FunctionLowering::libmLanewise(const std::string &name, DataType type,
                                            const std::vector<llvm::Value *> &args) {
  DataType scalar = type.element();
  std::string symbol = scalar.bits() == 32 ? name + "f" : name;
  if (scalar.bits() != 32 && scalar.bits() != 64)
    throw CompileError(SourceRange{}, "LLVM emitter: T." + name + " is not supported on " + type.str());
  llvm::Type *scalarType = typeOf(scalar);
  std::vector<llvm::Type *> parameterTypes(args.size(), scalarType);
  llvm::FunctionCallee function =
      module_.getOrInsertFunction(symbol, llvm::FunctionType::get(scalarType, parameterTypes, false));
  if (type.isScalar())
    return builder_.CreateCall(function, args);
  llvm::Value *result = llvm::UndefValue::get(typeOf(type));
  for (int k = 0; k < type.lanes(); ++k) {
    std::vector<llvm::Value *> lane;
    for (llvm::Value *arg : args)
      lane.push_back(builder_.CreateExtractElement(arg, static_cast<uint64_t>(k)));
    result = builder_.CreateInsertElement(result, builder_.CreateCall(function, lane), static_cast<uint64_t>(k));
  }
  return result;
}

llvm::Value *FunctionLowering::lowerMath(const CallNode *op) {
  const std::string &name = op->op.str();
  DataType type = op->type;
  std::vector<llvm::Value *> args;
  for (const Expr &arg : op->args)
    args.push_back(lowerExpr(arg));
  auto arity = [&](size_t count) {
    if (args.size() != count)
      throw CompileError(op->loc, "T." + name + " takes " + std::to_string(count) + " argument(s)");
  };
  if (!type.isFloat()) {
    if (name == "abs" && type.isIntOrUInt()) {
      arity(1);
      if (type.isUInt())
        return args[0];
      llvm::Value *negative = builder_.CreateICmpSLT(args[0], constantOf(type, 0));
      return builder_.CreateSelect(negative, builder_.CreateNeg(args[0]), args[0]);
    }
    throw CompileError(op->loc, "LLVM emitter: T." + name + " is not supported on " + type.str());
  }
  static const std::unordered_map<std::string, llvm::Intrinsic::ID> unary = {
      {"exp", llvm::Intrinsic::exp},     {"exp2", llvm::Intrinsic::exp2}, {"log", llvm::Intrinsic::log},
      {"log2", llvm::Intrinsic::log2},   {"sqrt", llvm::Intrinsic::sqrt}, {"sin", llvm::Intrinsic::sin},
      {"cos", llvm::Intrinsic::cos},     {"fabs", llvm::Intrinsic::fabs}, {"abs", llvm::Intrinsic::fabs},
      {"floor", llvm::Intrinsic::floor}, {"ceil", llvm::Intrinsic::ceil}, {"round", llvm::Intrinsic::round},
      {"trunc", llvm::Intrinsic::trunc}};
  if (auto it = unary.find(name); it != unary.end()) {
    arity(1);
    return builder_.CreateUnaryIntrinsic(it->second, args[0]);
  }
  llvm::Value *one = llvm::ConstantFP::get(typeOf(type), 1.0);
  if (name == "rsqrt") {
    arity(1);
    return builder_.CreateFDiv(one, builder_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, args[0]));
  }
  if (name == "sigmoid") {
    arity(1);
    llvm::Value *e = builder_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, builder_.CreateFNeg(args[0]));
    return builder_.CreateFDiv(one, builder_.CreateFAdd(one, e));
  }
  if (name == "pow") {
    arity(2);
    return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, args[0], args[1]);
  }
  if (name == "fmod") {
    arity(2);
    return builder_.CreateFRem(args[0], args[1]);
  }
  if (name == "tanh") {
    arity(1);
    return libmLanewise("tanh", type, args);
  }
  throw CompileError(op->loc, "LLVM emitter: unknown intrinsic T." + name);
}

} // namespace tirlower
