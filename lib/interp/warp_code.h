// The warp intrinsics' code objects (warp_code.cpp): collectives of the lanes of a warp.
#pragma once

#include "interp/compiler.h"

namespace tirlower {

// T.tvm_warp_activemask or a T.tvm_warp_shuffle[_up|_down] call inside a kernel; an
// InterpreterLimit outside one.
ExprCodePtr compileWarpCall(Compiler &compiler, const CallNode &call);
// T.tvm_storage_sync("warp") inside a kernel: the lanes of a warp that reach it meet, and it
// orders their accesses to shared storage (kernel.h).
StmtCodePtr compileWarpBarrier(SourceRange loc);

} // namespace tirlower
