// The small containers behind the analyzer: PointerMap (memo tables), LinearSum's term list
// (four terms in place, then the heap) and its term lookup, which scans short sums and indexes
// long ones; and exprCost's per-node memo.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "arith/expr_util.h"
#include "arith/linear_sum.h"
#include "ir/pointer_map.h"

using namespace tirlower;

TEST_CASE("PointerMap finds what was inserted, keeps the first value, grows", "[arith][containers]") {
  std::vector<std::unique_ptr<int>> keys;
  for (int k = 0; k < 1000; ++k)
    keys.push_back(std::make_unique<int>(k));
  PointerMap<int, std::string> map;
  CHECK(map.find(keys[0].get()) == nullptr);
  for (int k = 0; k < 1000; k += 2)
    map.insert(keys[k].get(), std::to_string(k));
  map.insert(keys[10].get(), "replaced?");
  CHECK(map.size() == 500);
  for (int k = 0; k < 1000; ++k) {
    const std::string *value = map.find(keys[k].get());
    if (k % 2 == 0) {
      REQUIRE(value != nullptr);
      CHECK(*value == std::to_string(k));
    } else {
      CHECK(value == nullptr);
    }
  }
}

TEST_CASE("PointerMap erases keys and still finds every other one", "[arith][containers]") {
  // Random inserts and erases against std::unordered_map, in tables small enough that probe
  // runs wrap around the end and entries move back into the holes erases leave.
  std::vector<std::unique_ptr<int>> keys;
  for (int k = 0; k < 64; ++k)
    keys.push_back(std::make_unique<int>(k));
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<size_t>(state >> 33);
  };
  for (size_t live : {3u, 7u, 20u, 60u}) {
    PointerMap<int, int, 4> map;
    std::unordered_map<const int *, int> reference;
    for (int step = 0; step < 20000; ++step) {
      const int *key = keys[next() % live].get();
      if (next() % 2 == 0) {
        map.insert(key, step);
        reference.emplace(key, step);
      } else {
        map.erase(key);
        reference.erase(key);
      }
      REQUIRE(map.size() == reference.size());
      for (size_t k = 0; k < live; ++k) {
        const int *found = map.find(keys[k].get());
        auto it = reference.find(keys[k].get());
        REQUIRE((found != nullptr) == (it != reference.end()));
        if (found)
          REQUIRE(*found == it->second);
      }
    }
    CHECK(map.empty() == reference.empty());
  }
}

TEST_CASE("PointerMap copies and moves small and grown tables", "[arith][containers]") {
  std::vector<std::unique_ptr<int>> keys;
  for (int k = 0; k < 40; ++k)
    keys.push_back(std::make_unique<int>(k));
  for (int count : {3, 40}) {
    PointerMap<int, std::string, 4> map;
    for (int k = 0; k < count; ++k)
      map.insert(keys[static_cast<size_t>(k)].get(), std::to_string(k));
    auto holdsAll = [&](const PointerMap<int, std::string, 4> &m) {
      if (m.size() != static_cast<size_t>(count))
        return false;
      for (int k = 0; k < count; ++k) {
        const std::string *v = m.find(keys[static_cast<size_t>(k)].get());
        if (!v || *v != std::to_string(k))
          return false;
      }
      return true;
    };
    PointerMap<int, std::string, 4> copy(map);
    CHECK(holdsAll(copy));
    CHECK(holdsAll(map));
    PointerMap<int, std::string, 4> moved(std::move(map));
    CHECK(holdsAll(moved));
    CHECK(map.empty());
    CHECK(map.find(keys[0].get()) == nullptr);
    map.insert(keys[1].get(), "again"); // a moved-from map is usable
    CHECK(*map.find(keys[1].get()) == "again");
    copy = moved;
    CHECK(holdsAll(copy));
    moved = std::move(copy);
    CHECK(holdsAll(moved));
    CHECK(copy.empty());
  }
}

