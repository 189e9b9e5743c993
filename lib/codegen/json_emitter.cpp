// --emit=json: the module as a self-describing JSON document. Every node is an object with a
// "kind"; buffers live in a per-function table and are referenced by id; variables print by
// names made unique per function in definition order. Schema: docs/json-schema.md.
#include "codegen/json_emitter.h"

#include <cmath>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "codegen/launch_expr.h"
#include "codegen/launch_geometry.h"
#include "codegen/tir_script_printer.h"
#include "ir/functor.h"
#include "ir/script_names.h"
#include "ir/storage_scope.h"

namespace tirlower {

namespace {
using Json = nlohmann::ordered_json;

// JSON has no infinities or NaN: those are written as the strings "inf", "-inf", "nan".
Json floatValue(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value < 0 ? "-inf" : "inf";
  return value;
}

Json attrJson(const AttrValue &value) {
  // kind-switch: exhaustive over attribute value kinds (literals), not an IR walk.
  switch (value.kind()) {
  case AttrValue::Kind::None: return nullptr;
  case AttrValue::Kind::Bool: return value.asBool();
  case AttrValue::Kind::Int: return value.asInt();
  case AttrValue::Kind::Float: return floatValue(value.asFloat());
  case AttrValue::Kind::String: return value.asString();
  case AttrValue::Kind::List: {
    Json items = Json::array();
    for (const AttrValue &item : value.items())
      items.push_back(attrJson(item));
    return items;
  }
  case AttrValue::Kind::Dict: {
    Json object = Json::object();
    for (const auto &[key, item] : value.entries())
      object[key] = attrJson(item);
    return object;
  }
  case AttrValue::Kind::Target: {
    Json object = Json::object();
    object["target"] = attrJson(value.items().at(0));
    return object;
  }
  }
  return nullptr;
}

class FunctionEmitter : private ExprFunctor<void(const Expr &, Json &)>,
                        private StmtFunctor<void(const Stmt &, Json &)> {
public:
  explicit FunctionEmitter(const SourceInfo *sources) : sources_(sources) {}

  Json emit(const PrimFuncNode &function) {
    Json params = Json::array();
    for (const Var &param : function.params)
      varName(param.get());
    // The id of the first binding of each parameter, found once (linear in the parameters).
    std::unordered_map<const VarNode *, int> bindingOfParam;
    std::vector<bool> simple = simpleBufferParams(function);
    for (size_t k = 0; k < function.bufferMap.size(); ++k) {
      const BufferBinding &binding = function.bufferMap[k];
      int id = declareBuffer(*binding.buffer, simple[k] ? "param" : "match_buffer", binding.param.get());
      bindingOfParam.emplace(binding.param.get(), id);
    }
    for (const Var &param : function.params) {
      Json entry = Json::object();
      entry["name"] = varName(param.get());
      entry["dtype"] = param->type.str();
      if (!param->pointeeType.isVoid()) {
        entry["pointee_dtype"] = param->pointeeType.str();
        entry["storage_scope"] = param->storageScope.empty() ? std::string(scope::kGlobal) : param->storageScope.str();
      }
      auto binding = bindingOfParam.find(param.get());
      entry["buffer"] = binding == bindingOfParam.end() ? Json(nullptr) : Json(binding->second);
      params.push_back(std::move(entry));
    }
    Json body = stmt(function.body);
    Json transforms = Json::array();
    for (const LayoutTransform &transform : function.layoutTransforms)
      transforms.push_back(layoutTransform(transform));

    Json out = Json::object();
    out["name"] = function.name.str();
    // ir-names: a member of the JSON schema (docs/json-schema.md), named after the attribute
    out["global_symbol"] = function.globalSymbol();
    out["private"] = function.isPrivate;
    addLoc(out, function.loc);
    out["params"] = std::move(params);
    out["buffers"] = std::move(buffers_);
    out["attrs"] = function.attrs.isNone() ? Json::object() : attrJson(function.attrs);
    out["layout_transforms"] = std::move(transforms);
    if (LaunchGeometry geometry = launchGeometryOf(function); geometry.bound)
      out["launch"] = launch(geometry);
    out["body"] = std::move(body);
    return out;
  }

  Json launch(const LaunchGeometry &geometry) {
    Json out = Json::object();
    if (!geometry.error.empty()) {
      out["error"] = geometry.error;
      addLoc(out, geometry.errorLoc);
      return out;
    }
    // ir-names: the launch geometry's JSON members (global and local sizes), not storage scopes
    if (!geometry.symbolic()) {
      out["global"] = geometry.global();
      out["local"] = geometry.local;
      out["groups"] = geometry.groups;
      return out;
    }
    // A number of groups over scalar parameters: the expression form of launch_expr.h.
    LaunchNamer name = [](const VarNode *var) { return var->name.str(); };
    Json global = Json::array(), groups = Json::array();
    for (int d = 0; d < 3; ++d) {
      Expr g = geometry.groupsExpr(d);
      groups.push_back(launchExprJson(g, name));
      global.push_back(geometry.local[d] == 1 ? launchExprJson(g, name)
                                              : Json::array({"*", launchExprJson(g, name), geometry.local[d]}));
    }
    // ir-names: JSON members, as above
    out["global"] = std::move(global);
    out["local"] = geometry.local;
    out["groups"] = std::move(groups);
    return out;
  }

private:
  void addLoc(Json &node, SourceRange range) {
    if (!sources_ || !range.valid())
      return;
    SourcePosition position = sources_->position(range.fileId, range.begin);
    std::string text(position.file);
    text += ':';
    text += std::to_string(position.line);
    text += ':';
    text += std::to_string(position.column);
    node["loc"] = std::move(text);
  }

  Json start(const char *kind, SourceRange range) {
    Json node = Json::object();
    node["kind"] = kind;
    addLoc(node, range);
    return node;
  }

  const std::string &varName(const VarNode *var) {
    auto [it, inserted] = vars_.try_emplace(var);
    if (inserted)
      it->second = varNames_.fresh(var->name.view());
    return it->second;
  }

  Json varRef(const VarNode *var) {
    Json node = start("var", var->loc);
    node["name"] = varName(var);
    node["dtype"] = var->type.str();
    if (!var->pointeeType.isVoid()) {
      node["pointee_dtype"] = var->pointeeType.str();
      node["storage_scope"] = var->storageScope.empty() ? std::string(scope::kGlobal) : var->storageScope.str();
    }
    return node;
  }

  // {"kind": "comm_reducer", "lhs": [var...], "rhs": [var...], "result": [...], "identity": [...]}.
  Json reducer(const CommReducerNode &r) {
    Json node = start("comm_reducer", r.loc);
    Json lhs = Json::array(), rhs = Json::array();
    for (const Var &v : r.lhs)
      lhs.push_back(varRef(v.get()));
    for (const Var &v : r.rhs)
      rhs.push_back(varRef(v.get()));
    node["lhs"] = std::move(lhs);
    node["rhs"] = std::move(rhs);
    node["result"] = exprList(r.result);
    node["identity"] = exprList(r.identity);
    return node;
  }

  Json exprList(const std::vector<Expr> &exprs) {
    Json list = Json::array();
    for (const Expr &e : exprs)
      list.push_back(expr(e));
    return list;
  }

  // Adds the buffer to the table on first sight; `decl` says what declared it.
  int declareBuffer(const BufferNode &buffer, const char *decl, const VarNode *param = nullptr) {
    auto [it, inserted] = bufferIds_.try_emplace(&buffer, static_cast<int>(buffers_.size()));
    if (!inserted)
      return it->second;
    Json entry = Json::object();
    entry["id"] = it->second;
    entry["name"] = bufferNames_.fresh(buffer.name.view());
    entry["decl"] = decl;
    if (param)
      entry["param"] = varName(param);
    addLoc(entry, buffer.loc);
    entry["data"] = varName(buffer.data.get());
    entry["dtype"] = buffer.dtype.str();
    entry["shape"] = exprList(buffer.shape);
    entry["strides"] = exprList(buffer.strides);
    entry["elem_offset"] = buffer.elemOffset ? expr(buffer.elemOffset) : Json(nullptr);
    entry["scope"] = buffer.scope.str();
    entry["axis_separators"] = buffer.axisSeparators;
    entry["layout"] = buffer.layout.empty() ? Json(nullptr) : Json(buffer.layout.str());
    int id = it->second;
    buffers_.push_back(std::move(entry));
    return id;
  }

  Json layoutTransform(const LayoutTransform &transform) {
    Json node = Json::object();
    node["buffer"] = declareBuffer(*transform.buffer, "implicit");
    addLoc(node, transform.loc);
    Json initial = Json::array();
    for (const Var &var : transform.map->initialIndices)
      initial.push_back(varRef(var.get()));
    node["initial_indices"] = std::move(initial);
    node["final_indices"] = exprList(transform.map->finalIndices);
    node["axis_separators"] = transform.map->axisSeparators;
    node["pad_value"] = transform.padValue ? expr(transform.padValue) : Json(nullptr);
    return node;
  }

  Json expr(const Expr &e) {
    const ExprNode *base = e.get();
    if (base->kind() == ExprKind::Var)
      return varRef(static_cast<const VarNode *>(base));
    Json node = start(exprKindName(base->kind()), base->loc);
    node["dtype"] = base->type.str();
    visitExpr(base, node);
    return node;
  }

  Json stmt(const Stmt &s) {
    Json node = start(stmtKindName(s->kind()), s->loc);
    visitStmt(s, node);
    return node;
  }

  // ---- the fields of each expression (ExprFunctor); variables are references (varRef) ----

  void visitVar(const VarNode *, Json &) override {}
  void visitIntImm(const IntImmNode *op, Json &node) override { node["value"] = op->value; }
  void visitFloatImm(const FloatImmNode *op, Json &node) override { node["value"] = floatValue(op->value); }
  void visitStringImm(const StringImmNode *op, Json &node) override { node["value"] = op->value; }
  void visitBinary(const BinaryNode *op, Json &node) override {
    node["op"] = binaryOpName(op->op);
    node["a"] = expr(op->a);
    node["b"] = expr(op->b);
  }
  void visitNot(const NotNode *op, Json &node) override { node["a"] = expr(op->a); }
  void visitSelect(const SelectNode *op, Json &node) override {
    node["condition"] = expr(op->condition);
    node["true_value"] = expr(op->trueValue);
    node["false_value"] = expr(op->falseValue);
  }
  void visitCast(const CastNode *op, Json &node) override { node["value"] = expr(op->value); }
  void visitRamp(const RampNode *op, Json &node) override {
    node["base"] = expr(op->base);
    node["stride"] = expr(op->stride);
    node["lanes"] = op->lanes;
  }
  void visitBroadcast(const BroadcastNode *op, Json &node) override {
    node["value"] = expr(op->value);
    node["lanes"] = op->lanes;
  }
  void visitLet(const LetNode *op, Json &node) override {
    node["var"] = varRef(op->var.get());
    node["value"] = expr(op->value);
    node["body"] = expr(op->body);
  }
  void visitCall(const CallNode *op, Json &node) override {
    node["op"] = op->op.str();
    node["args"] = exprList(op->args);
  }
  void visitBufferLoad(const BufferLoadNode *op, Json &node) override {
    node["buffer"] = declareBuffer(*op->buffer, "implicit");
    node["indices"] = exprList(op->indices);
  }

  // ---- the fields of each statement (StmtFunctor) ----

  void visitBufferStore(const BufferStoreNode *op, Json &node) override {
    node["buffer"] = declareBuffer(*op->buffer, "implicit");
    node["indices"] = exprList(op->indices);
    node["value"] = expr(op->value);
  }
  void visitFor(const ForNode *op, Json &node) override {
    node["loop_var"] = varRef(op->loopVar.get());
    node["min"] = expr(op->min);
    node["extent"] = expr(op->extent);
    node["for_kind"] = forKindName(op->forKind);
    node["thread_tag"] = op->threadTag.empty() ? Json(nullptr) : Json(op->threadTag.str());
    node["annotations"] = op->annotations.isNone() ? Json::object() : attrJson(op->annotations);
    node["body"] = stmt(op->body);
  }
  void visitWhile(const WhileNode *op, Json &node) override {
    node["condition"] = expr(op->condition);
    node["body"] = stmt(op->body);
  }
  void visitIfThenElse(const IfThenElseNode *op, Json &node) override {
    node["condition"] = expr(op->condition);
    node["then"] = stmt(op->thenCase);
    node["else"] = op->elseCase ? stmt(op->elseCase) : Json(nullptr);
  }
  void visitLetStmt(const LetStmtNode *op, Json &node) override {
    node["var"] = varRef(op->var.get());
    node["value"] = expr(op->value);
    node["body"] = stmt(op->body);
  }
  void visitAllocate(const AllocateNode *op, Json &node) override {
    node["buffer_var"] = varRef(op->bufferVar.get());
    node["dtype"] = op->dtype.str();
    node["extents"] = exprList(op->extents);
    node["scope"] = op->scope.empty() ? std::string(scope::kGlobal) : op->scope.str();
    node["body"] = stmt(op->body);
  }
  void visitDeclBuffer(const DeclBufferNode *op, Json &node) override {
    node["buffer"] = declareBuffer(*op->buffer, "decl_buffer");
    node["allocates"] = op->allocates;
    node["body"] = stmt(op->body);
  }
  void visitAllocBuffer(const AllocBufferNode *op, Json &node) override {
    node["buffer"] = declareBuffer(*op->buffer, "alloc_buffer");
    node["body"] = stmt(op->body);
  }
  void visitAttrStmt(const AttrStmtNode *op, Json &node) override {
    node["node"] = op->reducer ? reducer(*op->reducer) : expr(op->node);
    node["key"] = op->key.str();
    if (op->isThreadLaunch())
      node["thread_tag"] = op->threadTag.str();
    node["value"] = expr(op->value);
    node["body"] = stmt(op->body);
  }
  void visitAssertStmt(const AssertStmtNode *op, Json &node) override {
    node["condition"] = expr(op->condition);
    node["message"] = op->message;
  }
  void visitEvaluate(const EvaluateNode *op, Json &node) override { node["value"] = expr(op->value); }
  void visitSeqStmt(const SeqStmtNode *op, Json &node) override {
    Json list = Json::array();
    for (const Stmt &child : op->stmts)
      list.push_back(stmt(child));
    node["stmts"] = std::move(list);
  }
  void visitBlock(const BlockNode *op, Json &node) override { block(*op, node); }

  Json region(const BufferRegion &r) {
    Json ranges = Json::array();
    for (const Range &range : r.region)
      ranges.push_back(Json{{"min", expr(range.min)}, {"extent", expr(range.extent)}});
    return Json{{"buffer", declareBuffer(*r.buffer, "implicit")}, {"region", std::move(ranges)}};
  }

  void block(const BlockNode &op, Json &node) {
    node["name"] = op.name.str();
    Json iters = Json::array();
    for (const BlockIterVar &iv : op.iterVars)
      iters.push_back(Json{{"var", varRef(iv.var.get())},
                           {"kind", iterKindName(iv.kind)},
                           {"min", expr(iv.min)},
                           {"extent", expr(iv.extent)},
                           {"value", expr(iv.value)}});
    node["iter_vars"] = std::move(iters);
    node["predicate"] = op.predicate ? expr(op.predicate) : Json(nullptr);
    for (const auto &[key, regions] : {std::pair{"reads", &op.reads}, std::pair{"writes", &op.writes}}) {
      Json list = Json::array();
      for (const BufferRegion &r : *regions)
        list.push_back(region(r));
      node[key] = std::move(list);
    }
    Json allocs = Json::array();
    for (const Buffer &b : op.allocBuffers)
      allocs.push_back(declareBuffer(*b, "alloc_buffer"));
    node["alloc_buffers"] = std::move(allocs);
    Json matches = Json::array();
    for (const MatchBufferRegion &m : op.matchBuffers)
      matches.push_back(Json{{"buffer", declareBuffer(*m.buffer, "match_buffer")}, {"source", region(m.source)}});
    node["match_buffers"] = std::move(matches);
    node["annotations"] = op.annotations.isNone() ? Json::object() : attrJson(op.annotations);
    node["init"] = op.init ? stmt(op.init) : Json(nullptr);
    node["body"] = stmt(op.body);
  }

  const SourceInfo *sources_;
  NameTable varNames_, bufferNames_;
  std::unordered_map<const VarNode *, std::string> vars_;
  std::unordered_map<const BufferNode *, int> bufferIds_;
  Json buffers_ = Json::array();
};
} // namespace

std::string emitJson(const Module &module, const SourceInfo *sources) {
  Json functions = Json::array();
  for (const PrimFunc &function : module.functions)
    functions.push_back(FunctionEmitter(sources).emit(*function));
  Json moduleJson = Json::object();
  moduleJson["name"] = module.name;
  moduleJson["is_ir_module"] = module.isIRModule;
  moduleJson["functions"] = std::move(functions);
  Json document = Json::object();
  document["format"] = "tirlower-ir";
  document["version"] = 1;
  document["module"] = std::move(moduleJson);
  std::string text = document.dump(2);
  text += '\n';
  return text;
}

} // namespace tirlower
