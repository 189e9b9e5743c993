// Index maps from layout strings: "NHWC" -> "NCHW4c" is lambda n, h, w, c: [n, c // 4, h, w,
// c % 4]. An uppercase letter is a primal axis; a number and a lowercase letter is an inner
// split of that axis. Each axis's full value is rebuilt from the source layout (c * 4 + c_inner)
// and split again for the target layout.
#include <cctype>
#include <map>
#include <string>

#include "arith/expr_util.h"
#include "arith/index_map_ops.h"
#include "arith/int_ops.h"

namespace tirlower {

namespace {

struct Axis {
  char letter;        // uppercase for the primal axis, lowercase for the split
  int64_t factor = 0; // split factor (lowercase only)
};

struct Layout {
  std::string text;
  std::vector<Axis> axes;
  std::map<char, size_t> primal; // uppercase letter -> position
  std::map<char, size_t> inner;  // uppercase letter -> position of its split
};

[[noreturn]] void fail(SourceRange where, const std::string &from, const std::string &to, const std::string &why) {
  throw CompileError(where, "cannot build an index map from layout \"" + from + "\" to \"" + to + "\": " + why);
}

Layout parse(const std::string &text, SourceRange where, const std::string &from, const std::string &to) {
  Layout layout{text, {}, {}, {}};
  if (text.empty())
    fail(where, from, to, "empty layout");
  for (size_t k = 0; k < text.size();) {
    char ch = text[k];
    if (std::isdigit(static_cast<unsigned char>(ch))) {
      int64_t factor = 0;
      size_t start = k;
      for (; k < text.size() && std::isdigit(static_cast<unsigned char>(text[k])); ++k) {
        auto next = checkedMul(factor, 10);
        next = next ? checkedAdd(*next, text[k] - '0') : std::nullopt;
        if (!next || *next > INT32_MAX)
          fail(where, from, to,
               "split factor '" + text.substr(start, k - start + 1) + "...' in \"" + text + "\" is too large");
        factor = *next;
      }
      if (factor <= 0)
        fail(where, from, to, "split factor in \"" + text + "\" must be positive");
      if (k == text.size() || !std::islower(static_cast<unsigned char>(text[k])))
        fail(where, from, to,
             "number " + std::to_string(factor) + " in \"" + text + "\" must be followed by a lowercase axis");
      char upper = static_cast<char>(std::toupper(static_cast<unsigned char>(text[k])));
      if (layout.inner.count(upper))
        fail(where, from, to, "axis '" + std::string(1, text[k]) + "' is repeated in \"" + text + "\"");
      layout.inner[upper] = layout.axes.size();
      layout.axes.push_back({text[k], factor});
      ++k;
      continue;
    }
    if (std::islower(static_cast<unsigned char>(ch)))
      fail(where, from, to,
           "split axis '" + std::string(1, ch) + "' in \"" + text + "\" needs a factor (e.g. 4" + ch + ")");
    if (!std::isupper(static_cast<unsigned char>(ch)))
      fail(where, from, to, "unknown axis '" + std::string(1, ch) + "' in \"" + text + "\"");
    if (layout.primal.count(ch))
      fail(where, from, to, "axis '" + std::string(1, ch) + "' is repeated in \"" + text + "\"");
    layout.primal[ch] = layout.axes.size();
    layout.axes.push_back({ch, 0});
    ++k;
  }
  for (const auto &[upper, position] : layout.inner)
    if (!layout.primal.count(upper))
      fail(where, from, to,
           "split axis '" + std::string(1, layout.axes[position].letter) + "' in \"" + text +
               "\" has no primal axis '" + std::string(1, upper) + "'");
  return layout;
}

} // namespace

IndexMap indexMapFromLayouts(const std::string &from, const std::string &to, SourceRange where, DataType indexType) {
  Layout source = parse(from, where, from, to), target = parse(to, where, from, to);
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

} // namespace tirlower
