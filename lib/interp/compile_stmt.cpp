// Statement code. Loops of every kind run serially in index order; each iteration of a For or
// While is one step against RunOptions::stepLimit. Allocations get fresh, uninitialised storage
// that lives until the end of their scope. What a GPU kernel's statements do otherwise is asked
// of the compiler's kernel hooks (KernelHooks, compiler.h; compile_kernel.cpp).
#include <stdexcept>

#include "interp/buffer_layout.h"
#include "interp/compiler.h"
#include "ir/storage_scope.h"
#include "ir/visitor.h"

namespace tirlower {
namespace {

[[noreturn]] void stepLimitExceeded(Frame &frame, SourceRange loc) {
  runtimeError(loc, "step limit of " + std::to_string(frame.options->stepLimit) +
                        " loop iterations exceeded; raise it with " + frame.options->stepLimitHint);
}

// A store that may keep an undefined value in a kernel with warp collectives (kernel.h): a
// scalar to local storage, at indices that read no memory (an index is never undefined).
bool toleratesUndefined(const BufferStoreNode &store) {
  struct ReadsMemory : IRVisitor {
    using IRVisitor::visit;
    bool found = false;
    void visit(const BufferLoadNode *op) override {
      found = true;
      IRVisitor::visit(op);
    }
  } reads;
  for (const Expr &index : store.indices)
    reads.visit(index);
  return !reads.found && store.value->type.isScalar() &&
         StorageScope::parse(store.buffer->scope.view()).rank == StorageRank::Local;
}

inline void countStep(Frame &frame, SourceRange loc) {
  if (++frame.steps > frame.stepLimit)
    stepLimitExceeded(frame, loc);
}

class SeqCode : public StmtCode {
public:
  SeqCode(SourceRange loc, std::vector<StmtCodePtr> stmts) : StmtCode(loc), stmts_(std::move(stmts)) {}
  void exec(Frame &frame) const override {
    for (const StmtCodePtr &s : stmts_)
      s->exec(frame);
  }

private:
  std::vector<StmtCodePtr> stmts_;
};

class ForCode : public StmtCode {
public:
  ForCode(SourceRange loc, DataType varType, int slot, ExprCodePtr min, ExprCodePtr extent, StmtCodePtr body)
      : StmtCode(loc), kind_(numKind(varType)), bits_(varType.bits()), slot_(slot), min_(std::move(min)),
        extent_(std::move(extent)), body_(std::move(body)) {}
  void exec(Frame &frame) const override {
    const uint64_t min = min_->scalar(frame).u;
    const Cell extent = extent_->scalar(frame);
    const uint64_t count = kind_ == NumKind::Int && extent.i < 0 ? 0 : extent.u;
    for (uint64_t k = 0; k < count; ++k) {
      countStep(frame, loc);
      frame.env[slot_] = normalizeInt(min + k, kind_, bits_);
      body_->exec(frame);
    }
  }

private:
  NumKind kind_;
  int bits_, slot_;
  ExprCodePtr min_, extent_;
  StmtCodePtr body_;
};

class WhileCode : public StmtCode {
public:
  WhileCode(SourceRange loc, ExprCodePtr condition, StmtCodePtr body)
      : StmtCode(loc), condition_(std::move(condition)), body_(std::move(body)) {}
  void exec(Frame &frame) const override {
    while (condition_->scalar(frame).u) {
      countStep(frame, loc);
      body_->exec(frame);
    }
  }

private:
  ExprCodePtr condition_;
  StmtCodePtr body_;
};

class IfCode : public StmtCode {
public:
  IfCode(SourceRange loc, ExprCodePtr condition, StmtCodePtr thenCase, StmtCodePtr elseCase)
      : StmtCode(loc), condition_(std::move(condition)), then_(std::move(thenCase)), else_(std::move(elseCase)) {}
  void exec(Frame &frame) const override {
    if (condition_->scalar(frame).u)
      then_->exec(frame);
    else if (else_)
      else_->exec(frame);
  }

private:
  ExprCodePtr condition_;
  StmtCodePtr then_, else_;
};

class LetCode : public StmtCode {
public:
  LetCode(SourceRange loc, int slot, ExprCodePtr value, StmtCodePtr body)
      : StmtCode(loc), slot_(slot), value_(std::move(value)), body_(std::move(body)) {}
  void exec(Frame &frame) const override {
    value_->eval(frame, &frame.env[slot_]);
    body_->exec(frame);
  }

private:
  int slot_;
  ExprCodePtr value_;
  StmtCodePtr body_;
};

class AssertCode : public StmtCode {
public:
  AssertCode(SourceRange loc, ExprCodePtr condition, std::string message)
      : StmtCode(loc), condition_(std::move(condition)), message_(std::move(message)) {}
  void exec(Frame &frame) const override {
    if (!condition_->scalar(frame).u)
      throw AssertFailure{loc, message_};
  }

private:
  ExprCodePtr condition_;
  std::string message_;
};

class EvaluateCode : public StmtCode {
public:
  EvaluateCode(SourceRange loc, ExprCodePtr value) : StmtCode(loc), value_(std::move(value)), out_(value_->lanes) {}
  void exec(Frame &frame) const override { value_->eval(frame, out_.data()); }

private:
  ExprCodePtr value_;
  Scratch out_;
};

} // namespace

AllocationCode::AllocationCode(SourceRange loc, std::string name, DataType dtype, int slot,
                               std::unique_ptr<BufferLayout> layout, std::vector<ExprCodePtr> extents, StmtCodePtr body)
    : StmtCode(loc), name_(std::move(name)), dtype_(dtype), slot_(slot), layout_(std::move(layout)),
      extents_(std::move(extents)), body_(std::move(body)) {}

AllocationCode::~AllocationCode() = default;

std::unique_ptr<BufferData> allocateStorage(Frame &frame, SourceRange loc, const std::string &name, DataType dtype,
                                            const BufferLayout *layout, const std::vector<ExprCodePtr> &extents) {
  __int128 scalars = dtype.lanes();
  if (layout)
    scalars = layout->requiredScalars(frame);
  for (const ExprCodePtr &extent : extents) {
    const int64_t e = extent->scalar(frame).i;
    if (e < 0)
      runtimeError(loc, "allocation '" + name + "' has negative extent " + std::to_string(e));
    scalars *= e;
    if (scalars > static_cast<__int128>(frame.options->maxAllocationBytes))
      break;
  }
  const __int128 bytes = scalars * dtype.laneBytes();
  if (bytes > static_cast<__int128>(frame.options->maxAllocationBytes))
    runtimeError(loc, "allocation '" + name + "' needs more than the interpreter's limit of " +
                          std::to_string(frame.options->maxAllocationBytes) + " bytes");
  return std::make_unique<BufferData>(dtype.element(), static_cast<size_t>(scalars));
}

namespace {

// Fresh storage for each execution of the body.
class AllocateCode : public AllocationCode {
public:
  using AllocationCode::AllocationCode;
  void exec(Frame &frame) const override {
    std::unique_ptr<BufferData> storage = allocate(frame);
    run(frame, storage.get());
  }
};

StmtCodePtr allocateBuffer(Compiler &compiler, const Buffer &buffer, const Stmt &body, SourceRange loc) {
  auto layout = std::make_unique<BufferLayout>(compiler, *buffer, loc);
  if (compiler.kernels().allocatesPerBlock(isSharedBuffer(*buffer)))
    return compiler.kernels().perBlockAllocation(buffer->data, buffer->name.str(), buffer->dtype, std::move(layout), {},
                                                 body, loc);
  ScopedBinding binding(compiler, buffer->data);
  return std::make_unique<AllocateCode>(loc, buffer->name.str(), buffer->dtype, binding.slot(), std::move(layout),
                                        std::vector<ExprCodePtr>{}, compiler.stmt(body));
}

// A block run as TVM defines it, without lowering it: the iteration variables take their
// bound values (each must lie in its domain), the predicate decides whether the block runs, its
// allocations are fresh for each run, and `init` runs first when every reduce variable is at
// the minimum of its domain.
class BlockCode : public StmtCode {
public:
  struct Iter {
    std::string name;
    int slot;
    NumKind kind;
    ExprCodePtr value, min, extent;
    bool reduce;
  };
  struct Alloc {
    std::string name;
    DataType dtype;
    int slot;
    std::unique_ptr<BufferLayout> layout;
  };
  BlockCode(SourceRange loc, std::string name, std::vector<Iter> iters, ExprCodePtr predicate,
            std::vector<Alloc> allocs, StmtCodePtr init, StmtCodePtr body)
      : StmtCode(loc), name_(std::move(name)), iters_(std::move(iters)), predicate_(std::move(predicate)),
        allocs_(std::move(allocs)), init_(std::move(init)), body_(std::move(body)), values_(iters_.size()) {}

