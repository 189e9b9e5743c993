// The warp intrinsics in the interpreter (kernel.h, "Warps"): T.tvm_warp_activemask() and
// T.tvm_warp_shuffle[_up|_down](mask, value, lane or delta, width, warp size), TVM's CUDA
// __activemask() and __shfl_sync / __shfl_up_sync / __shfl_down_sync (the warp size, TVM's last
// argument, is the warp the call was lowered for: it must be the interpreter's --warp-size).
#include "interp/compile_kernel.h"
#include "interp/warp_code.h"
#include "ir/gpu_builtins.h"

namespace tirlower {

namespace {

// Evaluates `code` with reads of uninitialised storage as errors, whatever the context allows.
Cell strictly(Frame &frame, const ExprCode &code) {
  const bool allowed = frame.undefinedAllowed;
  frame.undefinedAllowed = false;
  const Cell value = code.scalar(frame);
  frame.undefinedAllowed = allowed;
  return value;
}

// The result the lanes' meeting gave this one; an undefined one only where undefined values may go.
Cell takeResult(Frame &frame, const WarpCall &call, SourceRange loc) {
  if (call.resultUndefined) {
    if (!frame.undefinedAllowed)
      runtimeError(loc, std::string(call.name) + " gives " + frame.thread->describe() + " an undefined value (" +
                            call.why + ") where it is used: only local storage and another shuffle may take it");
    frame.undefinedSeen = true;
  }
  return call.result;
}

class ActiveMaskCode : public ExprCode {
public:
  using ExprCode::ExprCode;
  Cell scalar(Frame &frame) const override {
    WarpCall &call = frame.thread->warp;
    call = WarpCall{};
    call.op = WarpOp::ActiveMask;
    call.name = "T.tvm_warp_activemask";
    waitInWarp(frame, this, loc);
    return frame.thread->warp.result;
  }
};

class WarpBarrierCode : public StmtCode {
public:
  using StmtCode::StmtCode;
  void exec(Frame &frame) const override {
    WarpCall &call = frame.thread->warp;
    call = WarpCall{};
    call.op = WarpOp::Barrier;
    call.name = "T.tvm_storage_sync(\"warp\")";
    waitInWarp(frame, this, loc);
  }
};

class ShuffleCode : public ExprCode {
public:
  ShuffleCode(DataType type, SourceRange loc, WarpOp op, std::string name, std::vector<ExprCodePtr> args)
      : ExprCode(type, loc), op_(op), name_(std::move(name)), args_(std::move(args)) {}

  Cell scalar(Frame &frame) const override {
    const int warpSize = frame.options->warpSize;
    const uint32_t mask = static_cast<uint32_t>(strictly(frame, *args_[0]).u);
    const int64_t lane = strictly(frame, *args_[2]).i, width = strictly(frame, *args_[3]).i,
                  loweredFor = strictly(frame, *args_[4]).i;
    if (loweredFor != warpSize)
      runtimeError(loc, name_ + " was lowered for warps of " + std::to_string(loweredFor) +
                            " lanes (its last argument), but the interpreter runs warps of " +
                            std::to_string(warpSize) + " (--warp-size=" + std::to_string(warpSize) + ")");
    if (width < 1 || width > warpSize || (width & (width - 1)) != 0)
      runtimeError(loc, "the width of " + name_ + " is " + std::to_string(width) +
                            "; it must be a power of two from 1 to the warp size, " + std::to_string(warpSize));
    // The lane's own value may be undefined: the lane that gets it decides whether that matters.
    const bool allowed = frame.undefinedAllowed, seen = frame.undefinedSeen;
    frame.undefinedAllowed = true;
    frame.undefinedSeen = false;
    const Cell value = args_[1]->scalar(frame);
    const bool undefined = frame.undefinedSeen;
    frame.undefinedAllowed = allowed;
    frame.undefinedSeen = seen;
    WarpCall &call = frame.thread->warp;
    call = WarpCall{};
    call.op = op_;
    call.name = name_.c_str();
    call.mask = mask;
    call.lane = lane;
    call.width = width;
    call.value = value;
    call.undefined = undefined;
    waitInWarp(frame, this, loc);
    return takeResult(frame, frame.thread->warp, loc);
  }

private:
  WarpOp op_;
  std::string name_;
  std::vector<ExprCodePtr> args_;
};

} // namespace

StmtCodePtr compileWarpBarrier(SourceRange loc) {
  return std::make_unique<WarpBarrierCode>(loc);
}

ExprCodePtr compileWarpCall(Compiler &compiler, const CallNode &call) {
  const std::string name = "T." + call.op.str();
  // The threads run as fibers, which can wait for each other: a shuffle is a barrier site.
  if (!compiler.kernels().addCollectiveSite())
    throw InterpreterLimit(call.loc, name + " outside a thread launch: the interpreter runs warp operations in "
                                            "kernels (T.launch_thread), where the threads of a warp meet");
  if (call.intrinsic->id == IntrinsicId::WarpActiveMask)
    return std::make_unique<ActiveMaskCode>(call.type, call.loc);
  std::vector<ExprCodePtr> args;
  for (const Expr &arg : call.args)
    args.push_back(compiler.expr(arg));
  const WarpOp op = call.intrinsic->id == IntrinsicId::WarpShuffleUp     ? WarpOp::ShuffleUp
                    : call.intrinsic->id == IntrinsicId::WarpShuffleDown ? WarpOp::ShuffleDown
                                                                         : WarpOp::Shuffle;
  return std::make_unique<ShuffleCode>(call.type, call.loc, op, name, std::move(args));
}

} // namespace tirlower