TEST_CASE("LinearSum merges equal terms in short and long sums", "[arith][containers]") {
  for (int count : {3, 40}) {
    std::vector<Var> vars;
    for (int k = 0; k < count; ++k)
      vars.push_back(VarNode::make(Symbol("v" + std::to_string(k)), DataType::int32()));
    LinearSum sum(DataType::int32());
    for (int round = 0; round < 3; ++round)
      for (int k = 0; k < count; ++k)
        REQUIRE(sum.addTerm(k + 1, {vars[static_cast<size_t>(k)]}));
    REQUIRE(sum.addTerm(2, {vars[1], vars[0]}));
    REQUIRE(sum.addTerm(5, {vars[0], vars[1]})); // the same product: atoms are sorted
    REQUIRE(sum.terms().size() == static_cast<size_t>(count) + 1);
    for (int k = 0; k < count; ++k)
      CHECK(sum.terms()[static_cast<size_t>(k)].coef == 3 * (k + 1));
    CHECK(sum.terms().back().coef == 7);
    REQUIRE(sum.scale(0));
    CHECK(sum.terms().empty());
    REQUIRE(sum.addTerm(4, {vars[2]}));
    REQUIRE(sum.addTerm(-1, {vars[2]}));
    REQUIRE(sum.terms().size() == 1);
    CHECK(sum.terms()[0].coef == 3);
  }
}

TEST_CASE("TermList keeps its terms across copies and moves, in place and on the heap", "[arith][containers]") {
  std::vector<Var> vars;
  for (int k = 0; k < 9; ++k)
    vars.push_back(VarNode::make(Symbol("t" + std::to_string(k)), DataType::int32()));
  auto check = [&](const TermList &list, const std::vector<int64_t> &coefs) {
    REQUIRE(list.size() == coefs.size());
    for (size_t k = 0; k < coefs.size(); ++k) {
      CHECK(list[k].coef == coefs[k]);
      CHECK(list[k].atoms[0].same(vars[k]));
    }
  };
  for (size_t count : {0, 1, 4, 5, 9}) {
    TermList list;
    std::vector<int64_t> coefs;
    for (size_t k = 0; k < count; ++k) {
      list.push_back({static_cast<int64_t>(k + 1), {vars[k]}, k});
      coefs.push_back(static_cast<int64_t>(k + 1));
    }
    check(list, coefs);
    TermList copy = list;
    check(copy, coefs);
    check(list, coefs);
    TermList moved = std::move(copy);
    check(moved, coefs);
    CHECK(copy.empty()); // NOLINT(bugprone-use-after-move): a moved-from list is empty
    TermList assigned;
    assigned.push_back({100, {vars[0]}, 0});
    assigned = moved;
    check(assigned, coefs);
    assigned = TermList();
    CHECK(assigned.empty());
    // Zero terms go, the others keep their order; slots freed in place are reused.
    for (Term &t : list)
      if (t.coef % 2 == 0)
        t.coef = 0;
    list.dropZeroTerms();
    REQUIRE(list.size() == (count + 1) / 2);
    for (size_t k = 0; k < list.size(); ++k)
      CHECK(list[k].coef == static_cast<int64_t>(2 * k + 1));
  }
}

TEST_CASE("exprCost is the same when asked again, for shared subtrees and past the memo's range",
          "[arith][containers]") {
  Var x = VarNode::make(Symbol("x"), DataType::int32());
  Expr four = IntImmNode::make(DataType::int32(), 4);
  Expr scaled = x * four;      // multiplying by a constant costs only its operands: 1
  Expr shared = scaled + x;    // 1 + 1 + 1
  Expr both = shared * shared; // 1 + 3 + 3
  CHECK(exprCost(scaled) == 1);
  CHECK(exprCost(both) == 7);
  CHECK(exprCost(both) == 7);
  CHECK(exprCost(shared) == 3);
  // Costs that do not fit the one-byte memo (shared subtrees count at every use): recomputed
  // from their memoized parts.
  Expr tree = x;
  for (int k = 0; k < 16; ++k)
    tree = tree + tree;
  CHECK(exprCost(tree) == 131071);
  CHECK(exprCost(tree) == 131071);
  CHECK(exprCost(tree * four) == 131071);
  CHECK(exprCost(tree + four) == 131072);
}
