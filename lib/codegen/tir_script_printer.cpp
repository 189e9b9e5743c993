// Statements, functions and modules in canonical TVMScript. Declarations (lets, allocations,
// buffer declarations) print as one line followed by their body at the same indentation.
#include "codegen/tir_script_printer.h"

#include <algorithm>
#include <unordered_map>

#include "codegen/tir_literals.h"
#include "ir/equality.h"
#include "ir/visitor.h"
#include "ir/storage_scope.h"
#include "ir/gpu_builtins.h"
#include "ir/attrs.h"

namespace tirlower {

namespace {
bool isConstZero(const Expr &e) {
  const int64_t *value = e ? asConstInt(e) : nullptr;
  return value && *value == 0;
}

// Appends the buffers that statements of `stmt` declare (DeclBuffer, AllocBuffer).
// Declarations are statements, so the walk never looks into expressions.
void collectDeclarations(const StmtNode *s, std::vector<const BufferNode *> &buffers) {
  while (s) {
    // kind-switch: not a functor, as it follows declaration chains by iteration, looking at
    // four kinds and the scoped body (scopedBody) of the others.
    switch (s->kind()) {
    case StmtKind::SeqStmt:
      for (const Stmt &child : static_cast<const SeqStmtNode *>(s)->stmts)
        collectDeclarations(child.get(), buffers);
      return;
    case StmtKind::DeclBuffer: {
      const auto *node = static_cast<const DeclBufferNode *>(s);
      buffers.push_back(node->buffer.get());
      s = node->body.get();
      break;
    }
    case StmtKind::AllocBuffer: {
      const auto *node = static_cast<const AllocBufferNode *>(s);
      buffers.push_back(node->buffer.get());
      s = node->body.get();
      break;
    }
    case StmtKind::IfThenElse: {
      const auto *node = static_cast<const IfThenElseNode *>(s);
      collectDeclarations(node->thenCase.get(), buffers);
      s = node->elseCase.get();
      break;
    }
    case StmtKind::Block: {
      const auto *node = static_cast<const BlockNode *>(s);
      for (const Buffer &b : node->allocBuffers)
        buffers.push_back(b.get());
      for (const MatchBufferRegion &m : node->matchBuffers)
        buffers.push_back(m.buffer.get());
      collectDeclarations(node->init.get(), buffers);
      s = node->body.get();
      break;
    }
    default: s = scopedBody(*s); break; // null for a store, assert or evaluate
    }
  }
}

const char *loopIterator(ForKind kind) {
  switch (kind) {
  case ForKind::Serial: return "T.serial(";
  case ForKind::Parallel: return "T.parallel(";
  case ForKind::Vectorized: return "T.vectorized(";
  case ForKind::Unrolled: return "T.unroll(";
  case ForKind::ThreadBinding: return "T.thread_binding(";
  }
  return "T.serial(";
}
} // namespace

// ---- names -----------------------------------------------------------------------------------

void ScriptPrinter::resetNames() {
  freeDeclared_.clear();
  names_.clear();
  printed_.clear();
  dataNames_.clear();
}

std::string_view ScriptPrinter::defineVar(const VarNode *var) {
  if (plain_)
    return var->name.view();
  if (std::string_view name = printed_.find(var); !name.empty())
    return name;
  return printed_.insert(var, names_.fresh(var->name));
}

std::string_view ScriptPrinter::defineBuffer(const BufferNode *buffer) {
  if (plain_)
    return buffer->name.view();
  if (std::string_view name = printed_.find(buffer); !name.empty())
    return name;
  return printed_.insert(buffer, names_.fresh(buffer->name));
}

std::string_view ScriptPrinter::bindVar(const VarNode *var) {
  if (plain_)
    return var->name.view();
  return printed_.assign(var, names_.fresh(var->name));
}

std::string_view ScriptPrinter::bindBuffer(const BufferNode *buffer) {
  if (plain_)
    return buffer->name.view();
  return printed_.assign(buffer, names_.fresh(buffer->name));
}

void ScriptPrinter::defineDataVar(const BufferNode *buffer, std::string_view bufferName, bool allocates) {
  if (plain_)
    return;
  const VarNode *data = buffer->data.get();
  if (allocates)
    printed_.assign(data, dataNames_.store(bufferName, ".data"));
  else if (printed_.find(data).empty())
    printed_.insert(data, dataNames_.store(bufferName, ".data"));
}

std::string_view ScriptPrinter::lambdaOrDefinedName(const VarNode *var) {
  for (const auto &[param, name] : lambdaNames_)
    if (param == var)
      return name;
  return defineVar(var);
}

// ---- statements ------------------------------------------------------------------------------

void ScriptPrinter::printBody(const Stmt &stmt) {
  ++indent_;
  printStmt(stmt);
  --indent_;
}

void ScriptPrinter::printTypeAnnotation(const VarNode &var) {
  if (!var.type.isHandle()) {
    out_ += typeSpelling(var.type).annotation;
    return;
  }
  out_ += "T.handle";
  if (var.pointeeType.isVoid())
    return;
  out_ += '(';
  out_ += typeSpelling(var.pointeeType).quoted;
  out_ += ", ";
  appendQuoted(out_, var.storageScope.empty() ? scope::kGlobal : var.storageScope.view());
  out_ += ')';
}

void ScriptPrinter::printBufferArgs(const BufferNode &buffer, std::optional<std::string_view> data) {
  printShape(buffer.shape);
  out_ += ", ";
  out_ += typeSpelling(buffer.dtype).quoted;
  if (data) {
    out_ += ", data=";
    out_ += *data;
  }
  if (!buffer.strides.empty()) {
    out_ += ", strides=";
    printShape(buffer.strides, true);
  }
  if (buffer.elemOffset && !isConstZero(buffer.elemOffset)) {
    out_ += ", elem_offset=";
    printDeclared(buffer.elemOffset);
  }
  if (!buffer.hasDefaultScope()) {
    out_ += ", scope=";
    appendQuoted(out_, buffer.scope.view());
  }
  if (!buffer.axisSeparators.empty()) {
    out_ += ", axis_separators=[";
    for (size_t k = 0; k < buffer.axisSeparators.size(); ++k) {
      if (k)
        out_ += ", ";
      appendInt(out_, buffer.axisSeparators[k]);
    }
    out_ += ']';
  }
  if (!buffer.layout.empty()) {
    out_ += ", layout=";
    appendQuoted(out_, buffer.layout.view());
  }
}

void ScriptPrinter::printFor(const ForNode &loop) {
  std::string_view name = bindVar(loop.loopVar.get());
  indent();
  out_ += "for ";
  out_ += name;
  out_ += " in ";
  bool hasAnnotations = !loop.annotations.empty();
  out_ += loop.forKind == ForKind::Serial && !hasAnnotations ? "range(" : loopIterator(loop.forKind);
  if (isConstZero(loop.min)) {
    printExpr(loop.extent);
  } else {
    printExpr(loop.min);
    out_ += ", ";
    const int64_t *min = asConstInt(loop.min), *extent = asConstInt(loop.extent);
    const auto *difference = loop.extent.as<BinaryNode>();
    if (min && extent) {
      printIntLiteral(loop.min->type, *min + *extent);
    } else if (difference && difference->op == BinaryOp::Sub && structurallyEqual(difference->b, loop.min)) {
      // `range(a, b)` reads back with extent `b - a`: print `b` again.
      printExpr(difference->a);
    } else {
      printExprPrec(loop.min.get(), kPrecAdd, false);
      out_ += " + ";
      printExprPrec(loop.extent.get(), kPrecAdd, true);
    }
  }
  if (loop.forKind == ForKind::ThreadBinding) {
    out_ += ", thread=";
    appendQuoted(out_, loop.threadTag.view());
  }
  if (hasAnnotations) {
    out_ += ", annotations=";
    appendAttrValue(out_, loop.annotations);
  }
  out_ += "):\n";
  loops_.push_back(&loop);
  printBody(loop.body);
  loops_.pop_back();
}

// `v_i, v_k = T.axis.remap("SR", [i, k])` when every iteration variable is bound to an
// enclosing loop variable over the same domain (as TVM prints it); else one
// `v = T.axis.spatial(extent, value)` (`(min, end)` for a domain not starting at 0) per variable.
void ScriptPrinter::printIterVars(const BlockNode &block) {
  if (block.iterVars.empty())
    return;
  bool remap = true;
  for (const BlockIterVar &iv : block.iterVars) {
    const auto *var = iv.value.as<VarNode>();
    auto loop = std::find_if(loops_.rbegin(), loops_.rend(), [&](const ForNode *f) { return f->loopVar.get() == var; });
    remap &= var && loop != loops_.rend() && isConstZero(iv.min) && isConstZero((*loop)->min) &&
             structurallyEqual((*loop)->extent, iv.extent) && iv.kind != IterKind::Opaque;
  }
  if (remap) {
    indent();
    for (size_t k = 0; k < block.iterVars.size(); ++k) {
      out_ += k ? ", " : "";
      out_ += bindVar(block.iterVars[k].var.get());
    }
    out_ += " = T.axis.remap(\"";
    for (const BlockIterVar &iv : block.iterVars)
      out_ += "SRCO"[static_cast<int>(iv.kind)];
    out_ += "\", [";
    for (size_t k = 0; k < block.iterVars.size(); ++k) {
      out_ += k ? ", " : "";
      printExpr(block.iterVars[k].value);
    }
    out_ += "])\n";
    return;
  }
  for (const BlockIterVar &iv : block.iterVars) {
    indent();
    out_ += bindVar(iv.var.get());
    out_ += " = T.axis.";
    out_ += iterKindName(iv.kind);
    out_ += '(';
    if (isConstZero(iv.min)) {
      printExpr(iv.extent);
    } else {
      out_ += '(';
      printExpr(iv.min);
      out_ += ", ";
      const int64_t *min = asConstInt(iv.min), *extent = asConstInt(iv.extent);
      if (min && extent)
        printIntLiteral(iv.min->type, *min + *extent);
      else
        printExpr(BinaryNode::make(BinaryOp::Add, iv.min, iv.extent));
      out_ += ')';
    }
    out_ += ", ";
    printExpr(iv.value);
    out_ += ")\n";
  }
}

// `A[v_i, 0:16]`: a range of extent 1 prints as its index.
void ScriptPrinter::printRegion(const BufferRegion &region) {
  out_ += bufferName(region.buffer.get());
  out_ += '[';
  for (size_t k = 0; k < region.region.size(); ++k) {
    const Range &r = region.region[k];
    out_ += k ? ", " : "";
    const int64_t *extent = asConstInt(r.extent);
    if (extent && *extent == 1) {
      printExpr(r.min);
      continue;
    }
    printExpr(r.min);
    out_ += ':';
    const int64_t *min = asConstInt(r.min);
    if (min && extent)
      printIntLiteral(r.min->type, *min + *extent);
    else if (isConstZero(r.min))
      printExpr(r.extent);
    else
      printExpr(BinaryNode::make(BinaryOp::Add, r.min, r.extent));
  }
  out_ += region.region.empty() ? "()]" : "]";
}

void ScriptPrinter::printBlock(const BlockNode &block) {
  indent();
  out_ += tirx_ ? "with T.sblock(" : "with T.block(";
  appendQuoted(out_, block.name.view());
  out_ += "):\n";
  ++indent_;
  printIterVars(block);
  if (block.predicate) {
    indent();
    out_ += "T.where(";
    printExpr(block.predicate);
    out_ += ")\n";
  }
  for (const auto &[keyword, regions] :
       {std::pair{"T.reads(", &block.reads}, std::pair{"T.writes(", &block.writes}}) {
    indent();
    out_ += keyword;
    for (size_t k = 0; k < regions->size(); ++k) {
      out_ += k ? ", " : "";
      printRegion((*regions)[k]);
    }
    out_ += ")\n";
  }
  if (!block.annotations.empty()) {
    indent();
    out_ += tirx_ ? "T.sblock_attr(" : "T.block_attr(";
    appendAttrValue(out_, block.annotations);
    out_ += ")\n";
  }
  for (const Buffer &buffer : block.allocBuffers) {
    std::string_view name = bindBuffer(buffer.get());
    defineDataVar(buffer.get(), name, true);
    indent();
    out_ += name;
    out_ += tirx_ ? " = T.sblock_alloc_buffer(" : " = T.alloc_buffer(";
    printBufferArgs(*buffer, std::nullopt);
    out_ += ")\n";
  }
  for (const MatchBufferRegion &match : block.matchBuffers) {
    std::string_view name = bindBuffer(match.buffer.get());
    defineDataVar(match.buffer.get(), name);
    indent();
    out_ += name;
    out_ += " = T.match_buffer(";
    printRegion(match.source);
    out_ += ", ";
    printBufferArgs(*match.buffer, std::nullopt);
    out_ += ")\n";
  }
  if (block.init) {
    indent();
    out_ += "with T.init():\n";
    printBody(block.init);
  }
  --indent_;
  printBody(block.body);
}

void ScriptPrinter::printStmt(const Stmt &stmt) { printStmtAt(stmt.get(), true); }

void ScriptPrinter::printStmtAt(const StmtNode *s, bool tail) {
  // Declarations scope the rest of the block: print them as a chain, not by recursion. Each
  // method returns the statement to print next at the same level, or null.
  while (s)
    s = visitStmt(s, tail);
}

const StmtNode *ScriptPrinter::visitLetStmt(const LetStmtNode *node, bool) {
  std::string_view name = bindVar(node->var.get());
  indent();
  out_ += name;
  out_ += ": ";
  printTypeAnnotation(*node->var);
  out_ += " = ";
  printExpr(node->value);
  newline();
  return node->body.get();
}

const StmtNode *ScriptPrinter::visitAllocate(const AllocateNode *node, bool) {
  std::string_view name = bindVar(node->bufferVar.get());
  indent();
  out_ += name;
  out_ += " = T.allocate([";
  printExprList(node->extents);
  out_ += "], ";
  out_ += typeSpelling(node->dtype).quoted;
  out_ += ", ";
  appendQuoted(out_, node->scope.empty() ? scope::kGlobal : node->scope.view());
  out_ += ")\n";
  return node->body.get();
}

const StmtNode *ScriptPrinter::visitDeclBuffer(const DeclBufferNode *node, bool) {
  // The data variable prints before the buffer is bound: `B = T.decl_buffer(..., data=B.data)`
  // must name the earlier binding of B.
  std::optional<std::string_view> data;
  if (!node->allocates)
    data = varName(node->buffer->data.get());
  std::string_view name = bindBuffer(node->buffer.get());
  if (node->allocates)
    defineDataVar(node->buffer.get(), name, true);
  indent();
  out_ += name;
  out_ += " = T.decl_buffer(";
  printBufferArgs(*node->buffer, data);
  out_ += ")\n";
  printTransformsOf(node->buffer.get());
  return node->body.get();
}

const StmtNode *ScriptPrinter::visitAllocBuffer(const AllocBufferNode *node, bool) {
  std::string_view name = bindBuffer(node->buffer.get());
  defineDataVar(node->buffer.get(), name, true);
  indent();
  out_ += name;
  out_ += " = T.alloc_buffer(";
  printBufferArgs(*node->buffer, std::nullopt);
  out_ += ")\n";
  printTransformsOf(node->buffer.get());
  return node->body.get();
}

const StmtNode *ScriptPrinter::visitSeqStmt(const SeqStmtNode *node, bool tail) {
  if (node->stmts.empty()) {
    indent();
    out_ += "T.evaluate(0)\n";
  }
  for (size_t k = 0; k < node->stmts.size(); ++k)
    printStmtAt(node->stmts[k].get(), tail && k + 1 == node->stmts.size());
  return nullptr;
}

const StmtNode *ScriptPrinter::visitBufferStore(const BufferStoreNode *node, bool) {
  indent();
  printAccess(node->buffer.get(), node->indices);
  out_ += " = ";
  printExpr(node->value);
  newline();
  return nullptr;
}

const StmtNode *ScriptPrinter::visitFor(const ForNode *node, bool) {
  printFor(*node);
  return nullptr;
}

const StmtNode *ScriptPrinter::visitWhile(const WhileNode *node, bool) {
  indent();
  out_ += "while ";
  printExpr(node->condition);
  out_ += ":\n";
  printBody(node->body);
  return nullptr;
}

const StmtNode *ScriptPrinter::visitIfThenElse(const IfThenElseNode *node, bool) {
  indent();
  out_ += "if ";
  printExpr(node->condition);
  out_ += ":\n";
  printBody(node->thenCase);
  if (node->elseCase) {
    indent();
    out_ += "else:\n";
    printBody(node->elseCase);
  }
  return nullptr;
}

const StmtNode *ScriptPrinter::visitAttrStmt(const AttrStmtNode *node, bool tail) {
  printAttr(*node, tail);
  if (tail)
    return node->body.get();
  printBody(node->body);
  return nullptr;
}

const StmtNode *ScriptPrinter::visitAssertStmt(const AssertStmtNode *node, bool) {
  indent();
  out_ += "assert ";
  printExpr(node->condition);
  out_ += ", ";
  appendQuoted(out_, node->message);
  newline();
  return nullptr;
}

const StmtNode *ScriptPrinter::visitBlock(const BlockNode *node, bool) {
  printBlock(*node);
  return nullptr;
}

const StmtNode *ScriptPrinter::visitEvaluate(const EvaluateNode *node, bool) {
  // The thread intrinsics are statements in TVMScript: TVM prints them without T.evaluate.
  const Expr &value = node->value;
  const auto *call = value.as<CallNode>();
  bool bare = call && (isStorageSync(*call) || isThreadAllreduce(*call));
  indent();
  if (bare) {
    printExpr(value);
    newline();
    return nullptr;
  }
  out_ += "T.evaluate(";
  printExpr(value);
  out_ += ")\n";
  return nullptr;
}

// A thread launch prints as TVM prints it: `v = T.launch_thread("threadIdx.x", 8)` binding v,
// or `T.launch_thread(v, 8)` for a variable declared before (an attribute named it first).
// Another attribute naming a variable that is not bound yet declares it first, as
// `v = T.env_thread("threadIdx.x")` when a launch in its body binds it (what TVM's parser reads;
// TVM itself prints `v = T.int32()`; an int64 index adds `dtype="int64"`), else `v = T.int32()`.
void ScriptPrinter::printAttr(const AttrStmtNode &attr, bool concise) {
  const VarNode *var = attr.node.as<VarNode>();
  auto declared = [&](const VarNode *v) {
    return std::find(freeDeclared_.begin(), freeDeclared_.end(), v) != freeDeclared_.end();
  };
  if (attr.isThreadLaunch() && var) {
    indent();
    if (declared(var)) {
      out_ += concise ? "T.launch_thread(" : "with T.launch_thread(";
      out_ += varName(var);
      out_ += ", ";
      printExpr(attr.value);
      out_ += concise ? ")\n" : "):\n";
      return;
    }
    std::string_view name = bindVar(var);
    if (concise) {
      out_ += name;
      out_ += " = ";
    } else {
      out_ += "with ";
    }
    out_ += "T.launch_thread(";
    appendQuoted(out_, attr.threadTag.view());
    out_ += ", ";
    printExpr(attr.value);
    out_ += ')';
    if (!concise) {
      out_ += " as ";
      out_ += name;
      out_ += ':';
    }
    newline();
    return;
  }
  if (var && !plain_ && printed_.find(var).empty()) {
    // The first launch of `var` in the body gives its tag.
    struct LaunchFinder : IRVisitor {
      const VarNode *var = nullptr;
      Symbol tag;
      using IRVisitor::visit;
      void visit(const AttrStmtNode *op) override {
        if (tag.empty() && op->threadVar() == var)
          tag = op->threadTag;
        IRVisitor::visit(op);
      }
    } finder;
    finder.var = var;
    finder.visit(attr.body);
    indent();
    out_ += defineVar(var);
    out_ += " = ";
    if (!finder.tag.empty()) {
      out_ += "T.env_thread(";
      appendQuoted(out_, finder.tag.view());
      if (var->type != DataType::int32()) {
        out_ += ", dtype=";
        appendQuoted(out_, var->type.str());
      }
      out_ += ")\n";
    } else {
      out_ += typeSpelling(var->type).annotation;
      out_ += "()\n";
    }
    freeDeclared_.push_back(var);
  }
  indent();
  out_ += concise ? "T.attr(" : "with T.attr(";
  if (attr.reducer)
    printReducer(*attr.reducer);
  else
    printExpr(attr.node);
  out_ += ", ";
  appendQuoted(out_, attr.key.view());
  out_ += ", ";
  printExpr(attr.value);
  out_ += concise ? ")\n" : "):\n";
}

// `T.comm_reducer(lambda x0, y0: x0 + y0, [T.float32(0.0)])`; several results as a tuple.
void ScriptPrinter::printReducer(const CommReducerNode &reducer) {
  lambdaTable_.clear();
  lambdaNames_.clear();
  out_ += "T.comm_reducer(lambda";
  bool first = true;
  for (const std::vector<Var> *params : {&reducer.lhs, &reducer.rhs}) {
    for (const Var &param : *params) {
      out_ += first ? " " : ", ";
      first = false;
      if (plain_) {
        out_ += param->name.view();
        continue;
      }
      lambdaNames_.emplace_back(param.get(), lambdaTable_.fresh(param->name));
      out_ += lambdaNames_.back().second;
    }
  }
  out_ += ": ";
  if (reducer.result.size() == 1) {
    printExpr(reducer.result[0]);
  } else {
    out_ += '(';
    printExprList(reducer.result);
    out_ += ')';
  }
  lambdaNames_.clear();
  out_ += ", [";
  printExprList(reducer.identity);
  out_ += "])";
}

// ---- index maps ------------------------------------------------------------------------------

void ScriptPrinter::printIndexMap(const IndexMapNode &map) {
  // Lambda parameters are local to the lambda: they get names of their own, which shadow
  // whatever the function prints for the same objects.
  lambdaTable_.clear();
  lambdaNames_.clear();
  out_ += "lambda";
  for (size_t k = 0; k < map.initialIndices.size(); ++k) {
    const VarNode *var = map.initialIndices[k].get();
    out_ += k ? ", " : " ";
    if (plain_) {
      out_ += var->name.view();
      continue;
    }
    lambdaNames_.emplace_back(var, lambdaTable_.fresh(var->name));
    out_ += lambdaNames_.back().second;
  }
  out_ += ": [";
  size_t separator = 0;
  bool first = true;
  for (size_t k = 0; k <= map.finalIndices.size(); ++k) {
    for (; separator < map.axisSeparators.size() && map.axisSeparators[separator] == static_cast<int>(k); ++separator) {
      out_ += first ? "" : ", ";
      out_ += "T.AXIS_SEPARATOR";
      first = false;
    }
    if (k == map.finalIndices.size())
      break;
    out_ += first ? "" : ", ";
    printExpr(map.finalIndices[k]);
    first = false;
  }
  out_ += ']';
  lambdaNames_.clear();
}

void ScriptPrinter::printTransformsOf(const BufferNode *buffer) {
  for (auto it = pendingTransforms_.begin(); it != pendingTransforms_.end();) {
    if ((*it)->buffer.get() == buffer) {
      printLayoutTransform(**it);
      it = pendingTransforms_.erase(it);
    } else {
      ++it;
    }
  }
}

void ScriptPrinter::printLayoutTransform(const LayoutTransform &transform) {
  indent();
  out_ += "T.transform_layout(";
  out_ += bufferName(transform.buffer.get());
  out_ += ", ";
  printIndexMap(*transform.map);
  if (transform.padValue) {
    out_ += ", pad_value=";
    printExpr(transform.padValue);
  }
  out_ += ")\n";
}

// ---- functions and modules -------------------------------------------------------------------

std::vector<bool> simpleBufferParams(const PrimFuncNode &function) {
  // One pass over the parameters and bindings, so a function with 10^5 parameters prints in
  // linear time: each parameter's position, and how many bindings use each parameter and data var.
  std::unordered_map<const VarNode *, size_t> position;
  position.reserve(function.params.size());
  for (size_t k = 0; k < function.params.size(); ++k)
    position.emplace(function.params[k].get(), k);
  std::unordered_map<const VarNode *, size_t> uses;
  uses.reserve(2 * function.bufferMap.size());
  for (const BufferBinding &binding : function.bufferMap) {
    ++uses[binding.param.get()];
    if (binding.buffer->data.get() != binding.param.get())
      ++uses[binding.buffer->data.get()];
  }
  struct VarCollector : IRVisitor {
    std::vector<const VarNode *> vars;
    using IRVisitor::visit;
    void visit(const VarNode *op) override { vars.push_back(op); }
  };

  std::vector<bool> simple(function.bufferMap.size(), false);
  for (size_t k = 0; k < function.bufferMap.size(); ++k) {
    const BufferBinding &binding = function.bufferMap[k];
    const BufferNode &buffer = *binding.buffer;
    if (buffer.data != binding.param || !buffer.hasDefaultScope() || !buffer.strides.empty() ||
        !buffer.axisSeparators.empty() || !buffer.layout.empty())
      continue;
    if (buffer.elemOffset && !isConstZero(buffer.elemOffset))
      continue;
    auto own = position.find(binding.param.get());
    if (own == position.end())
      continue;
    // No other binding may share the parameter or the data (here both are binding.param).
    if (uses[binding.param.get()] != 1)
      continue;
    // An inline annotation can only use parameters declared before it; a shape that refers to a
    // later one (A: (n, 4) before n) needs T.match_buffer in the body.
    VarCollector collector;
    for (const Expr &extent : buffer.shape)
      collector.visit(extent);
    bool earlier = true;
    for (const VarNode *var : collector.vars) {
      auto found = position.find(var);
      if (found == position.end() || found->second >= own->second) {
        earlier = false;
        break;
      }
    }
    simple[k] = earlier;
  }
  return simple;
}

void ScriptPrinter::printFunction(const PrimFuncNode &function) {
  if (!plain_)
    resetNames();
  // simpleBuffers_[k]: the buffer of bufferMap[k] when it is a simple parameter, else null;
  // simpleOfParam_: the same, keyed by the parameter.
  simpleBuffers_.assign(function.bufferMap.size(), nullptr);
  simpleOfParam_.clear();
  std::vector<bool> isSimple = simpleBufferParams(function);
  for (size_t k = 0; k < simpleBuffers_.size(); ++k) {
    if (!isSimple[k])
      continue;
    simpleBuffers_[k] = function.bufferMap[k].buffer.get();
    simpleOfParam_.emplace(function.bufferMap[k].param.get(), simpleBuffers_[k]);
  }
  // Parameters are named before anything prints: shapes may use later scalar parameters.
  for (const Var &param : function.params) {
    if (const BufferNode *buffer = simpleBufferOf(param))
      defineDataVar(buffer, defineBuffer(buffer));
    else
      defineVar(param.get());
  }
  printSignature(function);
  ++indent_;
  if (!function.attrs.empty()) {
    indent();
    out_ += "T.func_attr(";
    // Keys as the input wrote them; in the namespace of a spelling the user asked for (TVM 0.27
    // reads "tirx.noalias", older TVM "tir.noalias").
    ScriptSpelling spelling = tirx_ ? ScriptSpelling::Tirx : ScriptSpelling::Tir;
    appendAttrValue(out_, respellAttrs_ ? respellNamespacedAttrs(function.attrs, spelling) : function.attrs);
    out_ += ")\n";
  }
  printMatchBuffers(function);
  printParamTransforms(function);
  printStmt(function.body);
  --indent_;
}

// The buffer of a parameter that prints inline in the signature (simpleBuffers_), else null.
const BufferNode *ScriptPrinter::simpleBufferOf(const Var &param) const {
  auto found = simpleOfParam_.find(param.get());
  return found == simpleOfParam_.end() ? nullptr : found->second;
}

// The decorator and the def line: simple buffer parameters as T.Buffer(shape, dtype), the
// others with their type annotation.
void ScriptPrinter::printSignature(const PrimFuncNode &function) {
  indent();
  if (tirx_)
    out_ += function.isPrivate ? "@T.prim_func(private=True, s_tir=True)\n" : "@T.prim_func(s_tir=True)\n";
  else
    out_ += function.isPrivate ? "@T.prim_func(private=True)\n" : "@T.prim_func\n";
  indent();
  out_ += "def ";
  out_ += function.name.view();
  out_ += '(';
  for (size_t k = 0; k < function.params.size(); ++k) {
    const Var &param = function.params[k];
    if (k)
      out_ += ", ";
    if (const BufferNode *buffer = simpleBufferOf(param)) {
      out_ += bufferName(buffer);
      out_ += ": T.Buffer(";
      printShape(buffer->shape);
      out_ += ", ";
      out_ += typeSpelling(buffer->dtype).quoted;
      out_ += ')';
    } else {
      out_ += varName(param.get());
      out_ += ": ";
      printTypeAnnotation(*param);
    }
  }
  out_ += "):\n";
}

// `B = T.match_buffer(b, ...)` for the buffer parameters that do not print inline.
void ScriptPrinter::printMatchBuffers(const PrimFuncNode &function) {
  for (size_t k = 0; k < function.bufferMap.size(); ++k) {
    if (simpleBuffers_[k])
      continue;
    const BufferBinding &binding = function.bufferMap[k];
    std::string_view name = defineBuffer(binding.buffer.get());
    indent();
    out_ += name;
    out_ += " = T.match_buffer(";
    out_ += varName(binding.param.get());
    out_ += ", ";
    defineDataVar(binding.buffer.get(), name);
    printBufferArgs(*binding.buffer, std::nullopt);
    out_ += ")\n";
  }
}

// Transforms of parameter buffers print here; those of buffers the body declares print after
// the declaration, so the text never names a buffer before it exists.
void ScriptPrinter::printParamTransforms(const PrimFuncNode &function) {
  pendingTransforms_.clear();
  std::vector<const BufferNode *> declaredInBody;
  if (!function.layoutTransforms.empty()) {
    collectDeclarations(function.body.get(), declaredInBody);
    std::ranges::sort(declaredInBody);
  }
  for (const LayoutTransform &transform : function.layoutTransforms) {
    if (std::ranges::binary_search(declaredInBody, transform.buffer.get()))
      pendingTransforms_.push_back(&transform);
    else
      printLayoutTransform(transform);
  }
}

void ScriptPrinter::printModule(const Module &module) {
  if (!module.isIRModule) {
    out_ += tirx_ ? "# from tvm.script import tirx as T\n" : "# from tvm.script import tir as T\n";
    for (size_t k = 0; k < module.functions.size(); ++k) {
      out_ += k ? "\n\n" : "\n";
      printFunction(*module.functions[k]);
    }
    return;
  }
  out_ += tirx_ ? "# from tvm.script import ir as I\n# from tvm.script import tirx as T\n\n@I.ir_module\nclass "
               : "# from tvm.script import ir as I\n# from tvm.script import tir as T\n\n@I.ir_module\nclass ";
  out_ += module.name.empty() ? std::string_view("Module") : std::string_view(module.name);
  out_ += ":\n";
  ++indent_;
  for (size_t k = 0; k < module.functions.size(); ++k) {
    if (k)
      newline();
    printFunction(*module.functions[k]);
  }
  if (module.functions.empty()) {
    indent();
    out_ += "pass\n";
  }
  --indent_;
}

} // namespace tirlower
