// outer-loop-vectorize: vectorizes a reduction across the elements it produces. A loop over
// contiguous outputs, whose body is the reduction loops that accumulate each output (the init
// hoisted before them), is cut into groups of `lanes` iterations, and each group runs the
// reduction loops once with every innermost statement turned into a T.vectorized loop over the
// group: `vectorize` then makes vector loads, stores and arithmetic of them, and the compiler
// keeps the group's accumulators in a vector register across the reduction (what gcc calls
// outer-loop vectorisation). An unscheduled matmul `C[i, j] += A[i, k] * B[k, j]` so streams a
// row of B through `lanes` accumulators instead of walking a column of B with one.
//
// The group's iterations run in lockstep, statement by statement, instead of one after the
// other. That is the same program when nothing one iteration does can be seen by another: every
// buffer the body stores to (1) is accessed in the body only at one index, the same for every
// load and store of it, (2) that index does not use the inner loops' variables and moves by
// exactly one element per iteration of the loop (distinct iterations touch distinct elements;
// it is also what makes the vector access contiguous), (3) is the function's own storage or a
// parameter of a function with noalias. The body holds only serial or unrolled loops whose
// bounds do not use the loop's variable and stores of scalars, and calls nothing opaque. Each
// output still receives its updates in the same order, so floating-point results are
// unchanged. For profit, every other load moves by zero, one or two elements per iteration (a
// broadcast, a contiguous vector, or the stride-2 window of a strided convolution, which the
// LLVM emitter reads with one masked load and a shuffle; else the jammed copies below), and the
// inner loops make more than 16 iterations in all.
//
// When a load would need a gather (it moves by another amount), a float reduction runs 8
// iterations jammed as scalar copies instead (8 independent accumulators); an integer one is
// left alone (compilers vectorize integer sums themselves). The loop must be serial; the group
// is `lanes` (option, default 16; 8 when jammed) or half or a quarter of it (at least 2),
// whichever divides a constant extent first (none: the loop is left alone); a symbolic extent
// runs whole groups and then a tail loop of the rest. Loops are tried outermost first; a
// rewritten loop is not looked into.
//
// Preconditions: blocks lowered, the reduction's init out of its loops (hoist-reduction-init);
// best after flatten (vector indices must be in the last dimension) and before vectorize.
//
//   for j in range(32):                     for j_o in range(2):
//       C[j] = T.float32(0.0)                   for j_v in T.vectorized(16):
//       for k in range(64):           ->            C[j_o * 16 + j_v] = T.float32(0.0)
//           C[j] = C[j] + A[k] * B[k, j]        for k in range(64):
//                                                   for j_v_1 in T.vectorized(16):
//                                                       C[j_o * 16 + j_v_1] = C[...] + A[k] * B[k, j_o * 16 + j_v_1]
#include "arith/analyzer.h"
#include "arith/constant_step.h"
#include "arith/expr_util.h"
#include "ir/attrs.h"
#include "ir/equality.h"
#include "ir/intrinsics.h"
#include "ir/visitor.h"
#include "transform/body_pass.h"
#include "transform/pass_options.h"
#include "transform/passes.h"

#include <algorithm>
#include <climits>
#include <unordered_map>
#include <unordered_set>

namespace tirlower {

namespace {

// Nests of at most this many iterations LLVM unrolls fully (its kernel pipeline's early
// unroll), after which it vectorizes the loop over the outputs itself (a 3x3 window): a
// reduction is worth this rewrite only with more iterations (a 3x3 window over 3 channels,
// 27, stayed a loop and kept the output loop scalar).
constexpr int64_t kShortLoop = 16;
// Iterations jammed together when a load would need a gather (a dot product of two rows,
// `C[j] += A[k] * W[j, k]`): that many independent accumulators instead of one chain of
// dependent additions.
constexpr int64_t kJam = 8;

struct Context {
  std::unordered_set<const VarNode *> ownData; // data of buffers the function allocates (allocatedData)
  bool noalias = false;
  int64_t lanes = 16;
};

// What a candidate loop's body holds, gathered in one walk; `ok` false when the body has a
// statement the rewrite does not take.
struct BodyFacts : IRVisitor {
  const VarNode *var;
  std::vector<const VarNode *> innerVars;
  std::vector<const BufferStoreNode *> stores;
  std::vector<const BufferLoadNode *> loads;
  bool ok = true, hasLongLoop = false;
  int64_t trips = 1; // iterations of the inner loops around the statement being walked

  explicit BodyFacts(const VarNode *v) : var(v) {}

