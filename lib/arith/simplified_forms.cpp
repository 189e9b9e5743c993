// The table behind SimplifiedScope (analyzer.h): the expressions the analyzers of one thread
// returned from simplify while the scope is open, each with the bindings it was simplified under.
#include <vector>

#include "arith/analyzer.h"
#include "arith/pointer_map.h"

namespace tirlower {

namespace {

// A variable's binding when an expression was simplified: null fields where it had none.
struct Binding {
  const VarNode *var = nullptr;
  Expr min, extent, value;
};

// Bindings compare by object, or by value for integer constants (loop bounds are bound as new
// constants by each analyzer). The entry keeps its bindings' objects alive, so an address seen
// equal is the same object.
bool sameBound(const Expr &a, const Expr &b) {
  if (a.same(b))
    return true;
  if (!a || !b)
    return false;
  const int64_t *x = asConstInt(a), *y = asConstInt(b);
  return x && y && *x == *y && a->type == b->type;
}

// The variables an expression reads, at most kMaxVars of them: a buffer load's indices, not its
// buffer (simplify never looks at a buffer's fields). False when there are more, or when the
// expression is one that a second simplification might still change.
constexpr size_t kMaxVars = 16;
struct VarList {
  const VarNode *vars[kMaxVars];
  size_t size = 0;
};

// Simplification is idempotent where splits are of variables: a split of a sum, such as
// `(x * 32 + y) // 4 * 4 + y % 4`, may merge only on a second look (into `x * 32 + y`).
bool idempotentOp(const BinaryNode &op) {
  bool split = op.op == BinaryOp::FloorDiv || op.op == BinaryOp::FloorMod || op.op == BinaryOp::Div ||
               op.op == BinaryOp::Mod;
  return !split || (op.a->kind() == ExprKind::Var && op.b->kind() == ExprKind::IntImm);
}

bool collectVars(const ExprNode *e, VarList &out) {
  switch (e->kind()) {
  case ExprKind::Var: {
    const auto *var = static_cast<const VarNode *>(e);
    for (size_t k = 0; k < out.size; ++k)
      if (out.vars[k] == var)
        return true;
    if (out.size == kMaxVars)
      return false;
    out.vars[out.size++] = var;
    return true;
  }
  case ExprKind::IntImm:
  case ExprKind::FloatImm:
  case ExprKind::StringImm:
    return true;
  case ExprKind::Binary: {
    const auto *op = static_cast<const BinaryNode *>(e);
    if (!idempotentOp(*op))
      return false;
    return collectVars(op->a.get(), out) && collectVars(op->b.get(), out);
  }
  case ExprKind::Not:
    return collectVars(static_cast<const NotNode *>(e)->a.get(), out);
  case ExprKind::Select: {
    const auto *op = static_cast<const SelectNode *>(e);
    return collectVars(op->condition.get(), out) && collectVars(op->trueValue.get(), out) &&
           collectVars(op->falseValue.get(), out);
  }
  case ExprKind::Cast:
    return collectVars(static_cast<const CastNode *>(e)->value.get(), out);
  case ExprKind::Ramp: {
    const auto *op = static_cast<const RampNode *>(e);
    return collectVars(op->base.get(), out) && collectVars(op->stride.get(), out);
  }
  case ExprKind::Broadcast:
    return collectVars(static_cast<const BroadcastNode *>(e)->value.get(), out);
  case ExprKind::Let: {
    const auto *op = static_cast<const LetNode *>(e);
    return collectVars(op->var.get(), out) && collectVars(op->value.get(), out) && collectVars(op->body.get(), out);
  }
  case ExprKind::Call:
    for (const Expr &a : static_cast<const CallNode *>(e)->args)
      if (!collectVars(a.get(), out))
        return false;
    return true;
  case ExprKind::BufferLoad:
    for (const Expr &i : static_cast<const BufferLoadNode *>(e)->indices)
      if (!collectVars(i.get(), out))
        return false;
    return true;
  }
  return false;
}

} // namespace

struct SimplifiedScope::Table {
  struct Entry {
    Expr expr; // keeps the key alive
    bool noOverflow = false;
    bool walkResult = false; // what the analyzer's walk returned, not an input kept as smaller
    uint32_t first = 0, count = 0; // its bindings in `bindings`
  };
  PointerMap<ExprNode, Entry> entries;
  std::vector<Binding> bindings; // every entry's, appended (a replaced entry's stay, unused)
  size_t hits = 0;
};

namespace {
thread_local SimplifiedScope::Table *currentTable = nullptr;
} // namespace

SimplifiedScope::SimplifiedScope() : table_(std::make_unique<Table>()), previous_(currentTable) {
  currentTable = table_.get();
}

SimplifiedScope::~SimplifiedScope() {
  currentTable = previous_;
}

size_t SimplifiedScope::hits() const {
  return table_->hits;
}

bool Analyzer::knownSimplified(const Expr &e, bool inner) const {
  if (!currentTable)
    return false;
  const SimplifiedScope::Table::Entry *entry = currentTable->entries.find(e.get());
  if (!entry || entry->noOverflow != noOverflow_ || (inner && !entry->walkResult))
    return false;
  for (uint32_t k = entry->first; k < entry->first + entry->count; ++k) {
    const Binding &b = currentTable->bindings[k];
    auto r = ranges_.find(b.var);
    auto v = values_.find(b.var);
    bool ranged = r != ranges_.end(), valued = v != values_.end();
    if (ranged != bool(b.min) || valued != bool(b.value))
      return false;
    if (ranged && !(sameBound(r->second.min, b.min) && sameBound(r->second.extent, b.extent)))
      return false;
    if (valued && !v->second.same(b.value))
      return false;
  }
  ++currentTable->hits;
  return true;
}

// Records `e` with the bindings it depends on, through the values of let-bound variables (a
// variable's value is simplified in place of the variable, so its variables count too).
void Analyzer::rememberSimplified(const Expr &e, bool walkResult) const {
  if (!currentTable || !e || asConstInt(e))
    return;
  VarList vars;
  if (!collectVars(e.get(), vars))
    return;
  std::vector<Binding> &pool = currentTable->bindings;
  auto first = static_cast<uint32_t>(pool.size());
  for (size_t k = 0; k < vars.size; ++k) {
    Binding b{vars.vars[k], nullptr, nullptr, nullptr};
    if (!ranges_.empty())
      if (auto r = ranges_.find(b.var); r != ranges_.end()) {
        b.min = r->second.min;
        b.extent = r->second.extent;
      }
    if (!values_.empty())
      if (auto v = values_.find(b.var); v != values_.end()) {
        b.value = v->second;
        if (!collectVars(v->second.get(), vars)) { // appends the value's variables, visited in turn
          pool.resize(first);
          return;
        }
      }
    pool.push_back(std::move(b));
  }
  SimplifiedScope::Table::Entry entry{e, noOverflow_, walkResult, first, static_cast<uint32_t>(vars.size)};
  if (SimplifiedScope::Table::Entry *known = currentTable->entries.find(e.get()))
    *known = std::move(entry); // the latest bindings: the ones the next passes likely share
  else
    currentTable->entries.insert(e.get(), std::move(entry));
}

} // namespace tirlower
