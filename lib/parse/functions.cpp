// Modules and functions: imports, decorators, @I.ir_module classes, signatures; the public
// entry points parseModule and parseIndexMap; the scope stack.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/static_bounds.h"
#include "parse/parser_impl.h"

namespace tirlower {

// Names are short: comparing them in line beats calling memcmp.
bool ScopeStack::sameName(std::string_view a, std::string_view b) {
  if (a.size() != b.size())
    return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (a[k] != b[k])
      return false;
  return true;
}

uint32_t ScopeStack::hashName(std::string_view name) {
  uint32_t hash = 2166136261u; // FNV-1a: names are short
  for (char c : name)
    hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  return hash;
}

ScopeStack::Slot *ScopeStack::findSlot(std::string_view name, uint32_t hash) {
  if (slots_.empty())
    return nullptr;
  size_t mask = slots_.size() - 1;
  for (size_t k = hash & mask;; k = (k + 1) & mask) {
    Slot &slot = slots_[k];
    if (slot.name.data() == nullptr)
      return nullptr;
    if (slot.hash == hash && sameName(slot.name, name))
      return &slot;
  }
}

const ScopeStack::Slot *ScopeStack::findSlot(std::string_view name) const {
  return const_cast<ScopeStack *>(this)->findSlot(name, hashName(name));
}

ScopeStack::Slot &ScopeStack::insertSlot(std::string_view name) {
  uint32_t hash = hashName(name);
  if (Slot *slot = findSlot(name, hash))
    return *slot;
  if (2 * (usedSlots_ + 1) > slots_.size()) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(std::max<size_t>(64, old.size() * 2), Slot{});
    for (const Slot &slot : old)
      if (slot.name.data() != nullptr)
        for (size_t k = slot.hash & (slots_.size() - 1);; k = (k + 1) & (slots_.size() - 1))
          if (slots_[k].name.data() == nullptr) {
            slots_[k] = slot;
            break;
          }
    for (Entry &e : entries_) // the bindings' names moved with the table
      e.slot = static_cast<uint32_t>(findSlot(e.name, hashName(e.name)) - slots_.data());
  }
  size_t mask = slots_.size() - 1;
  size_t k = hash & mask;
  while (slots_[k].name.data() != nullptr)
    k = (k + 1) & mask;
  ++usedSlots_;
  slots_[k] = {name.data() ? name : std::string_view("", 0), hash, UINT32_MAX};
  return slots_[k];
}

void ScopeStack::clear() {
  entries_.clear();
  marks_.clear();
  if (usedSlots_ != 0)
    std::fill(slots_.begin(), slots_.end(), Slot{});
  usedSlots_ = 0;
}

void ScopeStack::pop() {
  uint32_t mark = marks_.back();
  marks_.pop_back();
  while (entries_.size() > mark) {
    Entry &e = entries_.back();
    slots_[e.slot].latest = e.shadowed;
    entries_.pop_back();
  }
}

void ScopeStack::define(std::string_view name, Binding binding) {
  Slot &slot = insertSlot(name);
  uint32_t shadowed = slot.latest;
  slot.latest = static_cast<uint32_t>(entries_.size());
  entries_.push_back({name, std::move(binding), shadowed, static_cast<uint32_t>(&slot - slots_.data())});
}

const Binding *ScopeStack::find(std::string_view name) const {
  const Slot *slot = findSlot(name);
  return slot && slot->latest != UINT32_MAX ? &entries_[slot->latest].binding : nullptr;
}

const Binding *ScopeStack::findInCurrentScope(std::string_view name) const {
  const Slot *slot = findSlot(name);
  if (!slot || slot->latest == UINT32_MAX)
    return nullptr;
  uint32_t mark = marks_.empty() ? 0 : marks_.back();
  return slot->latest >= mark ? &entries_[slot->latest].binding : nullptr;
}

std::vector<std::string_view> ScopeStack::visibleNames() const {
  std::vector<std::string_view> names;
  for (const Slot &slot : slots_)
    if (slot.name.data() != nullptr && slot.latest != UINT32_MAX)
      names.push_back(slot.name);
  std::sort(names.begin(), names.end());
  return names;
}

