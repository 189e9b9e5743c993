// PrimFunc and Module.
#pragma once

#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "ir/attr_value.h"
#include "ir/index_map.h"
#include "ir/layout.h"
#include "ir/stmt.h"

namespace tirlower {

// One entry of the function's layout_transform_map: the maps are applied to `buffer` (and every
// alias of its data variable) in the order they appear.
struct LayoutTransform {
  Buffer buffer;
  IndexMap map;
  Expr padValue; // null when not given
  SourceRange loc;
};

struct BufferBinding {
  Var param;     // the handle parameter
  Buffer buffer; // how the body sees it
};

class PrimFuncNode : public Node {
public:
  Symbol name;
  std::vector<Var> params;              // in signature order: handles and scalars
  std::vector<BufferBinding> bufferMap; // in parameter order
  AttrValue attrs;                      // dict from T.func_attr, minus layout_transform_map
  std::vector<LayoutTransform> layoutTransforms;
  Stmt body;
  bool isPrivate = false;
  // Layout requirements on its buffers: T.func_attr({"layout_requirements": {"B": "NCHW4c"}})
  // (also kept in attrs, so printing round-trips) and --require-layout, with their locations.
  std::vector<LayoutRequirement> layoutRequirements;
  // A cache, not part of the function: set by verifyModule once verifyFunction found the
  // function well formed. A node never changes, so neither does that answer, and a function a
  // pass returns unchanged (the same node) is not verified again after every pass. Atomic
  // because workers may verify functions that share a node; a stale false costs a second check.
  mutable std::atomic<bool> knownWellFormed{false};

  struct Fields {
    Symbol name;
    std::vector<Var> params;
    std::vector<BufferBinding> bufferMap;
    AttrValue attrs;
    std::vector<LayoutTransform> layoutTransforms;
    Stmt body;
    bool isPrivate = false;
    SourceRange loc;
    std::vector<LayoutRequirement> layoutRequirements;
  };
  static Ref<PrimFuncNode> make(Fields fields);
  Fields fields() const;

  // The buffer bound to a parameter, or null for scalar parameters.
  Buffer bufferFor(const Var &param) const;
  // The C symbol: the "global_symbol" attribute when present, else the name.
  std::string globalSymbol() const;

private:
  PrimFuncNode() = default;
  // For a function with many buffer parameters, (param, its first binding's position) sorted by
  // the parameter's address, so bufferFor is a binary search rather than a scan per call (a
  // signature of 10^5 buffers is otherwise quadratic to emit). Empty for small functions.
  std::vector<std::pair<const VarNode *, uint32_t>> bindingIndex_;
};
using PrimFunc = Ref<PrimFuncNode>;

// The TVMScript spelling a module prints in: `tir` (TVM before 0.25: `from tvm.script import
// tir as T`, `T.block`) or `tirx` (TVM 0.25-0.27: `tirx as T`, `@T.prim_func(s_tir=True)`,
// `T.sblock`, `T.sblock_attr`, `T.sblock_alloc_buffer`).
enum class ScriptSpelling : uint8_t { Tir, Tirx };

struct Module {
  std::string name;        // the @I.ir_module class name, empty for loose functions
  bool isIRModule = false; // printed as a class
  // The spelling the input was written in (tirx when any function has s_tir= or a T.sblock).
  ScriptSpelling spelling = ScriptSpelling::Tir;
  std::vector<PrimFunc> functions;
  uint32_t fileId = 0;

  PrimFunc find(std::string_view name) const;
};

} // namespace tirlower
