#include "ir/alpha_equality.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "ir/equality.h"
#include "ir/attrs.h"

namespace tirlower {

namespace {

// A float constant as its type holds it: a float16, bfloat16 or float32 constant read from
// text as a double (TVM prints 0.088397790055248615 for a float16 that tirlower prints as 0.0884)
// is the nearest value of its type, rounded to nearest even.
double atPrecision(DataType type, double v) {
  if (!std::isfinite(v) || v == 0 || type.bits() >= 64)
    return v;
  if (type.bits() == 32)
    return static_cast<float>(v);
  int significand = type.code() == DataType::Code::BFloat ? 8 : 11; // bits, the implicit one included
  int minExponent = type.code() == DataType::Code::BFloat ? -125 : -13; // of the smallest normal, frexp's
  int exponent;
  std::frexp(v, &exponent);
  int quantum = std::max(exponent, minExponent) - significand; // subnormals share the smallest step
  double rounded = std::ldexp(std::nearbyint(std::ldexp(v, -quantum)), quantum);
  double largest = type.code() == DataType::Code::BFloat ? 3.3895313892515355e38 : 65504.0;
  return std::fabs(rounded) > largest ? std::copysign(HUGE_VAL, v) : rounded;
}

class AlphaEquality {
public:
  explicit AlphaEquality(std::string *why) : why_(why) {}

  bool functions(const PrimFuncNode &a, const PrimFuncNode &b) {
    if (a.params.size() != b.params.size())
      return fail("parameter count " + std::to_string(a.params.size()) + " vs " + std::to_string(b.params.size()));
    for (size_t k = 0; k < a.params.size(); ++k) {
      if (!var(a.params[k].get(), b.params[k].get()))
        return fail("parameter " + a.params[k]->name.str());
      Buffer x = a.bufferFor(a.params[k]), y = b.bufferFor(b.params[k]);
      if (!x != !y || (x && !buffer(x.get(), y.get())))
        return fail("parameter " + a.params[k]->name.str() + "'s buffer");
    }
    if (!attrsEqual(a.attrs, b.attrs))
      return fail("function attributes");
    if (a.layoutTransforms.size() != b.layoutTransforms.size())
      return fail("layout transforms");
    return stmt(a.body, b.body);
  }

private:
  bool fail(const std::string &what) {
    if (why_ && why_->empty())
      *why_ = what;
    return false;
  }

  static bool attrsEqual(const AttrValue &a, const AttrValue &b) {
    AttrValue x = a, y = b;
    if (x.kind() == AttrValue::Kind::Dict)
      x.erase(attr::kGlobalSymbol);
    if (y.kind() == AttrValue::Kind::Dict)
      y.erase(attr::kGlobalSymbol);
    return x.empty() && y.empty() ? true : x == y;
  }

  // Pairs `a` with `b` on first meeting; afterwards only with each other.
  template <typename T>
  static bool pair(std::unordered_map<const T *, const T *> &forward,
                   std::unordered_map<const T *, const T *> &backward, const T *a, const T *b) {
    auto f = forward.find(a);
    auto g = backward.find(b);
    if (f != forward.end() || g != backward.end())
      return f != forward.end() && g != backward.end() && f->second == b && g->second == a;
    forward.emplace(a, b);
    backward.emplace(b, a);
    return true;
  }

  bool var(const VarNode *a, const VarNode *b) {
    if (!a || !b)
      return a == b;
    return a->type == b->type && pair(vars_, varsBack_, a, b);
  }

