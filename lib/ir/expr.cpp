#include "ir/expr.h"

#include <array>
#include <cmath>
#include <span>
#include <limits>
#include <mutex>
#include <vector>

#include "ir/buffer.h"
#include "ir/intrinsics.h"

namespace tirlower {

namespace {
template <typename T> Ref<T> located(T *node, SourceRange loc) {
  node->loc = loc;
  return Ref<T>(node);
}

[[noreturn]] void fail(const std::string &message) { throw IRTypeError(message); }
} // namespace

Var VarNode::make(Symbol name, DataType type, SourceRange loc) {
  if (type.isVoid())
    fail("variable '" + name.str() + "' cannot have type void");
  return located(new VarNode(name, type), loc);
}

Var VarNode::makeHandle(Symbol name, DataType pointee, Symbol scope, SourceRange loc) {
  auto *node = new VarNode(name, DataType::handle());
  node->pointeeType = pointee;
  node->storageScope = scope;
  return located(node, loc);
}

namespace {
// Integer constants without a source location (those passes make: strides, offsets, loop
// minimums) of type int32 or int64 and a small value are shared: one node for each (type, value)
// per thread. Nodes are immutable, so a shared constant behaves as a fresh one; after the C
// pipeline such constants were about a sixth of a function's nodes. One table per thread, so
// that the workers of --threads do not contend for the same nodes' reference counts; the table of
// a thread that ends is adopted by the next new thread (workers start for each parallel section).
constexpr int64_t kSharedLow = -16, kSharedHigh = 1024; // [low, high)
constexpr size_t kSharedPerType = static_cast<size_t>(kSharedHigh - kSharedLow);

struct SharedInts {
  IntImmNode *int32[kSharedPerType] = {};
  IntImmNode *int64[kSharedPerType] = {};
};

struct SharedIntsOrphans {
  std::mutex mutex;
  std::vector<SharedInts *> tables;
};
SharedIntsOrphans &sharedIntsOrphans() {
  static auto *orphans = new SharedIntsOrphans(); // leaked: threads may end after main returns
  return *orphans;
}
struct SharedIntsReturn {
  SharedInts *table = nullptr;
  ~SharedIntsReturn() {
    if (!table)
      return;
    std::lock_guard<std::mutex> lock(sharedIntsOrphans().mutex);
    sharedIntsOrphans().tables.push_back(table);
  }
};
thread_local SharedInts *sharedInts = nullptr; // no destructor: reaching it costs no guard

[[gnu::noinline]] SharedInts &adoptSharedInts() {
  SharedInts *table = nullptr;
  {
    std::lock_guard<std::mutex> lock(sharedIntsOrphans().mutex);
    if (!sharedIntsOrphans().tables.empty()) {
      table = sharedIntsOrphans().tables.back();
      sharedIntsOrphans().tables.pop_back();
    }
  }
  if (!table)
    table = new SharedInts(); // leaked on purpose, as the node pool: its nodes live in IR
  thread_local SharedIntsReturn giveBack;
  giveBack.table = table;
  sharedInts = table;
  return *table;
}
} // namespace

Expr IntImmNode::make(DataType type, int64_t value, SourceRange loc) {
  if (!loc.valid() && value >= kSharedLow && value < kSharedHigh && !type.isVector() && type.isInt() &&
      (type.bits() == 32 || type.bits() == 64)) {
    SharedInts &table = sharedInts ? *sharedInts : adoptSharedInts();
    IntImmNode *&slot = (type.bits() == 32 ? table.int32 : table.int64)[value - kSharedLow];
    if (!slot) {
      slot = new IntImmNode(type, value);
      slot->retain(); // the table's reference
    }
    return Expr(slot);
  }
  if (!(type.isIntOrUInt() || type.isBool()) || type.isVector())
    fail("integer constant of non-integer type " + type.str());
  if (type.isBool() && value != 0 && value != 1)
    fail("boolean constant must be 0 or 1");
  if (type.isInt() && type.bits() < 64) {
    int64_t lo = -(int64_t(1) << (type.bits() - 1)), hi = (int64_t(1) << (type.bits() - 1)) - 1;
    if (value < lo || value > hi)
      fail("constant " + std::to_string(value) + " does not fit in " + type.str());
  }
  if (type.isUInt() && type.bits() < 64 && (value < 0 || value > (int64_t(1) << type.bits()) - 1))
    fail("constant " + std::to_string(value) + " does not fit in " + type.str());
  if (type.isUInt() && type.bits() == 64 && value < 0)
    fail("constant " + std::to_string(value) + " does not fit in " + type.str());
  return located(new IntImmNode(type, value), loc);
}

Expr FloatImmNode::make(DataType type, double value, SourceRange loc) {
  if (!type.isFloat() || type.isVector())
    fail("floating-point constant of non-float type " + type.str());
  return located(new FloatImmNode(type, value), loc);
}

Expr StringImmNode::make(std::string value, SourceRange loc) {
  return located(new StringImmNode(std::move(value)), loc);
}

const char *binaryOpName(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add: return "add";
  case BinaryOp::Sub: return "sub";
  case BinaryOp::Mul: return "mul";
  case BinaryOp::Div: return "div";
  case BinaryOp::Mod: return "mod";
  case BinaryOp::FloorDiv: return "floordiv";
  case BinaryOp::FloorMod: return "floormod";
  case BinaryOp::Min: return "min";
  case BinaryOp::Max: return "max";
  case BinaryOp::EQ: return "eq";
  case BinaryOp::NE: return "ne";
  case BinaryOp::LT: return "lt";
  case BinaryOp::LE: return "le";
  case BinaryOp::GT: return "gt";
  case BinaryOp::GE: return "ge";
  case BinaryOp::And: return "and";
  case BinaryOp::Or: return "or";
  }
  return "?";
}

