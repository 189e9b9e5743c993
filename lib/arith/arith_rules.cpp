// Canonical sums for signed integer index arithmetic (+, -, *, floordiv, floormod by
// constants), the split-merging rule (x // 4) * 4 + x % 4 -> x, and the bound-aware
// floordiv/floormod rules.
#include "arith/analyzer_impl.h"
#include "arith/expr_util.h"
#include "arith/int_ops.h"
#include "ir/diagnostic.h"
#include "ir/script_expr_printer.h"

namespace tirlower {

namespace {

const int64_t *positiveConst(const Expr &e) {
  const int64_t *v = asConstInt(e);
  return v && *v > 0 ? v : nullptr;
}

bool isArithOp(BinaryOp op) {
  return op == BinaryOp::Add || op == BinaryOp::Sub || op == BinaryOp::Mul || op == BinaryOp::FloorDiv ||
         op == BinaryOp::FloorMod;
}

[[noreturn]] void divisionByZero(const Expr &where) {
  throw CompileError(where->loc, "division by zero in '" + formatExpr(where) + "'");
}

// Wraps `s` as one atom `op(s, c)`; nullopt when the sum cannot be written in its type.
std::optional<LinearSum> atomOf(BinaryOp op, const LinearSum &s, int64_t c) {
  Expr numerator = s.toExpr();
  if (!numerator || !fitsType(s.type(), c))
    return std::nullopt;
  return LinearSum::atomSum(BinaryNode::make(op, numerator, IntImmNode::make(s.type(), c)));
}

// The single split atom of `s` when s is exactly 1 * split.
std::optional<SplitView> singleSplit(const LinearSum &s) {
  if (s.terms().size() != 1 || s.constant() != 0 || s.terms()[0].coef != 1 || s.terms()[0].atoms.size() != 1)
    return std::nullopt;
  return asSplit(s.terms()[0].atoms[0]);
}

// x mod 2^bits does not change x's floor modulo c when c divides 2^bits: floormod of a sum that
// may wrap is still the sum's.
bool dividesWordSize(int64_t c, DataType type) {
  return c > 0 && (c & (c - 1)) == 0 && type.bits() < 64 && c <= (int64_t(1) << type.bits());
}

std::optional<int64_t> sameFloor(const IntBounds &b, int64_t c) {
  if (!b.min || !b.max)
    return std::nullopt;
  auto lo = floorDiv(*b.min, c), hi = floorDiv(*b.max, c);
  if (lo && hi && *lo == *hi)
    return lo;
  return std::nullopt;
}

// Divides every coefficient and the constant of `s` by their gcd with `c`; returns the gcd.
int64_t reduceByGcd(LinearSum &s, int64_t c) {
  int64_t g = c;
  for (const Term &t : s.terms())
    g = gcd64(g, t.coef);
  g = gcd64(g, s.constant());
  if (g <= 1)
    return 1;
  LinearSum reduced(s.type());
  for (const Term &t : s.terms())
    (void)reduced.addTerm(t.coef / g, t.atoms);
  (void)reduced.addConstant(s.constant() / g);
  s = reduced;
  return g;
}

} // namespace

namespace {
std::optional<SplitView> asSingleSplit(const Expr &atom) {
  auto *b = atom.as<BinaryNode>();
  if (!b)
    return std::nullopt;
  const int64_t *c = positiveConst(b->b);
  if (!c)
    return std::nullopt;
  auto *inner = b->a.as<BinaryNode>();
  const int64_t *ic = inner ? positiveConst(inner->b) : nullptr;
  if (b->op == BinaryOp::FloorDiv) {
    if (ic && inner->op == BinaryOp::FloorMod && *ic % *c == 0)
      return SplitView{inner->a, *c, *ic / *c};
    return SplitView{b->a, *c, std::nullopt};
  }
  if (b->op == BinaryOp::FloorMod) {
    if (ic && inner->op == BinaryOp::FloorDiv)
      return SplitView{inner->a, *ic, *c};
    return SplitView{b->a, 1, *c};
  }
  return std::nullopt;
}

} // namespace

// A split of a split is one split when the inner modulo is a multiple of the outer divisor:
// (x // 5) % 6 // 3 is (x // 15) % 2.
std::optional<SplitView> asSplit(const Expr &atom) {
  std::optional<SplitView> outer = asSingleSplit(atom);
  while (outer) {
    std::optional<SplitView> inner = asSingleSplit(outer->source);
    if (!inner || (inner->extent && *inner->extent % outer->lower != 0))
      break;
    auto lower = checkedMul(inner->lower, outer->lower);
    if (!lower)
      break;
    std::optional<int64_t> extent = outer->extent;
    if (inner->extent) {
      int64_t available = *inner->extent / outer->lower;
      if (extent && available % *extent != 0)
        break;
      if (!extent)
        extent = available;
    }
    outer = SplitView{inner->source, *lower, extent};
  }
  return outer;
}

Expr makeSplit(const SplitView &split) {
  DataType t = split.source->type;
  Expr e = split.source;
  if (split.lower != 1)
    e = BinaryNode::make(BinaryOp::FloorDiv, e, IntImmNode::make(t, split.lower));
  if (split.extent)
    e = BinaryNode::make(BinaryOp::FloorMod, e, IntImmNode::make(t, *split.extent));
  return e;
}

Expr AnalyzerImpl::simplifyIntArith(const Expr &e) {
  Expr rebuilt = rebuildArith(e);
  std::optional<LinearSum> sum = toSum(e);
  if (!sum)
    return rebuilt;
  mergeSplits(*sum);
  sum->compact();
  Expr canonical = sum->toExpr();
  if (canonical && exprCost(canonical) <= exprCost(rebuilt))
    return canonical;
  return rebuilt;
}

Expr AnalyzerImpl::rebuildArith(const Expr &e) {
  auto *op = e.as<BinaryNode>();
  if (!op || !isArithOp(op->op) || !isCanonicalType(e->type))
    return simplify(e);
  Expr a = rebuildArith(op->a), b = rebuildArith(op->b);
  if (Expr folded = foldConstants(op->op, a, b, e->loc, e))
    return folded;
  // Identities, so that the form as written loses its `0 + n` (what index arithmetic with a
  // zero region start leaves) even where the canonical form is not chosen.
  const int64_t *x = asConstInt(a), *y = asConstInt(b);
  if (op->op == BinaryOp::Add && x && *x == 0)
    return b;
  if ((op->op == BinaryOp::Add || op->op == BinaryOp::Sub) && y && *y == 0)
    return a;
  if (op->op == BinaryOp::Mul && x && *x == 1)
    return b;
  if (op->op == BinaryOp::Mul && y && *y == 1)
    return a;
  if (a.same(op->a) && b.same(op->b))
    return e;
  return BinaryNode::make(op->op, a, b, e->loc);
}

std::optional<LinearSum> AnalyzerImpl::toSum(const Expr &e) {
  if (const int64_t *v = asConstInt(e))
    return LinearSum::constantSum(e->type, *v);
  auto *op = e.as<BinaryNode>();
  if (!op || !isArithOp(op->op)) {
    Expr atom = simplify(e);
    if (const int64_t *v = asConstInt(atom))
      return LinearSum::constantSum(e->type, *v);
    auto *inner = atom.as<BinaryNode>();
    if (inner && isArithOp(inner->op) && !atom.same(e))
      return toSum(atom);
    return LinearSum::atomSum(atom);
  }
  if (op->op == BinaryOp::FloorDiv || op->op == BinaryOp::FloorMod) {
    Expr divisor = simplify(op->b);
    const int64_t *c = asConstInt(divisor);
    if (!c) {
      Expr a = simplify(op->a);
      if (a.same(op->a) && divisor.same(op->b))
        return LinearSum::atomSum(e);
      return LinearSum::atomSum(BinaryNode::make(op->op, a, divisor, e->loc));
    }
    if (*c == 0)
      divisionByZero(e);
    std::optional<LinearSum> a = toSum(op->a);
    if (!a)
      return std::nullopt;
    mergeSplits(*a);
    a->compact();
    return op->op == BinaryOp::FloorDiv ? divideSum(*a, *c) : modSum(*a, *c);
  }
  std::optional<LinearSum> a = toSum(op->a), b = toSum(op->b);
  if (!a || !b)
    return std::nullopt;
  if (a->isConstant() && b->isConstant()) {
    Expr folded = foldConstants(op->op, IntImmNode::make(DataType::int64(), a->constant()),
                                IntImmNode::make(DataType::int64(), b->constant()), e->loc, e);
    if (!folded)
      return std::nullopt;
    // The sums' constants fit int64, not always e's type: the type's arithmetic wraps.
    std::optional<int64_t> value = wrapToType(e->type, static_cast<uint64_t>(*asConstInt(folded)));
    if (!value)
      return std::nullopt;
    return LinearSum::constantSum(e->type, *value);
  }
  if (op->op == BinaryOp::Add || op->op == BinaryOp::Sub) {
    if (!a->add(*b, op->op == BinaryOp::Add ? 1 : -1))
      return std::nullopt;
    return a;
  }
  if (auto product = a->multiply(*b))
    return product;
  bool severalTerms = a->terms().size() + (a->constant() != 0) > 1 && b->terms().size() + (b->constant() != 0) > 1;
  if (!severalTerms)
    return std::nullopt; // overflow
  Expr x = a->toExpr(), y = b->toExpr();
  if (!x || !y)
    return std::nullopt;
  return LinearSum::atomSum(x * y);
}

void AnalyzerImpl::mergeSplits(LinearSum &s) {
  constexpr size_t kMaxSplitTerms = 64;
  for (size_t round = 0; round <= s.terms().size(); ++round) {
    std::vector<std::pair<size_t, SplitView>> splits;
    for (size_t k = 0; k < s.terms().size(); ++k) {
      const Term &t = s.terms()[k];
      if (t.coef != 0 && t.atoms.size() == 1)
        if (auto v = asSplit(t.atoms[0]))
          splits.emplace_back(k, *v);
    }
    if (splits.size() < 2 || splits.size() > kMaxSplitTerms)
      return;
    std::optional<std::pair<size_t, size_t>> found;
    SplitView merged;
    for (const auto &[i, low] : splits) {
      for (const auto &[j, high] : splits) {
        if (found || i == j || !low.extent || !structurallyEqual(low.source, high.source))
          continue;
        auto boundary = checkedMul(low.lower, *low.extent);
        auto coef = checkedMul(s.terms()[i].coef, *low.extent);
        if (!boundary || !coef || *boundary != high.lower || *coef != s.terms()[j].coef)
          continue;
        std::optional<int64_t> extent;
        if (high.extent) {
          extent = checkedMul(*low.extent, *high.extent);
          if (!extent)
            continue;
        }
        found = std::make_pair(i, j);
        merged = SplitView{low.source, low.lower, extent};
      }
    }
    if (!found)
      return;
    LinearSum next(s.type());
    size_t first = std::min(found->first, found->second), second = std::max(found->first, found->second);
    int64_t coef = s.terms()[found->first].coef;
    for (size_t k = 0; k < s.terms().size(); ++k) {
      const Term &t = s.terms()[k];
      if (k == second)
        continue;
      if (k != first) {
        (void)next.addTerm(t.coef, t.atoms);
        continue;
      }
      if (merged.lower == 1 && !merged.extent) {
        std::optional<LinearSum> source = toSum(merged.source);
        if (!source || !next.add(*source, coef))
          return;
      } else {
        (void)next.addTerm(coef, {makeSplit(merged)});
      }
    }
    if (!next.addConstant(s.constant()))
      return;
    s = next;
  }
}

std::optional<LinearSum> AnalyzerImpl::divideSum(const LinearSum &s, int64_t c) {
  DataType type = s.type();
  if (s.isConstant()) {
    std::optional<int64_t> q = wrappingFold(BinaryOp::FloorDiv, type, s.constant(), c);
    if (!q)
      return std::nullopt;
    return LinearSum::constantSum(type, *q);
  }
  if (c == 1)
    return s;
  // The sum as written computes s modulo 2^bits: its quotient is s's only when s does not wrap.
  // Otherwise (and for negative divisors) it stays one floordiv of the sum as written.
  if (c < 0 || !exact(s))
    return atomOf(BinaryOp::FloorDiv, s, c);
  LinearSum whole(type), rest(type);
  for (const Term &t : s.terms())
    (void)(t.coef % c == 0 ? whole.addTerm(t.coef / c, t.atoms) : rest.addTerm(t.coef, t.atoms));
  LinearSum withConstant = rest;
  (void)withConstant.addConstant(s.constant());
  if (auto m = sameFloor(bounds(withConstant), c))
    return whole.addConstant(*m) ? std::optional<LinearSum>(whole) : std::nullopt;
  int64_t q = *floorDiv(s.constant(), c), r = *floorMod(s.constant(), c);
  LinearSum remainder = rest;
  (void)remainder.addConstant(r);
  if (auto m = sameFloor(bounds(remainder), c)) {
    if (!whole.addConstant(q) || !whole.addConstant(*m))
      return std::nullopt;
    return whole;
  }
  if (!exact(withConstant)) // the part left to divide would wrap on its own
    return atomOf(BinaryOp::FloorDiv, s, c);
  int64_t divisor = c / reduceByGcd(withConstant, c);
  Expr atom;
  if (auto split = singleSplit(withConstant); split && !split->extent) {
    if (auto lower = checkedMul(split->lower, divisor))
      atom = makeSplit({split->source, *lower, std::nullopt});
  }
  if (!atom) {
    auto wrapped = atomOf(BinaryOp::FloorDiv, withConstant, divisor);
    if (!wrapped)
      return std::nullopt;
    atom = wrapped->terms()[0].atoms[0];
  }
  if (!whole.addTerm(1, {atom}))
    return std::nullopt;
  return whole;
}

std::optional<LinearSum> AnalyzerImpl::modSum(const LinearSum &s, int64_t c) {
  DataType type = s.type();
  if (s.isConstant()) {
    std::optional<int64_t> r = wrappingFold(BinaryOp::FloorMod, type, s.constant(), c);
    if (!r)
      return std::nullopt;
    return LinearSum::constantSum(type, *r);
  }
  if (c == 1 || c == -1)
    return LinearSum::constantSum(type, 0);
  if (c < 0)
    return atomOf(BinaryOp::FloorMod, s, c);
  LinearSum rest(type);
  for (const Term &t : s.terms())
    if (t.coef % c != 0) // keep the coefficient: (i * 31 + j) % 3 stays a fused index
      (void)rest.addTerm(t.coef, t.atoms);
  (void)rest.addConstant(*floorMod(s.constant(), c));
  // s as written computes s modulo 2^bits, and so does rest: dropping multiples of c keeps the
  // result only when neither wraps, or when c divides 2^bits. Otherwise it stays one floormod
  // of the sum as written.
  if (!dividesWordSize(c, type) && !owner_.noOverflow_ && !(exact(s) && exact(rest)))
    return atomOf(BinaryOp::FloorMod, s, c);
  if (auto m = sameFloor(bounds(rest), c)) {
    auto shift = checkedMul(*m, -c);
    if (!shift || !rest.addConstant(*shift))
      return std::nullopt;
    return rest;
  }
  LinearSum reduced = rest;
  if (int64_t g = reduceByGcd(reduced, c); g > 1) {
    auto inner = modSum(reduced, c / g);
    if (!inner || !inner->scale(g))
      return std::nullopt;
    return inner;
  }
  if (auto split = singleSplit(rest); split && (!split->extent || *split->extent % c == 0))
    return LinearSum::atomSum(makeSplit({split->source, split->lower, c}));
  return atomOf(BinaryOp::FloorMod, rest, c);
}

} // namespace tirlower
