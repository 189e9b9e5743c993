// Signature and statements of the LLVM lowering. Control flow is explicit blocks: loops are
// rotated (the variable's phi at the top of the body, the exit test at its end), asserts branch
// to a block that frees the live heap storage and returns 1. `T.parallel` (and every other loop
// kind) runs serially.
#include "codegen/llvm/function_lowering.h"

#include <algorithm>

#include <llvm/IR/Attributes.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

#include "codegen/launch_geometry.h"
#include "codegen/llvm/ffi_entry_lowering.h"
#include "ir/access_census.h"
#include "ir/attrs.h"
#include "ir/storage_scope.h"
#include "ir/vscale.h"

namespace tirlower {

FunctionLowering::FunctionLowering(const PrimFuncNode &func, llvm::Module &module, const LLVMEmitOptions &options)
    : func_(func), module_(module), context_(module.getContext()), options_(options), builder_(module.getContext()) {}

void FunctionLowering::lower(const std::string &symbol) {
  rejectScalableVectors(func_.body, "LLVM");
  declareSignature(symbol);
  lowerStmt(func_.body);
  returnWith(0);
  if (options_.tvmFfi)
    lowerFfiEntry(describeFfiEntry(func_, symbol), function_, module_);
}

void FunctionLowering::raise(const char *kind, const std::string &message) {
  if (options_.tvmFfi)
    builder_.CreateCall(raiseFunction(module_), {builder_.CreateGlobalStringPtr(kind, "", 0, &module_),
                                                 builder_.CreateGlobalStringPtr(message, "", 0, &module_)});
}

void FunctionLowering::declareSignature(const std::string &symbol) {
  std::vector<llvm::Type *> parameterTypes;
  for (const Var &param : func_.params) {
    if (param->type.isVector())
      throw CompileError(param->loc, "LLVM emitter: parameter '" + param->name.str() + "' has vector type " +
                                         param->type.str() + ", which the C ABI does not pass");
    parameterTypes.push_back(typeOf(param->type));
  }
  auto *type = llvm::FunctionType::get(builder_.getInt32Ty(), parameterTypes, false);
  if (module_.getFunction(symbol))
    throw CompileError(func_.loc, "two functions have the C symbol '" + symbol + "'");
  function_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage, symbol, module_);

  // Every parameter's attributes are collected first and set as one list: adding them one at a
  // time would build (and keep, uniqued in the context) a new list per parameter, which is
  // quadratic in time and memory for a signature of many thousand parameters.
  AccessCensus census = AccessCensus::of(func_.body);
  bool restrictParams = noalias(func_);
  std::vector<llvm::AttributeSet> parameterAttributes;
  parameterAttributes.reserve(func_.params.size());
  for (size_t k = 0; k < func_.params.size(); ++k) {
    const VarNode *param = func_.params[k].get();
    llvm::Argument *argument = function_->getArg(static_cast<unsigned>(k));
    argument->setName(param->name.str());
    bind(param, argument);
    llvm::AttrBuilder attributes(context_);
    if (param->type.isHandle()) {
      if (restrictParams)
        attributes.addAttribute(llvm::Attribute::NoAlias);
      if (!census.written.count(param) && !census.escaped.count(param))
        attributes.addAttribute(llvm::Attribute::ReadOnly);
      if (options_.paramAlignment > 0) {
        dataAlignment_[param] = static_cast<uint64_t>(options_.paramAlignment);
        attributes.addAlignmentAttr(llvm::Align(options_.paramAlignment));
      }
    } else if (param->type.isIntOrUInt() && param->type.bits() < 32) {
      // The C ABI widens small integers at the call; say which way, as clang does.
      attributes.addAttribute(param->type.isInt() ? llvm::Attribute::SExt : llvm::Attribute::ZExt);
    } else if (param->type.isBool()) {
      attributes.addAttribute(llvm::Attribute::ZExt);
    }
    parameterAttributes.push_back(llvm::AttributeSet::get(context_, attributes));
  }
  llvm::AttrBuilder functionAttributes(context_);
  functionAttributes.addAttribute(llvm::Attribute::NoUnwind);
  function_->setAttributes(llvm::AttributeList::get(context_, llvm::AttributeSet::get(context_, functionAttributes),
                                                    llvm::AttributeSet(), parameterAttributes));
  entry_ = llvm::BasicBlock::Create(context_, "entry", function_);
  builder_.SetInsertPoint(entry_);
}