  void walk(const Stmt &s) {
    if (!ok)
      return;
    if (const auto *seq = s.as<SeqStmtNode>()) {
      for (const Stmt &t : seq->stmts)
        walk(t);
    } else if (const auto *loop = s.as<ForNode>()) {
      if ((loop->forKind != ForKind::Serial && loop->forKind != ForKind::Unrolled) || usesVar(loop->min, var) ||
          usesVar(loop->extent, var)) {
        ok = false;
        return;
      }
      const int64_t *extent = asConstInt(loop->extent);
      int64_t outer = trips;
      if (!extent || __builtin_mul_overflow(trips, std::max<int64_t>(*extent, 1), &trips))
        trips = INT64_MAX;
      hasLongLoop |= trips > kShortLoop;
      innerVars.push_back(loop->loopVar.get());
      walk(loop->body);
      trips = outer;
    } else if (const auto *branch = s.as<IfThenElseNode>()) {
      if (usesVar(branch->condition, var)) {
        ok = false;
        return;
      }
      visit(branch->condition);
      walk(branch->thenCase);
      if (branch->elseCase)
        walk(branch->elseCase);
    } else if (const auto *store = s.as<BufferStoreNode>()) {
      if (store->value->type.lanes() != 1) {
        ok = false;
        return;
      }
      stores.push_back(store);
      visit(store->value);
      for (const Expr &index : store->indices)
        visit(index);
    } else {
      ok = false;
    }
  }

  using IRVisitor::visit;
  void visit(const BufferLoadNode *op) override {
    ok &= op->type.lanes() == 1;
    loads.push_back(op);
    IRVisitor::visit(op);
  }
  void visit(const CallNode *op) override {
    ok &= op->intrinsic && op->intrinsic->effect < CallEffect::EmbedInfo;
    IRVisitor::visit(op);
  }
  void visit(const RampNode *) override { ok = false; }
  void visit(const BroadcastNode *) override { ok = false; }
};

// Iterations of the loop run together, and whether as vector lanes or as copies.
struct Plan {
  int64_t group = 0;
  bool vector = false;
  bool tail = false; // the extent is not a constant: the iterations past the last group follow
};

class OuterVectorizer : public IRMutator {
public:
  explicit OuterVectorizer(Context ctx) : ctx_(std::move(ctx)) {}

protected:
  using IRMutator::visit;

  Stmt visit(const ForNode *op) override {
    if (Plan plan = planOf(op); plan.group)
      return rewrite(op, plan);
    return IRMutator::visit(op);
  }

private:
  // How far `e` moves when the loop variable moves by one: a constant, or nullopt.
  std::optional<int64_t> step(const Expr &e, const ForNode *loop) { return constantStep(analyzer_, e, loop->loopVar); }

  // Every index but the last stays put, the last moves by one of `allowed`.
  bool moves(const std::vector<Expr> &indices, const ForNode *loop, std::initializer_list<int64_t> allowed) {
    for (size_t k = 0; k < indices.size(); ++k) {
      std::optional<int64_t> s = step(indices[k], loop);
      if (!s)
        return false;
      bool fine = false;
      for (int64_t a : allowed)
        fine |= (k + 1 == indices.size()) ? *s == a : *s == 0;
      if (!fine)
        return false;
    }
    return true;
  }

  // The largest of `size`, size / 2, size / 4 (at least 2) that divides `extent`, else 0.
  static int64_t divisorOf(int64_t extent, int64_t size) {
    for (int64_t g = size; g >= 2 && g >= size / 4; g /= 2)
      if (extent % g == 0)
        return g;
    return 0;
  }

  // How `loop` is rewritten (see the file comment); group 0 when it is not.
  Plan planOf(const ForNode *loop) {
    if (loop->forKind != ForKind::Serial)
      return {};
    BodyFacts facts(loop->loopVar.get());
    facts.walk(loop->body);
    if (!facts.ok || !facts.hasLongLoop || facts.stores.empty())
      return {};
    // The stored buffers: one buffer object and one index list per data variable.
    std::unordered_map<const VarNode *, const BufferStoreNode *> stored;
    for (const BufferStoreNode *s : facts.stores) {
      auto [it, fresh] = stored.emplace(s->buffer->data.get(), s);
      if (!fresh && (it->second->buffer.get() != s->buffer.get() || !structurallyEqual(it->second->indices, s->indices)))
        return {};
    }
    for (const auto &[data, s] : stored) {
      if (!ctx_.noalias && !ctx_.ownData.count(data))
        return {};
      for (const Expr &index : s->indices)
        for (const VarNode *inner : facts.innerVars)
          if (usesVar(index, inner))
            return {};
      if (!moves(s->indices, loop, {1}))
        return {};
    }
    bool contiguous = true;
    for (const BufferLoadNode *l : facts.loads) {
      auto it = stored.find(l->buffer->data.get());
      if (it != stored.end()) {
        if (it->second->buffer.get() != l->buffer.get() || !structurallyEqual(it->second->indices, l->indices))
          return {};
      } else if (!moves(l->indices, loop, {0, 1, 2})) {
        contiguous = false;
      }
    }
    // Integer sums may be reassociated: LLVM and the C compilers vectorize those loops
    // themselves, and jamming them only costs registers.
    if (!contiguous)
      for (const BufferStoreNode *s : facts.stores)
        if (!s->value->type.isFloat())
          return {};
    int64_t size = contiguous ? ctx_.lanes : kJam;
    const int64_t *extent = asConstInt(loop->extent);
    if (!extent)
      return {size, contiguous, true};
    return {divisorOf(*extent, size), contiguous, false};
  }

