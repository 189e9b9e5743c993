// vectorize: turns each T.vectorized loop with a constant extent into vector code: the loop
// variable becomes Ramp(min, 1, lanes), and loads, stores, arithmetic, casts, selects and math
// calls become vector operations (Ramp where the lanes stay affine, Broadcast for lane-invariant
// operands). A loop that cannot be vectorized as a whole (a nested loop, a lane-dependent
// condition or if_then_else, a vector index outside the last dimension, a write of one element
// from every lane) is kept as a serial loop, and --remarks says why.
//
// Preconditions: none; after flatten every index is in the last dimension, so more loops
// vectorize. A vectorized loop with a non-constant extent is an error.
//
//   for i in T.vectorized(4):            B[T.Ramp(0, 1, 4)] = A[T.Ramp(0, 1, 4)] +
//       B[i] = A[i] + T.float32(1)  ->                         T.Broadcast(T.float32(1), 4)
#include "transform/body_pass.h"
#include "transform/passes.h"

#include "arith/analyzer.h"
#include "ir/functor.h"
#include "ir/intrinsics.h"
#include "ir/visitor.h"
#include "arith/expr_util.h"

#include <optional>
#include <string>

namespace tirlower {

namespace {

// The body of a vectorized loop, one method per node kind. What it cannot widen is a refusal,
// not an exception: the method returns null and refuse() keeps the first reason, which every
// enclosing method passes on by returning null for a null child.
class Vectorizer : private StmtFunctor<Stmt(const Stmt &)>, private ExprFunctor<Expr(const Expr &)> {
public:
  Vectorizer(const Var &var, Expr min, int lanes) : var_(var), min_(std::move(min)), lanes_(lanes) {}

  // The widened body, or null with refusal() saying why it cannot be widened.
  Stmt stmt(const Stmt &s) { return refusal_.empty() ? visitStmt(s) : Stmt(); }
  const std::string &refusal() const { return refusal_; }

private:
  std::nullptr_t refuse(std::string reason) {
    if (refusal_.empty())
      refusal_ = std::move(reason);
    return nullptr;
  }
  // Whether every operand is a scalar or a vector of `lanes` lanes (one of them is); a refusal
  // naming two types that differ (as the node's typing rules would) when one is not.
  bool lanesAgree(const std::string &what, const std::vector<Expr> &operands, int lanes) {
    for (const Expr &wide : operands)
      if (wide->type.lanes() == lanes)
        for (const Expr &e : operands)
          if (e->type.isVector() && e->type.lanes() != lanes) {
            refuse("operands of " + what + " have different types: " + wide->type.str() + " and " + e->type.str());
            return false;
          }
    return true;
  }

  Stmt visitBlock(const BlockNode *) override { return refuse("it contains a block (lower blocks first)"); }
  Stmt visitSeqStmt(const SeqStmtNode *op) override {
    std::vector<Stmt> out;
    for (const Stmt &child : op->stmts) {
      out.push_back(stmt(child));
      if (!out.back())
        return nullptr;
    }
    return SeqStmtNode::make(std::move(out), op->loc);
  }
  Stmt visitIfThenElse(const IfThenElseNode *op) override {
    Expr c = expr(op->condition);
    if (!c)
      return nullptr;
    if (c->type.isVector())
      return refuse("the condition of an if depends on the lane");
    Stmt thenCase = stmt(op->thenCase), elseCase = op->elseCase ? stmt(op->elseCase) : Stmt();
    if (!thenCase || (op->elseCase && !elseCase))
      return nullptr;
    return IfThenElseNode::make(c, thenCase, elseCase, op->loc);
  }
  Stmt visitLetStmt(const LetStmtNode *op) override {
    Expr value = expr(op->value);
    if (!value)
      return nullptr;
    Var var = value->type.isScalar() ? op->var : VarNode::make(op->var->name, value->type, op->var->loc);
    lets_.emplace_back(op->var.get(), var);
    Stmt body = stmt(op->body);
    lets_.pop_back();
    return body ? LetStmtNode::make(var, value, body, op->loc) : nullptr;
  }
  Stmt visitAssertStmt(const AssertStmtNode *op) override {
    Expr c = expr(op->condition);
    if (!c)
      return nullptr;
    if (c->type.isVector())
      return refuse("an assert condition depends on the lane");
    return AssertStmtNode::make(c, op->message, op->loc);
  }
  Stmt visitEvaluate(const EvaluateNode *op) override {
    if (op->value->kind() == ExprKind::IntImm)
      return Stmt(op);
    return refuse("it evaluates an expression for its effect");
  }
  Stmt visitFor(const ForNode *) override { return refuse("it contains a nested loop"); }
  Stmt visitWhile(const WhileNode *) override { return refuse("it contains a while loop"); }
  Stmt visitAllocate(const AllocateNode *) override { return refuse("it declares a buffer"); }
  Stmt visitAllocBuffer(const AllocBufferNode *) override { return refuse("it declares a buffer"); }
  Stmt visitDeclBuffer(const DeclBufferNode *) override { return refuse("it declares a buffer"); }
  Stmt visitAttrStmt(const AttrStmtNode *) override { return refuse("it contains an attribute scope"); }

