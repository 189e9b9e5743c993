// The TVM FFI entry's description: parameters, variables, expressions, checks and messages.
#include "codegen/ffi_entry.h"

#include <unordered_map>

#include "ir/buffer.h"
#include "ir/diagnostic.h"

namespace tirlower {

namespace {

// "float32", "int8", "float32x4": the name TVM and numpy give a dtype.
std::string dtypeText(DataType type) {
  std::string text;
  switch (type.code()) {
  case DataType::Code::Int:
    text = "int";
    break;
  case DataType::Code::UInt:
    text = "uint";
    break;
  case DataType::Code::Float:
    text = "float";
    break;
  case DataType::Code::BFloat:
    text = "bfloat";
    break;
  case DataType::Code::Bool:
    return type.isVector() ? "boolx" + std::to_string(type.lanes()) : "bool";
  default:
    text = "handle";
    return text;
  }
  text += std::to_string(type.bits());
  if (type.isVector())
    text += "x" + std::to_string(type.lanes());
  return text;
}

// printf's format text of literal `text`: '%' doubled.
std::string formatText(const std::string &text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '%')
      out += '%';
  }
  return out;
}

class EntryBuilder {
public:
  EntryBuilder(const PrimFuncNode &func, const std::string &symbol) : func_(func) {
    entry_.symbol = symbol;
    entry_.entrySymbol = "__tvm_ffi_" + symbol;
    function_ = symbol;
  }

  FfiEntry build() {
    classifyParams();
    bindVariables();
    addChecks();
    finishMessages();
    return std::move(entry_);
  }

private:
  [[noreturn]] void fail(const std::string &message) const {
    throw CompileError(func_.loc, "tvm-ffi entry of '" + function_ + "': " + message);
  }

  // Scalar integer parameters used as a bare extent or stride of a buffer parameter.
  void classifyParams() {
    std::unordered_map<const VarNode *, bool> extentVars;
    for (const Var &param : func_.params)
      if (Buffer buffer = func_.bufferFor(param)) {
        for (const Expr &e : buffer->shape)
          if (const VarNode *v = e.as<VarNode>())
            extentVars[v] = true;
        for (const Expr &e : buffer->strides)
          if (const VarNode *v = e.as<VarNode>())
            extentVars[v] = true;
      }
    for (const Var &param : func_.params) {
      FfiParam p;
      p.name = param->name.str();
      if (Buffer buffer = func_.bufferFor(param)) {
        p.kind = FfiParam::Kind::Tensor;
        p.type = buffer->dtype;
        if (buffer->physicalRank() != 1 && buffer->physicalRank() != buffer->rank())
          fail("buffer '" + p.name + "' has axis separators; a tensor argument has one physical axis per axis");
        describeTensor(p, *buffer);
      } else if (param->type.isHandle()) {
        p.kind = FfiParam::Kind::Pointer;
        p.type = param->type;
      } else if (param->type.isIndex() && extentVars.count(param.get())) {
        p.kind = FfiParam::Kind::Extent;
        p.type = param->type;
        p.var = addVar(param.get(), p.name, param->type);
      } else if (param->type.isBool()) {
        p.kind = FfiParam::Kind::Bool;
        p.type = param->type;
      } else if (param->type.isIndex()) {
        p.kind = FfiParam::Kind::Int;
        p.type = param->type;
        p.var = addVar(param.get(), p.name, param->type);
      } else if (param->type.isFloat() && param->type.isScalar() && param->type.code() == DataType::Code::Float) {
        p.kind = FfiParam::Kind::Float;
        p.type = param->type;
      } else {
        fail("parameter '" + p.name + "' of type " + dtypeText(param->type) +
             " cannot be passed through tvm-ffi (tensors, ints, floats and bools can)");
      }
      if (p.kind != FfiParam::Kind::Extent)
        p.argument = entry_.arguments++;
      entry_.params.push_back(std::move(p));
    }
  }

