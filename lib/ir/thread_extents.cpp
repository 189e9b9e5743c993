#include "ir/thread_extents.h"

#include <algorithm>

#include "ir/attrs.h"
#include "ir/visitor.h"

namespace tirlower {

namespace {

class CensusWalk : public IRVisitor {
public:
  explicit CensusWalk(ThreadExtentCensus &census) : census_(census) {}
  using IRVisitor::visit;

protected:
  void visit(const ForNode *op) override {
    if (op->forKind == ForKind::ThreadBinding)
      record(ThreadBinding::Form::Loop, op->threadTag, op->extent, op->loc);
    IRVisitor::visit(op);
  }
  void visit(const AttrStmtNode *op) override {
    if (op->key.view() == attr::kThreadExtent)
      record(ThreadBinding::Form::Launch, op->threadTag, op->value, op->loc);
    else if (op->key.view() == attr::kVirtualThread)
      record(ThreadBinding::Form::VirtualThread, op->threadTag, op->value, op->loc);
    IRVisitor::visit(op);
  }

private:
  void record(ThreadBinding::Form form, Symbol tag, const Expr &extent, SourceRange loc) {
    ThreadBinding b{form, tag, parseThreadTag(tag.view()), extent, loc};
    if (b.isThreadLaunch()) {
      int d = b.axis->dim;
      if (const int64_t *e = asConstInt(extent))
        census_.local[d] = std::max(census_.local[d], *e);
      else
        census_.localConstant[d] = false;
    }
    census_.bindings.push_back(std::move(b));
  }

  ThreadExtentCensus &census_;
};

} // namespace

const ThreadBinding *ThreadExtentCensus::firstSymbolicLaunch() const {
  for (const ThreadBinding &b : bindings)
    if (b.isThreadLaunch() && !asConstInt(b.extent))
      return &b;
  return nullptr;
}

ThreadExtentCensus threadExtentCensus(const Stmt &s) {
  ThreadExtentCensus census;
  CensusWalk walk(census);
  walk.visit(s);
  return census;
}

} // namespace tirlower
