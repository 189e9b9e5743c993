#include "arith/thread_disjoint.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <limits>
#include <string>

#include "arith/expr_util.h"
#include "arith/int_ops.h"
#include "ir/equality.h"
#include "ir/script_expr_printer.h"
#include "ir/visitor.h"

namespace tirlower {

namespace {

// One digit of an index: a thread index, or X // c or X % c of a thread-dependent X. `sig` names
// it by its thread part (X's rest aside) and its symbolic factor, so the two sides of a
// comparison pair their digits by it.
struct Atom {
  std::string sig;
  int64_t coef;
  Expr factor;                 // the coefficient's thread-free symbolic factor, or null (the coefficient is coef)
  Expr value;                  // the digit as an expression
  Expr x;                      // X for X // c and X % c
  BinaryOp op = BinaryOp::Add; // Add: a thread index; FloorDiv, FloorMod
  int64_t c = 0;
  size_t dim = 0; // for a thread index: its place in ThreadIndexSpace::threads
};

// A digit's coefficient (|coef| times the factor) and its number of values, the order the
// mixed-radix argument takes them in.
struct Step {
  int64_t coef;
  Expr factor;
  int64_t values;
};

// Two indices as the same mixed-radix number of digits: the atoms paired by signature (same
// coefficients); the constant steps ascending, then the symbolic ones; and the bounds of
// rest(b) - rest(a).
struct Digits {
  std::vector<Atom> a, b;
  std::vector<Step> steps;
  size_t constantSteps = 0; // steps[0, constantSteps) have no factor
  IntBounds diff;
};

int64_t floorDivide(int64_t x, int64_t y) {
  return x / y - ((x % y != 0) && ((x < 0) != (y < 0)));
}

class ThreadDigits {
public:
  ThreadDigits(const ThreadIndexSpace &space, Analyzer &analyzer, const SizeFacts &sizes)
      : space_(space), analyzer_(analyzer), sizeFacts_(sizes) {}

  bool neverMeet(const Expr &ea, const Expr &eb) {
    std::optional<Digits> g = digits(ea, eb);
    if (!g || *g->diff.max - *g->diff.min > 1024)
      return false;
    if (g->constantSteps < g->steps.size() && !symbolicStepsStay(*g))
      return false;
    for (int64_t target = *g->diff.min; target <= *g->diff.max; ++target) {
      if (target != 0) {
        if (representable(g->steps, g->constantSteps, target))
          return false;
        continue;
      }
      // Only equal digits give equal indices: the threads are then the same one if the digits
      // determine every thread index that differs between threads.
      std::vector<bool> dims = recovered(*g);
      for (size_t d = 0; d < dims.size(); ++d)
        if (space_.varying[d] && !dims[d])
          return false;
    }
    return true;
  }

private:
  // The thread index of place d, possibly through casts to integer types of 32 bits or more,
  // which keep its value (an int64 thread variable is int64(threadIdx.x)).
  bool isThreadIndex(const Expr &e, size_t d) const {
    const Expr *inner = &e;
    while (const auto *cast = inner->as<CastNode>()) {
      if (!cast->type.isInt() || cast->type.isVector() || cast->type.bits() < 32)
        return false;
      inner = &cast->value;
    }
    return inner->get() == space_.threads[d].get();
  }

  bool mentionsThread(const Expr &e) const { return usesAnyVar(e, space_.threads); }

  static std::string factorName(const Expr &factor) { return factor ? "*(" + formatExpr(factor) + ")" : ""; }

  static Expr times(const Expr &factor, const Expr &by) { return factor ? factor * by : by; }

  static bool add(std::vector<Atom> &atoms, Atom atom) {
    for (Atom &a : atoms)
      if (a.sig == atom.sig) {
        a.coef += atom.coef;
        return true;
      }
    atoms.push_back(std::move(atom));
    return true;
  }

  // X // c or X % c for a positive constant c and a thread-dependent X.
  bool isDigit(const BinaryNode *op) const {
    const int64_t *c = op ? asConstInt(op->b) : nullptr;
    return c && *c > 0 && (op->op == BinaryOp::FloorDiv || op->op == BinaryOp::FloorMod) && mentionsThread(op->a);
  }

