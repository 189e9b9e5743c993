#include <catch2/catch.hpp>

#include "arith/expr_util.h"
#include "arith/index_map_ops.h"
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
  CHECK(layoutError("NC*W", "NCHW").find("unknown axis '*'") != std::string::npos);
  CHECK(layoutError("", "NCHW").find("empty") != std::string::npos);
}
