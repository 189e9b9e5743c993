#include "ir/visitor.h"

#include <unordered_map>

namespace tirlower {

// ---- IRVisitor -------------------------------------------------------------------------------

void IRVisitor::visit(const Expr &e) {
  if (!e)
    return;
  // kind-switch: the visitor's own dispatch, beside the functors' in functor.h.
  switch (e->kind()) {
  case ExprKind::Var: return visit(static_cast<const VarNode *>(e.get()));
  case ExprKind::IntImm: return visit(static_cast<const IntImmNode *>(e.get()));
  case ExprKind::FloatImm: return visit(static_cast<const FloatImmNode *>(e.get()));
  case ExprKind::StringImm: return visit(static_cast<const StringImmNode *>(e.get()));
  case ExprKind::Binary: return visit(static_cast<const BinaryNode *>(e.get()));
  case ExprKind::Not: return visit(static_cast<const NotNode *>(e.get()));
  case ExprKind::Select: return visit(static_cast<const SelectNode *>(e.get()));
  case ExprKind::Cast: return visit(static_cast<const CastNode *>(e.get()));
  case ExprKind::Ramp: return visit(static_cast<const RampNode *>(e.get()));
  case ExprKind::Broadcast: return visit(static_cast<const BroadcastNode *>(e.get()));
  case ExprKind::Let: return visit(static_cast<const LetNode *>(e.get()));
  case ExprKind::Call: return visit(static_cast<const CallNode *>(e.get()));
  case ExprKind::BufferLoad: return visit(static_cast<const BufferLoadNode *>(e.get()));
  }
}

void IRVisitor::visit(const Stmt &s) {
  if (!s)
    return;
  // kind-switch: the visitor's own dispatch, beside the functors' in functor.h.
  switch (s->kind()) {
  case StmtKind::BufferStore: return visit(static_cast<const BufferStoreNode *>(s.get()));
  case StmtKind::For: return visit(static_cast<const ForNode *>(s.get()));
  case StmtKind::While: return visit(static_cast<const WhileNode *>(s.get()));
  case StmtKind::IfThenElse: return visit(static_cast<const IfThenElseNode *>(s.get()));
  case StmtKind::LetStmt: return visit(static_cast<const LetStmtNode *>(s.get()));
  case StmtKind::Allocate: return visit(static_cast<const AllocateNode *>(s.get()));
  case StmtKind::DeclBuffer: return visit(static_cast<const DeclBufferNode *>(s.get()));
  case StmtKind::AllocBuffer: return visit(static_cast<const AllocBufferNode *>(s.get()));
  case StmtKind::Block: return visit(static_cast<const BlockNode *>(s.get()));
  case StmtKind::AttrStmt: return visit(static_cast<const AttrStmtNode *>(s.get()));
  case StmtKind::AssertStmt: return visit(static_cast<const AssertStmtNode *>(s.get()));
  case StmtKind::Evaluate: return visit(static_cast<const EvaluateNode *>(s.get()));
  case StmtKind::SeqStmt: return visit(static_cast<const SeqStmtNode *>(s.get()));
  }
}

void IRVisitor::visit(const BinaryNode *op) {
  visit(op->a);
  visit(op->b);
}
void IRVisitor::visit(const NotNode *op) {
  visit(op->a);
}
void IRVisitor::visit(const SelectNode *op) {
  visit(op->condition);
  visit(op->trueValue);
  visit(op->falseValue);
}
void IRVisitor::visit(const CastNode *op) {
  visit(op->value);
}
void IRVisitor::visit(const RampNode *op) {
  visit(op->base);
  visit(op->stride);
}
void IRVisitor::visit(const BroadcastNode *op) {
  visit(op->value);
}
void IRVisitor::visit(const LetNode *op) {
  visit(op->value);
  visit(op->body);
}
void IRVisitor::visit(const CallNode *op) {
  for (const Expr &a : op->args)
    visit(a);
}
void IRVisitor::visit(const BufferLoadNode *op) {
  visitBuffer(op->buffer);
  for (const Expr &i : op->indices)
    visit(i);
}
void IRVisitor::visit(const BufferStoreNode *op) {
  visitBuffer(op->buffer);
  visit(op->value);
  for (const Expr &i : op->indices)
    visit(i);
}
void IRVisitor::visit(const ForNode *op) {
  visit(op->min);
  visit(op->extent);
  visit(op->body);
}
void IRVisitor::visit(const WhileNode *op) {
  visit(op->condition);
  visit(op->body);
}
void IRVisitor::visit(const IfThenElseNode *op) {
  visit(op->condition);
  visit(op->thenCase);
  visit(op->elseCase);
}
void IRVisitor::visit(const LetStmtNode *op) {
  visit(op->value);
  visit(op->body);
}
void IRVisitor::visit(const AllocateNode *op) {
  for (const Expr &e : op->extents)
    visit(e);
  visit(op->body);
}
void IRVisitor::visit(const DeclBufferNode *op) {
  visitBuffer(op->buffer);
  visit(op->body);
}
void IRVisitor::visit(const AllocBufferNode *op) {
  visitBuffer(op->buffer);
  visit(op->body);
}
void IRVisitor::visit(const AttrStmtNode *op) {
  visit(op->node);
  visit(op->value);
  visit(op->body);
}
void IRVisitor::visit(const AssertStmtNode *op) {
  visit(op->condition);
}
void IRVisitor::visit(const EvaluateNode *op) {
  visit(op->value);
}
void IRVisitor::visit(const SeqStmtNode *op) {
  for (const Stmt &s : op->stmts)
    visit(s);
}
void IRVisitor::visit(const BlockNode *op) {
  for (const BlockIterVar &iv : op->iterVars) {
    visit(iv.min);
    visit(iv.extent);
    visit(iv.value);
  }
  visit(op->predicate);
  auto region = [&](const BufferRegion &r) {
    visitBuffer(r.buffer);
    for (const Range &range : r.region) {
      visit(range.min);
      visit(range.extent);
    }
  };
  for (const BufferRegion &r : op->reads)
    region(r);
  for (const BufferRegion &r : op->writes)
    region(r);
  for (const Buffer &b : op->allocBuffers)
    visitBuffer(b);
  for (const MatchBufferRegion &m : op->matchBuffers) {
    visitBuffer(m.buffer);
    region(m.source);
  }
  visit(op->init);
  visit(op->body);
}

// ---- IRMutator -------------------------------------------------------------------------------

Expr IRMutator::mutate(const Expr &e) {
  if (!e)
    return e;
  // kind-switch: the mutator's own dispatch, beside the functors' in functor.h.
  switch (e->kind()) {
  case ExprKind::Var: return visit(static_cast<const VarNode *>(e.get()));
  case ExprKind::IntImm: return visit(static_cast<const IntImmNode *>(e.get()));
  case ExprKind::FloatImm: return visit(static_cast<const FloatImmNode *>(e.get()));
  case ExprKind::StringImm: return visit(static_cast<const StringImmNode *>(e.get()));
  case ExprKind::Binary: return visit(static_cast<const BinaryNode *>(e.get()));
  case ExprKind::Not: return visit(static_cast<const NotNode *>(e.get()));
  case ExprKind::Select: return visit(static_cast<const SelectNode *>(e.get()));
  case ExprKind::Cast: return visit(static_cast<const CastNode *>(e.get()));
  case ExprKind::Ramp: return visit(static_cast<const RampNode *>(e.get()));
  case ExprKind::Broadcast: return visit(static_cast<const BroadcastNode *>(e.get()));
  case ExprKind::Let: return visit(static_cast<const LetNode *>(e.get()));
  case ExprKind::Call: return visit(static_cast<const CallNode *>(e.get()));
  case ExprKind::BufferLoad: return visit(static_cast<const BufferLoadNode *>(e.get()));
  }
  return e;
}

Stmt IRMutator::mutate(const Stmt &s) {
  if (!s)
    return s;
  // kind-switch: the mutator's own dispatch, beside the functors' in functor.h.
  switch (s->kind()) {
  case StmtKind::BufferStore: return visit(static_cast<const BufferStoreNode *>(s.get()));
  case StmtKind::For: return visit(static_cast<const ForNode *>(s.get()));
  case StmtKind::While: return visit(static_cast<const WhileNode *>(s.get()));
  case StmtKind::IfThenElse: return visit(static_cast<const IfThenElseNode *>(s.get()));
  case StmtKind::LetStmt: return visit(static_cast<const LetStmtNode *>(s.get()));
  case StmtKind::Allocate: return visit(static_cast<const AllocateNode *>(s.get()));
  case StmtKind::DeclBuffer: return visit(static_cast<const DeclBufferNode *>(s.get()));
  case StmtKind::AllocBuffer: return visit(static_cast<const AllocBufferNode *>(s.get()));
  case StmtKind::Block: return visit(static_cast<const BlockNode *>(s.get()));
  case StmtKind::AttrStmt: return visit(static_cast<const AttrStmtNode *>(s.get()));
  case StmtKind::AssertStmt: return visit(static_cast<const AssertStmtNode *>(s.get()));
  case StmtKind::Evaluate: return visit(static_cast<const EvaluateNode *>(s.get()));
  case StmtKind::SeqStmt: return visit(static_cast<const SeqStmtNode *>(s.get()));
  }
  return s;
}

std::vector<Expr> IRMutator::mutate(const std::vector<Expr> &exprs, bool *changed) {
  std::vector<Expr> out;
  out.reserve(exprs.size());
  bool any = false;
  for (const Expr &e : exprs) {
    out.push_back(mutate(e));
    any |= out.back() != e;
  }
  if (changed)
    *changed = any;
  return out;
}

bool IRMutator::mutateChanged(const std::vector<Expr> &exprs, std::vector<Expr> &out) {
  for (size_t k = 0; k < exprs.size(); ++k) {
    Expr e = mutate(exprs[k]);
    if (e == exprs[k])
      continue;
    out.clear();
    out.reserve(exprs.size());
    out.insert(out.end(), exprs.begin(), exprs.begin() + static_cast<std::ptrdiff_t>(k));
    out.push_back(std::move(e));
    for (++k; k < exprs.size(); ++k)
      out.push_back(mutate(exprs[k]));
    return true;
  }
  return false;
}

Expr IRMutator::visit(const VarNode *op) {
  return Expr(op);
}
Expr IRMutator::visit(const IntImmNode *op) {
  return Expr(op);
}
Expr IRMutator::visit(const FloatImmNode *op) {
  return Expr(op);
}
Expr IRMutator::visit(const StringImmNode *op) {
  return Expr(op);
}

Expr IRMutator::visit(const BinaryNode *op) {
  Expr a = mutate(op->a), b = mutate(op->b);
  if (a == op->a && b == op->b)
    return Expr(op);
  return BinaryNode::make(op->op, a, b, op->loc);
}
Expr IRMutator::visit(const NotNode *op) {
  Expr a = mutate(op->a);
  return a == op->a ? Expr(op) : NotNode::make(a, op->loc);
}
Expr IRMutator::visit(const SelectNode *op) {
  Expr c = mutate(op->condition), t = mutate(op->trueValue), f = mutate(op->falseValue);
  if (c == op->condition && t == op->trueValue && f == op->falseValue)
    return Expr(op);
  return SelectNode::make(c, t, f, op->loc);
}
Expr IRMutator::visit(const CastNode *op) {
  Expr v = mutate(op->value);
  return v == op->value ? Expr(op) : CastNode::make(op->type, v, op->loc);
}
Expr IRMutator::visit(const RampNode *op) {
  Expr base = mutate(op->base), stride = mutate(op->stride);
  if (base == op->base && stride == op->stride)
    return Expr(op);
  return RampNode::make(base, stride, op->lanes, op->loc, op->type.isScalable());
}
Expr IRMutator::visit(const BroadcastNode *op) {
  Expr v = mutate(op->value);
  return v == op->value ? Expr(op) : BroadcastNode::make(v, op->lanes, op->loc, op->type.isScalable());
}
Expr IRMutator::visit(const LetNode *op) {
  Expr value = mutate(op->value), body = mutate(op->body);
  if (value == op->value && body == op->body)
    return Expr(op);
  return LetNode::make(op->var, value, body, op->loc);
}
Expr IRMutator::visit(const CallNode *op) {
  std::vector<Expr> args;
  return mutateChanged(op->args, args) ? CallNode::make(op->type, op->op, std::move(args), op->loc) : Expr(op);
}
Expr IRMutator::visit(const BufferLoadNode *op) {
  Buffer buffer = mutateBuffer(op->buffer);
  std::vector<Expr> indices;
  if (!mutateChanged(op->indices, indices)) {
    if (buffer == op->buffer)
      return Expr(op);
    indices = op->indices;
  }
  return BufferLoadNode::make(buffer, std::move(indices), op->loc);
}

Stmt IRMutator::visit(const BufferStoreNode *op) {
  Buffer buffer = mutateBuffer(op->buffer);
  Expr value = mutate(op->value);
  std::vector<Expr> indices;
  if (!mutateChanged(op->indices, indices)) {
    if (buffer == op->buffer && value == op->value)
      return Stmt(op);
    indices = op->indices;
  }
  return BufferStoreNode::make(buffer, value, std::move(indices), op->loc);
}
Stmt IRMutator::visit(const ForNode *op) {
  Expr min = mutate(op->min), extent = mutate(op->extent);
  Stmt body = mutate(op->body);
  if (min == op->min && extent == op->extent && body == op->body)
    return Stmt(op);
  return ForNode::make(op->loopVar, min, extent, op->forKind, body, op->threadTag, op->annotations, op->loc);
}
Stmt IRMutator::visit(const WhileNode *op) {
  Expr c = mutate(op->condition);
  Stmt body = mutate(op->body);
  if (c == op->condition && body == op->body)
    return Stmt(op);
  return WhileNode::make(c, body, op->loc);
}
Stmt IRMutator::visit(const IfThenElseNode *op) {
  Expr c = mutate(op->condition);
  Stmt t = mutate(op->thenCase), e = mutate(op->elseCase);
  if (c == op->condition && t == op->thenCase && e == op->elseCase)
    return Stmt(op);
  return IfThenElseNode::make(c, t, e, op->loc);
}
Stmt IRMutator::visit(const LetStmtNode *op) {
  Expr value = mutate(op->value);
  Stmt body = mutate(op->body);
  if (value == op->value && body == op->body)
    return Stmt(op);
  return LetStmtNode::make(op->var, value, body, op->loc);
}
Stmt IRMutator::visit(const AllocateNode *op) {
  bool changed = false;
  std::vector<Expr> extents = mutate(op->extents, &changed);
  Stmt body = mutate(op->body);
  if (!changed && body == op->body)
    return Stmt(op);
  return AllocateNode::make(op->bufferVar, op->dtype, std::move(extents), op->scope, body, op->loc);
}
Stmt IRMutator::visit(const DeclBufferNode *op) {
  Buffer buffer = mutateBuffer(op->buffer);
  Stmt body = mutate(op->body);
  if (buffer == op->buffer && body == op->body)
    return Stmt(op);
  return DeclBufferNode::make(buffer, op->allocates, body, op->loc);
}
Stmt IRMutator::visit(const AllocBufferNode *op) {
  Buffer buffer = mutateBuffer(op->buffer);
  Stmt body = mutate(op->body);
  if (buffer == op->buffer && body == op->body)
    return Stmt(op);
  return AllocBufferNode::make(buffer, body, op->loc);
}
Stmt IRMutator::visit(const AttrStmtNode *op) {
  Expr node = mutate(op->node), value = mutate(op->value);
  Stmt body = mutate(op->body);
  if (node == op->node && value == op->value && body == op->body)
    return Stmt(op);
  return AttrStmtNode::like(*op, node, value, body);
}
Stmt IRMutator::visit(const AssertStmtNode *op) {
  Expr c = mutate(op->condition);
  return c == op->condition ? Stmt(op) : AssertStmtNode::make(c, op->message, op->loc);
}
Stmt IRMutator::visit(const EvaluateNode *op) {
  Expr v = mutate(op->value);
  return v == op->value ? Stmt(op) : EvaluateNode::make(v, op->loc);
}
Stmt IRMutator::visit(const SeqStmtNode *op) {
  std::vector<Stmt> stmts;
  stmts.reserve(op->stmts.size());
  bool changed = false;
  for (const Stmt &s : op->stmts) {
    stmts.push_back(mutate(s));
    changed |= stmts.back() != s;
  }
  return changed ? SeqStmtNode::make(std::move(stmts), op->loc) : Stmt(op);
}
BufferRegion IRMutator::mutate(const BufferRegion &r, bool *changed) {
  BufferRegion result{mutateBuffer(r.buffer), {}};
  *changed |= result.buffer != r.buffer;
  result.region.reserve(r.region.size());
  for (const Range &range : r.region) {
    Expr min = mutate(range.min), extent = mutate(range.extent);
    *changed |= min != range.min || extent != range.extent;
    result.region.push_back({min, extent});
  }
  return result;
}
Stmt IRMutator::visit(const BlockNode *op) {
  BlockNode::Fields f = op->fields();
  bool changed = false;
  for (BlockIterVar &iv : f.iterVars) {
    Expr min = mutate(iv.min), extent = mutate(iv.extent), value = mutate(iv.value);
    changed |= min != iv.min || extent != iv.extent || value != iv.value;
    iv.min = min, iv.extent = extent, iv.value = value;
  }
  f.predicate = mutate(op->predicate);
  changed |= f.predicate != op->predicate;
  for (auto *regions : {&f.reads, &f.writes})
    for (BufferRegion &r : *regions)
      r = mutate(r, &changed);
  for (Buffer &b : f.allocBuffers) {
    Buffer mutated = mutateBuffer(b);
    changed |= mutated != b;
    b = mutated;
  }
  for (MatchBufferRegion &m : f.matchBuffers) {
    Buffer mutated = mutateBuffer(m.buffer);
    changed |= mutated != m.buffer;
    m.buffer = mutated;
    m.source = mutate(m.source, &changed);
  }
  f.init = mutate(op->init);
  f.body = mutate(op->body);
  changed |= f.init != op->init || f.body != op->body;
  return changed ? BlockNode::make(std::move(f), op->loc) : Stmt(op);
}

bool IRMutator::mutateBufferShape(BufferNode::Fields &f) {
  bool changed = false, c = false;
  f.shape = mutate(f.shape, &c);
  changed |= c;
  f.strides = mutate(f.strides, &c);
  changed |= c;
  if (f.elemOffset) {
    Expr offset = mutate(f.elemOffset);
    changed |= offset != f.elemOffset;
    f.elemOffset = offset;
  }
  return changed;
}

Stmt substituteBuffers(const Stmt &s, const std::vector<std::pair<Buffer, Buffer>> &replacements) {
  // A replaced buffer's data variable becomes `to`'s, in the fields of the other buffers too
  // (`T.decl_buffer(..., data=Sub.data)`).
  struct Replacer : IRMutator {
    const std::vector<std::pair<Buffer, Buffer>> &pairs;
    std::unordered_map<const BufferNode *, Buffer> rebuilt; // one rewrite per buffer (aliases stay shared)
    explicit Replacer(const std::vector<std::pair<Buffer, Buffer>> &p) : pairs(p) {}
    using IRMutator::visit;
    Buffer mutateBuffer(const Buffer &buffer) override {
      for (const auto &[from, to] : pairs)
        if (from == buffer)
          return to;
      if (auto it = rebuilt.find(buffer.get()); it != rebuilt.end())
        return it->second;
      BufferNode::Fields f = buffer->fields();
      bool changed = false;
      Expr data = mutate(Expr(f.data));
      if (!data.same(Expr(f.data)))
        if (const auto *var = data.as<VarNode>()) {
          f.data = Var(var);
          changed = true;
        }
      changed |= mutateBufferShape(f);
      Buffer result = changed ? BufferNode::make(std::move(f)) : buffer;
      rebuilt.emplace(buffer.get(), result);
      return result;
    }
    Expr visit(const VarNode *op) override {
      for (const auto &[from, to] : pairs)
        if (from->data.get() == op)
          return to->data;
      return Expr(op);
    }
  } replacer(replacements);
  return replacer.mutate(s);
}

std::unordered_set<const VarNode *> allocatedData(const Stmt &s) {
  struct Collector : IRVisitor {
    using IRVisitor::visit;
    std::unordered_set<const VarNode *> data;
    void visit(const AllocBufferNode *op) override {
      data.insert(op->buffer->data.get());
      IRVisitor::visit(op);
    }
    void visit(const AllocateNode *op) override {
      data.insert(op->bufferVar.get());
      IRVisitor::visit(op);
    }
    void visit(const DeclBufferNode *op) override {
      if (op->allocates)
        data.insert(op->buffer->data.get());
      IRVisitor::visit(op);
    }
  } collector;
  collector.visit(s);
  return std::move(collector.data);
}

const BlockNode *findBlock(const Stmt &s) {
  struct Finder : IRVisitor {
    const BlockNode *found = nullptr;
    using IRVisitor::visit;
    void visit(const BlockNode *op) override {
      if (!found)
        found = op;
    }
    // Blocks are statements: expressions need no walk.
    void visit(const BufferStoreNode *) override {}
    void visit(const EvaluateNode *) override {}
  } finder;
  finder.visit(s);
  return finder.found;
}

// ---- substitute ------------------------------------------------------------------------------

namespace {
class Substituter : public IRMutator {
public:
  explicit Substituter(const std::vector<std::pair<Var, Expr>> &replacements) : replacements_(replacements) {
    if (replacements.size() > kScanned)
      for (const auto &[var, value] : replacements)
        map_.emplace(var.get(), value);
  }

protected:
  Expr visit(const VarNode *op) override {
    if (replacements_.size() <= kScanned) {
      // The first replacement of a variable wins, as emplace keeps the first.
      for (const auto &[var, value] : replacements_)
        if (var.get() == op)
          return value;
      return Expr(op);
    }
    auto it = map_.find(op);
    return it == map_.end() ? Expr(op) : it->second;
  }
  using IRMutator::visit;