  Stmt visitBufferStore(const BufferStoreNode *op) override {
    std::optional<std::vector<Expr>> indices = accessIndices(op->indices);
    Expr value = indices ? expr(op->value) : Expr();
    if (!value)
      return nullptr;
    int indexLanes = indices->back()->type.lanes();
    const std::string name = op->buffer->name.str();
    if (indexLanes == 1 && value->type.lanes() != op->buffer->dtype.lanes())
      return refuse("every lane writes the same element of '" + name + "'");
    if (indexLanes > 1 && value->type.lanes() == op->buffer->dtype.lanes()) {
      if (op->buffer->dtype.isVector())
        return refuse("a lane-invariant value is stored to vector elements of '" + name + "'");
      value = BroadcastNode::make(value, indexLanes, op->value->loc);
    }
    if (value->type.lanes() != indexLanes * op->buffer->dtype.lanes())
      return refuse("cannot store a value of type " + value->type.str() + " into buffer '" + name + "': expected " +
                    op->buffer->dtype.withLanes(indexLanes * op->buffer->dtype.lanes()).str());
    return BufferStoreNode::make(op->buffer, value, std::move(*indices), op->loc);
  }

  // The widened indices of an access; nullopt (refused) when one is null or a lane-dependent
  // index is not the last.
  std::optional<std::vector<Expr>> accessIndices(const std::vector<Expr> &indices) {
    std::vector<Expr> out;
    for (size_t k = 0; k < indices.size(); ++k) {
      out.push_back(expr(indices[k]));
      if (!out.back())
        return std::nullopt;
      if (out.back()->type.isVector() && k + 1 != indices.size()) {
        refuse("a buffer index outside the last dimension depends on the lane");
        return std::nullopt;
      }
    }
    return out;
  }

  Expr broadcast(const Expr &e, int lanes) { return e->type.isVector() ? e : BroadcastNode::make(e, lanes, e->loc); }

  // Ramp view of an integer expression: (base, stride) with Broadcast = stride 0.
  static bool rampParts(const Expr &e, Expr &base, Expr &stride) {
    if (const auto *ramp = e.as<RampNode>()) {
      base = ramp->base;
      stride = ramp->stride;
      return true;
    }
    if (const auto *bc = e.as<BroadcastNode>(); bc && bc->value->type.isIndex()) {
      base = bc->value;
      stride = IntImmNode::make(bc->value->type, 0);
      return true;
    }
    if (e->type.isScalar() && e->type.isIndex()) {
      base = e;
      stride = IntImmNode::make(e->type, 0);
      return true;
    }
    return false;
  }

  Expr makeRamp(Expr base, Expr stride, SourceRange loc) {
    base = analyzer_.simplify(base);
    stride = analyzer_.simplify(stride);
    if (const int64_t *s = asConstInt(stride); s && *s == 0)
      return BroadcastNode::make(base, lanes_, loc);
    return RampNode::make(base, stride, lanes_, loc);
  }

