#include "arith/linear_sum.h"

#include <algorithm>

#include "arith/expr_util.h"
#include "arith/int_ops.h"

namespace tirlower {

bool sameAtoms(const AtomList &a, const AtomList &b) {
  if (a.size() != b.size())
    return false;
  if (a.size() == 1)
    return structurallyEqual(a[0], b[0]);
  // Multiset comparison: distinct variables that share a name may sort either way.
  std::vector<bool> used(b.size(), false);
  for (const Expr &x : a) {
    bool matched = false;
    for (size_t k = 0; k < b.size() && !matched; ++k)
      if (!used[k] && structurallyEqual(x, b[k]))
        used[k] = matched = true;
    if (!matched)
      return false;
  }
  return true;
}

LinearSum LinearSum::constantSum(DataType type, int64_t value) {
  LinearSum s(type);
  s.constant_ = value;
  return s;
}

LinearSum LinearSum::atomSum(const Expr &atom) {
  LinearSum s(atom->type);
  (void)s.addTerm(1, {atom});
  return s;
}

bool LinearSum::addTerm(int64_t coef, const AtomList &atoms) {
  if (atoms.size() == 1)
    return addSortedTerm(coef, atoms); // sorted already: copied only if it is a new term
  AtomList sorted = atoms;
  auto less = [](const Expr &x, const Expr &y) { return structuralCompare(x, y) < 0; };
  if (sorted.size() > 16) {
    std::stable_sort(sorted.begin(), sorted.end(), less);
  } else {
    // A term has a few atoms: a stable insertion sort, without std::stable_sort's buffer.
    for (size_t k = 1; k < sorted.size(); ++k)
      for (size_t j = k; j > 0 && less(sorted[j], sorted[j - 1]); --j)
        std::swap(sorted[j], sorted[j - 1]);
  }
  return addSortedTerm(coef, sorted);
}

bool LinearSum::addSortedTerm(int64_t coef, const AtomList &sorted) {
  size_t hash = 0;
  for (const Expr &a : sorted)
    hash += structuralHash(a) * 0x9e3779b97f4a7c15ULL + 1;
  auto addTo = [&](Term &t) {
    auto sum = checkedAdd(t.coef, coef);
    if (sum)
      t.coef = *sum;
    return sum.has_value();
  };
  if (!index_) {
    for (Term &t : terms_)
      if (t.hash == hash && sameAtoms(t.atoms, sorted))
        return addTo(t);
  } else {
    auto [first, last] = index_->equal_range(hash);
    for (auto it = first; it != last; ++it)
      if (sameAtoms(terms_[it->second].atoms, sorted))
        return addTo(terms_[it->second]);
  }
  terms_.push_back({coef, sorted, hash});
  if (index_)
    index_->emplace(hash, terms_.size() - 1);
  else if (terms_.size() > kIndexedTerms)
    rebuildIndex();
  return true;
}

void LinearSum::rebuildIndex() {
  index_.reset();
  if (terms_.size() > kIndexedTerms) {
    index_ = std::make_unique<TermIndex>();
    for (size_t k = 0; k < terms_.size(); ++k)
      index_->emplace(terms_[k].hash, k);
  }
}

bool LinearSum::addConstant(int64_t value) {
  auto sum = checkedAdd(constant_, value);
  if (!sum)
    return false;
  constant_ = *sum;
  return true;
}

bool LinearSum::add(const LinearSum &other, int64_t factor) {
  for (const Term &t : other.terms_) {
    auto c = checkedMul(t.coef, factor);
    if (!c || !addTerm(*c, t.atoms))
      return false;
  }
  auto c = checkedMul(other.constant_, factor);
  return c && addConstant(*c);
}

bool LinearSum::scale(int64_t factor) {
  for (Term &t : terms_) {
    auto c = checkedMul(t.coef, factor);
    if (!c)
      return false;
    t.coef = *c;
  }
  auto c = checkedMul(constant_, factor);
  if (!c)
    return false;
  constant_ = *c;
  if (factor == 0)
    compact();
  return true;
}

std::optional<LinearSum> LinearSum::multiply(const LinearSum &other) const {
  const LinearSum *single = nullptr, *many = nullptr;
  if (isConstant() || (terms_.size() == 1 && constant_ == 0))
    single = this, many = &other;
  else if (other.isConstant() || (other.terms_.size() == 1 && other.constant_ == 0))
    single = &other, many = this;
  else
    return std::nullopt;
  LinearSum result(type_);
  if (single->isConstant()) {
    result = *many;
    if (!result.scale(single->constant_))
      return std::nullopt;
    return result;
  }
  const Term &m = single->terms_[0];
  for (const Term &t : many->terms_) {
    auto c = checkedMul(t.coef, m.coef);
    AtomList atoms = t.atoms;
    for (const Expr &a : m.atoms)
      atoms.push_back(a);
    if (!c || !result.addTerm(*c, atoms))
      return std::nullopt;
  }
  if (many->constant_ != 0) {
    auto c = checkedMul(many->constant_, m.coef);
    if (!c || !result.addTerm(*c, m.atoms))
      return std::nullopt;
  }
  return result;
}

void LinearSum::compact() {
  // In place, order kept: a new list per call was a third of the sums' allocations.
  terms_.dropZeroTerms();
  rebuildIndex();
}

Expr LinearSum::toExpr() const {
  auto imm = [&](int64_t v) -> Expr { return fitsType(type_, v) ? IntImmNode::make(type_, v) : Expr(); };
  Expr acc;
  // `31 - ty`, not `ty * -1 + 31`: a sum whose first term is negative starts from its constant.
  bool constantFirst = false;
  for (const Term &t : terms_)
    if (t.coef != 0) {
      constantFirst = t.coef < 0 && constant_ > 0;
      break;
    }
  if (constantFirst) {
    acc = imm(constant_);
    if (!acc)
      return Expr();
  }
  for (const Term &t : terms_) {
    if (t.coef == 0)
      continue;
    Expr mono = t.atoms[0];
    for (size_t k = 1; k < t.atoms.size(); ++k)
      mono = mono * t.atoms[k];
    bool subtract = acc && t.coef < 0 && t.coef != INT64_MIN && fitsType(type_, -t.coef);
    int64_t magnitude = subtract ? -t.coef : t.coef;
    if (magnitude != 1) {
      Expr c = imm(magnitude);
      if (!c)
        return Expr();
      mono = mono * c;
    }
    acc = !acc ? mono : subtract ? acc - mono : acc + mono;
  }
  if (!acc)
    return imm(constant_);
  if (constantFirst)
    return acc;
  if (constant_ > 0 || (constant_ < 0 && (constant_ == INT64_MIN || !fitsType(type_, -constant_)))) {
    Expr c = imm(constant_);
    return c ? acc + c : Expr();
  }
  if (constant_ < 0)
    return acc - imm(-constant_);
  return acc;
}

} // namespace tirlower
