#include "expressions.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

namespace tirlower::semfuzz {
namespace {

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

std::string floatText(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  std::string s = text;
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s;
}

} // namespace

bool isFloat(const std::string &dtype) {
  return dtype.rfind("float", 0) == 0;
}

std::string str(int64_t v) {
  return std::to_string(v);
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

std::string constant(const std::string &dtype, double value) {
  if (isFloat(dtype))
    return "T." + dtype + "(" + floatText(value) + ")";
  return "T." + dtype + "(" + str(static_cast<int64_t>(value)) + ")";
}

// The access of `b` at `indices`, sometimes through its view.
std::string Expressions::access(const BufferInfo &b, const std::vector<std::string> &indices) {
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

IndexExpr Expressions::indexLeaf() {
  if (!scope_.empty() && rng_.chance(0.8))
    return rng_.pick(scope_);
  int64_t c = rng_.range(0, 9);
  return {str(c), c, c};
}

IndexExpr Expressions::index(int depth) {
  if (depth <= 0 || rng_.chance(0.3))
    return indexLeaf();
  IndexExpr a = index(depth - 1);
  auto paren = [](const IndexExpr &e) { return "(" + e.text + ")"; };
  IndexExpr r;
  switch (rng_.range(0, 15)) {
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
  case 14:
  case 15: {
    if (std::optional<IndexExpr> w = wrapping())
      r = *w;
    else
      r = a;
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

// int32 arithmetic that wraps around (TIR integers wrap, as the interpreter computes): a loop
// variable times a constant near 2^31, or a large stride, then divided or reduced, where a
// rewrite valid only without overflow changes the result. The variable is a loop variable, not
// a constant (a constant product that overflows is a compile-time error), and the result is
// brought back to a small interval to be usable as an index.
std::optional<IndexExpr> Expressions::wrapping() {
  std::vector<IndexExpr> variables;
  for (const IndexExpr &e : scope_)
    if (e.lo < e.hi && e.lo >= 0)
      variables.push_back(e);
  if (variables.empty())
    return std::nullopt;
  const IndexExpr &v = rng_.pick(variables);
  int64_t big = rng_.pick<int64_t>({268435456, 536870912, 1073741824, 2147483647, 1000000007, 715827883, 2147418112,
                                    46341, 3 << 28});
  int64_t c = rng_.pick<int64_t>({2, 3, 4, 7, 8, 16});
  std::string product = "(" + v.text + ") * " + str(big);
  if (big < (int64_t(1) << 28) && rng_.chance(0.5))
    product += " * " + str(rng_.range(2, 8) * 1024); // a second factor: still wraps, never folds
  std::string sum = rng_.chance(0.5) ? product : product + " + (" + v.text + ")";
  std::string wrapped;
  switch (rng_.range(0, 4)) {
  case 0: wrapped = "T.floordiv(" + sum + ", " + str(c) + ")"; break;
  case 1: wrapped = "T.truncdiv(" + sum + ", " + str(c) + ")"; break;
  case 2: wrapped = "(" + sum + ") // " + str(c) + " * " + str(c); break;
  case 3: wrapped = "T.truncmod(" + sum + ", " + str(c) + ")"; break;
  default: wrapped = "T.floormod(" + sum + ", " + str(c) + ")"; break;
  }
  int64_t extent = rng_.pick<int64_t>({16, 7, 10});
  return IndexExpr{"T.floormod(" + wrapped + ", " + str(extent) + ")", 0, extent - 1};
}

std::string Expressions::condition(int depth) {
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
std::string Expressions::fit(const IndexExpr &e, int64_t extent) {
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
std::string Expressions::fit(const IndexExpr &e, const BufferInfo &b, size_t k) {
  if (!(b.symbolic && k == 0))
    return fit(e, b.shape[k]);
  if (e.lo >= 0 && e.hi < 1)
    return e.text;
  return rng_.chance(0.5) ? "T.floormod(" + e.text + ", n0)" : "T.min(T.max(" + e.text + ", 0), n0 - 1)";
}

std::string Expressions::load(const BufferInfo &b) {
  std::vector<std::string> indices;
  for (size_t k = 0; k < b.shape.size(); ++k)
    indices.push_back(fit(index(2), b, k));
  return access(b, indices);
}

ValueExpr Expressions::valueLeaf(const std::string &dtype) {
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
    return {"T.Cast(\"" + dtype + "\", " + e.text + ")", static_cast<double>(std::max(std::abs(e.lo), std::abs(e.hi)))};
  }
  double c =
      isFloat(dtype) ? rng_.pick<double>({0.5, 1.5, 2, -3, 0.25, 7, -0.75}) : static_cast<double>(rng_.range(-5, 7));
  return {constant(dtype, c), std::abs(c)};
}

ValueExpr Expressions::value(const std::string &dtype, int depth) {
  if (depth <= 0 || rng_.chance(0.25))
    return valueLeaf(dtype);
  ValueExpr a = value(dtype, depth - 1);
  std::vector<const BufferInfo *> int32Buffers;
  for (const BufferInfo &b : readable_)
    if (b.dtype == "int32")
      int32Buffers.push_back(&b);
  if (dtype == "int32" && !int32Buffers.empty() && rng_.chance(0.08)) {
    // A load (never a constant: a constant product that overflows is a compile-time error)
    // times a constant near 2^31, divided: only the interpreter's wrap-around is right.
    a = {load(*rng_.pick(int32Buffers)), 0};
    int64_t big = rng_.pick<int64_t>({268435456, 1073741824, 2147483647, 1000000007});
    int64_t c = rng_.pick<int64_t>({3, 4, 8});
    std::string product = "(" + a.text + ") * " + constant(dtype, static_cast<double>(big));
    std::string divided = rng_.chance(0.5) ? "T.truncdiv(" + product + ", " + constant(dtype, static_cast<double>(c)) + ")"
                                           : "(" + product + ") // " + constant(dtype, static_cast<double>(c));
    return {"T.floormod(" + divided + ", " + constant(dtype, 1000) + ")", 1000};
  }
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

} // namespace tirlower::semfuzz
