// Expressions. Each node is a small immutable struct built by a static make() that checks the
// node's own typing rules (operand types, lanes) and throws IRTypeError when they do not hold.
#pragma once

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/data_type.h"
#include "ir/node.h"
#include "ir/symbol.h"

namespace tirlower {

// A violated node invariant. The parser turns it into a located diagnostic; inside a pass it
// is an internal error that the verifier reports with the pass name.
class IRTypeError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

enum class ExprKind : uint8_t {
  Var,
  IntImm,
  FloatImm,
  StringImm,
  Binary,
  Not,
  Select,
  Cast,
  Ramp,
  Broadcast,
  Let,
  Call,
  BufferLoad,
};

class ExprNode : public Node {
public:
  ExprKind kind() const { return kind_; }
  DataType type;

  // A memo of one function of the (immutable) subtree, kept in a byte that was padding (one
  // byte, so that the members of derived nodes keep their offsets and sizes): the simplifier's
  // cost measure (arith/expr_util.cpp: exprCost), plus one; 0 until computed, and for costs
  // that do not fit. Atomic (relaxed) so that threads sharing a node may both fill it in with
  // the same value.
  uint8_t cachedCost() const { return cachedCost_.load(std::memory_order_relaxed); }
  void cacheCost(uint8_t value) const { cachedCost_.store(value, std::memory_order_relaxed); }

protected:
  explicit ExprNode(ExprKind kind, DataType type) : type(type), kind_(kind) {}

private:
  ExprKind kind_;
  mutable std::atomic<uint8_t> cachedCost_{0};
};
using Expr = Ref<ExprNode>;
const char *exprKindName(ExprKind kind); // "var", "int", "buffer_load", ... (JSON and messages)

class BufferNode;
using Buffer = Ref<BufferNode>;

class VarNode : public ExprNode {
public:
  static constexpr ExprKind kNodeKind = ExprKind::Var;
  Symbol name;
  // For handle variables: the element type and storage scope the pointer refers to
  // (T.handle("float32", "global")). Void when unknown.
  DataType pointeeType;
  Symbol storageScope;

