#include "ir/access_census.h"

#include <cstdint>

#include "ir/intrinsics.h"
#include "ir/visitor.h"

namespace tirlower {

size_t VarSet::slotOf(const VarNode *var) const {
  auto bits = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(var));
  bits *= 0x9e3779b97f4a7c15ULL; // Fibonacci hashing: node addresses differ in their middle bits
  return static_cast<size_t>(bits >> 32) & (slots_.size() - 1);
}

size_t VarSet::count(const VarNode *var) const {
  if (slots_.empty())
    return 0;
  for (size_t k = slotOf(var);; k = (k + 1) & (slots_.size() - 1)) {
    if (slots_[k] == var)
      return 1;
    if (slots_[k] == nullptr)
      return 0;
  }
}

void VarSet::insert(const VarNode *var) {
  if (2 * (size_ + 1) > slots_.size())
    grow();
  size_t k = slotOf(var);
  for (; slots_[k] != nullptr; k = (k + 1) & (slots_.size() - 1))
    if (slots_[k] == var)
      return;
  slots_[k] = var;
  ++size_;
}

void VarSet::grow() {
  std::vector<const VarNode *> old = std::move(slots_);
  slots_.assign(old.empty() ? 16 : 2 * old.size(), nullptr);
  for (const VarNode *var : old) {
    if (var == nullptr)
      continue;
    size_t k = slotOf(var);
    while (slots_[k] != nullptr)
      k = (k + 1) & (slots_.size() - 1);
    slots_[k] = var;
  }
}

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