llvm::BasicBlock *FunctionLowering::newBlock(const char *name) {
  return llvm::BasicBlock::Create(context_, name, function_);
}

void FunctionLowering::returnWith(int32_t code) {
  builder_.CreateRet(builder_.getInt32(code));
}

void FunctionLowering::lowerStmt(const Stmt &stmt) {
  visitStmt(stmt);
}

void FunctionLowering::visitBlock(const BlockNode *op) {
  throw CompileError(op->loc, "LLVM emitter: " + blockMessage(*op));
}

void FunctionLowering::visitSeqStmt(const SeqStmtNode *op) {
  for (const Stmt &child : op->stmts)
    lowerStmt(child);
}

void FunctionLowering::visitLetStmt(const LetStmtNode *op) {
  if (op->value->type.isIndex())
    letSets_[op->var.get()] = modularSet(op->value);
  definedAt_[op->var.get()] = loopDepth_;
  if (op->var->type.isInt() && op->var->type.bits() == 32 && op->var->type.isScalar()) {
    IndexValue value = lowerIndex(op->value);
    value.value->setName(op->var->name.str());
    bindIndex(op->var.get(), value);
  } else {
    llvm::Value *value = lowerExpr(op->value);
    value->setName(op->var->name.str());
    bind(op->var.get(), value);
  }
  lowerStmt(op->body);
  unbind(op->var.get());
}

void FunctionLowering::visitAllocate(const AllocateNode *op) {
  allocate(op->bufferVar.get(), op->dtype, op->extents, op->loc);
  lowerStmt(op->body);
}

void FunctionLowering::visitAllocBuffer(const AllocBufferNode *op) {
  checkRank(*op->buffer, op->loc);
  allocate(op->buffer->data.get(), op->buffer->dtype, op->buffer->shape, op->loc);
  lowerStmt(op->body);
}

void FunctionLowering::visitDeclBuffer(const DeclBufferNode *op) {
  checkRank(*op->buffer, op->loc);
  if (!op->allocates)
    return lowerStmt(op->body);
  allocate(op->buffer->data.get(), op->buffer->dtype, op->buffer->shape, op->loc);
  lowerStmt(op->body);
}

void FunctionLowering::visitAttrStmt(const AttrStmtNode *op) {
  if (op->isThreadLaunch())
    throw CompileError(op->loc, "LLVM emitter: " + cpuThreadLaunchMessage(*op, func_));
  const auto *data = op->node.as<VarNode>();
  bool streams = data && op->key.view() == "nontemporal_store";
  if (streams)
    streaming_.push_back(data);
  lowerStmt(op->body);
  if (streams)
    streaming_.pop_back();
}

void FunctionLowering::visitEvaluate(const EvaluateNode *op) {
  if (op->value->kind() != ExprKind::IntImm && op->value->kind() != ExprKind::FloatImm)
    lowerExpr(op->value);
}