  void describeTensor(FfiParam &p, const BufferNode &buffer) {
    DataType t = buffer.dtype;
    p.ndim = static_cast<int>(buffer.rank());
    p.dlLanes = static_cast<uint16_t>(t.lanes());
    switch (t.code()) {
    case DataType::Code::Int:
      p.dlCode = kDLInt;
      break;
    case DataType::Code::UInt:
      p.dlCode = kDLUInt;
      break;
    case DataType::Code::Float:
      p.dlCode = kDLFloat;
      break;
    case DataType::Code::BFloat:
      p.dlCode = kDLBfloat;
      break;
    case DataType::Code::Bool:
      p.dlCode = kDLBool;
      break;
    default:
      fail("buffer '" + p.name + "' has no element type a tensor can hold");
    }
    p.dlBits = static_cast<uint8_t>(t.isBool() ? 8 : t.bits());
    p.alignment = t.laneBytes();
    // What a call's extents and strides may reach: known here when they are constants (the
    // checks compare them exactly), else checked at the call.
    bool narrow = false;
    p.constantElements = 1;
    for (const Expr &e : buffer.shape) {
      const int64_t *value = asConstInt(e);
      p.spanCheck |= !value;
      p.constantElements = value && p.constantElements >= 0 && *value >= 0 ? p.constantElements * *value : -1;
      narrow |= e->type.bits() <= 32;
    }
    for (const Expr &e : buffer.strides) {
      p.spanCheck |= !asConstInt(e);
      narrow |= e->type.bits() <= 32;
    }
    const int64_t elementBytes = static_cast<int64_t>(t.laneBytes()) * t.lanes();
    p.maxOffset = narrow ? INT32_MAX : INT64_MAX / elementBytes;
  }

  int addVar(const VarNode *var, const std::string &name, DataType type) {
    varIndex_[var] = static_cast<int>(entry_.vars.size());
    FfiVar v;
    v.name = name;
    v.type = type;
    entry_.vars.push_back(std::move(v));
    return varIndex_[var];
  }

  // Each Extent variable is bound from its first bare use, in parameter order, shapes before
  // strides; so is a free variable of a parameter's shape (one no parameter declares).
  void bindVariables() {
    for (size_t k = 0; k < func_.params.size(); ++k) {
      Buffer buffer = func_.bufferFor(func_.params[k]);
      if (!buffer)
        continue;
      auto bindAxes = [&](const std::vector<Expr> &exprs, bool strides) {
        for (size_t axis = 0; axis < exprs.size(); ++axis) {
          const VarNode *v = exprs[axis].as<VarNode>();
          if (!v || !v->type.isIndex())
            continue;
          auto it = varIndex_.find(v);
          int index = it == varIndex_.end() ? addVar(v, v->name.str(), v->type) : it->second;
          FfiVar &var = entry_.vars[index];
          bool isArgument = false;
          for (const FfiParam &p : entry_.params)
            isArgument |= p.var == index && p.kind == FfiParam::Kind::Int;
          if (isArgument || var.param >= 0)
            continue;
          var.param = static_cast<int>(k);
          var.axis = static_cast<int>(axis);
          var.fromStride = strides;
          bound_.push_back({static_cast<int>(k), static_cast<int>(axis), strides});
        }
      };
      bindAxes(buffer->shape, false);
      bindAxes(buffer->strides, true);
    }
  }

  int addExpr(FfiExpr e) {
    entry_.exprs.push_back(e);
    return static_cast<int>(entry_.exprs.size()) - 1;
  }
  int constant(int64_t value) { return addExpr({FfiExpr::Op::Const, value, -1, -1}); }

  // `e` as an FfiExpr over the bound variables.
  int lower(const Expr &e, const std::string &what) {
    if (const int64_t *value = asConstInt(e))
      return constant(*value);
    if (const VarNode *v = e.as<VarNode>()) {
      auto it = varIndex_.find(v);
      if (it == varIndex_.end() || (entry_.vars[it->second].param < 0 && !isArgumentVar(it->second)))
        fail(what + " uses '" + v->name.str() +
             "', which no argument gives and no tensor extent or stride binds by itself");
      return addExpr({FfiExpr::Op::Var, it->second, -1, -1});
    }
    if (const CastNode *c = e.as<CastNode>(); c && c->type.isIndex() && c->value->type.isIndex())
      return lower(c->value, what);
    if (const BinaryNode *b = e.as<BinaryNode>(); b && b->type.isIndex()) {
      FfiExpr::Op op;
      switch (b->op) {
      case BinaryOp::Add:
        op = FfiExpr::Op::Add;
        break;
      case BinaryOp::Sub:
        op = FfiExpr::Op::Sub;
        break;
      case BinaryOp::Mul:
        op = FfiExpr::Op::Mul;
        break;
      case BinaryOp::FloorDiv:
        op = FfiExpr::Op::FloorDiv;
        break;
      case BinaryOp::FloorMod:
        op = FfiExpr::Op::FloorMod;
        break;
      case BinaryOp::Min:
        op = FfiExpr::Op::Min;
        break;
      case BinaryOp::Max:
        op = FfiExpr::Op::Max;
        break;
      default:
        fail(what + " is an expression the entry cannot check (only + - * // % min max of integers)");
      }
      int a = lower(b->a, what);
      int c = lower(b->b, what);
      return addExpr({op, 0, a, c});
    }
    fail(what + " is an expression the entry cannot check (only + - * // % min max of integers)");
  }