Parser::Parser(const SourceManager &sources, uint32_t fileId, DiagnosticSink &diagnostics, ParseRange range)
    : sources_(sources), fileId_(fileId), source_(sources.text(fileId)), diagnostics_(diagnostics) {
  uint32_t end = std::min<uint32_t>(range.end, static_cast<uint32_t>(source_.size()));
  tokens_.start(source_, fileId, std::min(range.begin, end), end, lexerSink_);
  seek(0);
  children_.reserve(512);
}

std::optional<Module> Parser::parseModule() {
  Module module;
  module.fileId = fileId_;
  while (!at(Tok::EndOfFile)) {
    size_t start = pos_;
    try {
      parseTopLevel(module);
    } catch (const StatementFailed &) {
      skipFailedItem(start);
    }
    releaseItemAst();
    if (discardFunctions_)
      module.functions.clear();
    if (pos_ == start)
      advance(); // a stray dedent or indent: never loop without progress
  }
  flushLexerDiagnostics(UINT32_MAX);
  if (failed_)
    return std::nullopt;
  if (sawTirxSpelling_)
    module.spelling = ScriptSpelling::Tirx;
  return module;
}

// After a top-level item (a function, a class's method) that failed and was reported at `start`:
// the rest of its statement is skipped unless it stopped at a statement boundary.
void Parser::skipFailedItem(size_t start) {
  if (pos_ == start || (tokens_[pos_ - 1].kind != Tok::Newline && tokens_[pos_ - 1].kind != Tok::Dedent))
    skipStatement();
}

// The AST of one top-level item is not needed once the item is lowered (or failed).
void Parser::releaseItemAst() {
  ast_.clear();
  children_.clear();
  scratch_.clear();
}

void Parser::parseTopLevel(Module &module) {
  const Token &t = peek();
  switch (t.kind) {
  case Tok::Newline:
  case Tok::Dedent: advance(); return;
  case Tok::Indent: fail(tokenRange(peek(1)), "unexpected indent");
  case Tok::KwFrom:
  case Tok::KwImport: parseImport(); return;
  case Tok::String: // module docstring
    advance();
    expect(Tok::Newline, "end of line");
    return;
  case Tok::At: break;
  case Tok::Name:
    if (peek(1).kind == Tok::Assign) {
      parseTypeVar();
      return;
    }
    fail(tokenRange(t), "expected '@T.prim_func' or '@I.ir_module'");
  case Tok::KwDef: fail(tokenRange(t), "a function needs the @T.prim_func decorator");
  case Tok::KwClass: fail(tokenRange(t), "a class needs the @I.ir_module decorator");
  case Tok::Error: failSilently();
  default: fail(tokenRange(t), "expected '@T.prim_func' or '@I.ir_module'");
  }
  uint32_t begin = expect(Tok::At, "'@'").begin;
  uint32_t decorator = parseExpr();
  expect(Tok::Newline, "end of line after the decorator");
  uint32_t callee = node(decorator).kind == Ast::Call ? child(decorator, 0) : decorator;
  if (builtinName(callee, "I") == "ir_module" && node(decorator).kind == Ast::Attr) {
    if (module.isIRModule)
      fail(nodeRange(decorator), "only one @I.ir_module class is allowed per input");
    parseClass(module);
    return;
  }
  if (builtinName(callee) != "prim_func") {
    skipStatement(); // the decorated function or class goes with its decorator
    fail(nodeRange(decorator), "expected '@T.prim_func' or '@I.ir_module'");
  }
  bool isPrivate = false;
  if (node(decorator).kind == Ast::Call) {
    // TVM 0.25-0.27 print s_tir=True on every function (schedulable TIR) and may print
    // check_well_formed=False; neither changes what the function computes.
    try {
      CallArgs args = callArgs(decorator, "prim_func", 0, 0, {"private", "s_tir", "check_well_formed"});
      for (std::string_view key : {"private", "s_tir", "check_well_formed"})
        if (uint32_t p = args.find(key); p != UINT32_MAX && node(p).kind != Ast::True && node(p).kind != Ast::False)
          fail(nodeRange(p), std::string(key) + "= takes True or False");
      if (uint32_t p = args.find("private"); p != UINT32_MAX)
        isPrivate = node(p).kind == Ast::True;
      sawTirxSpelling_ |= args.find("s_tir") != UINT32_MAX;
    } catch (const StatementFailed &) {
      skipStatement(); // the function goes with its decorator
      throw;
    }
  }
  parseFunction(module, begin, isPrivate);
}

