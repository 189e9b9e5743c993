// The program generator. A function has input and output buffer parameters (random ranks,
// extents and dtypes), an optional scratch buffer that one loop nest fills completely before
// the others read it, and one loop nest per written buffer. A nest's loops cover the written
// buffer exactly (plain, split with a guard when the factor does not divide, or fused), in a
// random order and of random kinds, with an optional reduction loop; its body has lets, ifs,
// a local scratch element and random value expressions over loads of the inputs.
#include "generator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <vector>

namespace tirlower::semfuzz {
namespace {

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

bool isFloat(const std::string &dtype) {
  return dtype.rfind("float", 0) == 0;
}

std::string str(int64_t v) {
  return std::to_string(v);
}

std::string floatText(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  std::string s = text;
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s;
}

// Largest magnitude a value of `dtype` may reach without overflow (8-bit integers wrap: any).
double magnitudeLimit(const std::string &dtype) {
  if (dtype == "int32")
    return 1 << 28;
  if (dtype == "int64")
    return 1e15;
  if (dtype == "int8")
    return std::numeric_limits<double>::infinity();
  return 1e6; // floats: far from overflow, and casts of them to int32 stay in range
}

class Generator {
public:
  Generator(uint64_t seed, std::string name) : rng_(seed), name_(std::move(name)) {}

  GeneratedProgram generate() {
    dtype_ = rng_.pick<std::string>({"float32", "float32", "float32", "float64", "int32", "int32", "int8", "int64"});
    chooseBuffers();
    std::vector<std::string> body;
    emitTransforms();
    if (scratch_) {
      line("scratch = T.alloc_buffer(" + shapeText(scratch_->shape) + ", \"" + dtype_ + "\")");
      maybeTransform(*scratch_);
      writeNest(*scratch_, true);
      readable_.push_back(*scratch_);
    }
    for (size_t k = 0; k < outputs_.size(); ++k) {
      writeNest(outputs_[k], false);
      readable_.push_back(outputs_[k]); // initialised by the caller, now partly rewritten
    }
    GeneratedProgram program;
    program.function = name_;
    const std::string params = signature(); // may add axis separators
    program.pipeline = pipeline();
    program.compilable = flattened_ && !separators_;
    program.text = "from tvm.script import tir as T\n\n\n@T.prim_func\ndef " + name_ + "(" + params +
                   "):\n    T.func_attr({\"global_symbol\": \"" + name_ + "\", \"tir.noalias\": True})\n" + text_;
    return program;
  }

private:
  // ---- buffers and layouts ----

  std::vector<int64_t> randomShape(int64_t maxElements) {
    std::vector<int64_t> shape(static_cast<size_t>(rng_.range(1, 3)));
    int64_t product = 1;
    for (int64_t &extent : shape) {
      extent = std::min<int64_t>(rng_.range(1, 9), std::max<int64_t>(1, maxElements / product));
      product *= extent;
    }
    return shape;
  }

