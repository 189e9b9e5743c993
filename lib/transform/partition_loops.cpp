// partition-loops: splits a serial loop where a condition on its variable changes value, so
// that each part runs without the condition (TVM's LoopPartition, index-set splitting). A
// condition of a T.if_then_else or an `if` inside the loop that compares an affine function
// of the loop variable alone with a constant (`32 <= k`, `h * 2 - 1 < 0`) is true on one side
// of a point and false on the other; the loop becomes one loop per side, each with the
// comparison replaced by its value and the T.if_then_else or `if` it decides folded. The parts
// run in the original order over the original iterations, so the program is the same whatever
// the body does. A concatenation (`T.if_then_else(32 <= k, A[k - 32], B[k])`, over k in 0..64)
// becomes two plain copies that a compiler vectorizes with contiguous loads: with the condition
// in the loop, each lane's load is conditional, and LLVM scalarises conditional loads of types
// its target cannot mask (float16 without AVX512-FP16).
//
// Left alone: loops that are not serial, have a symbolic bound, an annotation or a thread tag;
// comparisons that use another variable, a load, or are not affine in the loop variable; and
// loops with more than two such points (a part per side of each point would copy the body more
// than three times). Definitions inside the copied body get fresh variables (convert-ssa).
//
// Preconditions: blocks lowered (a block would be copied under its name).
//
//   for k in range(64):                                    for k in range(32):
//       C[k] = T.if_then_else(32 <= k, A[k - 32], B[k])  ->    C[k] = B[k]
//                                                          for k_1 in range(32):
//                                                              C[k_1 + 32] = A[k_1]
#include "arith/analyzer.h"
#include "arith/constant_step.h"
#include "arith/expr_util.h"
#include "ir/intrinsics.h"
#include "ir/visitor.h"
#include "transform/body_pass.h"
#include "transform/passes.h"

#include <algorithm>
#include <unordered_map>

namespace tirlower {

namespace {

constexpr size_t kMaxPoints = 2;

// Whether `e` uses no variable but `var` and reads no buffer.
class OnlyUses : public IRVisitor {
public:
  explicit OnlyUses(const VarNode *var) : var_(var) {}
  bool ok = true;
  using IRVisitor::visit;

protected:
  void visit(const VarNode *op) override { ok &= op == var_; }
  void visit(const BufferLoadNode *) override { ok = false; }
  void visit(const CallNode *op) override {
    ok &= op->intrinsic && op->intrinsic->effect == CallEffect::Pure;
    IRVisitor::visit(op);
  }

private:
  const VarNode *var_;
};

// The comparisons that decide a T.if_then_else or an `if` (through and, or, not), and where
// each changes value over the loop: the first iteration at which it has its value at the last.
class SplitPoints : public IRVisitor {
public:
  SplitPoints(const Var &var, int64_t min, int64_t extent, Analyzer &analyzer)
      : var_(var), min_(min), extent_(extent), analyzer_(analyzer) {}

  std::unordered_map<const ExprNode *, int64_t> points; // comparison -> where it changes
  using IRVisitor::visit;

  // The comparison's value at iteration `at`, folded to a constant (its operands use only the
  // loop variable).
  bool valueAt(const ExprNode *comparison, int64_t at) {
    Expr folded = analyzer_.simplify(substitute(Expr(comparison), {{var_, intImm(at, var_->type)}}));
    const int64_t *value = asConstInt(folded);
    return value && *value != 0;
  }

protected:
  void visit(const IfThenElseNode *op) override {
    condition(op->condition);
    IRVisitor::visit(op);
  }
  void visit(const CallNode *op) override {
    if (op->intrinsic && op->intrinsic->id == IntrinsicId::IfThenElse && !op->args.empty())
      condition(op->args[0]);
    IRVisitor::visit(op);
  }

private:
  void condition(const Expr &e) {
    if (const auto *n = e.as<NotNode>())
      return condition(n->a);
    const auto *b = e.as<BinaryNode>();
    if (!b || b->type.isVector())
      return;
    if (isLogical(b->op)) {
      condition(b->a);
      condition(b->b);
      return;
    }
    if (b->op != BinaryOp::LT && b->op != BinaryOp::LE && b->op != BinaryOp::GT && b->op != BinaryOp::GE)
      return;
    if (!b->a->type.isInt() || points.count(b) || !usesVar(e, var_.get()))
      return;
    OnlyUses only(var_.get());
    only.visit(e);
    std::optional<int64_t> step = only.ok ? constantStep(analyzer_, BinaryNode::make(BinaryOp::Sub, b->a, b->b), var_)
                                          : std::nullopt;
    if (!step || *step == 0)
      return;
    // Affine in the variable: the value changes at most once. Find where by bisection.
    int64_t last = min_ + extent_ - 1;
    bool atLast = valueAt(b, last);
    if (valueAt(b, min_) == atLast)
      return;
    int64_t lo = min_, hi = last; // valueAt(lo) != atLast, valueAt(hi) == atLast
    while (hi - lo > 1) {
      int64_t mid = lo + (hi - lo) / 2;
      (valueAt(b, mid) == atLast ? hi : lo) = mid;
    }
    points[b] = hi;
  }

