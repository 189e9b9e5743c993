// The canonical form of a signed integer index expression: a sum of terms
// coefficient * (product of atoms) plus a constant. Atoms are anything that is not +, - or *
// by a constant (variables, floordiv/floormod, min, loads, ...). Terms stay in order of first
// appearance; the atoms of a term are ordered structurally, so the form never depends on
// addresses.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/expr.h"

namespace tirlower {

// The atoms of a term, the first two inline: nearly every term has one or two, and a heap
// block per term (std::vector) was half of the simplifier's allocations.
class AtomList {
public:
  AtomList() = default;
  AtomList(std::initializer_list<Expr> atoms) {
    for (const Expr &a : atoms)
      push_back(a);
  }
  AtomList(const AtomList &other) : inline_(other.inline_), heap_(other.heap_), size_(other.size_) {}
  AtomList(AtomList &&other) noexcept
      : inline_(std::move(other.inline_)), heap_(std::move(other.heap_)), size_(std::exchange(other.size_, 0)) {}
  AtomList &operator=(AtomList other) noexcept {
    inline_ = std::move(other.inline_);
    heap_ = std::move(other.heap_);
    size_ = std::exchange(other.size_, 0);
    return *this;
  }

  size_t size() const { return size_; }
  const Expr *begin() const { return data(); }
  const Expr *end() const { return data() + size_; }
  Expr *begin() { return data(); }
  Expr *end() { return data() + size_; }
  const Expr &operator[](size_t k) const { return data()[k]; }
  Expr &operator[](size_t k) { return data()[k]; }

  void push_back(Expr atom) {
    if (size_ < kInline) {
      inline_[size_++] = std::move(atom);
      return;
    }
    if (size_ == kInline)
      for (Expr &a : inline_)
        heap_.push_back(std::move(a));
    heap_.push_back(std::move(atom));
    ++size_;
  }

private:
  static constexpr size_t kInline = 2;
  const Expr *data() const { return size_ <= kInline ? inline_.data() : heap_.data(); }
  Expr *data() { return size_ <= kInline ? inline_.data() : heap_.data(); }

  std::array<Expr, kInline> inline_;
  std::vector<Expr> heap_; // every atom, once there are more than kInline
  size_t size_ = 0;
};

struct Term {
  int64_t coef = 0;
  AtomList atoms; // sorted by structuralCompare; never empty
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
  [[nodiscard]] bool addTerm(int64_t coef, const AtomList &atoms);
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
  [[nodiscard]] bool addSortedTerm(int64_t coef, const AtomList &sorted);
  std::unordered_multimap<size_t, size_t> index_;
};

bool sameAtoms(const AtomList &a, const AtomList &b);

} // namespace tirlower
