// Small helpers for building IR by hand in the codegen tests.
#pragma once

#include <string>
#include <vector>

#include "ir/function.h"

namespace tirlower::testing {

inline Var var(const char *name, DataType type = DataType::int32()) {
  return VarNode::make(Symbol(name), type);
}
inline Var handle(const char *name) {
  return VarNode::make(Symbol(name), DataType::handle());
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

inline std::vector<Expr> shapeOf(std::vector<int64_t> extents) {
  std::vector<Expr> shape;
  for (int64_t e : extents)
    shape.push_back(intImm(e));
  return shape;
}

inline Buffer buffer(const char *name, std::vector<int64_t> shape, Var data = {},
                     DataType dtype = DataType::float32()) {
  BufferNode::Fields f;
  f.name = Symbol(name);
  f.data = data ? data : handle(name);
  f.dtype = dtype;
  f.shape = shapeOf(std::move(shape));
  return BufferNode::make(std::move(f));
}

inline Buffer withFields(const Buffer &b, void (*edit)(BufferNode::Fields &)) {
  BufferNode::Fields f = b->fields();
  edit(f);
  return BufferNode::make(std::move(f));
}

inline Stmt store(const Buffer &b, Expr value, std::vector<Expr> indices) {
  return BufferStoreNode::make(b, std::move(value), std::move(indices));
}
inline Expr load(const Buffer &b, std::vector<Expr> indices) {
  return BufferLoadNode::make(b, std::move(indices));
}
inline Stmt loop(const Var &v, int64_t extent, Stmt body, ForKind kind = ForKind::Serial) {
  return ForNode::make(v, intImm(0), intImm(extent), kind, std::move(body));
}
inline Stmt evaluate(Expr e) {
  return EvaluateNode::make(std::move(e));
}

struct FuncBuilder {
  PrimFuncNode::Fields f;
  explicit FuncBuilder(const char *name) { f.name = Symbol(name); }
  // A parameter whose buffer is simple: the data var is the parameter.
  Buffer bufferParam(const char *name, std::vector<int64_t> shape, DataType dtype = DataType::float32()) {
    Var p = handle(name);
    Buffer b = buffer(name, std::move(shape), p, dtype);
    f.params.push_back(p);
    f.bufferMap.push_back({p, b});
    return b;
  }
  Var scalarParam(const char *name, DataType type = DataType::int32()) {
    Var v = var(name, type);
    f.params.push_back(v);
    return v;
  }
  PrimFunc build(Stmt body) {
    f.body = std::move(body);
    return PrimFuncNode::make(f);
  }
};

inline Module moduleOf(std::vector<PrimFunc> functions, bool irModule = false, std::string name = "") {
  Module m;
  m.functions = std::move(functions);
  m.isIRModule = irModule;
  m.name = std::move(name);
  return m;
}

} // namespace tirlower::testing
