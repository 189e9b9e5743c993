#include "ir/verifier.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "ir/pointer_map.h"
#include "ir/visitor.h"
#include "ir/attrs.h"

namespace tirlower {

namespace {

std::string quoted(Symbol name) {
  return "'" + name.str() + "'";
}

// Walks one function keeping the set of variables and buffers in scope. Declaration
// statements scope their body, so each one defines, recurses, then undefines.
class Verifier : public IRVisitor {
public:
  explicit Verifier(const PrimFuncNode &function) : function_(function), context_(function.loc) {}

  std::vector<Diagnostic> run() {
    defineSignature();
    visit(function_.body);
    checkLayoutTransforms();
    return std::move(errors_);
  }

private:
  using IRVisitor::visit;

  void error(SourceRange where, std::string message) {
    errors_.push_back({Severity::Error, where.valid() ? where : context_, std::move(message), {}});
  }

  // Sets the location used for errors found below `node` (variables carry the location of
  // their definition, not of each use).
  class Context {
  public:
    Context(Verifier &verifier, SourceRange where) : verifier_(verifier), saved_(verifier.context_) {
      if (where.valid())
        verifier.context_ = where;
    }
    ~Context() { verifier_.context_ = saved_; }
    Context(const Context &) = delete;
    Context &operator=(const Context &) = delete;

  private:
    Verifier &verifier_;
    SourceRange saved_;
  };

  void define(const Var &var, SourceRange where) {
    int &bound = inScope_[var.get()];
    if (bound != 0)
      error(where, "variable " + quoted(var->name) + " is defined again inside its own scope");
    bound = 1;
  }
  void undefine(const Var &var) { inScope_[var.get()] = 0; }
  bool inScope(const VarNode *var) const {
    const int *bound = inScope_.find(var);
    return bound && *bound != 0;
  }

  void defineSignature() {
    for (const Var &param : function_.params)
      define(param, param->loc.valid() ? param->loc : function_.loc);
    // A parameter buffer binds its data variable and any shape variable not yet known
    // (match_buffer with symbolic extents).
    for (const BufferBinding &binding : function_.bufferMap) {
      const Buffer &buffer = binding.buffer;
      if (!buffer)
        continue;
      if (buffer->data && buffer->data != binding.param)
        define(buffer->data, buffer->loc);
      bindFreeVars(buffer->shape);
      bindFreeVars(buffer->strides);
      if (buffer->elemOffset)
        bindFreeVars({buffer->elemOffset});
      declareBuffer(buffer);
    }
  }

  void bindFreeVars(const std::vector<Expr> &exprs) {
    for (const Expr &e : exprs)
      if (const auto *var = e.as<VarNode>())
        inScope_[var] = 1;
    for (const Expr &e : exprs)
      visit(e);
  }

  void declareBuffer(const Buffer &buffer) {
    if (buffers_[buffer.get()]++ > 0)
      error(buffer->loc, "buffer " + quoted(buffer->name) + " is declared again inside its own scope");
    everDeclared_[buffer.get()] = true;
  }
  void undeclareBuffer(const Buffer &buffer) {
    int *count = buffers_.find(buffer.get());
    if (count && *count > 0)
      --*count;
  }
  bool declared(const BufferNode *buffer) const {
    const int *count = buffers_.find(buffer);
    return count && *count != 0;
  }

  void checkBufferFields(const Buffer &buffer) {
    Context context(*this, buffer->loc);
    for (const Expr &e : buffer->shape)
      visit(e);
    for (const Expr &e : buffer->strides)
      visit(e);
    visit(buffer->elemOffset);
  }

  void checkAccess(const Buffer &buffer, const std::vector<Expr> &indices, const DataType *storedType) {
    if (!declared(buffer.get()) && reportedBuffers_.insert(buffer.get()).second)
      error(context_, "buffer " + quoted(buffer->name) + " is accessed but not declared in this scope");
    try {
      DataType type = accessType(*buffer, indices);
      if (storedType && *storedType != type)
        error(context_, "store to buffer " + quoted(buffer->name) + " has a value of type " + storedType->str() +
                            " but the access has type " + type.str());
    } catch (const IRTypeError &e) {
      error(context_, e.what());
    }
    for (const Expr &index : indices)
      visit(index);
  }