  Buffer mutateBuffer(const Buffer &buffer) override {
    auto it = buffers_.find(buffer.get());
    if (it != buffers_.end())
      return it->second;
    BufferNode::Fields f = buffer->fields();
    bool changed = mutateBufferShape(f);
    Buffer result = changed ? BufferNode::make(std::move(f)) : buffer;
    buffers_.emplace(buffer.get(), result);
    return result;
  }

private:
  // A few replacements (the usual case: an index map's inputs) are scanned; a hash map built per
  // call was a heap node per replacement.
  static constexpr size_t kScanned = 8;
  const std::vector<std::pair<Var, Expr>> &replacements_;
  std::unordered_map<const VarNode *, Expr> map_; // more than kScanned replacements
  // One replacement per buffer, so aliases stay shared objects after substitution.
  std::unordered_map<const BufferNode *, Buffer> buffers_;
};
} // namespace

Expr substitute(const Expr &e, const std::vector<std::pair<Var, Expr>> &replacements) {
  if (replacements.empty())
    return e;
  return Substituter(replacements).mutate(e);
}

Stmt substitute(const Stmt &s, const std::vector<std::pair<Var, Expr>> &replacements) {
  if (replacements.empty())
    return s;
  return Substituter(replacements).mutate(s);
}

} // namespace tirlower
