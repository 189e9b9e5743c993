// The one traversal pattern used everywhere: IRVisitor walks, IRMutator rebuilds.
// Override only the nodes you care about; the defaults recurse into children. The mutator
// returns the original node when no child changed, so "unchanged" is cheap and observable.
#pragma once

#include <unordered_set>

#include "ir/function.h"

namespace tirlower {

class IRVisitor {
public:
  virtual ~IRVisitor() = default;
  void visit(const Expr &e);
  void visit(const Stmt &s);

protected:
  // Called for the buffer of every load, store and declaration; the default does nothing.
  virtual void visitBuffer(const Buffer &) {}

  virtual void visit(const VarNode *) {}
  virtual void visit(const IntImmNode *) {}
  virtual void visit(const FloatImmNode *) {}
  virtual void visit(const StringImmNode *) {}
  virtual void visit(const BinaryNode *);
  virtual void visit(const NotNode *);
  virtual void visit(const SelectNode *);
  virtual void visit(const CastNode *);
  virtual void visit(const RampNode *);
  virtual void visit(const BroadcastNode *);
  virtual void visit(const LetNode *);
  virtual void visit(const CallNode *);
  virtual void visit(const BufferLoadNode *);

  virtual void visit(const BufferStoreNode *);
  virtual void visit(const ForNode *);
  virtual void visit(const WhileNode *);
  virtual void visit(const IfThenElseNode *);
  virtual void visit(const LetStmtNode *);
  virtual void visit(const AllocateNode *);
  virtual void visit(const DeclBufferNode *);
  virtual void visit(const AllocBufferNode *);
  virtual void visit(const AttrStmtNode *);
  virtual void visit(const AssertStmtNode *);
  virtual void visit(const EvaluateNode *);
  virtual void visit(const SeqStmtNode *);
  virtual void visit(const BlockNode *);
};

class IRMutator {
public:
  virtual ~IRMutator() = default;
  Expr mutate(const Expr &e);
  Stmt mutate(const Stmt &s);
  std::vector<Expr> mutate(const std::vector<Expr> &exprs, bool *changed = nullptr);
  // The mutated list in `out` and true when an element changed; false, with `out` untouched and
  // nothing allocated, when none did (most lists in most passes: indices of accesses a pass
  // leaves alone).
  bool mutateChanged(const std::vector<Expr> &exprs, std::vector<Expr> &out);

protected:
  // Called for the buffer of every load, store and declaration; return a different buffer to
  // replace it. The default keeps it.
  virtual Buffer mutateBuffer(const Buffer &buffer) { return buffer; }
  // Mutates a buffer's shape, strides and element offset in `fields`; true when any changed.
  // For mutateBuffer overrides that rewrite the expressions a buffer declares.
  bool mutateBufferShape(BufferNode::Fields &fields);

  virtual Expr visit(const VarNode *op);
  virtual Expr visit(const IntImmNode *op);
  virtual Expr visit(const FloatImmNode *op);
  virtual Expr visit(const StringImmNode *op);
  virtual Expr visit(const BinaryNode *op);
  virtual Expr visit(const NotNode *op);
  virtual Expr visit(const SelectNode *op);
  virtual Expr visit(const CastNode *op);
  virtual Expr visit(const RampNode *op);
  virtual Expr visit(const BroadcastNode *op);
  virtual Expr visit(const LetNode *op);
  virtual Expr visit(const CallNode *op);
  virtual Expr visit(const BufferLoadNode *op);

  virtual Stmt visit(const BufferStoreNode *op);
  virtual Stmt visit(const ForNode *op);
  virtual Stmt visit(const WhileNode *op);
  virtual Stmt visit(const IfThenElseNode *op);
  virtual Stmt visit(const LetStmtNode *op);
  virtual Stmt visit(const AllocateNode *op);
  virtual Stmt visit(const DeclBufferNode *op);
  virtual Stmt visit(const AllocBufferNode *op);
  virtual Stmt visit(const AttrStmtNode *op);
  virtual Stmt visit(const AssertStmtNode *op);
  virtual Stmt visit(const EvaluateNode *op);
  virtual Stmt visit(const SeqStmtNode *op);
  virtual Stmt visit(const BlockNode *op);
  BufferRegion mutate(const BufferRegion &region, bool *changed);
};

// Replaces each buffer `from` (and its data variable) by `to` everywhere in `s`.
Stmt substituteBuffers(const Stmt &s, const std::vector<std::pair<Buffer, Buffer>> &replacements);

// The first block in `s` (in text order), or null: passes that take low-level TIR use it to
// reject block-level input with blockMessage(), the block-lowering passes to leave functions
// without blocks as they are (the search skips expressions: cheaper than a mutator's walk).
const BlockNode *findBlock(const Stmt &s);

// The data variables of the storage `s` allocates (T.alloc_buffer, T.allocate, an allocating
// T.decl_buffer): storage no parameter can alias.
std::unordered_set<const VarNode *> allocatedData(const Stmt &s);

// Replaces variables by expressions (a map keyed by node identity) everywhere, including
// buffer shapes, strides and offsets.
Expr substitute(const Expr &e, const std::vector<std::pair<Var, Expr>> &replacements);
Stmt substitute(const Stmt &s, const std::vector<std::pair<Var, Expr>> &replacements);

} // namespace tirlower