  void checkIndexType(const Expr &e, const char *what, const Var &loopVar) {
    if (e && !e->type.isIndex())
      error(e->loc, std::string(what) + " of loop " + quoted(loopVar->name) + " has type " + e->type.str() +
                        "; loop bounds must be scalar integers");
  }

  void visit(const VarNode *op) override {
    if (!inScope(op) && reportedVars_.insert(op).second)
      error(context_, "variable " + quoted(op->name) + " is used but not defined in this scope");
  }

  void visit(const LetNode *op) override {
    Context context(*this, op->loc);
    visit(op->value);
    define(op->var, op->loc);
    visit(op->body);
    undefine(op->var);
  }

  void visit(const BufferLoadNode *op) override {
    Context context(*this, op->loc);
    checkAccess(op->buffer, op->indices, nullptr);
  }

  void visit(const BufferStoreNode *op) override {
    Context context(*this, op->loc);
    visit(op->value);
    DataType valueType = op->value ? op->value->type : DataType::voidType();
    checkAccess(op->buffer, op->indices, &valueType);
  }

  void visit(const ForNode *op) override {
    Context context(*this, op->loc);
    visit(op->min);
    visit(op->extent);
    if (!op->loopVar->type.isIndex())
      error(op->loc, "loop variable " + quoted(op->loopVar->name) + " has type " + op->loopVar->type.str() +
                         "; loop variables must be scalar integers");
    checkIndexType(op->min, "start", op->loopVar);
    checkIndexType(op->extent, "extent", op->loopVar);
    define(op->loopVar, op->loc);
    visit(op->body);
    undefine(op->loopVar);
  }

  void visit(const WhileNode *op) override {
    Context context(*this, op->loc);
    IRVisitor::visit(op);
  }

  void visit(const IfThenElseNode *op) override {
    Context context(*this, op->loc);
    IRVisitor::visit(op);
  }

  void visit(const LetStmtNode *op) override {
    Context context(*this, op->loc);
    visit(op->value);
    define(op->var, op->loc);
    visit(op->body);
    undefine(op->var);
  }

  void visit(const AllocateNode *op) override {
    Context context(*this, op->loc);
    for (const Expr &e : op->extents)
      visit(e);
    define(op->bufferVar, op->loc);
    visit(op->body);
    undefine(op->bufferVar);
  }

  void visit(const DeclBufferNode *op) override {
    Context context(*this, op->loc);
    const Buffer &buffer = op->buffer;
    if (op->allocates)
      define(buffer->data, op->loc);
    else
      visit(Expr(buffer->data));
    checkBufferFields(buffer);
    declareBuffer(buffer);
    visit(op->body);
    undeclareBuffer(buffer);
    if (op->allocates)
      undefine(buffer->data);
  }

  void visit(const AllocBufferNode *op) override {
    Context context(*this, op->loc);
    const Buffer &buffer = op->buffer;
    define(buffer->data, op->loc);
    checkBufferFields(buffer);
    declareBuffer(buffer);
    visit(op->body);
    undeclareBuffer(buffer);
    undefine(buffer->data);
  }

  void visit(const AttrStmtNode *op) override {
    Context context(*this, op->loc);
    // thread_extent and virtual_thread introduce their thread variable, as in TVM. Another
    // attribute's variable node only names its subject (a pragma on a loop or thread variable
    // printed before it is bound), which is not a use.
    const VarNode *threadVar = op->threadVar();
    if (threadVar && !parseThreadTag(op->threadTag.view()))
      error(op->loc, "the launch of " + quoted(threadVar->name) + " names no thread index (" +
                         (op->threadTag.empty() ? std::string("no tag") : "'" + op->threadTag.str() + "'") +
                         "; expected blockIdx.x|y|z, threadIdx.x|y|z or vthread)");
    bool bindsThread = threadVar && !inScope(threadVar);
    if (bindsThread)
      inScope_[threadVar] = 1;
    else if (!op->node.as<VarNode>())
      visit(op->node);
    if (op->key.view() == attr::kReduceScope && !op->reducer)
      error(op->loc, "a reduce_scope attribute needs a T.comm_reducer node");
    visit(op->value);
    visit(op->body);
    if (bindsThread)
      inScope_[threadVar] = 0;
  }

