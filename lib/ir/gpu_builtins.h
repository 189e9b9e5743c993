// The GPU builtins TVM prints as calls that stand as statements: T.tvm_storage_sync("shared")
// (a barrier over a storage scope) and T.tvm_thread_allreduce(...) (a reduction across the
// threads of a block), and the warp operations of TVM's CUDA lowering (T.tvm_warp_shuffle,
// _up, _down, T.tvm_warp_activemask). They are rows of the intrinsic table (ir/intrinsics.h,
// which spells their names); these are the questions the passes ask of them, and the barrier's
// construction.
#pragma once

#include <cstdint>
#include <string_view>

#include "ir/intrinsics.h"
#include "ir/stmt.h"

namespace tirlower {

bool isStorageSync(const CallNode &call);
bool isThreadAllreduce(const CallNode &call);
// T.tvm_warp_shuffle, _up, _down or T.tvm_warp_activemask.
bool isWarpIntrinsic(const CallNode &call);
// The call of a statement `T.tvm_storage_sync(...)` or `T.tvm_thread_allreduce(...)`, else null.
const CallNode *storageSyncOf(const Stmt &stmt);
const CallNode *threadAllreduceOf(const Stmt &stmt);
// The scope a barrier synchronises ("shared"), or empty when it names none.
std::string_view storageSyncScope(const CallNode &call);
// T.tvm_storage_sync("shared") as a statement.
Stmt makeSharedStorageSync(SourceRange loc);
// The warp operations as TVM's LowerThreadAllreduce writes them for a warp of `warpSize` lanes:
// T.tvm_warp_activemask() and T.tvm_warp_shuffle_down(mask, value, delta, width, warpSize) /
// T.tvm_warp_shuffle(mask, value, lane, width, warpSize).
Expr makeWarpActiveMask(SourceRange loc);
Expr makeWarpShuffleDown(Expr mask, Expr value, int64_t delta, int64_t width, int64_t warpSize, SourceRange loc);
Expr makeWarpShuffle(Expr mask, Expr value, Expr lane, int64_t width, int64_t warpSize, SourceRange loc);
// Whether `stmt` calls a warp intrinsic anywhere (a kernel whose threads meet in warps).
bool usesWarpIntrinsics(const Stmt &stmt);
// Whether it calls one or has a warp barrier, T.tvm_storage_sync("warp") (code for warps of a size).
bool usesWarps(const Stmt &stmt);

} // namespace tirlower