void FunctionLowering::visitFor(const ForNode *op) {
  DataType type = op->loopVar->type;
  const int64_t *constantMin = asConstInt(op->min);
  llvm::Value *begin = nullptr, *end = nullptr;
  // An int32 loop whose end provably fits in int32 runs an i64 variable (lower_index.cpp).
  IndexRange range;
  bool wide = false;
  if (type.isInt() && type.bits() == 32) {
    IndexValue first = lowerIndex(op->min), extent = lowerIndex(op->extent);
    int64_t lastHi = first.range.hi + extent.range.hi - 1;
    wide = (first.wide || extent.wide) && first.range.lo + extent.range.lo >= INT32_MIN && lastHi < INT32_MAX;
    // The loop variable lies in [min, min + extent - 1] whenever the body runs.
    range = {first.range.lo, std::max(first.range.lo, lastHi)};
    begin = wide ? wideOf(first) : narrowOf(first);
    llvm::Value *count = wide ? wideOf(extent) : narrowOf(extent);
    end = constantMin && *constantMin == 0
              ? count
              : builder_.CreateAdd(begin, count, op->loopVar->name.str() + ".end",
                                   /*HasNUW=*/wide && first.range.lo >= 0 && extent.range.lo >= 0, wide);
    if (!wide)
      range = {};
  } else {
    begin = lowerExpr(op->min);
    llvm::Value *extent = lowerExpr(op->extent);
    end =
        constantMin && *constantMin == 0 ? extent : builder_.CreateAdd(begin, extent, op->loopVar->name.str() + ".end");
  }
  // The loop is emitted rotated, as LLVM's loop passes want it: a guard in the preheader (left
  // out when the loop provably runs at least once), the variable's phi at the top of the body,
  // and the exit test on the incremented value at the bottom. Once begin < end holds, stepping
  // by one reaches end exactly, so the exit test is `next != end`: the form IndVarSimplify's
  // linear function test replacement would otherwise produce, whose trip count SCEV reads off.
  const int64_t *constantExtent = asConstInt(op->extent);
  // (A wide loop's end is exact; a 64-bit loop from a constant is exact when its end fits.)
  const bool runsOnce = constantExtent && *constantExtent > 0 &&
                        (wide || (constantMin && type.isInt() && type.bits() == 64 && type.isScalar() &&
                                  *constantMin <= INT64_MAX - *constantExtent));
  llvm::BasicBlock *preheader = builder_.GetInsertBlock();
  llvm::BasicBlock *body = newBlock("for.body");
  llvm::BasicBlock *exit = newBlock("for.exit");
  if (runsOnce)
    builder_.CreateBr(body);
  else
    builder_.CreateCondBr(type.isUInt() ? builder_.CreateICmpULT(begin, end) : builder_.CreateICmpSLT(begin, end), body,
                          exit);

  builder_.SetInsertPoint(body);
  ++loopDepth_;
  definedAt_[op->loopVar.get()] = loopDepth_;
  llvm::PHINode *index = builder_.CreatePHI(wide ? builder_.getInt64Ty() : typeOf(type), 2, op->loopVar->name.str());
  index->addIncoming(begin, preheader);
  if (wide)
    bindIndex(op->loopVar.get(), {index, range, true});
  else
    bind(op->loopVar.get(), index);
  lowerStmt(op->body);
  unbind(op->loopVar.get());
  --loopDepth_;
  // index < end, so the increment cannot overflow; from a non-negative start it cannot wrap
  // as an unsigned value either.
  llvm::Value *one = wide ? builder_.getInt64(1) : constantOf(type, 1);
  llvm::Value *next = builder_.CreateAdd(index, one, op->loopVar->name.str() + ".next",
                                         /*HasNUW=*/type.isUInt() || (wide && range.lo >= 0), /*HasNSW=*/type.isInt());
  index->addIncoming(next, builder_.GetInsertBlock());
  builder_.CreateCondBr(builder_.CreateICmpNE(next, end), body, exit);
  builder_.SetInsertPoint(exit);
}

void FunctionLowering::visitWhile(const WhileNode *op) {
  llvm::BasicBlock *header = newBlock("while.header");
  llvm::BasicBlock *body = newBlock("while.body");
  llvm::BasicBlock *exit = newBlock("while.exit");
  builder_.CreateBr(header);
  builder_.SetInsertPoint(header);
  builder_.CreateCondBr(lowerExpr(op->condition), body, exit);
  builder_.SetInsertPoint(body);
  ++loopDepth_;
  lowerStmt(op->body);
  --loopDepth_;
  builder_.CreateBr(header);
  builder_.SetInsertPoint(exit);
}

