// Spellings shared by the C-family emitters (C, OpenCL C) and the LLVM emitter's symbols: one
// identifier rule and one symbol rule, so objects from either backend link into one program,
// and one table of C infix operators and their precedence.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "ir/function.h"
#include "ir/pointer_map.h"

namespace tirlower {

// Appends each of `parts` (strings, string views, C strings, characters) to `out`, in order:
// one line of emitted text from its pieces without temporaries.
template <typename... Parts>
void appendAll(std::string &out, const Parts &...parts) {
  (out += ... += parts);
}

// A valid C identifier for `name`: other characters become '_', a leading digit gets "v_", and
// names in the emitters' own prefixes ("tl_", "__") get a "u" in front.
std::string cIdentifier(std::string_view name);
// C keywords and the C library names emitted code defines or calls.
bool isReservedCName(const std::string &name);
// The C and OpenCL C function names of the intrinsic table (with libm's float suffix too).
bool isIntrinsicCName(const std::string &name);
// The C symbol of a function: its global symbol as an identifier, with "tir_" in front when it
// clashes with a reserved name (`main` becomes `tir_main`).
std::string cSymbolName(const PrimFuncNode &func);
// The C operator of an infix BinaryOp ("+", "<=", "&&"); vector and/or use "&" and "|". Null
// for the ops C spells as calls (floordiv, min, ...).
const char *cInfixOperator(BinaryOp op, bool vector);
// " + ", " <= ", " && ": cInfixOperator between the spaces that surround it, appended at once
// (the C emitter writes one per binary operation). Empty for the ops C spells as calls.
std::string_view cSpacedInfixOperator(BinaryOp op, bool vector);
// C's precedence of the infix operator of `op`, higher binding tighter: * / % 10, + - 9,
// comparisons 7, == != 6, && 3, || 2 (the C emitter writes unary operators and casts at 11 and
// the conditional operator at 1); 20 for the ops C spells as calls. This is C's table; the
// TVMScript printer has Python's (ir/script_expr_printer.cpp), where comparisons chain and
// `==` binds as tightly as `<`.
int cPrecedence(BinaryOp op);

// Bounds of scalar integer expressions, from constants and the variables the emitter binds
// (loop variables, thread indices, lets), so that the C-family emitters spell signed
// arithmetic wrap-safely only where it can overflow and call the division helpers only where
// the divisor can be -1. Vectors have no bounds (every lane would need one).
class IntRanges {
public:
  using Range = std::pair<int64_t, int64_t>; // inclusive

  // The values `e` can take, when known; nullopt when unknown or when some subexpression may
  // leave its type's range (then it wraps and the bounds say nothing).
  std::optional<Range> of(const Expr &e) const {
    Bounds b = bounds(e);
    return b.known() ? std::optional<Range>(Range{b.lo, b.hi}) : std::nullopt;
  }
  void set(const VarNode *var, Range range) {
    ranges_[var] = Bounds{range.first, range.second};
    ++generation_;
  }
  // [min, min + extent - 1] when both are constants and the extent is positive.
  void setLoop(const VarNode *var, const Expr &min, const Expr &extent);
  void erase(const VarNode *var) {
    if (Bounds *b = ranges_.find(var))
      *b = Bounds{};
    ++generation_;
  }

  // Signed +, -, * whose result may leave the type's range: every vector one, scalar
  // int32/int64 ones unless the operands' bounds rule it out (narrower scalars are promoted
  // to int in C and OpenCL C, where they cannot overflow). Other ops: false.
  bool mayOverflow(const BinaryNode *op) const;
  // Whether an integer divisor (scalar, or a Broadcast of one) can be -1.
  bool mayBeMinusOne(const Expr &divisor) const;

private:
  // A Range, or none when lo > hi (the default): two integers come back in registers, where a
  // std::optional<Range> came back through memory, on every node of every index the emitters
  // write.
  struct Bounds {
    int64_t lo = 1, hi = 0;
    bool known() const { return lo <= hi; }
  };
  Bounds bounds(const Expr &e) const;
  Bounds binary(const BinaryNode *op) const;
  Bounds computeBinary(const BinaryNode *op) const;
  // By variable; an erased variable keeps its slot, with no bounds (the map has no erase). A
  // function binds few variables, and one is looked up for every use in an index.
  PointerMap<VarNode, Bounds> ranges_;

  // The ranges of binary operations computed since the variables' bounds last changed: an
  // emitter asks for an operation's range, then for each operand's as it writes them, and a
  // range is computed from its operands'. The memo holds each node it remembers, so that no
  // other node can take its address while it is remembered.
  struct Memo {
    Expr node;
    uint64_t generation = 0;
    Bounds range;
  };
  static constexpr size_t kMemoSlots = 64;
  mutable std::array<Memo, kMemoSlots> memo_;
  uint64_t generation_ = 1; // advanced whenever a variable's bounds change
};

} // namespace tirlower
