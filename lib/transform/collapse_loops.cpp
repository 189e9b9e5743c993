// collapse-loops: makes one loop of two perfectly nested serial loops that walk memory as one
// (OpenMP's collapse, LLVM's LoopFlatten). A loop `a` of extent A whose whole body is a loop `b`
// of extent B becomes one loop `f` of extent A * B when every index that uses a or b is affine
// in them with a's step B times b's: the index is then `c + s * (a * B + b)`, which is `c + s * f`
// with a = 0 and b = f. The iterations run in the same order, so the program is the same; the
// index identity holds in wrapping arithmetic too, and A * B must fit the loop variable's type.
// Pairs collapse from the innermost out, so a copy or an elementwise nest over contiguous
// buffers becomes one long loop: a compiler vectorizes its contiguous accesses, where a short
// innermost loop is fully unrolled first and the loop around it then walks memory in strides
// (LLVM vectorizes that one with gathers and scatters on AVX-512 targets).
//
// Left alone: loops that are not serial, do not start at 0, have a symbolic extent or an
// annotation, a or b used anywhere but in buffer indices (a condition, a value, another loop's
// bound), and indices that are not affine in them or whose steps do not line up (a transpose,
// a broadcast along one of the two loops).
//
// Preconditions: flat buffers (run after flatten, before vectorize: a vectorized loop is not
// serial and is never collapsed).
//
//   for i1 in range(32):                     for i1_i2_fused in range(512):
//       for i2 in range(16):           ->        P[i1_i2_fused] = A[i1_i2_fused]
//           P[i1 * 16 + i2] = A[i1 * 16 + i2]
#include "arith/analyzer.h"
#include "arith/constant_step.h"
#include "arith/expr_util.h"
#include "ir/visitor.h"
#include "transform/body_pass.h"
#include "transform/passes.h"

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>

namespace tirlower {

namespace {

// Whether every use of `a` and `b` in a statement is in a buffer index that is affine in them
// with step(a) == extentB * step(b), the steps proved constant by the analyzer.
class CollapsibleUses : public IRVisitor {
public:
  CollapsibleUses(Var a, Var b, int64_t extentB, Analyzer &analyzer)
      : a_(std::move(a)), b_(std::move(b)), extentB_(extentB), analyzer_(analyzer) {}

  bool ok = true;
  using IRVisitor::visit;

protected:
  void visit(const VarNode *op) override { ok &= op != a_.get() && op != b_.get(); }
  // A buffer whose shape, strides or offset uses a or b (declared inside the nest).
  void visitBuffer(const Buffer &buffer) override {
    auto uses = [&](const Expr &e) { return e && (usesVar(e, a_.get()) || usesVar(e, b_.get())); };
    ok &= std::none_of(buffer->shape.begin(), buffer->shape.end(), uses) &&
          std::none_of(buffer->strides.begin(), buffer->strides.end(), uses) && !uses(buffer->elemOffset);
  }
  void visit(const BufferLoadNode *op) override { checkIndices(op->indices); }
  void visit(const BufferStoreNode *op) override {
    checkIndices(op->indices);
    IRVisitor::visit(op->value);
  }

private:
  // An index that uses a or b passes or fails as a whole and is not walked further: a load
  // inside it would make its step not a constant.
  void checkIndices(const std::vector<Expr> &indices) {
    for (const Expr &index : indices) {
      if (!usesVar(index, a_.get()) && !usesVar(index, b_.get()))
        continue;
      std::optional<int64_t> stepA = step(index, a_), stepB = step(index, b_);
      ok &= !index->type.isVector() && stepA && stepB &&
            static_cast<__int128>(*stepB) * extentB_ == static_cast<__int128>(*stepA);
    }
  }

  std::optional<int64_t> step(const Expr &e, const Var &v) { return constantStep(analyzer_, e, v); }