// `from tvm.script import tirx as T`, `import tvm`: read as Python would and otherwise
// ignored (T, I and the rest are known names).
// `n = TypeVar("n")` at module level: TVM 0.27 prints one for each symbolic extent (a dynamic
// shape) that the functions after it use in their parameters' annotations.
void Parser::parseTypeVar() {
  const Token name = expect(Tok::Name, "a name");
  expect(Tok::Assign, "'='");
  uint32_t value = parseExpr();
  expect(Tok::Newline, "end of line");
  uint32_t callee = node(value).kind == Ast::Call ? child(value, 0) : UINT32_MAX;
  bool isTypeVar = callee != UINT32_MAX && ((node(callee).kind == Ast::Name && nodeText(callee) == "TypeVar") ||
                                            builtinName(callee, "typing") == "TypeVar");
  if (!isTypeVar)
    fail(nodeRange(value), "only a symbolic extent, " + std::string(tokenText(name)) + " = TypeVar(\"" +
                               std::string(tokenText(name)) + "\"), may be assigned outside a function");
  CallArgs args = callArgs(value, "TypeVar", 1, 1, {});
  if (node(args.positional[0]).kind != Ast::String)
    fail(nodeRange(args.positional[0]), "TypeVar takes the variable's name as a string");
  std::string declared = stringLiteral(args.positional[0]);
  if (declared != tokenText(name))
    fail(nodeRange(args.positional[0]), "TypeVar binding '" + std::string(tokenText(name)) +
                                            "' must match its declared name '" + declared + "'");
  if (std::find(typeVars_.begin(), typeVars_.end(), declared) == typeVars_.end())
    typeVars_.push_back(declared);
}

// `def f[n, m: int](...)`: PEP 695 type parameters, which TVM 0.27's parser also takes for
// symbolic extents (each an int64 variable, like a module-level TypeVar, for this function only).
void Parser::parseTypeParams() {
  while (!at(Tok::RBracket)) {
    const Token name = expect(Tok::Name, "a type parameter name");
    if (accept(Tok::Colon)) {
      const Token bound = expect(Tok::Name, "'int' after ':'");
      if (tokenText(bound) != "int")
        fail(tokenRange(bound), "a symbolic extent's type parameter is unannotated or annotated as int, not '" +
                                    std::string(tokenText(bound)) + "'");
    }
    if (at(Tok::Assign))
      fail(tokenRange(peek()), "a symbolic extent's type parameter takes no default");
    std::string text(tokenText(name));
    if (std::find(typeParams_.begin(), typeParams_.end(), text) != typeParams_.end())
      fail(tokenRange(name), "duplicate type parameter '" + text + "'");
    typeParams_.push_back(std::move(text));
    if (!accept(Tok::Comma))
      break;
  }
  expect(Tok::RBracket, "']' after the type parameters");
}

void Parser::parseImport() {
  auto dottedName = [&] {
    expect(Tok::Name, "a module name");
    while (accept(Tok::Dot))
      expect(Tok::Name, "a module name after '.'");
  };
  auto alias = [&] {
    if (accept(Tok::KwAs))
      expect(Tok::Name, "a name after 'as'");
  };
  if (accept(Tok::KwFrom)) {
    dottedName();
    expect(Tok::KwImport, "'import'");
    do {
      expect(Tok::Name, "a name to import");
      alias();
    } while (accept(Tok::Comma));
  } else {
    expect(Tok::KwImport, "'import'");
    do {
      dottedName();
      alias();
    } while (accept(Tok::Comma));
  }
  expect(Tok::Newline, "end of line after the import");
}

void Parser::parseClass(Module &module) {
  expect(Tok::KwClass, "'class' after @I.ir_module");
  const Token &name = expect(Tok::Name, "a class name");
  if (accept(Tok::LParen))
    expect(Tok::RParen, "')'");
  expect(Tok::Colon, "':' after the class name");
  expect(Tok::Newline, "end of line after ':'");
  module.isIRModule = true;
  module.name = std::string(tokenText(name));
  if (!accept(Tok::Indent))
    fail(tokenRange(peek()), "expected an indented class body");
  while (!at(Tok::Dedent) && !at(Tok::EndOfFile)) {
    size_t start = pos_;
    try {
      if (at(Tok::Newline) || at(Tok::String)) {
        advance();
        accept(Tok::Newline);
        continue;
      }
      if (!at(Tok::At))
        fail(tokenRange(peek()), "expected a @T.prim_func method in the @I.ir_module class");
      parseTopLevel(module);
    } catch (const StatementFailed &) {
      skipFailedItem(start);
    }
    releaseItemAst();
  }
  accept(Tok::Dedent);
}

