#include "arith/iter_map.h"

#include <algorithm>
#include <functional>

#include "arith/analyzer_impl.h"
#include "arith/expr_util.h"
#include "arith/int_ops.h"
#include "ir/diagnostic.h"
#include "ir/script_expr_printer.h"

namespace tirlower {

namespace {
// Iteration maps are over the extents of buffers that exist: their index arithmetic does not wrap.
Analyzer noOverflowAnalyzer() {
  Analyzer analyzer;
  analyzer.assumeNoOverflow();
  return analyzer;
}
} // namespace

namespace {

struct LinearTerm {
  int64_t coef;
  Expr atom;
};

// Splits a simplified expression into coefficient * atom terms and a constant.
bool decompose(const Expr &e, int64_t scale, std::vector<LinearTerm> &terms, int64_t &constant) {
  if (const int64_t *v = asConstInt(e)) {
    auto p = checkedMul(*v, scale);
    auto s = p ? checkedAdd(constant, *p) : std::nullopt;
    if (!s)
      return false;
    constant = *s;
    return true;
  }
  if (auto *b = e.as<BinaryNode>()) {
    if (b->op == BinaryOp::Add)
      return decompose(b->a, scale, terms, constant) && decompose(b->b, scale, terms, constant);
    if (b->op == BinaryOp::Sub) {
      auto negated = checkedMul(scale, -1);
      return negated && decompose(b->a, scale, terms, constant) && decompose(b->b, *negated, terms, constant);
    }
    if (b->op == BinaryOp::Mul) {
      const int64_t *k = asConstInt(b->b);
      const Expr *other = &b->a;
      if (!k) {
        k = asConstInt(b->a);
        other = &b->b;
      }
      if (k) {
        auto s = checkedMul(scale, *k);
        return s && decompose(*other, *s, terms, constant);
      }
    }
  }
  terms.push_back({scale, e});
  return true;
}

class Detector {
public:
  Detector(const IndexMapNode &map, const std::vector<Expr> &shape, Analyzer &analyzer)
      : map_(map), shape_(shape), analyzer_(analyzer) {}

  IterMap run() {
    for (size_t k = 0; k < map_.initialIndices.size(); ++k) {
      IterMark mark;
      mark.var = static_cast<int>(k);
      mark.extent = analyzer_.simplify(shape_[k]);
      result_.marks.push_back(mark);
    }
    for (const Expr &f : map_.finalIndices)
      result_.results.push_back(parseResult(f));
    for (size_t k = 0; k < result_.marks.size(); ++k)
      checkTiling(static_cast<int>(k));
    return std::move(result_);
  }

private:
  [[noreturn]] void notAffine(const Expr &f, const std::string &why = "") {
    throw CompileError(map_.loc, "index map result '" + formatExpr(f) + "' is not affine in the inputs" +
                                     (why.empty() ? "" : " (" + why + ")"));
  }
  [[noreturn]] void notInjective(const std::string &why) {
    throw CompileError(map_.loc, "index map " + formatIndexMap(map_) + " is not injective over shape " +
                                     formatShape(shape_) + ": " + why);
  }

  std::string markName(int mark) const {
    const IterMark &m = result_.marks[mark];
    return m.var >= 0 ? "'" + map_.initialIndices[m.var]->name.str() + "'" : "'" + formatExpr(sources_[mark]) + "'";
  }

  Expr constant(int64_t v, DataType t) { return IntImmNode::make(t, v); }

  int varIndex(const Expr &e) const {
    for (size_t k = 0; k < map_.initialIndices.size(); ++k)
      if (map_.initialIndices[k].get() == e.get())
        return static_cast<int>(k);
    return -1;
  }

  // One digit of a mark, recorded as a use of it.
  IterSplit split(const Expr &f, const Expr &atom, int64_t scale) {
    if (int v = varIndex(atom); v >= 0)
      return use(v, 1, std::nullopt, scale, atom->type);
    std::optional<SplitView> view = asSplit(atom);
    if (!view)
      notAffine(f, usesAnyVar(atom, map_.initialIndices) ? "" : "'" + formatExpr(atom) + "' is not an input");
    return use(markOf(f, view->source), view->lower, view->extent, scale, atom->type);
  }

  IterSplit use(int mark, int64_t lower, std::optional<int64_t> modulo, int64_t scale, DataType type) {
    IterSplit s;
    s.mark = mark;
    s.lower = lower;
    s.modulo = modulo;
    s.scale = scale;
    Expr p = result_.marks[mark].extent;
    if (p->type != type)
      p = analyzer_.simplify(CastNode::make(type, p));
    Expr top =
        analyzer_.simplify(BinaryNode::make(BinaryOp::FloorDiv, p + constant(lower - 1, type), constant(lower, type)));
    s.extent = s.modulo ? constant(*s.modulo, type) : top;
    result_.marks[mark].uses.push_back(s);
    return s;
  }

