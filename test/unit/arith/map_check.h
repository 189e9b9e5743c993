// Brute-force checks of an index map over a constant shape: every element maps inside the new
// shape, no two collide, the inverse undoes the map, and the padding predicate is true exactly
// on the points nothing maps to.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "arith/index_map_ops.h"
#include "test_util.h"

namespace tirlower::test {

inline std::vector<Expr> shapeOf(const std::vector<int64_t> &dims) {
  std::vector<Expr> shape;
  for (int64_t d : dims)
    shape.push_back(c(d));
  return shape;
}

// Calls `f` on every point of the box `dims`.
template <typename F> void forEachPoint(const std::vector<int64_t> &dims, F &&f) {
  std::vector<int64_t> point(dims.size(), 0);
  for (int64_t d : dims)
    if (d <= 0)
      return;
  while (true) {
    f(point);
    size_t k = dims.size();
    while (k > 0) {
      --k;
      if (++point[k] < dims[k])
        break;
      point[k] = 0;
      if (k == 0)
        return;
    }
    if (dims.empty())
      return;
  }
}

// Returns an empty string on success, else what failed.
inline std::string checkMap(const IndexMap &map, const std::vector<int64_t> &dims) {
  MappedShape ms = mapShape(map, shapeOf(dims));
  InverseMap inv = inverseMap(map, shapeOf(dims));
  std::vector<int64_t> newDims;
  for (const Expr &e : ms.shape) {
    const int64_t *v = asConstInt(e);
    if (!v)
      return "new shape is not constant";
    newDims.push_back(*v);
  }
  std::set<std::vector<int64_t>> image;
  std::string error;
  int64_t count = 0;
  forEachPoint(dims, [&](const std::vector<int64_t> &x) {
    ++count;
    if (!error.empty())
      return;
    Env env;
    for (size_t k = 0; k < x.size(); ++k)
      env[map->initialIndices[k].get()] = x[k];
    std::vector<int64_t> y;
    for (size_t k = 0; k < map->finalIndices.size(); ++k) {
      y.push_back(eval(map->finalIndices[k], env));
      if (y.back() < 0 || y.back() >= newDims[k])
        error = "element maps outside the new shape";
    }
    if (!image.insert(y).second)
      error = "two elements collide";
    Env back;
    for (size_t k = 0; k < y.size(); ++k)
      back[inv.inverse->initialIndices[k].get()] = y[k];
    for (size_t k = 0; k < x.size(); ++k)
      if (eval(inv.inverse->finalIndices[k], back) != x[k])
        error = "inverse does not undo the map";
  });
  if (!error.empty())
    return error;
  int64_t newCount = 1;
  for (int64_t d : newDims)
    newCount *= d;
  if (ms.paddingElements && *ms.paddingElements != newCount - count)
    return "wrong paddingElements";
  if (ms.padded != (newCount != count))
    return "wrong padded flag";
  forEachPoint(newDims, [&](const std::vector<int64_t> &y) {
    if (!error.empty())
      return;
    Env env;
    for (size_t k = 0; k < y.size(); ++k)
      env[inv.inverse->initialIndices[k].get()] = y[k];
    bool padding = eval(inv.paddingPredicate, env) != 0;
    if (padding != (image.count(y) == 0))
      error = "padding predicate wrong";
  });
  return error;
}

} // namespace tirlower::test