void Parser::parseFunction(Module &module, uint32_t decoratorBegin, bool isPrivate) {
  expect(Tok::KwDef, "'def' after @T.prim_func");
  const Token name = expect(Tok::Name, "a function name");
  std::string_view nameText = tokenText(name);
  typeParams_.clear();
  if (accept(Tok::LBracket))
    parseTypeParams();
  expect(Tok::LParen, "'(' after the function name");
  PrimFuncNode::Fields fields;
  fields.name = Symbol(nameText);
  fields.isPrivate = isPrivate;
  fields.loc = range(decoratorBegin, name.end);
  func_ = FunctionState{};
  func_.fields = &fields;
  scope_.clear();
  scope_.push();
  bool headerOk = true;
  try {
    parseParams(fields);
  } catch (const StatementFailed &) {
    headerOk = false;
  }
  if (!headerOk) {
    skipStatement();
    func_ = FunctionState{};
    return;
  }
  if (accept(Tok::Arrow)) {
    uint32_t result = parseExpr();
    if (node(result).kind != Ast::None)
      fail(nodeRange(result), "a prim_func returns None");
  }
  expect(Tok::Colon, "':' after the function signature");
  expect(Tok::Newline, "end of line after ':'");
  size_t astMark = ast_.size(), childMark = children_.size();
  fields.body = parseBlock(false);
  if (func_.untaggedLaunches) {
    try {
      fields.body = resolveThreadTags(fields.body);
    } catch (const StatementFailed &) {
    }
  }
  ast_.resize(astMark);
  children_.resize(childMark);
  scope_.clear();
  // In parameter order (positions looked up once: the parse stays linear in the parameters).
  std::unordered_map<const VarNode *, size_t> position;
  for (size_t k = 0; k < fields.params.size(); ++k)
    position.emplace(fields.params[k].get(), k);
  auto index = [&](const Var &v) {
    auto it = position.find(v.get());
    return it == position.end() ? fields.params.size() : it->second;
  };
  std::stable_sort(fields.bufferMap.begin(), fields.bufferMap.end(),
                   [&](const BufferBinding &a, const BufferBinding &b) { return index(a.param) < index(b.param); });
  func_ = FunctionState{};
  if (!functionNames_.insert(nameText).second)
    fail(tokenRange(name), "redefinition of function '" + std::string(nameText) + "'");
  module.functions.push_back(checked(fields.loc, [&] { return PrimFuncNode::make(std::move(fields)); }));
  // What the user wrote can only access outside a buffer: an error here, not C that does.
  for (Diagnostic &error : staticBoundsErrors(*module.functions.back()))
    report(std::move(error));
}

// Scalars and handles are bound first, so buffer shapes may use any scalar parameter.
void Parser::parseParams(PrimFuncNode::Fields &func) {
  // The parameters collect in a member vector (no allocation per function); duplicates are
  // found by comparing with the earlier names while there are few, through a set beyond.
  constexpr size_t kLinearNames = 16;
  std::vector<ParamSyntax> &params = paramSyntax_;
  params.clear();
  std::unordered_set<std::string_view> names;
  while (!at(Tok::RParen)) {
    const Token name = expect(Tok::Name, "a parameter name");
    expect(Tok::Colon, "':' and a type after the parameter name");
    std::string_view text = tokenText(name);
    bool duplicate = false;
    if (params.size() < kLinearNames) {
      for (const ParamSyntax &p : params)
        duplicate = duplicate || tokenText(p.name) == text;
    } else {
      if (names.empty())
        for (const ParamSyntax &p : params)
          names.insert(tokenText(p.name));
      duplicate = !names.insert(text).second;
    }
    if (duplicate)
      fail(tokenRange(name), "duplicate parameter '" + std::string(text) + "'");
    params.push_back({name, parseExpr(), false});
    if (!accept(Tok::Comma))
      break;
  }
  expect(Tok::RParen, "')' after the parameters");
  func.params.resize(params.size());
  if ((!typeVars_.empty() || !typeParams_.empty()) && !params.empty())
    bindSymbolicExtents(params, func);
  for (size_t k = 0; k < params.size(); ++k) {
    uint32_t type = params[k].type;
    uint32_t callee = node(type).kind == Ast::Call || node(type).kind == Ast::Subscript ? child(type, 0) : type;
    params[k].isBuffer = builtinName(callee) == "Buffer";
    if (!params[k].isBuffer)
      bindScalarParam(params[k], k, func);
  }
  for (size_t k = 0; k < params.size(); ++k)
    if (params[k].isBuffer)
      bindBufferParam(params[k], k, func);
  // A failed parameter leaves a hole; keep the signature well formed for the rest of parsing.
  func.params.erase(std::remove_if(func.params.begin(), func.params.end(), [](const Var &v) { return !v; }),
                    func.params.end());
}

