// Typed functors: dispatch on a node's kind to one virtual method per node type, with a
// result type and extra arguments of the caller's choosing (in the spirit of TVM's
// ExprFunctor). Where IRVisitor walks and IRMutator rebuilds, a functor computes: a printer
// appends text, an emitter returns the code of an expression, an analysis returns a bound.
//
//   class Printer : public ExprFunctor<std::string(const Expr &, int)> {
//     std::string visitBinary(const BinaryNode *op, int precedence) override;
//     std::string visitExprDefault(const ExprNode *op, int precedence) override;
//   };
//
// Every node method defaults to visitExprDefault / visitStmtDefault, which throw: a functor
// overrides the nodes it handles and, when it handles the others alike, the default. This file
// holds the one switch over ExprKind and StmtKind that the rest of the compiler dispatches
// through (with the visitor and mutator in visitor.cpp).
#pragma once

#include <stdexcept>
#include <utility>

#include "ir/stmt.h"

namespace tirlower {

// The message of the default methods: a functor met a node kind it does not handle.
[[noreturn]] void throwUnhandledNode(const char *functor, const char *kind);

template <typename F> class ExprFunctor;

template <typename R, typename... Args> class ExprFunctor<R(const Expr &, Args...)> {
public:
  virtual ~ExprFunctor() = default;

  R visitExpr(const Expr &e, Args... args) { return visitExpr(e.get(), std::forward<Args>(args)...); }
  R visitExpr(const ExprNode *e, Args... args) {
    switch (e->kind()) {
    case ExprKind::Var: return visitVar(static_cast<const VarNode *>(e), std::forward<Args>(args)...);
    case ExprKind::IntImm: return visitIntImm(static_cast<const IntImmNode *>(e), std::forward<Args>(args)...);
    case ExprKind::FloatImm: return visitFloatImm(static_cast<const FloatImmNode *>(e), std::forward<Args>(args)...);
    case ExprKind::StringImm:
      return visitStringImm(static_cast<const StringImmNode *>(e), std::forward<Args>(args)...);
    case ExprKind::Binary: return visitBinary(static_cast<const BinaryNode *>(e), std::forward<Args>(args)...);
    case ExprKind::Not: return visitNot(static_cast<const NotNode *>(e), std::forward<Args>(args)...);
    case ExprKind::Select: return visitSelect(static_cast<const SelectNode *>(e), std::forward<Args>(args)...);
    case ExprKind::Cast: return visitCast(static_cast<const CastNode *>(e), std::forward<Args>(args)...);
    case ExprKind::Ramp: return visitRamp(static_cast<const RampNode *>(e), std::forward<Args>(args)...);
    case ExprKind::Broadcast:
      return visitBroadcast(static_cast<const BroadcastNode *>(e), std::forward<Args>(args)...);
    case ExprKind::Let: return visitLet(static_cast<const LetNode *>(e), std::forward<Args>(args)...);
    case ExprKind::Call: return visitCall(static_cast<const CallNode *>(e), std::forward<Args>(args)...);
    case ExprKind::BufferLoad:
      return visitBufferLoad(static_cast<const BufferLoadNode *>(e), std::forward<Args>(args)...);
    }
    throwUnhandledNode("ExprFunctor", "unknown");
  }

protected:
  virtual R visitVar(const VarNode *op, Args... args) { return visitExprDefault(op, std::forward<Args>(args)...); }
  virtual R visitIntImm(const IntImmNode *op, Args... args) { return visitExprDefault(op, std::forward<Args>(args)...); }
  virtual R visitFloatImm(const FloatImmNode *op, Args... args) {
    return visitExprDefault(op, std::forward<Args>(args)...);
  }
  virtual R visitStringImm(const StringImmNode *op, Args... args) {
    return visitExprDefault(op, std::forward<Args>(args)...);
  }
  virtual R visitBinary(const BinaryNode *op, Args... args) { return visitExprDefault(op, std::forward<Args>(args)...); }
  virtual R visitNot(const NotNode *op, Args... args) { return visitExprDefault(op, std::forward<Args>(args)...); }
  virtual R visitSelect(const SelectNode *op, Args... args) { return visitExprDefault(op, std::forward<Args>(args)...); }
  virtual R visitCast(const CastNode *op, Args... args) { return visitExprDefault(op, std::forward<Args>(args)...); }
  virtual R visitRamp(const RampNode *op, Args... args) { return visitExprDefault(op, std::forward<Args>(args)...); }
  virtual R visitBroadcast(const BroadcastNode *op, Args... args) {
    return visitExprDefault(op, std::forward<Args>(args)...);
  }
  virtual R visitLet(const LetNode *op, Args... args) { return visitExprDefault(op, std::forward<Args>(args)...); }
  virtual R visitCall(const CallNode *op, Args... args) { return visitExprDefault(op, std::forward<Args>(args)...); }
  virtual R visitBufferLoad(const BufferLoadNode *op, Args... args) {
    return visitExprDefault(op, std::forward<Args>(args)...);
  }
  // The nodes a functor does not override; the default is an internal error.
  virtual R visitExprDefault(const ExprNode *op, Args...) {
    throwUnhandledNode("ExprFunctor", exprKindName(op->kind()));
  }
};

template <typename F> class StmtFunctor;

template <typename R, typename... Args> class StmtFunctor<R(const Stmt &, Args...)> {
public:
  virtual ~StmtFunctor() = default;

  R visitStmt(const Stmt &s, Args... args) { return visitStmt(s.get(), std::forward<Args>(args)...); }
  R visitStmt(const StmtNode *s, Args... args) {
    switch (s->kind()) {
    case StmtKind::BufferStore:
      return visitBufferStore(static_cast<const BufferStoreNode *>(s), std::forward<Args>(args)...);
    case StmtKind::For: return visitFor(static_cast<const ForNode *>(s), std::forward<Args>(args)...);
    case StmtKind::While: return visitWhile(static_cast<const WhileNode *>(s), std::forward<Args>(args)...);
    case StmtKind::IfThenElse:
      return visitIfThenElse(static_cast<const IfThenElseNode *>(s), std::forward<Args>(args)...);
    case StmtKind::LetStmt: return visitLetStmt(static_cast<const LetStmtNode *>(s), std::forward<Args>(args)...);
    case StmtKind::Allocate: return visitAllocate(static_cast<const AllocateNode *>(s), std::forward<Args>(args)...);
    case StmtKind::DeclBuffer:
      return visitDeclBuffer(static_cast<const DeclBufferNode *>(s), std::forward<Args>(args)...);
    case StmtKind::AllocBuffer:
      return visitAllocBuffer(static_cast<const AllocBufferNode *>(s), std::forward<Args>(args)...);
    case StmtKind::AttrStmt: return visitAttrStmt(static_cast<const AttrStmtNode *>(s), std::forward<Args>(args)...);
    case StmtKind::AssertStmt:
      return visitAssertStmt(static_cast<const AssertStmtNode *>(s), std::forward<Args>(args)...);
    case StmtKind::Evaluate: return visitEvaluate(static_cast<const EvaluateNode *>(s), std::forward<Args>(args)...);
    case StmtKind::SeqStmt: return visitSeqStmt(static_cast<const SeqStmtNode *>(s), std::forward<Args>(args)...);
    case StmtKind::Block: return visitBlock(static_cast<const BlockNode *>(s), std::forward<Args>(args)...);
    }
    throwUnhandledNode("StmtFunctor", "unknown");
  }

protected:
  virtual R visitBufferStore(const BufferStoreNode *op, Args... args) {
    return visitStmtDefault(op, std::forward<Args>(args)...);
  }
  virtual R visitFor(const ForNode *op, Args... args) { return visitStmtDefault(op, std::forward<Args>(args)...); }
  virtual R visitWhile(const WhileNode *op, Args... args) { return visitStmtDefault(op, std::forward<Args>(args)...); }
  virtual R visitIfThenElse(const IfThenElseNode *op, Args... args) {
    return visitStmtDefault(op, std::forward<Args>(args)...);
  }
  virtual R visitLetStmt(const LetStmtNode *op, Args... args) {
    return visitStmtDefault(op, std::forward<Args>(args)...);
  }
  virtual R visitAllocate(const AllocateNode *op, Args... args) {
    return visitStmtDefault(op, std::forward<Args>(args)...);
  }
  virtual R visitDeclBuffer(const DeclBufferNode *op, Args... args) {
    return visitStmtDefault(op, std::forward<Args>(args)...);
  }
  virtual R visitAllocBuffer(const AllocBufferNode *op, Args... args) {
    return visitStmtDefault(op, std::forward<Args>(args)...);
  }
  virtual R visitAttrStmt(const AttrStmtNode *op, Args... args) {
    return visitStmtDefault(op, std::forward<Args>(args)...);
  }
  virtual R visitAssertStmt(const AssertStmtNode *op, Args... args) {
    return visitStmtDefault(op, std::forward<Args>(args)...);
  }
  virtual R visitEvaluate(const EvaluateNode *op, Args... args) {
    return visitStmtDefault(op, std::forward<Args>(args)...);
  }
  virtual R visitSeqStmt(const SeqStmtNode *op, Args... args) {
    return visitStmtDefault(op, std::forward<Args>(args)...);
  }
  virtual R visitBlock(const BlockNode *op, Args... args) { return visitStmtDefault(op, std::forward<Args>(args)...); }
  // The nodes a functor does not override; the default is an internal error.
  virtual R visitStmtDefault(const StmtNode *op, Args...) {
    throwUnhandledNode("StmtFunctor", stmtKindName(op->kind()));
  }
};

} // namespace tirlower
