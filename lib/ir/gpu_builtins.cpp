#include "ir/gpu_builtins.h"

#include "ir/storage_scope.h"
#include "ir/visitor.h"

namespace tirlower {

namespace {

const CallNode *evaluatedCall(const Stmt &stmt) {
  const auto *evaluate = stmt ? stmt.as<EvaluateNode>() : nullptr;
  return evaluate ? evaluate->value.as<CallNode>() : nullptr;
}

bool hasId(const CallNode &call, IntrinsicId id) {
  return call.intrinsic && call.intrinsic->id == id;
}

class WarpFinder : public IRVisitor {
public:
  using IRVisitor::visit;
  explicit WarpFinder(bool barriers) : barriers_(barriers) {}
  bool found = false;

protected:
  void visit(const CallNode *op) override {
    found |= isWarpIntrinsic(*op) || (barriers_ && isStorageSync(*op) && storageSyncScope(*op) == scope::kWarp);
    IRVisitor::visit(op);
  }

private:
  bool barriers_;
};

} // namespace

bool isStorageSync(const CallNode &call) {
  return hasId(call, IntrinsicId::StorageSync);
}

bool isThreadAllreduce(const CallNode &call) {
  return hasId(call, IntrinsicId::ThreadAllreduce);
}

bool isWarpIntrinsic(const CallNode &call) {
  return call.intrinsic && (isWarpShuffle(*call.intrinsic) || call.intrinsic->id == IntrinsicId::WarpActiveMask);
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

Expr makeWarpActiveMask(SourceRange loc) {
  return CallNode::make(DataType::uint32(), Symbol(builtin::kWarpActiveMask), {}, loc);
}

Expr makeWarpShuffleDown(Expr mask, Expr value, int64_t delta, int64_t width, int64_t warpSize, SourceRange loc) {
  DataType type = value->type;
  return CallNode::make(type, Symbol(builtin::kWarpShuffleDown),
                        {std::move(mask), std::move(value), intImm(delta), intImm(width), intImm(warpSize)}, loc);
}

Expr makeWarpShuffle(Expr mask, Expr value, Expr lane, int64_t width, int64_t warpSize, SourceRange loc) {
  DataType type = value->type;
  return CallNode::make(type, Symbol(builtin::kWarpShuffle),
                        {std::move(mask), std::move(value), std::move(lane), intImm(width), intImm(warpSize)}, loc);
}

bool usesWarpIntrinsics(const Stmt &stmt) {
  WarpFinder finder(false);
  finder.visit(stmt);
  return finder.found;
}

bool usesWarps(const Stmt &stmt) {
  WarpFinder finder(true);
  finder.visit(stmt);
  return finder.found;
}

} // namespace tirlower