void FunctionLowering::visitIfThenElse(const IfThenElseNode *op) {
  llvm::Value *condition = lowerExpr(op->condition);
  llvm::BasicBlock *thenBlock = newBlock("if.then");
  llvm::BasicBlock *elseBlock = op->elseCase ? newBlock("if.else") : nullptr;
  llvm::BasicBlock *join = newBlock("if.end");
  builder_.CreateCondBr(condition, thenBlock, elseBlock ? elseBlock : join);
  builder_.SetInsertPoint(thenBlock);
  lowerStmt(op->thenCase);
  builder_.CreateBr(join);
  if (elseBlock) {
    builder_.SetInsertPoint(elseBlock);
    lowerStmt(op->elseCase);
    builder_.CreateBr(join);
  }
  builder_.SetInsertPoint(join);
}

void FunctionLowering::visitAssertStmt(const AssertStmtNode *op) {
  llvm::Value *condition = lowerExpr(op->condition);
  if (op->condition->type.isVector())
    condition = builder_.CreateAndReduce(condition);
  llvm::BasicBlock *fail = newBlock("assert.fail");
  llvm::BasicBlock *pass = newBlock("assert.ok");
  builder_.CreateCondBr(condition, pass, fail);
  builder_.SetInsertPoint(fail);
  raise("RuntimeError", op->message);
  returnWith(1);
  builder_.SetInsertPoint(pass);
}

// Constant allocations of at most 256 KiB (the C emitter's rule) live on the stack, in the
// entry block so that they are allocated once per call. Larger or variable-size storage is the
// calling thread's, kept for its next call (docs/abi.md, "Memory"): a block malloc'ed and freed
// on every call faulted its pages in again each time. Nothing is freed when a scope ends.
void FunctionLowering::allocate(const VarNode *data, DataType dtype, const std::vector<Expr> &extents,
                                SourceRange where) {
  DataType element = dtype.element();
  if (element.isHandle() || element.isVoid())
    throw CompileError(where, "LLVM emitter: cannot allocate elements of type " + element.str());
  int64_t count = dtype.lanes();
  bool constant = true;
  for (const Expr &extent : extents) {
    const int64_t *value = asConstInt(extent);
    if (value && *value >= 0 && count <= (int64_t(1) << 40) / std::max<int64_t>(*value, 1))
      count *= *value;
    else
      constant = false;
  }
  llvm::Type *memoryType = memoryTypeOf(element);
  if (constant && count * element.laneBytes() <= kMaxStackAllocationBytes) {
    llvm::IRBuilder<> entryBuilder(entry_, entry_->begin());
    llvm::AllocaInst *storage =
        entryBuilder.CreateAlloca(memoryType, entryBuilder.getInt64(std::max<int64_t>(count, 1)), data->name.str());
    storage->setAlignment(llvm::Align(64));
    bind(data, storage);
    dataAlignment_[data] = 64;
    return;
  }
  llvm::Value *bytes = builder_.getInt64(static_cast<uint64_t>(dtype.lanes() * element.laneBytes()));
  for (const Expr &extent : extents) {
    bytes = builder_.CreateMul(bytes, lowerOffset(extent));
  }
  // The thread's block for this allocation: {data, bytes}, zero until the first call.
  auto *slotType = llvm::StructType::get(context_, {builder_.getPtrTy(), builder_.getInt64Ty()});
  auto *slot = new llvm::GlobalVariable(module_, slotType, false, llvm::GlobalValue::InternalLinkage,
                                        llvm::Constant::getNullValue(slotType), function_->getName() + ".workspace",
                                        nullptr, llvm::GlobalValue::GeneralDynamicTLSModel);
  slot->setAlignment(llvm::Align(8));
  releaseAtUnload(slot);
  llvm::Value *storage = builder_.CreateCall(workspaceFunction(), {slot, bytes}, data->name.str());
  llvm::BasicBlock *fail = newBlock("alloc.fail");
  llvm::BasicBlock *ok = newBlock("alloc.ok");
  builder_.CreateCondBr(builder_.CreateIsNull(storage), fail, ok);
  builder_.SetInsertPoint(fail);
  raise("MemoryError", ffiHeapMessage(func_.globalSymbol(), data->name.str()));
  returnWith(2);
  builder_.SetInsertPoint(ok);
  bind(data, storage);
  dataAlignment_[data] = 16; // malloc's guarantee (alignof(max_align_t)) on the 64-bit targets we serve
}

