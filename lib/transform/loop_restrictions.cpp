// The restrictions conditions put on loop variables (loop_restrictions.h).
#include "transform/loop_restrictions.h"

#include "arith/expr_util.h"
#include "ir/intrinsics.h"
#include "ir/visitor.h"

namespace tirlower {

namespace {

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t ceilDiv(int64_t a, int64_t b) { // b > 0
  return -floorDiv(-a, b);
}

// Constants below this in magnitude, for a type of `bits`, leave room for sums of a few of them.
int64_t safeLimit(int bits) {
  return bits >= 64 ? (int64_t(1) << 61) : (int64_t(1) << (bits - 2));
}

// `a op b` (or its negation) as bounds of a - b: false for != and non-comparisons.
bool differenceBounds(BinaryOp op, bool positive, std::optional<int64_t> &low, std::optional<int64_t> &high) {
  if (!positive) {
    static const std::pair<BinaryOp, BinaryOp> negations[] = {{BinaryOp::LT, BinaryOp::GE}, {BinaryOp::LE, BinaryOp::GT},
                                                              {BinaryOp::GT, BinaryOp::LE}, {BinaryOp::GE, BinaryOp::LT},
                                                              {BinaryOp::EQ, BinaryOp::NE}, {BinaryOp::NE, BinaryOp::EQ}};
    for (const auto &[from, to] : negations)
      if (op == from) {
        op = to;
        break;
      }
  }
  switch (op) { // kind-switch: the comparisons as bounds of a - b
  case BinaryOp::LT: high = -1; return true;
  case BinaryOp::LE: high = 0; return true;
  case BinaryOp::GT: low = 1; return true;
  case BinaryOp::GE: low = 0; return true;
  case BinaryOp::EQ: low = high = 0; return true;
  default: return false;
  }
}

// diff = e + c, e a sum of loop variables: e in [low - c, high - c].
std::optional<Restriction> sumRestriction(const Expr &diff, const std::vector<Loop> &loops, std::optional<int64_t> low,
                                          std::optional<int64_t> high, int64_t limit) {
  std::vector<std::pair<Var, Expr>> zeros;
  for (const Loop &loop : loops)
    zeros.emplace_back(loop.var, intImm(0, loop.var->type));
  Analyzer plain;
  const int64_t *c = asConstInt(plain.simplify(substitute(diff, zeros)));
  if (!c || *c > limit || -*c > limit)
    return std::nullopt;
  Restriction r{nullptr, {}, {}, plain.simplify(diff - intImm(*c, diff->type))};
  if (low)
    r.lo = *low - *c;
  if (high)
    r.hi = *high - *c;
  return r;
}

// diff = k * v + c for the loop variable v: v's bounds from low <= diff <= high.
std::optional<Restriction> linearRestriction(const Expr &diff, const Var &v, std::optional<int64_t> low,
                                             std::optional<int64_t> high, int64_t limit) {
  Analyzer plain;
  const int64_t *c0 = asConstInt(plain.simplify(substitute(diff, {{v, intImm(0, v->type)}})));
  const int64_t *c1 = asConstInt(plain.simplify(substitute(diff, {{v, intImm(1, v->type)}})));
  if (!c0 || !c1 || *c1 == *c0)
    return std::nullopt;
  int64_t k = *c1 - *c0, c = *c0;
  const int64_t *rest = asConstInt(plain.simplify(diff - (intImm(k, v->type) * v + intImm(c, v->type))));
  if (!rest || *rest != 0 || k > limit || -k > limit || c > limit || -c > limit)
    return std::nullopt;
  Restriction r{v.get(), {}, {}, {}};
  if (high) {
    if (k > 0)
      r.hi = floorDiv(*high - c, k);
    else
      r.lo = ceilDiv(c - *high, -k);
  }
  if (low) {
    if (k > 0)
      r.lo = ceilDiv(*low - c, k);
    else
      r.hi = floorDiv(c - *low, -k);
  }
  return r;
}

} // namespace

void restrictionsOf(const Expr &condition, bool positive, const std::vector<Loop> &loops,
                    std::vector<Restriction> &out) {
  if (const auto *call = condition.as<CallNode>();
      call && call->intrinsic && call->intrinsic->id == IntrinsicId::Likely && call->args.size() == 1)
    return restrictionsOf(call->args[0], positive, loops, out);
  if (const auto *n = condition.as<NotNode>())
    return restrictionsOf(n->a, !positive, loops, out);
  const auto *bin = condition.as<BinaryNode>();
  if (!bin || bin->a->type.lanes() != 1)
    return;
  if ((bin->op == BinaryOp::And && positive) || (bin->op == BinaryOp::Or && !positive)) {
    restrictionsOf(bin->a, positive, loops, out);
    restrictionsOf(bin->b, positive, loops, out);
    return;
  }
  std::optional<int64_t> low, high;
  if (!isComparison(bin->op) || !bin->a->type.isInt() || !differenceBounds(bin->op, positive, low, high))
    return;
  Analyzer a;
  for (const Loop &l : loops)
    a.bindRange(l.var, l.min, l.extent);
  // a - b must not wrap: both sides well inside the type's range.
  int64_t limit = safeLimit(bin->a->type.bits());
  for (const Expr &side : {bin->a, bin->b}) {
    IntBounds b = a.bounds(side);
    if (!b.min || !b.max || *b.min < -limit || *b.max > limit)
      return;
  }
  Expr diff = a.simplify(bin->a - bin->b);
  const Loop *only = nullptr;
  int used = 0;
  for (const Loop &loop : loops)
    if (usesVar(diff, loop.var.get())) {
      only = &loop;
      ++used;
    }
  std::optional<Restriction> r;
  if (used > 1)
    r = sumRestriction(diff, loops, low, high, limit);
  else if (used == 1)
    r = linearRestriction(diff, only->var, low, high, limit);
  if (r)
    out.push_back(*r);
}

IntBounds narrowedBounds(Analyzer &analyzer, const Expr &e, const std::vector<Restriction> &restrictions) {
  IntBounds b = analyzer.bounds(e);
  Analyzer plain;
  int64_t limit = safeLimit(e->type.bits());
  int64_t edge = e->type.bits() >= 64 ? INT64_MAX / 2 : (int64_t(1) << (e->type.bits() - 1)) - 1;
  for (const Restriction &r : restrictions) {
    if (!r.expr || r.expr->type != e->type)
      continue;
    const int64_t *k = asConstInt(plain.simplify(e - r.expr));
    if (!k || *k > limit || -*k > limit)
      continue;
    // e = expr + k, which cannot wrap when both ends of [lo + k, hi + k] fit the type.
    if ((r.lo && (*r.lo + *k > edge || *r.lo + *k < -edge)) || (r.hi && (*r.hi + *k > edge || *r.hi + *k < -edge)))
      continue;
    if (r.lo && (!b.min || *r.lo + *k > *b.min))
      b.min = *r.lo + *k;
    if (r.hi && (!b.max || *r.hi + *k < *b.max))
      b.max = *r.hi + *k;
  }
  return b;
}

} // namespace tirlower
