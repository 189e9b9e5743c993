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

std::string cannotMessage(const std::string &from, const std::string &to, const std::string &why) {
  return "cannot build an index map from layout \"" + from + "\" to \"" + to + "\": " + why;
}

// Why a layout has no index map (a wildcard), or nullopt.
std::optional<std::string> wildcardProblem(const Layout &layout) {
  if (layout.isAnyRank())
    return "the wildcard layout \"*\" has no index map";
  for (const DimDescription &dim : layout.dims())
    if (dim.isAny())
      return "wildcard axis '*' in \"" + layout.name() + "\" has no index map";
  return std::nullopt;
}

// The axes of a layout without wildcards (the layout grammar is Layout's, ir/layout.h).
AxisPlan plan(const Layout &layout) {
  AxisPlan result;
  for (const DimDescription &dim : layout.dims()) {
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
    throw CompileError(where, cannotMessage(from, to, error.message + " in \"" + text + "\""));
  return *layout;
}

} // namespace

std::optional<std::string> indexMapFromLayoutsProblem(const Layout &fromLayout, const Layout &toLayout) {
  std::string from = fromLayout.name(), to = toLayout.name();
  for (const Layout *layout : {&fromLayout, &toLayout})
    if (std::optional<std::string> why = wildcardProblem(*layout))
      return cannotMessage(from, to, *why);
  AxisPlan source = plan(fromLayout), target = plan(toLayout);
  for (const auto &[letter, position] : source.primal)
    if (!target.primal.count(letter))
      return cannotMessage(from, to, "axis '" + std::string(1, letter) + "' is missing from \"" + to + "\"");
  for (const auto &[letter, position] : target.primal)
    if (!source.primal.count(letter))
      return cannotMessage(from, to, "axis '" + std::string(1, letter) + "' is missing from \"" + from + "\"");
  return std::nullopt;
}

IndexMap indexMapFromLayouts(const std::string &from, const std::string &to, SourceRange where, DataType indexType) {
  return indexMapFromLayouts(parse(from, where, from, to), parse(to, where, from, to), where, indexType);
}