  int markOf(const Expr &f, const Expr &source) {
    if (int v = varIndex(source); v >= 0)
      return v;
    for (size_t k = 0; k < sources_.size(); ++k)
      if (sources_[k] && structurallyEqual(sources_[k], source))
        return static_cast<int>(k);
    std::vector<LinearTerm> terms;
    int64_t offset = 0;
    if (!decompose(source, 1, terms, offset))
      notAffine(f);
    if (offset < 0)
      notAffine(f, "'" + formatExpr(source) + "' can be negative");
    IterMark mark;
    mark.offset = offset;
    for (const LinearTerm &t : terms) {
      if (t.coef <= 0)
        notAffine(f, "negative coefficient in '" + formatExpr(source) + "'");
      IterSplit s = split(f, t.atom, t.coef);
      bool single = analyzer_.canProveEqual(s.extent, constant(1, s.extent->type));
      (single ? mark.zeros : mark.parts).push_back(s);
    }

    std::sort(mark.parts.begin(), mark.parts.end(), [](auto &a, auto &b) { return a.scale < b.scale; });
    // A fused mark must be dense: scales 1, e0, e0 * e1, ...
    int64_t expected = 1;
    for (size_t k = 0; k < mark.parts.size(); ++k) {
      const IterSplit &p = mark.parts[k];
      if (p.scale != expected)
        notAffine(f, "'" + formatExpr(source) + "' is not a dense fusion of its terms");
      if (k + 1 < mark.parts.size()) {
        const int64_t *e = asConstInt(p.extent);
        auto next = e ? checkedMul(expected, *e) : std::nullopt;
        if (!next)
          notAffine(f, "'" + formatExpr(source) + "' is not a dense fusion of its terms");
        expected = *next;
      }
    }
    DataType t = source->type;
    if (mark.parts.empty()) {
      mark.extent = constant(offset + 1, t); // every part takes one value: a constant
    } else {
      const IterSplit &top = mark.parts.back();
      mark.extent = analyzer_.simplify(top.extent * constant(top.scale, t) + constant(offset, t));
    }
    result_.marks.push_back(mark);
    sources_.resize(result_.marks.size());
    sources_.back() = source;
    return static_cast<int>(result_.marks.size()) - 1;
  }

  IterSum parseResult(const Expr &f) {
    // Simplified without the input ranges, so that a split stays a split even where the
    // bounds make it trivial (i % 4 over [3] still has extent 4, as in TVM).
    Expr e = canonical_.simplify(f);
    std::vector<LinearTerm> terms;
    IterSum sum;
    if (!decompose(e, 1, terms, sum.base))
      notAffine(f);
    for (const LinearTerm &t : terms) {
      if (t.coef <= 0)
        notAffine(f, "negative coefficient");
      IterSplit s = split(f, t.atom, t.coef);
      bool single = analyzer_.canProveEqual(s.extent, constant(1, s.extent->type));
      (single ? sum.zeros : sum.splits).push_back(s);
    }
    if (sum.base < 0)
      notAffine(f, "it can be negative");
    std::sort(sum.splits.begin(), sum.splits.end(), [](auto &a, auto &b) { return a.scale < b.scale; });
    DataType t = f->type;
    for (size_t k = 0; k + 1 < sum.splits.size(); ++k) {
      const IterSplit &low = sum.splits[k], &high = sum.splits[k + 1];
      Expr reach = low.extent * constant(low.scale, t);
      if (!analyzer_.canProve(BinaryNode::make(BinaryOp::LE, reach, constant(high.scale, t))))
        notInjective(markName(low.mark) + " and " + markName(high.mark) + " overlap in result '" + formatExpr(f) + "'");
    }
    Expr extent = constant(1, t);
    if (!sum.splits.empty())
      extent = sum.splits.back().extent * constant(sum.splits.back().scale, t);
    sum.extent = analyzer_.simplify(extent + constant(sum.base, t));
    return sum;
  }

  void checkTiling(int index) {
    IterMark &mark = result_.marks[index];
    std::sort(mark.uses.begin(), mark.uses.end(), [](auto &a, auto &b) { return a.lower < b.lower; });
    DataType t = mark.extent->type;
    if (mark.uses.empty()) {
      if (!analyzer_.canProveEqual(mark.extent, constant(1, t)))
        notInjective("input " + markName(index) + " does not appear in the result");
      return;
    }
    int64_t expected = 1;
    for (size_t k = 0; k < mark.uses.size(); ++k) {
      const IterSplit &u = mark.uses[k];
      if (u.lower != expected)
        notInjective(u.lower < expected
                         ? "digits of " + markName(index) + " are used twice"
                         : "digits of " + markName(index) + " below " + std::to_string(u.lower) + " are lost");
      if (!u.modulo)
        return checkLast(index, k);
      auto next = checkedMul(expected, *u.modulo);
      if (!next)
        notInjective("digits of " + markName(index) + " overflow");
      expected = *next;
    }
    if (!analyzer_.canProve(BinaryNode::make(BinaryOp::LE, mark.extent, constant(expected, t))))
      notInjective("digits of " + markName(index) + " from " + std::to_string(expected) + " up are lost");
  }

  void checkLast(int index, size_t k) {
    if (k + 1 != result_.marks[index].uses.size())
      notInjective("digits of " + markName(index) + " are used twice");
  }

  const IndexMapNode &map_;
  const std::vector<Expr> &shape_;
  Analyzer &analyzer_;
  Analyzer canonical_ = noOverflowAnalyzer();
  IterMap result_;
  std::vector<Expr> sources_; // the expression of each fused mark (null for variables)
};

} // namespace

IterMap detectIterMap(const IndexMapNode &map, const std::vector<Expr> &shape, Analyzer &analyzer) {
  return Detector(map, shape, analyzer).run();
}

} // namespace tirlower