  Var a_, b_;
  int64_t extentB_;
  Analyzer &analyzer_;
};

// Rewrites the indices that use a or b (the only uses CollapsibleUses let through) to their
// form over the fused variable, c + s * f, simplified.
class FusedIndices : public IRMutator {
public:
  FusedIndices(const Var &a, const Var &b, const Var &fused, Analyzer &analyzer)
      : a_(a), b_(b), fused_(fused), analyzer_(analyzer) {}
  using IRMutator::visit;

  Expr visit(const BufferLoadNode *op) override {
    return BufferLoadNode::make(op->buffer, rewrite(op->indices), op->loc);
  }
  Stmt visit(const BufferStoreNode *op) override {
    return BufferStoreNode::make(op->buffer, mutate(op->value), rewrite(op->indices), op->loc);
  }

private:
  std::vector<Expr> rewrite(const std::vector<Expr> &indices) {
    std::vector<Expr> result;
    for (const Expr &index : indices)
      result.push_back(usesVar(index, a_.get()) || usesVar(index, b_.get())
                           ? analyzer_.simplify(substitute(index, {{a_, intImm(0, a_->type)}, {b_, fused_}}))
                           : mutate(index));
    return result;
  }

  const Var &a_, &b_, &fused_;
  Analyzer &analyzer_;
};

class LoopCollapser : public IRMutator {
public:
  using IRMutator::visit;

  Stmt visit(const ForNode *op) override {
    Stmt visited = IRMutator::visit(op);
    const auto *outer = visited.as<ForNode>();
    const auto *inner = outer ? outer->body.as<ForNode>() : nullptr;
    if (!inner || !collapsible(*outer) || !collapsible(*inner) || outer->loopVar->type != inner->loopVar->type)
      return visited;
    const int64_t extentA = *asConstInt(outer->extent), extentB = *asConstInt(inner->extent);
    const DataType type = outer->loopVar->type;
    const __int128 total = static_cast<__int128>(extentA) * extentB;
    if (total > (type.bits() >= 64 ? std::numeric_limits<int64_t>::max()
                                   : (static_cast<int64_t>(1) << (type.bits() - 1)) - 1))
      return visited;
    CollapsibleUses uses(outer->loopVar, inner->loopVar, extentB, analyzer_);
    uses.visit(inner->body);
    if (!uses.ok)
      return visited;
    Var fused = VarNode::make(Symbol(fusedName(*outer, *inner)), type, outer->loopVar->loc);
    Stmt body = FusedIndices(outer->loopVar, inner->loopVar, fused, analyzer_).mutate(inner->body);
    return ForNode::make(fused, intImm(0, type), intImm(static_cast<int64_t>(total), type), ForKind::Serial, body,
                         {}, {}, outer->loc);
  }

private:
  // TVM's name for fused loops: `i_j_fused`, and `i_j_k_fused` for three.
  static std::string fusedName(const ForNode &outer, const ForNode &inner) {
    constexpr std::string_view suffix = "_fused";
    std::string_view name = inner.loopVar->name.view();
    if (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix)
      name.remove_suffix(suffix.size());
    return outer.loopVar->name.str() + "_" + std::string(name) + std::string(suffix);
  }

  static bool collapsible(const ForNode &loop) {
    const int64_t *min = asConstInt(loop.min);
    const int64_t *extent = asConstInt(loop.extent);
    return loop.forKind == ForKind::Serial && min && *min == 0 && extent && *extent > 0 &&
           loop.annotations.empty() && loop.threadTag.empty() && loop.loopVar->type.isInt();
  }

  Analyzer analyzer_;
};

} // namespace

PassInfo collapseLoopsPassInfo() {
  PassInfo info;
  info.name = "collapse-loops";
  info.summary = "make one loop of two nested serial loops whose indices walk memory as one (a copy, an "
                 "elementwise nest over contiguous buffers)";
  info.requirements = {IRProperty::Flat};
  info.create = [](const PassOptions &) -> std::unique_ptr<Pass> {
    return std::make_unique<BodyPass>(
        [](const PrimFunc &func, PassContext &) { return LoopCollapser().mutate(func->body); });
  };
  return info;
}

} // namespace tirlower
