// The base of the C-family function emitters (C in c_function_emitter.h, OpenCL C in
// opencl/kernel_emitter.h), in the manner of a CodeGenC that CodeGenOpenCL derives from. It owns
// what the two languages write alike: the names of the function's variables, lines and
// indentation, blocks, the access census, the bounds of integer variables, the statements whose
// C text is the same in both (sequences, ifs, lets, serial loops, attributes, evaluations,
// allocation scopes), the conditional expression, and the decision of how a binary operation is
// written (BinaryForm). The derived emitters supply types, literals, memory accesses, thread
// indices, the signature and the spelling of each binary form.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "codegen/c_family.h"
#include "ir/access_census.h"
#include "ir/function.h"
#include "ir/functor.h"

namespace tirlower {

// How a C-family emitter writes a binary operation, decided once for both languages
// (CFamilyEmitter::binaryForm).
enum class BinaryForm {
  Infix,    // the C operator of BinaryPlan::op (unsigned floordiv/floormod are / and %)
  Floor,    // signed integer or float floordiv/floormod: a helper (or floor() on a float)
  MinMax,   // min or max
  FloatMod, // % of floats: fmod
  Trunc,    // signed integer / or % whose divisor may be -1 (MIN / -1 is undefined in C)
  Wrapping, // signed +, -, * that may overflow: computed in the unsigned type of its width
};

struct BinaryPlan {
  BinaryForm form;
  BinaryOp op; // for Infix and Wrapping: the operator written
};

// Expressions are ExprFunctor methods returning their text with `parent`, the C precedence of
// the enclosing operator (cPrecedence), and `right`, whether this is its right operand. The C
// emitter parenthesises by precedence; the OpenCL emitter parenthesises every operation and
// ignores both.
class CFamilyEmitter : protected StmtFunctor<void(const Stmt &)>,
                       protected ExprFunctor<std::string(const Expr &, int, bool)> {
protected:
  CFamilyEmitter(const PrimFuncNode &func, AccessCensus access);
  ~CFamilyEmitter() override = default;

  // ---- what the language supplies -------------------------------------------------------------
  // Throws CompileError at `where` for IR the language cannot express, naming the emitter.
  [[noreturn]] virtual void fail(SourceRange where, const std::string &message) const = 0;
  // The language's reserved names (keywords, library functions) that a variable may not take.
  virtual bool isReservedName(const std::string &name) const = 0;
  // The spelling of a value type.
  virtual std::string typeName(DataType type, SourceRange where) = 0;
  // A conditional of vector condition, lane by lane.
  virtual std::string vectorSelect(const Expr &condition, const Expr &trueValue, const Expr &falseValue,
                                   SourceRange where) = 0;
  // An expression in a position that needs no parentheses around it (a condition, a statement).
  virtual std::string statementExpr(const Expr &e) { return expr(e); }
  // Declares the storage of an allocation; releaseStorage(mark) frees what was declared since
  // storageMark() when the allocation's body ends (C's heap storage; OpenCL's is static).
  virtual void declareStorage(const VarNode *data, DataType type, const std::vector<Expr> &extents, Symbol scope,
                              SourceRange where) = 0;
  virtual size_t storageMark() const { return 0; }
  virtual void releaseStorage(size_t /*mark*/) {}
  // Checks that the language can hold a buffer an AllocBuffer or DeclBuffer declares.
  virtual void checkDeclaredBuffer(const Buffer &buffer, SourceRange where) = 0;

  // ---- names and lines ------------------------------------------------------------------------
  // A fresh identifier for `object` from `hint`, unique in the function and not reserved.
  std::string bind(const void *object, std::string_view hint);
  const std::string &nameOf(const VarNode *var, SourceRange where);
  // Keeps `name` (one of the emitter's own) from being bound.
  void reserveName(const std::string &name) { taken_.insert(name); }
  void line(const std::string &text);
  void block(const Stmt &body); // one level deeper
  // Whether the function's pointer parameters may be declared restrict (attribute tir.noalias).
  bool noalias() const;

  // ---- statements -----------------------------------------------------------------------------
  void emitStmt(const Stmt &s) { visitStmt(s); }
  void visitBlock(const BlockNode *op) override;
  void visitSeqStmt(const SeqStmtNode *op) override;
  void visitIfThenElse(const IfThenElseNode *op) override;
  void visitLetStmt(const LetStmtNode *op) override;
  void visitAllocate(const AllocateNode *op) override;
  void visitAllocBuffer(const AllocBufferNode *op) override;
  void visitDeclBuffer(const DeclBufferNode *op) override;
  void visitAttrStmt(const AttrStmtNode *op) override;
  // Constants and T.assume emit nothing; other values are evaluated for their effects.
  void visitEvaluate(const EvaluateNode *op) override;
  // A serial loop `for (T i = min; i < min + extent; ++i)`, the variable bounded in its body.
  void emitLoop(const ForNode *op);

  // ---- expressions ----------------------------------------------------------------------------
  std::string expr(const Expr &e, int parent = 0, bool right = false) { return visitExpr(e, parent, right); }
  std::string visitVar(const VarNode *op, int, bool) override;
  std::string visitSelect(const SelectNode *op, int, bool) override;
  // `(c ? t : f)` of a scalar condition (the operands written in order).
  std::string ternary(const Expr &condition, const Expr &trueValue, const Expr &falseValue);
  // ternary() or, for a vector condition, vectorSelect().
  std::string conditional(const Expr &condition, const Expr &trueValue, const Expr &falseValue, SourceRange where);
  // The form of a binary operation on `op->a->type`: what both languages leave undefined or
  // spell as calls (floor division, min/max, float modulo, division by -1, signed overflow).
  BinaryPlan binaryForm(const BinaryNode *op) const;
  // Whether the value of a scalar integer expression is provably >= 0 from the bounds in scope.
  bool provablyNonNegative(const Expr &e) const;

  const PrimFuncNode &func_;
  AccessCensus access_;
  IntRanges ranges_; // loop, thread and let variables with known bounds
  // Data variables whose stores are non-temporal here (`T.attr(B.data, "nontemporal_store", 1)`
  // around the statement, from tile-copies): a hint the C emitter honours for vector stores.
  std::vector<const VarNode *> streaming_;
  std::string body_;
  int indent_ = 1;
  // An unused let of a constant value writes nothing (OpenCL), or `(void)(value);` (C).
  bool dropUnusedConstantLets_ = false;

private:
  void allocation(const VarNode *data, DataType type, const std::vector<Expr> &extents, Symbol scope, SourceRange where,
                  const Stmt &body);

  std::unordered_map<const void *, std::string> names_;
  std::unordered_set<std::string> taken_;
};

} // namespace tirlower
