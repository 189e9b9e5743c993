// The TVM FFI entry in LLVM IR (--abi=tvm-ffi): the description of codegen/ffi_entry.h built as
// a function beside the one it calls, step for step as the C emitter writes it
// (codegen/c_ffi_entry.cpp), with the same messages. The ABI structs are read at their byte
// offsets (tvm/ffi/c_api.h's TVMFFIAny, dlpack.h's DLTensor); a failure formats its message with
// snprintf into a buffer on the stack and raises it with tvm-ffi's TVMFFIErrorSetRaisedFromCStr.
#include "codegen/llvm/ffi_entry_lowering.h"

#include <functional>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>

namespace tirlower {

namespace {

// Byte offsets in TVMFFIAny (16 bytes) and DLTensor (48 bytes).
constexpr uint64_t kAnyValue = 8;
constexpr uint64_t kData = 0, kDeviceType = 8, kDeviceId = 12, kNdim = 16, kCode = 20, kBits = 21, kLanes = 22,
                   kShape = 24, kStrides = 32, kByteOffset = 40;

class EntryLowering : FfiStepRenderer {
public:
  EntryLowering(const FfiEntry &entry, llvm::Function *callee, llvm::Module &module)
      : e_(entry), callee_(callee), m_(module), ctx_(module.getContext()), b_(ctx_) {}

  void lower() {
    llvm::Type *ptr = b_.getPtrTy();
    auto *type = llvm::FunctionType::get(b_.getInt32Ty(), {ptr, ptr, b_.getInt32Ty(), ptr}, false);
    fn_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage, e_.entrySymbol, m_);
    fn_->addFnAttr(llvm::Attribute::NoUnwind);
    const char *names[] = {"self", "args", "num_args", "result"};
    for (unsigned k = 0; k < 4; ++k)
      fn_->getArg(k)->setName(names[k]);
    args_ = fn_->getArg(1);
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn_));
    message_ = b_.CreateAlloca(llvm::ArrayType::get(b_.getInt8Ty(), kMessageBytes), nullptr, "message");
    tensors_.assign(e_.params.size(), nullptr);
    scalars_.assign(e_.params.size(), nullptr);
    vars_.assign(e_.vars.size(), nullptr);

    llvm::Value *count = fn_->getArg(2);
    fail(b_.CreateICmpNE(count, b_.getInt32(e_.arguments)), "TypeError", e_.countMessage,
         [&] { return std::vector<llvm::Value *>{b_.getInt32(e_.arguments), count}; });
    renderFfiSteps(e_, *this);
    call();
  }