  const Var &var_;
  int64_t min_, extent_;
  Analyzer &analyzer_;
};

// One part of the loop, [begin, end): each decided comparison replaced by its value there, and
// the T.if_then_else and `if` statements whose condition becomes a constant folded.
class DecidePart : public IRMutator {
public:
  DecidePart(const std::unordered_map<const ExprNode *, bool> &values, Analyzer &analyzer)
      : values_(values), analyzer_(analyzer) {}
  using IRMutator::visit;

  Expr visit(const BinaryNode *op) override {
    auto found = values_.find(op);
    if (found != values_.end())
      return intImm(found->second, DataType::boolean());
    return IRMutator::visit(op);
  }
  Expr visit(const CallNode *op) override {
    Expr visited = IRMutator::visit(op);
    const auto *call = visited.as<CallNode>();
    if (!call || !call->intrinsic || call->intrinsic->id != IntrinsicId::IfThenElse || call->args.size() != 3)
      return visited;
    const int64_t *value = asConstInt(analyzer_.simplify(call->args[0]));
    return value ? call->args[*value ? 1 : 2] : visited;
  }
  Stmt visit(const IfThenElseNode *op) override {
    Stmt visited = IRMutator::visit(op);
    const auto *branch = visited.as<IfThenElseNode>();
    if (!branch)
      return visited;
    const int64_t *value = asConstInt(analyzer_.simplify(branch->condition));
    if (!value)
      return visited;
    if (*value)
      return branch->thenCase;
    return branch->elseCase ? branch->elseCase : EvaluateNode::make(intImm(0), op->loc);
  }

private:
  const std::unordered_map<const ExprNode *, bool> &values_;
  Analyzer &analyzer_;
};

class LoopPartitioner : public IRMutator {
public:
  bool changed = false;
  using IRMutator::visit;

  Stmt visit(const ForNode *op) override {
    Stmt visited = IRMutator::visit(op);
    const auto *loop = visited.as<ForNode>();
    if (!loop || !partitionable(*loop))
      return visited;
    const int64_t min = *asConstInt(loop->min), extent = *asConstInt(loop->extent);
    analyzer_.bindRange(loop->loopVar, min, extent);
    SplitPoints finder(loop->loopVar, min, extent, analyzer_);
    finder.visit(loop->body);
    std::vector<int64_t> cuts;
    for (const auto &[comparison, at] : finder.points)
      cuts.push_back(at);
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    if (cuts.empty() || cuts.size() > kMaxPoints) {
      analyzer_.unbind(loop->loopVar);
      return visited;
    }
    cuts.insert(cuts.begin(), min);
    cuts.push_back(min + extent);
    std::vector<Stmt> parts;
    for (size_t k = 0; k + 1 < cuts.size(); ++k)
      parts.push_back(part(*loop, finder, cuts[k], cuts[k + 1]));
    analyzer_.unbind(loop->loopVar);
    changed = true;
    return SeqStmtNode::make(std::move(parts), loop->loc);
  }

private:
  // The loop over [begin, end), renumbered from 0, with the comparisons decided.
  Stmt part(const ForNode &loop, SplitPoints &finder, int64_t begin, int64_t end) {
    std::unordered_map<const ExprNode *, bool> values;
    for (const auto &[comparison, at] : finder.points)
      values[comparison] = finder.valueAt(comparison, begin);
    Stmt body = DecidePart(values, analyzer_).mutate(loop.body);
    const DataType type = loop.loopVar->type;
    if (begin != 0)
      body = substitute(body, {{loop.loopVar, BinaryNode::make(BinaryOp::Add, loop.loopVar, intImm(begin, type))}});
    return ForNode::make(loop.loopVar, intImm(0, type), intImm(end - begin, type), ForKind::Serial, body, {}, {},
                         loop.loc);
  }

  static bool partitionable(const ForNode &loop) {
    const int64_t *min = asConstInt(loop.min);
    const int64_t *extent = asConstInt(loop.extent);
    return loop.forKind == ForKind::Serial && min && extent && *extent > 1 && loop.annotations.empty() &&
           loop.threadTag.empty() && loop.loopVar->type.isInt();
  }

  Analyzer analyzer_;
};

class PartitionLoopsPass : public FunctionPass {
public:
  std::optional<PrimFunc> runOnFunction(PrimFunc func, PassContext &ctx) override {
    LoopPartitioner partitioner;
    Stmt body = partitioner.mutate(func->body);
    if (!partitioner.changed)
      return func;
    PrimFuncNode::Fields fields = func->fields();
    fields.body = body;
    // The parts share the loop's variables and the body's definitions: give each its own.
    Module module;
    module.functions.push_back(PrimFuncNode::make(std::move(fields)));
    std::optional<Module> unique = convertSSAPassInfo().create({})->run(std::move(module), ctx);
    if (!unique)
      return std::nullopt;
    return unique->functions.front();
  }
};

} // namespace

PassInfo partitionLoopsPassInfo() {
  PassInfo info;
  info.name = "partition-loops";
  info.aliases = {"loop-partition"};
  info.summary = "split a serial loop where a condition on its variable changes value, each part without the "
                 "condition (a concatenation becomes plain copies)";
  info.requirements = {IRProperty::BlocksLowered};
  info.create = [](const PassOptions &) -> std::unique_ptr<Pass> { return std::make_unique<PartitionLoopsPass>(); };
  return info;
}

} // namespace tirlower
