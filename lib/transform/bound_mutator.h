// A mutator base for passes that simplify index arithmetic: while it walks the body it keeps
// an Analyzer informed of the range of every enclosing loop variable and the value of every
// enclosing let, so simplification can use them (`(i * 16 + j) // 16` -> `i` inside
// `for j in range(16)`). A thread launch bounds its variable like a loop of its extent.
#pragma once

#include "arith/analyzer.h"
#include "ir/visitor.h"

namespace tirlower {

class BoundMutator : public IRMutator {
protected:
  using IRMutator::visit;
  Stmt visit(const ForNode *op) override;
  Stmt visit(const LetStmtNode *op) override;
  Stmt visit(const AttrStmtNode *op) override;

  Analyzer analyzer_;
};

} // namespace tirlower