  // `e` is the digit `op` (isDigit), possibly widened.
  bool digit(const BinaryNode &op, const Expr &e, int64_t scale, const Expr &factor, std::vector<Atom> &atoms) {
    const int64_t *c = asConstInt(op.b);
    std::string inner = signature(op.a);
    if (inner.empty())
      return false;
    return add(atoms, {std::string(op.op == BinaryOp::FloorDiv ? "d" : "m") + std::to_string(*c) + "(" + inner + ")" +
                           factorName(factor),
                       scale, factor, e, op.a, op.op, *c, 0});
  }

  bool decompose(const Expr &e, int64_t scale, const Expr &factor, std::vector<Atom> &atoms, Expr &rest) {
    for (size_t d = 0; d < space_.threads.size(); ++d)
      if (isThreadIndex(e, d))
        return add(atoms,
                   {"t" + std::to_string(d) + factorName(factor), scale, factor, e, nullptr, BinaryOp::Add, 0, d});
    // A widening cast of X // c or X % c is that digit in a wider type (its value unchanged).
    const auto *cast = e.as<CastNode>();
    const auto *inner = cast ? cast->value.as<BinaryNode>() : nullptr;
    if (isDigit(inner) && cast->type.isInt() && !cast->type.isVector() && cast->value->type.isInt() &&
        cast->value->type.bits() <= cast->type.bits())
      return digit(*inner, e, scale, factor, atoms);
    if (const auto *b = e.as<BinaryNode>()) {
      if (b->op == BinaryOp::Add)
        return decompose(b->a, scale, factor, atoms, rest) && decompose(b->b, scale, factor, atoms, rest);
      if (b->op == BinaryOp::Sub)
        return decompose(b->a, scale, factor, atoms, rest) && decompose(b->b, -scale, factor, atoms, rest);
      if (b->op == BinaryOp::Mul) {
        if (const int64_t *k = asConstInt(b->b))
          return decompose(b->a, scale * *k, factor, atoms, rest);
        if (const int64_t *k = asConstInt(b->a))
          return decompose(b->b, scale * *k, factor, atoms, rest);
        // A thread-dependent term times a thread-free one: a symbolic coefficient.
        if (mentionsThread(b->a) && !mentionsThread(b->b))
          return decompose(b->a, scale, times(factor, b->b), atoms, rest);
        if (mentionsThread(b->b) && !mentionsThread(b->a))
          return decompose(b->b, scale, times(factor, b->a), atoms, rest);
      }
      if (isDigit(b))
        return digit(*b, e, scale, factor, atoms);
    }
    if (mentionsThread(e))
      return false;
    Expr term = times(factor, e);
    term = scale == 1 ? term : term * intImm(scale, e->type);
    rest = rest ? rest + term : term;
    return true;
  }

  std::string signature(const Expr &e) {
    std::vector<Atom> atoms;
    Expr rest;
    if (!decompose(e, 1, nullptr, atoms, rest))
      return "";
    std::vector<std::string> parts;
    for (const Atom &a : atoms)
      if (a.coef != 0)
        parts.push_back(std::to_string(a.coef) + "*" + a.sig);
    std::sort(parts.begin(), parts.end());
    std::string out;
    for (const std::string &p : parts)
      out += p + "+";
    return out;
  }

  std::optional<Digits> digits(const Expr &ea, const Expr &eb) {
    Digits g;
    Expr ra, rb;
    if (!decompose(ea, 1, nullptr, g.a, ra) || !decompose(eb, 1, nullptr, g.b, rb))
      return std::nullopt;
    std::erase_if(g.a, [](const Atom &a) { return a.coef == 0; });
    std::erase_if(g.b, [](const Atom &a) { return a.coef == 0; });
    auto bySig = [](const Atom &x, const Atom &y) { return x.sig < y.sig; };
    std::sort(g.a.begin(), g.a.end(), bySig);
    std::sort(g.b.begin(), g.b.end(), bySig);
    if (!pairAtoms(g, ra, rb) || g.a.empty())
      return std::nullopt;
    std::vector<Step> symbolic;
    for (size_t k = 0; k < g.a.size(); ++k) {
      if (g.a[k].sig != g.b[k].sig || g.a[k].coef != g.b[k].coef)
        return std::nullopt;
      IntBounds x = analyzer_.bounds(g.a[k].value), y = analyzer_.bounds(g.b[k].value);
      if (!x.min || !x.max || !y.min || !y.max)
        return std::nullopt;
      Step step{std::abs(g.a[k].coef), g.a[k].factor, std::max(*x.max, *y.max) - std::min(*x.min, *y.min) + 1};
      (step.factor ? symbolic : g.steps).push_back(step);
    }
    if (!symbolic.empty() && !sizes_ && (!sizeFacts_ || !(sizes_ = sizeFacts_())))
      return std::nullopt;
    std::sort(g.steps.begin(), g.steps.end(),
              [](const Step &x, const Step &y) { return std::pair(x.coef, x.values) < std::pair(y.coef, y.values); });
    for (size_t k = 1; k < g.steps.size(); ++k)
      if (g.steps[k].coef < g.steps[k - 1].coef * g.steps[k - 1].values)
        return std::nullopt;
    g.constantSteps = g.steps.size();
    if (!orderSymbolic(symbolic, g.steps))
      return std::nullopt;
    Expr zero = intImm(0, ea->type);
    g.diff = analyzer_.bounds(analyzer_.simplify((rb ? rb : zero) - (ra ? ra : zero)));
    if (!g.diff.min || !g.diff.max)
      return std::nullopt;
    return g;
  }

