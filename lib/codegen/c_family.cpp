#include "codegen/c_family.h"

#include <algorithm>
#include <array>
#include <unordered_set>

#include "ir/intrinsics.h"

namespace tirlower {

namespace {

// C keywords and the C library names emitted code defines or calls.
const std::unordered_set<std::string> &reservedCNames() {
  static const std::unordered_set<std::string> names = {
      "auto",     "break",  "case",     "char",    "const",  "continue", "default", "do",     "double",  "else",
      "enum",     "extern", "float",    "for",     "goto",   "if",       "inline",  "int",    "long",    "register",
      "restrict", "return", "short",    "signed",  "sizeof", "static",   "struct",  "switch", "typedef", "union",
      "unsigned", "void",   "volatile", "while",   "bool",   "true",     "false",   "main",   "memcpy",  "malloc",
      "free",     "exp",    "expf",     "exp2",    "exp2f",  "log",      "logf",    "log2",   "log2f",   "sqrt",
      "sqrtf",    "sin",    "sinf",     "cos",     "cosf",   "tanh",     "tanhf",   "fabs",   "fabsf",   "floor",
      "floorf",   "ceil",   "ceilf",    "round",   "roundf", "trunc",    "truncf",  "pow",    "powf",    "fmod",
      "fmodf",    "abs",    "NAN",      "INFINITY"};
  return names;
}

// The intrinsic table's C and OpenCL C function names (with libm's float suffix too).
const std::unordered_set<std::string> &intrinsicCNames() {
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
  return names;
}

// Whether some reserved name has this first character and length (capped at 31): most names
// an emitter binds are ruled out without hashing them.
bool mayBeReserved(const std::string &name) {
  using Shapes = std::array<uint32_t, 128>; // by first character, a bit per length
  static const Shapes shapes = [] {
    Shapes out{};
    for (const auto *set : {&reservedCNames(), &intrinsicCNames()})
      for (const std::string &n : *set)
        if (!n.empty() && static_cast<unsigned char>(n[0]) < 128)
          out[static_cast<unsigned char>(n[0])] |= uint32_t(1) << std::min<size_t>(n.size(), 31);
    return out;
  }();
  if (name.empty() || static_cast<unsigned char>(name[0]) >= 128)
    return true;
  return shapes[static_cast<unsigned char>(name[0])] >> std::min<size_t>(name.size(), 31) & 1;
}

} // namespace

bool isReservedCName(const std::string &name) {
  return mayBeReserved(name) && (reservedCNames().count(name) != 0 || intrinsicCNames().count(name) != 0);
}

bool isIntrinsicCName(const std::string &name) {
  return intrinsicCNames().count(name) != 0;
}

std::string cIdentifier(std::string_view name) {
  // ASCII letters, digits and '_' stay (std::isalnum in the "C" locale, which the tool keeps).
  auto identifierChar = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  std::string out(name);
  for (char &c : out)
    if (!identifierChar(c))
      c = '_';
  if (out.empty() || (out[0] >= '0' && out[0] <= '9'))
    out.insert(0, "v_");
  if (out.rfind("tl_", 0) == 0 || out.rfind("__", 0) == 0)
    out.insert(0, "u");
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

std::string_view cSpacedInfixOperator(BinaryOp op, bool vector) {
  switch (op) {
  case BinaryOp::Add: return " + ";
  case BinaryOp::Sub: return " - ";
  case BinaryOp::Mul: return " * ";
  case BinaryOp::Div: return " / ";
  case BinaryOp::Mod: return " % ";
  case BinaryOp::LT: return " < ";
  case BinaryOp::LE: return " <= ";
  case BinaryOp::GT: return " > ";
  case BinaryOp::GE: return " >= ";
  case BinaryOp::EQ: return " == ";
  case BinaryOp::NE: return " != ";
  case BinaryOp::And: return vector ? " & " : " && ";
  case BinaryOp::Or: return vector ? " | " : " || ";
  default: return {};
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
  if (const auto *imm = e.as<IntImmNode>())
    return IntRange{imm->value, imm->value};
  if (const auto *var = e.as<VarNode>()) {
    const std::optional<IntRange> *range = ranges_.find(var);
    return range ? *range : std::nullopt;
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
  ++generation_;
  const int64_t *constMin = asConstInt(min), *constExtent = asConstInt(extent);
  if (constMin && constExtent && *constExtent > 0 && *constMin <= INT64_MAX - *constExtent)
    ranges_[var] = IntRange{*constMin, *constMin + *constExtent - 1};
  else if (std::optional<IntRange> *range = ranges_.find(var))
    range->reset();
}

std::optional<IntRanges::Range> IntRanges::binary(const BinaryNode *op) const {
  if (!op->type.isScalar() || !(op->type.isInt() || op->type.isUInt()))
    return std::nullopt;
  Memo &memo = memo_[(reinterpret_cast<uintptr_t>(op) >> 4) % kMemoSlots];
  if (memo.node.get() == op && memo.generation == generation_)
    return memo.range;
  std::optional<IntRange> r = computeBinary(op); // may fill other slots, or this one
  memo.node = Expr(op);
  memo.generation = generation_;
  memo.range = r;
  return r;
}

std::optional<IntRanges::Range> IntRanges::computeBinary(const BinaryNode *op) const {
  std::optional<IntRange> a = of(op->a), b = of(op->b);
  if (!a || !b)
    return std::nullopt;
  // In int64: a bound that leaves it gives no range (nor would it fit the operation's type).
  const int64_t al = a->first, ah = a->second, bl = b->first, bh = b->second;
  std::optional<IntRange> r;
  switch (op->op) {
  case BinaryOp::Add: {
    int64_t lo, hi;
    if (__builtin_add_overflow(al, bl, &lo) || __builtin_add_overflow(ah, bh, &hi))
      return std::nullopt;
    r = IntRange{lo, hi};
    break;
  }
  case BinaryOp::Sub: {
    int64_t lo, hi;
    if (__builtin_sub_overflow(al, bh, &lo) || __builtin_sub_overflow(ah, bl, &hi))
      return std::nullopt;
    r = IntRange{lo, hi};
    break;
  }
  case BinaryOp::Mul: {
    int64_t p[4];
    if (__builtin_mul_overflow(al, bl, &p[0]) || __builtin_mul_overflow(al, bh, &p[1]) ||
        __builtin_mul_overflow(ah, bl, &p[2]) || __builtin_mul_overflow(ah, bh, &p[3]))
      return std::nullopt;
    r = IntRange{*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
    break;
  }
  case BinaryOp::Min: r = IntRange{std::min(al, bl), std::min(ah, bh)}; break;
  case BinaryOp::Max: r = IntRange{std::max(al, bl), std::max(ah, bh)}; break;
  case BinaryOp::FloorDiv:
  case BinaryOp::FloorMod: {
    if (bl != bh || bl <= 0)
      return std::nullopt;
    auto floorDiv = [&](int64_t x) { return x / bl - (x % bl != 0 && x < 0 ? 1 : 0); };
    r = op->op == BinaryOp::FloorDiv ? IntRange{floorDiv(al), floorDiv(ah)}
        : al >= 0                    ? IntRange{0, std::min(ah, bl - 1)}
                                     : IntRange{0, bl - 1};
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
