// convert-ssa: gives every definition its own variable. A loop variable, let, allocation or
// buffer declared a second time (typically after unrolling copied a body) gets a fresh variable
// (and a fresh buffer over it), and the uses in its scope follow.
//
// Preconditions: none; any well-formed function (the verifier's scoping). Running it again
// changes nothing.
//
//   for i in range(2):                 for i in range(2):
//       ...                      ->        ...
//   for i in range(2):                 for i_1 in range(2):      (printed name of the copy)
//       A[i] = 0                           A[i_1] = 0
#include "transform/body_pass.h"
#include "transform/passes.h"

#include <unordered_map>
#include <unordered_set>

#include "ir/visitor.h"

namespace tirlower {

namespace {

class SSAConverter : public IRMutator {
public:
  explicit SSAConverter(const PrimFuncNode &func) {
    for (const Var &param : func.params)
      defined_.insert(param.get());
  }

protected:
  using IRMutator::visit;

  Expr visit(const VarNode *op) override {
    auto it = current_.find(op);
    return it == current_.end() || it->second.empty() ? Expr(op) : Expr(it->second.back());
  }

  Buffer mutateBuffer(const Buffer &buffer) override {
    auto redeclared = bufferScope_.find(buffer.get());
    if (redeclared != bufferScope_.end() && !redeclared->second.empty())
      return redeclared->second.back();
    if (!dependsOnRenamed(*buffer))
      return buffer;
    auto cached = rebuilt_.find(buffer.get());
    if (cached != rebuilt_.end() && cached->second.second == epoch_)
      return cached->second.first;
    BufferNode::Fields f = buffer->fields();
    f.data = mutate(Expr(f.data)).as<VarNode>();
    f.shape = mutate(f.shape);
    f.strides = mutate(f.strides);
    if (f.elemOffset)
      f.elemOffset = mutate(f.elemOffset);
    Buffer result = BufferNode::make(std::move(f));
    rebuilt_[buffer.get()] = {result, epoch_};
    return result;
  }

  Stmt visit(const ForNode *op) override {
    Expr min = mutate(op->min), extent = mutate(op->extent);
    Var var = define(op->loopVar);
    Stmt body = mutate(op->body);
    undefine(op->loopVar);
    if (var == op->loopVar && min == op->min && extent == op->extent && body == op->body)
      return Stmt(op);
    return ForNode::make(var, min, extent, op->forKind, body, op->threadTag, op->annotations, op->loc);
  }

  Stmt visit(const LetStmtNode *op) override {
    Expr value = mutate(op->value);
    Var var = define(op->var);
    Stmt body = mutate(op->body);
    undefine(op->var);
    if (var == op->var && value == op->value && body == op->body)
      return Stmt(op);
    return LetStmtNode::make(var, value, body, op->loc);
  }

  Expr visit(const LetNode *op) override {
    Expr value = mutate(op->value);
    Var var = define(op->var);
    Expr body = mutate(op->body);
    undefine(op->var);
    if (var == op->var && value == op->value && body == op->body)
      return Expr(op);
    return LetNode::make(var, value, body, op->loc);
  }

  Stmt visit(const AllocateNode *op) override {
    std::vector<Expr> extents = mutate(op->extents);
    Var var = define(op->bufferVar);
    Stmt body = mutate(op->body);
    undefine(op->bufferVar);
    if (var == op->bufferVar && body == op->body && extents == op->extents)
      return Stmt(op);
    return AllocateNode::make(var, op->dtype, std::move(extents), op->scope, body, op->loc);
  }

  Stmt visit(const AllocBufferNode *op) override {
    return declare(op, op->buffer, true,
                   [&](const Buffer &b, const Stmt &body) { return AllocBufferNode::make(b, body, op->loc); });
  }

  Stmt visit(const DeclBufferNode *op) override {
    return declare(op, op->buffer, op->allocates, [&](const Buffer &b, const Stmt &body) {
      return DeclBufferNode::make(b, op->allocates, body, op->loc);
    });
  }

private:
  template <typename Make> Stmt declare(const StmtNode *op, const Buffer &buffer, bool allocates, Make make) {
    Var data = allocates ? define(buffer->data) : buffer->data;
    bool redeclared = !declared_.insert(buffer.get()).second;
    Buffer b = mutateBuffer(buffer);
    if (redeclared && b == buffer) {
      BufferNode::Fields f = buffer->fields();
      b = BufferNode::make(std::move(f)); // a second declaration of one buffer: a new object
    }
    bufferScope_[buffer.get()].push_back(b);
    Stmt oldBody = op->kind() == StmtKind::AllocBuffer ? static_cast<const AllocBufferNode *>(op)->body
                                                       : static_cast<const DeclBufferNode *>(op)->body;
    Stmt body = mutate(oldBody);
    bufferScope_[buffer.get()].pop_back();
    if (allocates)
      undefine(buffer->data);
    if (b == buffer && body == oldBody)
      return Stmt(op);
    (void)data;
    return make(b, body);
  }

  Var define(const Var &var) {
    Var result = var;
    if (!defined_.insert(var.get()).second) {
      result = var->type.isHandle() ? VarNode::makeHandle(var->name, var->pointeeType, var->storageScope, var->loc)
                                    : VarNode::make(var->name, var->type, var->loc);
      ++epoch_;
    }
    current_[var.get()].push_back(result);
    return result;
  }

  void undefine(const Var &var) {
    auto &stack = current_[var.get()];
    if (stack.back() != var)
      ++epoch_;
    stack.pop_back();
  }

  bool dependsOnRenamed(const BufferNode &buffer) {
    struct Finder : IRVisitor {
      const std::unordered_map<const VarNode *, std::vector<Var>> &current;
      bool found = false;
      explicit Finder(const std::unordered_map<const VarNode *, std::vector<Var>> &c) : current(c) {}
      using IRVisitor::visit;
      void visit(const VarNode *op) override {
        auto it = current.find(op);
        found |= it != current.end() && !it->second.empty() && it->second.back().get() != op;
      }
    } finder(current_);
    finder.visit(Expr(buffer.data));
    for (const Expr &e : buffer.shape)
      finder.visit(e);
    for (const Expr &e : buffer.strides)
      finder.visit(e);
    finder.visit(buffer.elemOffset);
    return finder.found;
  }

  std::unordered_set<const VarNode *> defined_;
  std::unordered_set<const BufferNode *> declared_;
  std::unordered_map<const VarNode *, std::vector<Var>> current_;
  std::unordered_map<const BufferNode *, std::vector<Buffer>> bufferScope_;
  std::unordered_map<const BufferNode *, std::pair<Buffer, uint64_t>> rebuilt_;
  uint64_t epoch_ = 0;
};

} // namespace

PassInfo convertSSAPassInfo() {
  PassInfo info;
  info.name = "convert-ssa";
  info.summary = "give every loop variable, let, allocation and buffer declaration its own variable";
  info.create = [](const PassOptions &) {
    return std::make_unique<BodyPass>(
        [](const PrimFunc &func, PassContext &) { return SSAConverter(*func).mutate(func->body); });
  };
  return info;
}

} // namespace tirlower
