#include <catch2/catch.hpp>

#include "arith/expr_util.h"
#include "arith/index_map_ops.h"
#include "ir/script_expr_printer.h"
#include "map_check.h"

using namespace tirlower;
using namespace tirlower::test;

namespace {
IndexMap makeMap(std::vector<Var> in, std::vector<Expr> out) {
  return IndexMapNode::make(std::move(in), std::move(out), {}, SourceRange{1, 5, 9});
}
std::string shapeText(const MappedShape &s) {
  return formatShape(s.shape);
}
std::string errorOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const CompileError &e) {
    CHECK(e.diagnostic().range.begin == 5);
    return e.what();
  }
  return "";
}
} // namespace

TEST_CASE("map shape: splits with and without padding", "[index_map]") {
  Var i = var("i");
  IndexMap split = makeMap({i}, {fdiv(i, 4), fmod(i, 4)});
  MappedShape s = mapShape(split, shapeOf({4}));
  CHECK(shapeText(s) == "(1, 4)");
  CHECK_FALSE(s.padded);
  s = mapShape(split, shapeOf({16}));
  CHECK(shapeText(s) == "(4, 4)");
  CHECK(*s.paddingElements == 0);
  s = mapShape(split, shapeOf({14}));
  CHECK(shapeText(s) == "(4, 4)");
  CHECK(s.padded);
  CHECK(*s.paddingElements == 2);
  s = mapShape(split, shapeOf({3}));
  CHECK(shapeText(s) == "(1, 4)");
  for (int64_t n : {3, 4, 14, 15, 16})
    CHECK(checkMap(split, {n}) == "");
}

TEST_CASE("inverse with padding predicates", "[index_map]") {
  Var i = var("i");
  IndexMap split = makeMap({i}, {fdiv(i, 4), fmod(i, 4)});
  InverseMap inv = inverseMap(split, shapeOf({15}));
  CHECK(formatExpr(inv.inverse->finalIndices[0]) == "axis0 * 4 + axis1");
  CHECK(formatExpr(inv.paddingPredicate) != "False");
  CHECK(checkMap(split, {15}) == "");
  inv = inverseMap(split, shapeOf({16}));
  CHECK(formatExpr(inv.paddingPredicate) == "False");

  IndexMap left = makeMap({i}, {fdiv(i + c(1), 4), fmod(i + c(1), 4)});
  CHECK(shapeText(mapShape(left, shapeOf({15}))) == "(4, 4)");
  inv = inverseMap(left, shapeOf({15}));
  CHECK(formatExpr(inv.inverse->finalIndices[0]) == "axis0 * 4 + axis1 - 1");
  CHECK(checkMap(left, {15}) == "");
  CHECK(checkMap(left, {14}) == "");

  IndexMap three = makeMap({i}, {fdiv(i, 32), fmod(fdiv(i, 4), 8), fmod(i, 4)});
  CHECK(shapeText(mapShape(three, shapeOf({116}))) == "(4, 8, 4)");
  inv = inverseMap(three, shapeOf({116}));
  CHECK(formatExpr(inv.inverse->finalIndices[0]) == "axis0 * 32 + axis1 * 4 + axis2");
  CHECK(checkMap(three, {116}) == "");
  IndexMap transposed = makeMap({i}, {fmod(fdiv(i, 4), 8), fdiv(i, 32), fmod(i, 4)});
  CHECK(shapeText(mapShape(transposed, shapeOf({116}))) == "(8, 4, 4)");
  CHECK(checkMap(transposed, {116}) == "");

  Var j = var("j");
  IndexMap twoD = makeMap({i, j}, {fdiv(i + c(1), 4), fdiv(j + c(5), 8), fmod(i + c(1), 4), fmod(j + c(5), 8)});
  CHECK(shapeText(mapShape(twoD, shapeOf({14, 31}))) == "(4, 5, 4, 8)");
  CHECK(checkMap(twoD, {14, 31}) == "");
}

