#include "transform/reducer_patterns.h"

#include <cmath>
#include <functional>
#include <limits>
#include <unordered_map>

#include "ir/equality.h"

namespace tirlower {

Expr lowestValue(DataType type, SourceRange loc) {
  if (type.isFloat()) {
    double extreme = type.bits() == 64   ? std::numeric_limits<double>::max()
                     : type.bits() == 32 ? static_cast<double>(std::numeric_limits<float>::max())
                                         : 65504.0;
    return FloatImmNode::make(type, -extreme, loc);
  }
  if (type.isUInt() || type.isBool())
    return IntImmNode::make(type, 0, loc);
  return IntImmNode::make(type, type.bits() == 64 ? INT64_MIN : -(int64_t(1) << (type.bits() - 1)), loc);
}

Expr highestValue(DataType type, SourceRange loc) {
  if (type.isFloat()) {
    double extreme = type.bits() == 64   ? std::numeric_limits<double>::max()
                     : type.bits() == 32 ? static_cast<double>(std::numeric_limits<float>::max())
                                         : 65504.0;
    return FloatImmNode::make(type, extreme, loc);
  }
  if (type.isBool())
    return IntImmNode::make(type, 1, loc);
  if (type.isUInt())
    return IntImmNode::make(type, type.bits() == 64 ? -1 : static_cast<int64_t>((uint64_t(1) << type.bits()) - 1), loc);
  return IntImmNode::make(type, type.bits() == 64 ? INT64_MAX : (int64_t(1) << (type.bits() - 1)) - 1, loc);
}

namespace {

Expr constant(DataType type, int64_t value, SourceRange loc) {
  return type.isFloat() ? FloatImmNode::make(type, static_cast<double>(value), loc) : IntImmNode::make(type, value, loc);
}

// A reducer of the registry over values of `types`: its combiner from x and y, its identities.
struct Template {
  size_t values;
  std::function<std::vector<Expr>(const std::vector<Expr> &x, const std::vector<Expr> &y, SourceRange)> combine;
  std::function<std::vector<Expr>(const std::vector<DataType> &, SourceRange)> identity;
};

Expr binary(BinaryOp op, const Expr &a, const Expr &b, SourceRange loc) { return BinaryNode::make(op, a, b, loc); }

const std::vector<Template> &templates() {
  using V = std::vector<Expr>;
  using T = std::vector<DataType>;
  auto one = [](BinaryOp op, std::function<Expr(DataType, SourceRange)> identity) {
    return Template{1, [op](const V &x, const V &y, SourceRange l) { return V{binary(op, x[0], y[0], l)}; },
                    [identity](const T &t, SourceRange l) { return V{identity(t[0], l)}; }};
  };
  // argmax / argmin over (index, value): `better` says when x's value wins; `tieBySmallerIndex`
  // breaks ties by the smaller index (else x wins them).
  auto arg = [](bool max, bool tieBySmallerIndex) {
    return Template{
        2,
        [max, tieBySmallerIndex](const V &x, const V &y, SourceRange l) {
          if (!tieBySmallerIndex) {
            Expr wins = binary(max ? BinaryOp::GE : BinaryOp::LE, x[1], y[1], l);
            return V{SelectNode::make(wins, x[0], y[0], l), SelectNode::make(wins, x[1], y[1], l)};
          }
          Expr better = binary(max ? BinaryOp::GT : BinaryOp::LT, x[1], y[1], l);
          Expr tie = binary(BinaryOp::And, binary(BinaryOp::EQ, x[1], y[1], l), binary(BinaryOp::LT, x[0], y[0], l), l);
          return V{SelectNode::make(binary(BinaryOp::Or, better, tie, l), x[0], y[0], l),
                   SelectNode::make(better, x[1], y[1], l)};
        },
        [max](const T &t, SourceRange l) {
          return V{constant(t[0], -1, l), max ? lowestValue(t[1], l) : highestValue(t[1], l)};
        }};
  };
  static const std::vector<Template> all = {
      one(BinaryOp::Add, [](DataType t, SourceRange l) { return constant(t, 0, l); }),
      one(BinaryOp::Mul, [](DataType t, SourceRange l) { return constant(t, 1, l); }),
      one(BinaryOp::Min, highestValue),
      one(BinaryOp::Max, lowestValue),
      Template{2,
               [](const V &x, const V &y, SourceRange l) {
                 return V{binary(BinaryOp::Add, x[0], y[0], l), binary(BinaryOp::Add, x[1], y[1], l)};
               },
               [](const T &t, SourceRange l) { return V{constant(t[0], 0, l), constant(t[1], 0, l)}; }},
      arg(true, false),
      arg(true, true),
      arg(false, false),
      arg(false, true),
  };
  return all;
}

// Matches `pattern` (over the template's x and y variables) against `e`, binding each variable
// to the subexpression it stands for, consistently.
class PatternMatch {
public:
  explicit PatternMatch(const std::vector<Var> &vars) {
    for (const Var &v : vars)
      bound_[v.get()] = Expr();
  }
  bool match(const Expr &pattern, const Expr &e, bool swapTop = false) {
    if (const auto *v = pattern.as<VarNode>()) {
      auto it = bound_.find(v);
      if (it != bound_.end()) {
        if (!it->second) {
          it->second = e;
          return true;
        }
        return structurallyEqual(it->second, e);
      }
    }
    if (pattern->kind() != e->kind() || pattern->type != e->type)
      return false;
    if (const auto *p = pattern.as<BinaryNode>()) {
      const auto *b = e.as<BinaryNode>();
      if (p->op != b->op)
        return false;
      return swapTop ? match(p->a, b->b) && match(p->b, b->a) : match(p->a, b->a) && match(p->b, b->b);
    }
    if (const auto *p = pattern.as<SelectNode>()) {
      const auto *s = e.as<SelectNode>();
      return match(p->condition, s->condition) && match(p->trueValue, s->trueValue) &&
             match(p->falseValue, s->falseValue);
    }
    return structurallyEqual(pattern, e);
  }
  Expr operator[](const Var &v) const { return bound_.at(v.get()); }

private:
  std::unordered_map<const VarNode *, Expr> bound_;
};

bool isInfinity(const Expr &e, bool positive) {
  const auto *f = e.as<FloatImmNode>();
  return f && std::isinf(f->value) && (f->value > 0) == positive;
}

} // namespace

std::optional<MatchedReducer> matchReducer(const std::vector<Expr> &identities,
                                           const std::vector<ReductionUpdate> &updates, SourceRange loc,
                                           bool anyIdentity) {
  size_t n = updates.size();
  if (n == 0 || identities.size() != n)
    return std::nullopt;
  std::vector<DataType> types;
  for (const ReductionUpdate &u : updates)
    types.push_back(u.value->type);
  for (const Template &t : templates()) {
    if (t.values != n)
      continue;
    std::vector<Var> x, y, all;
    std::vector<Expr> xs, ys;
    for (size_t k = 0; k < n; ++k) {
      x.push_back(VarNode::make(Symbol("x" + std::to_string(k)), types[k], loc));
      y.push_back(VarNode::make(Symbol("y" + std::to_string(k)), types[k], loc));
      xs.push_back(x.back());
      ys.push_back(y.back());
    }
    all = x;
    all.insert(all.end(), y.begin(), y.end());
    std::vector<Expr> result = t.combine(xs, ys, loc);
    std::vector<Expr> identity = t.identity(types, loc);
    bool single = n == 1 && result[0].as<BinaryNode>();
    BinaryOp op = single ? result[0].as<BinaryNode>()->op : BinaryOp::Add;
    bool identityMatches = true;
    for (size_t k = 0; k < n; ++k) {
      bool infinite = single && ((op == BinaryOp::Max && isInfinity(identities[k], false)) ||
                                 (op == BinaryOp::Min && isInfinity(identities[k], true)));
      if (infinite)
        identity[k] = identities[k];
      identityMatches = identityMatches && (infinite || structurallyEqual(identity[k], identities[k]));
    }
    if (!identityMatches && !anyIdentity)
      continue;
    for (bool swapped : {false, true}) {
      if (swapped && !single)
        break;
      PatternMatch m(all);
      bool ok = true;
      for (size_t k = 0; k < n && ok; ++k)
        ok = m.match(result[k], updates[k].value, swapped);
      for (size_t k = 0; k < n && ok; ++k) {
        const auto *load = m[x[k]].as<BufferLoadNode>();
        ok = load && load->buffer == updates[k].buffer && structurallyEqual(load->indices, updates[k].indices);
      }
      if (!ok)
        continue;
      MatchedReducer matched;
      matched.reducer = CommReducerNode::make(x, y, result, identity, loc);
      for (size_t k = 0; k < n; ++k)
        matched.rhs.push_back(m[y[k]]);
      return matched;
    }
  }
  return std::nullopt;
}

} // namespace tirlower
