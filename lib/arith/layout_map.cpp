// Index maps from layout strings: "NHWC" -> "NCHW4c" is lambda n, h, w, c: [n, c // 4, h, w,
// c % 4]. An uppercase letter is a primal axis; a number and a lowercase letter is an inner
// split of that axis. Each axis's full value is rebuilt from the source layout (c * 4 + c_inner)
// and split again for the target layout.
#include <cctype>
#include <map>
#include <optional>
#include <string>

#include "arith/expr_util.h"
#include "arith/index_map_ops.h"

namespace tirlower {

namespace {

struct Axis {
  char letter;        // uppercase for the primal axis, lowercase for the split
  int64_t factor = 0; // split factor (lowercase only)
};

struct AxisPlan {
  std::vector<Axis> axes;
  std::map<char, size_t> primal; // uppercase letter -> position
  std::map<char, size_t> inner;  // uppercase letter -> position of its split
};

[[noreturn]] void fail(SourceRange where, const std::string &from, const std::string &to, const std::string &why) {
  throw CompileError(where, "cannot build an index map from layout \"" + from + "\" to \"" + to + "\": " + why);
}

// The layout grammar is Layout's (ir/layout.h); an index map needs every axis named.
AxisPlan plan(const Layout &layout, SourceRange where, const std::string &from, const std::string &to) {
  std::string text = layout.name();
  if (layout.isAnyRank())
    fail(where, from, to, "the wildcard layout \"*\" has no index map");
  AxisPlan result;
  for (const DimDescription &dim : layout.dims()) {
    if (dim.isAny())
      fail(where, from, to, "wildcard axis '*' in \"" + text + "\" has no index map");
    char upper = static_cast<char>(std::toupper(static_cast<unsigned char>(dim.name)));
    (dim.isSplit() ? result.inner : result.primal)[upper] = result.axes.size();
    result.axes.push_back({dim.name, dim.factor});
  }
  return result;
}

Layout parse(const std::string &text, SourceRange where, const std::string &from, const std::string &to) {
  LayoutParseError error;
  std::optional<Layout> layout = Layout::parse(text, &error);
  if (!layout)
    fail(where, from, to, error.message + " in \"" + text + "\"");
  return *layout;
}

} // namespace

IndexMap indexMapFromLayouts(const std::string &from, const std::string &to, SourceRange where, DataType indexType) {
  return indexMapFromLayouts(parse(from, where, from, to), parse(to, where, from, to), where, indexType);
}

IndexMap indexMapFromLayouts(const Layout &fromLayout, const Layout &toLayout, SourceRange where, DataType indexType) {
  std::string from = fromLayout.name(), to = toLayout.name();
  AxisPlan source = plan(fromLayout, where, from, to), target = plan(toLayout, where, from, to);
  for (const auto &[letter, position] : source.primal)
    if (!target.primal.count(letter))
      fail(where, from, to, "axis '" + std::string(1, letter) + "' is missing from \"" + to + "\"");
  for (const auto &[letter, position] : target.primal)
    if (!source.primal.count(letter))
      fail(where, from, to, "axis '" + std::string(1, letter) + "' is missing from \"" + from + "\"");

  Analyzer analyzer;
  std::vector<Var> inputs;
  std::map<char, Expr> full; // uppercase letter -> the axis's full logical value
  for (const Axis &axis : source.axes) {
    std::string name(1, static_cast<char>(std::tolower(static_cast<unsigned char>(axis.letter))));
    if (axis.factor)
      name += "_inner";
    inputs.push_back(VarNode::make(Symbol(name), indexType, where));
    if (axis.factor)
      analyzer.bindRange(inputs.back(), 0, axis.factor);
  }
  for (const auto &[letter, position] : source.primal) {
    Expr value = inputs[position];
    if (auto it = source.inner.find(letter); it != source.inner.end())
      value = value * IntImmNode::make(indexType, source.axes[it->second].factor) + inputs[it->second];
    full[letter] = value;
  }
  std::vector<Expr> results;
  for (const Axis &axis : target.axes) {
    char upper = static_cast<char>(std::toupper(static_cast<unsigned char>(axis.letter)));
    Expr value = full.at(upper);
    if (axis.factor) {
      results.push_back(
          analyzer.simplify(BinaryNode::make(BinaryOp::FloorMod, value, IntImmNode::make(indexType, axis.factor))));
      continue;
    }
    if (auto it = target.inner.find(upper); it != target.inner.end())
      value = BinaryNode::make(BinaryOp::FloorDiv, value, IntImmNode::make(indexType, target.axes[it->second].factor));
    results.push_back(analyzer.simplify(value));
  }
  return IndexMapNode::make(inputs, results, {}, where);
}

std::optional<Layout> layoutAfterMap(const Layout &from, const IndexMap &map, const std::vector<Expr> &shape) {
  const std::vector<Var> &inputs = map->initialIndices;
  if (from.isAnyRank() || from.numDims() != inputs.size() || shape.size() != inputs.size())
    return std::nullopt;
  for (const DimDescription &dim : from.dims())
    if (dim.isAny())
      return std::nullopt;
  MappedShape mapped;
  try {
    mapped = mapShape(map, shape);
  } catch (const CompileError &) {
    return std::nullopt;
  }
  // Each final index must use the axes of one primal letter: its first use names the primal
  // axis, a second one its split (the factor is that index's extent).
  std::string candidate;
  std::map<char, int> uses;
  for (size_t k = 0; k < map->finalIndices.size(); ++k) {
    char letter = 0;
    for (size_t j = 0; j < inputs.size(); ++j) {
      if (!usesAnyVar(map->finalIndices[k], {inputs[j]}))
        continue;
      char upper = static_cast<char>(std::toupper(static_cast<unsigned char>(from.dims()[j].name)));
      if (letter && letter != upper)
        return std::nullopt;
      letter = upper;
    }
    if (!letter)
      return std::nullopt;
    int use = uses[letter]++;
    if (use == 0) {
      candidate += letter;
      continue;
    }
    const int64_t *factor = asConstInt(mapped.shape[k]);
    if (use > 1 || !factor || *factor <= 0)
      return std::nullopt;
    candidate += std::to_string(*factor) + static_cast<char>(std::tolower(static_cast<unsigned char>(letter)));
  }
  std::optional<Layout> target = Layout::parse(candidate);
  if (!target)
    return std::nullopt;
  // The candidate names the map only when the layouts' own map computes the same indices.
  IndexMap expected;
  try {
    expected = indexMapFromLayouts(from, *target, {}, inputs.front()->type);
  } catch (const CompileError &) {
    return std::nullopt;
  }
  if (expected->finalIndices.size() != map->finalIndices.size())
    return std::nullopt;
  Analyzer analyzer;
  for (size_t k = 0; k < inputs.size(); ++k)
    analyzer.bindRange(inputs[k], IntImmNode::make(shape[k]->type, 0), shape[k]);
  std::vector<Expr> indices(inputs.begin(), inputs.end());
  std::vector<Expr> computed = mapIndices(expected, indices, analyzer);
  for (size_t k = 0; k < computed.size(); ++k)
    if (!analyzer.canProveEqual(computed[k], map->finalIndices[k]))
      return std::nullopt;
  return target;
}

} // namespace tirlower
