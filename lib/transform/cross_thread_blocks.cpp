#include "transform/cross_thread_blocks.h"

#include <functional>
#include <unordered_map>

#include "arith/expr_util.h"
#include "ir/attrs.h"
#include "ir/gpu_builtins.h"
#include "ir/storage_scope.h"
#include "ir/visitor.h"

namespace tirlower {

std::vector<const BlockNode *> blocksOf(const Stmt &stmt, bool nested) {
  struct Collector : IRVisitor {
    using IRVisitor::visit;
    bool nested = false;
    std::vector<const BlockNode *> found;
    void visit(const BlockNode *block) override {
      found.push_back(block);
      if (nested)
        IRVisitor::visit(block);
    }
  } collector;
  collector.nested = nested;
  collector.visit(stmt);
  return collector.found;
}

// Whether `stmt` holds a block with a reduce iteration variable.
static bool hasReductionBlock(const Stmt &stmt) {
  for (const BlockNode *block : blocksOf(stmt, true))
    for (const BlockIterVar &iv : block->iterVars)
      if (iv.kind == IterKind::Reduce)
        return true;
  return false;
}

bool isConstTrue(const Expr &e) {
  const int64_t *v = asConstInt(e);
  return v && *v != 0;
}

Buffer crossThreadScratchpad(const std::string &prefix, const Buffer &of, SourceRange loc) {
  BufferNode::Fields f;
  f.name = Symbol(prefix + of->name.str());
  f.dtype = of->dtype;
  f.shape = {intImm(1)};
  f.strides = {intImm(1)};
  f.scope = Symbol(scope::kLocal);
  f.data = VarNode::makeHandle(f.name, of->dtype, f.scope, loc);
  f.loc = loc;
  return BufferNode::make(std::move(f));
}

static std::vector<BufferRegion> elementZero(const std::vector<Buffer> &buffers) {
  std::vector<BufferRegion> regions;
  for (const Buffer &b : buffers)
    regions.push_back({b, {Range{intImm(0), intImm(1)}}});
  return regions;
}


namespace {

bool uses(const Expr &e, const std::vector<Var> &vars) { return e && usesAnyVar(e, vars); }

bool isLocal(const Buffer &buffer) { return buffer->scope.view() == scope::kLocal; }

// Each load and store of a buffer of `from` reads or writes element 0 of its match in `to`.
class ScratchpadReplacer : public IRMutator {
public:
  ScratchpadReplacer(const std::vector<ReductionUpdate> &from, const std::vector<Buffer> &to) {
    for (size_t k = 0; k < from.size(); ++k)
      map_[from[k].buffer.get()] = to[k];
  }

protected:
  using IRMutator::visit;
  Expr visit(const BufferLoadNode *op) override {
    auto it = map_.find(op->buffer.get());
    return it == map_.end() ? IRMutator::visit(op) : BufferLoadNode::make(it->second, {intImm(0)}, op->loc);
  }
  Stmt visit(const BufferStoreNode *op) override {
    auto it = map_.find(op->buffer.get());
    if (it == map_.end())
      return IRMutator::visit(op);
    return BufferStoreNode::make(it->second, mutate(op->value), {intImm(0)}, op->loc);
  }

private:
  std::unordered_map<const BufferNode *, Buffer> map_;
};

// The first reduce loop's statement with the block in thread-local form (`inThread`, or
// removed when null) and the thread-bound loops over reductions taken out.
Stmt withoutBlock(const Stmt &stmt, const BlockNode &block, const Stmt &inThread) {
  if (stmt.get() == &block)
    return inThread;
  if (const auto *seq = stmt.as<SeqStmtNode>()) {
    std::vector<Stmt> kept;
    for (const Stmt &s : seq->stmts)
      if (Stmt each = withoutBlock(s, block, inThread))
        kept.push_back(each);
    return kept.empty() ? Stmt() : SeqStmtNode::make(std::move(kept), seq->loc);
  }
  if (const auto *loop = stmt.as<ForNode>()) {
    Stmt body = withoutBlock(loop->body, block, inThread);
    if (!body)
      return Stmt();
    if (loop->forKind == ForKind::ThreadBinding && hasReductionBlock(body))
      return body;
    if (body == loop->body)
      return stmt;
    return ForNode::make(loop->loopVar, loop->min, loop->extent, loop->forKind, body, loop->threadTag,
                         loop->annotations, loop->loc);
  }
  return stmt;
}

Stmt makeBlock(BlockNode::Fields f, SourceRange loc) { return BlockNode::make(std::move(f), loc); }

// "<name>_write_back": the spatial iteration variables (fresh), the clauses of the predicate
// that use no reduce loop, and (for a non-local output) the first thread only.
Stmt writeBack(const BlockNode &block, const std::vector<const ForNode *> &loops,
                      const std::vector<ReductionUpdate> &updates, const std::vector<Buffer> &cross) {
  SourceRange loc = block.loc;
  BlockNode::Fields f;
  f.name = Symbol(block.name.str() + "_write_back");
  std::vector<std::pair<Var, Expr>> renamed;
  for (const BlockIterVar &iv : block.iterVars)
    if (iv.kind != IterKind::Reduce) {
      BlockIterVar copy = iv;
      copy.var = VarNode::make(iv.var->name, iv.var->type, iv.var->loc);
      renamed.emplace_back(iv.var, copy.var);
      f.iterVars.push_back(copy);
    }
  std::vector<Var> loopVars;
  for (const ForNode *l : loops)
    loopVars.push_back(l->loopVar);
  Expr predicate;
  auto conjoin = [&](const Expr &clause) {
    predicate = predicate ? BinaryNode::make(BinaryOp::And, predicate, clause, loc) : clause;
  };
  // TVM keeps the operands (not themselves conjunctions) of each conjunction in the predicate,
  // in post order, that use no reduce loop.
  std::function<void(const Expr &)> clauses = [&](const Expr &e) {
    const auto *both = e.as<BinaryNode>();
    if (!both || both->op != BinaryOp::And)
      return;
    clauses(both->a);
    clauses(both->b);
    for (const Expr &side : {both->a, both->b}) {
      const auto *inner = side.as<BinaryNode>();
      if ((!inner || inner->op != BinaryOp::And) && !uses(side, loopVars))
        conjoin(side);
    }
  };
  if (block.predicate)
    clauses(block.predicate);
  if (!isLocal(updates[0].buffer))
    for (const ForNode *l : loops)
      if (l->forKind == ForKind::ThreadBinding)
        conjoin(BinaryNode::make(BinaryOp::EQ, l->loopVar, IntImmNode::make(l->loopVar->type, 0, loc), loc));
  f.predicate = predicate;
  f.reads = elementZero(cross);
  std::vector<Expr> indices;
  for (const Expr &i : updates[0].indices)
    indices.push_back(substitute(i, renamed));
  std::vector<Range> region;
  if (!block.writes.empty())
    for (const Range &r : block.writes[0].region)
      region.push_back({substitute(r.min, renamed), substitute(r.extent, renamed)});
  else
    for (const Expr &i : indices)
      region.push_back({i, intImm(1)});
  std::vector<Stmt> stores;
  for (size_t k = 0; k < updates.size(); ++k) {
    f.writes.push_back({updates[k].buffer, region});
    stores.push_back(
        BufferStoreNode::make(updates[k].buffer, BufferLoadNode::make(cross[k], {intImm(0)}, loc), indices, loc));
  }
  f.body = SeqStmtNode::make(std::move(stores), loc);
  return makeBlock(std::move(f), loc);
}

} // namespace

Stmt buildCrossThreadReduction(const CrossThreadPlan &plan) {
  const BlockNode &block = *plan.block;
  const std::vector<const ForNode *> &loops = plan.loops;
  const std::vector<ReductionUpdate> &updates = plan.updates;
  const MatchedReducer &matched = plan.matched;
  const std::vector<Buffer> &cross = plan.cross, &own = plan.own;
  SourceRange loc = block.loc;
  size_t n = updates.size();
  std::vector<Stmt> stmts;
  // 1. Each thread's own value starts at the identity.
  if (!own.empty()) {
    BlockNode::Fields init;
    init.name = Symbol(block.name.str() + "_in_thread_init");
    init.writes = elementZero(own);
    std::vector<Stmt> stores;
    for (size_t k = 0; k < n; ++k)
      stores.push_back(BufferStoreNode::make(own[k], matched.reducer->identity[k], {intImm(0)}, loc));
    init.body = SeqStmtNode::make(std::move(stores), loc);
    stmts.push_back(makeBlock(std::move(init), loc));
  }
  // 2. The block, reducing each thread's part into its own value (or nothing).
  Stmt inThreadBlock;
  if (!own.empty()) {
    BlockNode::Fields f = block.fields();
    f.writes = elementZero(own);
    f.name = Symbol(block.name.str() + "_in_thread");
    f.body = ScratchpadReplacer(updates, own).mutate(block.body);
    f.init = Stmt();
    inThreadBlock = makeBlock(std::move(f), loc);
  }
  if (Stmt rest = withoutBlock(Stmt(loops.front()), block, inThreadBlock))
    stmts.push_back(rest);
  // 3. The threads' values combined.
  std::vector<Expr> args{IntImmNode::make(*DataType::parse("uint32"), static_cast<int64_t>(n), loc)};
  for (size_t k = 0; k < n; ++k)
    args.push_back(own.empty() ? matched.rhs[k] : BufferLoadNode::make(own[k], {intImm(0)}, loc));
  args.push_back(IntImmNode::make(DataType::boolean(), 1, loc));
  for (size_t k = 0; k < n; ++k)
    args.push_back(BufferLoadNode::make(cross[k], {intImm(0)}, loc));
  for (const ForNode *l : loops)
    if (l->forKind == ForKind::ThreadBinding)
      args.push_back(l->loopVar);
  BlockNode::Fields combine;
  combine.name = Symbol(block.name.str() + "_cross_thread");
  if (own.empty()) {
    combine.iterVars = block.iterVars;
    combine.reads = block.reads;
  } else {
    combine.reads = elementZero(own);
  }
  combine.writes = elementZero(cross);
  Stmt call = EvaluateNode::make(CallNode::make(DataType::handle(), Symbol(builtin::kThreadAllreduce), args, loc), loc);
  combine.body = AttrStmtNode::make(nullptr, Symbol(attr::kReduceScope), intImm(0), call, loc, {}, matched.reducer);
  stmts.push_back(makeBlock(std::move(combine), loc));
  // 4. The result written back.
  stmts.push_back(writeBack(block, loops, updates, cross));
  Stmt result = SeqStmtNode::make(std::move(stmts), loc);
  for (auto it = loops.rbegin(); it != loops.rend(); ++it)
    if ((*it)->forKind == ForKind::ThreadBinding) {
      const ForNode *l = *it;
      result = ForNode::make(l->loopVar, l->min, l->extent, l->forKind, result, l->threadTag, l->annotations, l->loc);
    }
  return result;
}


} // namespace tirlower