  static Ref<VarNode> make(Symbol name, DataType type, SourceRange loc = {});
  static Ref<VarNode> makeHandle(Symbol name, DataType pointee, Symbol scope, SourceRange loc = {});

private:
  VarNode(Symbol name, DataType type) : ExprNode(kNodeKind, type), name(name) {}
};
using Var = Ref<VarNode>;

class IntImmNode : public ExprNode {
public:
  static constexpr ExprKind kNodeKind = ExprKind::IntImm;
  int64_t value;
  // Checks that the value fits the type (bool: 0 or 1).
  static Expr make(DataType type, int64_t value, SourceRange loc = {});

private:
  IntImmNode(DataType type, int64_t value) : ExprNode(kNodeKind, type), value(value) {}
};

class FloatImmNode : public ExprNode {
public:
  static constexpr ExprKind kNodeKind = ExprKind::FloatImm;
  double value;
  static Expr make(DataType type, double value, SourceRange loc = {});

private:
  FloatImmNode(DataType type, double value) : ExprNode(kNodeKind, type), value(value) {}
};

class StringImmNode : public ExprNode {
public:
  static constexpr ExprKind kNodeKind = ExprKind::StringImm;
  std::string value;
  static Expr make(std::string value, SourceRange loc = {});

private:
  explicit StringImmNode(std::string value) : ExprNode(kNodeKind, DataType::handle()), value(std::move(value)) {}
};

enum class BinaryOp : uint8_t {
  Add,
  Sub,
  Mul,
  Div,      // true division for floats, truncating division for integers (T.truncdiv)
  Mod,      // truncating remainder (T.truncmod)
  FloorDiv, // `//` on integers
  FloorMod, // `%` on integers
  Min,
  Max,
  EQ,
  NE,
  LT,
  LE,
  GT,
  GE,
  And,
  Or,
};
const char *binaryOpName(BinaryOp op); // "add", "floordiv", ... (used by JSON and messages)
bool isComparison(BinaryOp op);
bool isLogical(BinaryOp op);

class BinaryNode : public ExprNode {
public:
  static constexpr ExprKind kNodeKind = ExprKind::Binary;
  BinaryOp op;
  Expr a, b;
  // Operands must have the same type; comparisons yield bool with the operands' lanes;
  // And/Or take bools.
  static Expr make(BinaryOp op, Expr a, Expr b, SourceRange loc = {});

private:
  BinaryNode(BinaryOp op, DataType type, Expr a, Expr b)
      : ExprNode(kNodeKind, type), op(op), a(std::move(a)), b(std::move(b)) {}
};

class NotNode : public ExprNode {
public:
  static constexpr ExprKind kNodeKind = ExprKind::Not;
  Expr a;
  static Expr make(Expr a, SourceRange loc = {});

private:
  NotNode(DataType type, Expr a) : ExprNode(kNodeKind, type), a(std::move(a)) {}
};

class SelectNode : public ExprNode {
public:
  static constexpr ExprKind kNodeKind = ExprKind::Select;
  Expr condition, trueValue, falseValue;
  static Expr make(Expr condition, Expr trueValue, Expr falseValue, SourceRange loc = {});

private:
  SelectNode(DataType type, Expr c, Expr t, Expr f)
      : ExprNode(kNodeKind, type), condition(std::move(c)), trueValue(std::move(t)), falseValue(std::move(f)) {}
};

class CastNode : public ExprNode {
public:
  static constexpr ExprKind kNodeKind = ExprKind::Cast;
  Expr value;
  // Lanes must agree (a scalar-to-vector cast is a Broadcast).
  static Expr make(DataType type, Expr value, SourceRange loc = {});

private:
  CastNode(DataType type, Expr value) : ExprNode(kNodeKind, type), value(std::move(value)) {}
};

class RampNode : public ExprNode {
public:
  static constexpr ExprKind kNodeKind = ExprKind::Ramp;
  Expr base, stride;
  // The lane count; for a scalable ramp (type.isScalable()) the multiplier of vscale.
  int lanes;
  // base and stride: scalar integers of one type; lanes >= 2 (>= 1 when scalable).
  static Expr make(Expr base, Expr stride, int lanes, SourceRange loc = {}, bool scalable = false);

private:
  RampNode(DataType type, Expr base, Expr stride, int lanes)
      : ExprNode(kNodeKind, type), base(std::move(base)), stride(std::move(stride)), lanes(lanes) {}
};

class BroadcastNode : public ExprNode {
public:
  static constexpr ExprKind kNodeKind = ExprKind::Broadcast;
  Expr value;
  // The lane count; for a scalable broadcast (type.isScalable()) the multiplier of vscale.
  int lanes;
  // value: scalar; lanes >= 2 (>= 1 when scalable).
  static Expr make(Expr value, int lanes, SourceRange loc = {}, bool scalable = false);

private:
  BroadcastNode(DataType type, Expr value, int lanes) : ExprNode(kNodeKind, type), value(std::move(value)), lanes(lanes) {}
};

class LetNode : public ExprNode {
public:
  static constexpr ExprKind kNodeKind = ExprKind::Let;
  Var var;
  Expr value, body;
  static Expr make(Var var, Expr value, Expr body, SourceRange loc = {});

private:
  LetNode(DataType type, Var var, Expr value, Expr body)
      : ExprNode(kNodeKind, type), var(std::move(var)), value(std::move(value)), body(std::move(body)) {}
};

struct IntrinsicInfo;

// A call of a named intrinsic ("exp", "sqrt", "call_extern", "likely", ...). The printer
// writes it as T.<op>(...). The result type is stated by the caller; for an intrinsic of the
// table (ir/intrinsics.h) make() checks the arguments and the result type against its rule.
// Other names are kept as they are (target builtins such as tvm_storage_sync).
class CallNode : public ExprNode {
public:
  static constexpr ExprKind kNodeKind = ExprKind::Call;
  Symbol op;
  std::vector<Expr> args;
  const IntrinsicInfo *intrinsic; // the table's row for `op`, or null
  static Expr make(DataType type, Symbol op, std::vector<Expr> args, SourceRange loc = {});

private:
  CallNode(DataType type, Symbol op, std::vector<Expr> args, const IntrinsicInfo *intrinsic)
      : ExprNode(kNodeKind, type), op(op), args(std::move(args)), intrinsic(intrinsic) {}
};

// A read of one element (or a vector of elements) of a buffer. The lanes rule: an M-lane
// buffer read with an N-lane last index yields N*M lanes; only the last index may be a vector.
class BufferLoadNode : public ExprNode {
public:
  static constexpr ExprKind kNodeKind = ExprKind::BufferLoad;
  Buffer buffer;
  std::vector<Expr> indices;
  static Expr make(Buffer buffer, std::vector<Expr> indices, SourceRange loc = {});

private:
  BufferLoadNode(DataType type, Buffer buffer, std::vector<Expr> indices);
};

// Result type of an access of `buffer` with `indices` under the lanes rule; throws IRTypeError
// with a message that names the buffer when the access is ill-typed (index count, vector index
// outside the last dimension, non-integer index).
DataType accessType(const BufferNode &buffer, const std::vector<Expr> &indices);

// Convenience constructors used by passes and tests.
Expr intImm(int64_t value, DataType type = DataType::int32());
Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);

// Constant value of an integer immediate, if `e` is one.
const int64_t *asConstInt(const Expr &e);
// Whether `e` is the integer constant 0 (false for a null expression).
inline bool isConstZero(const Expr &e) {
  const int64_t *value = e ? asConstInt(e) : nullptr;
  return value && *value == 0;
}

} // namespace tirlower
