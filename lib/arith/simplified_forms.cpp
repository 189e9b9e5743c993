// The table behind SimplifiedScope (analyzer.h): the expressions the analyzers of one thread
// returned from simplify while the scope is open, each with the bindings it was simplified under.
#include <unordered_map>
#include <vector>

#include "arith/analyzer.h"
#include "arith/expr_util.h"
#include "ir/functor.h"
#include "ir/pointer_map.h"

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
  bool split =
      op.op == BinaryOp::FloorDiv || op.op == BinaryOp::FloorMod || op.op == BinaryOp::Div || op.op == BinaryOp::Mod;
  return !split || (op.a->kind() == ExprKind::Var && op.b->kind() == ExprKind::IntImm);
}

// Collects into `out`; `anyOp`: every expression qualifies (for the structural table, which
// holds an input with its answer: no second simplification is involved).
class VarCollector : public ExprFunctor<bool(const Expr &)> {
public:
  VarCollector(VarList &out, bool anyOp) : out_(out), anyOp_(anyOp) {}
  bool collect(const Expr &e) { return visitExpr(e); }

protected:
  bool visitVar(const VarNode *var) override {
    for (size_t k = 0; k < out_.size; ++k)
      if (out_.vars[k] == var)
        return true;
    if (out_.size == kMaxVars)
      return false;
    out_.vars[out_.size++] = var;
    return true;
  }
  bool visitIntImm(const IntImmNode *) override { return true; }
  bool visitFloatImm(const FloatImmNode *) override { return true; }
  bool visitStringImm(const StringImmNode *) override { return true; }
  bool visitBinary(const BinaryNode *op) override {
    return (anyOp_ || idempotentOp(*op)) && collect(op->a) && collect(op->b);
  }
  bool visitNot(const NotNode *op) override { return collect(op->a); }
  bool visitSelect(const SelectNode *op) override {
    return collect(op->condition) && collect(op->trueValue) && collect(op->falseValue);
  }
  bool visitCast(const CastNode *op) override { return collect(op->value); }
  bool visitRamp(const RampNode *op) override { return collect(op->base) && collect(op->stride); }
  bool visitBroadcast(const BroadcastNode *op) override { return collect(op->value); }
  bool visitLet(const LetNode *op) override { return collect(op->var) && collect(op->value) && collect(op->body); }
  bool visitCall(const CallNode *op) override {
    for (const Expr &a : op->args)
      if (!collect(a))
        return false;
    return true;
  }
  bool visitBufferLoad(const BufferLoadNode *op) override {
    for (const Expr &i : op->indices)
      if (!collect(i))
        return false;
    return true;
  }
  bool visitExprDefault(const ExprNode *) override { return false; }

private:
  VarList &out_;
  bool anyOp_;
};

bool collectVars(const Expr &e, VarList &out, bool anyOp) {
  return VarCollector(out, anyOp).collect(e);
}

} // namespace

struct SimplifiedScope::Table {
  struct Entry {
    Expr expr; // keeps the key alive
    bool noOverflow = false;
    bool walkResult = false;       // what the analyzer's walk returned, not an input kept as smaller
    uint32_t first = 0, count = 0; // its bindings in `bindings`
  };
  PointerMap<ExprNode, Entry> entries;
  // Inputs with their answers, by structural hash: the same index written twice in a function
  // (a store in both branches of an if) is simplified once.
  struct Answer {
    Expr input, result;
    bool noOverflow = false;
    uint32_t first = 0, count = 0; // the input's bindings in `bindings`
  };
  std::vector<Answer> answers;
  std::unordered_multimap<size_t, uint32_t> answersByHash;
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

bool Analyzer::simplifiedScopeOpen() {
  return currentTable != nullptr;
}

// Whether this analyzer binds the variables of bindings [first, first + count) as they were.
bool Analyzer::sameBindings(uint32_t first, uint32_t count) const {
  for (uint32_t k = first; k < first + count; ++k) {
    const Binding &b = currentTable->bindings[k];
    const Bound *now = bound_.find(b.var);
    bool ranged = now && now->min, valued = now && now->value;
    if (ranged != bool(b.min) || valued != bool(b.value))
      return false;
    if (ranged && !(sameBound(now->min, b.min) && sameBound(now->extent, b.extent)))
      return false;
    if (valued && !now->value.same(b.value))
      return false;
  }
  return true;
}

// Appends the bindings of `e`'s variables to the table's pool, through the values of let-bound
// variables (a variable's value is simplified in place of the variable, so its variables count
// too); false (and nothing appended) when `e` does not qualify.
bool Analyzer::captureBindings(const Expr &e, bool anyOp, uint32_t &first, uint32_t &count) const {
  VarList vars;
  if (!collectVars(e, vars, anyOp))
    return false;
  std::vector<Binding> &pool = currentTable->bindings;
  first = static_cast<uint32_t>(pool.size());
  for (size_t k = 0; k < vars.size; ++k) {
    Binding b{vars.vars[k], nullptr, nullptr, nullptr};
    if (const Bound *now = bound_.empty() ? nullptr : bound_.find(b.var)) {
      if (now->min) {
        b.min = now->min;
        b.extent = now->extent;
      }
      if (now->value) {
        b.value = now->value;
        if (!collectVars(now->value, vars, anyOp)) { // appends the value's variables, visited in turn
          pool.resize(first);
          return false;
        }
      }
    }
    pool.push_back(std::move(b));
  }
  count = static_cast<uint32_t>(vars.size);
  return true;
}

bool Analyzer::knownSimplified(const Expr &e, bool inner) const {
  if (!currentTable)
    return false;
  const SimplifiedScope::Table::Entry *entry = currentTable->entries.find(e.get());
  if (!entry || entry->noOverflow != noOverflow_ || (inner && !entry->walkResult) ||
      !sameBindings(entry->first, entry->count))
    return false;
  ++currentTable->hits;
  return true;
}

void Analyzer::rememberSimplified(const Expr &e, bool walkResult) const {
  uint32_t first = 0, count = 0;
  if (!currentTable || !e || asConstInt(e) || !captureBindings(e, false, first, count))
    return;
  SimplifiedScope::Table::Entry entry{e, noOverflow_, walkResult, first, count};
  if (SimplifiedScope::Table::Entry *known = currentTable->entries.find(e.get()))
    *known = std::move(entry); // the latest bindings: the ones the next passes likely share
  else
    currentTable->entries.insert(e.get(), std::move(entry));
}

Expr Analyzer::knownAnswer(const Expr &e, size_t hash) const {
  auto [it, end] = currentTable->answersByHash.equal_range(hash);
  for (; it != end; ++it) {
    const SimplifiedScope::Table::Answer &a = currentTable->answers[it->second];
    if (a.noOverflow == noOverflow_ && structurallyEqual(a.input, e) && sameBindings(a.first, a.count)) {
      ++currentTable->hits;
      return a.result.same(a.input) ? e : a.result; // an unchanged input: the caller's own nodes
    }
  }
  return nullptr;
}

void Analyzer::rememberAnswer(const Expr &e, size_t hash, const Expr &result) const {
  uint32_t first = 0, count = 0;
  if (!captureBindings(e, true, first, count))
    return;
  currentTable->answersByHash.emplace(hash, static_cast<uint32_t>(currentTable->answers.size()));
  currentTable->answers.push_back({e, result, noOverflow_, first, count});
}

} // namespace tirlower
