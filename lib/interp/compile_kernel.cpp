// Compiling kernels: launches become thread indices, T.tvm_storage_sync a barrier, a
// T.tvm_thread_allreduce a reduction across the threads of a block, shared storage one
// allocation per block, and (before thread-sync) the barriers the statements imply.
#include "interp/compile_kernel.h"

#include <functional>

#include "interp/buffer_layout.h"
#include "interp/warp_code.h"
#include "ir/visitor.h"
#include "ir/gpu_builtins.h"
#include "ir/storage_scope.h"

namespace tirlower {

namespace {

int64_t threadIndex(const ThreadState &thread, const ThreadTag &tag) {
  switch (tag.kind) {
  case ThreadTag::Kind::Block: return thread.block->blockIdx[tag.dim];
  case ThreadTag::Kind::Thread: return thread.threadIdx[tag.dim];
  case ThreadTag::Kind::Virtual: return 0;
  }
  return 0;
}

// A launch (or thread-bound loop) inside a kernel: the variable is the thread's index (plus the
// loop's minimum); a thread whose index is past this launch's extent skips the body.
class ThreadIndexCode : public StmtCode {
public:
  ThreadIndexCode(SourceRange loc, ThreadTag tag, DataType type, int slot, ExprCodePtr min, ExprCodePtr extent,
                  StmtCodePtr body)
      : StmtCode(loc), tag_(tag), kind_(numKind(type)), bits_(type.bits()), slot_(slot), min_(std::move(min)),
        extent_(std::move(extent)), body_(std::move(body)) {}
  void exec(Frame &frame) const override {
    const int64_t index = threadIndex(*frame.thread, tag_);
    if (index >= extent_->scalar(frame).i)
      return;
    const uint64_t min = min_ ? min_->scalar(frame).u : 0;
    frame.env[slot_] = normalizeInt(min + static_cast<uint64_t>(index), kind_, bits_);
    body_->exec(frame);
  }

private:
  ThreadTag tag_;
  NumKind kind_;
  int bits_, slot_;
  ExprCodePtr min_, extent_;
  StmtCodePtr body_;
};

class BarrierCode : public StmtCode {
public:
  using StmtCode::StmtCode;
  void exec(Frame &frame) const override { waitAtBarrier(frame, this, loc); }
};

class NoOpCode : public StmtCode {
public:
  using StmtCode::StmtCode;
  void exec(Frame &) const override {}
};

class ImpliedBarrierCode : public StmtCode {
public:
  ImpliedBarrierCode(SourceRange loc, StmtCodePtr inner) : StmtCode(loc), inner_(std::move(inner)) {}
  void exec(Frame &frame) const override {
    if (leading)
      waitAtBarrier(frame, &leadingSite_, loc);
    inner_->exec(frame);
    waitAtBarrier(frame, &trailingSite_, loc);
  }
  bool leading = true;

private:
  StmtCodePtr inner_;
  char leadingSite_ = 0, trailingSite_ = 0;
};

// One storage per block, allocated by the first of its threads to get here.
class SharedAllocationCode : public AllocationCode {
public:
  using AllocationCode::AllocationCode;
  void exec(Frame &frame) const override {
    BlockState &block = *frame.thread->block;
    std::unique_ptr<BufferData> &storage = block.shared[this];
    if (!storage) {
      storage = allocate(frame);
      block.logs.push_back(std::make_unique<RaceLog>(storage->size(), block.warpBarriers));
      storage->raceLog = block.logs.back().get();
    }
    run(frame, storage.get());
  }
};

// T.tvm_thread_allreduce: every thread of the block brings its values (or the identity when its
// condition is false) and waits; each thread then combines the values of the threads that differ
// from it only in the reduced thread indices, in the order lower-thread-allreduce's tree combines
// them, and stores the results to its destinations.
class AllreduceCode : public StmtCode {
public:
  struct Parts {
    std::vector<ExprCodePtr> values, identity, combined;
    ExprCodePtr condition;
    std::vector<int> lhs, rhs, results;
    std::vector<StmtCodePtr> stores;
    std::array<bool, 3> reduced{false, false, false};
  };
  AllreduceCode(SourceRange loc, Parts parts) : StmtCode(loc), p_(std::move(parts)) {}

