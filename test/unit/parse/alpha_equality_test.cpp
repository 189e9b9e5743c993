// ir/alpha_equality.h on parsed functions: equal up to renaming variables, buffers and blocks;
// any other difference (a constant, an operator, a loop kind, a buffer's shape, a variable used
// in two places where the other function uses two variables) makes them differ.
#include <catch2/catch.hpp>

#include "ir/alpha_equality.h"
#include "test_util.h"

using namespace tirlower;
using namespace tirlower::test;

namespace {

bool same(const std::string &params, const std::string &a, const std::string &b, const std::string &paramsB = "",
          std::string *why = nullptr) {
  auto x = parse(function(params, a));
  auto y = parse(function(paramsB.empty() ? params : paramsB, b));
  REQUIRE(x->module);
  REQUIRE(y->module);
  return alphaEqual(x->func(), y->func(), why);
}

const char *kParams = "A: T.Buffer((16,), \"float32\"), B: T.Buffer((16,), \"float32\")";

} // namespace

TEST_CASE("alpha equality: renamed loop variables, lets and buffers are equal") {
  CHECK(same(kParams, "    for i in range(16):\n        x: T.float32 = A[i]\n        B[i] = x * T.float32(2)\n",
             "    for k in range(16):\n        y: T.float32 = P[k]\n        Q[k] = y * T.float32(2)\n",
             "P: T.Buffer((16,), \"float32\"), Q: T.Buffer((16,), \"float32\")"));
  CHECK(same(kParams,
             "    C = T.alloc_buffer((4,))\n    for i in range(4):\n        C[i] = A[i]\n    for j in range(4):\n      "
             "  B[j] = C[j]\n",
             "    D = T.alloc_buffer((4,))\n    for u in range(4):\n        D[u] = A[u]\n    for w in range(4):\n      "
             "  B[w] = D[w]\n"));
}

TEST_CASE("alpha equality: any other difference is one") {
  std::string why;
  CHECK_FALSE(same(kParams, "    for i in range(16):\n        B[i] = A[i]\n",
                   "    for i in range(16):\n        B[i] = A[i] + T.float32(0)\n", "", &why));
  CHECK(why == "store to B: value");
  CHECK_FALSE(same(kParams, "    for i in range(16):\n        B[i] = A[i]\n",
                   "    for i in T.serial(8):\n        B[i] = A[i]\n", "", &why));
  CHECK(why == "loop i: range");
  CHECK_FALSE(same(kParams, "    for i in range(16):\n        B[i] = A[i]\n",
                   "    for i in T.unroll(16):\n        B[i] = A[i]\n"));
  // Swapped parameters: B[i] = A[i] against A[i] = B[i].
  CHECK_FALSE(same(kParams, "    for i in range(16):\n        B[i] = A[i]\n",
                   "    for i in range(16):\n        A[i] = B[i]\n"));
  // One variable against two: not a renaming.
  CHECK_FALSE(same(kParams, "    for i, j in T.grid(4, 4):\n        B[i * 4 + j] = A[i * 4 + i]\n",
                   "    for i, j in T.grid(4, 4):\n        B[i * 4 + j] = A[i * 4 + j]\n"));
  // A buffer of another shape.
  CHECK_FALSE(same(kParams, "    for i in range(16):\n        B[i] = A[i]\n",
                   "    for i in range(16):\n        B[i] = A[i]\n",
                   "A: T.Buffer((32,), \"float32\"), B: T.Buffer((16,), \"float32\")", &why));
  CHECK(why == "buffer A's shape");
}