private:
  static constexpr uint64_t kMessageBytes = 1024;

  llvm::Value *at(llvm::Value *base, uint64_t offset) {
    return offset ? b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), base, offset) : base;
  }
  llvm::Value *load(llvm::Type *type, llvm::Value *base, uint64_t offset) {
    return b_.CreateLoad(type, at(base, offset));
  }
  llvm::Value *text(const std::string &s) { return b_.CreateGlobalStringPtr(s, "", 0, &m_); }

  // Branches to a block that raises `kind` with `format` filled with `values` and returns -1
  // when `failed` holds; goes on after it otherwise.
  // The values are computed in that block.
  void fail(llvm::Value *failed, const char *kind, const std::string &format,
            const std::function<std::vector<llvm::Value *>()> &makeValues) {
    llvm::BasicBlock *raise = llvm::BasicBlock::Create(ctx_, "raise", fn_);
    llvm::BasicBlock *ok = llvm::BasicBlock::Create(ctx_, "ok", fn_);
    b_.CreateCondBr(failed, raise, ok);
    b_.SetInsertPoint(raise);
    std::vector<llvm::Value *> values = makeValues();
    auto snprintf = m_.getOrInsertFunction(
        "snprintf",
        llvm::FunctionType::get(b_.getInt32Ty(), {b_.getPtrTy(), b_.getInt64Ty(), b_.getPtrTy()}, true));
    std::vector<llvm::Value *> callArgs = {message_, b_.getInt64(kMessageBytes), text(format)};
    callArgs.insert(callArgs.end(), values.begin(), values.end());
    b_.CreateCall(snprintf, callArgs);
    b_.CreateCall(raiseFunction(m_), {text(kind), message_});
    b_.CreateRet(b_.getInt32(-1));
    b_.SetInsertPoint(ok);
  }

  llvm::Value *typeIndex(const FfiParam &p) {
    return load(b_.getInt32Ty(), argPointer(p), 0);
  }
  llvm::Value *argPointer(const FfiParam &p) {
    return b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), args_, 16 * static_cast<uint64_t>(p.argument));
  }
  llvm::Value *is(llvm::Value *index, int32_t value) { return b_.CreateICmpEQ(index, b_.getInt32(value)); }

  // The DLTensor of an argument, or null: a DLTensor* as it is, an ffi.Tensor after its header;
  // null for a null object too.
  llvm::Value *tensorOf(const FfiParam &p, llvm::Value *index) {
    llvm::Value *pointer = load(b_.getPtrTy(), argPointer(p), kAnyValue);
    llvm::Value *object = at(pointer, kFfiObjectHeaderBytes);
    llvm::Value *null = llvm::ConstantPointerNull::get(b_.getPtrTy());
    llvm::Value *tensor = b_.CreateSelect(is(index, kFfiDLTensorPtr), pointer,
                                          b_.CreateSelect(is(index, kFfiTensor), object, null));
    return b_.CreateSelect(b_.CreateIsNull(pointer), null, tensor);
  }

  // A tensor argument: its kind, ndim, dtype, device and alignment.
  void tensorArgument(size_t k, llvm::Value *index, const std::function<std::vector<llvm::Value *>()> &name) {
    const FfiParam &p = e_.params[k];
    llvm::Value *t = tensorOf(p, index);
    llvm::Value *tensorKind = b_.CreateOr(is(index, kFfiDLTensorPtr), is(index, kFfiTensor));
    fail(b_.CreateAnd(b_.CreateIsNull(t), tensorKind), "ValueError", p.nullMessage, name);
    fail(b_.CreateIsNull(t), "TypeError", p.kindMessage, name);
    tensors_[k] = t;
    llvm::Value *ndim = load(b_.getInt32Ty(), t, kNdim);
    fail(b_.CreateICmpNE(ndim, b_.getInt32(p.ndim)), "ValueError", p.ndimMessage,
         [&] { return std::vector<llvm::Value *>{ndim}; });
    if (p.ndim > 0)
      fail(b_.CreateIsNull(load(b_.getPtrTy(), t, kShape)), "ValueError", p.shapeMessage,
           [] { return std::vector<llvm::Value *>{}; });
    llvm::Value *code = load(b_.getInt8Ty(), t, kCode);
    llvm::Value *bits = load(b_.getInt8Ty(), t, kBits);
    llvm::Value *lanes = load(b_.getInt16Ty(), t, kLanes);
    llvm::Value *wrong = b_.CreateOr(b_.CreateOr(b_.CreateICmpNE(code, b_.getInt8(p.dlCode)),
                                                 b_.CreateICmpNE(bits, b_.getInt8(p.dlBits))),
                                     b_.CreateICmpNE(lanes, b_.getInt16(p.dlLanes)));
    fail(wrong, "TypeError", p.dtypeMessage, [&] {
      llvm::Value *vector = b_.CreateICmpNE(lanes, b_.getInt16(1));
      return std::vector<llvm::Value *>{b_.CreateCall(codeNameFunction(), {code}),
                                        b_.CreateZExt(bits, b_.getInt32Ty()),
                                        b_.CreateSelect(vector, text("x"), text("")),
                                        b_.CreateSelect(vector, b_.CreateZExt(lanes, b_.getInt32Ty()), b_.getInt32(0))};
    });
    llvm::Value *device = load(b_.getInt32Ty(), t, kDeviceType);
    fail(b_.CreateICmpNE(device, b_.getInt32(1)), "ValueError", p.deviceMessage,
         [&] { return std::vector<llvm::Value *>{device, load(b_.getInt32Ty(), t, kDeviceId)}; });
    if (p.alignment > 1) {
      llvm::Value *address = b_.CreatePtrToInt(load(b_.getPtrTy(), t, kData), b_.getInt64Ty());
      fail(b_.CreateICmpNE(b_.CreateURem(address, b_.getInt64(p.alignment)), b_.getInt64(0)), "ValueError",
           p.alignmentMessage, [&] { return std::vector<llvm::Value *>{address}; });
    }
  }

  void argument(size_t k) override {
    const FfiParam &p = e_.params[k];
    llvm::Value *index = typeIndex(p);
    auto name = [&] { return std::vector<llvm::Value *>{b_.CreateCall(typeNameFunction(), {index})}; };
    llvm::Value *value = argPointer(p);
    switch (p.kind) {
    case FfiParam::Kind::Tensor:
      tensorArgument(k, index, name);
      return;
    case FfiParam::Kind::Int:
    case FfiParam::Kind::Bool: {
      fail(b_.CreateNot(b_.CreateOr(is(index, kFfiInt), is(index, kFfiBool))), "TypeError", p.kindMessage, name);
      llvm::Value *v = load(b_.getInt64Ty(), value, kAnyValue);
      if (p.kind == FfiParam::Kind::Int && !p.rangeMessage.empty()) {
        llvm::Value *narrow = b_.CreateTrunc(v, b_.getIntNTy(p.type.bits()));
        llvm::Value *back = p.type.isUInt() ? b_.CreateZExt(narrow, b_.getInt64Ty()) : b_.CreateSExt(narrow, b_.getInt64Ty());
        fail(b_.CreateICmpNE(back, v), "ValueError", p.rangeMessage, [&] { return std::vector<llvm::Value *>{v}; });
      }
      if (p.kind == FfiParam::Kind::Int)
        vars_[p.var] = v;
      else
        scalars_[k] = b_.CreateICmpNE(v, b_.getInt64(0));
      return;
    }
    case FfiParam::Kind::Float: {
      fail(b_.CreateNot(b_.CreateOr(is(index, kFfiFloat), b_.CreateOr(is(index, kFfiInt), is(index, kFfiBool)))),
           "TypeError", p.kindMessage, name);
      llvm::Value *asDouble = load(b_.getDoubleTy(), value, kAnyValue);
      llvm::Value *asInt = b_.CreateSIToFP(load(b_.getInt64Ty(), value, kAnyValue), b_.getDoubleTy());
      scalars_[k] = b_.CreateSelect(is(index, kFfiFloat), asDouble, asInt);
      return;
    }
    case FfiParam::Kind::Pointer: {
      llvm::Value *t = tensorOf(p, index);
      llvm::Value *tensor = b_.CreateIsNotNull(t);
      fail(b_.CreateNot(b_.CreateOr(b_.CreateOr(is(index, kFfiNone), is(index, kFfiOpaquePtr)), tensor)), "TypeError",
           p.kindMessage, name);
      // The tensor's data, read only when there is a tensor.
      llvm::BasicBlock *before = b_.GetInsertBlock();
      llvm::BasicBlock *read = llvm::BasicBlock::Create(ctx_, "tensor.data", fn_);
      llvm::BasicBlock *join = llvm::BasicBlock::Create(ctx_, "pointer", fn_);
      llvm::Value *opaque = b_.CreateSelect(is(index, kFfiOpaquePtr), load(b_.getPtrTy(), value, kAnyValue),
                                            llvm::ConstantPointerNull::get(b_.getPtrTy()));
      b_.CreateCondBr(tensor, read, join);
      b_.SetInsertPoint(read);
      llvm::Value *data = load(b_.getPtrTy(), t, kData);
      b_.CreateBr(join);
      b_.SetInsertPoint(join);
      llvm::PHINode *phi = b_.CreatePHI(b_.getPtrTy(), 2);
      phi->addIncoming(opaque, before);
      phi->addIncoming(data, read);
      scalars_[k] = phi;
      return;
    }
    case FfiParam::Kind::Extent:
      return;
    }
  }

  llvm::Value *shape(int param, int axis) {
    llvm::Value *shapes = load(b_.getPtrTy(), tensors_[param], kShape);
    return b_.CreateLoad(b_.getInt64Ty(), b_.CreateConstInBoundsGEP1_64(b_.getInt64Ty(), shapes, axis));
  }
  // strides[axis], or the compact stride (the product of the later extents) when strides is NULL.
  llvm::Value *stride(int param, int axis) {
    llvm::Value *t = tensors_[param];
    llvm::Value *strides = load(b_.getPtrTy(), t, kStrides);
    llvm::Value *shapes = load(b_.getPtrTy(), t, kShape);
    llvm::Value *isNull = b_.CreateIsNull(strides);
    // shape has as many entries as strides: read it in place of a NULL strides.
    llvm::Value *from = b_.CreateSelect(isNull, shapes, strides);
    llvm::Value *given = b_.CreateLoad(b_.getInt64Ty(), b_.CreateConstInBoundsGEP1_64(b_.getInt64Ty(), from, axis));
    llvm::Value *compact = b_.getInt64(1);
    for (int k = axis + 1; k < e_.params[param].ndim; ++k)
      compact = b_.CreateMul(compact, shape(param, k));
    return b_.CreateSelect(isNull, compact, given);
  }

  void bind(size_t index) override {
    const FfiVar &v = e_.vars[index];
    vars_[index] = v.fromStride ? stride(v.param, v.axis) : shape(v.param, v.axis);
    if (!v.negativeMessage.empty())
      fail(b_.CreateICmpSLT(vars_[index], b_.getInt64(0)), "ValueError", v.negativeMessage,
           [&] { return std::vector<llvm::Value *>{vars_[index]}; });
    if (!v.rangeMessage.empty()) {
      llvm::Value *narrow = b_.CreateSExt(b_.CreateTrunc(vars_[index], b_.getInt32Ty()), b_.getInt64Ty());
      fail(b_.CreateICmpNE(narrow, vars_[index]), "ValueError", v.rangeMessage,
           [&] { return std::vector<llvm::Value *>{vars_[index]}; });
    }
  }

  // a op b and whether it overflowed int64 (an llvm.s*.with.overflow intrinsic).
  std::pair<llvm::Value *, llvm::Value *> overflowing(llvm::Intrinsic::ID op, llvm::Value *a, llvm::Value *c) {
    llvm::Value *both = b_.CreateBinaryIntrinsic(op, a, c);
    return {b_.CreateExtractValue(both, 0), b_.CreateExtractValue(both, 1)};
  }

  // The span of tensor `param` (ffi_entry.h, step 5), over its ndim axes unrolled.
  llvm::Value *span(int param) {
    llvm::Value *t = tensors_[param];
    llvm::Value *strides = load(b_.getPtrTy(), t, kStrides);
    llvm::Value *compactStrides = b_.CreateIsNull(strides);
    // shape has as many entries as strides: read it in place of a NULL strides.
    llvm::Value *from = b_.CreateSelect(compactStrides, load(b_.getPtrTy(), t, kShape), strides);
    llvm::Value *zero = b_.getInt64(0), *one = b_.getInt64(1);
    llvm::Value *negative = b_.getFalse(), *empty = b_.getFalse(), *overflow = b_.getFalse();
    llvm::Value *last = zero, *compact = one;
    for (int k = e_.params[param].ndim; k-- > 0;) {
      llvm::Value *extent = shape(param, k);
      llvm::Value *given = b_.CreateLoad(b_.getInt64Ty(), b_.CreateConstInBoundsGEP1_64(b_.getInt64Ty(), from, k));
      llvm::Value *step = b_.CreateSelect(compactStrides, compact, given);
      negative = b_.CreateOr(negative, b_.CreateICmpSLT(extent, zero));
      empty = b_.CreateOr(empty, b_.CreateICmpEQ(extent, zero));
      auto [flipped, flipOverflow] = overflowing(llvm::Intrinsic::ssub_with_overflow, zero, step);
      llvm::Value *backwards = b_.CreateICmpSLT(step, zero);
      overflow = b_.CreateOr(overflow, b_.CreateAnd(backwards, flipOverflow));
      step = b_.CreateSelect(backwards, flipped, step);
      llvm::Value *counts = b_.CreateICmpSGT(extent, zero);
      auto [reach, reachOverflow] = overflowing(llvm::Intrinsic::smul_with_overflow, b_.CreateSub(extent, one), step);
      auto [sum, sumOverflow] = overflowing(llvm::Intrinsic::sadd_with_overflow, last, reach);
      overflow = b_.CreateOr(overflow, b_.CreateAnd(counts, b_.CreateOr(reachOverflow, sumOverflow)));
      last = b_.CreateSelect(counts, sum, last);
      auto [product, productOverflow] = overflowing(llvm::Intrinsic::smul_with_overflow, compact, extent);
      overflow = b_.CreateOr(overflow, b_.CreateAnd(compactStrides, productOverflow));
      compact = product;
    }
    overflow = b_.CreateOr(overflow, b_.CreateICmpEQ(last, b_.getInt64(INT64_MAX)));
    llvm::Value *count = b_.CreateSelect(overflow, b_.getInt64(-2), b_.CreateAdd(last, one));
    return b_.CreateSelect(negative, b_.getInt64(-1), b_.CreateSelect(empty, zero, count));
  }

  // Step 5: the elements tensor k reaches, then its data.
  void extentOf(size_t k) override {
    const FfiParam &p = e_.params[k];
    auto none = [] { return std::vector<llvm::Value *>{}; };
    llvm::Value *data = load(b_.getPtrTy(), tensors_[k], kData);
    if (p.spanCheck) {
      llvm::Value *s = span(static_cast<int>(k));
      fail(b_.CreateICmpEQ(s, b_.getInt64(-1)), "ValueError", p.negativeMessage, none);
      llvm::Value *tooLarge = b_.CreateOr(b_.CreateICmpSLT(s, b_.getInt64(0)),
                                          b_.CreateICmpSGT(b_.CreateSub(s, b_.getInt64(1)), b_.getInt64(p.maxOffset)));
      fail(tooLarge, "ValueError", p.spanMessage, none);
      fail(b_.CreateAnd(b_.CreateIsNull(data), b_.CreateICmpNE(s, b_.getInt64(0))), "ValueError", p.dataMessage, none);
    } else if (p.constantElements != 0) {
      fail(b_.CreateIsNull(data), "ValueError", p.dataMessage, none);
    }
  }

  void check(const FfiCheck &c) override {
    llvm::Value *given = nullptr;
    llvm::Value *guard = nullptr;
    switch (c.what) {
    case FfiCheck::What::Shape:
      given = shape(c.param, c.axis);
      break;
    case FfiCheck::What::Stride:
      given = stride(c.param, c.axis);
      guard = b_.CreateICmpNE(shape(c.param, c.axis), b_.getInt64(1));
      break;
    case FfiCheck::What::ByteOffset:
      given = load(b_.getInt64Ty(), tensors_[c.param], kByteOffset);
      break;
    }
    llvm::Value *expected = expr(c.expected);
    llvm::Value *wrong = b_.CreateICmpNE(given, expected);
    if (guard)
      wrong = b_.CreateAnd(guard, wrong);
    fail(wrong, "ValueError", c.message, [&] { return std::vector<llvm::Value *>{given, expected}; });
  }

  llvm::Value *expr(int index) {
    const FfiExpr &x = e_.exprs[index];
    if (x.op == FfiExpr::Op::Const)
      return b_.getInt64(static_cast<uint64_t>(x.value));
    if (x.op == FfiExpr::Op::Var)
      return vars_[x.value];
    llvm::Value *a = expr(x.a), *c = expr(x.b);
    switch (x.op) {
    case FfiExpr::Op::Add:
      return b_.CreateAdd(a, c);
    case FfiExpr::Op::Sub:
      return b_.CreateSub(a, c);
    case FfiExpr::Op::Mul:
      return b_.CreateMul(a, c);
    case FfiExpr::Op::Min:
      return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, a, c);
    case FfiExpr::Op::Max:
      return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, a, c);
    case FfiExpr::Op::FloorDiv:
    case FfiExpr::Op::FloorMod: {
      // A divisor of 0 reads as 1 (no trap in a check; an extent never divides by it); one of -1
      // negates (wrapping), as INT64_MIN / -1 would trap.
      llvm::Value *byMinusOne = b_.CreateICmpEQ(c, b_.getInt64(-1));
      llvm::Value *divisor =
          b_.CreateSelect(b_.CreateOr(b_.CreateICmpEQ(c, b_.getInt64(0)), byMinusOne), b_.getInt64(1), c);
      llvm::Value *q = b_.CreateSDiv(a, divisor), *r = b_.CreateSRem(a, divisor);
      llvm::Value *adjust = b_.CreateAnd(b_.CreateICmpNE(r, b_.getInt64(0)),
                                         b_.CreateICmpNE(b_.CreateICmpSLT(r, b_.getInt64(0)),
                                                         b_.CreateICmpSLT(divisor, b_.getInt64(0))));
      if (x.op == FfiExpr::Op::FloorDiv)
        return b_.CreateSelect(byMinusOne, b_.CreateSub(b_.getInt64(0), a),
                               b_.CreateSub(q, b_.CreateZExt(adjust, b_.getInt64Ty())));
      return b_.CreateAdd(r, b_.CreateSelect(adjust, divisor, b_.getInt64(0)));
    }
    default:
      return nullptr;
    }
  }

  void call() {
    std::vector<llvm::Value *> values;
    llvm::FunctionType *type = callee_->getFunctionType();
    for (size_t k = 0; k < e_.params.size(); ++k) {
      const FfiParam &p = e_.params[k];
      llvm::Type *want = type->getParamType(static_cast<unsigned>(k));
      llvm::Value *v = nullptr;
      switch (p.kind) {
      case FfiParam::Kind::Tensor:
        v = load(b_.getPtrTy(), tensors_[k], kData);
        break;
      case FfiParam::Kind::Int:
      case FfiParam::Kind::Extent:
        v = b_.CreateSExtOrTrunc(vars_[p.var], want);
        break;
      case FfiParam::Kind::Float:
        v = b_.CreateFPCast(scalars_[k], want);
        break;
      case FfiParam::Kind::Bool:
        v = b_.CreateZExtOrTrunc(scalars_[k], want);
        break;
      case FfiParam::Kind::Pointer:
        v = scalars_[k];
        break;
      }
      values.push_back(v);
    }
    llvm::CallInst *status = b_.CreateCall(callee_, values);
    status->setAttributes(callee_->getAttributes());
    llvm::Value *result = fn_->getArg(3);
    b_.CreateStore(b_.getInt32(kFfiNone), result);
    b_.CreateStore(b_.getInt32(0), at(result, 4));
    b_.CreateStore(b_.getInt64(0), at(result, kAnyValue));
    b_.CreateRet(b_.CreateSelect(b_.CreateICmpEQ(status, b_.getInt32(0)), b_.getInt32(0), b_.getInt32(-1)));
  }

  // An internal function of the module returning the name of a value by a switch (the type
  // names of tvm-ffi's type indices, DLPack's dtype codes), made once per module.
  llvm::Function *nameFunction(const char *symbol, llvm::IntegerType *valueType,
                               const std::vector<std::pair<int64_t, const char *>> &names, const char *otherwise) {
    if (llvm::Function *made = m_.getFunction(symbol))
      return made;
    auto *type = llvm::FunctionType::get(b_.getPtrTy(), {valueType}, false);
    llvm::Function *fn = llvm::Function::Create(type, llvm::Function::InternalLinkage, symbol, m_);
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx_, "entry", fn));
    llvm::BasicBlock *other = llvm::BasicBlock::Create(ctx_, "other", fn);
    llvm::SwitchInst *choice = b.CreateSwitch(fn->getArg(0), other, static_cast<unsigned>(names.size()));
    for (const auto &[value, name] : names) {
      llvm::BasicBlock *block = llvm::BasicBlock::Create(ctx_, "", fn);
      choice->addCase(llvm::ConstantInt::get(valueType, static_cast<uint64_t>(value)), block);
      llvm::IRBuilder<> named(block);
      named.CreateRet(named.CreateGlobalStringPtr(name, "", 0, &m_));
    }
    llvm::IRBuilder<> rest(other);
    rest.CreateRet(rest.CreateGlobalStringPtr(otherwise, "", 0, &m_));
    return fn;
  }
  llvm::Function *typeNameFunction() {
    std::vector<std::pair<int64_t, const char *>> names;
    for (const auto &[index, name] : ffiTypeNames())
      names.emplace_back(index, name);
    return nameFunction("tl_ffi_type_name", b_.getInt32Ty(), names, "object");
  }
  llvm::Function *codeNameFunction() {
    std::vector<std::pair<int64_t, const char *>> names;
    for (const auto &[code, name] : dlCodeNames())
      names.emplace_back(code, name);
    return nameFunction("tl_ffi_code_name", b_.getInt8Ty(), names, "code");
  }

  const FfiEntry &e_;
  llvm::Function *callee_;
  llvm::Module &m_;
  llvm::LLVMContext &ctx_;
  llvm::IRBuilder<> b_;
  llvm::Function *fn_ = nullptr;
  llvm::Value *args_ = nullptr;
  llvm::Value *message_ = nullptr;
  std::vector<llvm::Value *> tensors_, scalars_, vars_;
};

} // namespace

llvm::FunctionCallee raiseFunction(llvm::Module &module) {
  llvm::Type *ptr = llvm::PointerType::get(module.getContext(), 0);
  return module.getOrInsertFunction("TVMFFIErrorSetRaisedFromCStr",
                                    llvm::FunctionType::get(llvm::Type::getVoidTy(module.getContext()), {ptr, ptr},
                                                            false));
}

void lowerFfiEntry(const FfiEntry &entry, llvm::Function *callee, llvm::Module &module) {
  EntryLowering(entry, callee, module).lower();
}

} // namespace tirlower
