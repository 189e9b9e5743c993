// The TVMScript printer's functions and modules (ScriptPrinter, tir_script_printer.h): the
// decorator and signature (a buffer parameter inline as `A: T.Buffer(shape, dtype)` when it
// can be, else `T.match_buffer` in the body), the function attributes, where each layout
// transform prints, and the module around the functions.
#include <algorithm>
#include <unordered_map>

#include "codegen/tir_script_printer.h"
#include "ir/attrs.h"
#include "ir/script_literals.h"
#include "ir/visitor.h"

namespace tirlower {

namespace {
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
} // namespace

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
  if (!plain_) {
    resetNames();
    freeDeclared_.clear();
  }
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
