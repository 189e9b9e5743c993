#include "ir/layout.h"

#include <cctype>
#include <cstdint>

namespace tirlower {

namespace {

bool isDigit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}
bool isUpper(char c) {
  return std::isupper(static_cast<unsigned char>(c)) != 0;
}
bool isLower(char c) {
  return std::islower(static_cast<unsigned char>(c)) != 0;
}
char toUpper(char c) {
  return static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
}

class LayoutParser {
public:
  explicit LayoutParser(std::string_view text) : text_(text) {}

  std::optional<Layout> parse(std::vector<DimDescription> &dims) {
    if (text_.empty())
      return fail(0, 1, "empty layout");
    while (pos_ < text_.size()) {
      DimDescription dim;
      dim.order = dims.size();
      if (!parseName(dim) || !parseAlignment(dim))
        return std::nullopt;
      dims.push_back(dim);
    }
    if (!checkNames(dims))
      return std::nullopt;
    return Layout();
  }

  LayoutParseError error;

private:
  std::nullopt_t fail(size_t offset, size_t length, std::string message) {
    error = {offset, length == 0 ? 1 : length, std::move(message)};
    return std::nullopt;
  }

  // DIGITS at pos_ as a positive value that fits in int32; `what` names it in errors.
  std::optional<int64_t> number(const char *what) {
    size_t start = pos_;
    int64_t value = 0;
    while (pos_ < text_.size() && isDigit(text_[pos_])) {
      value = value * 10 + (text_[pos_] - '0');
      ++pos_;
      if (value > INT32_MAX) {
        while (pos_ < text_.size() && isDigit(text_[pos_]))
          ++pos_;
        return fail(start, pos_ - start,
                    std::string(what) + " '" + std::string(text_.substr(start, pos_ - start)) + "' is too large");
      }
    }
    if (value <= 0)
      return fail(start, pos_ - start, std::string(what) + " must be positive");
    return value;
  }

  bool parseName(DimDescription &dim) {
    size_t start = pos_;
    char ch = text_[pos_];
    if (ch == '*' || isUpper(ch)) {
      dim.name = ch;
      ++pos_;
      return true;
    }
    if (isLower(ch)) {
      fail(start, 1, "split axis '" + std::string(1, ch) + "' needs a factor (e.g. 4" + ch + ")");
      return false;
    }
    if (!isDigit(ch)) {
      // A UTF-8 character is named whole, not by its first byte.
      size_t length = 1;
      if (static_cast<unsigned char>(ch) >= 0xC0)
        while (start + length < text_.size() && (static_cast<unsigned char>(text_[start + length]) & 0xC0) == 0x80)
          ++length;
      fail(start, length, "unknown axis '" + std::string(text_.substr(start, length)) + "'");
      return false;
    }
    std::optional<int64_t> factor = number("split factor");
    if (!factor)
      return false;
    if (pos_ == text_.size() || !isLower(text_[pos_])) {
      fail(start, pos_ - start,
           "number " + std::to_string(*factor) + " must be followed by a lowercase axis (e.g. " +
               std::to_string(*factor) + "c)");
      return false;
    }
    dim.name = text_[pos_++];
    dim.factor = *factor;
    return true;
  }

  bool parseAlignment(DimDescription &dim) {
    if (pos_ == text_.size() || text_[pos_] != '[')
      return true;
    size_t start = pos_;
    if (text_.substr(pos_, 3) != "[a=") {
      fail(start, 1, "malformed alignment: expected [a=N]");
      return false;
    }
    pos_ += 3;
    if (pos_ == text_.size() || !isDigit(text_[pos_])) {
      fail(pos_ < text_.size() ? pos_ : start, 1, "malformed alignment: expected [a=N]");
      return false;
    }
    std::optional<int64_t> alignment = number("alignment");
    if (!alignment)
      return false;
    if (pos_ == text_.size() || text_[pos_] != ']') {
      fail(pos_ < text_.size() ? pos_ : start, 1, "malformed alignment: expected ']'");
      return false;
    }
    ++pos_;
    dim.alignment = *alignment;
    return true;
  }

  // No letter twice; every split has its primal dimension.
  bool checkNames(const std::vector<DimDescription> &dims) {
    for (size_t k = 0; k < dims.size(); ++k) {
      if (dims[k].isAny())
        continue;
      for (size_t j = 0; j < k; ++j)
        if (dims[j].name == dims[k].name) {
          size_t at = offsetOf(k);
          fail(at, dims[k].str().size(), "axis '" + std::string(1, dims[k].name) + "' is repeated");
          return false;
        }
    }
    for (size_t k = 0; k < dims.size(); ++k) {
      if (!dims[k].isSplit())
        continue;
      char primal = toUpper(dims[k].name);
      bool found = false;
      for (const DimDescription &d : dims)
        found = found || d.name == primal;
      if (!found) {
        fail(offsetOf(k), dims[k].str().size(),
             "split axis '" + std::string(1, dims[k].name) + "' has no primal axis '" + std::string(1, primal) + "'");
        return false;
      }
    }
    return true;
  }