IndexMap indexMapFromLayouts(const Layout &fromLayout, const Layout &toLayout, SourceRange where, DataType indexType) {
  if (std::optional<std::string> problem = indexMapFromLayoutsProblem(fromLayout, toLayout))
    throw CompileError(where, *problem);
  AxisPlan source = plan(fromLayout), target = plan(toLayout);

  Analyzer analyzer;
  analyzer.assumeNoOverflow(); // index maps over the extents of buffers that exist
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

namespace {

char upperOf(char letter) {
  return static_cast<char>(std::toupper(static_cast<unsigned char>(letter)));
}

// Finds the layout string whose own map computes the same indices as a given map (see
// layoutAfterMap). Each final index must use the axes of one primal letter, and a letter at
// most two final indices: its primal axis and its split, whose factor is that index's extent.
// Which of the two is the split ("NCHW4c" or "N4cHWC") is tried first-is-primal, then swapped
// for the letters whose indices that does not compute (the indices of a letter depend on its
// axes only, so letters are decided independently).
class LayoutMatcher {
public:
  LayoutMatcher(const Layout &from, const IndexMap &map, const std::vector<Expr> &shape, const MappedShape &mapped)
      : from_(from), map_(map), mapped_(mapped) {
    analyzer_.assumeNoOverflow(); // index maps over the extents of buffers that exist
    const std::vector<Var> &inputs = map->initialIndices;
    for (size_t k = 0; k < inputs.size(); ++k)
      analyzer_.bindRange(inputs[k], IntImmNode::make(shape[k]->type, 0), shape[k]);
    indices_.assign(inputs.begin(), inputs.end());
  }

  std::optional<Layout> match() {
    if (!assignLetters())
      return std::nullopt;
    std::optional<Layout> target;
    std::optional<std::vector<size_t>> wrong = check(target);
    if (wrong && !wrong->empty())
      wrong = swapSplits(*wrong) ? check(target) : std::nullopt;
    if (!wrong || !wrong->empty())
      return std::nullopt;
    return target;
  }

private:
  // The letter of each final index, and which index of a letter used twice is its split.
  bool assignLetters() {
    const std::vector<Var> &inputs = map_->initialIndices;
    for (size_t k = 0; k < map_->finalIndices.size(); ++k) {
      char letter = 0;
      for (size_t j = 0; j < inputs.size(); ++j) {
        if (!usesAnyVar(map_->finalIndices[k], {inputs[j]}))
          continue;
        char upper = upperOf(from_.dims()[j].name);
        if (letter && letter != upper)
          return false;
        letter = upper;
      }
      if (!letter)
        return false;
      letters_.push_back(letter);
      uses_[letter].push_back(k);
    }
    isSplit_.assign(letters_.size(), false);
    for (const auto &[letter, positions] : uses_) {
      if (positions.size() > 2)
        return false;
      if (positions.size() == 2)
        isSplit_[positions[1]] = true;
    }
    return true;
  }

  // The candidate layout, and the final indices its own map does not compute (empty: all do).
  std::optional<std::vector<size_t>> check(std::optional<Layout> &target) {
    std::string candidate;
    for (size_t k = 0; k < letters_.size(); ++k) {
      if (!isSplit_[k]) {
        candidate += letters_[k];
        continue;
      }
      const int64_t *factor = asConstInt(mapped_.shape[k]);
      if (!factor || *factor <= 0)
        return std::nullopt;
      candidate += std::to_string(*factor) + static_cast<char>(std::tolower(static_cast<unsigned char>(letters_[k])));
    }
    target = Layout::parse(candidate);
    if (!target)
      return std::nullopt;
    if (indexMapFromLayoutsProblem(from_, *target))
      return std::nullopt;
    IndexMap expected = indexMapFromLayouts(from_, *target, {}, map_->initialIndices.front()->type);
    if (expected->finalIndices.size() != map_->finalIndices.size())
      return std::nullopt;
    std::vector<Expr> computed = mapIndices(expected, indices_, analyzer_);
    std::vector<size_t> wrong;
    for (size_t k = 0; k < computed.size(); ++k)
      if (!analyzer_.canProveEqual(computed[k], map_->finalIndices[k]))
        wrong.push_back(k);
    return wrong;
  }

  // Swaps primal and split of the letters with a wrong index; false when there is none to swap.
  bool swapSplits(const std::vector<size_t> &wrong) {
    bool swapped = false;
    for (const auto &[letter, positions] : uses_) {
      bool letterWrong = false;
      for (size_t k : wrong)
        letterWrong = letterWrong || letters_[k] == letter;
      if (letterWrong && positions.size() == 2) {
        isSplit_[positions[0]] = true;
        isSplit_[positions[1]] = false;
        swapped = true;
      }
    }
    return swapped;
  }

  const Layout &from_;
  const IndexMap &map_;
  const MappedShape &mapped_;
  Analyzer analyzer_;
  std::vector<Expr> indices_;
  std::vector<char> letters_; // per final index, uppercase
  std::map<char, std::vector<size_t>> uses_;
  std::vector<bool> isSplit_;
};

} // namespace

std::optional<Layout> layoutAfterMap(const Layout &from, const IndexMap &map, const std::vector<Expr> &shape,
                                     const MappedShape &mapped) {
  const std::vector<Var> &inputs = map->initialIndices;
  if (from.isAnyRank() || from.numDims() != inputs.size() || shape.size() != inputs.size())
    return std::nullopt;
  for (const DimDescription &dim : from.dims())
    if (dim.isAny())
      return std::nullopt;
  return LayoutMatcher(from, map, shape, mapped).match();
}

} // namespace tirlower
