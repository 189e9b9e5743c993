#include "ir/stmt.h"
#include "ir/attrs.h"

#include <algorithm>

namespace tirlower {

namespace {
template <typename T> Stmt located(T *node, SourceRange loc) {
  node->loc = loc;
  return Stmt(node);
}
[[noreturn]] void fail(const std::string &message) {
  throw IRTypeError(message);
}

void requireBody(const Stmt &body, const char *what) {
  if (!body)
    fail(std::string(what) + " without a body");
}
} // namespace

Stmt BufferStoreNode::make(Buffer buffer, Expr value, std::vector<Expr> indices, SourceRange loc) {
  DataType expected = accessType(*buffer, indices);
  if (value->type != expected) {
    int indexLanes = expected.lanes() / buffer->dtype.lanes();
    fail("cannot store a value of type " + value->type.str() + " into buffer '" + buffer->name.str() + "': expected " +
         expected.str() + " (" + std::to_string(indexLanes) + " index lane" + (indexLanes == 1 ? "" : "s") + " x " +
         std::to_string(buffer->dtype.lanes()) + " element lane" + (buffer->dtype.lanes() == 1 ? "" : "s") + ")");
  }
  auto *node = new BufferStoreNode();
  node->buffer = std::move(buffer);
  node->value = std::move(value);
  node->indices = std::move(indices);
  return located(node, loc);
}

const char *forKindName(ForKind kind) {
  switch (kind) {
  case ForKind::Serial: return "serial";
  case ForKind::Parallel: return "parallel";
  case ForKind::Vectorized: return "vectorized";
  case ForKind::Unrolled: return "unroll";
  case ForKind::ThreadBinding: return "thread_binding";
  }
  return "?";
}

Stmt ForNode::make(Var loopVar, Expr min, Expr extent, ForKind kind, Stmt body, Symbol threadTag, AttrValue annotations,
                   SourceRange loc) {
  if (!loopVar->type.isIndex())
    fail("loop variable '" + loopVar->name.str() + "' must be a scalar integer, not " + loopVar->type.str());
  if (min->type != loopVar->type || extent->type != loopVar->type)
    fail("loop bounds of '" + loopVar->name.str() + "' must have the loop variable's type " + loopVar->type.str());
  if (kind == ForKind::ThreadBinding && threadTag.empty())
    fail("thread_binding loop without a thread tag");
  requireBody(body, "for");
  auto *node = new ForNode();
  node->loopVar = std::move(loopVar);
  node->min = std::move(min);
  node->extent = std::move(extent);
  node->forKind = kind;
  node->threadTag = threadTag;
  node->annotations = std::move(annotations);
  node->body = std::move(body);
  return located(node, loc);
}

Stmt WhileNode::make(Expr condition, Stmt body, SourceRange loc) {
  if (condition->type != DataType::boolean())
    fail("while condition must be a scalar bool, not " + condition->type.str());
  requireBody(body, "while");
  auto *node = new WhileNode();
  node->condition = std::move(condition);
  node->body = std::move(body);
  return located(node, loc);
}

Stmt IfThenElseNode::make(Expr condition, Stmt thenCase, Stmt elseCase, SourceRange loc) {
  if (condition->type != DataType::boolean())
    fail("if condition must be a scalar bool, not " + condition->type.str());
  requireBody(thenCase, "if");
  auto *node = new IfThenElseNode();
  node->condition = std::move(condition);
  node->thenCase = std::move(thenCase);
  node->elseCase = std::move(elseCase);
  return located(node, loc);
}

Stmt LetStmtNode::make(Var var, Expr value, Stmt body, SourceRange loc) {
  if (var->type != value->type)
    fail("'" + var->name.str() + "' is declared " + var->type.str() + " but bound to a value of type " +
         value->type.str());
  requireBody(body, "let");
  auto *node = new LetStmtNode();
  node->var = std::move(var);
  node->value = std::move(value);
  node->body = std::move(body);
  return located(node, loc);
}

Stmt AllocateNode::make(Var bufferVar, DataType dtype, std::vector<Expr> extents, Symbol scope, Stmt body,
                        SourceRange loc) {
  if (!bufferVar->type.isHandle())
    fail("allocation target '" + bufferVar->name.str() + "' must be a handle");
  for (const Expr &e : extents)
    if (!e->type.isIndex())
      fail("allocation extents must be scalar integers, not " + e->type.str());
  requireBody(body, "allocate");
  auto *node = new AllocateNode();
  node->bufferVar = std::move(bufferVar);
  node->dtype = dtype;
  node->extents = std::move(extents);
  node->scope = scope;
  node->body = std::move(body);
  return located(node, loc);
}

Stmt DeclBufferNode::make(Buffer buffer, bool allocates, Stmt body, SourceRange loc) {
  requireBody(body, "decl_buffer");
  auto *node = new DeclBufferNode();
  node->buffer = std::move(buffer);
  node->allocates = allocates;
  node->body = std::move(body);
  return located(node, loc);
}

Stmt AllocBufferNode::make(Buffer buffer, Stmt body, SourceRange loc) {
  requireBody(body, "alloc_buffer");
  auto *node = new AllocBufferNode();
  node->buffer = std::move(buffer);
  node->body = std::move(body);
  return located(node, loc);
}

std::optional<ThreadTag> parseThreadTag(std::string_view tag) {
  ThreadTag t;
  std::string_view axis;
  if (tag.rfind("blockIdx.", 0) == 0) {
    t.kind = ThreadTag::Kind::Block;
    axis = tag.substr(9);
  } else if (tag.rfind("threadIdx.", 0) == 0) {
    t.kind = ThreadTag::Kind::Thread;
    axis = tag.substr(10);
  } else if (tag == "vthread") {
    t.kind = ThreadTag::Kind::Virtual;
    return t;
  } else if (tag.rfind("vthread.", 0) == 0) {
    t.kind = ThreadTag::Kind::Virtual;
    axis = tag.substr(8);
  } else {
    return std::nullopt;
  }
  if (axis.size() != 1 || axis[0] < 'x' || axis[0] > 'z')
    return std::nullopt;
  t.dim = axis[0] - 'x';
  return t;
}

CommReducer CommReducerNode::make(std::vector<Var> lhs, std::vector<Var> rhs, std::vector<Expr> result,
                                  std::vector<Expr> identity, SourceRange loc) {
  if (lhs.empty() || lhs.size() != rhs.size() || lhs.size() != result.size() || lhs.size() != identity.size())
    fail("a comm_reducer combines as many values as it has results and identities (" + std::to_string(lhs.size()) +
         " and " + std::to_string(rhs.size()) + " parameters, " + std::to_string(result.size()) + " results, " +
         std::to_string(identity.size()) + " identities)");
  for (size_t k = 0; k < lhs.size(); ++k) {
    DataType t = lhs[k]->type;
    if (!t.isScalar() || rhs[k]->type != t)
      fail("comm_reducer parameters '" + lhs[k]->name.str() + "' and '" + rhs[k]->name.str() +
           "' must be scalars of one type");
    if (result[k]->type != t)
      fail("comm_reducer result " + std::to_string(k) + " has type " + result[k]->type.str() + ", expected " + t.str());
    if (identity[k]->type != t)
      fail("comm_reducer identity " + std::to_string(k) + " has type " + identity[k]->type.str() + ", expected " +
           t.str());
  }
  auto *node = new CommReducerNode();
  node->lhs = std::move(lhs);
  node->rhs = std::move(rhs);
  node->result = std::move(result);
  node->identity = std::move(identity);
  node->loc = loc;
  return CommReducer(node);
}

Stmt AttrStmtNode::make(Expr node_, Symbol key, Expr value, Stmt body, SourceRange loc, Symbol threadTag,
                        CommReducer reducer) {
  requireBody(body, "attr");
  bool launch = isThreadLaunchKey(key.view());
  if (launch) {
    const auto *var = node_.as<VarNode>();
    if (!var || !var->type.isIndex())
      fail("a thread launch needs an integer thread variable");
    if (threadTag.empty() && parseThreadTag(var->name.view()))
      threadTag = var->name;
  } else {
    threadTag = Symbol();
  }
  if (reducer && key.view() != attr::kReduceScope)
    fail("a comm_reducer is the node of a reduce_scope attribute only");
  auto *node = new AttrStmtNode();
  node->node = std::move(node_);
  node->key = key;
  node->value = std::move(value);
  node->body = std::move(body);
  node->threadTag = threadTag;
  node->reducer = std::move(reducer);
  return located(node, loc);
}

Stmt AttrStmtNode::like(const AttrStmtNode &other, Expr node, Expr value, Stmt body) {
  return make(std::move(node), other.key, std::move(value), std::move(body), other.loc, other.threadTag,
              other.reducer);
}

bool AttrStmtNode::isThreadLaunch() const { return isThreadLaunchKey(key.view()); }

const VarNode *AttrStmtNode::threadVar() const { return isThreadLaunch() ? node.as<VarNode>() : nullptr; }

Stmt AssertStmtNode::make(Expr condition, std::string message, SourceRange loc) {
  if (condition->type != DataType::boolean())
    fail("assert condition must be a scalar bool, not " + condition->type.str());
  auto *node = new AssertStmtNode();
  node->condition = std::move(condition);
  node->message = std::move(message);
  return located(node, loc);
}

Stmt EvaluateNode::make(Expr value, SourceRange loc) {
  auto *node = new EvaluateNode();
  node->value = std::move(value);
  return located(node, loc);
}

Stmt SeqStmtNode::make(std::vector<Stmt> stmts, SourceRange loc) {
  // Already flat (the common case): the one statement itself, or the vector as it is when it
  // holds no slack (else the copy below gives the node a vector of exactly its size).
  if (std::all_of(stmts.begin(), stmts.end(), [](const Stmt &s) { return s && !s.as<SeqStmtNode>(); })) {
    if (stmts.size() == 1)
      return std::move(stmts.front());
    if (stmts.size() == stmts.capacity()) {
      auto *node = new SeqStmtNode();
      node->stmts = std::move(stmts);
      return located(node, loc);
    }
  }
  std::vector<Stmt> flat;
  flat.reserve(stmts.size());
  for (Stmt &s : stmts) {
    if (!s)
      continue;
    if (const auto *seq = s.as<SeqStmtNode>()) {
      flat.insert(flat.end(), seq->stmts.begin(), seq->stmts.end());
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.size() == 1)
    return flat.front();
  auto *node = new SeqStmtNode();
  node->stmts = std::move(flat);
  return located(node, loc);
}

const char *iterKindName(IterKind kind) {
  switch (kind) {
  case IterKind::Spatial: return "spatial";
  case IterKind::Reduce: return "reduce";
  case IterKind::Scan: return "scan";
  case IterKind::Opaque: return "opaque";
  }
  return "?";
}

Stmt BlockNode::make(Fields f, SourceRange loc) {
  for (const BlockIterVar &iv : f.iterVars) {
    if (!iv.var->type.isIndex())
      fail("block iteration variable '" + iv.var->name.str() + "' must be a scalar integer, not " +
           iv.var->type.str());
    if (!iv.value || iv.value->type != iv.var->type)
      fail("block iteration variable '" + iv.var->name.str() + "' of type " + iv.var->type.str() +
           " must be bound to a value of the same type");
    if (iv.min->type != iv.var->type || iv.extent->type != iv.var->type)
      fail("the domain of block iteration variable '" + iv.var->name.str() + "' must have its type " +
           iv.var->type.str());
  }
  if (f.predicate && f.predicate->type != DataType::boolean())
    fail("block predicate must be a scalar bool, not " + f.predicate->type.str());
  for (const auto *regions : {&f.reads, &f.writes})
    for (const BufferRegion &r : *regions)
      if (r.region.size() != r.buffer->rank())
        fail("region of buffer '" + r.buffer->name.str() + "' has " + std::to_string(r.region.size()) +
             " ranges for " + std::to_string(r.buffer->rank()) + " dimensions");
  for (const MatchBufferRegion &m : f.matchBuffers)
    if (m.source.region.size() != m.source.buffer->rank())
      fail("matched region of buffer '" + m.source.buffer->name.str() + "' has " +
           std::to_string(m.source.region.size()) + " ranges for " + std::to_string(m.source.buffer->rank()) +
           " dimensions");
  if (f.init && std::none_of(f.iterVars.begin(), f.iterVars.end(),
                             [](const BlockIterVar &iv) { return iv.kind == IterKind::Reduce; }))
    fail("block '" + f.name.str() + "' has T.init() but no reduce iteration variable");
  requireBody(f.body, "block");
  auto *node = new BlockNode();
  node->name = f.name;
  node->iterVars = std::move(f.iterVars);
  node->predicate = std::move(f.predicate);
  node->reads = std::move(f.reads);
  node->writes = std::move(f.writes);
  node->allocBuffers = std::move(f.allocBuffers);
  node->matchBuffers = std::move(f.matchBuffers);
  node->annotations = std::move(f.annotations);
  node->init = std::move(f.init);
  node->body = std::move(f.body);
  return located(node, loc);
}

BlockNode::Fields BlockNode::fields() const {
  return {name, iterVars, predicate, reads, writes, allocBuffers, matchBuffers, annotations, init, body};
}

namespace {
Expr mulIndex(const Expr &a, const Expr &b) {
  const int64_t *x = asConstInt(a), *y = asConstInt(b);
  if (x && *x == 1)
    return b;
  if (y && *y == 1)
    return a;
  if (x && y)
    return intImm(*x * *y, a->type);
  return BinaryNode::make(BinaryOp::Mul, a, b);
}

Expr addIndex(const Expr &a, const Expr &b) {
  const int64_t *x = asConstInt(a), *y = asConstInt(b);
  if (x && *x == 0)
    return b;
  if (y && *y == 0)
    return a;
  if (x && y)
    return intImm(*x + *y, a->type);
  return BinaryNode::make(BinaryOp::Add, a, b);
}

Expr asIndexType(const Expr &e, DataType type) { return e->type == type ? e : CastNode::make(type, e); }
} // namespace

Ref<BufferNode> regionView(const MatchBufferRegion &match) {
  const BufferNode &source = *match.source.buffer, &matched = *match.buffer;
  auto error = [&](const std::string &why) {
    throw IRTypeError("cannot match buffer '" + matched.name.str() + "' to a region of '" + source.name.str() +
                      "': " + why);
  };
  if (!matched.strides.empty() || (matched.elemOffset && !asConstInt(matched.elemOffset)))
    error("a matched buffer with strides or elem_offset of its own is not supported");
  if (matched.dtype != source.dtype)
    error("the dtypes differ (" + matched.dtype.str() + " and " + source.dtype.str() + ")");
  const std::vector<Range> &region = match.source.region;
  size_t rank = matched.rank();
  if (rank > region.size())
    error("the matched buffer has more dimensions than the region");
  size_t lead = region.size() - rank;
  for (size_t k = 0; k < lead; ++k)
    if (const int64_t *e = asConstInt(region[k].extent); !e || *e != 1)
      error("region dimension " + std::to_string(k) + " has an extent other than 1 and no matching dimension");
  DataType index = source.shape.empty() ? DataType::int32() : source.shape[0]->type;
  std::vector<Expr> strides(source.rank());
  for (size_t k = source.rank(); k-- > 0;)
    strides[k] = !source.strides.empty()  ? asIndexType(source.strides[k], index)
                 : k + 1 == source.rank() ? intImm(1, index)
                                          : mulIndex(strides[k + 1], asIndexType(source.shape[k + 1], index));
  Expr offset = source.elemOffset ? asIndexType(source.elemOffset, index) : intImm(0, index);
  for (size_t k = 0; k < region.size(); ++k)
    offset = addIndex(offset, mulIndex(asIndexType(region[k].min, index), strides[k]));
  BufferNode::Fields f = matched.fields();
  DataType viewIndex = f.shape.empty() ? index : f.shape[0]->type;
  f.data = source.data;
  f.scope = source.scope;
  f.strides.clear();
  for (size_t k = lead; k < strides.size(); ++k)
    f.strides.push_back(asIndexType(strides[k], viewIndex));
  f.elemOffset = asIndexType(offset, viewIndex);
  return BufferNode::make(std::move(f));
}

std::string blockMessage(const BlockNode &block) {
  return "block \"" + block.name.str() +
         "\" is schedulable TIR; lower it first (lower-init-block, convert-blocks-to-opaque, lower-match-buffer, "
         "lower-opaque-block: every target's default pipeline starts with them)";
}

bool isNoOp(const Stmt &stmt) {
  if (const auto *seq = stmt.as<SeqStmtNode>())
    return seq->stmts.empty();
  if (const auto *eval = stmt.as<EvaluateNode>())
    return eval->value.as<IntImmNode>() != nullptr;
  return false;
}

// kind-switch: a classification (which kinds scope one body), not a walk.
const StmtNode *scopedBody(const StmtNode &stmt) {
  switch (stmt.kind()) {
  case StmtKind::For: return static_cast<const ForNode &>(stmt).body.get();
  case StmtKind::While: return static_cast<const WhileNode &>(stmt).body.get();
  case StmtKind::LetStmt: return static_cast<const LetStmtNode &>(stmt).body.get();
  case StmtKind::Allocate: return static_cast<const AllocateNode &>(stmt).body.get();
  case StmtKind::DeclBuffer: return static_cast<const DeclBufferNode &>(stmt).body.get();
  case StmtKind::AllocBuffer: return static_cast<const AllocBufferNode &>(stmt).body.get();
  case StmtKind::AttrStmt: return static_cast<const AttrStmtNode &>(stmt).body.get();
  default: return nullptr;
  }
}


const char *stmtKindName(StmtKind kind) {
  switch (kind) {
  case StmtKind::BufferStore: return "buffer_store";
  case StmtKind::For: return "for";
  case StmtKind::While: return "while";
  case StmtKind::IfThenElse: return "if_then_else";
  case StmtKind::LetStmt: return "let_stmt";
  case StmtKind::Allocate: return "allocate";
  case StmtKind::DeclBuffer: return "decl_buffer";
  case StmtKind::AllocBuffer: return "alloc_buffer";
  case StmtKind::AttrStmt: return "attr";
  case StmtKind::AssertStmt: return "assert";
  case StmtKind::Evaluate: return "evaluate";
  case StmtKind::SeqStmt: return "seq";
  case StmtKind::Block: return "block";
  }
  return "?";
}

} // namespace tirlower