bool isComparison(BinaryOp op) { return op >= BinaryOp::EQ && op <= BinaryOp::GE; }
bool isLogical(BinaryOp op) { return op == BinaryOp::And || op == BinaryOp::Or; }

Expr BinaryNode::make(BinaryOp op, Expr a, Expr b, SourceRange loc) {
  if (!a || !b)
    fail(std::string("missing operand of ") + binaryOpName(op));
  DataType ta = a->type, tb = b->type;
  if (ta != tb)
    fail(std::string("operands of ") + binaryOpName(op) + " have different types: " + ta.str() + " and " +
         tb.str());
  if (ta.isHandle() || ta.isVoid())
    fail(std::string("operands of ") + binaryOpName(op) + " cannot have type " + ta.str());
  DataType result = ta;
  if (isLogical(op)) {
    if (!ta.isBool())
      fail(std::string("operands of '") + (op == BinaryOp::And ? "and" : "or") + "' must be bool, not " + ta.str());
  } else if (isComparison(op)) {
    result = DataType::boolean().withLanesOf(ta);
  } else if (ta.isBool()) {
    fail(std::string("arithmetic ") + binaryOpName(op) + " on bool operands");
  }
  return located(new BinaryNode(op, result, std::move(a), std::move(b)), loc);
}

Expr NotNode::make(Expr a, SourceRange loc) {
  if (!a->type.isBool())
    fail("operand of 'not' must be bool, not " + a->type.str());
  DataType t = a->type;
  return located(new NotNode(t, std::move(a)), loc);
}

Expr SelectNode::make(Expr condition, Expr trueValue, Expr falseValue, SourceRange loc) {
  if (!condition->type.isBool())
    fail("select condition must be bool, not " + condition->type.str());
  if (trueValue->type != falseValue->type)
    fail("select branches have different types: " + trueValue->type.str() + " and " + falseValue->type.str());
  if (condition->type.isVector() && !condition->type.sameLanes(trueValue->type))
    fail("select condition has " + std::to_string(condition->type.lanes()) + " lanes but the values have " +
         std::to_string(trueValue->type.lanes()));
  DataType t = trueValue->type;
  return located(new SelectNode(t, std::move(condition), std::move(trueValue), std::move(falseValue)), loc);
}

Expr CastNode::make(DataType type, Expr value, SourceRange loc) {
  if (!type.sameLanes(value->type))
    fail("cast from " + value->type.str() + " to " + type.str() + " changes the number of lanes");
  if (type.isVoid() || value->type.isVoid())
    fail("cast involving void");
  return located(new CastNode(type, std::move(value)), loc);
}

Expr RampNode::make(Expr base, Expr stride, int lanes, SourceRange loc, bool scalable) {
  if (lanes < (scalable ? 1 : 2))
    fail("ramp must have at least 2 lanes, not " + std::to_string(lanes));
  if (!base->type.isIndex() || !stride->type.isIndex())
    fail("ramp base and stride must be scalar integers, not " + base->type.str() + " and " + stride->type.str());
  if (base->type != stride->type)
    fail("ramp base and stride have different types: " + base->type.str() + " and " + stride->type.str());
  DataType t = DataType(base->type.code(), base->type.bits(), lanes, scalable);
  return located(new RampNode(t, std::move(base), std::move(stride), lanes), loc);
}

Expr BroadcastNode::make(Expr value, int lanes, SourceRange loc, bool scalable) {
  if (lanes < (scalable ? 1 : 2))
    fail("broadcast must have at least 2 lanes, not " + std::to_string(lanes));
  if (value->type.isVector())
    fail("broadcast of a vector value (" + value->type.str() + ")");
  DataType t = DataType(value->type.code(), value->type.bits(), lanes, scalable);
  return located(new BroadcastNode(t, std::move(value), lanes), loc);
}

