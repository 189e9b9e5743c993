// One C function's traversal, a CFamilyEmitter. The signature and statements are in
// c_emitter.cpp, expressions in c_expr_emitter.cpp, buffer accesses and storage in
// c_memory_access.cpp. Buffers are pointers to their scalar element type; vector values use the
// typedefs and helpers of CSupport.
#pragma once

#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "codegen/c_emitter.h"
#include "codegen/c_family_emitter.h"
#include "codegen/c_support.h"

namespace tirlower {

class CFunctionEmitter final : private CFamilyEmitter {
public:
  CFunctionEmitter(const PrimFuncNode &func, CSupport &support, const CEmitOptions &options,
                   std::set<std::string> &externs);
  // The function's definition under the C symbol `symbol`.
  std::string emit(const std::string &symbol);
  // What the function reads, writes and uses (T.assume not counted), for its parameter comment.
  const AccessCensus &census() const { return access_; }

private:
  // ---- the language (c_emitter.cpp)
  [[noreturn]] void fail(SourceRange where, const std::string &message) const override;
  bool isReservedName(const std::string &name) const override { return isReservedCName(name); }
  std::string typeName(DataType type, SourceRange) override { return support_.typeName(type); }

  // ---- statements (c_emitter.cpp)
  void visitWhile(const WhileNode *op) override;
  void visitAssertStmt(const AssertStmtNode *op) override;
  void visitFor(const ForNode *op) override;

  // ---- expressions (c_expr_emitter.cpp)
  std::string visitIntImm(const IntImmNode *op, int, bool) override;
  std::string visitFloatImm(const FloatImmNode *op, int, bool) override;
  std::string visitStringImm(const StringImmNode *op, int, bool) override;
  std::string visitNot(const NotNode *op, int, bool) override;
  std::string vectorSelect(const Expr &condition, const Expr &trueValue, const Expr &falseValue,
                           SourceRange where) override;
  std::string visitCast(const CastNode *op, int, bool) override;
  std::string visitRamp(const RampNode *op, int, bool) override;
  std::string visitBroadcast(const BroadcastNode *op, int, bool) override;
  std::string visitLet(const LetNode *op, int, bool) override;
  std::string visitBinary(const BinaryNode *op, int parent, bool right) override;
  std::string infix(const BinaryNode *op, BinaryOp kind, int parent, bool right);
  std::string floatFloorDiv(const BinaryNode *op);
  std::string floatFloorMod(const BinaryNode *op);
  std::string visitCall(const CallNode *op, int parent, bool right) override;
  std::string bitwise(const CallNode *op, std::string_view text);

  // ---- buffers and storage (c_memory_access.cpp)
  // The C pointer through which `buffer` is accessed, checking that C can express it.
  const std::string &pointerOf(const Buffer &buffer, SourceRange where);
  bool isParamData(const VarNode *data) const;
  // Buffers must be 1-d even when nothing accesses them yet.
  void pointerCheck(const Buffer &buffer, SourceRange where);
  void checkDeclaredBuffer(const Buffer &buffer, SourceRange where) override;
  void declareStorage(const VarNode *data, DataType type, const std::vector<Expr> &extents, Symbol scope,
                      SourceRange where) override;
  size_t storageMark() const override { return heap_.size(); }
  void releaseStorage(size_t mark) override;
  void freeHeap();
  std::string offsetText(const BufferNode &buffer, const std::string &index);
  void visitBufferStore(const BufferStoreNode *op) override;
  std::string visitBufferLoad(const BufferLoadNode *op, int, bool) override;

  CSupport &support_;
  const CEmitOptions &options_;
  std::set<std::string> &externs_;
  std::unordered_map<const BufferNode *, std::string> pointer_;
  std::unordered_map<const VarNode *, DataType> dataType_;
  std::vector<std::string> heap_; // the heap storage whose scope encloses the statement emitted
  bool inParallel_ = false;
};

} // namespace tirlower
