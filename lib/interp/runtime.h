// The executable form of a PrimFunc: a tree of small code objects, one per IR node occurrence,
// built once by the compiler (compile_expr.cpp, compile_stmt.cpp). Variables live in a flat
// vector of cells indexed by slots assigned at compile time, so the inner loop does no lookups.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "interp/interpreter.h"
#include "interp/value.h"

namespace tirlower {

struct ThreadState;

struct Frame {
  explicit Frame(const RunOptions &options)
      : options(&options), stepLimit(options.stepLimit), checkLogicalBounds(options.checkLogicalBounds),
        checkUninitialized(options.checkUninitialized) {}

  std::vector<Cell> env;
  uint64_t steps = 0;
  const RunOptions *options;
  // Copies of the hot options, one load away in the inner loop.
  uint64_t stepLimit;
  bool checkLogicalBounds, checkUninitialized;
  // The simulated GPU thread running this frame (kernel.h); null outside kernels.
  ThreadState *thread = nullptr;
  // In a kernel whose threads meet in warps: while `undefinedAllowed`, a read of uninitialised
  // storage (or an undefined warp shuffle) sets `undefinedSeen` instead of being an error; the
  // value computed from it is undefined (kernel.h, "Undefined values").
  bool undefinedAllowed = false, undefinedSeen = false;
};

// An evaluable expression. Scalar nodes override scalar(); vector nodes override eval(), which
// writes `lanes` cells. Each has a default in terms of the other.
class ExprCode {
public:
  ExprCode(DataType type, SourceRange loc) : type(type), lanes(type.lanes()), loc(loc) {}
  virtual ~ExprCode() = default;
  virtual Cell scalar(Frame &frame) const;
  virtual void eval(Frame &frame, Cell *out) const;

  DataType type;
  int lanes;
  SourceRange loc;
};
using ExprCodePtr = std::unique_ptr<ExprCode>;

class StmtCode {
public:
  explicit StmtCode(SourceRange loc) : loc(loc) {}
  virtual ~StmtCode() = default;
  virtual void exec(Frame &frame) const = 0;

  SourceRange loc;
};
using StmtCodePtr = std::unique_ptr<StmtCode>;

// Thrown by a failing assert; run() turns it into RunStatus::AssertFailed.
struct AssertFailure {
  SourceRange loc;
  std::string message;
};

// Per-lane scratch owned by a node: nodes are not re-entered while their result is pending.
class Scratch {
public:
  explicit Scratch(int lanes = 0) : cells_(static_cast<size_t>(lanes)) {}
  Cell *data() const { return cells_.data(); }

private:
  mutable std::vector<Cell> cells_;
};

// The cell of a scalar argument for a parameter of type `paramType`; a located error when the
// argument's type differs or its value does not fit.
Cell scalarArgCell(const ArgValue &arg, const VarNode &param);

} // namespace tirlower
