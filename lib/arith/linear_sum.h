// The canonical form of a signed integer index expression: a sum of terms
// coefficient * (product of atoms) plus a constant. Atoms are anything that is not +, - or *
// by a constant (variables, floordiv/floormod, min, loads, ...). Terms stay in order of first
// appearance; the atoms of a term are ordered structurally, so the form never depends on
// addresses.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "ir/expr.h"

namespace tirlower {

struct Term {
  int64_t coef = 0;
  std::vector<Expr> atoms; // sorted by structuralCompare; never empty
  size_t hash = 0;
};

class LinearSum {
public:
  explicit LinearSum(DataType type) : type_(type) {}
  static LinearSum constantSum(DataType type, int64_t value);
  static LinearSum atomSum(const Expr &atom);

  DataType type() const { return type_; }
  const std::vector<Term> &terms() const { return terms_; }
  int64_t constant() const { return constant_; }
  bool isConstant() const { return terms_.empty(); }

  // Each returns false when a coefficient or the constant overflows int64.
  [[nodiscard]] bool addTerm(int64_t coef, const std::vector<Expr> &atoms);
  [[nodiscard]] bool addConstant(int64_t value);
  [[nodiscard]] bool add(const LinearSum &other, int64_t scale = 1);
  [[nodiscard]] bool scale(int64_t factor);
  // Product; nullopt on overflow or when both sides have several terms (kept as an atom
  // by the caller, so expansion never multiplies sizes).
  std::optional<LinearSum> multiply(const LinearSum &other) const;

  // Drops zero terms.
  void compact();
  // Builds the expression; null when a coefficient or the constant does not fit the type.
  Expr toExpr() const;

private:
  DataType type_;
  std::vector<Term> terms_;
  int64_t constant_ = 0;
  // Term hash -> position, built only once a sum has more than kIndexedTerms terms: index
  // sums have a handful, and scanning them beats a hash table that allocates per term.
  static constexpr size_t kIndexedTerms = 16;
  void rebuildIndex();
  [[nodiscard]] bool addSortedTerm(int64_t coef, const std::vector<Expr> &sorted);
  std::unordered_multimap<size_t, size_t> index_;
};

bool sameAtoms(const std::vector<Expr> &a, const std::vector<Expr> &b);

} // namespace tirlower