  void chooseBuffers() {
    int inputs = static_cast<int>(rng_.range(1, 3));
    for (int k = 0; k < inputs; ++k) {
      std::string dtype = k > 0 && rng_.chance(0.3) ? (dtype_ == "int32" ? "float32" : "int32") : dtype_;
      BufferInfo b("In" + str(k), dtype, randomShape(96),
                   dtype == "int32" || dtype == "int8" || dtype == "int64" ? 8.0 : 1.0);
      inputs_.push_back(b);
    }
    int outputs = static_cast<int>(rng_.range(1, 2));
    for (int k = 0; k < outputs; ++k)
      outputs_.emplace_back("Out" + str(k), dtype_, randomShape(96), isFloat(dtype_) ? 1.0 : 8.0);
    // A declared axis separator: the buffer stays 2-d after flatten.
    for (BufferInfo *b : {&inputs_.front(), &outputs_.front()})
      if (b->shape.size() >= 2 && rng_.chance(0.04)) {
        b->axisSeparator = static_cast<int>(rng_.range(1, static_cast<int64_t>(b->shape.size()) - 1));
        separators_ = true;
      }
    if (rng_.chance(0.4))
      scratch_ = BufferInfo("scratch", dtype_, randomShape(64), 0);
    bool symbolic = false;
    for (BufferInfo *b : params()) {
      if (b->axisSeparator)
        continue;
      int64_t inner = 1;
      for (size_t k = 1; k < b->shape.size(); ++k)
        inner *= b->shape[k];
      if (inner <= 12 && rng_.chance(0.1)) {
        b->symbolic = symbolic = true;
        b->shape[0] = 16; // n0 is in [1, 16]
      } else if (b->shape.size() >= 2 && rng_.chance(0.1)) {
        b->strides.assign(b->shape.size(), 1);
        for (size_t k = b->shape.size() - 1; k-- > 0;)
          b->strides[k] = b->strides[k + 1] * b->shape[k + 1] + rng_.range(0, 3);
        b->elemOffset = rng_.range(0, 5);
      }
    }
    if (symbolic || rng_.chance(0.25))
      scalars_.push_back({"n0", 1, 16});
    readable_ = inputs_;
    for (const BufferInfo *b : params())
      if (b->matched())
        line(b->name + " = T.match_buffer(" + handleName(*b) + ", " + shapeText(*b) + ", \"" + b->dtype + "\"" +
             (b->strides.empty() ? "" : ", strides=" + shapeText(b->strides) + ", elem_offset=" + str(b->elemOffset)) +
             ")");
  }

  std::vector<BufferInfo *> params() {
    std::vector<BufferInfo *> out;
    for (BufferInfo &b : inputs_)
      out.push_back(&b);
    for (BufferInfo &b : outputs_)
      out.push_back(&b);
    return out;
  }

  static std::string handleName(const BufferInfo &b) { return "h_" + b.name; }

  std::string shapeText(const BufferInfo &b) {
    std::string text = shapeText(b.shape);
    return b.symbolic ? "(n0" + text.substr(text.find_first_of(",)")) : text;
  }

  std::string shapeText(const std::vector<int64_t> &shape) {
    std::string out = "(";
    for (size_t k = 0; k < shape.size(); ++k)
      out += (k ? ", " : "") + str(shape[k]);
    return out + (shape.size() == 1 ? ",)" : ")");
  }

  std::string signature() {
    std::string out;
    auto add = [&](const BufferInfo &b) {
      if (b.matched()) {
        out += (out.empty() ? "" : ", ") + handleName(b) + ": T.handle";
        return;
      }
      out += (out.empty() ? "" : ", ") + b.name + ": T.Buffer(" + shapeText(b.shape) + ", \"" + b.dtype + "\"";
      if (b.axisSeparator)
        out += ", axis_separators=[" + str(b.axisSeparator) + "]";
      out += ")";
    };
    for (const BufferInfo &b : inputs_)
      add(b);
    for (const BufferInfo &b : outputs_)
      add(b);
    for (const IndexExpr &s : scalars_)
      out += ", " + s.text + ": T.int32";
    return out;
  }

  std::string constant(const std::string &dtype, double value) {
    if (isFloat(dtype))
      return "T." + dtype + "(" + floatText(value) + ")";
    return "T." + dtype + "(" + str(static_cast<int64_t>(value)) + ")";
  }

  void emitTransforms() {
    for (BufferInfo *b : params())
      maybeTransform(*b);
    for (BufferInfo *b : params()) {
      if (b->matched() || b->axisSeparator || !rng_.chance(0.2))
        continue;
      b->view = b->name + "_view";
      b->flatView = !b->transformed && b->shape.size() >= 2 && rng_.chance(0.5);
      int64_t elements = 1;
      for (int64_t extent : b->shape)
        elements *= extent;
      line(b->view + " = T.decl_buffer(" + (b->flatView ? shapeText({elements}) : shapeText(b->shape)) + ", \"" +
           b->dtype + "\", data=" + b->name + ".data)");
    }
    for (const BufferInfo *b : params())
      for (BufferInfo &r : readable_)
        if (r.name == b->name)
          r = *b;
  }

