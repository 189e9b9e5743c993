#include <catch2/catch.hpp>

#include <functional>

#include "arith/expr_util.h"
#include "arith/index_map_ops.h"
#include "ir/script_expr_printer.h"
#include "map_check.h"

using namespace tirlower;
using namespace tirlower::test;

namespace {
std::string layoutMap(const std::string &from, const std::string &to) {
  return formatIndexMap(*indexMapFromLayouts(from, to));
}
std::string layoutError(const std::string &from, const std::string &to) {
  try {
    indexMapFromLayouts(from, to, SourceRange{2, 3, 4});
  } catch (const CompileError &e) {
    CHECK(e.diagnostic().range.fileId == 2);
    return e.what();
  }
  return "";
}
} // namespace

TEST_CASE("layout strings build index maps", "[layout]") {
  CHECK(layoutMap("NHWC", "NCHW4c") == "lambda n, h, w, c: [n, c // 4, h, w, c % 4]");
  CHECK(layoutMap("NCHW", "NCHW16c") == "lambda n, c, h, w: [n, c // 16, h, w, c % 16]");
  CHECK(layoutMap("OIHW", "OIHW4i4o") == "lambda o, i, h, w: [o // 4, i // 4, h, w, i % 4, o % 4]");
  CHECK(layoutMap("NCHW4c", "NCHW") == "lambda n, c, h, w, c_inner: [n, c * 4 + c_inner, h, w]");
  CHECK(layoutMap("NCHW4c", "NCHW4c") == "lambda n, c, h, w, c_inner: [n, c, h, w, c_inner]");
  CHECK(layoutMap("NCHW8c", "NCHW4c") == "lambda n, c, h, w, c_inner: [n, c * 2 + c_inner // 4, h, w, c_inner % 4]");
  CHECK(layoutMap("NCHW", "NHWC") == "lambda n, c, h, w: [n, h, w, c]");
  IndexMap m = indexMapFromLayouts("NCHW", "NCHW4c");
  CHECK(checkMap(m, {2, 10, 3, 2}) == "");
  IndexMap back = indexMapFromLayouts("NCHW8c", "NCHW4c");
  CHECK(checkMap(back, {2, 3, 2, 2, 8}) == "");
  CHECK(indexMapFromLayouts("NC", "CN", {}, DataType::int64())->initialIndices[0]->type == DataType::int64());
}

TEST_CASE("malformed layouts", "[layout]") {
  CHECK(layoutError("NCHW", "NCH").find("axis 'W' is missing") != std::string::npos);
  CHECK(layoutError("NCH", "NCHW").find("axis 'W' is missing") != std::string::npos);
  CHECK(layoutError("NCHWN", "NCHW").find("repeated") != std::string::npos);
  CHECK(layoutError("NCHW", "NCHW4c4c").find("repeated") != std::string::npos);
  CHECK(layoutError("NCHW", "NCHW4k").find("no primal axis 'K'") != std::string::npos);
  CHECK(layoutError("NCHW", "NCHW0c").find("must be positive") != std::string::npos);
  CHECK(layoutError("NCHW", "NCHW4").find("followed by a lowercase axis") != std::string::npos);
  CHECK(layoutError("NCHW", "NCHW4C").find("followed by a lowercase axis") != std::string::npos);
  CHECK(layoutError("NCHW", "NCHW99999999999999999999c").find("too large") != std::string::npos);
  CHECK(layoutError("NCHW", "NCHWc").find("needs a factor") != std::string::npos);
  CHECK(layoutError("NC*W", "NCHW").find("wildcard axis '*' in \"NC*W\" has no index map") != std::string::npos);
  CHECK(layoutError("*", "NCHW").find("the wildcard layout \"*\" has no index map") != std::string::npos);
  CHECK(layoutError("NC-W", "NCHW").find("unknown axis '-' in \"NC-W\"") != std::string::npos);
  CHECK(layoutMap("N[a=16]HWC", "NCHW4c") == "lambda n, h, w, c: [n, c // 4, h, w, c % 4]");
  CHECK(layoutError("", "NCHW").find("empty") != std::string::npos);
}

TEST_CASE("indexMapFromLayoutsProblem says what indexMapFromLayouts would throw", "[layout]") {
  for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"NCHW", "NHW"}, {"NHW", "NCHW"}, {"*", "NCHW"}, {"N*HW", "NCHW"}, {"NCHW", "N*HW"}}) {
    INFO(from << " -> " << to);
    std::optional<std::string> problem = indexMapFromLayoutsProblem(*Layout::parse(from), *Layout::parse(to));
    REQUIRE(problem);
    CHECK(*problem == layoutError(from, to));
  }
  CHECK(!indexMapFromLayoutsProblem(*Layout::parse("NHWC"), *Layout::parse("NCHW4c")));
}