  bool buffer(const BufferNode *a, const BufferNode *b) {
    if (!a || !b)
      return a == b;
    auto known = buffers_.find(a);
    if (known != buffers_.end() || buffersBack_.count(b))
      return known != buffers_.end() && known->second == b;
    if (a->dtype != b->dtype || a->scope != b->scope || a->axisSeparators != b->axisSeparators ||
        a->layout != b->layout)
      return fail("buffer " + a->name.str() + ": type, scope, separators or layout");
    // Pair first (a buffer's fields may use the buffer's own data variable), then compare.
    buffers_.emplace(a, b);
    buffersBack_.emplace(b, a);
    if (!var(a->data.get(), b->data.get()))
      return fail("buffer " + a->name.str() + "'s data");
    if (!exprs(a->shape, b->shape))
      return fail("buffer " + a->name.str() + "'s shape");
    if (!exprs(a->strides, b->strides))
      return fail("buffer " + a->name.str() + "'s strides");
    bool zeroA = !a->elemOffset || (asConstInt(a->elemOffset) && *asConstInt(a->elemOffset) == 0);
    bool zeroB = !b->elemOffset || (asConstInt(b->elemOffset) && *asConstInt(b->elemOffset) == 0);
    if (!(zeroA && zeroB) && !expr(a->elemOffset, b->elemOffset))
      return fail("buffer " + a->name.str() + "'s elem_offset");
    return true;
  }

  bool exprs(const std::vector<Expr> &a, const std::vector<Expr> &b) {
    if (a.size() != b.size())
      return false;
    for (size_t k = 0; k < a.size(); ++k)
      if (!expr(a[k], b[k]))
        return false;
    return true;
  }

  bool expr(const Expr &a, const Expr &b) {
    if (!a || !b)
      return !a && !b;
    if (a->kind() != b->kind() || a->type != b->type)
      return false;
    // kind-switch: compares two nodes of the same kind side by side; a functor walks one tree.
    switch (a->kind()) {
    case ExprKind::Var: return var(static_cast<const VarNode *>(a.get()), static_cast<const VarNode *>(b.get()));
    case ExprKind::FloatImm:
      return atPrecision(a->type, a.as<FloatImmNode>()->value) == atPrecision(b->type, b.as<FloatImmNode>()->value);
    case ExprKind::IntImm:
    case ExprKind::StringImm: return structurallyEqual(a, b);
    case ExprKind::Binary: {
      auto &x = *a.as<BinaryNode>(), &y = *b.as<BinaryNode>();
      return x.op == y.op && expr(x.a, y.a) && expr(x.b, y.b);
    }
    case ExprKind::Not: return expr(a.as<NotNode>()->a, b.as<NotNode>()->a);
    case ExprKind::Select: {
      auto &x = *a.as<SelectNode>(), &y = *b.as<SelectNode>();
      return expr(x.condition, y.condition) && expr(x.trueValue, y.trueValue) && expr(x.falseValue, y.falseValue);
    }
    case ExprKind::Cast: return expr(a.as<CastNode>()->value, b.as<CastNode>()->value);
    case ExprKind::Ramp: {
      auto &x = *a.as<RampNode>(), &y = *b.as<RampNode>();
      return x.lanes == y.lanes && expr(x.base, y.base) && expr(x.stride, y.stride);
    }
    case ExprKind::Broadcast: {
      auto &x = *a.as<BroadcastNode>(), &y = *b.as<BroadcastNode>();
      return x.lanes == y.lanes && expr(x.value, y.value);
    }
    case ExprKind::Let: {
      auto &x = *a.as<LetNode>(), &y = *b.as<LetNode>();
      return expr(x.value, y.value) && var(x.var.get(), y.var.get()) && expr(x.body, y.body);
    }
    case ExprKind::Call: {
      auto &x = *a.as<CallNode>(), &y = *b.as<CallNode>();
      return x.op == y.op && exprs(x.args, y.args);
    }
    case ExprKind::BufferLoad: {
      auto &x = *a.as<BufferLoadNode>(), &y = *b.as<BufferLoadNode>();
      return buffer(x.buffer.get(), y.buffer.get()) && exprs(x.indices, y.indices);
    }
    }
    return false;
  }

  bool region(const BufferRegion &a, const BufferRegion &b) {
    if (!buffer(a.buffer.get(), b.buffer.get()) || a.region.size() != b.region.size())
      return false;
    for (size_t k = 0; k < a.region.size(); ++k)
      if (!expr(a.region[k].min, b.region[k].min) || !expr(a.region[k].extent, b.region[k].extent))
        return false;
    return true;
  }

  bool regions(const std::vector<BufferRegion> &a, const std::vector<BufferRegion> &b) {
    if (a.size() != b.size())
      return false;
    for (size_t k = 0; k < a.size(); ++k)
      if (!region(a[k], b[k]))
        return false;
    return true;
  }

