#include "codegen/c_family.h"

#include <algorithm>
#include <cctype>
#include <unordered_set>

#include "ir/intrinsics.h"

namespace tirlower {

bool isReservedCName(const std::string &name) {
  static const std::unordered_set<std::string> names = {
      "auto",     "break",  "case",     "char",    "const",  "continue", "default", "do",     "double",  "else",
      "enum",     "extern", "float",    "for",     "goto",   "if",       "inline",  "int",    "long",    "register",
      "restrict", "return", "short",    "signed",  "sizeof", "static",   "struct",  "switch", "typedef", "union",
      "unsigned", "void",   "volatile", "while",   "bool",   "true",     "false",   "main",   "memcpy",  "malloc",
      "free",     "exp",    "expf",     "exp2",    "exp2f",  "log",      "logf",    "log2",   "log2f",   "sqrt",
      "sqrtf",    "sin",    "sinf",     "cos",     "cosf",   "tanh",     "tanhf",   "fabs",   "fabsf",   "floor",
      "floorf",   "ceil",   "ceilf",    "round",   "roundf", "trunc",    "truncf",  "pow",    "powf",    "fmod",
      "fmodf",    "abs",    "NAN",      "INFINITY"};
  return names.count(name) != 0 || isIntrinsicCName(name);
}

bool isIntrinsicCName(const std::string &name) {
  // The libm functions and OpenCL C builtins the intrinsic table spells calls with.
  static const std::unordered_set<std::string> names = [] {
    std::unordered_set<std::string> out;
    for (const IntrinsicInfo &info : intrinsicTable()) {
      for (std::string_view spelling : {info.c, info.opencl})
        if (!spelling.empty()) {
          out.emplace(spelling);
          out.emplace(std::string(spelling) + "f");
        }
    }
    return out;
  }();
  return names.count(name) != 0;
}

std::string cIdentifier(std::string_view name) {
  std::string out;
  for (char c : name)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])))
    out = "v_" + out;
  if (out.rfind("tl_", 0) == 0 || out.rfind("__", 0) == 0)
    out = "u" + out;
  return out;
}

std::string cSymbolName(const PrimFuncNode &func) {
  std::string symbol = cIdentifier(func.globalSymbol());
  return isReservedCName(symbol) ? "tir_" + symbol : symbol;
}

const char *cInfixOperator(BinaryOp op, bool vector) {
  switch (op) {
  case BinaryOp::Add: return "+";
  case BinaryOp::Sub: return "-";
  case BinaryOp::Mul: return "*";
  case BinaryOp::Div: return "/";
  case BinaryOp::Mod: return "%";
  case BinaryOp::LT: return "<";
  case BinaryOp::LE: return "<=";
  case BinaryOp::GT: return ">";
  case BinaryOp::GE: return ">=";
  case BinaryOp::EQ: return "==";
  case BinaryOp::NE: return "!=";
  case BinaryOp::And: return vector ? "&" : "&&";
  case BinaryOp::Or: return vector ? "|" : "||";
  default: return nullptr;
  }
}

int cPrecedence(BinaryOp op) {
  switch (op) {
  case BinaryOp::Mul:
  case BinaryOp::Div:
  case BinaryOp::Mod: return 10;
  case BinaryOp::Add:
  case BinaryOp::Sub: return 9;
  case BinaryOp::LT:
  case BinaryOp::LE:
  case BinaryOp::GT:
  case BinaryOp::GE: return 7;
  case BinaryOp::EQ:
  case BinaryOp::NE: return 6;
  case BinaryOp::And: return 3;
  case BinaryOp::Or: return 2;
  default: return 20; // emitted as function calls
  }
}