namespace {
std::string layoutAfter(const std::string &from, const IndexMap &map, std::vector<int64_t> shape) {
  std::vector<Expr> extents;
  for (int64_t e : shape)
    extents.push_back(IntImmNode::make(DataType::int32(), e));
  std::optional<Layout> layout = layoutAfterMap(*Layout::parse(from), map, extents, mapShape(map, extents));
  return layout ? layout->name() : "<unnamed>";
}
IndexMap lambdaMap(const std::vector<std::string> &names, std::function<std::vector<Expr>(std::vector<Var> &)> body) {
  std::vector<Var> vars;
  for (const std::string &n : names)
    vars.push_back(VarNode::make(Symbol(n), DataType::int32()));
  std::vector<Expr> results = body(vars);
  return IndexMapNode::make(vars, results, {});
}
Expr c32(int64_t v) {
  return IntImmNode::make(DataType::int32(), v);
}
} // namespace

TEST_CASE("layouts follow index maps", "[layout]") {
  // The layouts' own maps name their target layout.
  CHECK(layoutAfter("NHWC", indexMapFromLayouts("NHWC", "NCHW4c"), {1, 8, 8, 16}) == "NCHW4c");
  CHECK(layoutAfter("NCHW4c", indexMapFromLayouts("NCHW4c", "NHWC"), {1, 4, 8, 8, 4}) == "NHWC");
  CHECK(layoutAfter("NCHW", indexMapFromLayouts("NCHW", "NHWC"), {2, 3, 4, 5}) == "NHWC");
  // An equivalent lambda with other names and forms.
  IndexMap lambda = lambdaMap({"a", "b", "x", "y"}, [](std::vector<Var> &v) {
    return std::vector<Expr>{v[0], BinaryNode::make(BinaryOp::FloorDiv, v[3], c32(4)), v[1], v[2],
                             BinaryNode::make(BinaryOp::FloorMod, v[3], c32(4))};
  });
  CHECK(layoutAfter("NHWC", lambda, {1, 8, 8, 16}) == "NCHW4c");
  // General maps: mixing axes or reversing are no transforms at all (mapShape refuses them, and
  // its caller reports that before asking for a layout), or a split that is not a layout split.
  std::vector<Expr> square{c32(4), c32(4)};
  IndexMap mixed = lambdaMap({"i", "j"}, [](std::vector<Var> &v) { return std::vector<Expr>{v[0] + v[1], v[1]}; });
  CHECK_THROWS_AS(mapShape(mixed, square), CompileError);
  IndexMap reversed = lambdaMap({"i", "j"}, [](std::vector<Var> &v) { return std::vector<Expr>{c32(3) - v[0], v[1]}; });
  CHECK_THROWS_AS(mapShape(reversed, square), CompileError);
  IndexMap swapSplit = lambdaMap({"i", "j"}, [](std::vector<Var> &v) {
    return std::vector<Expr>{BinaryNode::make(BinaryOp::FloorMod, v[1], c32(4)), v[0],
                             BinaryNode::make(BinaryOp::FloorDiv, v[1], c32(4))};
  });
  // A split may stand before its primal axis: [j % 4, i, j // 4] is the map of HW->4wHW.
  CHECK(layoutAfter("HW", swapSplit, {4, 16}) == "4wHW");
  CHECK(layoutAfter("NHWC", indexMapFromLayouts("NHWC", "NHW2cC"), {1, 4, 8, 8}) == "NHW2cC");
  CHECK(layoutAfter("NHWC", indexMapFromLayouts("NHWC", "4cNHWC"), {1, 4, 8, 8}) == "4cNHWC");
  CHECK(layoutAfter("NCHW4c", indexMapFromLayouts("NCHW4c", "N2cHWC"), {1, 2, 3, 3, 4}) == "N2cHWC");
  IndexMap shiftedSplit = lambdaMap({"i", "j"}, [](std::vector<Var> &v) {
    return std::vector<Expr>{v[0], BinaryNode::make(BinaryOp::FloorMod, v[1], c32(4)),
                             BinaryNode::make(BinaryOp::FloorDiv, v[1], c32(4)) + c32(1)};
  });
  CHECK(layoutAfter("HW", shiftedSplit, {4, 16}) == "<unnamed>");
  IndexMap transpose = lambdaMap({"i", "j"}, [](std::vector<Var> &v) { return std::vector<Expr>{v[1], v[0]}; });
  CHECK(layoutAfter("HW", transpose, {4, 16}) == "WH");
  CHECK(layoutAfter("*", transpose, {4, 16}) == "<unnamed>");
  CHECK(layoutAfter("H*", transpose, {4, 16}) == "<unnamed>");
}
