#include "transform/vector_alias.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "transform/bound_mutator.h"

namespace tirlower {

namespace {

// How one buffer is accessed.
struct AccessSummary {
  int lanes = 0;       // the single vector width seen (0: none yet)
  std::string refusal; // why the buffer cannot be rewritten as a whole; empty if it can
  SourceRange refusalLoc;
  bool anyVector = false;
};

class VectorAccessRewriter : public BoundMutator {
public:
  VectorAccessRewriter(VectorAliasMode mode, bool analyzeOnly,
                       std::unordered_map<const BufferNode *, AccessSummary> &summaries,
                       std::unordered_map<const BufferNode *, std::map<int, Buffer>> &aliases)
      : mode_(mode), analyzeOnly_(analyzeOnly), summaries_(summaries), aliases_(aliases) {}

protected:
  using BoundMutator::visit;

  Expr visit(const BufferLoadNode *op) override {
    Expr e = BoundMutator::visit(op);
    const auto *load = e.as<BufferLoadNode>();
    std::vector<Expr> indices;
    Buffer alias = consider(op->buffer, load->indices, op->loc, indices);
    return alias ? BufferLoadNode::make(alias, std::move(indices), op->loc) : e;
  }

  Stmt visit(const BufferStoreNode *op) override {
    Stmt s = BoundMutator::visit(op);
    const auto *store = s.as<BufferStoreNode>();
    std::vector<Expr> indices;
    Buffer alias = consider(op->buffer, store->indices, op->loc, indices);
    return alias ? BufferStoreNode::make(alias, store->value, std::move(indices), op->loc) : s;
  }

private:
  // Records the access; when rewriting, returns the alias to use and its indices.
  Buffer consider(const Buffer &buffer, const std::vector<Expr> &indices, SourceRange where, std::vector<Expr> &out) {
    if (buffer->dtype.isVector())
      return nullptr;
    AccessSummary &summary = summaries_[buffer.get()];
    const auto *ramp = indices.back().as<RampNode>();
    std::string problem;
    int lanes = ramp ? ramp->lanes : 0;
    if (!ramp) {
      problem =
          indices.back()->type.isVector() ? "an access with a vector index that is not a ramp" : "a scalar access";
    } else if (const int64_t *stride = asConstInt(analyzer_.simplify(ramp->stride)); !stride || *stride != 1) {
      problem = "an access with a non-unit stride";
    } else if (!divides(lanes, buffer->shape.back())) {
      problem = "its innermost extent is not a multiple of " + std::to_string(lanes);
    } else if (!isMultiple(ramp->base, lanes)) {
      problem = "the base of an access is not provably a multiple of " + std::to_string(lanes);
    }
    if (analyzeOnly_) {
      summary.anyVector |= indices.back()->type.isVector();
      if (ramp && problem.empty()) {
        if (summary.lanes && summary.lanes != lanes && summary.refusal.empty()) {
          summary.refusal =
              "it is accessed with both " + std::to_string(summary.lanes) + " and " + std::to_string(lanes) + " lanes";
          summary.refusalLoc = where;
        }
        summary.lanes = lanes;
      } else if (summary.refusal.empty()) {
        summary.refusal = problem;
        summary.refusalLoc = where;
      }
      return nullptr;
    }
    if (!problem.empty() || (mode_ == VectorAliasMode::AllOrNothing && !summary.refusal.empty()))
      return nullptr;
    Buffer alias = aliasFor(buffer, lanes);
    out.assign(indices.begin(), indices.end() - 1);
    DataType t = ramp->base->type;
    out.push_back(analyzer_.simplify(BinaryNode::make(BinaryOp::FloorDiv, ramp->base, IntImmNode::make(t, lanes))));
    return alias;
  }

  Buffer aliasFor(const Buffer &buffer, int lanes) {
    auto &byLanes = aliases_[buffer.get()];
    auto it = byLanes.find(lanes);
    if (it != byLanes.end())
      return it->second;
    BufferNode::Fields f = buffer->fields();
    f.name = Symbol(buffer->name.str() + "_x" + std::to_string(lanes));
    f.dtype = buffer->dtype.withLanes(lanes);
    DataType t = f.shape.back()->type;
    f.shape.back() =
        analyzer_.simplify(BinaryNode::make(BinaryOp::FloorDiv, f.shape.back(), IntImmNode::make(t, lanes)));
    f.layout = Symbol();
    return byLanes.emplace(lanes, BufferNode::make(std::move(f))).first->second;
  }