namespace {

using IntRange = IntRanges::Range;

std::optional<IntRange> fit(__int128 lo, __int128 hi) {
  if (lo < INT64_MIN || hi > INT64_MAX)
    return std::nullopt;
  return IntRange{static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
}

bool fitsType(const IntRanges::Range &r, DataType t) {
  if (t.bits() >= 64)
    return t.isInt() || r.first >= 0;
  int64_t lo = t.isUInt() ? 0 : -(int64_t(1) << (t.bits() - 1));
  int64_t hi = t.isUInt() ? (int64_t(1) << t.bits()) - 1 : (int64_t(1) << (t.bits() - 1)) - 1;
  return r.first >= lo && r.second <= hi;
}

} // namespace

std::optional<IntRanges::Range> IntRanges::of(const Expr &e) const {
  if (!e->type.isScalar() || !(e->type.isInt() || e->type.isUInt()))
    return std::nullopt;
  if (const int64_t *v = asConstInt(e))
    return IntRange{*v, *v};
  if (const auto *var = e.as<VarNode>()) {
    auto it = ranges_.find(var);
    return it == ranges_.end() ? std::nullopt : std::optional<IntRange>(it->second);
  }
  if (const auto *cast = e.as<CastNode>()) {
    std::optional<IntRange> r = of(cast->value);
    return r && fitsType(*r, e->type) ? r : std::nullopt;
  }
  if (const auto *select = e.as<SelectNode>()) {
    std::optional<IntRange> a = of(select->trueValue), b = of(select->falseValue);
    if (!a || !b)
      return std::nullopt;
    return IntRange{std::min(a->first, b->first), std::max(a->second, b->second)};
  }
  const auto *op = e.as<BinaryNode>();
  return op ? binary(op) : std::nullopt;
}

void IntRanges::setLoop(const VarNode *var, const Expr &min, const Expr &extent) {
  const int64_t *constMin = asConstInt(min), *constExtent = asConstInt(extent);
  if (constMin && constExtent && *constExtent > 0 && *constMin <= INT64_MAX - *constExtent)
    ranges_[var] = {*constMin, *constMin + *constExtent - 1};
  else
    ranges_.erase(var);
}

std::optional<IntRanges::Range> IntRanges::binary(const BinaryNode *op) const {
  if (!op->type.isScalar() || !(op->type.isInt() || op->type.isUInt()))
    return std::nullopt;
  std::optional<IntRange> a = of(op->a), b = of(op->b);
  if (!a || !b)
    return std::nullopt;
  __int128 al = a->first, ah = a->second, bl = b->first, bh = b->second;
  std::optional<IntRange> r;
  switch (op->op) {
  case BinaryOp::Add: r = fit(al + bl, ah + bh); break;
  case BinaryOp::Sub: r = fit(al - bh, ah - bl); break;
  case BinaryOp::Mul: {
    __int128 p[] = {al * bl, al * bh, ah * bl, ah * bh};
    r = fit(*std::min_element(p, p + 4), *std::max_element(p, p + 4));
    break;
  }
  case BinaryOp::Min: r = IntRange{std::min(a->first, b->first), std::min(a->second, b->second)}; break;
  case BinaryOp::Max: r = IntRange{std::max(a->first, b->first), std::max(a->second, b->second)}; break;
  case BinaryOp::FloorDiv:
  case BinaryOp::FloorMod: {
    if (bl != bh || bl <= 0)
      return std::nullopt;
    auto floorDiv = [&](__int128 x) { return x >= 0 ? x / bl : -((-x + bl - 1) / bl); };
    r = op->op == BinaryOp::FloorDiv ? fit(floorDiv(al), floorDiv(ah))
        : al >= 0                    ? fit(0, std::min(ah, bl - 1))
                                     : fit(0, bl - 1);
    break;
  }
  default: return std::nullopt;
  }
  return r && fitsType(*r, op->type) ? r : std::nullopt;
}

bool IntRanges::mayOverflow(const BinaryNode *op) const {
  DataType t = op->a->type;
  if (!t.isInt() || (op->op != BinaryOp::Add && op->op != BinaryOp::Sub && op->op != BinaryOp::Mul))
    return false;
  if (t.isVector())
    return true;
  return t.bits() >= 32 && !binary(op);
}

bool IntRanges::mayBeMinusOne(const Expr &divisor) const {
  if (const auto *b = divisor.as<BroadcastNode>())
    return mayBeMinusOne(b->value);
  std::optional<IntRange> r = of(divisor);
  return !r || (r->first <= -1 && r->second >= -1);
}

} // namespace tirlower
