// One kernel's traversal, a CFamilyEmitter (codegen/c_family_emitter.h), which writes the
// statements OpenCL C shares with C. Statements, thread indices and the signature are in
// kernel_emitter.cpp, expressions in expr_emitter.cpp, buffer and image accesses in
// memory_access.cpp.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "codegen/c_family_emitter.h"
#include "codegen/opencl/kernel_census.h"
#include "codegen/opencl/opencl_emitter.h"
#include "codegen/opencl/opencl_support.h"

namespace tirlower {

// The kernel's statements, written before the declarations they need are known (constructed
// before CFamilyEmitter, which appends to it).
struct KernelText {
  std::string text_;
};

// Every operation is parenthesised: expressions ignore the precedence arguments of
// CFamilyEmitter.
class KernelEmitter final : private KernelText, private CFamilyEmitter {
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

  // ---- the language and lines (kernel_emitter.cpp)
  bool isReservedName(const std::string &name) const override { return isReservedOpenCLName(name); }
  // Declares `const T tl_N = value;` before the statement being written; returns tl_N.
  std::string temp(DataType type, const std::string &value, SourceRange where);
  [[noreturn]] void fail(SourceRange where, const std::string &message) const override;

  // ---- statements (kernel_emitter.cpp)
  std::string signature(const std::string &symbol, KernelLaunch &launch);
  std::string launchComment(const KernelLaunch &launch) const;
  void visitFor(const ForNode *op) override;
  void visitWhile(const WhileNode *op) override;
  void visitIfThenElse(const IfThenElseNode *op) override;
  void visitAttrStmt(const AttrStmtNode *op) override;
  void visitAssertStmt(const AssertStmtNode *op) override;
  void visitEvaluate(const EvaluateNode *op) override;
  void emitThreadIndex(const VarNode *var, std::string_view tag, const Expr &min, const Expr &extent, const Stmt &body,
                       SourceRange where);
  void declareStorage(const VarNode *data, DataType type, const std::vector<Expr> &extents, Symbol scope,
                      SourceRange where) override;

  // ---- expressions (expr_emitter.cpp)
  // Appends text to out().
  void put(const std::string &text) { out() += text; }
  // exprText() without the parentheses around the whole text, for statement-level positions.
  std::string bare(const Expr &e);
  void statementExpr(const Expr &e) override { put(bare(e)); }
  void visitIntImm(const IntImmNode *op, int, bool) override;
  void visitFloatImm(const FloatImmNode *op, int, bool) override;
  void visitStringImm(const StringImmNode *op, int, bool) override;
  void visitNot(const NotNode *op, int, bool) override;
  void visitBroadcast(const BroadcastNode *op, int, bool) override;
  void visitLet(const LetNode *op, int, bool) override;
  void visitBinary(const BinaryNode *op, int, bool) override;
  std::string infix(const BinaryNode *op, BinaryOp kind);
  void visitRamp(const RampNode *op, int, bool) override;
  // Signed +, -, * that may overflow, computed in the unsigned type of its width and
  // reinterpreted (as_int(as_uint(a) + as_uint(b))): it wraps like TIR's, where OpenCL C, like
  // C, leaves signed overflow undefined.
  std::string wrapping(const BinaryNode *op);
  // A signed integer value as the unsigned type of its width: a literal for a constant, the
  // unsigned form of a wrapping operation, else as_uintN(value).
  std::string unsignedText(const Expr &e);
  void visitCast(const CastNode *op, int, bool) override;
  void visitCall(const CallNode *op, int, bool) override;
  std::string bitwise(const CallNode *op);
  // A warp shuffle or T.tvm_warp_activemask as a sub-group function (docs/opencl-emitter.md).
  void warpCall(const CallNode *op);
  // `if (get_max_sub_group_size() != N)`: assert 1 of a kernel with warp intrinsics, which needs
  // sub-groups of the warp's size; empty for other kernels.
  std::string subgroupCheck();
  // select(f, t, mask) with the mask as wide as the values' lanes.
  void vectorSelect(const Expr &condition, const Expr &trueValue, const Expr &falseValue, SourceRange where) override;
  std::string typeName(DataType type, SourceRange where) override;

  // ---- memory (memory_access.cpp)
  const Pointer &pointerOf(const Buffer &buffer, SourceRange where);
  void checkRank(const BufferNode &buffer, SourceRange where);
  void checkDeclaredBuffer(const Buffer &buffer, SourceRange where) override { checkRank(*buffer, where); }
  Expr physicalIndex(const BufferNode &buffer, const Expr &index);
  std::vector<std::string> laneIndices(const Expr &index);
  void visitBufferLoad(const BufferLoadNode *op, int, bool) override;
  void visitBufferStore(const BufferStoreNode *op) override;
  std::string imageLoad(const BufferLoadNode *op, const Pointer &image);
  void imageStore(const BufferStoreNode *op, const Pointer &image);
  std::string texel(const Pointer &image, const std::string &x, const Expr &row);

  OpenCLSupport &support_;
  KernelCensus census_;
  std::unordered_map<const VarNode *, Pointer> data_;       // by data variable
  std::unordered_map<const BufferNode *, Pointer> buffers_; // resolved accesses
  Pointer scratch_;                                         // a private view, valid until the next pointerOf()
  std::string localDecls_, prologue_;
  int temps_ = 0;
  int asserts_ = 0;
};

} // namespace tirlower
