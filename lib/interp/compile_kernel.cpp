// Compiling kernels: launches become thread indices, T.tvm_storage_sync a barrier, a
// T.tvm_thread_allreduce a reduction across the threads of a block, shared storage one
// allocation per block, and (before thread-sync) the barriers the statements imply.
#include "interp/compile_kernel.h"

#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "interp/buffer_layout.h"
#include "interp/warp_code.h"
#include "ir/gpu_builtins.h"
#include "ir/storage_scope.h"
#include "ir/visitor.h"

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

// The kernel being compiled: what decides where its threads must meet.
struct KernelScope {
  // Before thread-sync (no "tirlower.explicit_barriers" attribute) the kernel means what its
  // statements compute one after another for all threads: a barrier is implied before and after
  // every statement that writes shared storage where all threads run alike.
  bool implicitBarriers = true;
  bool uniform = true; // the statement being compiled runs alike in every thread of the block
  std::unordered_set<const VarNode *> varying;          // values that differ between the threads of a block
  std::unordered_map<const VarNode *, ThreadTag> launch; // launched variables in scope
  std::array<int64_t, 3> constLocal{1, 1, 1};           // launched thread extents when constant (else 0)
  int barrierSites = 0;                                  // barriers and reductions compiled
  int depositStride = 0;                                 // cells per thread the reductions need
  // It calls warp intrinsics: stores to local storage may keep undefined values (kernel.h).
  bool warpCollectives = false;
  bool warpBarriers = false; // it has T.tvm_storage_sync("warp")
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

// Whether `e` may differ between the threads of a block (it reads a thread index, a value derived
// from one, or memory).
bool isVarying(const KernelScope &kernel, const Expr &e) {
  VaryingFinder finder(kernel);
  finder.visit(e);
  return finder.found;
}

// Whether `s` stores to shared storage.
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

// The kernel hooks (compiler.h): the kernel being compiled (null outside one) and the reducers
// of the reduce_scope attributes around the statement being compiled.
class KernelCompiler : public KernelHooks {
public:
  KernelCompiler(Compiler &compiler, bool explicitBarriers)
      : compiler_(compiler), explicitBarriers_(explicitBarriers) {}

  StmtCodePtr launch(const AttrStmtNode &op) override {
    ThreadTag tag = tagOf(op.threadTag, op.loc);
    Var var(op.threadVar());
    auto compileIndex = [&] { return compileThreadIndex(var, tag, nullptr, op.value, op.body, op.loc); };
    if (kernel_)
      return compileIndex();
    return compileKernel(Stmt(&op), compileIndex);
  }

  StmtCodePtr threadLoop(const ForNode &op) override {
    if (!kernel_)
      return nullptr;
    ThreadTag tag = tagOf(op.threadTag, op.loc);
    return compileThreadIndex(op.loopVar, tag, op.min, op.extent, op.body, op.loc);
  }

  StmtCodePtr reduceScope(const AttrStmtNode &op) override {
    reducers_.push_back(op.reducer.get());
    struct Pop {
      std::vector<const CommReducerNode *> &reducers;
      ~Pop() { reducers.pop_back(); }
    } pop{reducers_};
    return compiler_.stmt(op.body);
  }

  StmtCodePtr threadIntrinsic(const EvaluateNode &op) override {
    const auto *call = op.value.as<CallNode>();
    if (!call)
      return nullptr;
    if (isThreadAllreduce(*call))
      return compileAllreduce(*call, op.loc);
    if (!isStorageSync(*call))
      return nullptr;
    if (!kernel_) // thread-bound loops outside a launch run one after another
      return std::make_unique<NoOpCode>(op.loc);
    ++kernel_->barrierSites;
    if (storageSyncScope(*call) == scope::kWarp) { // CUDA's __syncwarp: the lanes of a warp that reach it
      kernel_->warpBarriers = true;
      return compileWarpBarrier(op.loc);
    }
    return std::make_unique<BarrierCode>(op.loc);
  }

  bool inWarpCollectiveKernel() const override { return kernel_ && kernel_->warpCollectives; }
  bool addCollectiveSite() override {
    if (!kernel_)
      return false;
    ++kernel_->barrierSites;
    return true;
  }

  bool allocatesPerBlock(bool shared) const override { return kernel_ && shared; }