  bool isArgumentVar(int index) const {
    for (const FfiParam &p : entry_.params)
      if (p.var == index && p.kind == FfiParam::Kind::Int)
        return true;
    return false;
  }

  // A check for every extent and stride that does not bind its variable, then the byte offset.
  void addChecks() {
    for (size_t k = 0; k < func_.params.size(); ++k) {
      Buffer buffer = func_.bufferFor(func_.params[k]);
      if (!buffer)
        continue;
      const std::string &name = entry_.params[k].name;
      auto isBinding = [&](int axis, bool strides) {
        for (const Bound &b : bound_)
          if (b.param == static_cast<int>(k) && b.axis == axis && b.strides == strides)
            return true;
        return false;
      };
      for (size_t axis = 0; axis < buffer->shape.size(); ++axis)
        if (!isBinding(static_cast<int>(axis), false))
          addCheck(FfiCheck::What::Shape, k, axis,
                   lower(buffer->shape[axis], name + ".shape[" + std::to_string(axis) + "]"));
      if (buffer->strides.empty()) {
        // Compact: the stride of an axis is the product of the extents after it.
        std::vector<int> strides(buffer->shape.size());
        int stride = constant(1);
        for (size_t axis = buffer->shape.size(); axis-- > 0;) {
          strides[axis] = stride;
          int extent = lower(buffer->shape[axis], name + ".shape[" + std::to_string(axis) + "]");
          stride = fold(FfiExpr::Op::Mul, extent, stride);
        }
        for (size_t axis = 0; axis < strides.size(); ++axis)
          addCheck(FfiCheck::What::Stride, k, axis, strides[axis]);
      } else {
        for (size_t axis = 0; axis < buffer->strides.size(); ++axis)
          if (!isBinding(static_cast<int>(axis), true))
            addCheck(FfiCheck::What::Stride, k, axis,
                     lower(buffer->strides[axis], name + ".strides[" + std::to_string(axis) + "]"));
      }
      int offset = buffer->elemOffset ? lower(buffer->elemOffset, name + ".elem_offset") : constant(0);
      int bytes = buffer->dtype.laneBytes() * buffer->dtype.lanes();
      addCheck(FfiCheck::What::ByteOffset, k, 0, fold(FfiExpr::Op::Mul, offset, constant(bytes)));
    }
  }

  // a op b, folded when both are constants (the usual compact strides).
  int fold(FfiExpr::Op op, int a, int b) {
    const FfiExpr &x = entry_.exprs[a], &y = entry_.exprs[b];
    if (x.op == FfiExpr::Op::Const && y.op == FfiExpr::Op::Const && op == FfiExpr::Op::Mul)
      return constant(x.value * y.value);
    if (op == FfiExpr::Op::Mul && y.op == FfiExpr::Op::Const && y.value == 1)
      return a;
    return addExpr({op, 0, a, b});
  }

  void addCheck(FfiCheck::What what, size_t param, size_t axis, int expected) {
    FfiCheck check;
    check.what = what;
    check.param = static_cast<int>(param);
    check.axis = static_cast<int>(axis);
    check.expected = expected;
    entry_.checks.push_back(check);
  }

  // The text of an expression for the messages: "n * 4", "(n + 3) // 4".
  std::string text(int index, int parent = 0) const {
    const FfiExpr &e = entry_.exprs[index];
    auto binary = [&](const char *op, int precedence) {
      std::string s = text(e.a, precedence) + op + text(e.b, precedence + 1);
      return precedence < parent ? "(" + s + ")" : s;
    };
    switch (e.op) {
    case FfiExpr::Op::Const:
      return std::to_string(e.value);
    case FfiExpr::Op::Var:
      return entry_.vars[e.value].name;
    case FfiExpr::Op::Add:
      return binary(" + ", 1);
    case FfiExpr::Op::Sub:
      return binary(" - ", 1);
    case FfiExpr::Op::Mul:
      return binary(" * ", 2);
    case FfiExpr::Op::FloorDiv:
      return binary(" // ", 2);
    case FfiExpr::Op::FloorMod:
      return binary(" % ", 2);
    case FfiExpr::Op::Min:
      return "min(" + text(e.a) + ", " + text(e.b) + ")";
    case FfiExpr::Op::Max:
      return "max(" + text(e.a) + ", " + text(e.b) + ")";
    }
    return "";
  }

