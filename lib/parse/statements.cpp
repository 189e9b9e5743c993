// Statements: blocks (with declarations scoping the rest of their block), loops, branches,
// with-statements, attributes and asserts. Statements that begin with an expression
// (assignments, stores, lets, declarations, calls) are assignments.cpp.
#include "parse/parser_impl.h"
#include "ir/attrs.h"

namespace tirlower {

namespace {
constexpr uint32_t kMaxBlockDepth = 200;
constexpr size_t kMaxOpenDecls = 5000;

struct PopScope {
  ScopeStack &scope;
  ~PopScope() { scope.pop(); }
};
} // namespace

Stmt Parser::finishDecl(PendingDecl &d, Stmt body) {
  if (d.kind == PendingDecl::Kind::Attr && d.value && !func_.freeVars.empty())
    if (const auto *var = d.value.as<VarNode>())
      setLaunched(var, false); // the launch of a declared variable ends with its body
  return checked(d.loc, [&]() -> Stmt {
    switch (d.kind) {
    case PendingDecl::Kind::Let: return LetStmtNode::make(d.var, d.value, body, d.loc);
    case PendingDecl::Kind::Allocate: return AllocateNode::make(d.var, d.dtype, d.extents, d.name, body, d.loc);
    case PendingDecl::Kind::DeclBuffer: return DeclBufferNode::make(d.buffer, d.allocates, body, d.loc);
    case PendingDecl::Kind::AllocBuffer: return AllocBufferNode::make(d.buffer, body, d.loc);
    case PendingDecl::Kind::Attr:
      return AttrStmtNode::make(d.value, d.name, d.extents[0], body, d.loc, d.threadTag, d.reducer);
    }
    return body;
  });
}

Stmt Parser::parseBlock(bool newScope) {
  if (!at(Tok::Indent))
    fail(tokenRange(peek()), "expected an indented block");
  const Token &indent = peek();
  advance();
  if (blockDepth_ >= kMaxBlockDepth) {
    report({Severity::Error,
            tokenRange(indent),
            "nesting too deep (more than " + std::to_string(kMaxBlockDepth) + " levels)",
            {}});
    seek(pos_ - 1);
    skipBlock();
    return SeqStmtNode::make({});
  }
  ++blockDepth_;
  if (newScope)
    scope_.push();
  // The block's statements collect on blockStmts_ (shared by the nested blocks, so a block of
  // one statement allocates nothing); `segment` is where the statements after the last open
  // declaration begin, each frame remembers where those before it began.
  struct Frame {
    PendingDecl decl;
    size_t before;
  };
  struct Unwind {
    std::vector<Stmt> &stmts;
    size_t mark;
    ~Unwind() { stmts.resize(mark); }
  } unwind{blockStmts_, blockStmts_.size()};
  std::vector<Frame> frames;
  size_t segment = blockStmts_.size();
  while (!at(Tok::Dedent) && !at(Tok::EndOfFile)) {
    size_t start = pos_;
    size_t astMark = ast_.size(), childMark = children_.size();
    PendingDecl pending;
    bool opened = false;
    try {
      Stmt stmt = parseStatement(pending, opened);
      if (stmt)
        blockStmts_.push_back(std::move(stmt));
      if (opened) {
        // Each declaration nests the rest of its block in the IR; bound that depth so no
        // later recursive traversal (or destruction) of the tree can exhaust the stack.
        if (openDecls_ + 1 > kMaxOpenDecls)
          fail(pending.loc, "too many nested declarations (more than " + std::to_string(kMaxOpenDecls) +
                                "); the body of each declaration is the rest of its block");
        frames.push_back({std::move(pending), segment});
        segment = blockStmts_.size();
        ++openDecls_;
      }
    } catch (const StatementFailed &) {
      bool atBoundary =
          pos_ > start && (tokens_[pos_ - 1].kind == Tok::Newline || tokens_[pos_ - 1].kind == Tok::Dedent);
      if (!atBoundary)
        skipStatement();
    }
    ast_.resize(astMark);
    children_.resize(childMark);
    scratch_.clear();
  }
  accept(Tok::Dedent);
  openDecls_ -= frames.size();
  Stmt body = takeSequence(segment);
  for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
    try {
      blockStmts_.push_back(finishDecl(it->decl, body));
    } catch (const StatementFailed &) {
      blockStmts_.push_back(body);
    }
    body = takeSequence(it->before);
  }
  if (newScope)
    scope_.pop();
  --blockDepth_;
  return body;
}

Stmt Parser::takeSequence(size_t first) {
  auto begin = blockStmts_.begin() + static_cast<std::ptrdiff_t>(first);
  Stmt seq = blockStmts_.size() - first == 1 && !blockStmts_.back().as<SeqStmtNode>()
                 ? std::move(blockStmts_.back()) // what SeqStmtNode::make returns for it
                 : SeqStmtNode::make(std::vector<Stmt>(std::make_move_iterator(begin),
                                                       std::make_move_iterator(blockStmts_.end())));
  blockStmts_.resize(first);
  return seq;
}