// The module's TypeVars and the function's type parameters named in the parameters' annotations
// (and not parameters themselves): each an int64 variable in scope and a trailing scalar
// parameter, in declaration order (the module's first). The C,
// LLVM and OpenCL ABIs pass buffers as plain pointers, so the caller passes each extent.
void Parser::bindSymbolicExtents(const std::vector<ParamSyntax> &params, PrimFuncNode::Fields &func) {
  std::unordered_set<std::string_view> paramNames;
  for (const ParamSyntax &p : params)
    paramNames.insert(tokenText(p.name));
  std::unordered_map<std::string_view, SourceRange> used;
  std::vector<uint32_t> stack;
  for (const ParamSyntax &p : params)
    stack.push_back(p.type);
  while (!stack.empty()) {
    uint32_t id = stack.back();
    stack.pop_back();
    if (node(id).kind == Ast::Name && !paramNames.count(nodeText(id)))
      used.emplace(nodeText(id), nodeRange(id));
    for (uint32_t k = 0; k < node(id).count; ++k)
      stack.push_back(child(id, k));
  }
  std::vector<std::string> declared = typeVars_;
  for (const std::string &name : typeParams_)
    if (std::find(declared.begin(), declared.end(), name) == declared.end())
      declared.push_back(name);
  for (const std::string &name : declared) {
    auto it = used.find(name);
    if (it == used.end())
      continue;
    Var var = VarNode::make(Symbol(name), DataType::int64(), it->second);
    scope_.define(var->name.view(), {Binding::Kind::Var, var, nullptr, it->second});
    func.params.push_back(var);
  }
}

// Parameter k, `name: T.int32` or `name: T.handle(dtype, scope)`: its variable, in scope (a
// failed one is poisoned in scope and leaves a hole in func.params).
void Parser::bindScalarParam(const ParamSyntax &param, size_t k, PrimFuncNode::Fields &func) {
  uint32_t type = param.type;
  std::string_view name = tokenText(param.name);
  SourceRange where = tokenRange(param.name);
  uint32_t callee = node(type).kind == Ast::Call || node(type).kind == Ast::Subscript ? child(type, 0) : type;
  std::string_view typeName = builtinName(callee);
  try {
    Var var;
    if (typeName == "handle") {
      DataType pointee;
      Symbol storage;
      if (node(type).kind == Ast::Call) {
        CallArgs args = callArgs(type, "handle", 0, 2, {"dtype", "scope"});
        uint32_t d = args.positional.size() > 0 ? args.positional[0] : args.find("dtype");
        uint32_t s = args.positional.size() > 1 ? args.positional[1] : args.find("scope");
        if (d != UINT32_MAX)
          pointee = dtypeArgument(d);
        if (s != UINT32_MAX)
          storage = Symbol(stringLiteral(s));
      }
      var = VarNode::makeHandle(Symbol(name), pointee, storage, where);
      func_.handleParams.emplace_back(var, k);
    } else {
      std::optional<DataType> dtype =
          typeName.empty() || node(type).kind != Ast::Attr ? std::nullopt : DataType::parse(typeName);
      if (!dtype || dtype->isVoid() || dtype->isHandle()) {
        if (!typeName.empty() && node(type).kind == Ast::Attr)
          fail(nodeRange(type), "unknown parameter type 'T." + std::string(typeName) + "'");
        fail(nodeRange(type), "expected a parameter type: T.Buffer(...), T.handle or a scalar type such as T.int32");
      }
      var = VarNode::make(Symbol(name), *dtype, where);
    }
    func.params[k] = var;
    scope_.define(name, {Binding::Kind::Var, var, nullptr, where});
  } catch (const StatementFailed &) {
    scope_.define(name, {Binding::Kind::Poisoned, nullptr, nullptr, where});
  }
}

