// Random index and value expressions for the semfuzz generator (generator.cpp): index
// expressions carry the interval of their value, so accesses can be kept in bounds, and value
// expressions a bound on their magnitude, so 32- and 64-bit values stay small. Some index and
// value arithmetic wraps around on purpose (int32 products near 2^31, then divided or reduced).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tirlower::semfuzz {

class Rng {
public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi].
  int64_t range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool chance(double p) { return static_cast<double>(next() >> 11) * 0x1.0p-53 < p; }
  template <typename T> const T &pick(const std::vector<T> &items) {
    return items[static_cast<size_t>(range(0, static_cast<int64_t>(items.size()) - 1))];
  }
  template <typename T> void shuffle(std::vector<T> &items) {
    for (size_t k = items.size(); k > 1; --k)
      std::swap(items[k - 1], items[static_cast<size_t>(range(0, static_cast<int64_t>(k) - 1))]);
  }

private:
  uint64_t state_;
};

// An int32 index expression and the interval its value lies in.
struct IndexExpr {
  std::string text;
  int64_t lo = 0, hi = 0;
};

// A value expression of the function's dtype and a bound on its magnitude.
struct ValueExpr {
  std::string text;
  double magnitude = 0;
};

struct BufferInfo {
  BufferInfo(std::string name, std::string dtype, std::vector<int64_t> shape, double magnitude)
      : name(std::move(name)), dtype(std::move(dtype)), shape(std::move(shape)), magnitude(magnitude) {}
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  double magnitude = 1;  // bound on the magnitude of the values it holds
  int axisSeparator = 0; // declared axis_separators=[k] (then it gets no layout transform)
  // A parameter declared with T.match_buffer: a symbolic first extent n0 (shape[0] is then its
  // bound, 16), or strides with gaps and an elem_offset. Neither gets a layout transform.
  bool symbolic = false;
  std::vector<int64_t> strides;
  int64_t elemOffset = 0;
  bool matched() const { return symbolic || !strides.empty(); }
  // An alias over the same data (T.decl_buffer(..., data=NAME.data)) that some accesses use:
  // of the same shape, or flat when the buffer gets no layout transform.
  std::string view;
  bool flatView = false;
  bool transformed = false;
};

bool isFloat(const std::string &dtype);
std::string str(int64_t v);
// The typed constant `T.float32(1.5)`, `T.int8(3)`.
std::string constant(const std::string &dtype, double value);
// Largest magnitude a value of `dtype` may reach without overflow (8-bit integers wrap: any).
double magnitudeLimit(const std::string &dtype);

// Expressions over the variables in `scope` and loads of the `readable` buffers (both owned by
// the generator, which changes them as it goes).
class Expressions {
public:
  Expressions(Rng &rng, std::vector<IndexExpr> &scope, std::vector<BufferInfo> &readable)
      : rng_(rng), scope_(scope), readable_(readable) {}

  IndexExpr index(int depth);
  std::string condition(int depth);
  // `e` made to lie in [0, extent), or in dimension `k` of `b`.
  std::string fit(const IndexExpr &e, int64_t extent);
  std::string fit(const IndexExpr &e, const BufferInfo &b, size_t k);
  // The access of `b` at `indices`, sometimes through its view.
  std::string access(const BufferInfo &b, const std::vector<std::string> &indices);
  std::string load(const BufferInfo &b);
  ValueExpr valueLeaf(const std::string &dtype);
  ValueExpr value(const std::string &dtype, int depth);

private:
  IndexExpr indexLeaf();
  std::optional<IndexExpr> wrapping();

  Rng &rng_;
  std::vector<IndexExpr> &scope_;
  std::vector<BufferInfo> &readable_;
};

} // namespace tirlower::semfuzz