  StmtCodePtr perBlockAllocation(const Var &data, std::string name, DataType dtype,
                                 std::unique_ptr<BufferLayout> layout, std::vector<ExprCodePtr> extents,
                                 const Stmt &body, SourceRange loc) override {
    ScopedBinding binding(compiler_, data);
    return std::make_unique<SharedAllocationCode>(loc, std::move(name), dtype, binding.slot(), std::move(layout),
                                                  std::move(extents), compiler_.stmt(body));
  }

  bool varies(const Expr &e) const override { return kernel_ && isVarying(*kernel_, e); }

  void markVarying(const VarNode *var) override { kernel_->varying.insert(var); }

  bool setUniform(bool uniform) override {
    if (!kernel_)
      return true;
    bool was = kernel_->uniform;
    kernel_->uniform = uniform;
    return was;
  }

  // Inside a kernel without explicit barriers, a statement that writes shared storage where all
  // threads run alike goes between implied barriers; a statement that contains others is not
  // one of those itself when the threads run its parts alike (they get their own barriers).
  bool impliesBarriers(const Stmt &s) const override {
    if (!kernel_ || !kernel_->implicitBarriers || !kernel_->uniform)
      return false;
    bool compound = false;
    // kind-switch: which kinds contain statements that the implied barriers go around (a
    // classification, not a walk: the statement itself is compiled by the compiler).
    switch (s->kind()) {
    case StmtKind::SeqStmt:
    case StmtKind::LetStmt:
    case StmtKind::Allocate:
    case StmtKind::DeclBuffer:
    case StmtKind::AllocBuffer: compound = true; break;
    case StmtKind::AttrStmt: {
      const auto *op = s.as<AttrStmtNode>();
      compound = !op->isThreadLaunch() || !isVarying(*kernel_, op->value);
      break;
    }
    case StmtKind::For: {
      const auto *op = s.as<ForNode>();
      compound = !isVarying(*kernel_, op->min) && !isVarying(*kernel_, op->extent);
      break;
    }
    case StmtKind::While: compound = !isVarying(*kernel_, s.as<WhileNode>()->condition); break;
    case StmtKind::IfThenElse: compound = !isVarying(*kernel_, s.as<IfThenElseNode>()->condition); break;
    default: break;
    }
    return !compound && writesShared(s);
  }

  StmtCodePtr withImpliedBarriers(StmtCodePtr inner, SourceRange loc) override {
    kernel_->barrierSites += 2;
    return std::make_unique<ImpliedBarrierCode>(loc, std::move(inner));
  }

  void mergeImpliedBarriers(std::vector<StmtCodePtr> &stmts) override {
    if (!kernel_)
      return;
    for (size_t k = 1; k < stmts.size(); ++k)
      if (dynamic_cast<ImpliedBarrierCode *>(stmts[k - 1].get()))
        if (auto *next = dynamic_cast<ImpliedBarrierCode *>(stmts[k].get()))
          next->leading = false;
  }

private:
  StmtCodePtr compileThreadIndex(const Var &var, const ThreadTag &tag, const Expr &min, const Expr &extent,
                                 const Stmt &body, SourceRange loc);
  StmtCodePtr compileKernel(const Stmt &launch, const std::function<StmtCodePtr()> &compileRoot);
  StmtCodePtr compileAllreduce(const CallNode &call, SourceRange loc);

