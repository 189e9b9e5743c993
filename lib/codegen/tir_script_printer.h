// The TVMScript printer behind tir_printer.h: one pass over the IR appending to one string.
// Names are handed out as objects are defined (parameters first, then the body in text
// order); in plain mode every object prints by its own name (for diagnostics).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "codegen/tir_names.h"
#include "ir/function.h"
#include "ir/functor.h"

namespace tirlower {

// One method per node kind: statements through StmtFunctor (returning the statement to print
// next at the same level, so declaration chains print without recursion), expressions through
// ExprFunctor (the node's text, without the parentheses its context may need).
class ScriptPrinter : private StmtFunctor<const StmtNode *(const Stmt &, bool)>,
                      private ExprFunctor<void(const Expr &)> {
public:
  // `respellAttrs`: TVM's namespaced function attributes are written in `spelling`'s namespace
  // (a spelling the user asked for), not as the input wrote them.
  explicit ScriptPrinter(bool plainNames, ScriptSpelling spelling = ScriptSpelling::Tir, bool respellAttrs = false)
      : plain_(plainNames), tirx_(spelling == ScriptSpelling::Tirx), respellAttrs_(respellAttrs) {}

  std::string take() { return std::move(out_); }
  void reserve(size_t bytes) { out_.reserve(bytes); }

  void printModule(const Module &module);
  void printFunction(const PrimFuncNode &function);
  void printStmt(const Stmt &stmt);
  void printExpr(const Expr &expr);
  void printIndexMap(const IndexMapNode &map);

private:
  // ---- a function's head (tir_script_printer.cpp) ----
  const BufferNode *simpleBufferOf(const Var &param) const;
  void printSignature(const PrimFuncNode &function);
  void printMatchBuffers(const PrimFuncNode &function);
  void printParamTransforms(const PrimFuncNode &function);

  // ---- names (tir_script_printer.cpp) ----
  void resetNames();
  std::string_view defineVar(const VarNode *var);
  std::string_view defineBuffer(const BufferNode *buffer);
  // Binding sites (loops, lets, allocations, buffer declarations): an object bound a second
  // time gets a fresh name, so the text names each binding once and reparses to distinct
  // objects that print the same way again.
  std::string_view bindVar(const VarNode *var);
  std::string_view bindBuffer(const BufferNode *buffer);
  // A parameter or match_buffer defines its data variable (`A.data`) unless something defined
  // it earlier; an allocating declaration always does.
  void defineDataVar(const BufferNode *buffer, std::string_view bufferName, bool allocates = false);
  // The name a reference prints: a lambda parameter's, else the object's (defined on first use).
  std::string_view varName(const VarNode *var) {
    if (lambdaNames_.empty() && !plain_)
      if (std::string_view name = printed_.find(var); !name.empty())
        return name;
    return lambdaOrDefinedName(var);
  }
  std::string_view lambdaOrDefinedName(const VarNode *var);
  std::string_view bufferName(const BufferNode *buffer) { return defineBuffer(buffer); }

  // ---- statements and functions (tir_script_printer.cpp) ----
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

  // ---- expressions (tir_print_expr.cpp) ----
  // `expr` in a context of precedence `context`; parenthesized when it binds less tightly (or
  // as tightly, with parenthesizeEqual).
  void printExprPrec(const ExprNode *expr, int context, bool parenthesizeEqual);
  // printExprPrec for the other kinds than variables and int32 literals.
  void printCompoundExpr(const ExprNode *expr, int context, bool parenthesizeEqual);
  void visitVar(const VarNode *node) override;
  void visitIntImm(const IntImmNode *node) override;
  void visitFloatImm(const FloatImmNode *node) override;
  void visitStringImm(const StringImmNode *node) override;
  void visitBinary(const BinaryNode *node) override;
  void visitNot(const NotNode *node) override;
  void visitSelect(const SelectNode *node) override;
  void visitCast(const CastNode *node) override;
  void visitRamp(const RampNode *node) override;
  void printLanes(DataType type, int lanes);
  void visitBroadcast(const BroadcastNode *node) override;
  void visitLet(const LetNode *node) override;
  void visitCall(const CallNode *node) override;
  void visitBufferLoad(const BufferLoadNode *node) override;
  void printCallArgs(const std::vector<Expr> &args);
  void printExprList(const std::vector<Expr> &exprs);
  // (16,) (16, 64) (); `declared`: of a buffer declaration, whose unprinted variables it binds.
  void printShape(const std::vector<Expr> &shape, bool declared = false);
  // A variable a buffer declaration binds (a matched buffer's `strides=("As_0", "As_1")`, the
  // region's strides) prints quoted, as TVM prints it, where nothing printed it before.
  void printDeclared(const Expr &e);
  void printIntLiteral(DataType type, int64_t value);
  void printAccess(const BufferNode *buffer, const std::vector<Expr> &indices);

  bool plain_;
  bool tirx_; // TVM 0.25-0.27's spelling (ScriptSpelling::Tirx)
  bool respellAttrs_;
  int indent_ = 0;
  std::string out_;
  NameTable names_;
  IdentityNames printed_;
  StringArena dataNames_; // `A.data`
  // Names of the parameters of the lambda being printed; they shadow the function's names.
  NameTable lambdaTable_;
  std::vector<std::pair<const VarNode *, std::string_view>> lambdaNames_;
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

// Precedence levels of printed expressions, loosest first (Python's order).
enum ExprPrecedence : int {
  kPrecOr = 1,
  kPrecAnd,
  kPrecNot,
  kPrecCompare,
  kPrecBitOr,
  kPrecBitXor,
  kPrecBitAnd,
  kPrecShift,
  kPrecAdd,
  kPrecMul,
  kPrecUnary,
  kPrecAtom,
};
int exprPrecedence(const ExprNode *expr);

// For each bufferMap[k], whether it prints as `A: T.Buffer(shape, dtype)` in the signature: its
// data is the parameter itself, every field has its default, its shape uses only earlier
// parameters, and no other binding shares the parameter or the data. Otherwise the parameter is
// `a: T.handle` plus `T.match_buffer`. Linear in the number of parameters and bindings.
std::vector<bool> simpleBufferParams(const PrimFuncNode &function);

} // namespace tirlower