  void visit(const AssertStmtNode *op) override {
    Context context(*this, op->loc);
    IRVisitor::visit(op);
  }

  void visit(const EvaluateNode *op) override {
    Context context(*this, op->loc);
    IRVisitor::visit(op);
  }

  void checkRegion(const BufferRegion &region) {
    if (!declared(region.buffer.get()) && reportedBuffers_.insert(region.buffer.get()).second)
      error(context_, "buffer " + quoted(region.buffer->name) + " is named in a block region but not declared");
    for (const Range &range : region.region) {
      visit(range.min);
      visit(range.extent);
    }
  }

  // As TVM's well-formedness check, by buffer: a block that states its regions names in
  // T.reads or T.writes every buffer it loads (its own allocations and matched buffers aside;
  // a nested block's regions count as its accesses), and in T.writes every buffer it stores.
  void checkRegionsCover(const BlockNode &block) {
    struct Accesses : IRVisitor {
      std::vector<const BufferNode *> loads, stores;
      using IRVisitor::visit;
      void visit(const BufferLoadNode *op) override {
        loads.push_back(op->buffer.get());
        IRVisitor::visit(op);
      }
      void visit(const BufferStoreNode *op) override {
        stores.push_back(op->buffer.get());
        IRVisitor::visit(op);
      }
      void visit(const BlockNode *op) override {
        for (const BufferRegion &r : op->reads)
          loads.push_back(r.buffer.get());
        for (const BufferRegion &r : op->writes)
          stores.push_back(r.buffer.get());
      }
    } accesses;
    accesses.visit(block.init);
    accesses.visit(block.body);
    auto named = [](const std::vector<BufferRegion> &regions, const BufferNode *b) {
      return std::any_of(regions.begin(), regions.end(), [&](const BufferRegion &r) { return r.buffer.get() == b; });
    };
    auto own = [&](const BufferNode *b) {
      return std::any_of(block.allocBuffers.begin(), block.allocBuffers.end(),
                         [&](const Buffer &a) { return a.get() == b; }) ||
             std::any_of(block.matchBuffers.begin(), block.matchBuffers.end(),
                         [&](const MatchBufferRegion &m) { return m.buffer.get() == b; }) ||
             !everDeclaredOutside(b);
    };
    std::unordered_set<const BufferNode *> reported;
    for (const BufferNode *b : accesses.stores)
      if (!own(b) && !named(block.writes, b) && reported.insert(b).second)
        error(block.loc, "block \"" + block.name.str() + "\" writes buffer " + quoted(b->name) +
                             ", which its T.writes does not name");
    for (const BufferNode *b : accesses.loads)
      if (!own(b) && !named(block.reads, b) && !named(block.writes, b) && reported.insert(b).second)
        error(block.loc, "block \"" + block.name.str() + "\" reads buffer " + quoted(b->name) +
                             ", which its T.reads does not name");
  }

  // Buffers declared inside the block's body (decl_buffer views, alloc_buffer statements) are
  // the block's own: only buffers in scope at the block need a region.
  bool everDeclaredOutside(const BufferNode *b) const { return declared(b); }