  // Each store becomes a T.vectorized loop over the group, with a variable of its own, or
  // (jammed) one copy per iteration of the group.
  Stmt lanes(const Stmt &s, const Var &var, const Expr &first, const Plan &plan) {
    if (const auto *seq = s.as<SeqStmtNode>()) {
      std::vector<Stmt> stmts;
      for (const Stmt &t : seq->stmts)
        stmts.push_back(lanes(t, var, first, plan));
      return SeqStmtNode::make(std::move(stmts), seq->loc);
    }
    if (const auto *loop = s.as<ForNode>())
      return ForNode::make(loop->loopVar, loop->min, loop->extent, loop->forKind, lanes(loop->body, var, first, plan),
                           loop->threadTag, loop->annotations, loop->loc);
    if (const auto *branch = s.as<IfThenElseNode>())
      return IfThenElseNode::make(branch->condition, lanes(branch->thenCase, var, first, plan),
                                  branch->elseCase ? lanes(branch->elseCase, var, first, plan) : Stmt(), branch->loc);
    if (!plan.vector) {
      std::vector<Stmt> copies;
      for (int64_t l = 0; l < plan.group; ++l)
        copies.push_back(substitute(s, {{var, l == 0 ? first : first + intImm(l, var->type)}}));
      return SeqStmtNode::make(std::move(copies), s->loc);
    }
    Var lane = VarNode::make(Symbol(var->name.str() + "_v"), var->type, var->loc);
    Stmt body = substitute(s, {{var, first + lane}});
    return ForNode::make(lane, intImm(0, var->type), intImm(plan.group, var->type), ForKind::Vectorized, body, {}, {},
                         s->loc);
  }

  Stmt rewrite(const ForNode *loop, const Plan &plan) {
    int64_t group = plan.group;
    DataType t = loop->loopVar->type;
    Var outer = VarNode::make(Symbol(loop->loopVar->name.str() + "_o"), t, loop->loopVar->loc);
    Expr first = outer * intImm(group, t);
    if (const int64_t *m = asConstInt(loop->min); !m || *m != 0)
      first = loop->min + first;
    Expr size = intImm(group, t);
    Expr groups = plan.tail ? BinaryNode::make(BinaryOp::Div, loop->extent, size, loop->loc)
                            : intImm(*asConstInt(loop->extent) / group, t);
    Stmt grouped = ForNode::make(outer, intImm(0, t), groups, ForKind::Serial,
                                 lanes(loop->body, loop->loopVar, first, plan), loop->threadTag, loop->annotations,
                                 loop->loc);
    if (!plan.tail)
      return grouped;
    // Truncating division: with a negative extent both loops are empty, as the loop was.
    Expr done = groups * size;
    const int64_t *min = asConstInt(loop->min);
    Stmt rest = ForNode::make(loop->loopVar, min && *min == 0 ? done : loop->min + done, loop->extent - done, ForKind::Serial, loop->body,
                              loop->threadTag, loop->annotations, loop->loc);
    return SeqStmtNode::make({grouped, rest}, loop->loc);
  }

  Context ctx_;
  Analyzer analyzer_;
};

} // namespace

PassInfo outerLoopVectorizePassInfo() {
  PassInfo info;
  info.name = "outer-loop-vectorize";
  info.requirements = {IRProperty::BlocksLowered};
  info.summary = "vectorize a reduction across contiguous outputs: the loop over them moves, in groups, inside the "
                 "reduction loops as T.vectorized loops";
  static const PassOption<int64_t> lanesOption{
      integerOption("lanes", "16", "outputs computed together (a vector's lanes)", 2, 1024)};
  info.options = {lanesOption};
  info.create = [](const PassOptions &options) {
    int64_t lanes = lanesOption.of(options);
    return std::make_unique<BodyPass>([lanes](const PrimFunc &func, PassContext &) {
      Context ctx;
      ctx.noalias = noalias(*func);
      ctx.ownData = allocatedData(func->body);
      ctx.lanes = lanes;
      return OuterVectorizer(std::move(ctx)).mutate(func->body);
    });
  };
  return info;
}

} // namespace tirlower
