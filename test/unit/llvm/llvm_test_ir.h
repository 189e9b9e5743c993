// Hand-built flat IR for the LLVM emitter tests: parameters whose buffers are 1-d views over the
// parameter's own data variable, as the flatten pass leaves them.
#pragma once

#include <string>
#include <vector>

#include "ir/function.h"

namespace tirlower::llvmtest {

inline Var var(const char *name, DataType type = DataType::int32()) {
  return VarNode::make(Symbol(name), type);
}
inline Expr i32(int64_t v) {
  return intImm(v);
}
inline Expr f32(double v) {
  return FloatImmNode::make(DataType::float32(), v);
}
inline Expr bin(BinaryOp op, Expr a, Expr b) {
  return BinaryNode::make(op, std::move(a), std::move(b));
}
inline Expr ramp(Expr base, int64_t stride, int lanes) {
  DataType t = base->type;
  return RampNode::make(std::move(base), IntImmNode::make(t, stride), lanes);
}
inline Expr call(DataType type, const char *op, std::vector<Expr> args) {
  return CallNode::make(type, Symbol(op), std::move(args));
}

inline Buffer flatBuffer(const char *name, const Var &data, Expr extent, DataType dtype = DataType::float32()) {
  BufferNode::Fields f;
  f.name = Symbol(name);
  f.data = data;
  f.dtype = dtype;
  f.shape = {std::move(extent)};
  return BufferNode::make(std::move(f));
}

inline Stmt store(const Buffer &b, Expr value, Expr index) {
  return BufferStoreNode::make(b, std::move(value), {index});
}
inline Expr load(const Buffer &b, Expr index) {
  return BufferLoadNode::make(b, {std::move(index)});
}
inline Stmt loop(const Var &v, Expr extent, Stmt body, ForKind kind = ForKind::Serial) {
  return ForNode::make(v, intImm(0), std::move(extent), kind, std::move(body));
}
inline Stmt seq(std::vector<Stmt> stmts) {
  return SeqStmtNode::make(std::move(stmts));
}

struct FuncBuilder {
  PrimFuncNode::Fields f;
  explicit FuncBuilder(const char *name) { f.name = Symbol(name); }
  Buffer bufferParam(const char *name, int64_t extent, DataType dtype = DataType::float32()) {
    return bufferParam(name, intImm(extent), dtype);
  }
  Buffer bufferParam(const char *name, Expr extent, DataType dtype = DataType::float32()) {
    Var data = VarNode::makeHandle(Symbol(name), dtype.element(), Symbol("global"));
    Buffer b = flatBuffer(name, data, std::move(extent), dtype);
    f.params.push_back(data);
    f.bufferMap.push_back({data, b});
    return b;
  }
  Var scalarParam(const char *name, DataType type = DataType::int32()) {
    Var v = var(name, type);
    f.params.push_back(v);
    return v;
  }
  FuncBuilder &noalias() {
    f.attrs.set("tir.noalias", AttrValue::boolean(true));
    return *this;
  }
  PrimFunc build(Stmt body) {
    f.body = std::move(body);
    if (f.attrs.isNone())
      f.attrs = AttrValue::dict();
    return PrimFuncNode::make(f);
  }
};

inline Module moduleOf(std::vector<PrimFunc> functions) {
  Module m;
  m.functions = std::move(functions);
  return m;
}

} // namespace tirlower::llvmtest