TEST_CASE("layout document examples", "[index_map]") {
  Var i = var("i"), j = var("j");
  IndexMap transpose = makeMap({i, j}, {j, i});
  CHECK(shapeText(mapShape(transpose, shapeOf({64, 128}))) == "(128, 64)");
  CHECK(checkMap(transpose, {6, 7}) == "");
  Var n = var("n"), h = var("h"), w = var("w"), cv = var("c");
  IndexMap nchwc = makeMap({n, h, w, cv}, {n, fdiv(cv, 4), h, w, fmod(cv, 4)});
  MappedShape s = mapShape(nchwc, shapeOf({16, 64, 64, 128}));
  CHECK(shapeText(s) == "(16, 32, 64, 64, 4)");
  CHECK_FALSE(s.padded);
  IndexMap padded = makeMap({n, cv, h, w}, {n, fdiv(cv, 4), h, w, fmod(cv, 4)});
  s = mapShape(padded, shapeOf({1, 130, 8, 8}));
  CHECK(shapeText(s) == "(1, 33, 8, 8, 4)");
  CHECK(*s.paddingElements == 2 * 64);
  IndexMap fuse = makeMap({i, j}, {i * c(16) + j});
  CHECK(shapeText(mapShape(fuse, shapeOf({4, 16}))) == "(64,)");
  CHECK(checkMap(fuse, {4, 16}) == "");
  IndexMap fuseSplit = makeMap({i, j}, {fdiv(i * c(16) + j, 8), fmod(i * c(16) + j, 8)});
  CHECK(shapeText(mapShape(fuseSplit, shapeOf({4, 16}))) == "(8, 8)");
  CHECK(checkMap(fuseSplit, {4, 16}) == "");
  Var k = var("k");
  IndexMap unit = makeMap({i, k}, {i});
  CHECK(checkMap(unit, {5, 1}) == "");
}

TEST_CASE("symbolic shapes", "[index_map]") {
  Var i = var("i"), n = var("n");
  IndexMap split = makeMap({i}, {fdiv(i, 4), fmod(i, 4)});
  MappedShape s = mapShape(split, {n});
  CHECK(shapeText(s) == "((n + 3) // 4, 4)");
  CHECK(s.padded);
  CHECK_FALSE(s.paddingElements);
  s = mapShape(split, {n * c(4)});
  CHECK(shapeText(s) == "(n, 4)");
  CHECK_FALSE(s.padded);
  InverseMap inv = inverseMap(split, {n * c(4)});
  CHECK(formatExpr(inv.inverse->finalIndices[0]) == "axis0 * 4 + axis1");
  CHECK(formatExpr(inv.paddingPredicate) == "False");
  inv = inverseMap(split, {n});
  CHECK(formatExpr(inv.paddingPredicate) == "n <= axis0 * 4 + axis1");
}

