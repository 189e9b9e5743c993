// Buffer: a typed, shaped view of the memory behind a data variable. Buffers that share a data
// variable are aliases of each other. Identity matters: accesses refer to one Buffer object.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/expr.h"

namespace tirlower {

class BufferNode : public Node {
public:
  Symbol name;
  Var data;                // handle variable holding the base pointer
  DataType dtype;          // element type; may be a vector type ("float32x4")
  std::vector<Expr> shape; // logical extents, one per axis
  std::vector<Expr> strides; // empty: row-major contiguous
  Expr elemOffset;         // element offset of the view into data (null means 0)
  Symbol scope;            // "global", "shared", "local", "global.texture", ...
  std::vector<int> axisSeparators; // TVM convention: a new physical axis starts at axis k
  Symbol layout;           // semantic layout annotation ("NHWC"); empty when none

  struct Fields {
    Symbol name;
    Var data;
    DataType dtype;
    std::vector<Expr> shape;
    std::vector<Expr> strides;
    Expr elemOffset;
    Symbol scope;
    std::vector<int> axisSeparators;
    Symbol layout;
    SourceRange loc;
  };
  // Checks: data is a handle; shape/strides/elem_offset are scalar integers; strides empty or
  // one per axis; separators non-decreasing within [0, rank]. Throws IRTypeError otherwise.
  static Ref<BufferNode> make(Fields fields);
  Fields fields() const;

  size_t rank() const { return shape.size(); }
  // Number of physical axes after flattening: separators + 1.
  size_t physicalRank() const { return axisSeparators.size() + 1; }
  bool hasDefaultScope() const;

private:
  BufferNode() = default;
};

Symbol globalScope();

} // namespace tirlower