  Expr visitBinary(const BinaryNode *op) override {
    Expr a = expr(op->a), b = a ? expr(op->b) : Expr();
    if (!b)
      return nullptr;
    if (a->type.isScalar() && b->type.isScalar())
      return a == op->a && b == op->b ? Expr(op) : BinaryNode::make(op->op, a, b, op->loc);
    int lanes = std::max(a->type.lanes(), b->type.lanes());
    if (!lanesAgree(binaryOpName(op->op), {a, b}, lanes))
      return nullptr;
    Expr ab, as, bb, bs;
    if (a->type.element().isIndex() && rampParts(a, ab, as) && rampParts(b, bb, bs) && lanes == lanes_) {
      if (op->op == BinaryOp::Add)
        return makeRamp(BinaryNode::make(BinaryOp::Add, ab, bb), BinaryNode::make(BinaryOp::Add, as, bs), op->loc);
      if (op->op == BinaryOp::Sub)
        return makeRamp(BinaryNode::make(BinaryOp::Sub, ab, bb), BinaryNode::make(BinaryOp::Sub, as, bs), op->loc);
      if (op->op == BinaryOp::Mul && b->type.isScalar())
        return makeRamp(BinaryNode::make(BinaryOp::Mul, ab, b), BinaryNode::make(BinaryOp::Mul, as, b), op->loc);
      if (op->op == BinaryOp::Mul && a->type.isScalar())
        return makeRamp(BinaryNode::make(BinaryOp::Mul, a, bb), BinaryNode::make(BinaryOp::Mul, a, bs), op->loc);
    }
    return BinaryNode::make(op->op, broadcast(a, lanes), broadcast(b, lanes), op->loc);
  }

  Expr expr(const Expr &e) { return refusal_.empty() ? visitExpr(e) : Expr(); }

  Expr visitVar(const VarNode *op) override {
    if (op == var_.get())
      return RampNode::make(min_, IntImmNode::make(var_->type, 1), lanes_, op->loc);
    for (auto it = lets_.rbegin(); it != lets_.rend(); ++it)
      if (it->first == op)
        return it->second;
    return Expr(op);
  }
  Expr visitIntImm(const IntImmNode *op) override { return Expr(op); }
  Expr visitFloatImm(const FloatImmNode *op) override { return Expr(op); }
  Expr visitStringImm(const StringImmNode *op) override { return Expr(op); }
  Expr visitNot(const NotNode *op) override {
    Expr a = expr(op->a);
    return a ? NotNode::make(a, op->loc) : nullptr;
  }
  Expr visitSelect(const SelectNode *op) override {
    Expr c = expr(op->condition), t = c ? expr(op->trueValue) : Expr(), f = t ? expr(op->falseValue) : Expr();
    if (!f)
      return nullptr;
    int lanes = std::max({c->type.lanes(), t->type.lanes(), f->type.lanes()});
    if (lanes == 1)
      return SelectNode::make(c, t, f, op->loc);
    if (!lanesAgree("select", {c, t, f}, lanes))
      return nullptr;
    return SelectNode::make(c->type.isScalar() ? c : broadcast(c, lanes), broadcast(t, lanes), broadcast(f, lanes),
                            op->loc);
  }
  Expr visitCast(const CastNode *op) override {
    Expr v = expr(op->value);
    return v ? CastNode::make(op->type.withLanes(v->type.lanes()), v, op->loc) : nullptr;
  }
  Expr visitRamp(const RampNode *op) override { return laneInvariant(op); }
  Expr visitBroadcast(const BroadcastNode *op) override { return laneInvariant(op); }
  Expr laneInvariant(const ExprNode *op) {
    Expr e(op);
    if (usesVar(e, var_.get()))
      return refuse("it already contains vector expressions that depend on the lane");
    return e;
  }
  Expr visitLet(const LetNode *) override { return refuse("it contains a let expression"); }
  Expr visitBufferLoad(const BufferLoadNode *op) override {
    std::optional<std::vector<Expr>> indices = accessIndices(op->indices);
    return indices ? BufferLoadNode::make(op->buffer, std::move(*indices), op->loc) : nullptr;
  }

