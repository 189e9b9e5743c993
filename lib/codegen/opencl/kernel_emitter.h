// One kernel's traversal. Statements and the signature are in kernel_emitter.cpp, expressions
// in expr_emitter.cpp, buffer and image accesses in memory_access.cpp.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "codegen/opencl/kernel_census.h"
#include "codegen/opencl/opencl_emitter.h"
#include "codegen/opencl/opencl_support.h"
#include "ir/functor.h"

namespace tirlower {

// Statements through StmtFunctor, expressions through ExprFunctor (returning their text).
class KernelEmitter : private StmtFunctor<void(const Stmt &)>, private ExprFunctor<std::string(const Expr &)> {
public:
  KernelEmitter(const PrimFuncNode &func, OpenCLSupport &support);
  // The geometry comment, signature and body of the kernel; fills `launch`.
  std::string emit(const std::string &symbol, KernelLaunch &launch);

private:
  // How the kernel reaches a data variable: a named pointer to `type` elements in an address
  // space ("__global ", "__local ", "" for private), or an image.
  struct Pointer {
    std::string name;
    DataType type;
    std::string space;
    bool readOnly = false;
    bool image = false;
  };

  // ---- names and lines (kernel_emitter.cpp)
  std::string bind(const void *object, std::string_view hint);
  const std::string &nameOf(const VarNode *var, SourceRange where);
  void line(const std::string &text);
  // Declares `const T tl_N = value;` before the statement being written; returns tl_N.
  std::string temp(DataType type, const std::string &value, SourceRange where);
  [[noreturn]] void fail(SourceRange where, const std::string &message) const;

  // ---- statements (kernel_emitter.cpp)
  std::string signature(const std::string &symbol, KernelLaunch &launch);
  void emitStmt(const Stmt &s);
  void visitBlock(const BlockNode *op) override;
  void visitSeqStmt(const SeqStmtNode *op) override;
  void visitFor(const ForNode *op) override;
  void visitWhile(const WhileNode *op) override;
  void visitIfThenElse(const IfThenElseNode *op) override;
  void visitLetStmt(const LetStmtNode *op) override;
  void visitAllocate(const AllocateNode *op) override;
  void visitAllocBuffer(const AllocBufferNode *op) override;
  void visitDeclBuffer(const DeclBufferNode *op) override;
  void visitAttrStmt(const AttrStmtNode *op) override;
  void visitAssertStmt(const AssertStmtNode *op) override;
  void visitEvaluate(const EvaluateNode *op) override;
  void emitThreadIndex(const VarNode *var, std::string_view tag, const Expr &min, const Expr &extent, const Stmt &body,
                       SourceRange where);
  void declareStorage(const VarNode *data, DataType type, const std::vector<Expr> &extents, Symbol scope,
                      SourceRange where);
  void block(const Stmt &body);

  // ---- expressions (expr_emitter.cpp)
  std::string expr(const Expr &e);
  // expr() without the parentheses around the whole text, for statement-level positions.
  std::string bare(const Expr &e);
  std::string visitVar(const VarNode *op) override;
  std::string visitIntImm(const IntImmNode *op) override;
  std::string visitFloatImm(const FloatImmNode *op) override;
  std::string visitStringImm(const StringImmNode *op) override;
  std::string visitNot(const NotNode *op) override;
  std::string visitSelect(const SelectNode *op) override;
  std::string visitBroadcast(const BroadcastNode *op) override;
  std::string visitLet(const LetNode *op) override;
  std::string visitBinary(const BinaryNode *op) override;
  std::string visitRamp(const RampNode *op) override;
  // Signed +, -, * that may overflow, computed in the unsigned type of its width and
  // reinterpreted (as_int(as_uint(a) + as_uint(b))): it wraps like TIR's, where OpenCL C, like
  // C, leaves signed overflow undefined.
  std::string wrapping(const BinaryNode *op);
  // A signed integer value as the unsigned type of its width: a literal for a constant, the
  // unsigned form of a wrapping operation, else as_uintN(value).
  std::string unsignedText(const Expr &e);
  std::string visitCast(const CastNode *op) override;
  std::string visitCall(const CallNode *op) override;
  std::string bitwise(const CallNode *op);
  std::string select(const Expr &condition, const Expr &trueValue, const Expr &falseValue, SourceRange where);
  std::string typeName(DataType type, SourceRange where);

  // ---- memory (memory_access.cpp)
  const Pointer &pointerOf(const Buffer &buffer, SourceRange where);
  void checkRank(const BufferNode &buffer, SourceRange where);
  Expr physicalIndex(const BufferNode &buffer, const Expr &index);
  std::vector<std::string> laneIndices(const Expr &index);
  std::string visitBufferLoad(const BufferLoadNode *op) override; // memory_access.cpp
  void visitBufferStore(const BufferStoreNode *op) override;
  std::string imageLoad(const BufferLoadNode *op, const Pointer &image);
  void imageStore(const BufferStoreNode *op, const Pointer &image);
  std::string texel(const Pointer &image, const std::string &x, const Expr &row);

  const PrimFuncNode &func_;
  OpenCLSupport &support_;
  KernelCensus census_;
  std::unordered_map<const void *, std::string> names_;
  std::unordered_set<std::string> taken_;
  std::unordered_map<const VarNode *, Pointer> data_;       // by data variable
  std::unordered_map<const BufferNode *, Pointer> buffers_; // resolved accesses
  IntRanges ranges_;                                        // bounds of loop, thread and let variables
  Pointer scratch_;                                         // a private view, valid until the next pointerOf()
  std::string body_, localDecls_, prologue_;
  int indent_ = 1;
  int temps_ = 0;
  int asserts_ = 0;
};

} // namespace tirlower