  // Keeps the atoms both sides have (same signature and coefficient) and moves the others into
  // their side's rest: `S[tx]` against `S[tx // 32 * 32]` compares the digit tx // 32, with tx % 32
  // a rest of [0, 31] on one side. The rests' difference is bounded with a thread index standing
  // for one thread, so no thread index may reach both rests (the sides' threads differ).
  bool pairAtoms(Digits &g, Expr &ra, Expr &rb) const {
    std::vector<Atom> a, b, onlyA, onlyB;
    size_t i = 0, j = 0;
    while (i < g.a.size() || j < g.b.size()) {
      if (j == g.b.size() || (i < g.a.size() && g.a[i].sig < g.b[j].sig)) {
        onlyA.push_back(g.a[i++]);
      } else if (i == g.a.size() || g.b[j].sig < g.a[i].sig) {
        onlyB.push_back(g.b[j++]);
      } else if (g.a[i].coef != g.b[j].coef) {
        onlyA.push_back(g.a[i++]);
        onlyB.push_back(g.b[j++]);
      } else {
        a.push_back(g.a[i++]);
        b.push_back(g.b[j++]);
      }
    }
    for (const Var &t : space_.threads) {
      auto uses = [&](const Atom &atom) { return usesAnyVar(atom.value, {t}); };
      if (std::any_of(onlyA.begin(), onlyA.end(), uses) && std::any_of(onlyB.begin(), onlyB.end(), uses))
        return false;
    }
    auto join = [](const std::vector<Atom> &atoms, Expr &rest) {
      for (const Atom &atom : atoms) {
        Expr term = times(atom.factor, atom.value) * intImm(atom.coef, atom.value->type);
        rest = rest ? rest + term : term;
      }
    };
    join(onlyA, ra);
    join(onlyB, rb);
    g.a = std::move(a);
    g.b = std::move(b);
    return true;
  }

  Expr coefficient(const Step &s, DataType type) const {
    Expr c = intImm(s.coef, type);
    return s.factor ? s.factor * c : c;
  }

  // A product as its constant and its other multiplicands.
  static void multiplicands(const Expr &e, int64_t &constant, std::vector<Expr> &leaves) {
    const auto *b = e.as<BinaryNode>();
    if (b && b->op == BinaryOp::Mul) {
      multiplicands(b->a, constant, leaves);
      multiplicands(b->b, constant, leaves);
    } else if (const int64_t *k = asConstInt(e)) {
      constant *= *k;
    } else {
      leaves.push_back(e);
    }
  }

  // Whether hi.coef * hi.factor >= times * lo.coef * lo.factor (lo null: >= times): a
  // multiplicand both have is cancelled once it is proven at least 1.
  bool atLeast(const Step &hi, const Step *lo, int64_t times) {
    int64_t kh = hi.coef, kl = times * (lo ? lo->coef : 1);
    std::vector<Expr> high, low;
    multiplicands(hi.factor, kh, high);
    if (lo && lo->factor)
      multiplicands(lo->factor, kl, low);
    DataType t = hi.factor->type;
    for (auto it = low.begin(); it != low.end();) {
      auto same = std::find_if(high.begin(), high.end(), [&](const Expr &h) { return structurallyEqual(h, *it); });
      if (same == high.end() || !sizes_->canProve(BinaryNode::make(BinaryOp::GE, *it, intImm(1, (*it)->type)))) {
        ++it;
        continue;
      }
      high.erase(same);
      it = low.erase(it);
    }
    auto product = [&](int64_t k, const std::vector<Expr> &leaves) {
      Expr out = intImm(k, t);
      for (const Expr &l : leaves)
        out = out * l;
      return out;
    };
    return sizes_->canProve(BinaryNode::make(BinaryOp::GE, product(kh, high), product(kl, low)));
  }

