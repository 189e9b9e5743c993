// Index arithmetic of the LLVM lowering in pointer width. TIR indices are mostly int32, and
// addresses are 64-bit: lowering `A[i * 32 + j]` as i32 arithmetic sign-extended at the access
// leaves LLVM's IndVarSimplify and loop strength reduction to prove, loop by loop, that nothing
// wraps before they can use 64-bit induction variables. Here the emitter proves it itself: an
// int32 expression whose every intermediate result provably fits in int32 (from the bounds of
// constants, loop variables and lets; a parameter or a load may be any int32) is computed in i64
// with `nsw` flags, which gives exactly the TIR value. Where an intermediate result may wrap, that
// subexpression is computed in i32 with wrap-around as before, so the result never changes.
//
// Users: buffer offsets (lowerOffset), the bounds and variable of an int32 loop whose end fits in
// int32 (an i64 phi), int32 lets of such values, comparisons of two such values, and casts of
// int32 values to int64 (visitCast; int64-indexed modules widen their indices so). A variable
// held as i64 gets its i32 value (a `trunc`, named `<name>.i32`) where another use needs it.
#include <algorithm>
#include <vector>

#include "codegen/llvm/function_lowering.h"
#include "ir/visitor.h"

namespace tirlower {

namespace {

bool fitsInt32(int64_t value) { return value >= INT32_MIN && value <= INT32_MAX; }

bool fitsInt32(IndexRange range) { return fitsInt32(range.lo) && fitsInt32(range.hi); }

IndexRange rangeOfType(DataType type) {
  if (type.isBool())
    return {0, 1};
  if (type.isIntOrUInt() && type.bits() < 32)
    return type.isInt() ? IndexRange{-(int64_t(1) << (type.bits() - 1)), (int64_t(1) << (type.bits() - 1)) - 1}
                        : IndexRange{0, (int64_t(1) << type.bits()) - 1};
  return {};
}

bool isInt32(DataType type) { return type.isInt() && type.bits() == 32 && type.isScalar(); }

// Floor division of a by a positive b.
int64_t floorDivide(int64_t a, int64_t b) { return a / b - (a % b != 0 && a < 0 ? 1 : 0); }

} // namespace

llvm::Value *FunctionLowering::wideOf(const IndexValue &value) {
  return value.wide ? value.value : builder_.CreateSExt(value.value, builder_.getInt64Ty());
}

llvm::Value *FunctionLowering::narrowOf(const IndexValue &value) {
  if (!value.wide)
    return value.value;
  return value.var ? valueOf(value.var, value.var->loc) : builder_.CreateTrunc(value.value, builder_.getInt32Ty());
}

void FunctionLowering::bindIndex(const VarNode *var, const IndexValue &value) {
  if (value.wide)
    wideValues_[var] = {value.value, value.range};
  else
    bind(var, value.value);
}

IndexValue FunctionLowering::lowerIndex(const Expr &expr) {
  auto narrow = [&](llvm::Value *value, IndexRange range = {}) { return IndexValue{value, range, false}; };
  if (const int64_t *constant = asConstInt(expr))
    return {builder_.getInt64(static_cast<uint64_t>(*constant)), {*constant, *constant}, true};
  if (const auto *var = expr.as<VarNode>()) {
    auto it = wideValues_.find(var);
    if (it != wideValues_.end())
      return {it->second.value, it->second.range, true, var};
    return narrow(valueOf(var, var->loc));
  }
  if (const auto *cast = expr.as<CastNode>()) {
    DataType from = cast->value->type;
    if (isInt32(from))
      return lowerIndex(cast->value);
    if (from.isScalar() && (from.isBool() || (from.isIntOrUInt() && from.bits() < 32))) {
      llvm::Value *value = lowerExpr(cast->value);
      value = from.isInt() ? builder_.CreateSExt(value, builder_.getInt64Ty())
                           : builder_.CreateZExt(value, builder_.getInt64Ty());
      return {value, rangeOfType(from), true};
    }
  }
  if (const auto *binary = expr.as<BinaryNode>()) {
    switch (binary->op) {
    case BinaryOp::Add: return indexSum(binary);
    case BinaryOp::Sub:
    case BinaryOp::Mul:
    case BinaryOp::Min:
    case BinaryOp::Max: return indexBinary(binary);
    case BinaryOp::FloorDiv:
    case BinaryOp::FloorMod:
    case BinaryOp::Div:
    case BinaryOp::Mod: {
      const int64_t *divisor = asConstInt(binary->b);
      if (divisor && *divisor > 0)
        return indexDivMod(binary, *divisor);
      break;
    }
    default: break;
    }
  }
  return narrow(lowerExpr(expr));
}

IndexValue FunctionLowering::indexBinary(const BinaryNode *op) {
  IndexValue a = lowerIndex(op->a), b = lowerIndex(op->b);
  IndexRange range;
  switch (op->op) {
  case BinaryOp::Add: range = {a.range.lo + b.range.lo, a.range.hi + b.range.hi}; break;
  case BinaryOp::Sub: range = {a.range.lo - b.range.hi, a.range.hi - b.range.lo}; break;
  case BinaryOp::Mul: {
    // Both factors are within int32, so every product fits in int64.
    int64_t products[] = {a.range.lo * b.range.lo, a.range.lo * b.range.hi, a.range.hi * b.range.lo,
                          a.range.hi * b.range.hi};
    range = {*std::min_element(std::begin(products), std::end(products)),
             *std::max_element(std::begin(products), std::end(products))};
    break;
  }
  case BinaryOp::Min: range = {std::min(a.range.lo, b.range.lo), std::min(a.range.hi, b.range.hi)}; break;
  default: range = {std::max(a.range.lo, b.range.lo), std::max(a.range.hi, b.range.hi)}; break;
  }
  bool wide = fitsInt32(range) && (a.wide || b.wide);
  llvm::Value *x = wide ? wideOf(a) : narrowOf(a);
  llvm::Value *y = wide ? wideOf(b) : narrowOf(b);
  // Without wrap-around in 64 bits `nsw` holds; in 32 bits the operation may wrap. A 64-bit
  // result of non-negative operands (for `-`, a difference that cannot go below zero) is also
  // `nuw`: the flags the optimiser would otherwise prove operation by operation (InstCombine,
  // IndVarSimplify's flag strengthening), each time asking ScalarEvolution for value ranges.
  bool nonNegative = a.range.lo >= 0 && b.range.lo >= 0;
  bool nuw = wide && nonNegative && (op->op != BinaryOp::Sub || a.range.lo >= b.range.hi);
  llvm::Value *value = nullptr;
  switch (op->op) {
  case BinaryOp::Add: value = builder_.CreateAdd(x, y, "", nuw, wide); break;
  case BinaryOp::Sub: value = builder_.CreateSub(x, y, "", nuw, wide); break;
  case BinaryOp::Mul: {
    // A product by a power of two is a shift, as InstCombine would rewrite it (`shl nsw` and
    // `shl nuw` mean what `mul nsw` and `mul nuw` do).
    const int64_t *constant = wide ? asConstInt(op->b) : nullptr;
    llvm::Value *other = x;
    if (!constant && wide) {
      constant = asConstInt(op->a);
      other = y;
    }
    if (constant && *constant > 1 && (*constant & (*constant - 1)) == 0) {
      uint64_t shift = 0;
      while ((int64_t(1) << shift) < *constant)
        ++shift;
      value = builder_.CreateShl(other, builder_.getInt64(shift), "", nuw, wide);
    } else {
      value = builder_.CreateMul(x, y, "", nuw, wide);
    }
    break;
  }
  case BinaryOp::Min: value = builder_.CreateSelect(builder_.CreateICmpSLT(x, y), x, y); break;
  default: value = builder_.CreateSelect(builder_.CreateICmpSGT(x, y), x, y); break;
  }
  return {value, fitsInt32(range) ? range : IndexRange{}, wide};
}

namespace {

// The terms of a sum: the operands of nested int32 additions, left to right.
void collectTerms(const Expr &expr, std::vector<Expr> &terms) {
  const auto *binary = expr.as<BinaryNode>();
  if (binary && binary->op == BinaryOp::Add && isInt32(expr->type)) {
    collectTerms(binary->a, terms);
    collectTerms(binary->b, terms);
  } else {
    terms.push_back(expr);
  }
}

// The depth of the innermost loop an expression varies in: the deepest definition among its
// variables; a load or a call may vary anywhere, so it counts as the current depth.
class TermDepth : public IRVisitor {
public:
  TermDepth(const std::unordered_map<const VarNode *, int> &definedAt, int current)
      : definedAt_(definedAt), current_(current) {}
  int depth = 0;
  using IRVisitor::visit;
  void visit(const VarNode *op) override {
    auto it = definedAt_.find(op);
    if (it != definedAt_.end())
      depth = std::max(depth, it->second);
  }
  void visit(const BufferLoadNode *) override { depth = current_; }
  void visit(const CallNode *) override { depth = current_; }

private:
  const std::unordered_map<const VarNode *, int> &definedAt_;
  int current_;
};

} // namespace

int FunctionLowering::loopDepthOf(const Expr &term) const {
  TermDepth depth(definedAt_, loopDepth_);
  depth.visit(term);
  return depth.depth;
}

// A sum of int32 terms. When the whole sum provably fits in int32, it is computed in i64 with the
// terms reordered: the terms that vary only in outer loops first, then the inner ones, constants
// last (stable otherwise). So `(c / 4) * 1024 + h * 64 + w * 4 + c % 4` inside loops h, w, c is
// `h * 64 + w * 4 + (c / 4) * 1024 + c % 4`, whose first partial sum LICM hoists out of the c
// loop; computed in source order, no partial sum is invariant, and LLVM has no reassociation
// pass in the kernel pipeline. Any order gives the same value: each term is exact (or its i32
// value, exact when sign-extended), the sum is within int32, and partial sums of int32 values
// cannot overflow i64. Otherwise the terms are added in source order, each step by indexBinary's
// rule (64-bit when the partial sum fits, else 32-bit with wrap-around, which is the TIR value
// modulo 2^32 whatever the grouping).
IndexValue FunctionLowering::indexSum(const BinaryNode *op) {
  std::vector<Expr> terms;
  collectTerms(op->a, terms);
  collectTerms(op->b, terms);
  std::vector<IndexValue> values;
  values.reserve(terms.size());
  IndexRange total{0, 0};
  bool anyWide = false;
  for (const Expr &term : terms) {
    values.push_back(lowerIndex(term));
    total = {total.lo + values.back().range.lo, total.hi + values.back().range.hi};
    anyWide = anyWide || values.back().wide;
  }
  if (anyWide && fitsInt32(total)) {
    std::vector<size_t> order(terms.size());
    std::vector<int> depth(terms.size());
    for (size_t k = 0; k < terms.size(); ++k) {
      order[k] = k;
      // Constants last, where a GEP or an addressing mode folds them.
      depth[k] = asConstInt(terms[k]) ? INT32_MAX : loopDepthOf(terms[k]);
    }
    if (terms.size() > 2)
      std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return depth[x] < depth[y]; });
    llvm::Value *sum = wideOf(values[order[0]]);
    IndexRange range = values[order[0]].range;
    for (size_t k = 1; k < order.size(); ++k) {
      const IndexValue &term = values[order[k]];
      bool nuw = range.lo >= 0 && term.range.lo >= 0;
      sum = builder_.CreateAdd(sum, wideOf(term), "", nuw, true);
      range = {range.lo + term.range.lo, range.hi + term.range.hi};
    }
    return {sum, total, true};
  }
  IndexValue sum = values[0];
  for (size_t k = 1; k < values.size(); ++k) {
    const IndexValue &term = values[k];
    IndexRange range{sum.range.lo + term.range.lo, sum.range.hi + term.range.hi};
    bool wide = fitsInt32(range) && (sum.wide || term.wide);
    bool nuw = wide && sum.range.lo >= 0 && term.range.lo >= 0;
    llvm::Value *value = builder_.CreateAdd(wide ? wideOf(sum) : narrowOf(sum), wide ? wideOf(term) : narrowOf(term),
                                            "", nuw, wide);
    sum = {value, fitsInt32(range) ? range : IndexRange{}, wide};
  }
  return sum;
}