  bool block(const BlockNode &a, const BlockNode &b) {
    if (a.iterVars.size() != b.iterVars.size())
      return fail("block " + a.name.str() + ": iteration variable count");
    for (size_t k = 0; k < a.iterVars.size(); ++k) {
      const BlockIterVar &x = a.iterVars[k], &y = b.iterVars[k];
      if (x.kind != y.kind || !expr(x.value, y.value) || !expr(x.min, y.min) || !expr(x.extent, y.extent) ||
          !var(x.var.get(), y.var.get()))
        return fail("block " + a.name.str() + ": iteration variable " + x.var->name.str());
    }
    if (a.allocBuffers.size() != b.allocBuffers.size())
      return fail("block " + a.name.str() + ": allocations");
    for (size_t k = 0; k < a.allocBuffers.size(); ++k)
      if (!buffer(a.allocBuffers[k].get(), b.allocBuffers[k].get()))
        return fail("block " + a.name.str() + ": allocation " + a.allocBuffers[k]->name.str());
    if (a.matchBuffers.size() != b.matchBuffers.size())
      return fail("block " + a.name.str() + ": match_buffer count");
    for (size_t k = 0; k < a.matchBuffers.size(); ++k)
      if (!region(a.matchBuffers[k].source, b.matchBuffers[k].source) ||
          !buffer(a.matchBuffers[k].buffer.get(), b.matchBuffers[k].buffer.get()))
        return fail("block " + a.name.str() + ": match_buffer " + a.matchBuffers[k].buffer->name.str());
    if (!expr(a.predicate, b.predicate))
      return fail("block " + a.name.str() + ": predicate");
    if (!regions(a.reads, b.reads))
      return fail("block " + a.name.str() + ": T.reads");
    if (!regions(a.writes, b.writes))
      return fail("block " + a.name.str() + ": T.writes");
    if (!attrsEqual(a.annotations, b.annotations))
      return fail("block " + a.name.str() + ": annotations");
    if (!a.init != !b.init || (a.init && !stmt(a.init, b.init)))
      return fail("block " + a.name.str() + ": init");
    return stmt(a.body, b.body);
  }

  bool loop(const ForNode &x, const ForNode &y) {
    if (x.forKind != y.forKind || x.threadTag != y.threadTag || !attrsEqual(x.annotations, y.annotations))
      return fail("loop " + x.loopVar->name.str() + ": kind, thread or annotations");
    if (!expr(x.min, y.min) || !expr(x.extent, y.extent))
      return fail("loop " + x.loopVar->name.str() + ": range");
    return (var(x.loopVar.get(), y.loopVar.get()) || fail("loop variable " + x.loopVar->name.str())) &&
           stmt(x.body, y.body);
  }

  bool attr(const AttrStmtNode &x, const AttrStmtNode &y) {
    if (x.key != y.key || x.threadTag != y.threadTag || !expr(x.node, y.node) || !expr(x.value, y.value))
      return fail("attr " + x.key.str());
    if (!x.reducer != !y.reducer)
      return fail("attr " + x.key.str() + ": reducer");
    if (x.reducer) {
      const CommReducerNode &r = *x.reducer, &s = *y.reducer;
      if (r.lhs.size() != s.lhs.size())
        return fail("attr " + x.key.str() + ": reducer");
      for (size_t k = 0; k < r.lhs.size(); ++k)
        if (!var(r.lhs[k].get(), s.lhs[k].get()) || !var(r.rhs[k].get(), s.rhs[k].get()))
          return fail("attr " + x.key.str() + ": reducer");
      if (!exprs(r.result, s.result) || !exprs(r.identity, s.identity))
        return fail("attr " + x.key.str() + ": reducer");
    }
    return stmt(x.body, y.body);
  }