Stmt Parser::parseStatement(PendingDecl &pending, bool &opened) {
  const Token &t = peek();
  switch (t.kind) {
  case Tok::KwFor: return parseFor();
  case Tok::KwIf: return parseIf();
  case Tok::KwWhile: return parseWhile();
  case Tok::KwWith: return parseWith(pending, opened);
  case Tok::KwAssert: return parseAssert();
  case Tok::KwPass:
    advance();
    expect(Tok::Newline, "end of line after 'pass'");
    return nullptr;
  case Tok::KwReturn: fail(tokenRange(t), "'return' is not supported in a prim_func");
  case Tok::KwElif:
  case Tok::KwElse: fail(tokenRange(t), std::string(tokenName(t.kind)) + " without a matching 'if'");
  case Tok::Indent: fail(tokenRange(peek(1)), "unexpected indent");
  case Tok::KwDef:
  case Tok::At:
  case Tok::KwClass: fail(tokenRange(t), "nested functions and classes are not supported");
  case Tok::Error: failSilently();
  default: return parseExpressionStatement(pending, opened);
  }
}

Stmt Parser::makeLoop(ForKind kind, Var var, Expr min, Expr extent, Stmt body, Symbol thread, AttrValue annotations,
                      SourceRange loc) {
  return checked(loc, [&] {
    return ForNode::make(std::move(var), std::move(min), std::move(extent), kind, std::move(body), thread,
                         std::move(annotations), loc);
  });
}

Stmt Parser::parseFor() {
  uint32_t begin = expect(Tok::KwFor, "'for'").begin;
  SmallList<Token, 2> targets;
  do {
    targets.push_back(expect(Tok::Name, "a loop variable name"));
  } while (accept(Tok::Comma));
  expect(Tok::KwIn, "'in'");
  uint32_t iter = parseExpr();
  expect(Tok::Colon, "':' after the loop header");
  SourceRange header = range(begin, node(iter).end);
  LoopIterator loop = parseLoopIterator(iter, targets.size(), header);
  expect(Tok::Newline, "end of line after ':'");

  scope_.push();
  PopScope pop{scope_};
  SmallList<Var, 2> vars;
  for (size_t k = 0; k < targets.size(); ++k) {
    SourceRange where = tokenRange(targets[k]);
    Var var = VarNode::make(Symbol(tokenText(targets[k])), loop.bounds[k].min->type, where);
    scope_.define(tokenText(targets[k]), {Binding::Kind::Var, var, nullptr, where});
    vars.push_back(var);
  }
  for (size_t k = 0; k < vars.size(); ++k)
    loopDomains_.push_back({vars[k].get(), loop.bounds[k]});
  struct PopDomains {
    std::vector<std::pair<const VarNode *, Range>> &domains;
    size_t size;
    ~PopDomains() { domains.resize(size); }
  } popDomains{loopDomains_, loopDomains_.size() - vars.size()};
  Stmt body = parseBlock();
  for (size_t k = vars.size(); k-- > 0;)
    body = makeLoop(loop.kind, vars[k], loop.bounds[k].min, loop.bounds[k].extent, body, loop.thread,
                    k + 1 == vars.size() ? loop.annotations : AttrValue(), header);
  return body;
}