  // A call with lane-dependent arguments becomes one vector call when the intrinsic table says
  // it applies lane by lane (its scalar arguments broadcast).
  Expr visitCall(const CallNode *op) override {
    std::vector<Expr> args;
    int lanes = 1;
    for (const Expr &a : op->args) {
      args.push_back(expr(a));
      if (!args.back())
        return nullptr;
      lanes = std::max(lanes, args.back()->type.lanes());
    }
    if (lanes == 1)
      return CallNode::make(op->type, op->op, std::move(args), op->loc);
    const IntrinsicInfo *info = op->intrinsic;
    if (info && info->rule == TypeRule::Extern)
      return refuse("it calls an external function with lane-dependent arguments");
    if (!appliesLanewise(*op))
      return refuse("T." + op->op.str() + " does not apply lane by lane");
    if (info->id == IntrinsicId::IfThenElse && args[0]->type.isVector())
      return refuse("an if_then_else condition depends on the lane");
    size_t first = info->id == IntrinsicId::IfThenElse ? 1 : 0;
    if (!lanesAgree("T." + op->op.str(), args, lanes))
      return nullptr;
    for (size_t k = first; k < args.size(); ++k)
      args[k] = broadcast(args[k], lanes);
    return CallNode::make(op->type.withLanes(lanes), op->op, std::move(args), op->loc);
  }

  Var var_;
  Expr min_;
  int lanes_;
  std::vector<std::pair<const VarNode *, Var>> lets_;
  Analyzer analyzer_;
  std::string refusal_; // the first reason the body cannot be widened; empty while it can
};

class LoopVectorizer : public IRMutator {
public:
  explicit LoopVectorizer(PassContext &ctx) : ctx_(ctx) {}

protected:
  using IRMutator::visit;

  Stmt visit(const ForNode *op) override {
    Stmt s = IRMutator::visit(op);
    if (op->forKind != ForKind::Vectorized)
      return s;
    const auto *loop = s.as<ForNode>();
    const int64_t *extent = asConstInt(loop->extent);
    if (!extent)
      throw CompileError(op->loc, "vectorized loop '" + op->loopVar->name.str() + "' needs a constant extent");
    if (*extent < 1 || *extent > 65535)
      throw CompileError(op->loc, "vectorized loop '" + op->loopVar->name.str() + "' has extent " +
                                      std::to_string(*extent) + "; vector lanes must be within [1, 65535]");
    if (*extent == 1)
      return substitute(loop->body, {{loop->loopVar, loop->min}});
    Vectorizer vectorizer(loop->loopVar, loop->min, static_cast<int>(*extent));
    if (Stmt body = vectorizer.stmt(loop->body)) {
      if (ctx_.remarks)
        ctx_.diagnostics.remark(op->loc, "vectorized loop '" + op->loopVar->name.str() + "' with " +
                                             std::to_string(*extent) + " lanes");
      return body;
    }
    if (ctx_.remarks)
      ctx_.diagnostics.remark(op->loc, "loop '" + op->loopVar->name.str() + "' not vectorized: " +
                                           vectorizer.refusal() + "; kept as a serial loop");
    return ForNode::make(loop->loopVar, loop->min, loop->extent, ForKind::Serial, loop->body, Symbol(),
                         loop->annotations, op->loc);
  }

private:
  PassContext &ctx_;
};

} // namespace

PassInfo vectorizePassInfo() {
  PassInfo info;
  info.name = "vectorize";
  info.summary = "turn T.vectorized loops into Ramp/Broadcast vector code, or serial loops with a remark";
  info.create = [](const PassOptions &) {
    return std::make_unique<BodyPass>(
        [](const PrimFunc &func, PassContext &ctx) { return LoopVectorizer(ctx).mutate(func->body); });
  };
  return info;
}

} // namespace tirlower
