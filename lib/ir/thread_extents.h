// The thread-extent census: every thread binding of a statement (thread launches, virtual-thread
// launches and thread-bound loops) in the order a pre-order walk meets them, with the launched
// extent per threadIdx dimension that a kernel's work-group size is. thread-sync,
// lower-thread-allreduce, the launch geometry (codegen/launch_geometry.h) and the OpenCL
// emitter's kernel census all read it instead of walking for thread extents themselves.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "ir/stmt.h"

namespace tirlower {

struct ThreadBinding {
  enum class Form : uint8_t {
    Launch,        // T.launch_thread: an AttrStmt "thread_extent"
    VirtualThread, // an AttrStmt "virtual_thread"
    Loop,          // a thread_binding loop (before lower-thread-binding)
  };
  Form form = Form::Launch;
  Symbol tag;                    // as written: "threadIdx.x", "blockIdx.y", "vthread", ...
  std::optional<ThreadTag> axis; // the tag parsed (nullopt: not a thread tag)
  Expr extent;
  SourceRange loc;
  // A launch (not a loop) of a threadIdx dimension.
  bool isThreadLaunch() const { return form == Form::Launch && axis && axis->kind == ThreadTag::Kind::Thread; }
};

struct ThreadExtentCensus {
  std::vector<ThreadBinding> bindings; // in pre-order
  // Over the thread launches (not loops) of each threadIdx dimension: the largest constant
  // extent (1 where there is none), and whether every extent is a constant.
  std::array<int64_t, 3> local{1, 1, 1};
  std::array<bool, 3> localConstant{true, true, true};
  // The first thread launch whose extent is not a constant, or null.
  const ThreadBinding *firstSymbolicLaunch() const;
};

ThreadExtentCensus threadExtentCensus(const Stmt &s);

} // namespace tirlower