// The iterator of `for ... in ITER:` (range, T.serial, T.parallel, T.vectorized, T.unroll,
// T.thread_binding, T.grid) for `variables` loop variables: the loops' kind and bounds.
Parser::LoopIterator Parser::parseLoopIterator(uint32_t iter, size_t variables, SourceRange header) {
  if (node(iter).kind != Ast::Call)
    fail(nodeRange(iter), "expected a loop iterator such as range(n), T.serial(n) or T.grid(n, m)");
  uint32_t callee = child(iter, 0);
  std::string_view name = builtinName(callee);
  bool isRange = node(callee).kind == Ast::Name && nodeText(callee) == "range";
  LoopIterator loop;
  if (isRange || name == "serial")
    loop.kind = ForKind::Serial;
  else if (name == "parallel")
    loop.kind = ForKind::Parallel;
  else if (name == "vectorized")
    loop.kind = ForKind::Vectorized;
  else if (name == "unroll")
    loop.kind = ForKind::Unrolled;
  else if (name == "thread_binding")
    loop.kind = ForKind::ThreadBinding;
  else if (name != "grid") {
    if (!name.empty() && name != "serial")
      unknownBuiltin(iter, name);
    fail(nodeRange(iter), "expected a loop iterator such as range(n), T.serial(n) or T.grid(n, m)");
  }
  if (name == "grid") {
    CallArgs args = callArgs(iter, name, 1, SIZE_MAX, {});
    if (args.positional.size() != variables)
      fail(header, "T.grid has " + std::to_string(args.positional.size()) + " extents but the loop has " +
                       std::to_string(variables) + " variable" + (variables == 1 ? "" : "s"));
    for (uint32_t arg : args.positional)
      loop.bounds.push_back(loopBounds(std::nullopt, arg));
    return loop;
  }
  CallArgs args = isRange                               ? callArgs(iter, "range", 1, 2, {})
                  : loop.kind == ForKind::ThreadBinding ? callArgs(iter, name, 1, 2, {"thread", "annotations"})
                                                        : callArgs(iter, name, 1, 2, {"annotations"});
  if (variables != 1)
    fail(header, "this loop binds one variable, not " + std::to_string(variables));
  if (args.positional.size() == 1)
    loop.bounds.push_back(loopBounds(std::nullopt, args.positional[0]));
  else
    loop.bounds.push_back(loopBounds(args.positional[0], args.positional[1]));
  if (uint32_t a = args.find("annotations"); a != UINT32_MAX) {
    if (node(a).kind != Ast::Dict)
      fail(nodeRange(a), "loop annotations must be a dict");
    loop.annotations = attrValue(a);
  }
  if (loop.kind == ForKind::ThreadBinding) {
    uint32_t tag = args.find("thread");
    if (tag == UINT32_MAX)
      fail(nodeRange(iter), "T.thread_binding needs thread=\"...\"");
    loop.thread = Symbol(stringLiteral(tag));
  }
  return loop;
}

// The min and extent of `range(lo, hi)` (`range(hi)` when no `lo`), unified to one type.
Range Parser::loopBounds(std::optional<uint32_t> lo, uint32_t hi) {
  SourceRange where = lo ? range(node(*lo).begin, node(hi).end) : nodeRange(hi);
  Typed a = lo ? lower(*lo) : Typed{IntImmNode::make(DataType::int32(), 0, where), true};
  Typed b = lower(hi);
  std::pair<Expr, Expr> mnMx = unify(a, b, where, "range");
  Expr mn = mnMx.first, mx = mnMx.second;
  if (!mn->type.isIndex())
    fail(where, "loop bounds must be scalar integers, not " + mn->type.str());
  const int64_t *cmin = asConstInt(mn), *cmax = asConstInt(mx);
  Expr extent;
  if (!lo || (cmin && *cmin == 0))
    extent = mx;
  else if (cmin && cmax)
    extent = checked(where, [&] { return IntImmNode::make(mn->type, *cmax - *cmin, where); });
  else
    extent = checked(where, [&] { return BinaryNode::make(BinaryOp::Sub, mx, mn, where); });
  return Range{mn, extent};
}

Stmt Parser::parseIf() {
  struct Branch {
    Expr condition;
    Stmt body;
    SourceRange loc;
  };
  SmallList<Branch, 2> branches; // if and (rarely) elif: no allocation
  Stmt elseCase;
  Tok keyword = Tok::KwIf;
  while (true) {
    uint32_t begin = expect(keyword, keyword == Tok::KwIf ? "'if'" : "'elif'").begin;
    uint32_t cond = parseExpr();
    expect(Tok::Colon, "':' after the condition");
    Expr condition = lowerIfCondition(cond);
    if (condition->type.isVector())
      fail(nodeRange(cond), "if condition must be a scalar bool, not " + condition->type.str());
    expect(Tok::Newline, "end of line after ':'");
    SourceRange loc = range(begin, node(cond).end);
    branches.push_back({condition, parseBlock(), loc});
    if (at(Tok::KwElif)) {
      keyword = Tok::KwElif;
      continue;
    }
    if (accept(Tok::KwElse)) {
      expect(Tok::Colon, "':' after 'else'");
      expect(Tok::Newline, "end of line after ':'");
      elseCase = parseBlock();
    }
    break;
  }
  for (size_t k = branches.size(); k-- > 0;) {
    Branch &b = branches[k];
    elseCase = checked(b.loc, [&] { return IfThenElseNode::make(b.condition, b.body, elseCase, b.loc); });
  }
  return elseCase;
}

Stmt Parser::parseWhile() {
  uint32_t begin = expect(Tok::KwWhile, "'while'").begin;
  uint32_t cond = parseExpr();
  expect(Tok::Colon, "':' after the condition");
  Expr condition = lowerBool(cond, "while condition");
  expect(Tok::Newline, "end of line after ':'");
  SourceRange loc = range(begin, node(cond).end);
  Stmt body = parseBlock();
  return checked(loc, [&] { return WhileNode::make(condition, body, loc); });
}

