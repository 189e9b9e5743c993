// Statements that begin with an expression: `B[i, j] = value` (a store), `x: T.int32 = value`
// (a let), `v_i, v_j = T.axis.remap(...)`, `name = T.<call>(...)` when the call declares a
// buffer, axes, a thread launch or a variable, and a call evaluated for its effect (the T.*
// statements). Blocks, loops, branches and the rest are statements.cpp.
#include "parse/parser_impl.h"

namespace tirlower {

Stmt Parser::parseExpressionStatement(PendingDecl &pending, bool &opened) {
  uint32_t first = parseExpr();
  if (at(Tok::Comma) && node(first).kind == Ast::Name) {
    parseTupleAssignment(first);
    return nullptr;
  }
  if (at(Tok::Colon) && node(first).kind == Ast::Name) {
    advance();
    parseAnnotatedAssignment(first, pending, opened);
    return nullptr;
  }
  if (at(Tok::Assign)) {
    advance();
    return parseAssignment(first, pending, opened);
  }
  expect(Tok::Newline, "end of line after the statement");
  return parseCallStatement(first, pending, opened);
}

// `v_i, v_j = T.axis.remap("SS", [i, j])`, after its first name.
void Parser::parseTupleAssignment(uint32_t first) {
  // v_i, v_j = T.axis.remap("SS", [i, j])
  std::vector<uint32_t> targets{first};
  while (accept(Tok::Comma))
    targets.push_back(parseExpr());
  expect(Tok::Assign, "'=' after the names");
  uint32_t valueNode = parseExpr();
  expect(Tok::Newline, "end of line after the assignment");
  for (uint32_t target : targets)
    if (node(target).kind != Ast::Name)
      fail(nodeRange(target), "tuple assignment binds names only");
  if (node(valueNode).kind != Ast::Call || axisName(child(valueNode, 0)).empty())
    fail(nodeRange(valueNode), "tuple assignment is only supported for T.axis.remap");
  parseAxis(targets, valueNode);
}

// `x: T.int32 = value` (TVM prints lets as `x: T.let[T.int32] = value`), after the colon.
void Parser::parseAnnotatedAssignment(uint32_t first, PendingDecl &pending, bool &opened) {
  uint32_t typeNode = parseExpr();
  expect(Tok::Assign, "'=' in an annotated assignment");
  uint32_t valueNode = parseExpr();
  expect(Tok::Newline, "end of line after the assignment");
  if (node(typeNode).kind == Ast::Subscript && builtinName(child(typeNode, 0)) == "let") {
    if (node(typeNode).count != 2)
      fail(nodeRange(typeNode), "T.let[...] takes one type, such as T.let[T.int32]");
    typeNode = child(typeNode, 1);
  }
  std::string_view typeName = builtinName(typeNode);
  std::optional<DataType> type = typeName.empty() ? std::nullopt : DataType::parse(typeName);
  if (!type || type->isVoid())
    fail(nodeRange(typeNode), "expected a type such as T.int32");
  std::string_view name = nodeText(first);
  SourceRange loc = range(node(first).begin, node(valueNode).end);
  try {
    Expr value = lowerAs(valueNode, *type);
    if (value->type != *type)
      fail(nodeRange(valueNode), "'" + std::string(name) + "' is declared " + type->str() +
                                     " but bound to a value of type " + value->type.str());
    Var var = type->isHandle() ? VarNode::makeHandle(Symbol(name), DataType::voidType(), Symbol(), nodeRange(first))
                               : VarNode::make(Symbol(name), *type, nodeRange(first));
    scope_.define(name, {Binding::Kind::Var, var, nullptr, nodeRange(first)});
    pending = {PendingDecl::Kind::Let, var, value, nullptr, false, {}, {}, {}, loc, {}, {}};
    opened = true;
  } catch (const StatementFailed &) {
    scope_.define(name, {Binding::Kind::Poisoned, nullptr, nullptr, nodeRange(first)});
    throw;
  }
}

// A statement that is an expression: a docstring, one of the T.* statements (func_attr,
// transform_layout, attr, launch_thread, thread intrinsics, block annotations, evaluate) or a
// call evaluated for its effect.
Stmt Parser::parseCallStatement(uint32_t first, PendingDecl &pending, bool &opened) {
  const AstNode n = node(first);
  if (n.kind == Ast::String)
    return nullptr; // a docstring
  if (n.kind != Ast::Call)
    fail(nodeRange(first), "expression statement has no effect; use T.evaluate(...) to keep it");
  std::string_view name = builtinName(child(first, 0));
  if (name == "func_attr") {
    parseFuncAttr(first);
    return nullptr;
  }
  if (name == "transform_layout") {
    parseTransformLayout(first);
    return nullptr;
  }
  if (name == "attr") {
    lowerAttr(first, pending);
    opened = true;
    return nullptr;
  }
  if (name == "launch_thread") {
    lowerLaunch(first, UINT32_MAX, pending);
    pending.loc = nodeRange(first);
    opened = true;
    return nullptr;
  }
  if (Stmt intrinsic = lowerThreadIntrinsic(first, name))
    return intrinsic;
  if (parseBlockAnnotation(first, name))
    return nullptr;
  if (name == "evaluate") {
    CallArgs args = callArgs(first, name, 1, 1, {});
    if (uint32_t arg = args.positional[0]; node(arg).kind == Ast::Call)
      if (Stmt intrinsic = lowerThreadIntrinsic(arg, builtinName(child(arg, 0))))
        return intrinsic;
    Expr value = lowerValue(args.positional[0]);
    return EvaluateNode::make(value, nodeRange(first));
  }
  if (name == "alloc_buffer" || name == "decl_buffer" || name == "buffer_decl" || name == "allocate" ||
      name == "match_buffer")
    fail(nodeRange(first), "the result of T." + std::string(name) + " must be assigned to a name");
  Expr value = lowerValue(first);
  return EvaluateNode::make(value, nodeRange(first));
}

Stmt Parser::parseAssignment(uint32_t target, PendingDecl &pending, bool &opened) {
  uint32_t valueNode = parseExpr();
  if (at(Tok::Assign))
    fail(tokenRange(peek()), "chained assignment is not supported");
  expect(Tok::Newline, "end of line after the assignment");
  SourceRange loc = range(node(target).begin, node(valueNode).end);
  const AstNode targetNode = node(target);
  if (targetNode.kind == Ast::Subscript)
    return parseBufferStore(target, valueNode, loc);
  if (targetNode.kind != Ast::Name)
    fail(nodeRange(target),
         targetNode.kind == Ast::Tuple ? "tuple assignment is not supported" : "cannot assign to this expression");
  std::string_view name = nodeText(target);
  try {
    if (node(valueNode).kind == Ast::Call && parseDeclaration(target, valueNode, loc, pending, opened))
      return nullptr;
    Expr value = lowerValue(valueNode);
    Var var =
        value->type.isHandle()
            ? VarNode::makeHandle(Symbol(name), value.as<VarNode>() ? value.as<VarNode>()->pointeeType : DataType(),
                                  value.as<VarNode>() ? value.as<VarNode>()->storageScope : Symbol(), nodeRange(target))
            : checked(loc, [&] { return VarNode::make(Symbol(name), value->type, nodeRange(target)); });
    scope_.define(name, {Binding::Kind::Var, var, nullptr, nodeRange(target)});
    pending = {PendingDecl::Kind::Let, var, value, nullptr, false, {}, {}, {}, loc, {}, {}};
    opened = true;
    return nullptr;
  } catch (const StatementFailed &) {
    scope_.define(name, {Binding::Kind::Poisoned, nullptr, nullptr, nodeRange(target)});
    throw;
  }
}

// `B[i, j] = value`: a store, the value checked against the access's type and lanes.
Stmt Parser::parseBufferStore(uint32_t target, uint32_t valueNode, SourceRange loc) {
  uint32_t base = child(target, 0);
  if (node(base).kind != Ast::Name)
    fail(nodeRange(base), "only buffer elements can be assigned");
  Buffer buffer = bufferNamed(base);
  std::vector<Expr> indices = lowerIndices(target);
  SourceRange access = nodeRange(target);
  DataType expected = checked(access, [&] { return accessType(*buffer, indices); });
  Typed value = lower(valueNode);
  Expr stored = value.literal ? typedLiteral(value, expected, nodeRange(valueNode)) : value.expr;
  if (stored->type.lanes() != expected.lanes()) {
    int indexLanes = expected.lanes() / buffer->dtype.lanes();
    fail(loc, "cannot store a value with " + std::to_string(stored->type.lanes()) + " lane" +
                  (stored->type.lanes() == 1 ? "" : "s") + " into '" + buffer->name.str() + "': the access has " +
                  std::to_string(expected.lanes()) + " lanes (" + std::to_string(indexLanes) + " index lane" +
                  (indexLanes == 1 ? "" : "s") + " x " + std::to_string(buffer->dtype.lanes()) + " element lane" +
                  (buffer->dtype.lanes() == 1 ? "" : "s") + ")");
  }
  if (stored->type != expected)
    fail(loc, "cannot store a value of type " + stored->type.str() + " into buffer '" + buffer->name.str() +
                  "' of type " + expected.str());
  return checked(loc, [&] { return BufferStoreNode::make(buffer, stored, std::move(indices), loc); });
}

// `name = T.<call>(...)` when the call declares something: a buffer view, block axes, a block's
// buffers, a matched buffer, a thread launch, a free variable or a buffer. False when the call
// is a value to bind.
bool Parser::parseDeclaration(uint32_t target, uint32_t valueNode, SourceRange loc, PendingDecl &pending,
                              bool &opened) {
  uint32_t calleeNode = child(valueNode, 0);
  if (node(calleeNode).kind == Ast::Attr && nodeName(calleeNode) == "view" &&
      node(child(calleeNode, 0)).kind == Ast::Name && nodeText(child(calleeNode, 0)) != "T") {
    declareView(target, valueNode, pending);
    pending.loc = loc;
    opened = true;
    return true;
  }
  std::string_view callee = builtinName(calleeNode);
  if (!axisName(calleeNode).empty()) {
    parseAxis({target}, valueNode);
    return true;
  }
  bool inBlockHeader = block_ && blockDepth_ == block_->depth;
  if (inBlockHeader && (callee == "sblock_alloc_buffer" || (callee == "alloc_buffer" && block_->legacy) ||
                        (callee == "match_buffer" && node(valueNode).count > 1 &&
                         node(child(valueNode, 1)).kind == Ast::Subscript))) {
    parseBlockBuffer(target, valueNode, callee);
    return true;
  }
  if (callee == "sblock_alloc_buffer") // outside blocks: the root block's allocation
    callee = "alloc_buffer";
  if (callee == "match_buffer") {
    parseMatchBuffer(target, valueNode);
    return true;
  }
  if (callee == "launch_thread") {
    lowerLaunch(valueNode, target, pending);
    pending.loc = loc;
    opened = true;
    return true;
  }
  if (declareFreeVar(target, valueNode))
    return true;
  if (callee == "alloc_buffer" || callee == "decl_buffer" || callee == "buffer_decl" || callee == "Buffer" ||
      callee == "allocate" || callee == "alloc_shared" || callee == "alloc_local") {
    declareBuffer(target, valueNode, callee, pending);
    pending.loc = loc;
    opened = true;
    return true;
  }
  return false;
}

} // namespace tirlower
