// The canonical form of a signed integer index expression: a sum of terms
// coefficient * (product of atoms) plus a constant. Atoms are anything that is not +, - or *
// by a constant (variables, floordiv/floormod, min, loads, ...). Terms stay in order of first
// appearance; the atoms of a term are ordered structurally, so the form never depends on
// addresses.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <new>
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

// The terms of a sum, the first four in place: an index sum has a handful, and its first term
// was a heap block per sum (a fifth of the simplifier's allocations). Only the slots in use
// hold a constructed Term, so an empty or short list costs nothing to build, move or destroy.
class TermList {
public:
  TermList() = default;
  TermList(const TermList &other) : heap_(other.heap_) {
    for (const Term *t = other.local(); t != other.local() + other.size_; ++t)
      new (local() + size_++) Term(*t);
  }
  TermList(TermList &&other) noexcept : heap_(std::move(other.heap_)) {
    other.heap_.clear();
    for (Term *t = other.local(); t != other.local() + other.size_; ++t)
      new (local() + size_++) Term(std::move(*t));
    other.clearLocal();
  }
  TermList &operator=(TermList other) noexcept {
    clearLocal();
    heap_ = std::move(other.heap_);
    for (Term *t = other.local(); t != other.local() + other.size_; ++t)
      new (local() + size_++) Term(std::move(*t));
    return *this;
  }
  ~TermList() { clearLocal(); }

  size_t size() const { return onHeap() ? heap_.size() : size_; }
  bool empty() const { return size() == 0; }
  const Term *begin() const { return onHeap() ? heap_.data() : local(); }
  const Term *end() const { return begin() + size(); }
  Term *begin() { return onHeap() ? heap_.data() : local(); }
  Term *end() { return begin() + size(); }
  const Term &operator[](size_t k) const { return begin()[k]; }
  Term &operator[](size_t k) { return begin()[k]; }
  const Term &back() const { return end()[-1]; }

  void push_back(Term term) {
    if (onHeap()) {
      heap_.push_back(std::move(term));
    } else if (size_ < kLocal) {
      new (local() + size_++) Term(std::move(term));
    } else {
      heap_.reserve(2 * kLocal);
      for (Term *t = local(); t != local() + size_; ++t)
        heap_.push_back(std::move(*t));
      heap_.push_back(std::move(term));
      clearLocal();
    }
  }
  // Drops the terms whose coefficient is zero, keeping the order of the others.
  void dropZeroTerms() {
    auto zero = [](const Term &t) { return t.coef == 0; };
    if (onHeap()) {
      heap_.erase(std::remove_if(heap_.begin(), heap_.end(), zero), heap_.end());
      return;
    }
    size_t kept = static_cast<size_t>(std::remove_if(local(), local() + size_, zero) - local());
    while (size_ > kept)
      local()[--size_].~Term();
  }

private:
  static constexpr size_t kLocal = 4;
  // Once the terms outgrow the local slots they all move to the heap, and stay there (an
  // empty heap list means local).
  bool onHeap() const { return !heap_.empty(); }
  Term *local() { return reinterpret_cast<Term *>(slots_); }
  const Term *local() const { return reinterpret_cast<const Term *>(slots_); }
  void clearLocal() {
    while (size_ > 0)
      local()[--size_].~Term();
  }

  alignas(Term) unsigned char slots_[kLocal * sizeof(Term)];
  std::vector<Term> heap_;
  size_t size_ = 0; // constructed local slots
};

class LinearSum {
public:
  explicit LinearSum(DataType type) : type_(type) {}
  LinearSum(const LinearSum &other) : type_(other.type_), terms_(other.terms_), constant_(other.constant_) {
    if (other.index_)
      index_ = std::make_unique<TermIndex>(*other.index_);
  }
  LinearSum(LinearSum &&) noexcept = default;
  LinearSum &operator=(const LinearSum &other) { return *this = LinearSum(other); }
  LinearSum &operator=(LinearSum &&) noexcept = default;
  static LinearSum constantSum(DataType type, int64_t value);
  static LinearSum atomSum(const Expr &atom);

  DataType type() const { return type_; }
  const TermList &terms() const { return terms_; }
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
  TermList terms_;
  int64_t constant_ = 0;
  // Term hash -> position, built only once a sum has more than kIndexedTerms terms: index
  // sums have a handful, and scanning them beats a hash table that allocates per term.
  static constexpr size_t kIndexedTerms = 16;
  void rebuildIndex();
  [[nodiscard]] bool addSortedTerm(int64_t coef, const AtomList &sorted);
  using TermIndex = std::unordered_multimap<size_t, size_t>;
  std::unique_ptr<TermIndex> index_; // null below kIndexedTerms: most sums never build one
};

bool sameAtoms(const AtomList &a, const AtomList &b);

} // namespace tirlower