TEST_CASE("map errors", "[index_map]") {
  Var i = var("i"), j = var("j");
  std::string e = errorOf([&] { mapShape(makeMap({i, j}, {i + j}), shapeOf({4, 8})); });
  CHECK(e.find("index map lambda i, j: [i + j] is not injective over shape (4, 8): ") == 0);
  e = errorOf([&] { mapShape(makeMap({i, j}, {fmod(i, 2), j}), shapeOf({4, 8})); });
  CHECK(e.find("lambda i, j: [i % 2, j] is not injective") != std::string::npos);
  e = errorOf([&] { mapShape(makeMap({i, j}, {i, i}), shapeOf({4, 8})); });
  CHECK(e.find("is not injective") != std::string::npos);
  e = errorOf([&] { mapShape(makeMap({i, j}, {fdiv(i, 2), fmod(i, 4), j}), shapeOf({8, 8})); });
  CHECK(e.find("is not injective") != std::string::npos);
  e = errorOf([&] { mapShape(makeMap({i, j}, {i * j}), shapeOf({4, 8})); });
  CHECK(e == "index map result 'i * j' is not affine in the inputs");
  e = errorOf([&] { mapShape(makeMap({i, j, var("k")}, {i}), shapeOf({4, 8, 2, 2})); });
  CHECK(e == "index map has 3 inputs but buffer has rank 4");
  e = errorOf([&] { mapShape(makeMap({i}, {fdiv(i, var("n"))}), shapeOf({4})); });
  CHECK(e.find("is not affine") != std::string::npos);
  e = errorOf([&] { mapShape(makeMap({i}, {i - c(1)}), shapeOf({4})); });
  CHECK(e.find("is not affine") != std::string::npos);
  // i * 16 + j with j up to 32 overlaps.
  e = errorOf([&] { mapShape(makeMap({i, j}, {i * c(16) + j}), shapeOf({4, 32})); });
  CHECK(e.find("overlap") != std::string::npos);
  e = errorOf([&] { inverseMap(makeMap({i, j}, {i + j}), shapeOf({4, 8})); });
  CHECK(e.find("is not injective") != std::string::npos);
}

TEST_CASE("map indices and composition", "[index_map]") {
  Var i = var("i"), j = var("j"), x = var("x"), y = var("y");
  IndexMap split = makeMap({i}, {fdiv(i, 4), fmod(i, 4)});
  Analyzer a;
  a.bindRange(x, 0, 8);
  a.bindRange(y, 0, 4);
  std::vector<Expr> out = mapIndices(split, {x * c(4) + y}, a);
  CHECK(formatExpr(out[0]) == "x");
  CHECK(formatExpr(out[1]) == "y");
  CHECK_THROWS_AS(mapIndices(split, {x, y}, a), CompileError);
  IndexMap transpose = makeMap({i, j}, {j, i});
  IndexMap composed = composeMaps(split, transpose);
  CHECK(formatIndexMap(*composed) == "lambda i: [i % 4, i // 4]");
  CHECK(checkMap(composed, {12}) == "");
  IndexMap sep = IndexMapNode::make({i, j}, {j, i}, {1});
  CHECK(composeMaps(split, sep)->axisSeparators == std::vector<int>{1});
  CHECK_THROWS_AS(composeMaps(transpose, split), CompileError);
}

TEST_CASE("alpha key: equal exactly for the same map under other index names", "[index_map]") {
  Var i = var("i"), j = var("j"), a = var("a"), b = var("b");
  auto key = [](const IndexMap &m) { return alphaKey(*m); };
  // Renamed indices: the same function.
  REQUIRE(key(makeMap({i, j}, {j, fdiv(i, 4), fmod(i, 4)})));
  CHECK(key(makeMap({i, j}, {j, fdiv(i, 4), fmod(i, 4)})) == key(makeMap({a, b}, {b, fdiv(a, 4), fmod(a, 4)})));
  // The same names in another order are another function.
  CHECK(key(makeMap({i, j}, {j, i})) != key(makeMap({j, i}, {j, i})));
  // Constants, operators, index types and separators all count.
  CHECK(key(makeMap({i}, {fdiv(i, 4), fmod(i, 4)})) != key(makeMap({i}, {fdiv(i, 8), fmod(i, 8)})));
  CHECK(key(makeMap({i}, {fdiv(i, 4), fmod(i, 4)})) != key(makeMap({i}, {fmod(i, 4), fdiv(i, 4)})));
  Var wide = var("w", DataType::int64());
  CHECK(key(makeMap({i}, {i})) != key(makeMap({wide}, {wide})));
  CHECK(alphaKey(*IndexMapNode::make({i, j}, {i, j}, {1})) != key(makeMap({i, j}, {i, j})));
  // A map that mentions a variable of the function around it has no key.
  Var n = var("n");
  CHECK_FALSE(key(makeMap({i}, {fdiv(i, n)})));
}
