// The TVMScript printer behind tir_printer.h: one pass over the IR appending to one string.
// Names are handed out as objects are defined (parameters first, then the body in text
// order); in plain mode every object prints by its own name (for diagnostics). Expressions
// print through ir/script_expr_printer.h, which messages share.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/function.h"
#include "ir/functor.h"
#include "ir/script_expr_printer.h"

namespace tirlower {

// Statements through StmtFunctor, one method per node kind, returning the statement to print
// next at the same level (so declaration chains print without recursion); expressions, names
// and index maps through ScriptExprPrinter.
class ScriptPrinter : public ScriptExprPrinter, private StmtFunctor<const StmtNode *(const Stmt &, bool)> {
public:
  // `respellAttrs`: TVM's namespaced function attributes are written in `spelling`'s namespace
  // (a spelling the user asked for), not as the input wrote them.
  explicit ScriptPrinter(bool plainNames, ScriptSpelling spelling = ScriptSpelling::Tir, bool respellAttrs = false)
      : ScriptExprPrinter(plainNames), tirx_(spelling == ScriptSpelling::Tirx), respellAttrs_(respellAttrs) {}

  void printModule(const Module &module);
  void printFunction(const PrimFuncNode &function);
  void printStmt(const Stmt &stmt);

private:
  // ---- a function's head (tir_print_function.cpp) ----
  const BufferNode *simpleBufferOf(const Var &param) const;
  void printSignature(const PrimFuncNode &function);
  void printMatchBuffers(const PrimFuncNode &function);
  void printParamTransforms(const PrimFuncNode &function);

  // ---- statements (tir_print_stmt.cpp) and blocks (tir_print_block.cpp) ----
  void newline() { out_ += '\n'; }
  void indent() { out_.append(static_cast<size_t>(indent_) * 4, ' '); }
  void printBody(const Stmt &stmt); // one level deeper
  // `tail`: nothing follows the statement in its block, so a declaration-like attribute prints
  // in the concise form that scopes the rest of the block (as TVM prints it).
  void printStmtAt(const StmtNode *stmt, bool tail);
  const StmtNode *visitLetStmt(const LetStmtNode *node, bool tail) override;
  const StmtNode *visitAllocate(const AllocateNode *node, bool tail) override;
  const StmtNode *visitDeclBuffer(const DeclBufferNode *node, bool tail) override;
  const StmtNode *visitAllocBuffer(const AllocBufferNode *node, bool tail) override;
  const StmtNode *visitSeqStmt(const SeqStmtNode *node, bool tail) override;
  const StmtNode *visitBufferStore(const BufferStoreNode *node, bool tail) override;
  const StmtNode *visitFor(const ForNode *node, bool tail) override;
  const StmtNode *visitWhile(const WhileNode *node, bool tail) override;
  const StmtNode *visitIfThenElse(const IfThenElseNode *node, bool tail) override;
  const StmtNode *visitAttrStmt(const AttrStmtNode *node, bool tail) override;
  const StmtNode *visitAssertStmt(const AssertStmtNode *node, bool tail) override;
  const StmtNode *visitBlock(const BlockNode *node, bool tail) override;
  const StmtNode *visitEvaluate(const EvaluateNode *node, bool tail) override;
  // The line of an attribute (and the declaration of a variable it names before binding it);
  // `concise`: without `with` and `:`.
  void printAttr(const AttrStmtNode &attr, bool concise);
  void printReducer(const CommReducerNode &reducer);
  void printFor(const ForNode &loop);
  void printBlock(const BlockNode &block);
  void printIterVars(const BlockNode &block);
  void printRegion(const BufferRegion &region);
  void printBufferArgs(const BufferNode &buffer, std::optional<std::string_view> data);
  void printTypeAnnotation(const VarNode &var);
  void printLayoutTransform(const LayoutTransform &transform);
  // Prints the pending layout transforms of a buffer the body just declared.
  void printTransformsOf(const BufferNode *buffer);

  bool tirx_; // TVM 0.25-0.27's spelling (ScriptSpelling::Tirx)
  bool respellAttrs_;
  int indent_ = 0;
  // Layout transforms of buffers declared in the body: printed right after the declaration,
  // where the buffer's name is in scope.
  std::vector<const LayoutTransform *> pendingTransforms_;
  // Per bufferMap entry of the function being printed: its buffer when it prints inline in the
  // signature, else null (kept to reuse the memory).
  std::vector<const BufferNode *> simpleBuffers_;
  std::unordered_map<const VarNode *, const BufferNode *> simpleOfParam_;
  // Variables printed as `v = T.int32()` or `v = T.env_thread("threadIdx.x")`: named by an
  // attribute before a launch binds them, so the launch prints as `T.launch_thread(v, n)`.
  std::vector<const VarNode *> freeDeclared_;
  // The loops around the statement being printed (T.axis.remap takes their domains).
  std::vector<const ForNode *> loops_;
};

// For each bufferMap[k], whether it prints as `A: T.Buffer(shape, dtype)` in the signature: its
// data is the parameter itself, every field has its default, its shape uses only earlier
// parameters, and no other binding shares the parameter or the data. Otherwise the parameter is
// `a: T.handle` plus `T.match_buffer`. Linear in the number of parameters and bindings.
std::vector<bool> simpleBufferParams(const PrimFuncNode &function);

} // namespace tirlower
