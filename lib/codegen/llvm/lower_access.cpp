// Buffer loads and stores of the LLVM lowering, and the alignment rule.
//
// Lanes that are contiguous in memory (a stride-1 Ramp index of a scalar buffer, or any index of
// an M-lane element buffer whose index is scalar or a stride-1 Ramp) become one vector load or
// store at the first lane's scalar index. A load whose index is a Ramp of a small constant stride
// s > 1 (a stride-2 window of a strided convolution) is one masked load of the lanes * s scalars
// from the first lane, only every s-th enabled (the others are not read, so nothing past the last
// lane is touched), and a shuffle that packs them: LLVM otherwise turns the per-lane loads into a
// hardware gather where the target has one (AVX-512), several times slower than a load and a
// permute. Other vector indices are split into per-lane scalar accesses (extractelement /
// insertelement).
//
// Alignment: the element's size, doubled while the access's byte offset is provably a multiple
// of the doubled value and the base pointer is known to be at least that aligned. The offset is
// analysed as a modular set (coefficient * k + base) by folding constants through +, -, *, and
// let bindings, so `i*4 + 8` on float32 proves 16 bytes. Base pointers: stack storage 64 bytes,
// heap storage 16 (malloc), parameters LLVMEmitOptions::paramAlignment (else element size).
#include "codegen/llvm/function_lowering.h"

#include <algorithm>

#include <functional>

#include <numeric>

#include "codegen/source_names.h"
#include "ir/elem_offset.h"