  bool stmt(const Stmt &a, const Stmt &b) {
    if (!a || !b)
      return !a && !b ? true : fail("a statement against none");
    if (a->kind() != b->kind())
      return fail(std::string(stmtKindName(a->kind())) + " vs " + stmtKindName(b->kind()));
    const char *kind = stmtKindName(a->kind());
    // kind-switch: compares two nodes of the same kind side by side; a functor walks one tree.
    switch (a->kind()) {
    case StmtKind::BufferStore: {
      auto &x = *a.as<BufferStoreNode>(), &y = *b.as<BufferStoreNode>();
      if (!buffer(x.buffer.get(), y.buffer.get()) || !exprs(x.indices, y.indices))
        return fail("store to " + x.buffer->name.str() + ": buffer or indices");
      return expr(x.value, y.value) || fail("store to " + x.buffer->name.str() + ": value");
    }
    case StmtKind::For: return loop(*a.as<ForNode>(), *b.as<ForNode>());
    case StmtKind::While: {
      auto &x = *a.as<WhileNode>(), &y = *b.as<WhileNode>();
      return (expr(x.condition, y.condition) || fail("while condition")) && stmt(x.body, y.body);
    }
    case StmtKind::IfThenElse: {
      auto &x = *a.as<IfThenElseNode>(), &y = *b.as<IfThenElseNode>();
      if (!expr(x.condition, y.condition))
        return fail("if condition");
      if (!x.elseCase != !y.elseCase)
        return fail("if: else branch against none");
      return stmt(x.thenCase, y.thenCase) && (!x.elseCase || stmt(x.elseCase, y.elseCase));
    }
    case StmtKind::LetStmt: {
      auto &x = *a.as<LetStmtNode>(), &y = *b.as<LetStmtNode>();
      if (!expr(x.value, y.value) || !var(x.var.get(), y.var.get()))
        return fail("let " + x.var->name.str());
      return stmt(x.body, y.body);
    }
    case StmtKind::Allocate: {
      auto &x = *a.as<AllocateNode>(), &y = *b.as<AllocateNode>();
      if (x.dtype != y.dtype || x.scope != y.scope || !exprs(x.extents, y.extents) ||
          !var(x.bufferVar.get(), y.bufferVar.get()))
        return fail("allocate " + x.bufferVar->name.str());
      return stmt(x.body, y.body);
    }
    case StmtKind::DeclBuffer: {
      auto &x = *a.as<DeclBufferNode>(), &y = *b.as<DeclBufferNode>();
      if (x.allocates != y.allocates || !buffer(x.buffer.get(), y.buffer.get()))
        return fail("decl_buffer " + x.buffer->name.str());
      return stmt(x.body, y.body);
    }
    case StmtKind::AllocBuffer: {
      auto &x = *a.as<AllocBufferNode>(), &y = *b.as<AllocBufferNode>();
      if (!buffer(x.buffer.get(), y.buffer.get()))
        return fail("alloc_buffer " + x.buffer->name.str());
      return stmt(x.body, y.body);
    }
    case StmtKind::AttrStmt: return attr(*a.as<AttrStmtNode>(), *b.as<AttrStmtNode>());
    case StmtKind::AssertStmt: {
      auto &x = *a.as<AssertStmtNode>(), &y = *b.as<AssertStmtNode>();
      return (x.message == y.message && expr(x.condition, y.condition)) || fail("assert");
    }
    case StmtKind::Evaluate: return expr(a.as<EvaluateNode>()->value, b.as<EvaluateNode>()->value) || fail("evaluate");
    case StmtKind::SeqStmt: {
      auto &x = *a.as<SeqStmtNode>(), &y = *b.as<SeqStmtNode>();
      if (x.stmts.size() != y.stmts.size())
        return fail("sequence of " + std::to_string(x.stmts.size()) + " vs " + std::to_string(y.stmts.size()) +
                    " statements");
      for (size_t k = 0; k < x.stmts.size(); ++k)
        if (!stmt(x.stmts[k], y.stmts[k]))
          return false;
      return true;
    }
    case StmtKind::Block: return block(*a.as<BlockNode>(), *b.as<BlockNode>());
    }
    return fail(kind);
  }

  std::string *why_;
  std::unordered_map<const VarNode *, const VarNode *> vars_, varsBack_;
  std::unordered_map<const BufferNode *, const BufferNode *> buffers_, buffersBack_;
};

} // namespace

bool alphaEqual(const PrimFuncNode &a, const PrimFuncNode &b, std::string *why) {
  if (why)
    why->clear();
  return AlphaEquality(why).functions(a, b);
}

} // namespace tirlower
