#include "ir/access_census.h"

#include "ir/intrinsics.h"
#include "ir/visitor.h"

namespace tirlower {

namespace {

class CensusVisitor : public IRVisitor {
public:
  CensusVisitor(AccessCensus &census, bool countAssume) : census_(census), countAssume_(countAssume) {}
  using IRVisitor::visit;

protected:
  void visit(const VarNode *op) override {
    census_.used.insert(op);
    if (op->type.isHandle() && !inAttrSubject_)
      census_.escaped.insert(op);
  }
  void visitBuffer(const Buffer &b) override {
    census_.used.insert(b->data.get());
    for (const Expr &e : b->shape)
      IRVisitor::visit(e);
    for (const Expr &e : b->strides)
      IRVisitor::visit(e);
    if (b->elemOffset)
      IRVisitor::visit(b->elemOffset);
  }
  void visit(const BufferLoadNode *op) override {
    census_.read.insert(op->buffer->data.get());
    IRVisitor::visit(op);
  }
  void visit(const BufferStoreNode *op) override {
    census_.written.insert(op->buffer->data.get());
    IRVisitor::visit(op);
  }
  void visit(const CallNode *op) override {
    if (!countAssume_ && op->intrinsic && op->intrinsic->id == IntrinsicId::Assume)
      return;
    IRVisitor::visit(op);
  }
  // The subject of an attribute names a variable; it is not a use of its value.
  void visit(const AttrStmtNode *op) override {
    inAttrSubject_ = true;
    visit(op->node);
    inAttrSubject_ = false;
    visit(op->value);
    visit(op->body);
  }

private:
  AccessCensus &census_;
  bool countAssume_;
  bool inAttrSubject_ = false;
};

} // namespace

AccessCensus AccessCensus::of(const Stmt &body, bool countAssume) {
  AccessCensus census;
  CensusVisitor visitor(census, countAssume);
  visitor.visit(body);
  return census;
}

} // namespace tirlower