  // Block iteration variables are bound once each and scope the block; its allocations and
  // matched buffers are declared for its init and body.
  void visit(const BlockNode *op) override {
    Context context(*this, op->loc);
    for (const BlockIterVar &iv : op->iterVars) {
      visit(iv.min);
      visit(iv.extent);
      visit(iv.value);
    }
    for (const BlockIterVar &iv : op->iterVars)
      define(iv.var, iv.var->loc.valid() ? iv.var->loc : op->loc);
    visit(op->predicate);
    // A matched buffer's strides and elem_offset may be names the match binds (the region's).
    std::vector<Var> bound;
    for (const MatchBufferRegion &match : op->matchBuffers) {
      checkRegion(match.source);
      define(match.buffer->data, op->loc);
      std::vector<Expr> fields = match.buffer->strides;
      fields.push_back(match.buffer->elemOffset);
      for (const Expr &e : fields)
        if (const auto *var = e.as<VarNode>(); var && !inScope(var)) {
          define(Var(var), op->loc);
          bound.emplace_back(var);
        }
      checkBufferFields(match.buffer);
      declareBuffer(match.buffer);
    }
    for (const Buffer &buffer : op->allocBuffers) {
      define(buffer->data, op->loc);
      checkBufferFields(buffer);
      declareBuffer(buffer);
    }
    for (const BufferRegion &region : op->reads)
      checkRegion(region);
    for (const BufferRegion &region : op->writes)
      checkRegion(region);
    visit(op->init);
    visit(op->body);
    if (!op->reads.empty() || !op->writes.empty())
      checkRegionsCover(*op);
    for (const Buffer &buffer : op->allocBuffers) {
      undeclareBuffer(buffer);
      undefine(buffer->data);
    }
    for (const MatchBufferRegion &match : op->matchBuffers) {
      undeclareBuffer(match.buffer);
      undefine(match.buffer->data);
    }
    for (const Var &var : bound)
      undefine(var);
    for (const BlockIterVar &iv : op->iterVars)
      undefine(iv.var);
  }

  // Maps of one data variable are applied in order: each takes the previous one's output.
  void checkLayoutTransforms() {
    std::unordered_map<const VarNode *, size_t> currentRank;
    for (const LayoutTransform &transform : function_.layoutTransforms) {
      Context context(*this, transform.loc);
      const Buffer &buffer = transform.buffer;
      if (!buffer || !transform.map) {
        error(transform.loc, "layout transform without a buffer or an index map");
        continue;
      }
      if (!everDeclared_.find(buffer.get())) {
        error(transform.loc, "layout transform refers to buffer " + quoted(buffer->name) +
                                 ", which is not declared in function " + quoted(function_.name));
        continue;
      }
      const IndexMap &map = transform.map;
      auto [it, first] = currentRank.try_emplace(buffer->data.get(), buffer->rank());
      if (map->initialIndices.size() != it->second) {
        std::string what = first ? "buffer " + quoted(buffer->name) + " has rank "
                                 : "the previous map of buffer " + quoted(buffer->name) + " produces ";
        size_t takes = map->initialIndices.size();
        error(transform.loc, "index map for buffer " + quoted(buffer->name) + " takes " + std::to_string(takes) +
                                 (takes == 1 ? " index but " : " indices but ") + what +
                                 std::to_string(it->second));
      }
      it->second = map->finalIndices.size();
      for (const Var &index : map->initialIndices)
        define(index, map->loc);
      for (const Expr &e : map->finalIndices)
        visit(e);
      visit(transform.padValue);
      for (const Var &index : map->initialIndices)
        undefine(index);
    }
  }

  const PrimFuncNode &function_;
  SourceRange context_;
  std::vector<Diagnostic> errors_;
  // Open-addressing tables: a verification runs after every pass, and a node per entry in
  // std::unordered_set made allocation a third of its cost. A variable is in scope while its
  // entry is 1, a buffer declared while its count is positive.
  PointerMap<VarNode, int, 32> inScope_;
  PointerMap<BufferNode, int> buffers_;
  PointerMap<BufferNode, bool> everDeclared_;
  std::unordered_set<const VarNode *> reportedVars_;
  std::unordered_set<const BufferNode *> reportedBuffers_;
};

} // namespace

std::vector<Diagnostic> verifyFunction(const PrimFunc &function) {
  if (!function)
    return {};
  return Verifier(*function).run();
}

std::vector<Diagnostic> verifyFunctionOnce(const PrimFunc &function) {
  if (function->knownWellFormed.load(std::memory_order_relaxed))
    return {};
  std::vector<Diagnostic> errors = verifyFunction(function);
  function->knownWellFormed.store(errors.empty(), std::memory_order_relaxed);
  return errors;
}

std::vector<Diagnostic> verifyModule(const Module &module) {
  std::vector<Diagnostic> all;
  for (const PrimFunc &function : module.functions) {
    std::vector<Diagnostic> errors = verifyFunctionOnce(function);
    all.insert(all.end(), std::make_move_iterator(errors.begin()), std::make_move_iterator(errors.end()));
  }
  return all;
}

} // namespace tirlower
