// The TVMScript text of expressions, shapes and index maps: the one formatter that the printer
// (codegen/tir_script_printer.h, which adds statements and functions) and the messages of every
// layer (formatExpr and its kin below) share, so that a message quotes an expression exactly as
// --emit=tir prints it. Names are handed out as objects are defined; in plain mode every object
// prints by its own name (for diagnostics).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/function.h"
#include "ir/functor.h"
#include "ir/script_names.h"

namespace tirlower {

// Expressions through ExprFunctor: one method per node kind, the node's text without the
// parentheses its context may need (printExprPrec adds those).
class ScriptExprPrinter : private ExprFunctor<void(const Expr &)> {
public:
  explicit ScriptExprPrinter(bool plainNames) : plain_(plainNames) {}

  std::string take() { return std::move(out_); }
  void reserve(size_t bytes) { out_.reserve(bytes); }

  void printExpr(const Expr &expr);
  void printIndexMap(const IndexMapNode &map); // lambda i, j: [j, i]
  // (16,) (16, 64) (); `declared`: of a buffer declaration, whose unprinted variables it binds.
  void printShape(const std::vector<Expr> &shape, bool declared = false);
  // A variable a buffer declaration binds (a matched buffer's `strides=("As_0", "As_1")`, the
  // region's strides) prints quoted, as TVM prints it, where nothing printed it before.
  void printDeclared(const Expr &e);

protected:
  // ---- names ----
  // Forgets the names of the function printed before.
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
  // Whether `var` has a name yet (always false in plain mode, where names are not recorded).
  bool isNamed(const VarNode *var) const { return !printed_.find(var).empty(); }
  // Opens the parameters of a lambda (an index map's, a reducer's): they get names of their own,
  // which shadow whatever the function prints for the same objects until endLambda().
  void beginLambda();
  std::string_view lambdaParam(const VarNode *var);
  void endLambda() { lambdaNames_.clear(); }

  // ---- expressions ----
  // `expr` in a context of precedence `context`; parenthesized when it binds less tightly (or
  // as tightly, with parenthesizeEqual).
  void printExprPrec(const ExprNode *expr, int context, bool parenthesizeEqual);
  void printExprList(const std::vector<Expr> &exprs);
  void printIntLiteral(DataType type, int64_t value);
  void printAccess(const BufferNode *buffer, const std::vector<Expr> &indices);

  bool plain_;
  std::string out_;

private:
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

  NameTable names_;
  IdentityNames printed_;
  StringArena dataNames_; // `A.data`
  // Names of the parameters of the lambda being printed; they shadow the function's names.
  NameTable lambdaTable_;
  std::vector<std::pair<const VarNode *, std::string_view>> lambdaNames_;
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

// The text --emit=tir prints, with every object by its own name: for messages and tests.
std::string formatExpr(const Expr &expr);
std::string formatIndexMap(const IndexMapNode &map);
std::string formatShape(const std::vector<Expr> &shape);

} // namespace tirlower