  bool divides(int lanes, const Expr &extent) {
    const int64_t *v = asConstInt(extent);
    if (v)
      return *v % lanes == 0;
    return isMultiple(extent, lanes);
  }

  bool isMultiple(const Expr &e, int lanes) {
    DataType t = e->type;
    Expr rest = analyzer_.simplify(BinaryNode::make(BinaryOp::FloorMod, e, IntImmNode::make(t, lanes)));
    const int64_t *v = asConstInt(rest);
    return v && *v == 0;
  }

  VectorAliasMode mode_;
  bool analyzeOnly_;
  std::unordered_map<const BufferNode *, AccessSummary> &summaries_;
  std::unordered_map<const BufferNode *, std::map<int, Buffer>> &aliases_;
};

// Declares the aliases right where their buffer's scope begins.
class AliasDeclarer : public IRMutator {
public:
  explicit AliasDeclarer(const std::unordered_map<const BufferNode *, std::map<int, Buffer>> &aliases)
      : aliases_(aliases) {}

  Stmt declareAround(const Buffer &buffer, Stmt body) {
    auto it = aliases_.find(buffer.get());
    if (it == aliases_.end())
      return body;
    for (auto alias = it->second.rbegin(); alias != it->second.rend(); ++alias)
      body = DeclBufferNode::make(alias->second, false, body, buffer->loc);
    return body;
  }

protected:
  using IRMutator::visit;
  Stmt visit(const AllocBufferNode *op) override {
    Stmt body = declareAround(op->buffer, mutate(op->body));
    return body == op->body ? Stmt(op) : AllocBufferNode::make(op->buffer, body, op->loc);
  }
  Stmt visit(const DeclBufferNode *op) override {
    Stmt body = declareAround(op->buffer, mutate(op->body));
    return body == op->body ? Stmt(op) : DeclBufferNode::make(op->buffer, op->allocates, body, op->loc);
  }

private:
  const std::unordered_map<const BufferNode *, std::map<int, Buffer>> &aliases_;
};

} // namespace

PrimFunc rewriteVectorAccesses(const PrimFunc &func, VectorAliasMode mode, PassContext &ctx) {
  std::unordered_map<const BufferNode *, AccessSummary> summaries;
  std::unordered_map<const BufferNode *, std::map<int, Buffer>> aliases;
  VectorAccessRewriter(mode, true, summaries, aliases).mutate(func->body);
  Stmt body = VectorAccessRewriter(mode, false, summaries, aliases).mutate(func->body);
  if (ctx.remarks && mode == VectorAliasMode::AllOrNothing) {
    // Report in a stable order: by location.
    std::vector<std::pair<const BufferNode *, const AccessSummary *>> ordered;
    for (const auto &[buffer, summary] : summaries)
      if (summary.anyVector)
        ordered.emplace_back(buffer, &summary);
    std::sort(ordered.begin(), ordered.end(),
              [](const auto &a, const auto &b) { return a.first->loc.begin < b.first->loc.begin; });
    for (const auto &[buffer, summary] : ordered) {
      if (summary->refusal.empty())
        ctx.diagnostics.remark(buffer->loc, "buffer '" + buffer->name.str() + "' is accessed as " +
                                                buffer->dtype.withLanes(summary->lanes).str() + " through alias '" +
                                                buffer->name.str() + "_x" + std::to_string(summary->lanes) + "'");
      else
        ctx.diagnostics.remark(summary->refusalLoc,
                               "buffer '" + buffer->name.str() + "' keeps its scalar type: " + summary->refusal);
    }
  }
  if (body == func->body)
    return func;
  AliasDeclarer declarer(aliases);
  body = declarer.mutate(body);
  for (auto it = func->bufferMap.rbegin(); it != func->bufferMap.rend(); ++it)
    body = declarer.declareAround(it->buffer, body);
  PrimFuncNode::Fields f = func->fields();
  f.body = body;
  return PrimFuncNode::make(std::move(f));
}

namespace {
class VectorAliasPass : public FunctionPass {
public:
  explicit VectorAliasPass(VectorAliasMode mode) : mode_(mode) {}
  std::optional<PrimFunc> runOnFunction(PrimFunc func, PassContext &ctx) override {
    return rewriteVectorAccesses(func, mode_, ctx);
  }

private:
  VectorAliasMode mode_;
};
} // namespace

std::unique_ptr<Pass> vectorAliasPass(VectorAliasMode mode) {
  return std::make_unique<VectorAliasPass>(mode);
}

} // namespace tirlower
