// The GPU builtins TVM prints as calls that stand as statements: T.tvm_storage_sync("shared")
// (a barrier over a storage scope) and T.tvm_thread_allreduce(...) (a reduction across the
// threads of a block). They are not rows of the intrinsic table — they compute no value, and
// their arguments are storage scopes, buffer elements and thread variables — but their names and
// the barrier's construction live here once.
#pragma once

#include <string_view>

#include "ir/stmt.h"

namespace tirlower {

namespace builtin {
inline constexpr std::string_view kStorageSync = "tvm_storage_sync";
inline constexpr std::string_view kThreadAllreduce = "tvm_thread_allreduce";
} // namespace builtin

bool isStorageSync(const CallNode &call);
bool isThreadAllreduce(const CallNode &call);
// The call of a statement `T.tvm_storage_sync(...)` or `T.tvm_thread_allreduce(...)`, else null.
const CallNode *storageSyncOf(const Stmt &stmt);
const CallNode *threadAllreduceOf(const Stmt &stmt);
// The scope a barrier synchronises ("shared"), or empty when it names none.
std::string_view storageSyncScope(const CallNode &call);
// T.tvm_storage_sync("shared") as a statement.
Stmt makeSharedStorageSync(SourceRange loc);

} // namespace tirlower
