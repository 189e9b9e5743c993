// unroll: replaces each T.unroll loop with a constant extent by one copy of its body per
// iteration, the loop variable replaced by its value. Copies of definitions inside the body
// (loops, lets, allocations) are then made unique with convert-ssa. The option `limit` (default
// 1024) bounds extent x body size, so a mistaken T.unroll cannot blow up the program; a loop
// over the limit, or with a non-constant extent, is an error that says which.
//
// Preconditions: none; T.unroll loops must have constant extents (an error otherwise).
//
//   for k in T.unroll(2):          A[0] = B[0]
//       A[k] = B[k]          ->    A[1] = B[1]
#include "transform/passes.h"

#include <cstdint>

#include "ir/visitor.h"

namespace tirlower {

namespace {

// The largest `limit` accepted: unrolling that many statements takes about a second, so any
// limit bounds the work done (docs/passes.md).
constexpr int64_t kMaxLimit = 1 << 20;
const PassOption<int64_t> kLimit{integerOption("limit", "1024", "most statements one unrolled loop may produce", 1,
                                               kMaxLimit)};

// a * b, or SIZE_MAX when it does not fit (nested loops cannot wrap the count around).
size_t saturatingMul(size_t a, size_t b) {
  return b != 0 && a > SIZE_MAX / b ? SIZE_MAX : a * b;
}

size_t statementCount(const Stmt &s) {
  struct Counter : IRVisitor {
    size_t count = 0;
    using IRVisitor::visit;
    void visit(const BufferStoreNode *op) override {
      ++count;
      IRVisitor::visit(op);
    }
    void visit(const EvaluateNode *op) override {
      ++count;
      IRVisitor::visit(op);
    }
    void visit(const ForNode *op) override {
      const int64_t *extent = asConstInt(op->extent);
      Counter inner;
      inner.visit(op->body);
      size_t copies = saturatingMul(inner.count, static_cast<size_t>(extent && *extent > 0 ? *extent : 1));
      count = count > SIZE_MAX - copies ? SIZE_MAX : count + copies;
    }
  } counter;
  counter.visit(s);
  return std::max<size_t>(counter.count, 1);
}

class Unroller : public IRMutator {
public:
  explicit Unroller(int64_t limit) : limit_(limit) {}
  bool unrolled = false;

protected:
  using IRMutator::visit;

  Stmt visit(const ForNode *op) override {
    Stmt s = IRMutator::visit(op);
    if (op->forKind != ForKind::Unrolled)
      return s;
    const auto *loop = s.as<ForNode>();
    const int64_t *extent = asConstInt(loop->extent);
    const int64_t *min = asConstInt(loop->min);
    if (!extent || !min)
      throw CompileError(op->loc, "cannot unroll loop '" + op->loopVar->name.str() +
                                      "': its bounds are not constant (use T.serial for such loops)");
    size_t cost = saturatingMul(static_cast<size_t>(std::max<int64_t>(*extent, 0)), statementCount(loop->body));
    if (cost > static_cast<size_t>(limit_))
      throw CompileError(op->loc, "unrolling loop '" + op->loopVar->name.str() + "' would create " +
                                      (cost == SIZE_MAX ? std::string("more than 2^64") : std::to_string(cost)) +
                                      " statements, more than the limit of " +
                                      std::to_string(limit_) + " (raise it with unroll{limit=N})");
    std::vector<Stmt> copies;
    for (int64_t k = 0; k < *extent; ++k)
      copies.push_back(substitute(loop->body, {{loop->loopVar, IntImmNode::make(loop->loopVar->type, *min + k)}}));
    unrolled = true;
    return SeqStmtNode::make(std::move(copies), op->loc);
  }

private:
  int64_t limit_;
};

class UnrollPass : public Pass {
public:
  explicit UnrollPass(int64_t limit) : limit_(limit) {}

  std::optional<Module> run(Module module, PassContext &ctx) override {
    Module result = std::move(module);
    bool any = false;
    for (PrimFunc &func : result.functions) {
      Unroller unroller(limit_);
      Stmt body = unroller.mutate(func->body);
      if (body == func->body)
        continue;
      any |= unroller.unrolled;
      PrimFuncNode::Fields f = func->fields();
      f.body = body;
      func = PrimFuncNode::make(std::move(f));
    }
    if (!any)
      return result;
    return convertSSAPassInfo().create({})->run(result, ctx);
  }

private:
  int64_t limit_;
};

} // namespace

PassInfo unrollPassInfo() {
  PassInfo info;
  info.name = "unroll";
  info.summary = "unroll T.unroll loops with constant bounds, then make the copies' definitions unique";
  info.options = {kLimit};
  info.create = [](const PassOptions &options) { return std::make_unique<UnrollPass>(kLimit.of(options)); };
  return info;
}

} // namespace tirlower
