// Lowering of one flattened PrimFunc to an LLVM function (internal to the LLVM emitter).
// TIR variables are immutable, so every Var maps to one SSA value: loops use phi nodes and no
// scalar lives in memory. The implementation is split by topic: statements
// (function_lowering.cpp), expressions (lower_expr.cpp), buffer accesses and alignment
// (lower_access.cpp), intrinsic calls (lower_call.cpp).
#pragma once

#include <functional>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "codegen/llvm/llvm_emitter.h"
#include "ir/functor.h"

namespace tirlower {

// Values of the form coefficient * k + base (k any integer): enough to prove that an index is
// a multiple of a power of two. coefficient 0 means the value is exactly `base`.
struct ModularSet {
  int64_t coefficient = 1;
  int64_t base = 0;
};

// The values an int32 index expression may take: lo <= value <= hi, always within int32.
struct IndexRange {
  int64_t lo = INT32_MIN;
  int64_t hi = INT32_MAX;
};

// An int32 index expression lowered for address arithmetic: `wide` values are i64 and equal to
// the TIR value (every intermediate result was proven to fit in int32, so computing it in 64 bits
// changes nothing); others are the i32 value computed with wrap-around.
struct IndexValue {
  llvm::Value *value = nullptr;
  IndexRange range;
  bool wide = false;
  const VarNode *var = nullptr; // the variable this value is, if any (its i32 value is shared)
};

// Expressions lower through ExprFunctor (one method per node kind, returning the value),
// statements through StmtFunctor (one method per node kind, emitting at the insert point).
class FunctionLowering : private ExprFunctor<llvm::Value *(const Expr &)>, private StmtFunctor<void(const Stmt &)> {
public:
  FunctionLowering(const PrimFuncNode &func, llvm::Module &module, const LLVMEmitOptions &options);
  // Defines `symbol` in the module.
  void lower(const std::string &symbol);

private:
  // ---- function_lowering.cpp: signature and statements -----------------------------------
  void declareSignature(const std::string &symbol);
  void lowerStmt(const Stmt &stmt);
  void visitBlock(const BlockNode *op) override;
  void visitSeqStmt(const SeqStmtNode *op) override;
  void visitFor(const ForNode *op) override;
  void visitWhile(const WhileNode *op) override;
  void visitIfThenElse(const IfThenElseNode *op) override;
  void visitAssertStmt(const AssertStmtNode *op) override;
  void visitLetStmt(const LetStmtNode *op) override;
  void visitAllocate(const AllocateNode *op) override;
  void visitAllocBuffer(const AllocBufferNode *op) override;
  void visitDeclBuffer(const DeclBufferNode *op) override;
  void visitAttrStmt(const AttrStmtNode *op) override;
  void visitEvaluate(const EvaluateNode *op) override;
  void allocate(const VarNode *data, DataType dtype, const std::vector<Expr> &extents, SourceRange where);
  llvm::Function *workspaceFunction();
  void releaseAtUnload(llvm::GlobalVariable *slot);
  void returnWith(int32_t code);
  // Under --abi=tvm-ffi: raises a tvm-ffi error of `kind` (before a nonzero return).
  void raise(const char *kind, const std::string &message);
  llvm::BasicBlock *newBlock(const char *name);

  // ---- lower_expr.cpp --------------------------------------------------------------------
  llvm::Value *lowerExpr(const Expr &expr);
  llvm::Value *visitVar(const VarNode *op) override;
  llvm::Value *visitIntImm(const IntImmNode *op) override;
  llvm::Value *visitFloatImm(const FloatImmNode *op) override;
  llvm::Value *visitStringImm(const StringImmNode *op) override;
  llvm::Value *visitNot(const NotNode *op) override;
  llvm::Value *visitSelect(const SelectNode *op) override;
  llvm::Value *visitCast(const CastNode *op) override;
  llvm::Value *visitBroadcast(const BroadcastNode *op) override;
  llvm::Value *visitLet(const LetNode *op) override;
  llvm::Value *visitBinary(const BinaryNode *op) override;
  llvm::Value *lowerArithmetic(BinaryOp op, DataType type, llvm::Value *a, llvm::Value *b);
  llvm::Value *signedDivide(bool isRem, DataType type, llvm::Value *a, llvm::Value *b);
  llvm::Value *lowerFloorDivMod(bool isMod, DataType type, llvm::Value *a, llvm::Value *b);
  llvm::Value *floorDivModByPositiveConstant(bool isMod, llvm::Value *a, llvm::Value *b);
  llvm::Value *lowerCompare(BinaryOp op, DataType operandType, llvm::Value *a, llvm::Value *b);
  llvm::Value *lowerShortCircuit(const BinaryNode *op);
  llvm::Value *lowerMulAdd(const BinaryNode *op);
  llvm::Value *lowerCast(DataType to, DataType from, llvm::Value *value);
  llvm::Value *visitRamp(const RampNode *op) override;
  llvm::Value *valueOf(const VarNode *var, SourceRange where);
  void bind(const VarNode *var, llvm::Value *value);
  void bindIndex(const VarNode *var, const IndexValue &value);
  void unbind(const VarNode *var) {
    values_.erase(var);
    wideValues_.erase(var);
    definedAt_.erase(var);
  }
  // ---- lower_index.cpp: int32 index arithmetic in 64 bits where it provably fits -----------
  IndexValue lowerIndex(const Expr &expr);
  IndexValue indexBinary(const BinaryNode *op);
  IndexValue indexSum(const BinaryNode *op);
  int loopDepthOf(const Expr &term) const;
  IndexValue indexDivMod(const BinaryNode *op, int64_t divisor);
  llvm::Value *wideOf(const IndexValue &value);
  llvm::Value *narrowOf(const IndexValue &value);
  llvm::Value *lowerOffset(const Expr &index); // any integer index as i64
  // A load of a small constant-stride Ramp as a masked load and a shuffle; null for others.
  llvm::Value *stridedLoad(const BufferNode &buffer, llvm::Value *base, const Expr &index, DataType type);
  llvm::Value *lowerIndexCompare(const BinaryNode *op);