Stmt Parser::parseAssert() {
  uint32_t begin = expect(Tok::KwAssert, "'assert'").begin;
  uint32_t cond = parseExpr();
  std::string message;
  uint32_t end = node(cond).end;
  Expr condition = lowerBool(cond, "assert condition");
  if (accept(Tok::Comma)) {
    uint32_t text = parseExpr();
    if (node(text).kind != Ast::String)
      fail(nodeRange(text), "the assert message must be a string");
    message = stringLiteral(text);
    end = node(text).end;
  }
  expect(Tok::Newline, "end of line after the assert");
  SourceRange loc = range(begin, end);
  return checked(loc, [&] { return AssertStmtNode::make(condition, message, loc); });
}

Stmt Parser::parseWith(PendingDecl &pending, bool &opened) {
  (void)opened;
  uint32_t begin = expect(Tok::KwWith, "'with'").begin;
  uint32_t call = parseExpr();
  uint32_t asName = UINT32_MAX;
  if (accept(Tok::KwAs)) {
    const Token &name = expect(Tok::Name, "a name after 'as'");
    asName = makeNode(Ast::Name, name.begin, name.end);
  }
  expect(Tok::Colon, "':' after the with header");
  SourceRange loc = range(begin, node(call).end);
  bool launch = node(call).kind == Ast::Call && isLaunchCall(call);
  if (asName != UINT32_MAX && !launch)
    fail(nodeRange(asName), "'as' names the thread variable of T.launch_thread only");
  if (node(call).kind == Ast::Call && isBlockCall(call))
    return parseBlockStmt(call, loc);
  if (node(call).kind == Ast::Call && builtinName(child(call, 0)) == "init")
    return parseInit(call);
  if (!launch && (node(call).kind != Ast::Call || builtinName(child(call, 0)) != "attr"))
    fail(nodeRange(call), "unsupported 'with' statement; expected 'with T.sblock(\"name\"):', 'with T.init():', "
                          "'with T.attr(node, \"key\", value):' or 'with T.launch_thread(\"threadIdx.x\", n) as v:'");
  // The thread variable of `with T.launch_thread(...) as v:` is visible in the body only.
  scope_.push();
  PopScope pop{scope_};
  if (launch)
    lowerLaunch(call, asName, pending);
  else
    lowerAttr(call, pending);
  expect(Tok::Newline, "end of line after ':'");
  pending.loc = loc;
  Stmt body = parseBlock();
  return finishDecl(pending, body);
}

// T.attr(node, "key", value): the node is a variable (a buffer stands for its data), a string,
// or the T.comm_reducer of a "reduce_scope".
void Parser::lowerAttr(uint32_t call, PendingDecl &pending) {
  CallArgs args = callArgs(call, "attr", 3, 3, {});
  uint32_t target = args.positional[0];
  Expr attrNode;
  if (node(target).kind == Ast::Call && builtinName(child(target, 0)) == "comm_reducer") {
    pending.reducer = lowerCommReducer(target);
  } else if (node(target).kind == Ast::String) {
    attrNode = StringImmNode::make(stringLiteral(target), nodeRange(target));
  } else if (node(target).kind == Ast::Name) {
    const Binding *binding = scope_.find(nodeText(target));
    if (binding && binding->kind == Binding::Kind::Buffer) {
      attrNode = binding->buffer->data;
    } else {
      namingSubject_ = true; // a variable declared by T.int32() may be named here
      try {
        attrNode = lowerValue(target);
      } catch (...) {
        namingSubject_ = false;
        throw;
      }
      namingSubject_ = false;
    }
  } else {
    attrNode = lowerValue(target);
  }
  if (!pending.reducer && !attrNode.as<VarNode>() && !attrNode.as<StringImmNode>())
    fail(nodeRange(target), "the node of T.attr must be a variable, a buffer, a string or a T.comm_reducer");
  uint32_t key = args.positional[1];
  if (node(key).kind != Ast::String)
    fail(nodeRange(key), "the key of T.attr must be a string");
  if (pending.reducer && stringLiteral(key) != attr::kReduceScope)
    fail(nodeRange(key), "a T.comm_reducer is the node of a \"reduce_scope\" attribute only");
  if (isThreadLaunchKey(stringLiteral(key)))
    fail(nodeRange(key), "write a thread launch as T.launch_thread(\"threadIdx.x\", n)");
  uint32_t valueId = args.positional[2];
  Expr value = node(valueId).kind == Ast::String ? StringImmNode::make(stringLiteral(valueId), nodeRange(valueId))
                                                 : lowerValue(valueId);
  pending.kind = PendingDecl::Kind::Attr;
  pending.value = attrNode;
  pending.name = Symbol(stringLiteral(key));
  pending.extents = {value};
  pending.loc = nodeRange(call);
}

} // namespace tirlower