  void exec(Frame &frame) const override {
    ThreadState &me = *frame.thread;
    BlockState &block = *me.block;
    const size_t count = p_.values.size();
    Cell *row = &block.deposit[static_cast<size_t>(me.id) * block.depositStride];
    row[count] = p_.condition->scalar(frame);
    for (size_t k = 0; k < count; ++k) // a thread whose condition is false brings no value
      row[k] = row[count].u ? p_.values[k]->scalar(frame) : Cell{};
    waitAtBarrier(frame, this, loc);

    const std::array<int64_t, 3> &local = block.local;
    int64_t n = 1;
    for (int d = 0; d < 3; ++d)
      if (p_.reduced[d])
        n *= local[d];
    std::vector<Cell> identity(count);
    for (size_t k = 0; k < count; ++k)
      identity[k] = p_.identity[k]->scalar(frame);
    std::vector<Cell> v(static_cast<size_t>(n) * count);
    for (int64_t r = 0; r < n; ++r)
      std::copy(identity.begin(), identity.end(), v.begin() + r * static_cast<int64_t>(count));
    const int64_t threads = local[0] * local[1] * local[2];
    for (int64_t u = 0; u < threads; ++u) {
      const std::array<int64_t, 3> idx{u % local[0], u / local[0] % local[1], u / (local[0] * local[1])};
      int64_t r = 0, scale = 1;
      bool sameGroup = true;
      for (int d = 0; d < 3; ++d) {
        if (p_.reduced[d]) {
          r += idx[d] * scale;
          scale *= local[d];
        } else {
          sameGroup &= idx[d] == me.threadIdx[d];
        }
      }
      const Cell *theirs = &block.completed[static_cast<size_t>(u) * block.depositStride];
      if (sameGroup && theirs[count].u)
        std::copy(theirs, theirs + count, v.begin() + r * static_cast<int64_t>(count));
    }
    auto combine = [&](int64_t into, int64_t from) {
      for (size_t k = 0; k < count; ++k) {
        frame.env[p_.lhs[k]] = v[into * count + k];
        frame.env[p_.rhs[k]] = v[from * count + k];
      }
      std::vector<Cell> out(count);
      for (size_t k = 0; k < count; ++k)
        out[k] = p_.combined[k]->scalar(frame);
      std::copy(out.begin(), out.end(), v.begin() + into * static_cast<int64_t>(count));
    };
    int64_t align = 1;
    while (align < n)
      align <<= 1;
    if (align > n) {
      align >>= 1;
      for (int64_t i = 0; i < n - align; ++i)
        combine(i, i + align);
    }
    while (align > 1) {
      align >>= 1;
      for (int64_t i = 0; i < align; ++i)
        combine(i, i + align);
    }
    for (size_t k = 0; k < count; ++k) {
      frame.env[p_.results[k]] = v[k];
      p_.stores[k]->exec(frame);
    }
  }

private:
  Parts p_;
};

class VaryingFinder : public IRVisitor {
public:
  explicit VaryingFinder(const KernelScope &kernel) : kernel_(kernel) {}
  bool found = false;
  using IRVisitor::visit;
  void visit(const VarNode *op) override { found |= kernel_.varying.count(op) != 0; }
  void visit(const BufferLoadNode *op) override {
    found = true;
    IRVisitor::visit(op);
  }

private:
  const KernelScope &kernel_;
};

// Every launch and thread-bound loop under a kernel's outermost launch.
class LaunchCollector : public IRVisitor {
public:
  struct Found {
    Symbol tag;
    Expr extent;
    SourceRange loc;
  };
  std::vector<Found> found;
  using IRVisitor::visit;
  void visit(const AttrStmtNode *op) override {
    if (op->isThreadLaunch())
      found.push_back({op->threadTag, op->value, op->loc});
    IRVisitor::visit(op);
  }
  void visit(const ForNode *op) override {
    if (op->forKind == ForKind::ThreadBinding)
      found.push_back({op->threadTag, op->extent, op->loc});
    IRVisitor::visit(op);
  }
};

ThreadTag tagOf(Symbol tag, SourceRange loc) {
  std::optional<ThreadTag> parsed = parseThreadTag(tag.view());
  if (!parsed)
    throw CompileError(loc, "the interpreter cannot launch thread tag '" + tag.str() +
                                "' (expected blockIdx.x|y|z, threadIdx.x|y|z or vthread)");
  return *parsed;
}

// A launch whose threads all run its body (its extent is the launched one) keeps the threads
// together; a shorter one guards its body.
bool coversLaunch(const KernelScope &kernel, const ThreadTag &tag, const Expr &extent) {
  if (tag.kind != ThreadTag::Kind::Thread)
    return true; // a block index is the same for every thread of a block
  const int64_t *e = asConstInt(extent);
  return e && kernel.constLocal[tag.dim] != 0 && *e == kernel.constLocal[tag.dim];
}

StmtCodePtr compileThreadIndex(Compiler &compiler, const Var &var, const ThreadTag &tag, const Expr &min,
                               const Expr &extent, const Stmt &body, SourceRange loc) {
  if (!var->type.isIndex())
    throw CompileError(loc, "thread variable '" + var->name.str() + "' must be a scalar integer");
  KernelScope &kernel = *compiler.kernel;
  ExprCodePtr minCode = min ? compiler.expr(min) : nullptr;
  ExprCodePtr extentCode = compiler.expr(extent);
  ScopedBinding binding(compiler, var);
  if (tag.kind == ThreadTag::Kind::Thread || (min && isVarying(kernel, min)))
    kernel.varying.insert(var.get());
  auto saved = kernel.launch.find(var.get());
  std::optional<ThreadTag> previous;
  if (saved != kernel.launch.end())
    previous = saved->second;
  kernel.launch[var.get()] = tag;
  StmtCodePtr bodyCode;
  {
    DivergentScope divergent(compiler, !coversLaunch(kernel, tag, extent));
    bodyCode = compiler.stmt(body);
  }
  if (previous)
    kernel.launch[var.get()] = *previous;
  else
    kernel.launch.erase(var.get());
  return std::make_unique<ThreadIndexCode>(loc, tag, var->type, binding.slot(), std::move(minCode),
                                           std::move(extentCode), std::move(bodyCode));
}

// Starts a kernel at its outermost launch: its geometry is evaluated where it starts.
StmtCodePtr compileKernel(Compiler &compiler, const Stmt &launch, const std::function<StmtCodePtr()> &compileRoot) {
  LaunchCollector collector;
  collector.visit(launch);
  KernelScope scope;
  scope.implicitBarriers = !compiler.explicitBarriers;
  scope.warpCollectives = usesWarpIntrinsics(launch);
  std::vector<LaunchExtent> launches;
  for (const LaunchCollector::Found &f : collector.found) {
    ThreadTag tag = tagOf(f.tag, f.loc);
    LaunchExtent e;
    e.tag = f.tag.str();
    e.block = tag.kind == ThreadTag::Kind::Block;
    e.virtualThread = tag.kind == ThreadTag::Kind::Virtual;
    e.dim = tag.dim;
    e.loc = f.loc;
    try {
      e.extent = compiler.expr(f.extent);
    } catch (const CompileError &error) {
      throw CompileError(f.loc, "the extent of the launch of " + e.tag +
                                    " must be known when its kernel starts: " + error.diagnostic().message);
    }
    if (tag.kind == ThreadTag::Kind::Thread) {
      const int64_t *c = asConstInt(f.extent);
      int64_t &slot = scope.constLocal[tag.dim];
      if (!c)
        slot = 0;
      else if (slot != 0)
        slot = std::max(slot, *c);
    }
    launches.push_back(std::move(e));
  }
  compiler.kernel = &scope;
  StmtCodePtr body;
  try {
    body = compileRoot();
  } catch (...) {
    compiler.kernel = nullptr;
    throw;
  }
  compiler.kernel = nullptr;
  return std::make_unique<KernelCode>(launch->loc, std::move(launches), std::move(body), scope.barrierSites == 0,
                                      static_cast<size_t>(scope.depositStride), scope.warpBarriers);
}

StmtCodePtr compileAllreduce(Compiler &compiler, const CallNode &call, SourceRange loc) {
  if (!compiler.kernel)
    throw InterpreterLimit(loc, "T.tvm_thread_allreduce outside a thread launch: the interpreter runs cross-thread "
                            "reductions in kernels (T.launch_thread; lower-thread-binding turns thread-bound loops "
                            "into launches)");
  if (compiler.reducers.empty())
    throw CompileError(loc, "T.tvm_thread_allreduce outside a reduce_scope attribute: no T.comm_reducer says how "
                            "to combine the values");
  const CommReducerNode &reducer = *compiler.reducers.back();
  const auto *countNode = call.args.empty() ? nullptr : asConstInt(call.args[0]);
  const size_t count = countNode ? static_cast<size_t>(*countNode) : 0;
  if (count != reducer.lhs.size() || call.args.size() < 2 * count + 2)
    throw CompileError(loc, "T.tvm_thread_allreduce reduces " + std::to_string(count) + " values but its reducer " +
                                std::to_string(reducer.lhs.size()));
  KernelScope &kernel = *compiler.kernel;
  AllreduceCode::Parts parts;
  for (size_t k = 0; k < count; ++k)
    parts.values.push_back(compiler.expr(call.args[1 + k]));
  parts.condition = compiler.expr(call.args[1 + count]);
  for (size_t a = 2 * count + 2; a < call.args.size(); ++a) {
    const auto *var = call.args[a].as<VarNode>();
    auto it = var ? kernel.launch.find(var) : kernel.launch.end();
    if (it == kernel.launch.end() || it->second.kind != ThreadTag::Kind::Thread)
      throw CompileError(loc, "the threads of T.tvm_thread_allreduce are named by threadIdx variables of the "
                              "launches around it");
    parts.reduced[it->second.dim] = true;
  }
  std::vector<std::unique_ptr<ScopedBinding>> bindings;
  for (size_t k = 0; k < count; ++k) {
    const auto *dest = call.args[2 + count + k].as<BufferLoadNode>();
    if (!dest)
      throw CompileError(loc, "the destinations of T.tvm_thread_allreduce are buffer elements");
    Var result = VarNode::make(Symbol("tl_allreduce_result"), dest->type, loc);
    bindings.push_back(std::make_unique<ScopedBinding>(compiler, result));
    parts.results.push_back(bindings.back()->slot());
    parts.stores.push_back(compiler.stmt(BufferStoreNode::make(dest->buffer, result, dest->indices, loc)));
  }
  for (size_t k = 0; k < count; ++k) {
    bindings.push_back(std::make_unique<ScopedBinding>(compiler, reducer.lhs[k]));
    parts.lhs.push_back(bindings.back()->slot());
    bindings.push_back(std::make_unique<ScopedBinding>(compiler, reducer.rhs[k]));
    parts.rhs.push_back(bindings.back()->slot());
  }
  for (size_t k = 0; k < count; ++k) {
    parts.combined.push_back(compiler.expr(reducer.result[k]));
    parts.identity.push_back(compiler.expr(reducer.identity[k]));
  }
  while (!bindings.empty())
    bindings.pop_back();
  ++kernel.barrierSites;
  kernel.depositStride = std::max(kernel.depositStride, static_cast<int>(count) + 1);
  return std::make_unique<AllreduceCode>(loc, std::move(parts));
}

} // namespace

bool isVarying(const KernelScope &kernel, const Expr &e) {
  VaryingFinder finder(kernel);
  finder.visit(e);
  return finder.found;
}

bool writesShared(const Stmt &s) {
  struct Finder : IRVisitor {
    bool found = false;
    using IRVisitor::visit;
    void visit(const BufferStoreNode *op) override {
      found |= isSharedBuffer(*op->buffer);
      IRVisitor::visit(op);
    }
  } finder;
  finder.visit(s);
  return finder.found;
}

StmtCodePtr withImpliedBarriers(Compiler &compiler, StmtCodePtr inner, SourceRange loc) {
  compiler.kernel->barrierSites += 2;
  return std::make_unique<ImpliedBarrierCode>(loc, std::move(inner));
}

void mergeImpliedBarriers(std::vector<StmtCodePtr> &stmts) {
  for (size_t k = 1; k < stmts.size(); ++k)
    if (dynamic_cast<ImpliedBarrierCode *>(stmts[k - 1].get()))
      if (auto *next = dynamic_cast<ImpliedBarrierCode *>(stmts[k].get()))
        next->leading = false;
}

StmtCodePtr compileLaunch(Compiler &compiler, const AttrStmtNode &op) {
  ThreadTag tag = tagOf(op.threadTag, op.loc);
  Var var(op.threadVar());
  auto compileIndex = [&] { return compileThreadIndex(compiler, var, tag, nullptr, op.value, op.body, op.loc); };
  if (compiler.kernel)
    return compileIndex();
  return compileKernel(compiler, Stmt(&op), compileIndex);
}

StmtCodePtr compileThreadLoopInKernel(Compiler &compiler, const ForNode &op) {
  ThreadTag tag = tagOf(op.threadTag, op.loc);
  return compileThreadIndex(compiler, op.loopVar, tag, op.min, op.extent, op.body, op.loc);
}

StmtCodePtr compileReduceScope(Compiler &compiler, const AttrStmtNode &op) {
  compiler.reducers.push_back(op.reducer.get());
  struct Pop {
    Compiler &compiler;
    ~Pop() { compiler.reducers.pop_back(); }
  } pop{compiler};
  return compiler.stmt(op.body);
}

StmtCodePtr compileThreadIntrinsic(Compiler &compiler, const EvaluateNode &op) {
  const auto *call = op.value.as<CallNode>();
  if (!call)
    return nullptr;
  if (isThreadAllreduce(*call))
    return compileAllreduce(compiler, *call, op.loc);
  if (!isStorageSync(*call))
    return nullptr;
  if (!compiler.kernel) // thread-bound loops outside a launch run one after another
    return std::make_unique<NoOpCode>(op.loc);
  ++compiler.kernel->barrierSites;
  if (storageSyncScope(*call) == scope::kWarp) { // CUDA's __syncwarp: the lanes of a warp that reach it
    compiler.kernel->warpBarriers = true;
    return compileWarpBarrier(op.loc);
  }
  return std::make_unique<BarrierCode>(op.loc);
}

StmtCodePtr compileSharedAllocation(Compiler &compiler, const Var &data, std::string name, DataType dtype,
                                    std::unique_ptr<BufferLayout> layout, std::vector<ExprCodePtr> extents,
                                    const Stmt &body, SourceRange loc) {
  ScopedBinding binding(compiler, data);
  return std::make_unique<SharedAllocationCode>(loc, std::move(name), dtype, binding.slot(), std::move(layout),
                                                std::move(extents), compiler.stmt(body));
}

} // namespace tirlower
