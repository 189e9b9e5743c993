// Out-of-bounds accesses provable from constants alone (static_bounds.h). An access that runs
// whenever the function runs is an error. One that runs only under a condition (a branch of
// `if` or `T.if_then_else`, a `while` body, a loop that may run zero times) is a warning, as
// C compilers' -Warray-bounds warns, and nothing when the condition is constant false: a
// guard like `T.if_then_else(0 <= i - 1, A[i - 1], 0)` with i = 0 substituted is how bounds
// checks look after unrolling. `T.Select` evaluates both operands, so its accesses are not
// guarded.
#include "ir/static_bounds.h"

#include <optional>
#include <unordered_set>

#include "ir/intrinsics.h"
#include "ir/visitor.h"

namespace tirlower {

namespace {

std::optional<int64_t> constantOf(const Expr &e) {
  if (!e)
    return std::nullopt;
  if (const int64_t *v = asConstInt(e))
    return *v;
  return std::nullopt;
}

// The smallest and largest lane of a constant index (a scalar, a ramp or a broadcast of one).
std::optional<std::pair<int64_t, int64_t>> constantLanes(const Expr &index) {
  if (std::optional<int64_t> v = constantOf(index))
    return std::make_pair(*v, *v);
  if (const auto *b = index.as<BroadcastNode>())
    return constantLanes(b->value);
  if (const auto *r = index.as<RampNode>()) {
    if (r->type.isScalable()) // its last lane depends on vscale
      return std::nullopt;
    std::optional<int64_t> base = constantOf(r->base), stride = constantOf(r->stride);
    if (!base || !stride)
      return std::nullopt;
    // Lanes are few and constants fit int64 with room: |stride| * lanes cannot overflow here
    // for any index type the IR allows (at most 64-bit values, at most 2^16 lanes).
    __int128 last = static_cast<__int128>(*base) + static_cast<__int128>(*stride) * (r->lanes - 1);
    if (last < INT64_MIN || last > INT64_MAX)
      return std::nullopt;
    return std::make_pair(std::min<int64_t>(*base, static_cast<int64_t>(last)),
                          std::max<int64_t>(*base, static_cast<int64_t>(last)));
  }
  return std::nullopt;
}

// The value of a condition made of integer constants, comparisons, `and`, `or` and `not`.
std::optional<bool> constantTruth(const Expr &e) {
  if (std::optional<int64_t> v = constantOf(e))
    return *v != 0;
  if (const auto *n = e.as<NotNode>()) {
    std::optional<bool> a = constantTruth(n->a);
    return a ? std::optional<bool>(!*a) : std::nullopt;
  }
  const auto *b = e.as<BinaryNode>();
  if (!b)
    return std::nullopt;
  if (b->op == BinaryOp::And || b->op == BinaryOp::Or) {
    std::optional<bool> x = constantTruth(b->a), y = constantTruth(b->b);
    bool isAnd = b->op == BinaryOp::And;
    if ((x && *x != isAnd) || (y && *y != isAnd))
      return !isAnd; // false and _, true or _
    if (x && y)
      return isAnd;
    return std::nullopt;
  }
  std::optional<int64_t> x = constantOf(b->a), y = constantOf(b->b);
  if (!x || !y)
    return std::nullopt;
  switch (b->op) {
  case BinaryOp::EQ: return *x == *y;
  case BinaryOp::NE: return *x != *y;
  case BinaryOp::LT: return *x < *y;
  case BinaryOp::LE: return *x <= *y;
  case BinaryOp::GT: return *x > *y;
  case BinaryOp::GE: return *x >= *y;
  default: return std::nullopt;
  }
}

class StaticBoundsChecker : public IRVisitor {
public:
  std::vector<Diagnostic> errors;
  using IRVisitor::visit;

  void checkDeclaration(const Buffer &buffer) {
    if (!declared_.insert(buffer.get()).second)
      return;
    std::optional<int64_t> offset = constantOf(buffer->elemOffset);
    if (offset && *offset < 0)
      errors.push_back({Severity::Error, buffer->loc,
                        "buffer '" + buffer->name.str() + "' has elem_offset " + std::to_string(*offset) +
                            "; an element offset must not be negative (its first element would lie before its data)",
                        {}});
  }

protected:
  void visitBuffer(const Buffer &buffer) override { checkDeclaration(buffer); }