// Frees the block `slot` holds in `tirlower.release_workspaces`, the module's destructor
// (llvm.global_dtors: run when the code is unloaded or the process exits), on the thread that
// runs it: that thread gets its storage back.
void FunctionLowering::releaseAtUnload(llvm::GlobalVariable *slot) {
  llvm::Function *release = module_.getFunction("tirlower.release_workspaces");
  if (!release) {
    release = llvm::Function::Create(llvm::FunctionType::get(builder_.getVoidTy(), false),
                                     llvm::GlobalValue::InternalLinkage, "tirlower.release_workspaces", module_);
    release->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::IRBuilder<> entry(llvm::BasicBlock::Create(context_, "entry", release));
    entry.CreateRetVoid();
    llvm::appendToGlobalDtors(module_, release, 65535);
  }
  llvm::IRBuilder<> b(release->getEntryBlock().getTerminator());
  llvm::Type *ptr = b.getPtrTy();
  b.CreateCall(module_.getOrInsertFunction("free", b.getVoidTy(), ptr), {b.CreateLoad(ptr, slot)});
  b.CreateStore(llvm::Constant::getNullValue(slot->getValueType()), slot);
}

// `noalias ptr tirlower.workspace(ptr slot, i64 bytes)`, defined once per module (internal; the name
// cannot be a C identifier, so no emitted function takes it): the slot's block when it holds
// `bytes` (at least 1), else a new one of that size, the old one freed; null when malloc fails
// (the slot is then empty).
llvm::Function *FunctionLowering::workspaceFunction() {
  if (llvm::Function *existing = module_.getFunction("tirlower.workspace"))
    return existing;
  llvm::Type *ptr = builder_.getPtrTy(), *i64 = builder_.getInt64Ty();
  auto *slotType = llvm::StructType::get(context_, {ptr, i64});
  auto *fn = llvm::Function::Create(llvm::FunctionType::get(ptr, {ptr, i64}, false),
                                    llvm::GlobalValue::InternalLinkage, "tirlower.workspace", module_);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  // Like malloc's, the block aliases nothing the caller can reach otherwise (only the slot,
  // which nothing but this function reads, holds it): without this LLVM kept a reduction's
  // accumulators in one workspace in memory, for fear of stores through another (rms_norm's row
  // sums over a workspace of squares: a load and a store per term).
  fn->addRetAttr(llvm::Attribute::NoAlias);
  llvm::Argument *slot = fn->getArg(0), *bytes = fn->getArg(1);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context_, "entry", fn));
  llvm::BasicBlock *have = llvm::BasicBlock::Create(context_, "have", fn);
  llvm::BasicBlock *grow = llvm::BasicBlock::Create(context_, "grow", fn);
  llvm::Value *want = b.CreateBinaryIntrinsic(llvm::Intrinsic::umax, bytes, b.getInt64(1));
  llvm::Value *sizeField = b.CreateStructGEP(slotType, slot, 1);
  llvm::Value *held = b.CreateLoad(i64, sizeField);
  b.CreateCondBr(b.CreateICmpUGE(held, want), have, grow);
  b.SetInsertPoint(have);
  b.CreateRet(b.CreateLoad(ptr, slot));
  b.SetInsertPoint(grow);
  b.CreateCall(module_.getOrInsertFunction("free", b.getVoidTy(), ptr), {b.CreateLoad(ptr, slot)});
  llvm::Value *block = b.CreateCall(module_.getOrInsertFunction("malloc", ptr, i64), {want});
  b.CreateStore(block, slot);
  b.CreateStore(b.CreateSelect(b.CreateIsNull(block), b.getInt64(0), want), sizeField);
  b.CreateRet(block);
  return fn;
}

} // namespace tirlower