  // Appends the symbolic steps to `steps` in an order where each coefficient provably is at
  // least the previous one times its number of values (the first also positive).
  bool orderSymbolic(std::vector<Step> symbolic, std::vector<Step> &steps) {
    while (!symbolic.empty()) {
      bool placed = false;
      for (size_t k = 0; k < symbolic.size() && !placed; ++k) {
        if (atLeast(symbolic[k], steps.empty() ? nullptr : &steps.back(), steps.empty() ? 1 : steps.back().values)) {
          steps.push_back(symbolic[k]);
          symbolic.erase(symbolic.begin() + static_cast<std::ptrdiff_t>(k));
          placed = true;
        }
      }
      if (!placed)
        return false;
    }
    return true;
  }

  // With symbolic steps over the constant ones, a different value of a symbolic digit moves the
  // index by at least the smallest symbolic coefficient, less what the constant digits reach:
  // when that exceeds every difference of the rests, the symbolic digits are equal on both
  // sides and only the constant ones remain to compare.
  bool symbolicStepsStay(const Digits &g) {
    int64_t reach = 0;
    for (size_t k = 0; k < g.constantSteps; ++k) {
      std::optional<int64_t> r = checkedMul(g.steps[k].coef, g.steps[k].values - 1);
      std::optional<int64_t> sum = r ? checkedAdd(reach, *r) : std::nullopt;
      if (!sum)
        return false;
      reach = *sum;
    }
    std::optional<int64_t> far = checkedAdd(reach, std::max(std::abs(*g.diff.min), std::abs(*g.diff.max)));
    if (!far)
      return false;
    const Step &lowest = g.steps[g.constantSteps];
    DataType t = lowest.factor->type;
    return sizes_->canProve(BinaryNode::make(BinaryOp::GT, coefficient(lowest, t), intImm(*far, t)));
  }

  // Whether sum(c_k * d_k) = target has a solution with |d_k| < values_k over the first `count`
  // (constant) steps (largest first; each coefficient exceeds what the smaller ones can sum to,
  // so at most a few values of each digit remain).
  static bool representable(const std::vector<Step> &steps, size_t count, int64_t target) {
    if (count == 0)
      return target == 0;
    int64_t c = steps[count - 1].coef, values = steps[count - 1].values;
    int64_t reach = 0;
    for (size_t k = 0; k + 1 < count; ++k)
      reach += steps[k].coef * (steps[k].values - 1);
    int64_t lo = std::max(-(values - 1), -floorDivide(-(target - reach), c));
    int64_t hi = std::min(values - 1, floorDivide(target + reach, c));
    for (int64_t d = lo; d <= hi; ++d)
      if (representable(steps, count - 1, target - c * d))
        return true;
    return false;
  }

  // The thread indices equal on both sides when every digit is: a thread index digit gives its
  // index, and X // c with X % c (or X % c alone when X has fewer than c values) gives X, whose
  // own digits are then compared the same way.
  std::vector<bool> recovered(const Digits &g) {
    std::vector<bool> dims(space_.threads.size(), false);
    for (size_t k = 0; k < g.a.size(); ++k) {
      const Atom &a = g.a[k];
      if (a.op == BinaryOp::Add) {
        dims[a.dim] = true;
        continue;
      }
      bool whole = a.op == BinaryOp::FloorDiv && a.c == 1;
      if (a.op == BinaryOp::FloorMod) {
        IntBounds x = analyzer_.bounds(a.x), y = analyzer_.bounds(g.b[k].x);
        whole = x.min && x.max && y.min && y.max && *x.min >= 0 && *y.min >= 0 &&
                std::max(*x.max, *y.max) - std::min(*x.min, *y.min) < a.c;
      }
      std::string inner = innerSignature(a);
      for (const Atom &other : g.a)
        whole |= a.op == BinaryOp::FloorMod && other.op == BinaryOp::FloorDiv && other.c == a.c &&
                 innerSignature(other) == inner;
      if (!whole)
        continue;
      // X(thread 1) == X(thread 2): its digits with rests that differ by less than its step.
      std::optional<Digits> x = digits(a.x, g.b[k].x);
      if (!x || x->constantSteps != x->steps.size() || *x->diff.min <= -x->steps[0].coef ||
          *x->diff.max >= x->steps[0].coef)
        continue;
      std::vector<bool> deeper = recovered(*x);
      for (size_t d = 0; d < dims.size(); ++d)
        dims[d] = dims[d] || deeper[d];
    }
    return dims;
  }

