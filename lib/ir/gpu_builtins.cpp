#include "ir/gpu_builtins.h"

#include "ir/storage_scope.h"

namespace tirlower {

namespace {

const CallNode *evaluatedCall(const Stmt &stmt) {
  const auto *evaluate = stmt ? stmt.as<EvaluateNode>() : nullptr;
  return evaluate ? evaluate->value.as<CallNode>() : nullptr;
}

} // namespace

bool isStorageSync(const CallNode &call) {
  return call.op.view() == builtin::kStorageSync;
}

bool isThreadAllreduce(const CallNode &call) {
  return call.op.view() == builtin::kThreadAllreduce;
}

const CallNode *storageSyncOf(const Stmt &stmt) {
  const CallNode *call = evaluatedCall(stmt);
  return call && isStorageSync(*call) ? call : nullptr;
}

const CallNode *threadAllreduceOf(const Stmt &stmt) {
  const CallNode *call = evaluatedCall(stmt);
  return call && isThreadAllreduce(*call) ? call : nullptr;
}

std::string_view storageSyncScope(const CallNode &call) {
  const auto *scope = call.args.empty() ? nullptr : call.args[0].as<StringImmNode>();
  return scope ? std::string_view(scope->value) : std::string_view();
}

Stmt makeSharedStorageSync(SourceRange loc) {
  Expr scope = StringImmNode::make(std::string(scope::kShared), loc);
  return EvaluateNode::make(CallNode::make(DataType::int32(), Symbol(builtin::kStorageSync), {scope}, loc), loc);
}

} // namespace tirlower