  // Where each variable in `index` comes from: " (n = A.shape[0])".
  void origins(int index, std::vector<int> &seen) const {
    const FfiExpr &e = entry_.exprs[index];
    if (e.op == FfiExpr::Op::Var) {
      for (int v : seen)
        if (v == e.value)
          return;
      seen.push_back(static_cast<int>(e.value));
    } else if (e.op != FfiExpr::Op::Const) {
      origins(e.a, seen);
      origins(e.b, seen);
    }
  }
  std::string varOrigin(int v) const {
    const FfiVar &var = entry_.vars[v];
    if (var.param < 0) {
      for (const FfiParam &p : entry_.params)
        if (p.var == v)
          return "argument #" + std::to_string(p.argument) + " '" + p.name + "'";
    }
    return entry_.params[var.param].name + (var.fromStride ? ".strides[" : ".shape[") + std::to_string(var.axis) + "]";
  }

  std::string tensorText(const FfiParam &p, const BufferNode &buffer) const {
    std::string s = "Tensor[(";
    for (size_t axis = 0; axis < buffer.shape.size(); ++axis) {
      if (axis)
        s += ", ";
      const int64_t *value = asConstInt(buffer.shape[axis]);
      const VarNode *v = buffer.shape[axis].as<VarNode>();
      s += value ? std::to_string(*value) : v ? v->name.str() : "?";
    }
    if (buffer.shape.size() == 1)
      s += ",";
    s += "), " + dtypeText(p.type) + "]";
    return s;
  }

  void finishMessages() {
    std::string signature = function_ + "(";
    int written = 0;
    for (size_t k = 0; k < entry_.params.size(); ++k) {
      const FfiParam &p = entry_.params[k];
      if (p.argument < 0)
        continue;
      if (written++)
        signature += ", ";
      signature += p.name + ": ";
      if (p.kind == FfiParam::Kind::Tensor)
        signature += tensorText(p, *func_.bufferFor(func_.params[k]));
      else if (p.kind == FfiParam::Kind::Pointer)
        signature += "handle";
      else
        signature += dtypeText(p.type);
    }
    signature += ")";
    entry_.signature = signature;
    const std::string f = formatText(function_);
    entry_.countMessage = formatText(signature) + ": expected %d argument" + (entry_.arguments == 1 ? "" : "s") +
                          ", got %d";
    for (FfiParam &p : entry_.params) {
      std::string where = f + ": argument #" + std::to_string(p.argument) + " '" + formatText(p.name) + "'";
      switch (p.kind) {
      case FfiParam::Kind::Tensor:
        p.kindMessage = where + " must be a tensor (DLTensor* or ffi.Tensor), got %s";
        p.nullMessage = where + " is a null %s";
        p.shapeMessage = where + " has a null shape";
        p.negativeMessage = where + " has a negative extent";
        p.spanMessage = where + " is too large: its extents and strides reach beyond " + std::to_string(p.maxOffset) +
                        " elements" + (p.maxOffset == INT32_MAX ? ", the most its int32 indices address" : "");
        p.dataMessage = where + " has null data";
        p.ndimMessage = where + " has ndim %d, expected " + std::to_string(p.ndim);
        p.dtypeMessage = where + " has dtype %s%d%s%.0d, expected " + dtypeText(p.type);
        p.deviceMessage = where + " is on device type %d (device id %d), expected a CPU tensor (device type 1)";
        p.alignmentMessage =
            where + " has data at address 0x%llx, which is not a multiple of " + std::to_string(p.alignment) + " bytes";
        break;
      case FfiParam::Kind::Int:
        p.kindMessage = where + " must be an int (" + dtypeText(p.type) + "), got %s";
        if (p.type.bits() < 64)
          p.rangeMessage = where + " is %lld, which does not fit " + dtypeText(p.type);
        break;
      case FfiParam::Kind::Bool:
        p.kindMessage = where + " must be a bool, got %s";
        break;
      case FfiParam::Kind::Float:
        p.kindMessage = where + " must be a float (" + dtypeText(p.type) + "), got %s";
        break;
      case FfiParam::Kind::Pointer:
        p.kindMessage = where + " must be a pointer or a tensor, got %s";
        break;
      case FfiParam::Kind::Extent:
        break;
      }
    }
    for (FfiVar &v : entry_.vars) {
      if (v.param < 0)
        continue;
      std::string given = f + ": argument #" + std::to_string(entry_.params[v.param].argument) + " '" +
                          formatText(entry_.params[v.param].name) + "' has " + (v.fromStride ? "strides[" : "shape[") +
                          std::to_string(v.axis) + "] %lld";
      if (v.type.bits() < 64)
        v.rangeMessage = given + ", which does not fit '" + formatText(v.name) + "' (" + dtypeText(v.type) + ")";
      if (!v.fromStride)
        v.negativeMessage = given + ", a negative extent ('" + formatText(v.name) + "')";
    }
    checkMessages();
  }

