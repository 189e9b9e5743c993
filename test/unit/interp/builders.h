// Small helpers to build PrimFuncs by hand in the interpreter tests (no parser dependency).
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "interp/interpreter.h"
#include "ir/function.h"

namespace tirlower::test {

inline DataType i8() {
  return {DataType::Code::Int, 8};
}
inline DataType u8() {
  return {DataType::Code::UInt, 8};
}
inline DataType i32() {
  return DataType::int32();
}
inline DataType f32(int lanes = 1) {
  return DataType::float32(lanes);
}

inline Var var(const char *name, DataType type = DataType::int32()) {
  return VarNode::make(Symbol(name), type);
}
inline Expr c(int64_t value, DataType type = DataType::int32()) {
  return IntImmNode::make(type, value);
}
inline Expr fc(double value, DataType type = DataType::float32()) {
  return FloatImmNode::make(type, value);
}
inline Expr bin(BinaryOp op, Expr a, Expr b) {
  return BinaryNode::make(op, std::move(a), std::move(b));
}

// A buffer with a fresh data variable unless `data` is given; row-major unless `strides` is.
inline Buffer buffer(const char *name, std::vector<Expr> shape, DataType dtype = DataType::float32(),
                     Var data = nullptr, std::vector<Expr> strides = {}, Expr elemOffset = nullptr,
                     std::vector<int> axisSeparators = {}) {
  BufferNode::Fields f;
  f.name = Symbol(name);
  f.data = data ? data : VarNode::makeHandle(Symbol(std::string(name) + "_data"), dtype, Symbol("global"));
  f.dtype = dtype;
  f.shape = std::move(shape);
  f.strides = std::move(strides);
  f.elemOffset = std::move(elemOffset);
  f.axisSeparators = std::move(axisSeparators);
  return BufferNode::make(std::move(f));
}

inline std::vector<Expr> dims(std::initializer_list<int64_t> extents) {
  std::vector<Expr> out;
  for (int64_t e : extents)
    out.push_back(c(e));
  return out;
}

inline Expr load(const Buffer &b, std::vector<Expr> indices) {
  return BufferLoadNode::make(b, std::move(indices));
}
inline Stmt store(const Buffer &b, Expr value, std::vector<Expr> indices) {
  return BufferStoreNode::make(b, std::move(value), std::move(indices));
}
inline Stmt loop(const Var &v, Expr extent, Stmt body, ForKind kind = ForKind::Serial) {
  const Symbol tag = kind == ForKind::ThreadBinding ? Symbol("threadIdx.x") : Symbol();
  return ForNode::make(v, c(0, v->type), std::move(extent), kind, std::move(body), tag);
}
inline Stmt loop(const Var &v, int64_t extent, Stmt body, ForKind kind = ForKind::Serial) {
  return loop(v, c(extent, v->type), std::move(body), kind);
}
inline Stmt seq(std::vector<Stmt> stmts) {
  return SeqStmtNode::make(std::move(stmts));
}

// A parameter: a buffer (its data variable is the parameter) or a scalar variable.
struct Param {
  Param(Buffer b) : var(b->data), buffer(std::move(b)) {}
  Param(Var v) : var(std::move(v)) {}
  Var var;
  Buffer buffer;
};

inline PrimFunc func(const char *name, std::vector<Param> params, Stmt body) {
  PrimFuncNode::Fields f;
  f.name = Symbol(name);
  for (const Param &p : params) {
    f.params.push_back(p.var);
    if (p.buffer)
      f.bufferMap.push_back({p.var, p.buffer});
  }
  f.body = std::move(body);
  return PrimFuncNode::make(std::move(f));
}

inline std::shared_ptr<BufferData> storage(DataType element, size_t count) {
  return std::make_shared<BufferData>(element, count);
}

inline std::string errorText(const RunResult &r) {
  return r.error ? r.error->message : std::string("(no error)");
}

} // namespace tirlower::test