  // The offset of the k-th dimension in the text (re-scanned: errors are rare).
  size_t offsetOf(size_t k) const {
    size_t at = 0;
    for (size_t d = 0; d < k; ++d) {
      while (at < text_.size() && isDigit(text_[at]))
        ++at;
      ++at; // the name
      if (at < text_.size() && text_[at] == '[')
        at = text_.find(']', at) + 1;
    }
    return at;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

} // namespace

std::string DimDescription::str() const {
  std::string text = factor ? std::to_string(factor) + name : std::string(1, name);
  if (alignment != 1)
    text += "[a=" + std::to_string(alignment) + "]";
  return text;
}

Layout Layout::anyOfRank(size_t rank) {
  Layout layout;
  layout.anyRank_ = false;
  for (size_t k = 0; k < rank; ++k)
    layout.dims_.push_back({'*', 0, 1, k});
  return layout;
}

std::optional<Layout> Layout::parse(std::string_view text, LayoutParseError *error) {
  if (text == "*")
    return Layout();
  LayoutParser parser(text);
  std::vector<DimDescription> dims;
  std::optional<Layout> layout = parser.parse(dims);
  if (!layout) {
    if (error)
      *error = parser.error;
    return std::nullopt;
  }
  layout->anyRank_ = false;
  layout->dims_ = std::move(dims);
  return layout;
}

bool Layout::isAnyLayout() const {
  for (const DimDescription &dim : dims_)
    if (!dim.isAny())
      return false;
  return true;
}

const DimDescription *Layout::dimDescription(char name) const {
  for (const DimDescription &dim : dims_)
    if (dim.name == name && name != '*')
      return &dim;
  return nullptr;
}

std::string Layout::name() const {
  if (anyRank_)
    return "*";
  std::string text;
  for (const DimDescription &dim : dims_)
    text += dim.str();
  return text;
}

bool Layout::isSameLayout(const Layout &other) const {
  if (anyRank_ != other.anyRank_ || dims_.size() != other.dims_.size())
    return false;
  for (size_t k = 0; k < dims_.size(); ++k)
    if (!dims_[k].sameName(other.dims_[k]) || dims_[k].alignment != other.dims_[k].alignment)
      return false;
  return true;
}

namespace {
std::string dimsText(size_t n) {
  return std::to_string(n) + " dimension" + (n == 1 ? "" : "s");
}
} // namespace

std::string Layout::namesMismatch(const Layout &actual) const {
  if (anyRank_ || actual.anyRank_)
    return "";
  if (actual.dims_.size() != dims_.size())
    return "layout \"" + actual.name() + "\" has " + dimsText(actual.dims_.size()) + " but \"" + name() + "\" has " +
           dimsText(dims_.size());
  for (size_t k = 0; k < dims_.size(); ++k) {
    const DimDescription &want = dims_[k], &have = actual.dims_[k];
    if (!want.isAny() && !have.isAny() && !want.sameName(have))
      return "dimension " + std::to_string(k) + " is '" + DimDescription{have.name, have.factor, 1, k}.str() +
             "' instead of '" + DimDescription{want.name, want.factor, 1, k}.str() + "'";
  }
  return "";
}

std::string Layout::unsatisfiedReason(size_t rank, const std::vector<std::optional<int64_t>> &strides,
                                      const Layout *actual) const {
  if (anyRank_)
    return "";
  if (rank != dims_.size())
    return "the buffer has " + dimsText(rank) + " but \"" + name() + "\" has " + dimsText(dims_.size());
  if (actual)
    if (std::string why = namesMismatch(*actual); !why.empty())
      return why;
  for (size_t k = 0; k < dims_.size(); ++k) {
    int64_t alignment = dims_[k].alignment;
    if (alignment == 1)
      continue;
    std::optional<int64_t> stride = k < strides.size() ? strides[k] : std::nullopt;
    if (stride && *stride % alignment == 0)
      continue;
    if (!stride && actual && !actual->anyRank_ && actual->dims_[k].alignment % alignment == 0)
      continue;
    return "dimension " + std::to_string(k) + " must be aligned to " + std::to_string(alignment) + " elements but " +
           (stride ? "its stride is " + std::to_string(*stride) : std::string("its stride is not known"));
  }
  return "";
}

std::string LayoutRequirement::originText() const {
  switch (origin) {
  case Origin::FuncAttr: return "T.func_attr";
  case Origin::CommandLine: return "--require-layout";
  case Origin::PassOption: return "the pass option require";
  case Origin::Target: return "the target";
  }
  return "";
}

bool parseRequirementSpec(std::string_view text, LayoutRequirement &requirement, LayoutParseError *error) {
  LayoutParseError local;
  LayoutParseError &e = error ? *error : local;
  std::string_view layoutText = text;
  bool texture = false;
  if (size_t colon = text.find(':'); colon != std::string_view::npos) {
    if (text.substr(colon + 1) != "texture") {
      e = {colon, text.size() - colon,
           "unknown layout requirement kind '" + std::string(text.substr(colon + 1)) +
               "'; the only kind is ':texture'"};
      return false;
    }
    layoutText = text.substr(0, colon);
    texture = true;
  }
  std::optional<Layout> layout = Layout::parse(layoutText, &e);
  if (!layout)
    return false;
  if (texture) {
    size_t rank = layout->numDims();
    if (rank < 2 || !layout->dims().back().isSplit() || layout->dims().back().factor != 4) {
      e = {0, layoutText.empty() ? 1 : layoutText.size(),
           "a texture layout must end in a split of 4 (one RGBA texel), such as NCHW4c:texture"};
      return false;
    }
  }
  requirement.layout = std::move(*layout);
  requirement.texture = texture;
  return true;
}

} // namespace tirlower
