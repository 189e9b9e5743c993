// Semantic tensor layouts (the tensor layout design, seeds/004): a layout names each dimension
// of a buffer in order, such as "NHWC" or "NCHW4c". Pure data and a string grammar; index maps
// between layouts are built in lib/arith (indexMapFromLayouts).
//
//   layout    := "*"                 any layout of any rank (the rank-generic default)
//              | dim+
//   dim       := name alignment?
//   name      := UPPER               a primal dimension: N, C, H, W, ...
//              | DIGITS LOWER        an inner split of the primal dimension of that letter: 4c
//              | "*"                 any dimension
//   alignment := "[a=" DIGITS "]"    the dimension's stride (in elements) is a multiple of it
//
// Errors carry an offset inside the string so that callers can point at the offending
// character (the TIR parser inside a string literal, the tool inside a command-line value).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/source_range.h"

namespace tirlower {

struct DimDescription {
  char name = '*';       // 'N' primal, 'c' split, '*' any
  int64_t factor = 0;    // split factor for a lowercase name; 0 otherwise
  int64_t alignment = 1; // required stride multiple, in elements
  size_t order = 0;      // position in the layout

  bool isAny() const { return name == '*'; }
  bool isSplit() const { return factor != 0; }
  // "N", "4c", "*", with "[a=32]" when aligned.
  std::string str() const;
  // Same name and factor (alignment not compared).
  bool sameName(const DimDescription &other) const { return name == other.name && factor == other.factor; }
};

struct LayoutParseError {
  size_t offset = 0; // where in the string the problem starts
  size_t length = 1; // how many characters it covers (at least 1)
  std::string message;
};

class Layout {
public:
  // The rank-generic "any" layout ("*").
  Layout() = default;
  // N dimensions, each "*": the default layout of a rank-N tensor without annotation.
  static Layout anyOfRank(size_t rank);
  // Parses the grammar above. On failure returns nullopt and fills `error` when given.
  static std::optional<Layout> parse(std::string_view text, LayoutParseError *error = nullptr);

  // "*" alone: any rank, any dimension.
  bool isAnyRank() const { return anyRank_; }
  // True when every dimension is "*" (or the layout is rank-generic).
  bool isAnyLayout() const;
  size_t numDims() const { return dims_.size(); }
  const std::vector<DimDescription> &dims() const { return dims_; }
  // The n-th dimension's description; n < numDims().
  const DimDescription &nthDimDescription(size_t n) const { return dims_.at(n); }
  // The dimension named `name` ('N', or 'c' for a split), or null when absent.
  const DimDescription *dimDescription(char name) const;
  // The canonical text: "NCHW4c", "N[a=32]HWC", "*".
  std::string name() const;

  // Both layouts have the same dimensions: names, factors and alignments, in order.
  bool isSameLayout(const Layout &other) const;

  // Why `actual` does not carry this layout's dimensions: its rank differs, or a dimension has
  // another name or factor ("*" on either side, or either layout being "*" alone, matches);
  // "" when it does. Alignments are not compared.
  std::string namesMismatch(const Layout &actual) const;

  // Why a tensor of `rank` dimensions with these element strides (unknown: nullopt) does not
  // satisfy this layout, or "" when it does. When `actual` (the tensor's own layout) is given
  // the check is more complete: its rank must match and every dimension must carry the same
  // name unless either is "*". An alignment is met by a known stride that is a multiple of it,
  // or by `actual` declaring a multiple of it for that dimension.
  std::string unsatisfiedReason(size_t rank, const std::vector<std::optional<int64_t>> &strides,
                                const Layout *actual = nullptr) const;
  bool isSatisfiedBy(size_t rank, const std::vector<std::optional<int64_t>> &strides,
                     const Layout *actual = nullptr) const {
    return unsatisfiedReason(rank, strides, actual).empty();
  }

  friend bool operator==(const Layout &a, const Layout &b) { return a.isSameLayout(b); }

private:
  bool anyRank_ = true;
  std::vector<DimDescription> dims_;
};

// A layout requirement on a buffer: "NCHW4c", or "NCHW4c:texture" to also require OpenCL image
// storage (scope "global.texture", the last two dimensions forming a row of float32 RGBA
// texels: an axis separator before them and a last dimension that is a split of 4).
struct LayoutRequirement {
  enum class Origin { FuncAttr, CommandLine, PassOption, Target };
  std::string buffer;
  Layout layout;
  bool texture = false;
  Origin origin = Origin::CommandLine;
  SourceRange loc; // the requirement's text, where it was written

  // "NCHW4c:texture" (the spelling it was parsed from, canonical).
  std::string spec() const { return layout.name() + (texture ? ":texture" : ""); }
  // "T.func_attr", "--require-layout", ...
  std::string originText() const;
};

// Parses "LAYOUT" or "LAYOUT:texture" into `requirement` (layout and texture); offsets of
// errors are inside `text`.
bool parseRequirementSpec(std::string_view text, LayoutRequirement &requirement, LayoutParseError *error = nullptr);

} // namespace tirlower
