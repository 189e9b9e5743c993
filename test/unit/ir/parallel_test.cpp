#include <catch2/catch.hpp>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "ir/parallel.h"
#include "ir/symbol.h"

using namespace tirlower;

TEST_CASE("parallelFor runs every index once, on at most the threads asked for") {
  for (unsigned threads : {1u, 2u, 4u, 64u}) {
    std::vector<std::atomic<int>> runs(1000);
    std::atomic<unsigned> highestWorker{0};
    parallelFor(runs.size(), threads, [&](size_t k, unsigned worker) {
      runs[k].fetch_add(1);
      unsigned seen = highestWorker.load();
      while (worker > seen && !highestWorker.compare_exchange_weak(seen, worker)) {
      }
    });
    for (const std::atomic<int> &count : runs)
      CHECK(count.load() == 1);
    CHECK(highestWorker.load() < threads);
  }
  int calls = 0;
  parallelFor(0, 4, [&](size_t, unsigned) { ++calls; });
  CHECK(calls == 0);
}

TEST_CASE("parallelFor rethrows the exception of the lowest index that threw") {
  for (unsigned threads : {1u, 3u}) {
    try {
      parallelFor(200, threads, [](size_t k, unsigned) {
        if (k == 37 || k == 38 || k == 150)
          throw std::runtime_error(std::to_string(k));
      });
      FAIL("no exception");
    } catch (const std::runtime_error &e) {
      CHECK(std::string(e.what()) == "37");
    }
  }
}

TEST_CASE("parallelForOrdered consumes every result once, in index order, never two at once") {
  for (unsigned threads : {1u, 2u, 4u, 64u}) {
    std::vector<size_t> produced(3000, 0);
    std::vector<size_t> consumed;
    std::atomic<int> consuming{0};
    bool overlapped = false;
    parallelForOrdered(
        produced.size(), threads,
        [&](size_t k, unsigned) {
          size_t spin = (k * 7919) % 500; // uneven bodies, so results arrive out of order
          size_t value = k;
          for (size_t i = 0; i < spin; ++i)
            value = value * 31 % 1000003;
          produced[k] = value + 1;
        },
        [&](size_t k) {
          overlapped |= consuming.fetch_add(1) != 0;
          CHECK(produced[k] != 0); // its body is done
          consumed.push_back(k);
          consuming.fetch_sub(1);
        });
    CHECK_FALSE(overlapped);
    REQUIRE(consumed.size() == produced.size());
    for (size_t k = 0; k < consumed.size(); ++k)
      CHECK(consumed[k] == k);
  }
}

TEST_CASE("parallelForOrdered stops consuming at the first failure and rethrows it") {
  for (unsigned threads : {1u, 3u}) {
    std::vector<size_t> consumed;
    try {
      parallelForOrdered(
          200, threads,
          [](size_t k, unsigned) {
            if (k == 90 || k == 150)
              throw std::runtime_error("body " + std::to_string(k));
          },
          [&](size_t k) { consumed.push_back(k); });
      FAIL("no exception");
    } catch (const std::runtime_error &e) {
      CHECK(std::string(e.what()) == "body 90");
    }
    REQUIRE(consumed.size() == 90); // everything before the failed body, and nothing after
    CHECK(consumed.back() == 89);

    consumed.clear();
    try {
      parallelForOrdered(
          200, threads, [](size_t, unsigned) {},
          [&](size_t k) {
            if (k == 40)
              throw std::runtime_error("consumer " + std::to_string(k));
            consumed.push_back(k);
          });
      FAIL("no exception");
    } catch (const std::runtime_error &e) {
      CHECK(std::string(e.what()) == "consumer 40");
    }
    CHECK(consumed.size() == 40);
  }
}

TEST_CASE("nodes and symbols built and shared on several threads") {
  // Every worker interns the same names and builds nodes over one shared variable, freeing them
  // on its own thread or, through the results, on this one.
  Var shared = VarNode::make(Symbol("shared"), DataType::int32());
  std::vector<Expr> results(400);
  parallelFor(results.size(), 4, [&](size_t k, unsigned) {
    Symbol name("v" + std::to_string(k % 7));
    Var local = VarNode::make(name, DataType::int32());
    Expr sum = BinaryNode::make(BinaryOp::Add, shared, local);
    for (int depth = 0; depth < 50; ++depth)
      sum = BinaryNode::make(BinaryOp::Add, sum, IntImmNode::make(DataType::int32(), depth));
    results[k] = sum;
  });
  for (size_t k = 0; k < results.size(); ++k) {
    REQUIRE(results[k]);
    CHECK(Symbol("v" + std::to_string(k % 7)) == Symbol(std::string("v") + std::to_string(k % 7)));
  }
  results.clear();
  CHECK(shared->name == Symbol("shared"));
}