  // Each check's message: what was given against what was expected, and where its variables
  // come from.
  void checkMessages() {
    const std::string f = formatText(function_);
    for (FfiCheck &c : entry_.checks) {
      const FfiParam &p = entry_.params[c.param];
      std::string where = f + ": argument #" + std::to_string(p.argument) + " '" + formatText(p.name) + "'";
      std::string expected;
      const FfiExpr &e = entry_.exprs[c.expected];
      if (e.op != FfiExpr::Op::Const) {
        std::vector<int> vars;
        origins(c.expected, vars);
        if (e.op == FfiExpr::Op::Var) {
          expected = " (" + formatText(text(c.expected)) + ", from " + formatText(varOrigin(vars[0])) + ")";
        } else {
          expected = " (" + formatText(text(c.expected));
          for (size_t k = 0; k < vars.size(); ++k)
            expected += (k ? ", " : " with ") + formatText(entry_.vars[vars[k]].name) + " from " +
                        formatText(varOrigin(vars[k]));
          expected += ")";
        }
      }
      switch (c.what) {
      case FfiCheck::What::Shape:
        c.message = where + " has shape[" + std::to_string(c.axis) + "] %lld, expected %lld" + expected;
        break;
      case FfiCheck::What::Stride: {
        Buffer buffer = func_.bufferFor(func_.params[c.param]);
        c.message = where + " has strides[" + std::to_string(c.axis) + "] %lld, expected %lld" +
                    (buffer->strides.empty() ? std::string(" (a compact tensor)") : expected);
        break;
      }
      case FfiCheck::What::ByteOffset:
        c.message = where + " has byte_offset %lld, expected %lld" + expected;
        break;
      }
    }
  }

  struct Bound {
    int param, axis;
    bool strides;
  };
  const PrimFuncNode &func_;
  std::string function_;
  FfiEntry entry_;
  std::unordered_map<const VarNode *, int> varIndex_;
  std::vector<Bound> bound_;
};

} // namespace

FfiEntry describeFfiEntry(const PrimFuncNode &func, const std::string &symbol) {
  return EntryBuilder(func, symbol).build();
}

void renderFfiSteps(const FfiEntry &entry, FfiStepRenderer &renderer) {
  for (size_t k = 0; k < entry.params.size(); ++k)
    if (entry.params[k].argument >= 0)
      renderer.argument(k);
  for (size_t v = 0; v < entry.vars.size(); ++v)
    if (entry.vars[v].param >= 0)
      renderer.bind(v);
  for (const FfiCheck &c : entry.checks)
    renderer.check(c);
  for (size_t k = 0; k < entry.params.size(); ++k)
    if (entry.params[k].kind == FfiParam::Kind::Tensor)
      renderer.extentOf(k);
}

std::string ffiHeapMessage(const std::string &function, const std::string &storage) {
  return function + ": cannot allocate the heap storage of '" + storage + "' (out of memory)";
}

const std::vector<std::pair<int32_t, const char *>> &ffiTypeNames() {
  static const std::vector<std::pair<int32_t, const char *>> names = {
      {0, "None"},         {1, "int"},         {2, "bool"},          {3, "float"},         {4, "opaque pointer"},
      {5, "dtype"},        {6, "device"},      {7, "DLTensor*"},     {8, "str"},           {9, "bytes"},
      {11, "str"},         {12, "bytes"},      {64, "ffi.Object"},   {65, "str"},          {66, "bytes"},
      {67, "ffi.Error"},   {68, "ffi.Function"}, {69, "ffi.Shape"},  {70, "ffi.Tensor"},   {71, "ffi.Array"},
      {72, "ffi.Map"},     {73, "ffi.Module"}};
  return names;
}

const std::vector<std::pair<uint8_t, const char *>> &dlCodeNames() {
  static const std::vector<std::pair<uint8_t, const char *>> names = {
      {kDLInt, "int"}, {kDLUInt, "uint"}, {kDLFloat, "float"}, {kDLBfloat, "bfloat"}, {kDLBool, "bool"}};
  return names;
}

} // namespace tirlower