// Division by a positive constant: of a non-negative value, unsigned division (a shift and a
// mask by a power of two); otherwise the floor division and modulo of lowerFloorDivMod in 64 bits.
// Truncating division of a possibly negative value, and any other divisor, stays in 32 bits.
IndexValue FunctionLowering::indexDivMod(const BinaryNode *op, int64_t c) {
  bool isMod = op->op == BinaryOp::FloorMod || op->op == BinaryOp::Mod;
  IndexValue a = lowerIndex(op->a);
  bool nonNegative = a.range.lo >= 0;
  bool floor = op->op == BinaryOp::FloorDiv || op->op == BinaryOp::FloorMod;
  if (!a.wide || (!nonNegative && !floor)) {
    llvm::Value *b = lowerExpr(op->b);
    return {lowerArithmetic(op->op, op->a->type, narrowOf(a), b), {}, false};
  }
  IndexRange range;
  if (isMod)
    range = nonNegative && a.range.hi < c ? a.range : IndexRange{0, c - 1};
  else
    range = {floorDivide(a.range.lo, c), floorDivide(a.range.hi, c)};
  llvm::Value *b = builder_.getInt64(static_cast<uint64_t>(c));
  llvm::Value *value = nullptr;
  bool powerOfTwo = (c & (c - 1)) == 0;
  if (nonNegative && powerOfTwo) {
    int shift = 0;
    while ((int64_t(1) << shift) < c)
      ++shift;
    value = isMod ? builder_.CreateAnd(a.value, builder_.getInt64(static_cast<uint64_t>(c - 1)))
                  : builder_.CreateLShr(a.value, builder_.getInt64(static_cast<uint64_t>(shift)));
  } else if (nonNegative) {
    value = isMod ? builder_.CreateURem(a.value, b) : builder_.CreateUDiv(a.value, b);
  } else {
    value = floorDivModByPositiveConstant(isMod, a.value, b);
  }
  return {value, range, true};
}

llvm::Value *FunctionLowering::lowerOffset(const Expr &index) {
  if (isInt32(index->type))
    return wideOf(lowerIndex(index));
  // An int64 index: its casts of int32 values are 64-bit where they fit (visitCast).
  llvm::Value *value = lowerExpr(index);
  return index->type.isUInt() ? builder_.CreateZExtOrTrunc(value, builder_.getInt64Ty())
                              : builder_.CreateSExtOrTrunc(value, builder_.getInt64Ty());
}

// A comparison of two int32 values, in 64 bits when both are held so.
llvm::Value *FunctionLowering::lowerIndexCompare(const BinaryNode *op) {
  IndexValue a = lowerIndex(op->a), b = lowerIndex(op->b);
  bool wide = a.wide && b.wide;
  return lowerCompare(op->op, op->a->type, wide ? a.value : narrowOf(a), wide ? b.value : narrowOf(b));
}

} // namespace tirlower
