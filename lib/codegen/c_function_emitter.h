// One C function's traversal, a CFamilyEmitter that appends the function's text to the caller's
// buffer. The signature and statements are in c_emitter.cpp, expressions in c_expr_emitter.cpp,
// buffer accesses and storage in c_memory_access.cpp. Buffers are pointers to their scalar
// element type; vector values use the typedefs and helpers of CSupport.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "codegen/c_emitter.h"
#include "codegen/c_family_emitter.h"
#include "codegen/c_support.h"

namespace tirlower {

class CFunctionEmitter final : private CFamilyEmitter {
public:
  CFunctionEmitter(const PrimFuncNode &func, CSupport &support, const CEmitOptions &options, std::string &out);
  // Appends the function's parameter comment and definition under the C symbol `symbol`.
  void emit(const std::string &symbol);

private:
  // ---- the language (c_emitter.cpp)
  [[noreturn]] void fail(SourceRange where, const std::string &message) const override;
  bool isReservedName(const std::string &name) const override { return isReservedCName(name); }
  std::string typeName(DataType type, SourceRange) override { return std::string(support_.typeName(type)); }

  // ---- statements (c_emitter.cpp)
  void visitWhile(const WhileNode *op) override;
  void visitAssertStmt(const AssertStmtNode *op) override;
  void visitFor(const ForNode *op) override;

  // ---- expressions (c_expr_emitter.cpp)
  void visitIntImm(const IntImmNode *op, int, bool) override;
  void visitFloatImm(const FloatImmNode *op, int, bool) override;
  void visitStringImm(const StringImmNode *op, int, bool) override;
  void visitNot(const NotNode *op, int, bool) override;
  void vectorSelect(const Expr &condition, const Expr &trueValue, const Expr &falseValue, SourceRange where) override;
  void ternaryArm(const Expr &arm) override;
  void visitCast(const CastNode *op, int, bool) override;
  void visitRamp(const RampNode *op, int, bool) override;
  void visitBroadcast(const BroadcastNode *op, int, bool) override;
  void visitLet(const LetNode *op, int, bool) override;
  void visitBinary(const BinaryNode *op, int parent, bool right) override;
  void bfloat16Binary(const BinaryNode *op);
  // fn(a, b) of the operands of `op`.
  void call2(std::string_view fn, const BinaryNode *op);
  void infix(const BinaryNode *op, BinaryOp kind, int parent, bool right);
  void floatFloorDiv(const BinaryNode *op);
  void floatFloorMod(const BinaryNode *op);
  void visitCall(const CallNode *op, int parent, bool right) override;
  // fn(arg), or (arg) for an empty fn.
  void call1(std::string_view fn, const Expr &arg);
  void externCall(const CallNode *op);
  void bitwiseNot(const CallNode *op);
  // The arguments of `op` from `from` on, separated by ", ".
  void arguments(const CallNode *op, size_t from);
  void bitwise(const CallNode *op, std::string_view text);

  // ---- buffers and storage (c_memory_access.cpp)
  // The C pointer through which `buffer` is accessed, checking that C can express it.
  const std::string &pointerOf(const Buffer &buffer, SourceRange where);
  bool isParamData(const VarNode *data) const;
  // Buffers must be 1-d even when nothing accesses them yet.
  void pointerCheck(const Buffer &buffer, SourceRange where);
  void checkDeclaredBuffer(const Buffer &buffer, SourceRange where) override;
  void declareStorage(const VarNode *data, DataType type, const std::vector<Expr> &extents, Symbol scope,
                      SourceRange where) override;
  void offsetText(const BufferNode &buffer, std::string_view index);
  void visitBufferStore(const BufferStoreNode *op) override;
  void visitBufferLoad(const BufferLoadNode *op, int, bool) override;

  CSupport &support_;
  const CEmitOptions &options_;
  std::unordered_map<const BufferNode *, std::string> pointer_;
  std::unordered_map<const VarNode *, DataType> dataType_;
  bool inParallel_ = false;
};

} // namespace tirlower