namespace tirlower {

void FunctionLowering::checkRank(const BufferNode &buffer, SourceRange where) const {
  if (buffer.shape.size() == 1 && buffer.axisSeparators.empty())
    return;
  size_t physical = buffer.axisSeparators.empty() ? buffer.shape.size() : buffer.physicalRank();
  // Already flattened to the rank its axis separators ask for: flattening again cannot help.
  bool flat = !buffer.axisSeparators.empty() && buffer.axisSeparators.size() + 1 == buffer.shape.size();
  std::string advice = !flat ? " (run the flatten pass first)"
                       : buffer.scope.view().find("texture") != std::string_view::npos
                           ? " (from its axis separators; a texture buffer needs --emit=opencl)"
                           : " (from its axis separators)";
  throw CompileError(where, "buffer " + quotedBufferName(buffer) + " has physical rank " + std::to_string(physical) +
                                "; the LLVM emitter takes 1-d buffers only" + advice);
}

llvm::Value *FunctionLowering::basePointer(const BufferNode &buffer, SourceRange where) {
  checkRank(buffer, where);
  auto it = values_.find(buffer.data.get());
  if (it == values_.end())
    throw CompileError(where, "LLVM emitter: buffer " + quotedBufferName(buffer) + " views data that is not defined");
  return it->second;
}

ModularSet FunctionLowering::modularSet(const Expr &expr) const {
  if (const int64_t *value = asConstInt(expr))
    return {0, *value};
  if (const auto *var = expr.as<VarNode>()) {
    auto it = letSets_.find(var);
    return it != letSets_.end() ? it->second : ModularSet{};
  }
  if (const auto *cast = expr.as<CastNode>())
    return cast->value->type.isIndex() && cast->type.bits() >= cast->value->type.bits() ? modularSet(cast->value)
                                                                                        : ModularSet{};
  const auto *binary = expr.as<BinaryNode>();
  if (!binary)
    return {};
  ModularSet a = modularSet(binary->a), b = modularSet(binary->b);
  switch (binary->op) {
  case BinaryOp::Add: return {std::gcd(a.coefficient, b.coefficient), a.base + b.base};
  case BinaryOp::Sub: return {std::gcd(a.coefficient, b.coefficient), a.base - b.base};
  case BinaryOp::Mul:
    // (ca*k + ba)(cb*j + bb): every term but ba*bb is a multiple of gcd(ca*cb, ca*bb, cb*ba).
    return {std::gcd(std::gcd(a.coefficient * b.coefficient, a.coefficient * b.base), b.coefficient * a.base),
            a.base * b.base};
  default: return {};
  }
}

uint64_t FunctionLowering::alignmentOf(const BufferNode &buffer, const Expr &scalarIndex) const {
  uint64_t element = static_cast<uint64_t>(buffer.dtype.laneBytes());
  auto known = dataAlignment_.find(buffer.data.get());
  if (known == dataAlignment_.end() || known->second <= element)
    return element;
  uint64_t alignment = element;
  while (alignment * 2 <= known->second && offsetIsMultipleOf(buffer, scalarIndex, alignment * 2))
    alignment *= 2;
  return alignment;
}

bool FunctionLowering::offsetIsMultipleOf(const BufferNode &buffer, const Expr &scalarIndex, uint64_t bytes) const {
  ModularSet set = modularSet(scalarIndex);
  // Every offset is a multiple of gcd(coefficient, base) elements; 0 means "exactly 0".
  uint64_t multiple = static_cast<uint64_t>(std::gcd(set.coefficient, set.base));
  return multiple == 0 || (multiple * static_cast<uint64_t>(buffer.dtype.laneBytes())) % bytes == 0;
}

llvm::Value *FunctionLowering::elementPointer(llvm::Type *element, llvm::Value *base, llvm::Value *index) {
  return builder_.CreateInBoundsGEP(element, base, index);
}

llvm::Value *FunctionLowering::elementPointer(const BufferNode &buffer, llvm::Value *base, const Expr &scalarIndex) {
  return elementPointer(memoryTypeOf(buffer.dtype.element()), base, lowerOffset(scalarIndex));
}

// The scalar index of the first scalar of index lane k: index[k] * elementLanes, as i64.
llvm::Value *FunctionLowering::laneElement(llvm::Value *indices, DataType indexType, int k, int elementLanes) {
  llvm::Value *lane = builder_.CreateExtractElement(indices, static_cast<uint64_t>(k));
  lane = indexType.isUInt() ? builder_.CreateZExtOrTrunc(lane, builder_.getInt64Ty())
                            : builder_.CreateSExtOrTrunc(lane, builder_.getInt64Ty());
  if (elementLanes == 1)
    return lane;
  return builder_.CreateMul(lane, builder_.getInt64(static_cast<uint64_t>(elementLanes)));
}

llvm::Value *FunctionLowering::toMemory(DataType type, llvm::Value *value) {
  return type.isBool() ? builder_.CreateZExt(value, memoryTypeOf(type)) : value;
}

llvm::Value *FunctionLowering::fromMemory(DataType type, llvm::Value *value) {
  return type.isBool() ? builder_.CreateICmpNE(value, llvm::Constant::getNullValue(value->getType())) : value;
}

llvm::Value *FunctionLowering::visitBufferLoad(const BufferLoadNode *op) {
  const BufferNode &buffer = *op->buffer;
  llvm::Value *base = basePointer(buffer, op->loc);
  const Expr &index = op->indices.front();
  DataType type = op->type;
  if (Expr start = contiguousElemOffset(buffer, index)) {
    llvm::Value *pointer = elementPointer(buffer, base, start);
    llvm::Value *value = builder_.CreateAlignedLoad(memoryTypeOf(type), pointer,
                                                    llvm::Align(alignmentOf(buffer, start)), buffer.name.str());
    return fromMemory(type, value);
  }
  if (llvm::Value *strided = stridedLoad(buffer, base, index, type))
    return strided;
  // Gather, lane by lane.
  DataType scalar = type.element();
  llvm::Value *result = llvm::UndefValue::get(memoryTypeOf(type));
  llvm::Align alignment(static_cast<uint64_t>(scalar.laneBytes()));
  forEachScalar(buffer, base, index, [&](llvm::Value *pointer, uint64_t position) {
    llvm::Value *value = builder_.CreateAlignedLoad(memoryTypeOf(scalar), pointer, alignment);
    result = builder_.CreateInsertElement(result, value, position);
  });
  return fromMemory(type, result);
}

// The largest span a strided load covers, in bytes (four AVX-512 registers), and its largest
// stride: past those, the masked lanes outnumber the lanes that are loaded.
constexpr int64_t kMaxStridedSpanBytes = 256;
constexpr int64_t kMaxLoadStride = 4;

llvm::Value *FunctionLowering::stridedLoad(const BufferNode &buffer, llvm::Value *base, const Expr &index,
                                           DataType type) {
  const auto *ramp = index.as<RampNode>();
  if (!ramp || !buffer.strides.empty() || buffer.dtype.isVector() || type.isBool() || type.isScalable())
    return nullptr;
  const int64_t *stride = asConstInt(ramp->stride);
  const int64_t lanes = type.lanes();
  const int64_t bytes = type.element().laneBytes();
  if (!stride || *stride < 2 || *stride > kMaxLoadStride || lanes * *stride * bytes > kMaxStridedSpanBytes)
    return nullptr;
  const Expr start = flatElemOffset(buffer, ramp->base);
  llvm::Type *element = memoryTypeOf(type.element());
  auto *span = llvm::FixedVectorType::get(element, static_cast<unsigned>(lanes * *stride));
  std::vector<llvm::Constant *> mask;
  std::vector<int> pick;
  for (int64_t k = 0; k < lanes * *stride; ++k) {
    mask.push_back(builder_.getInt1(k % *stride == 0));
    if (k % *stride == 0)
      pick.push_back(static_cast<int>(k));
  }
  llvm::Value *loaded = builder_.CreateMaskedLoad(span, elementPointer(buffer, base, start),
                                                  llvm::Align(alignmentOf(buffer, start)),
                                                  llvm::ConstantVector::get(mask), llvm::PoisonValue::get(span),
                                                  buffer.name.str());
  return builder_.CreateShuffleVector(loaded, pick);
}

// Every scalar a gather or scatter of the element indices `index` touches, in order: index lane
// k covers the element's M scalar lanes at scalar index index[k] * M + m, position k * M + m of
// the vector.
void FunctionLowering::forEachScalar(const BufferNode &buffer, llvm::Value *base, const Expr &index,
                                     const std::function<void(llvm::Value *, uint64_t)> &visit) {
  DataType scalar = buffer.dtype.element();
  int elementLanes = buffer.dtype.lanes();
  llvm::Value *indices = lowerExpr(flatElemOffset(buffer, index));
  for (int k = 0; k < index->type.lanes(); ++k) {
    llvm::Value *lane = laneElement(indices, index->type, k, elementLanes);
    for (int m = 0; m < elementLanes; ++m) {
      llvm::Value *at = m ? builder_.CreateAdd(lane, builder_.getInt64(static_cast<uint64_t>(m))) : lane;
      visit(elementPointer(memoryTypeOf(scalar), base, at), static_cast<uint64_t>(k * elementLanes + m));
    }
  }
}

void FunctionLowering::visitBufferStore(const BufferStoreNode *op) {
  const BufferNode &buffer = *op->buffer;
  llvm::Value *base = basePointer(buffer, op->loc);
  const Expr &index = op->indices.front();
  DataType type = op->value->type;
  llvm::Value *value = toMemory(type, lowerExpr(op->value));
  if (Expr start = contiguousElemOffset(buffer, index)) {
    llvm::Value *pointer = elementPointer(buffer, base, start);
    const uint64_t alignment = alignmentOf(buffer, start);
    const uint64_t bytes = static_cast<uint64_t>(type.lanes() * type.element().laneBytes());
    bool streamed = std::find(streaming_.begin(), streaming_.end(), buffer.data.get()) != streaming_.end() &&
                    !type.isScalar() && !type.isBool() && (bytes == 16 || bytes == 32);
    if (!streamed) {
      builder_.CreateAlignedStore(value, pointer, llvm::Align(alignment));
      return;
    }
    // A non-temporal store needs an address aligned to its size (movntps); when that is not
    // known, the alignment is tested and a misaligned address takes the plain store. When the
    // offset is a provable multiple of the size, only the base pointer is tested: the test is
    // then the same in every iteration, and LICM takes it out of the loops.
    auto streamingStore = [&] {
      llvm::StoreInst *store = builder_.CreateAlignedStore(value, pointer, llvm::Align(bytes));
      store->setMetadata(llvm::LLVMContext::MD_nontemporal,
                         llvm::MDNode::get(context_, llvm::ConstantAsMetadata::get(builder_.getInt32(1))));
    };
    if (alignment >= bytes)
      return streamingStore();
    llvm::Value *tested = offsetIsMultipleOf(buffer, start, bytes) ? base : pointer;
    llvm::Value *misalignment =
        builder_.CreateAnd(builder_.CreatePtrToInt(tested, builder_.getInt64Ty()), builder_.getInt64(bytes - 1));
    llvm::BasicBlock *aligned = newBlock("store.stream"), *plain = newBlock("store.plain"),
                     *done = newBlock("store.done");
    builder_.CreateCondBr(builder_.CreateICmpEQ(misalignment, builder_.getInt64(0)), aligned, plain);
    builder_.SetInsertPoint(aligned);
    streamingStore();
    builder_.CreateBr(done);
    builder_.SetInsertPoint(plain);
    builder_.CreateAlignedStore(value, pointer, llvm::Align(alignment));
    builder_.CreateBr(done);
    builder_.SetInsertPoint(done);
    return;
  }
  // Scatter, lane by lane in order (a later lane wins when two lanes hit one element).
  llvm::Align alignment(static_cast<uint64_t>(type.element().laneBytes()));
  forEachScalar(buffer, base, index, [&](llvm::Value *pointer, uint64_t position) {
    builder_.CreateAlignedStore(builder_.CreateExtractElement(value, position), pointer, alignment);
  });
}

} // namespace tirlower