// Parameter k, `name: T.Buffer(shape, dtype, ...)` (or the legacy T.Buffer[shape, dtype]): its
// data variable and buffer, in scope (a failed one is poisoned, as for scalars).
void Parser::bindBufferParam(const ParamSyntax &param, size_t k, PrimFuncNode::Fields &func) {
  uint32_t type = param.type;
  uint32_t nameNode = makeNode(Ast::Name, param.name.begin, param.name.end);
  std::string_view name = tokenText(param.name);
  try {
    CallArgs args;
    if (node(type).kind == Ast::Subscript) {
      // Legacy T.Buffer[(16, 64), "float32"].
      args = splitArgs(type, 1);
      if (args.positional.size() > 2)
        fail(nodeRange(type), "T.Buffer[...] takes a shape and a dtype");
    } else if (node(type).kind == Ast::Call) {
      args = callArgs(type, "Buffer", 1, 2,
                      {"shape", "dtype", "strides", "elem_offset", "scope", "axis_separators", "layout", "align",
                       "offset_factor", "data", "buffer_type"});
      if (uint32_t d = args.find("data"); d != UINT32_MAX)
        fail(nodeRange(d), "data= is not allowed on a parameter buffer");
    } else {
      fail(nodeRange(type), "T.Buffer needs a shape: T.Buffer((16,), \"float32\")");
    }
    uint32_t dtypeNode = args.positional.size() > 1 ? args.positional[1] : args.find("dtype");
    DataType dtype = dtypeNode == UINT32_MAX ? DataType::float32() : dtypeArgument(dtypeNode);
    uint32_t scopeNode = args.find("scope");
    Symbol storage = scopeNode == UINT32_MAX ? globalScope() : Symbol(stringLiteral(scopeNode));
    Var data = VarNode::makeHandle(Symbol(name), dtype, storage, tokenRange(param.name));
    Buffer buffer = buildBuffer(nameNode, args, 0, data, range(param.name.begin, node(type).end));
    func.params[k] = data;
    func.bufferMap.push_back({data, buffer});
    scope_.define(name, {Binding::Kind::Buffer, nullptr, buffer, tokenRange(param.name)});
  } catch (const StatementFailed &) {
    scope_.define(name, {Binding::Kind::Poisoned, nullptr, nullptr, tokenRange(param.name)});
  }
}

std::optional<IndexMap> Parser::parseStandaloneIndexMap(DataType indexType) {
  std::optional<IndexMap> result;
  try {
    while (accept(Tok::Newline)) {
    }
    uint32_t lambda = parseExpr();
    accept(Tok::Newline);
    if (!at(Tok::EndOfFile))
      fail(tokenRange(peek()), "unexpected text after the index map");
    scope_.push();
    result = lowerIndexMap(lambda, indexType, SIZE_MAX, "");
    scope_.pop();
  } catch (const StatementFailed &) {
    result.reset();
  }
  flushLexerDiagnostics(UINT32_MAX);
  if (failed_)
    return std::nullopt;
  return result;
}

std::optional<Module> parseModule(const SourceManager &sources, uint32_t fileId, DiagnosticSink &diagnostics,
                                  ParseRange range) {
  Parser parser(sources, fileId, diagnostics, range);
  return parser.parseModule();
}

bool checkParse(const SourceManager &sources, uint32_t fileId, DiagnosticSink &diagnostics, ParseRange range) {
  Parser parser(sources, fileId, diagnostics, range);
  parser.discardFunctions();
  return parser.parseModule().has_value();
}

std::optional<IndexMap> parseIndexMap(const SourceManager &sources, uint32_t fileId, DiagnosticSink &diagnostics,
                                      DataType indexType, ParseRange range) {
  Parser parser(sources, fileId, diagnostics, range);
  return parser.parseStandaloneIndexMap(indexType);
}

} // namespace tirlower
