// The and-of-ors form (and_of_ors.h): groups of term numbers, terms compared by structure.
#include "arith/and_of_ors.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "ir/equality.h"

namespace tirlower {

namespace {

class AndOfOrs {
public:
  AndOfOrs(const Expr &e, const std::function<Expr(const Expr &)> &pair) : pair_(pair), loc_(e->loc) {
    terms_ = {IntImmNode::make(DataType::boolean(), 1, loc_), IntImmNode::make(DataType::boolean(), 0, loc_)};
    forEachAnd(e, [&](const Expr &group) {
      std::vector<size_t> keys;
      forEachOr(group, [&](const Expr &term) {
        size_t key = keyOf(term);
        if (std::find(keys.begin(), keys.end(), key) == keys.end())
          keys.push_back(key);
      });
      bool repeated = std::any_of(groups_.begin(), groups_.end(), [&](const std::vector<size_t> &g) {
        return g.size() == keys.size() && std::is_permutation(g.begin(), g.end(), keys.begin());
      });
      if (!repeated)
        groups_.push_back(std::move(keys));
    });
  }

  void simplify() {
    for (std::vector<size_t> &group : groups_)
      for (size_t i = 0; i < group.size(); ++i)
        for (size_t j = i + 1; j < group.size(); ++j)
          simplifyPair(BinaryOp::Or, group[i], group[j]);
    foldConstants();
    for (size_t i = 0; i < groups_.size(); ++i)
      for (size_t j = i + 1; j < groups_.size(); ++j)
        simplifyGroups(groups_[i], groups_[j]);
    foldConstants();
  }

  Expr expr() const {
    Expr all;
    for (const std::vector<size_t> &group : groups_) {
      Expr any;
      for (size_t key : group)
        any = any ? BinaryNode::make(BinaryOp::Or, any, terms_[key], loc_) : terms_[key];
      if (!any)
        any = terms_[kFalse];
      all = all ? BinaryNode::make(BinaryOp::And, all, any, loc_) : any;
    }
    return all ? all : terms_[kTrue];
  }

private:
  static constexpr size_t kTrue = 0, kFalse = 1;

  // Calls `f` with each operand of the `and` that `e` is when `or` is distributed over `and`.
  static void forEachAnd(const Expr &e, const std::function<void(const Expr &)> &f) {
    const auto *b = e.as<BinaryNode>();
    if (b && b->op == BinaryOp::And) {
      forEachAnd(b->a, f);
      forEachAnd(b->b, f);
    } else if (b && b->op == BinaryOp::Or) {
      forEachAnd(b->a, [&](const Expr &x) {
        forEachAnd(b->b, [&](const Expr &y) { f(BinaryNode::make(BinaryOp::Or, x, y, b->loc)); });
      });
    } else {
      f(e);
    }
  }
  // The same for the operands of an `or` (`and` distributed over `or`).
  static void forEachOr(const Expr &e, const std::function<void(const Expr &)> &f) {
    const auto *b = e.as<BinaryNode>();
    if (b && b->op == BinaryOp::Or) {
      forEachOr(b->a, f);
      forEachOr(b->b, f);
    } else if (b && b->op == BinaryOp::And) {
      forEachOr(b->a, [&](const Expr &x) {
        forEachOr(b->b, [&](const Expr &y) { f(BinaryNode::make(BinaryOp::And, x, y, b->loc)); });
      });
    } else {
      f(e);
    }
  }

  size_t keyOf(const Expr &e) {
    for (size_t k = 0; k < terms_.size(); ++k)
      if (structurallyEqual(terms_[k], e))
        return k;
    terms_.push_back(e);
    return terms_.size() - 1;
  }

  // `a op b` simplified: its operands replace a and b when it is still an `op`; otherwise the
  // result replaces b and a becomes op's identity.
  void simplifyPair(BinaryOp op, size_t &a, size_t &b) {
    Expr joint = BinaryNode::make(op, terms_[a], terms_[b], loc_);
    Expr simplified = pair_(joint);
    if (structurallyEqual(simplified, joint))
      return;
    if (const auto *same = simplified.as<BinaryNode>(); same && same->op == op) {
      a = keyOf(same->a);
      b = keyOf(same->b);
      return;
    }
    a = op == BinaryOp::And ? kTrue : kFalse;
    b = keyOf(simplified);
  }

  static std::optional<size_t> firstNotIn(const std::vector<size_t> &group, const std::vector<size_t> &other) {
    for (size_t k = 0; k < group.size(); ++k)
      if (std::find(other.begin(), other.end(), group[k]) == other.end())
        return k;
    return std::nullopt;
  }

  void simplifyGroups(std::vector<size_t> &first, std::vector<size_t> &second) {
    if (first.size() == 1 && second.size() == 1)
      return simplifyPair(BinaryOp::And, first[0], second[0]);
    std::optional<size_t> firstOwn = firstNotIn(first, second);
    if (!firstOwn) { // first's terms are all in second: second follows from first
      second = {kTrue};
      return;
    }
    std::optional<size_t> secondOwn = firstNotIn(second, first);
    if (!secondOwn) {
      first = {kTrue};
      return;
    }
    if (first.size() != second.size())
      return;
    size_t shared = 0;
    for (size_t key : second)
      shared += std::find(first.begin(), first.end(), key) != first.end();
    if (shared + 1 == first.size())
      simplifyPair(BinaryOp::And, first[*firstOwn], second[*secondOwn]);
  }

  // True in a group makes it true, false in one is dropped; an empty group (false) makes the
  // whole false, a true group is dropped.
  void foldConstants() {
    for (std::vector<size_t> &group : groups_) {
      if (std::find(group.begin(), group.end(), kTrue) != group.end())
        group = {kTrue};
      else
        group.erase(std::remove(group.begin(), group.end(), kFalse), group.end());
    }
    if (std::any_of(groups_.begin(), groups_.end(), [](const std::vector<size_t> &g) { return g.empty(); })) {
      groups_ = {{}};
      return;
    }
    groups_.erase(std::remove_if(groups_.begin(), groups_.end(),
                                 [](const std::vector<size_t> &g) { return g.size() == 1 && g[0] == kTrue; }),
                  groups_.end());
  }

  const std::function<Expr(const Expr &)> &pair_;
  SourceRange loc_;
  std::vector<Expr> terms_;                // by key; 0 and 1 are true and false
  std::vector<std::vector<size_t>> groups_; // the `or` groups of the `and`
};

// How many groups distributing `or` over `and` makes of `e` (at most `limit + 1`).
size_t groupCount(const Expr &e, size_t limit) {
  const auto *b = e.as<BinaryNode>();
  if (!b || (b->op != BinaryOp::And && b->op != BinaryOp::Or))
    return 1;
  size_t x = groupCount(b->a, limit), y = groupCount(b->b, limit);
  size_t n = b->op == BinaryOp::And ? x + y : x * y;
  return std::min(n, limit + 1);
}

} // namespace

Expr asAndOfOrs(const Expr &e, const std::function<Expr(const Expr &)> &pair) {
  if (!e->type.isBool() || !e->type.isScalar())
    return e;
  if (groupCount(e, kMaxAndOfOrsGroups) > kMaxAndOfOrsGroups)
    return e;
  AndOfOrs form(e, pair);
  form.simplify();
  Expr result = form.expr();
  return structurallyEqual(result, e) ? e : result;
}

} // namespace tirlower