  // X's part of the signature of X // c or X % c (their symbolic factor aside).
  static std::string innerSignature(const Atom &a) {
    std::string s = a.sig.substr(1 + std::to_string(a.c).size());
    return s.substr(0, s.size() - factorName(a.factor).size());
  }

  const ThreadIndexSpace &space_;
  Analyzer &analyzer_;
  const SizeFacts &sizeFacts_;
  Analyzer *sizes_ = nullptr; // sizeFacts_'s, once a symbolic coefficient needs it
};

// Writes each thread index t (and each cast of it that keeps its value, such as
// int32(int64(threadIdx.x))) as `scale * q + offset` in that type, q cast alike, so that the
// digits see q where they saw t.
class ThreadRewriter : public IRMutator {
public:
  struct Rule {
    Var thread, digit;
    int64_t scale;
    Expr offset; // a constant or a variable of the thread's type (a group's place)
  };
  explicit ThreadRewriter(std::vector<Rule> rules) : rules_(std::move(rules)) {}

protected:
  using IRMutator::visit;
  Expr visit(const VarNode *op) override {
    const Rule *rule = find(op);
    return rule ? written(*rule, op->type) : Expr(op);
  }
  Expr visit(const CastNode *op) override {
    const Expr *inner = &op->value;
    while (const auto *cast = inner->as<CastNode>()) {
      if (!keepsValue(*cast))
        return IRMutator::visit(op);
      inner = &cast->value;
    }
    const Rule *rule = keepsValue(*op) ? find(inner->as<VarNode>()) : nullptr;
    return rule ? written(*rule, op->type) : IRMutator::visit(op);
  }

private:
  static bool keepsValue(const CastNode &cast) {
    return cast.type.isInt() && !cast.type.isVector() && cast.type.bits() >= 32 && cast.value->type.isInt();
  }
  const Rule *find(const VarNode *var) const {
    for (const Rule &r : rules_)
      if (var && r.thread.get() == var)
        return &r;
    return nullptr;
  }
  static Expr as(const Expr &e, DataType type) { return e->type == type ? e : CastNode::make(type, e); }
  static Expr written(const Rule &rule, DataType type) {
    return as(rule.digit, type) * intImm(rule.scale, type) + as(rule.offset, type);
  }
  std::vector<Rule> rules_;
};

bool rewritesThreads(const ThreadIndexSpace &space) {
  if (space.groupSize > 0)
    return true;
  return std::any_of(space.congruences.begin(), space.congruences.end(),
                     [](const ThreadCongruence &c) { return c.modulus > 1; });
}

// The question with each thread index of a congruence t % m == r written as m * q + r (q the
// digit of the threads that pass the guard), and threads[0] of a group as S * w + l (w the
// group, l the place in it, which may differ between the threads: no longer a thread index the
// digits must determine). Indices are over-approximated, never narrowed: q and w take every
// value the range of t allows, l every place of a group. Whatever this does not apply to (a
// thread index without constant bounds) keeps its question unchanged.
bool neverMeetRewritten(const Expr &a, const Expr &b, const ThreadIndexSpace &space, Analyzer &analyzer,
                        const SizeFacts &sizes) {
  Analyzer local = analyzer;
  ThreadIndexSpace reduced;
  std::vector<ThreadRewriter::Rule> rewrite;
  std::vector<Var> places;
  for (size_t d = 0; d < space.threads.size(); ++d) {
    const Var &t = space.threads[d];
    const bool varying = d < space.varying.size() && space.varying[d];
    ThreadCongruence c = d < space.congruences.size() ? space.congruences[d] : ThreadCongruence{};
    const bool grouped = d == 0 && space.groupSize > 0 && c.modulus <= 1;
    IntBounds range = analyzer.bounds(t);
    if ((c.modulus <= 1 && !grouped) || !range.min || !range.max) {
      reduced.threads.push_back(t);
      reduced.varying.push_back(varying);
      continue;
    }
    const DataType type = t->type;
    const std::string name = t->name.str();
    if (!grouped) {
      const int64_t m = c.modulus, r = ((c.residue % m) + m) % m;
      const int64_t lo = -floorDivide(-(*range.min - r), m), hi = floorDivide(*range.max - r, m);
      if (lo > hi)
        return true; // no thread passes the guard
      Var q = VarNode::make(Symbol(name + "_q"), type);
      local.bindRange(q, lo, hi - lo + 1);
      rewrite.push_back({t, q, m, intImm(r, type)});
      reduced.threads.push_back(q);
      reduced.varying.push_back(varying && hi > lo);
      continue;
    }
    const int64_t size = space.groupSize;
    const int64_t wlo = floorDivide(*range.min, size), whi = floorDivide(*range.max, size);
    const int64_t llo = wlo == whi ? *range.min - wlo * size : 0, lhi = wlo == whi ? *range.max - wlo * size : size - 1;
    Var w = VarNode::make(Symbol(name + "_group"), type), l = VarNode::make(Symbol(name + "_place"), type);
    local.bindRange(w, wlo, whi - wlo + 1);
    local.bindRange(l, llo, lhi - llo + 1);
    rewrite.push_back({t, w, size, l});
    reduced.threads.push_back(w);
    reduced.varying.push_back(varying && whi > wlo);
    places.push_back(l);
  }
  for (const Var &l : places) {
    reduced.threads.push_back(l);
    reduced.varying.push_back(false);
  }
  // The same thread (or the same group) on both sides: nothing to tell apart.
  if (std::none_of(reduced.varying.begin(), reduced.varying.end(), [](bool v) { return v; }))
    return true;
  ThreadRewriter rewriter(std::move(rewrite));
  Expr ra = local.simplify(rewriter.mutate(a)), rb = local.simplify(rewriter.mutate(b));
  return ThreadDigits(reduced, local, sizes).neverMeet(ra, rb);
}

} // namespace

bool differentThreadsNeverMeet(const Expr &a, const Expr &b, const ThreadIndexSpace &space, Analyzer &analyzer,
                               const SizeFacts &sizes) {
  if (rewritesThreads(space))
    return neverMeetRewritten(a, b, space, analyzer, sizes);
  return ThreadDigits(space, analyzer, sizes).neverMeet(a, b);
}

bool differentThreadsNeverMeet(const Expr &a, const Expr &b, const ThreadIndexSpace &space, Analyzer &analyzer,
                               Analyzer *sizes) {
  return differentThreadsNeverMeet(a, b, space, analyzer, sizes ? SizeFacts([sizes] { return sizes; }) : SizeFacts());
}

std::optional<std::pair<Var, int64_t>> sizeLowerBound(const Expr &e, int64_t k) {
  if (const auto *v = e.as<VarNode>())
    return std::pair(Var(v), k);
  if (const auto *cast = e.as<CastNode>()) {
    DataType from = cast->value->type;
    if (cast->type.isInt() && from.isInt() && !cast->type.isVector() && from.bits() <= cast->type.bits())
      return sizeLowerBound(cast->value, k);
    return std::nullopt;
  }
  const auto *b = e.as<BinaryNode>();
  if (!b)
    return std::nullopt;
  const int64_t *ca = asConstInt(b->a), *cb = asConstInt(b->b);
  std::optional<int64_t> next;
  switch (b->op) { // kind-switch: the nondecreasing forms, each solved for its operand
  case BinaryOp::Add:
    if (cb || ca)
      next = checkedSub(k, cb ? *cb : *ca);
    return next ? sizeLowerBound(cb ? b->a : b->b, *next) : std::nullopt;
  case BinaryOp::Sub:
    next = cb ? checkedAdd(k, *cb) : std::nullopt;
    return next ? sizeLowerBound(b->a, *next) : std::nullopt;
  case BinaryOp::Mul: {
    const int64_t *m = cb ? cb : ca;
    if (!m || *m <= 0)
      return std::nullopt;
    return sizeLowerBound(cb ? b->a : b->b, -floorDivide(-k, *m)); // x * m >= k: x >= ceil(k / m)
  }
  case BinaryOp::FloorDiv:
    next = cb && *cb > 0 ? checkedMul(k, *cb) : std::nullopt; // x // m >= k: x >= k * m
    return next ? sizeLowerBound(b->a, *next) : std::nullopt;
  default: return std::nullopt;
  }
}

} // namespace tirlower