  void exec(Frame &frame) const override {
    // Every binding is evaluated before any iteration variable is set: bindings read loop
    // variables only.
    for (size_t k = 0; k < iters_.size(); ++k)
      values_[k] = iters_[k].value->scalar(frame);
    for (size_t k = 0; k < iters_.size(); ++k)
      frame.env[iters_[k].slot] = values_[k];
    // A block whose predicate is false does not run, and its bindings may then lie outside
    // their domains (the tail of a split loop).
    if (predicate_ && !predicate_->scalar(frame).u)
      return;
    bool atInit = true;
    for (size_t k = 0; k < iters_.size(); ++k) {
      const Iter &it = iters_[k];
      const Cell min = it.min->scalar(frame), extent = it.extent->scalar(frame), v = values_[k];
      bool inside = it.kind == NumKind::Int ? v.i >= min.i && v.i - min.i < extent.i
                                            : v.u >= min.u && v.u - min.u < extent.u;
      if (!inside)
        runtimeError(loc, "block \"" + name_ + "\": iteration variable '" + it.name + "' is bound to " +
                              std::to_string(v.i) + ", outside its domain [" + std::to_string(min.i) + ", " +
                              std::to_string(min.i + extent.i) + ")");
      atInit &= !it.reduce || v.u == min.u;
    }
    std::vector<std::unique_ptr<BufferData>> storage;
    for (const Alloc &a : allocs_) {
      storage.push_back(allocateStorage(frame, loc, a.name, a.dtype, a.layout.get(), {}));
      frame.env[a.slot].p = storage.back().get();
    }
    if (init_ && atInit)
      init_->exec(frame);
    body_->exec(frame);
  }

private:
  std::string name_;
  std::vector<Iter> iters_;
  ExprCodePtr predicate_;
  std::vector<Alloc> allocs_;
  StmtCodePtr init_, body_;
  mutable std::vector<Cell> values_;
};

StmtCodePtr compileBlock(Compiler &compiler, const BlockNode &op) {
  // A matched buffer is the view of its region (ir/stmt.h regionView), written in the block's
  // iteration variables: the init and body access the views instead.
  std::vector<std::pair<Buffer, Buffer>> views;
  for (const MatchBufferRegion &match : op.matchBuffers) {
    try {
      views.emplace_back(match.buffer, regionView(match));
    } catch (const IRTypeError &e) {
      throw CompileError(op.loc, e.what());
    }
  }
  Stmt initStmt = op.init && !views.empty() ? substituteBuffers(op.init, views) : op.init;
  Stmt bodyStmt = views.empty() ? op.body : substituteBuffers(op.body, views);
  std::vector<BlockCode::Iter> iters;
  std::vector<std::unique_ptr<ScopedBinding>> bindings;
  for (const BlockIterVar &iv : op.iterVars)
    iters.push_back({iv.var->name.str(), 0, numKind(iv.var->type), compiler.expr(iv.value), compiler.expr(iv.min),
                     compiler.expr(iv.extent), iv.kind == IterKind::Reduce});
  for (size_t k = 0; k < op.iterVars.size(); ++k) {
    bindings.push_back(std::make_unique<ScopedBinding>(compiler, op.iterVars[k].var));
    iters[k].slot = bindings.back()->slot();
  }
  ExprCodePtr predicate = op.predicate ? compiler.expr(op.predicate) : nullptr;
  std::vector<BlockCode::Alloc> allocs;
  for (const Buffer &b : op.allocBuffers) {
    auto layout = std::make_unique<BufferLayout>(compiler, *b, op.loc);
    bindings.push_back(std::make_unique<ScopedBinding>(compiler, b->data));
    allocs.push_back({b->name.str(), b->dtype, bindings.back()->slot(), std::move(layout)});
  }
  StmtCodePtr init = initStmt ? compiler.stmt(initStmt) : nullptr;
  StmtCodePtr body = compiler.stmt(bodyStmt);
  while (!bindings.empty())
    bindings.pop_back(); // unbind in reverse order
  return std::make_unique<BlockCode>(op.loc, op.name.str(), std::move(iters), std::move(predicate),
                                     std::move(allocs), std::move(init), std::move(body));
}

} // namespace

KernelHooks &Compiler::kernels() const {
  if (!kernels_)
    throw std::logic_error("the interpreter compiles statements with kernel hooks (Compiler::setKernelHooks)");
  return *kernels_;
}

// Inside a kernel without explicit barriers, a statement that writes shared storage where all
// threads run alike is compiled between implied barriers (KernelHooks, compiler.h).
StmtCodePtr Compiler::stmt(const Stmt &s) {
  if (!kernels().impliesBarriers(s))
    return compileStmt(s);
  StmtCodePtr inner;
  {
    DivergentScope divergent(kernels(), true);
    inner = compileStmt(s);
  }
  return kernels().withImpliedBarriers(std::move(inner), s->loc);
}

StmtCodePtr Compiler::compileStmt(const Stmt &s) { return visitStmt(s); }

StmtCodePtr Compiler::visitBufferStore(const BufferStoreNode *op) {
  return makeStoreCode(*this, *op, kernels().inWarpCollectiveKernel() && toleratesUndefined(*op));
}

StmtCodePtr Compiler::visitFor(const ForNode *op) {
  if (op->forKind == ForKind::ThreadBinding)
    if (StmtCodePtr threadIndex = kernels().threadLoop(*op))
      return threadIndex;
  if (!op->loopVar->type.isIndex())
    throw CompileError(op->loc, "loop variable '" + op->loopVar->name.str() + "' must be a scalar integer");
  ExprCodePtr min = expr(op->min), extent = expr(op->extent);
  ScopedBinding binding(*this, op->loopVar);
  bool varying = kernels().varies(op->min) || kernels().varies(op->extent);
  if (varying)
    kernels().markVarying(op->loopVar.get());
  DivergentScope divergent(kernels(), varying);
  return std::make_unique<ForCode>(op->loc, op->loopVar->type, binding.slot(), std::move(min), std::move(extent),
                                   stmt(op->body));
}

StmtCodePtr Compiler::visitWhile(const WhileNode *op) {
  DivergentScope divergent(kernels(), kernels().varies(op->condition));
  return std::make_unique<WhileCode>(op->loc, expr(op->condition), stmt(op->body));
}

StmtCodePtr Compiler::visitIfThenElse(const IfThenElseNode *op) {
  DivergentScope divergent(kernels(), kernels().varies(op->condition));
  return std::make_unique<IfCode>(op->loc, expr(op->condition), stmt(op->thenCase),
                                  op->elseCase ? stmt(op->elseCase) : nullptr);
}

StmtCodePtr Compiler::visitLetStmt(const LetStmtNode *op) {
  ExprCodePtr value = expr(op->value);
  ScopedBinding binding(*this, op->var);
  if (kernels().varies(op->value))
    kernels().markVarying(op->var.get());
  return std::make_unique<LetCode>(op->loc, binding.slot(), std::move(value), stmt(op->body));
}

StmtCodePtr Compiler::visitAllocate(const AllocateNode *op) {
  numKind(op->dtype);
  std::vector<ExprCodePtr> extents;
  for (const Expr &e : op->extents)
    extents.push_back(expr(e));
  if (kernels().allocatesPerBlock(isSharedScope(op->scope.view()) || isSharedData(*op->bufferVar)))
    return kernels().perBlockAllocation(op->bufferVar, op->bufferVar->name.str(), op->dtype, nullptr,
                                        std::move(extents), op->body, op->loc);
  ScopedBinding binding(*this, op->bufferVar);
  return std::make_unique<AllocateCode>(op->loc, op->bufferVar->name.str(), op->dtype, binding.slot(), nullptr,
                                        std::move(extents), stmt(op->body));
}

StmtCodePtr Compiler::visitDeclBuffer(const DeclBufferNode *op) {
  if (op->allocates)
    return allocateBuffer(*this, op->buffer, op->body, op->loc);
  return stmt(op->body);
}

StmtCodePtr Compiler::visitAllocBuffer(const AllocBufferNode *op) {
  return allocateBuffer(*this, op->buffer, op->body, op->loc);
}

StmtCodePtr Compiler::visitAttrStmt(const AttrStmtNode *op) {
  if (op->isThreadLaunch())
    return kernels().launch(*op);
  if (op->reducer)
    return kernels().reduceScope(*op);
  return stmt(op->body);
}

StmtCodePtr Compiler::visitAssertStmt(const AssertStmtNode *op) {
  return std::make_unique<AssertCode>(op->loc, expr(op->condition), op->message);
}

StmtCodePtr Compiler::visitEvaluate(const EvaluateNode *op) {
  if (StmtCodePtr intrinsic = kernels().threadIntrinsic(*op))
    return intrinsic;
  return std::make_unique<EvaluateCode>(op->loc, expr(op->value));
}

StmtCodePtr Compiler::visitBlock(const BlockNode *op) {
  return compileBlock(*this, *op);
}

StmtCodePtr Compiler::visitSeqStmt(const SeqStmtNode *op) {
  std::vector<StmtCodePtr> stmts;
  for (const Stmt &child : op->stmts)
    stmts.push_back(stmt(child));
  kernels().mergeImpliedBarriers(stmts);
  return std::make_unique<SeqCode>(op->loc, std::move(stmts));
}

} // namespace tirlower
