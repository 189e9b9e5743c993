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

TEST_CASE("alpha equality: float constants compare at their type's precision") {
  const char *halves = "A: T.Buffer((16,), \"float16\"), B: T.Buffer((16,), \"float16\")";
  // TVM prints a float16 constant with the digits of its double; tirlower at float16 precision.
  CHECK(same(halves, "    B[0] = A[0] * T.float16(0.088397790055248615)\n", "    B[0] = A[0] * T.float16(0.0884)\n"));
  // The next float16 after 0.0884 (a step of 2^-17 near it) is another constant.
  CHECK_FALSE(same(halves, "    B[0] = A[0] * T.float16(0.0884)\n", "    B[0] = A[0] * T.float16(0.08847)\n"));
  CHECK(same(kParams, "    B[0] = A[0] * T.float32(0.1)\n", "    B[0] = A[0] * T.float32(0.100000001)\n"));
  CHECK_FALSE(same(kParams, "    B[0] = A[0] * T.float32(0.1)\n", "    B[0] = A[0] * T.float32(0.1000001)\n"));
  const char *doubles = "A: T.Buffer((16,), \"float64\"), B: T.Buffer((16,), \"float64\")";
  CHECK_FALSE(same(doubles, "    B[0] = A[0] * T.float64(0.1)\n", "    B[0] = A[0] * T.float64(0.100000001)\n"));
  // Subnormal float16s: 2^-24 steps.
  CHECK(same(halves, "    B[0] = T.float16(5.9604644775390625e-08)\n", "    B[0] = T.float16(6e-08)\n"));
  CHECK_FALSE(same(halves, "    B[0] = T.float16(5.9604644775390625e-08)\n", "    B[0] = T.float16(1.2e-07)\n"));
}