  Compiler &compiler_;
  bool explicitBarriers_;         // the function has "tirlower.explicit_barriers"
  KernelScope *kernel_ = nullptr; // the kernel being compiled, null outside one
  std::vector<const CommReducerNode *> reducers_;
};

StmtCodePtr KernelCompiler::compileThreadIndex(const Var &var, const ThreadTag &tag, const Expr &min,
                                               const Expr &extent, const Stmt &body, SourceRange loc) {
  if (!var->type.isIndex())
    throw CompileError(loc, "thread variable '" + var->name.str() + "' must be a scalar integer");
  KernelScope &kernel = *kernel_;
  ExprCodePtr minCode = min ? compiler_.expr(min) : nullptr;
  ExprCodePtr extentCode = compiler_.expr(extent);
  ScopedBinding binding(compiler_, var);
  if (tag.kind == ThreadTag::Kind::Thread || (min && isVarying(kernel, min)))
    kernel.varying.insert(var.get());
  auto saved = kernel.launch.find(var.get());
  std::optional<ThreadTag> previous;
  if (saved != kernel.launch.end())
    previous = saved->second;
  kernel.launch[var.get()] = tag;
  StmtCodePtr bodyCode;
  {
    DivergentScope divergent(*this, !coversLaunch(kernel, tag, extent));
    bodyCode = compiler_.stmt(body);
  }
  if (previous)
    kernel.launch[var.get()] = *previous;
  else
    kernel.launch.erase(var.get());
  return std::make_unique<ThreadIndexCode>(loc, tag, var->type, binding.slot(), std::move(minCode),
                                           std::move(extentCode), std::move(bodyCode));
}

// Starts a kernel at its outermost launch: its geometry is evaluated where it starts.
StmtCodePtr KernelCompiler::compileKernel(const Stmt &launch, const std::function<StmtCodePtr()> &compileRoot) {
  LaunchCollector collector;
  collector.visit(launch);
  KernelScope scope;
  scope.implicitBarriers = !explicitBarriers_;
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
      e.extent = compiler_.expr(f.extent);
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
  kernel_ = &scope;
  StmtCodePtr body;
  try {
    body = compileRoot();
  } catch (...) {
    kernel_ = nullptr;
    throw;
  }
  kernel_ = nullptr;
  return std::make_unique<KernelCode>(launch->loc, std::move(launches), std::move(body), scope.barrierSites == 0,
                                      static_cast<size_t>(scope.depositStride), scope.warpBarriers);
}

StmtCodePtr KernelCompiler::compileAllreduce(const CallNode &call, SourceRange loc) {
  if (!kernel_)
    throw InterpreterLimit(loc, "T.tvm_thread_allreduce outside a thread launch: the interpreter runs cross-thread "
                            "reductions in kernels (T.launch_thread; lower-thread-binding turns thread-bound loops "
                            "into launches)");
  if (reducers_.empty())
    throw CompileError(loc, "T.tvm_thread_allreduce outside a reduce_scope attribute: no T.comm_reducer says how "
                            "to combine the values");
  const CommReducerNode &reducer = *reducers_.back();
  const auto *countNode = call.args.empty() ? nullptr : asConstInt(call.args[0]);
  const size_t count = countNode ? static_cast<size_t>(*countNode) : 0;
  if (count != reducer.lhs.size() || call.args.size() < 2 * count + 2)
    throw CompileError(loc, "T.tvm_thread_allreduce reduces " + std::to_string(count) + " values but its reducer " +
                                std::to_string(reducer.lhs.size()));
  KernelScope &kernel = *kernel_;
  AllreduceCode::Parts parts;
  for (size_t k = 0; k < count; ++k)
    parts.values.push_back(compiler_.expr(call.args[1 + k]));
  parts.condition = compiler_.expr(call.args[1 + count]);
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
    bindings.push_back(std::make_unique<ScopedBinding>(compiler_, result));
    parts.results.push_back(bindings.back()->slot());
    parts.stores.push_back(compiler_.stmt(BufferStoreNode::make(dest->buffer, result, dest->indices, loc)));
  }
  for (size_t k = 0; k < count; ++k) {
    bindings.push_back(std::make_unique<ScopedBinding>(compiler_, reducer.lhs[k]));
    parts.lhs.push_back(bindings.back()->slot());
    bindings.push_back(std::make_unique<ScopedBinding>(compiler_, reducer.rhs[k]));
    parts.rhs.push_back(bindings.back()->slot());
  }
  for (size_t k = 0; k < count; ++k) {
    parts.combined.push_back(compiler_.expr(reducer.result[k]));
    parts.identity.push_back(compiler_.expr(reducer.identity[k]));
  }
  while (!bindings.empty())
    bindings.pop_back();
  ++kernel.barrierSites;
  kernel.depositStride = std::max(kernel.depositStride, static_cast<int>(count) + 1);
  return std::make_unique<AllreduceCode>(loc, std::move(parts));
}

} // namespace

std::unique_ptr<KernelHooks> makeKernelHooks(Compiler &compiler, bool explicitBarriers) {
  return std::make_unique<KernelCompiler>(compiler, explicitBarriers);
}

} // namespace tirlower
