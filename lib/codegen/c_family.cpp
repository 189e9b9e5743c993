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

namespace {
// Each infix operator's C spelling, bare and between the spaces the emitters write around it.
struct InfixSpelling {
  const char *bare = nullptr;
  std::string_view spaced;
};

InfixSpelling infixSpelling(BinaryOp op, bool vector) {
  switch (op) {
  case BinaryOp::Add: return {"+", " + "};
  case BinaryOp::Sub: return {"-", " - "};
  case BinaryOp::Mul: return {"*", " * "};
  case BinaryOp::Div: return {"/", " / "};
  case BinaryOp::Mod: return {"%", " % "};
  case BinaryOp::LT: return {"<", " < "};
  case BinaryOp::LE: return {"<=", " <= "};
  case BinaryOp::GT: return {">", " > "};
  case BinaryOp::GE: return {">=", " >= "};
  case BinaryOp::EQ: return {"==", " == "};
  case BinaryOp::NE: return {"!=", " != "};
  case BinaryOp::And: return vector ? InfixSpelling{"&", " & "} : InfixSpelling{"&&", " && "};
  case BinaryOp::Or: return vector ? InfixSpelling{"|", " | "} : InfixSpelling{"||", " || "};
  default: return {};
  }
}
} // namespace

const char *cInfixOperator(BinaryOp op, bool vector) {
  return infixSpelling(op, vector).bare;
}

std::string_view cSpacedInfixOperator(BinaryOp op, bool vector) {
  return infixSpelling(op, vector).spaced;
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

bool fitsType(int64_t lo, int64_t hi, DataType t) {
  if (t.bits() >= 64)
    return t.isInt() || lo >= 0;
  int64_t min = t.isUInt() ? 0 : -(int64_t(1) << (t.bits() - 1));
  int64_t max = t.isUInt() ? (int64_t(1) << t.bits()) - 1 : (int64_t(1) << (t.bits() - 1)) - 1;
  return lo >= min && hi <= max;
}

} // namespace

IntRanges::Bounds IntRanges::bounds(const Expr &e) const {
  if (!e->type.isScalar() || !e->type.isIntOrUInt())
    return {};
  if (const auto *imm = e.as<IntImmNode>())
    return {imm->value, imm->value};
  if (const auto *var = e.as<VarNode>()) {
    const Bounds *b = ranges_.find(var);
    return b ? *b : Bounds{};
  }
  if (const auto *op = e.as<BinaryNode>())
    return binary(op);
  if (const auto *cast = e.as<CastNode>()) {
    Bounds r = bounds(cast->value);
    return r.known() && fitsType(r.lo, r.hi, e->type) ? r : Bounds{};
  }
  if (const auto *select = e.as<SelectNode>()) {
    Bounds a = bounds(select->trueValue);
    if (!a.known())
      return {};
    Bounds b = bounds(select->falseValue);
    if (!b.known())
      return {};
    return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
  }
  return {};
}

void IntRanges::setLoop(const VarNode *var, const Expr &min, const Expr &extent) {
  ++generation_;
  const int64_t *constMin = asConstInt(min), *constExtent = asConstInt(extent);
  if (constMin && constExtent && *constExtent > 0 && *constMin <= INT64_MAX - *constExtent)
    ranges_[var] = Bounds{*constMin, *constMin + *constExtent - 1};
  else if (Bounds *b = ranges_.find(var))
    *b = Bounds{};
}

IntRanges::Bounds IntRanges::binary(const BinaryNode *op) const {
  if (!op->type.isScalar() || !op->type.isIntOrUInt())
    return {};
  Memo &memo = memo_[(reinterpret_cast<uintptr_t>(op) >> 4) % kMemoSlots];
  if (memo.node.get() == op && memo.generation == generation_)
    return memo.range;
  Bounds r = computeBinary(op); // may fill other slots, or this one
  memo.node = Expr(op);
  memo.generation = generation_;
  memo.range = r;
  return r;
}

IntRanges::Bounds IntRanges::computeBinary(const BinaryNode *op) const {
  // Both operands' bounds are computed (and remembered) even when the first has none: the
  // emitter asks for the second's next.
  Bounds a = bounds(op->a), b = bounds(op->b);
  if (!a.known() || !b.known())
    return {};
  // In int64: a bound that leaves it gives no range (nor would it fit the operation's type).
  const int64_t al = a.lo, ah = a.hi, bl = b.lo, bh = b.hi;
  int64_t lo, hi;
  switch (op->op) {
  case BinaryOp::Add:
    if (__builtin_add_overflow(al, bl, &lo) || __builtin_add_overflow(ah, bh, &hi))
      return {};
    break;
  case BinaryOp::Sub:
    if (__builtin_sub_overflow(al, bh, &lo) || __builtin_sub_overflow(ah, bl, &hi))
      return {};
    break;
  case BinaryOp::Mul: {
    int64_t p[4];
    if (__builtin_mul_overflow(al, bl, &p[0]) || __builtin_mul_overflow(al, bh, &p[1]) ||
        __builtin_mul_overflow(ah, bl, &p[2]) || __builtin_mul_overflow(ah, bh, &p[3]))
      return {};
    lo = *std::min_element(p, p + 4);
    hi = *std::max_element(p, p + 4);
    break;
  }
  case BinaryOp::Min:
    lo = std::min(al, bl);
    hi = std::min(ah, bh);
    break;
  case BinaryOp::Max:
    lo = std::max(al, bl);
    hi = std::max(ah, bh);
    break;
  case BinaryOp::FloorDiv:
  case BinaryOp::FloorMod: {
    if (bl != bh || bl <= 0)
      return {};
    auto floorDiv = [&](int64_t x) { return x / bl - (x % bl != 0 && x < 0 ? 1 : 0); };
    if (op->op == BinaryOp::FloorDiv) {
      lo = floorDiv(al);
      hi = floorDiv(ah);
    } else {
      lo = 0;
      hi = al >= 0 ? std::min(ah, bl - 1) : bl - 1;
    }
    break;
  }
  default: return {};
  }
  return fitsType(lo, hi, op->type) ? Bounds{lo, hi} : Bounds{};
}

bool IntRanges::mayOverflow(const BinaryNode *op) const {
  DataType t = op->a->type;
  if (!t.isInt() || (op->op != BinaryOp::Add && op->op != BinaryOp::Sub && op->op != BinaryOp::Mul))
    return false;
  if (t.isVector())
    return true;
  return t.bits() >= 32 && !binary(op).known();
}

bool IntRanges::mayBeMinusOne(const Expr &divisor) const {
  if (const auto *b = divisor.as<BroadcastNode>())
    return mayBeMinusOne(b->value);
  Bounds r = bounds(divisor);
  return !r.known() || (r.lo <= -1 && r.hi >= -1);
}

} // namespace tirlower