  // The access of `b` at `indices`, sometimes through its view.
  std::string access(const BufferInfo &b, const std::vector<std::string> &indices) {
    std::string out;
    if (!b.view.empty() && b.flatView && rng_.chance(0.5)) {
      int64_t stride = 1;
      for (size_t k = indices.size(); k-- > 0;) {
        out = "(" + indices[k] + ")" + (stride == 1 ? "" : " * " + str(stride)) + (out.empty() ? "" : " + " + out);
        stride *= b.shape[k];
      }
      return b.view + "[" + out + "]";
    }
    for (size_t k = 0; k < indices.size(); ++k)
      out += (k ? ", " : "") + indices[k];
    return (!b.view.empty() && !b.flatView && rng_.chance(0.5) ? b.view : b.name) + "[" + out + "]";
  }

  // A random index map over `shape`: permuted axes, splits (padded when the factor does not
  // divide), fused neighbours, sometimes an axis separator.
  void maybeTransform(BufferInfo &b) {
    if (b.axisSeparator || b.matched() || !rng_.chance(0.4)) // a map must state the separators itself
      return;
    const size_t rank = b.shape.size();
    std::vector<std::string> axes;
    for (size_t k = 0; k < rank; ++k)
      axes.push_back("v" + str(static_cast<int64_t>(k)));
    std::vector<std::string> outer, inner;
    bool padded = false;
    for (size_t k = 0; k < rank; ++k) {
      int64_t extent = b.shape[k];
      if (k + 1 < rank && rng_.chance(0.15)) {
        outer.push_back(axes[k] + " * " + str(b.shape[k + 1]) + " + " + axes[k + 1]);
        ++k;
      } else if (extent >= 3 && rng_.chance(0.4)) {
        int64_t factor = rng_.range(2, std::min<int64_t>(4, extent - 1));
        padded |= extent % factor != 0;
        outer.push_back(axes[k] + " // " + str(factor));
        (rng_.chance(0.5) ? inner : outer).push_back(axes[k] + " % " + str(factor));
      } else {
        outer.push_back(axes[k]);
      }
    }
    if (rng_.chance(0.5))
      rng_.shuffle(outer);
    outer.insert(outer.end(), inner.begin(), inner.end());
    if (outer.size() >= 2 && rng_.chance(0.08)) {
      outer.insert(outer.begin() + rng_.range(1, static_cast<int64_t>(outer.size()) - 1), "T.AXIS_SEPARATOR");
      separators_ = true;
    }
    std::string lambda = "lambda ";
    for (size_t k = 0; k < rank; ++k)
      lambda += (k ? ", " : "") + axes[k];
    lambda += ": [";
    for (size_t k = 0; k < outer.size(); ++k)
      lambda += (k ? ", " : "") + outer[k];
    lambda += "]";
    std::string pad;
    if (padded || rng_.chance(0.15))
      pad = ", pad_value=" + constant(b.dtype, rng_.pick<double>({0, 1, -1, 1.5, 7}));
    line("T.transform_layout(" + b.name + ", " + lambda + pad + ")");
    b.transformed = true;
    transformed_ = true;
  }

  // ---- index expressions ----

  IndexExpr indexLeaf() {
    if (!scope_.empty() && rng_.chance(0.8))
      return rng_.pick(scope_);
    int64_t c = rng_.range(0, 9);
    return {str(c), c, c};
  }

