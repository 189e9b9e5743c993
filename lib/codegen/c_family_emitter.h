// The base of the C-family function emitters (C in c_function_emitter.h, OpenCL C in
// opencl/kernel_emitter.h), in the manner of a CodeGenC that CodeGenOpenCL derives from. It owns
// what the two languages write alike: the names of the function's variables, lines and
// indentation, blocks, the access census, the bounds of integer variables, the statements whose
// C text is the same in both (sequences, ifs, lets, serial loops, attributes, evaluations,
// allocation scopes), the conditional expression, and the decision of how a binary operation is
// written (BinaryForm). The derived emitters supply types, literals, memory accesses, thread
// indices, the signature and the spelling of each binary form.
#pragma once

#include <deque>
#include <string>
#include <string_view>
#include <utility>
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

// Expressions are ExprFunctor methods that append their text to out() with `parent`, the C
// precedence of the enclosing operator (cPrecedence), and `right`, whether this is its right
// operand. The C emitter parenthesises by precedence; the OpenCL emitter parenthesises every
// operation and ignores both. Text is appended to one buffer, `body`, the caller's: a statement
// opens a line (beginLine), writes its text and the expressions in it straight into the buffer,
// and closes it (endLine); a whole line written while one is open (a declaration an expression
// needs, line()) goes before the open line.
class CFamilyEmitter : protected StmtFunctor<void(const Stmt &)>, protected ExprFunctor<void(const Expr &, int, bool)> {
protected:
  CFamilyEmitter(const PrimFuncNode &func, AccessCensus access, std::string &body);
  ~CFamilyEmitter() override = default;

  // ---- what the language supplies -------------------------------------------------------------
  // Throws CompileError at `where` for IR the language cannot express, naming the emitter.
  [[noreturn]] virtual void fail(SourceRange where, const std::string &message) const = 0;
  // The language's reserved names (keywords, library functions) that a variable may not take.
  virtual bool isReservedName(const std::string &name) const = 0;
  // The spelling of a value type.
  virtual std::string typeName(DataType type, SourceRange where) = 0;
  // A conditional of vector condition, lane by lane.
  virtual void vectorSelect(const Expr &condition, const Expr &trueValue, const Expr &falseValue,
                            SourceRange where) = 0;
  // An expression in a position that needs no parentheses around it (a condition, a statement).
  virtual void statementExpr(const Expr &e) { expr(e); }
  // Declares the storage of an allocation (nothing is released when its body ends: C's large
  // storage is kept per thread, OpenCL's is static).
  virtual void declareStorage(const VarNode *data, DataType type, const std::vector<Expr> &extents, Symbol scope,
                              SourceRange where) = 0;
  // Checks that the language can hold a buffer an AllocBuffer or DeclBuffer declares.
  virtual void checkDeclaredBuffer(const Buffer &buffer, SourceRange where) = 0;

  // ---- names and lines ------------------------------------------------------------------------
  // A fresh identifier for `object` from `hint`, unique in the function and not reserved.
  const std::string &bind(const void *object, std::string_view hint);
  const std::string &nameOf(const VarNode *var, SourceRange where);
  // Keeps `name` (one of the emitter's own) from being bound.
  void reserveName(const std::string &name) { take(name, nullptr); }
  // A whole line at the current indentation; while a line is open, it goes before that line.
  void line(std::string_view text);
  // Opens a line at the current indentation: out() appends to it until endLine().
  void beginLine();
  void endLine();
  // Where text is being written: the open line, or the buffer of exprText().
  std::string &out() { return *out_; }
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
  // Appends the text of `e` to out().
  void expr(const Expr &e, int parent = 0, bool right = false) { visitExpr(e, parent, right); }
  // The text of `e` on its own (for text written twice, or after what is written later).
  std::string exprText(const Expr &e, int parent = 0, bool right = false);
  // A statement's value written before the text that precedes it on its line (for the names it
  // binds): into valueText_, which the statement must use up before its body or next statement.
  const std::string &statementValue(const Expr &e, bool statementPosition);
  void visitVar(const VarNode *op, int, bool) override;
  void visitSelect(const SelectNode *op, int, bool) override;
  // `(c ? t : f)` of a scalar condition (the operands written in order).
  void ternary(const Expr &condition, const Expr &trueValue, const Expr &falseValue);
  // ternary() or, for a vector condition, vectorSelect().
  void conditional(const Expr &condition, const Expr &trueValue, const Expr &falseValue, SourceRange where);
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
  std::string &body_; // the caller's buffer: the function's text is appended to it
  int indent_ = 1;
  // An unused let of a constant value writes nothing (OpenCL), or `(void)(value);` (C).
  bool dropUnusedConstantLets_ = false;

private:
  void allocation(const VarNode *data, DataType type, const std::vector<Expr> &extents, Symbol scope, SourceRange where,
                  const Stmt &body);

  // The function's names: every name bound or reserved, in the order taken (a deque: references
  // to them stay valid), and two open-addressing tables over them, by object and by name. A
  // function has few names, and the name of a variable is looked up wherever it is used.
  const std::string *boundName(const void *object) const;
  bool isTaken(std::string_view name) const;
  const std::string &take(std::string name, const void *object);
  std::deque<std::string> strings_;
  std::vector<std::pair<const void *, uint32_t>> byObject_; // {object, index in strings_}
  std::vector<uint32_t> byName_;                            // 1 + index in strings_; 0 when free
  size_t objectCount_ = 0;
  std::string *out_;      // body_, or the buffer of an exprText()
  std::string valueText_; // statementValue()
  size_t lineStart_ = 0;  // where the open line starts in body_
  bool lineOpen_ = false;
};

} // namespace tirlower