  void visit(const BufferLoadNode *op) override {
    checkAccess(op->buffer, op->indices, op->loc);
    IRVisitor::visit(op);
  }
  void visit(const BufferStoreNode *op) override {
    checkAccess(op->buffer, op->indices, op->loc);
    IRVisitor::visit(op);
  }
  void visit(const CallNode *op) override {
    if (!op->intrinsic || op->intrinsic->id != IntrinsicId::IfThenElse || op->args.size() != 3)
      return IRVisitor::visit(op);
    IRVisitor::visit(op->args[0]);
    std::optional<bool> truth = constantTruth(op->args[0]);
    guarded(truth != false, [&] { IRVisitor::visit(op->args[1]); });
    guarded(truth != true, [&] { IRVisitor::visit(op->args[2]); });
  }
  void visit(const IfThenElseNode *op) override {
    IRVisitor::visit(op->condition);
    std::optional<bool> truth = constantTruth(op->condition);
    guarded(truth != false, [&] { IRVisitor::visit(op->thenCase); });
    if (op->elseCase)
      guarded(truth != true, [&] { IRVisitor::visit(op->elseCase); });
  }
  void visit(const WhileNode *op) override {
    IRVisitor::visit(op->condition);
    guarded(constantTruth(op->condition) != false, [&] { IRVisitor::visit(op->body); });
  }
  void visit(const ForNode *op) override {
    IRVisitor::visit(op->min);
    IRVisitor::visit(op->extent);
    std::optional<int64_t> extent = constantOf(op->extent);
    if (extent && *extent > 0)
      return IRVisitor::visit(op->body);
    guarded(!extent, [&] { IRVisitor::visit(op->body); });
  }

private:
  // Visits what runs only under a condition: `mayRun` false means it never runs (no
  // diagnostics); otherwise its out-of-bounds accesses are warnings.
  template <typename F> void guarded(bool mayRun, F &&visitBody) {
    if (!mayRun)
      return;
    ++conditional_;
    visitBody();
    --conditional_;
  }

  Severity severity() const { return conditional_ > 0 ? Severity::Warning : Severity::Error; }

  void checkAccess(const Buffer &buffer, const std::vector<Expr> &indices, SourceRange where) {
    for (size_t k = 0; k < buffer->shape.size(); ++k) {
      std::optional<int64_t> extent = constantOf(buffer->shape[k]);
      if (extent && *extent == 0) {
        errors.push_back({severity(), where,
                          "buffer '" + buffer->name.str() + "' has no elements (extent 0 on axis " + std::to_string(k) +
                              "): every access to it is out of bounds",
                          {}});
        return;
      }
    }
    if (indices.size() != buffer->shape.size())
      return; // the verifier's to report
    for (size_t k = 0; k < indices.size(); ++k) {
      std::optional<std::pair<int64_t, int64_t>> lanes = constantLanes(indices[k]);
      if (!lanes)
        continue;
      std::optional<int64_t> extent = constantOf(buffer->shape[k]);
      int64_t bad = lanes->first < 0 ? lanes->first : lanes->second;
      if (bad >= 0 && (!extent || bad < *extent))
        continue;
      SourceRange at = indices[k]->loc.valid() ? indices[k]->loc : where;
      std::string axis = indices.size() > 1 ? " on axis " + std::to_string(k) : "";
      errors.push_back({severity(), at,
                        "index " + std::to_string(bad) + " is out of bounds of buffer '" + buffer->name.str() + "'" +
                            axis + (extent ? " (extent " + std::to_string(*extent) + ")" : " (negative)"),
                        {}});
    }
  }

  std::unordered_set<const BufferNode *> declared_;
  int conditional_ = 0;
};

} // namespace

std::vector<Diagnostic> staticBoundsErrors(const PrimFuncNode &function) {
  StaticBoundsChecker checker;
  for (const BufferBinding &binding : function.bufferMap)
    checker.checkDeclaration(binding.buffer);
  checker.visit(function.body);
  return std::move(checker.errors);
}

} // namespace tirlower