  // ---- lower_access.cpp ------------------------------------------------------------------
  llvm::Value *visitBufferLoad(const BufferLoadNode *op) override;
  void visitBufferStore(const BufferStoreNode *op) override;
  void forEachScalar(const BufferNode &buffer, llvm::Value *base, const Expr &index,
                     const std::function<void(llvm::Value *, uint64_t)> &visit);
  void checkRank(const BufferNode &buffer, SourceRange where) const;
  llvm::Value *basePointer(const BufferNode &buffer, SourceRange where);
  llvm::Value *elementPointer(const BufferNode &buffer, llvm::Value *base, const Expr &scalarIndex);
  llvm::Value *elementPointer(llvm::Type *element, llvm::Value *base, llvm::Value *index);
  uint64_t alignmentOf(const BufferNode &buffer, const Expr &scalarIndex) const;
  ModularSet modularSet(const Expr &expr) const;
  // Whether the byte offset of element `scalarIndex` in the buffer's data is provably a multiple
  // of `bytes` (whatever the base pointer's alignment).
  bool offsetIsMultipleOf(const BufferNode &buffer, const Expr &scalarIndex, uint64_t bytes) const;
  llvm::Value *laneElement(llvm::Value *indices, DataType indexType, int k, int elementLanes);
  llvm::Value *toMemory(DataType type, llvm::Value *value);
  llvm::Value *fromMemory(DataType type, llvm::Value *value);

  // ---- lower_call.cpp --------------------------------------------------------------------
  llvm::Value *visitCall(const CallNode *op) override;
  llvm::Value *lowerIfThenElse(const CallNode *op);
  llvm::Value *lowerExtern(const CallNode *op);
  llvm::Value *libmLanewise(const CallNode *op, const std::string &name, const std::vector<llvm::Value *> &args);

public:
  // ---- types (lower_expr.cpp), used by every part -----------------------------------------
  llvm::Type *typeOf(DataType type) const;       // registers: bool is i1
  llvm::Type *memoryTypeOf(DataType type) const; // memory: bool is i8
  llvm::Constant *constantOf(DataType type, int64_t value) const;
  llvm::Value *splatIfVector(DataType type, llvm::Value *scalar);

private:
  const PrimFuncNode &func_;
  llvm::Module &module_;
  llvm::LLVMContext &context_;
  const LLVMEmitOptions &options_;
  llvm::IRBuilder<> builder_;
  llvm::Function *function_ = nullptr;
  llvm::BasicBlock *entry_ = nullptr;

  std::unordered_map<const VarNode *, llvm::Value *> values_;
  // int32 loop and let variables held as i64 (their i32 value in values_ is made on first use)
  struct WideVar {
    llvm::Value *value;
    IndexRange range;
  };
  std::unordered_map<const VarNode *, WideVar> wideValues_;
  std::unordered_map<const VarNode *, ModularSet> letSets_;     // index analysis of let-bound values
  // Loop and let variables: the depth of the loop nest where they are defined (1 for the
  // variable of an outermost loop or a let in its body); parameters are absent (depth 0).
  std::unordered_map<const VarNode *, int> definedAt_;
  int loopDepth_ = 0;
  std::unordered_map<const VarNode *, uint64_t> dataAlignment_; // bytes; absent: element alignment
  // Data variables whose vector stores are non-temporal here (`T.attr(B.data,
  // "nontemporal_store", 1)` around the statement, from tile-copies).
  std::vector<const VarNode *> streaming_;
};


} // namespace tirlower
