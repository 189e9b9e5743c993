// The TVMScript printer's statements (ScriptPrinter, tir_script_printer.h): lets, allocations
// and buffer declarations as one line followed by their body at the same indentation, loops,
// conditionals, attributes and thread launches as TVM prints them, and the layout transforms of
// buffers the body declares. Blocks are in tir_print_block.cpp.
#include <algorithm>

#include "codegen/tir_script_printer.h"
#include "ir/equality.h"
#include "ir/gpu_builtins.h"
#include "ir/script_literals.h"
#include "ir/storage_scope.h"
#include "ir/visitor.h"

namespace tirlower {

namespace {
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
  if (var && !plain_ && !isNamed(var)) {
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
  beginLambda();
  out_ += "T.comm_reducer(lambda";
  bool first = true;
  for (const std::vector<Var> *params : {&reducer.lhs, &reducer.rhs}) {
    for (const Var &param : *params) {
      out_ += first ? " " : ", ";
      first = false;
      out_ += lambdaParam(param.get());
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
  endLambda();
  out_ += ", [";
  printExprList(reducer.identity);
  out_ += "])";
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

} // namespace tirlower