Expr LetNode::make(Var var, Expr value, Expr body, SourceRange loc) {
  if (var->type != value->type)
    fail("let binds '" + var->name.str() + "' of type " + var->type.str() + " to a value of type " +
         value->type.str());
  DataType t = body->type;
  return located(new LetNode(t, std::move(var), std::move(value), std::move(body)), loc);
}

Expr CallNode::make(DataType type, Symbol op, std::vector<Expr> args, SourceRange loc) {
  const IntrinsicInfo *info = findIntrinsic(op);
  if (info) {
    // Most calls have at most four arguments: their types need no allocation.
    std::array<DataType, 4> few;
    std::vector<DataType> many;
    if (args.size() > few.size())
      many.resize(args.size());
    std::span<DataType> types = many.empty() ? std::span<DataType>(few.data(), args.size()) : std::span<DataType>(many);
    for (size_t k = 0; k < args.size(); ++k)
      types[k] = args[k]->type;
    std::optional<DataType> declared = hasDeclaredType(*info) ? std::optional<DataType>(type) : std::nullopt;
    IntrinsicTyping typing = typeIntrinsicCall(*info, types, declared);
    if (!typing.type)
      fail(typing.error);
    if (*typing.type != type)
      fail("T." + op.str() + " of " + (args.empty() ? std::string("no arguments") : args[0]->type.str()) +
           " has type " + typing.type->str() + ", not " + type.str());
    if (info->rule == TypeRule::Extern && !args[0].as<StringImmNode>())
      fail("T." + op.str() + " needs the function name as its first argument");
  }
  return located(new CallNode(type, op, std::move(args), info), loc);
}

DataType accessType(const BufferNode &buffer, const std::vector<Expr> &indices) {
  if (indices.size() != buffer.shape.size())
    fail("buffer '" + buffer.name.str() + "' has " + std::to_string(buffer.shape.size()) + " dimension" +
         (buffer.shape.size() == 1 ? "" : "s") + " but is accessed with " + std::to_string(indices.size()) +
         " ind" + (indices.size() == 1 ? "ex" : "ices"));
  int indexLanes = 1;
  bool scalable = false;
  for (size_t k = 0; k < indices.size(); ++k) {
    DataType t = indices[k]->type;
    if (!t.isIntOrUInt())
      fail("index " + std::to_string(k) + " of buffer '" + buffer.name.str() + "' has non-integer type " + t.str());
    if (t.isVector()) {
      if (k + 1 != indices.size())
        fail("vector index in dimension " + std::to_string(k) + " of buffer '" + buffer.name.str() +
             "': only the last index may be a vector");
      indexLanes = t.lanes();
      scalable = t.isScalable();
    }
  }
  if (scalable && buffer.dtype.isVector())
    fail("scalable vector index of buffer '" + buffer.name.str() + "' of vector type " + buffer.dtype.str());
  int lanes = indexLanes * buffer.dtype.lanes();
  if (lanes > 65535)
    fail("access of buffer '" + buffer.name.str() + "' has too many lanes");
  return DataType(buffer.dtype.code(), buffer.dtype.bits(), lanes, scalable);
}

BufferLoadNode::BufferLoadNode(DataType type, Buffer buffer, std::vector<Expr> indices)
    : ExprNode(kNodeKind, type), buffer(std::move(buffer)), indices(std::move(indices)) {}

Expr BufferLoadNode::make(Buffer buffer, std::vector<Expr> indices, SourceRange loc) {
  DataType t = accessType(*buffer, indices);
  return located(new BufferLoadNode(t, std::move(buffer), std::move(indices)), loc);
}

Expr intImm(int64_t value, DataType type) { return IntImmNode::make(type, value); }
Expr operator+(Expr a, Expr b) { return BinaryNode::make(BinaryOp::Add, std::move(a), std::move(b)); }
Expr operator-(Expr a, Expr b) { return BinaryNode::make(BinaryOp::Sub, std::move(a), std::move(b)); }
Expr operator*(Expr a, Expr b) { return BinaryNode::make(BinaryOp::Mul, std::move(a), std::move(b)); }

const int64_t *asConstInt(const Expr &e) {
  if (const auto *imm = e.as<IntImmNode>())
    return &imm->value;
  return nullptr;
}

const char *exprKindName(ExprKind kind) {
  switch (kind) {
  case ExprKind::Var: return "var";
  case ExprKind::IntImm: return "int";
  case ExprKind::FloatImm: return "float";
  case ExprKind::StringImm: return "string";
  case ExprKind::Binary: return "binary";
  case ExprKind::Not: return "not";
  case ExprKind::Select: return "select";
  case ExprKind::Cast: return "cast";
  case ExprKind::Ramp: return "ramp";
  case ExprKind::Broadcast: return "broadcast";
  case ExprKind::Let: return "let";
  case ExprKind::Call: return "call";
  case ExprKind::BufferLoad: return "buffer_load";
  }
  return "?";
}

} // namespace tirlower