  IndexExpr index(int depth) {
    if (depth <= 0 || rng_.chance(0.3))
      return indexLeaf();
    IndexExpr a = index(depth - 1);
    auto paren = [](const IndexExpr &e) { return "(" + e.text + ")"; };
    IndexExpr r;
    switch (rng_.range(0, 13)) {
    case 0:
    case 1: {
      IndexExpr b = index(depth - 1);
      r = {paren(a) + " + " + paren(b), a.lo + b.lo, a.hi + b.hi};
      break;
    }
    case 2: {
      IndexExpr b = index(depth - 1);
      r = {paren(a) + " - " + paren(b), a.lo - b.hi, a.hi - b.lo};
      break;
    }
    case 3: {
      int64_t c = rng_.range(-3, 5);
      r = {paren(a) + " * " + str(c), std::min(a.lo * c, a.hi * c), std::max(a.lo * c, a.hi * c)};
      break;
    }
    case 4: {
      int64_t c = rng_.range(1, 6);
      bool named = rng_.chance(0.3);
      r = {named ? "T.floordiv(" + a.text + ", " + str(c) + ")" : paren(a) + " // " + str(c), floorDiv(a.lo, c),
           floorDiv(a.hi, c)};
      break;
    }
    case 5: {
      int64_t c = rng_.range(1, 6);
      bool named = rng_.chance(0.3);
      std::string text = named ? "T.floormod(" + a.text + ", " + str(c) + ")" : paren(a) + " % " + str(c);
      r = a.lo >= 0 && a.hi < c ? IndexExpr{text, a.lo, a.hi} : IndexExpr{text, 0, c - 1};
      break;
    }
    case 6: {
      int64_t c = rng_.range(1, 5);
      r = {"T.truncdiv(" + a.text + ", " + str(c) + ")", a.lo / c, a.hi / c};
      break;
    }
    case 7: {
      int64_t c = rng_.range(1, 5);
      std::string text = "T.truncmod(" + a.text + ", " + str(c) + ")";
      if (a.lo >= 0)
        r = {text, 0, std::min(a.hi, c - 1)};
      else if (a.hi <= 0)
        r = {text, std::max(a.lo, -(c - 1)), 0};
      else
        r = {text, -(c - 1), c - 1};
      break;
    }
    case 8: {
      IndexExpr b = index(depth - 1);
      r = {"T.min(" + a.text + ", " + b.text + ")", std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
      break;
    }
    case 9: {
      IndexExpr b = index(depth - 1);
      r = {"T.max(" + a.text + ", " + b.text + ")", std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
      break;
    }
    case 10: {
      IndexExpr b = index(depth - 1);
      std::string fn = rng_.chance(0.5) ? "T.Select" : "T.if_then_else";
      r = {fn + "(" + condition(depth - 1) + ", " + a.text + ", " + b.text + ")", std::min(a.lo, b.lo),
           std::max(a.hi, b.hi)};
      break;
    }
    case 12:
    case 13: {
      // (a * (c * m) + b) divided by c: the simplifier may take a * m out, which is right for
      // floor division and wrong for truncating division when the signs differ.
      int64_t c = rng_.range(2, 5), m = rng_.range(-2, 3);
      IndexExpr b = index(depth - 1);
      std::string sum = paren(a) + " * " + str(c * m) + " + " + paren(b);
      int64_t lo = std::min(a.lo * c * m, a.hi * c * m) + b.lo, hi = std::max(a.lo * c * m, a.hi * c * m) + b.hi;
      switch (rng_.range(0, 3)) {
      case 0: r = {"(" + sum + ") // " + str(c), floorDiv(lo, c), floorDiv(hi, c)}; break;
      case 1: r = {"(" + sum + ") % " + str(c), 0, c - 1}; break;
      case 2: r = {"T.truncdiv(" + sum + ", " + str(c) + ")", lo / c, hi / c}; break;
      default: r = {"T.truncmod(" + sum + ", " + str(c) + ")", lo >= 0 ? 0 : -(c - 1), hi <= 0 ? 0 : c - 1}; break;
      }
      break;
    }
    default: {
      // Split-and-fuse arithmetic the simplifier folds back.
      int64_t c = rng_.range(2, 8);
      IndexExpr b = index(depth - 1);
      if (b.lo >= 0 && b.hi < c) {
        std::string fused = paren(a) + " * " + str(c) + " + " + paren(b);
        r = rng_.chance(0.5) ? IndexExpr{"(" + fused + ") // " + str(c), a.lo, a.hi}
                             : IndexExpr{"(" + fused + ") % " + str(c), b.lo, b.hi};
      } else {
        r = a;
      }
      break;
    }
    }
    if (std::max(std::abs(r.lo), std::abs(r.hi)) > (int64_t(1) << 24))
      return indexLeaf();
    return r;
  }

  static int64_t floorDiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
  }

  std::string condition(int depth) {
    int kind = static_cast<int>(rng_.range(0, 5));
    if (kind == 4 && depth > 0)
      return "(" + condition(depth - 1) + ") " + (rng_.chance(0.5) ? "and" : "or") + " (" + condition(depth - 1) + ")";
    if (kind == 5 && depth > 0)
      return "not (" + condition(depth - 1) + ")";
    IndexExpr a = index(depth), b = index(std::max(0, depth - 1));
    static const std::vector<std::string> ops = {"<", "<=", "==", "!=", ">", ">="};
    return a.text + " " + rng_.pick(ops) + " " + b.text;
  }

  // `e` made to lie in [0, extent).
  std::string fit(const IndexExpr &e, int64_t extent) {
    if (e.lo >= 0 && e.hi < extent)
      return e.text;
    if (e.hi - e.lo < extent && rng_.chance(0.3)) {
      int64_t shift = -e.lo;
      return "(" + e.text + ")" + (shift >= 0 ? " + " + str(shift) : " - " + str(-shift));
    }
    switch (rng_.range(0, 2)) {
    case 0: return "(" + e.text + ") % " + str(extent);
    case 1: return "T.floormod(" + e.text + ", " + str(extent) + ")";
    default: return "T.min(T.max(" + e.text + ", 0), " + str(extent - 1) + ")";
    }
  }

  // `e` made to lie in dimension `k` of `b`.
  std::string fit(const IndexExpr &e, const BufferInfo &b, size_t k) {
    if (!(b.symbolic && k == 0))
      return fit(e, b.shape[k]);
    if (e.lo >= 0 && e.hi < 1)
      return e.text;
    return rng_.chance(0.5) ? "T.floormod(" + e.text + ", n0)" : "T.min(T.max(" + e.text + ", 0), n0 - 1)";
  }

  std::string load(const BufferInfo &b) {
    std::vector<std::string> indices;
    for (size_t k = 0; k < b.shape.size(); ++k)
      indices.push_back(fit(index(2), b, k));
    return access(b, indices);
  }

  // ---- value expressions ----

  ValueExpr valueLeaf(const std::string &dtype) {
    std::vector<const BufferInfo *> same, other;
    for (const BufferInfo &b : readable_)
      (b.dtype == dtype ? same : other).push_back(&b);
    int kind = static_cast<int>(rng_.range(0, 9));
    if (kind <= 4 && !same.empty()) {
      const BufferInfo &b = *rng_.pick(same);
      // A guarded load whose index may leave the buffer: only if_then_else's laziness keeps it
      // in bounds.
      if (b.shape.size() == 1 && !b.symbolic && rng_.chance(0.15)) {
        IndexExpr e = index(2);
        std::string i = e.text;
        return {"T.if_then_else(0 <= " + i + " and " + i + " < " + str(b.shape[0]) + ", " + b.name + "[" + i + "], " +
                    constant(dtype, 1) + ")",
                std::max(b.magnitude, 1.0)};
      }
      return {load(b), b.magnitude};
    }
    if (kind == 5 && !other.empty()) {
      const BufferInfo &b = *rng_.pick(other);
      if (isFloat(b.dtype) && !isFloat(dtype)) // float -> int truncates; scaled inputs stay small
        return {"T.Cast(\"" + dtype + "\", " + load(b) + " * " + constant(b.dtype, 8) + ")", 8 * b.magnitude};
      return {"T.Cast(\"" + dtype + "\", " + load(b) + ")", b.magnitude};
    }
    if (kind <= 7) {
      IndexExpr e = index(2);
      return {"T.Cast(\"" + dtype + "\", " + e.text + ")",
              static_cast<double>(std::max(std::abs(e.lo), std::abs(e.hi)))};
    }
    double c =
        isFloat(dtype) ? rng_.pick<double>({0.5, 1.5, 2, -3, 0.25, 7, -0.75}) : static_cast<double>(rng_.range(-5, 7));
    return {constant(dtype, c), std::abs(c)};
  }

  ValueExpr value(const std::string &dtype, int depth) {
    if (depth <= 0 || rng_.chance(0.25))
      return valueLeaf(dtype);
    ValueExpr a = value(dtype, depth - 1);
    const bool fl = isFloat(dtype);
    ValueExpr r;
    switch (rng_.range(0, 9)) {
    case 0:
    case 1: {
      ValueExpr b = value(dtype, depth - 1);
      r = {"(" + a.text + ") + (" + b.text + ")", a.magnitude + b.magnitude};
      break;
    }
    case 2: {
      ValueExpr b = value(dtype, depth - 1);
      r = {"(" + a.text + ") - (" + b.text + ")", a.magnitude + b.magnitude};
      break;
    }
    case 3: {
      ValueExpr b = value(dtype, depth - 1);
      r = {"(" + a.text + ") * (" + b.text + ")", a.magnitude * b.magnitude};
      break;
    }
    case 4: {
      ValueExpr b = value(dtype, depth - 1);
      r = {std::string(rng_.chance(0.5) ? "T.min(" : "T.max(") + a.text + ", " + b.text + ")",
           std::max(a.magnitude, b.magnitude)};
      break;
    }
    case 5: {
      ValueExpr b = value(dtype, depth - 1);
      std::string cond = rng_.chance(0.5) ? condition(1) : a.text + " < " + b.text;
      std::string fn = rng_.chance(0.5) ? "T.Select" : "T.if_then_else";
      r = {fn + "(" + cond + ", " + a.text + ", " + b.text + ")", std::max(a.magnitude, b.magnitude)};
      break;
    }
    case 6: {
      if (fl) {
        double c = rng_.pick<double>({2, 4, 3, -0.5});
        r = {"(" + a.text + ") / " + constant(dtype, c), a.magnitude / std::abs(c)};
      } else {
        int64_t c = rng_.range(1, 5);
        std::string op = rng_.pick<std::string>({" // ", " % "});
        r = {"(" + a.text + ")" + op + constant(dtype, static_cast<double>(c)),
             op == " % " ? static_cast<double>(c) : a.magnitude};
      }
      break;
    }
    case 7: {
      if (fl) {
        std::string fn = rng_.pick<std::string>({"T.fabs", "T.floor", "T.ceil", "T.trunc"});
        r = {fn + "(" + a.text + ")", a.magnitude + 1};
      } else {
        r = {"T.abs(" + a.text + ")", a.magnitude};
        if (dtype == "int8") // abs(-128) is not representable
          r = a;
      }
      break;
    }
    default: {
      // A round trip through another type.
      if (fl && a.magnitude < 1e5) {
        r = {"T.Cast(\"" + dtype + "\", T.Cast(\"int32\", " + a.text + "))", a.magnitude};
      } else if (!fl) {
        r = {"T.Cast(\"" + dtype + "\", T.Cast(\"float32\", " + a.text + ") * T.float32(0.5))", a.magnitude};
        if (dtype == "int64" || a.magnitude > (1 << 23)) // exact in float32 only to 2^24
          r = a;
      } else {
        r = a;
      }
      break;
    }
    }
    if (r.magnitude > magnitudeLimit(dtype))
      return valueLeaf(dtype);
    return r;
  }

  // ---- statements ----

  void line(const std::string &text) { text_ += std::string(static_cast<size_t>(4 * indent_ + 4), ' ') + text + "\n"; }

  struct Loop {
    std::string name;
    int64_t extent; // the bound of a symbolic extent
    bool reduction = false;
    bool symbolic = false; // extent n0: serial or parallel only
  };

  std::string loopHeader(const Loop &loop, int &unrolls) {
    int kind = static_cast<int>(rng_.range(0, 9));
    std::string e = loop.symbolic ? "n0" : str(loop.extent);
    if (loop.reduction)
      kind = kind < 6 ? 0 : 8;
    if (loop.symbolic)
      kind = kind < 6 ? kind : 0;
    if (kind <= 2)
      return "for " + loop.name + " in range(" + e + "):";
    if (kind == 3)
      return "for " + loop.name + " in T.serial(" + e + "):";
    if (kind <= 5)
      return "for " + loop.name + " in T.parallel(" + e + "):";
    if (kind <= 7 && loop.extent <= 16)
      return "for " + loop.name + " in T.vectorized(" + e + "):";
    if (loop.extent <= 6 && unrolls < 2) {
      ++unrolls;
      return "for " + loop.name + " in T.unroll(" + e + "):";
    }
    return "for " + loop.name + " in range(" + e + "):";
  }

  // Loops that visit every element of `target` once, the store's indices, and the guards that
  // keep split loops inside the extents.
  void writeNest(BufferInfo &target, bool initialise) {
    std::vector<Loop> loops;
    std::vector<std::string> indices, guards;
    std::vector<IndexExpr> vars;
    const size_t rank = target.shape.size();
    auto fresh = [&](int64_t extent) {
      std::string name = "i" + str(nextVar_++);
      loops.push_back({name, extent});
      vars.push_back({name, 0, extent - 1});
      return name;
    };
    for (size_t d = 0; d < rank; ++d) {
      int64_t extent = target.shape[d];
      if (d == 0 && target.symbolic) {
        indices.push_back(fresh(extent));
        loops.back().symbolic = true;
      } else if (d + 1 < rank && rng_.chance(0.15)) {
        int64_t next = target.shape[d + 1];
        std::string f = fresh(extent * next);
        indices.push_back(f + " // " + str(next));
        indices.push_back(f + " % " + str(next));
        ++d;
      } else if (extent >= 3 && rng_.chance(0.25)) {
        int64_t factor = rng_.range(2, 4);
        std::string o = fresh((extent + factor - 1) / factor), i = fresh(factor);
        std::string idx = o + " * " + str(factor) + " + " + i;
        indices.push_back(idx);
        if (extent % factor)
          guards.push_back(idx + " < " + str(extent));
      } else {
        indices.push_back(fresh(extent));
      }
    }
    rng_.shuffle(loops);
    // A reduction loop: accumulate into the target (initialised first when it is scratch).
    bool reduce = rng_.chance(0.3);
    Loop reduction{"k" + str(nextVar_++), rng_.range(1, 4), true};
    if (reduce && !initialise)
      loops.insert(loops.begin() + rng_.range(0, static_cast<int64_t>(loops.size())), reduction);
    const std::string access = this->access(target, indices);

    const int saved = indent_;
    const size_t savedScope = scope_.size();
    int unrolls = 0;
    for (const Loop &loop : loops) {
      line(loopHeader(loop, unrolls));
      ++indent_;
      scope_.push_back({loop.name, 0, loop.extent - 1});
    }
    for (const IndexExpr &s : scalars_)
      scope_.push_back(s);
    if (!guards.empty()) {
      std::string cond;
      for (const std::string &g : guards)
        cond += (cond.empty() ? "" : " and ") + g;
      line("if " + cond + ":");
      ++indent_;
    }
    for (int lets = static_cast<int>(rng_.range(0, 2)); lets > 0; --lets) {
      IndexExpr e = index(2);
      std::string name = "x" + str(nextVar_++);
      line(name + ": T.int32 = " + e.text);
      scope_.push_back({name, e.lo, e.hi});
    }
    const double limit = magnitudeLimit(dtype_) / 8;
    auto rhs = [&](int depth) {
      ValueExpr v = value(dtype_, depth);
      return v.magnitude > limit ? valueLeaf(dtype_) : v;
    };
    double magnitude = 0;
    auto store = [&](bool accumulate) {
      ValueExpr v = rhs(3);
      magnitude = std::max(magnitude, v.magnitude);
      if (rng_.chance(0.12)) { // through a local scratch element
        std::string local = "acc" + str(nextVar_++);
        line(local + " = T.alloc_buffer((1,), \"" + dtype_ + "\", scope=\"local\")");
        line(local + "[0] = " + v.text);
        v.text = local + "[0]";
      }
      line(access + " = " + (accumulate ? access + " + (" + v.text + ")" : v.text));
    };
    if (initialise && reduce) {
      store(false);
      line("for " + reduction.name + " in " + (rng_.chance(0.3) ? "T.unroll(" : "range(") + str(reduction.extent) +
           "):");
      ++indent_;
      scope_.push_back({reduction.name, 0, reduction.extent - 1});
      store(true);
    } else if (!initialise && rng_.chance(0.25)) {
      line("if " + condition(2) + ":");
      ++indent_;
      store(reduce);
      --indent_;
      if (rng_.chance(0.5)) {
        line("else:");
        ++indent_;
        store(reduce);
        --indent_;
      }
    } else {
      store(reduce);
    }
    indent_ = saved;
    scope_.resize(savedScope);
    // Accumulated values grow with the reduction extent; outputs start at the inputs' range.
    target.magnitude = std::max(target.magnitude, magnitude * static_cast<double>(reduction.extent + 1) + 8);
  }

  // ---- pipeline ----

  std::string pipeline() {
    static const std::vector<std::string> anywhere = {"simplify", "remove-no-op", "convert-ssa", "unroll", "vectorize"};
    std::vector<std::string> passes;
    bool layoutsApplied = !transformed_;
    auto some = [&](int most, bool flat) {
      for (int n = static_cast<int>(rng_.range(0, most)); n > 0; --n) {
        std::string pass = rng_.pick(anywhere);
        if (flat && rng_.chance(0.12))
          pass = rng_.chance(0.5) ? "vector-type-rewrite" : "lower-vector-access";
        if (pass == "vectorize" && !layoutsApplied) // vector accesses cannot be transformed
          pass = "simplify";
        if (pass == "unroll") // nested unrolled loops may exceed the default limit of 1024 statements
          pass = "unroll{limit=65536}";
        passes.push_back(pass);
      }
    };
    some(2, false);
    flattened_ = rng_.chance(0.92);
    if (transformed_ || flattened_ || rng_.chance(0.5))
      passes.push_back("apply-layout-transforms");
    layoutsApplied = true;
    some(2, false);
    if (flattened_) {
      passes.push_back("flatten");
      some(3, true);
    }
    std::string out;
    for (const std::string &p : passes)
      out += (out.empty() ? "" : ",") + p;
    return out.empty() ? "simplify" : out;
  }

  Rng rng_;
  std::string name_;
  std::string dtype_;
  std::vector<BufferInfo> inputs_, outputs_, readable_;
  std::optional<BufferInfo> scratch_;
  std::vector<IndexExpr> scalars_, scope_;
  std::string text_;
  int indent_ = 0;
  int nextVar_ = 0;
  bool transformed_ = false, separators_ = false, flattened_ = false;
};

} // namespace

uint64_t programSeed(uint64_t runSeed, uint64_t index) {
  uint64_t z = runSeed * 0x9e3779b97f4a7c15ULL + index + 1;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

GeneratedProgram generateProgram(uint64_t seed, const std::string &functionName) {
  return Generator(seed, functionName).generate();
}

} // namespace tirlower::semfuzz
