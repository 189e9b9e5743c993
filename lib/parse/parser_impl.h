// Internal to lib/parse: the parser state shared by the syntax, expression and statement
// files. Expressions are first parsed into a small arena AST (reset after each statement),
// then lowered to typed IR with the names in scope; statements are lowered as they are read.
#pragma once

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/function.h"
#include "ir/intrinsics.h"
#include "parse/lexer.h"
#include "parse/parser.h"
#include "parse/source_manager.h"

namespace tirlower {

enum class Ast : uint8_t {
  Name,
  Int,
  Float,
  String,
  True,
  False,
  None,
  Attr,      // children: [base]; name = the attribute
  Call,      // children: [callee, args..., keywords...]
  Keyword,   // children: [value]; name = the keyword
  Subscript, // children: [base, indices...]
  Slice,     // children: [start, stop, step] (Empty when omitted)
  Empty,
  Binary,  // children: [a, b]; op = the operator token
  Compare, // children: [a, b]; op = the operator token
  And,
  Or,
  Not,
  Neg,
  Invert, // ~x
  Tuple,
  List,
  Dict,   // children: key, value, key, value, ...
  Lambda, // children: [params (Name)..., body]
};

struct AstNode {
  Ast kind;
  Tok op = Tok::Error;
  uint16_t depth = 1;
  uint32_t begin = 0, end = 0;         // source range of the whole construct
  uint32_t nameBegin = 0, nameEnd = 0; // Attr and Keyword names
  uint32_t first = 0, count = 0;       // children, in Parser::children_
};

// A list whose first N items live inline: the loop targets, variables and bounds of a `for`
// (nearly always one) without an allocation each.
template <typename T, size_t N> class SmallList {
public:
  void push_back(T value) {
    if (size_ < N)
      inline_[size_] = std::move(value);
    else
      overflow_.push_back(std::move(value));
    ++size_;
  }
  size_t size() const { return size_; }
  T &operator[](size_t k) { return k < N ? inline_[k] : overflow_[k - N]; }
  const T &operator[](size_t k) const { return k < N ? inline_[k] : overflow_[k - N]; }

private:
  std::array<T, N> inline_{};
  std::vector<T> overflow_;
  size_t size_ = 0;
};

// An append-only arena (the AST nodes, their children lists): appends inline (std::vector's
// push_back was an out-of-line call per node and reloaded its bounds per child); resize only
// shrinks. Storage is kept across statements.
template <typename T> class Arena {
public:
  size_t size() const { return size_; }
  T &operator[](size_t k) { return items_[k]; }
  const T &operator[](size_t k) const { return items_[k]; }
  uint32_t push(const T &item) {
    if (size_ == items_.size()) [[unlikely]]
      grow(1);
    items_[size_] = item;
    return static_cast<uint32_t>(size_++);
  }
  // Room for `count` more items, to be written through the returned pointer.
  T *append(size_t count) {
    if (items_.size() - size_ < count) [[unlikely]]
      grow(count);
    T *out = items_.data() + size_;
    size_ += count;
    return out;
  }
  void resize(size_t size) { size_ = size; }
  void clear() { size_ = 0; }
  void reserve(size_t size) {
    if (items_.size() < size)
      items_.resize(size);
  }

private:
  [[gnu::noinline]] void grow(size_t count) {
    items_.resize(std::max<size_t>({256, 2 * items_.size(), size_ + count}));
  }
  std::vector<T> items_;
  size_t size_ = 0;
};
using AstArena = Arena<AstNode>;

// Thrown to abandon the current statement; the diagnostic is already reported (or is a
// consequence of an earlier error and stays silent).
struct StatementFailed {};

// What a name refers to in the current scope.
struct Binding {
  enum class Kind : uint8_t { Var, Buffer, Poisoned };
  Kind kind = Kind::Poisoned;
  Var var;
  Buffer buffer;
  SourceRange loc;
};

// Scopes as one vector of bindings with marks; a hash table from name to the innermost binding,
// each binding remembering the one it shadows. Pushing and popping never copies a scope, and
// nothing allocates once the table has grown to the function's number of distinct names.
class ScopeStack {
public:
  void push() { marks_.push_back(static_cast<uint32_t>(entries_.size())); }
  void pop();
  void define(std::string_view name, Binding binding);
  const Binding *find(std::string_view name) const;
  // The binding of `name` declared in the innermost scope, if any.
  const Binding *findInCurrentScope(std::string_view name) const;
  // Every visible name (for "did you mean").
  std::vector<std::string_view> visibleNames() const;
  void clear();

private:
  struct Entry {
    std::string_view name;
    Binding binding;
    uint32_t shadowed; // index of the shadowed entry, or UINT32_MAX
    uint32_t slot;     // of its name in slots_ (a name keeps its slot until clear())
  };
  // Open addressing with linear probing. A name keeps its slot once seen (until clear());
  // `latest` is UINT32_MAX while no binding of it is visible.
  struct Slot {
    std::string_view name;
    uint32_t hash = 0;
    uint32_t latest = UINT32_MAX;
  };
  static uint32_t hashName(std::string_view name);
  static bool sameName(std::string_view a, std::string_view b);
  Slot *findSlot(std::string_view name, uint32_t hash);
  const Slot *findSlot(std::string_view name) const;
  Slot &insertSlot(std::string_view name);
  std::vector<Entry> entries_;
  std::vector<uint32_t> marks_;
  std::vector<Slot> slots_; // a power of two in size, at most half full
  size_t usedSlots_ = 0;
};

// An expression under construction: `literal` marks a bare Python number whose type follows
// the other operand of a binary operation.
struct Typed {
  Expr expr;
  bool literal = false;
};

// A declaration statement whose body is the rest of the enclosing block; completed by
// Parser::parseBlock once that body is known.
struct PendingDecl {
  enum class Kind : uint8_t { Let, Allocate, DeclBuffer, AllocBuffer, Attr } kind = Kind::Let;
  Var var;
  Expr value;
  Buffer buffer;
  bool allocates = false;
  DataType dtype;
  std::vector<Expr> extents;
  Symbol name; // allocation scope or attribute key
  SourceRange loc;
  Symbol threadTag;    // Attr: a thread launch's tag (empty until inferred, see resolveThreadTags)
  CommReducer reducer; // Attr: reduce_scope
};

class Parser {
public:
  // The block whose header statements (T.axis, T.reads, T.where, ...) are being read.
  struct BlockScope {
    BlockNode::Fields fields;
    uint32_t depth = 0;  // blockDepth_ inside its body
    bool legacy = false; // T.block (before TVM 0.25): T.alloc_buffer in its header allocates for the block
  };

  Parser(const SourceManager &sources, uint32_t fileId, DiagnosticSink &diagnostics, ParseRange range);

  std::optional<Module> parseModule();
  // parseModule frees each function once it is parsed (checkParse).
  void discardFunctions() { discardFunctions_ = true; }
  std::optional<IndexMap> parseStandaloneIndexMap(DataType indexType);

  // The module-level symbolic extents (`n = TypeVar("n")`) declared so far: what a piece of the
  // same input parsed on its own starts from (parallel_parse.cpp).
  const std::vector<std::string> &typeVars() const { return typeVars_; }
  void setTypeVars(std::vector<std::string> typeVars) { typeVars_ = std::move(typeVars); }

private:
  friend struct StatementParser;
  // ---- tokens (syntax.cpp)
  // The reader stands at token pos_, read through cur_ up to the end of its run (curEnd_) and
  // through tokens_ past it: one load per look at the current token, where TokenStream's
  // operator[] found the token's chunk first.
  const Token &peek() const { return *cur_; }
  const Token &peek(size_t k) const { return cur_ + k < curEnd_ ? cur_[k] : tokens_[pos_ + k]; }
  bool at(Tok kind) const { return cur_->kind == kind; }
  // Moves to the next token.
  void advance() {
    ++pos_;
    if (++cur_ == curEnd_) [[unlikely]]
      seek(pos_);
  }
  // Moves to token `pos` (back, for error recovery, or on).
  [[gnu::noinline]] void seek(size_t pos) {
    pos_ = pos;
    cur_ = tokens_.run(pos, curEnd_);
  }
  bool accept(Tok kind) {
    if (!at(kind))
      return false;
    advance();
    return true;
  }
  const Token &expect(Tok kind, const char *what) {
    if (!at(kind)) [[unlikely]]
      expectFailed(what);
    const Token &t = *cur_;
    advance();
    return t;
  }
  [[noreturn, gnu::cold, gnu::noinline]] void expectFailed(const char *what);
  // Offsets come from the lexer and lie inside the source: no substr bounds check.
  std::string_view text(uint32_t begin, uint32_t end) const { return {source_.data() + begin, end - begin}; }
  std::string_view tokenText(const Token &t) const { return text(t.begin, t.end); }
  SourceRange range(uint32_t begin, uint32_t end) const { return {fileId_, begin, end}; }
  SourceRange tokenRange(const Token &t) const { return {fileId_, t.begin, t.end}; }
  [[noreturn]] void fail(SourceRange where, std::string message);
  [[noreturn]] void failWithNote(SourceRange where, std::string message, SourceRange noteAt, std::string note);
  [[noreturn]] void failSilently() { throw StatementFailed{}; }
  void report(Diagnostic diagnostic);
  void flushLexerDiagnostics(uint32_t upTo);
  void skipStatement();
  void skipFailedItem(size_t start);
  void releaseItemAst();
  void skipBlock();

  // ---- syntax (syntax.cpp): returns arena indices
  uint32_t parseExpr();
  uint32_t parseLambda();
  // Binary operators binding at least as tightly as `minPrecedence` (syntax.cpp's table).
  uint32_t parseBinary(int minPrecedence);
  uint32_t parseNot();
  uint32_t parseUnary();
  uint32_t parsePostfix();
  uint32_t parseAtom();
  uint32_t parseSubscriptItem();
  uint32_t parseCallArgument();
  // Comma-separated items up to `close`, into a node of `kind` (Tuple, List, Call, Subscript).
  void parseItems(Tok close, uint32_t (Parser::*item)(), std::vector<uint32_t> &out);
  uint32_t makeNode(Ast kind, uint32_t begin, uint32_t end, const uint32_t *children = nullptr, uint32_t count = 0,
                    Tok op = Tok::Error);
  // makeNode of a node without children (an atom), without its loops.
  uint32_t makeLeaf(Ast kind, uint32_t begin, uint32_t end) {
    return ast_.push({kind, Tok::Error, 1, begin, end, begin, end, static_cast<uint32_t>(children_.size()), 0});
  }
  [[noreturn, gnu::cold, gnu::noinline]] void failTooDeep(uint32_t begin, uint32_t end);
  void enterNesting(uint32_t at);
  const AstNode &node(uint32_t id) const { return ast_[id]; }
  uint32_t child(uint32_t id, uint32_t k) const { return children_[ast_[id].first + k]; }
  // The token text of a Name/Int/Float/String atom (parentheses around it excluded).
  std::string_view nodeText(uint32_t id) const { return text(ast_[id].nameBegin, ast_[id].nameEnd); }
  std::string_view nodeName(uint32_t id) const { return text(ast_[id].nameBegin, ast_[id].nameEnd); }
  SourceRange nodeRange(uint32_t id) const { return range(ast_[id].begin, ast_[id].end); }
  // "T.foo" -> "foo" when the node is an attribute of the name T; empty otherwise.
  std::string_view builtinName(uint32_t id, std::string_view module = "T") const;

  // ---- expressions (lower_expr.cpp, builtins.cpp)
  Typed lower(uint32_t id);
  Expr lowerValue(uint32_t id);                  // a literal gets its default type
  Expr lowerQuotedExtent(uint32_t id);           // "n * 8" in a shape
  Expr lowerAs(uint32_t id, DataType type);      // a literal gets `type`
  Expr lowerIndex(uint32_t id);                  // an integer scalar or vector index
  Expr lowerBool(uint32_t id, const char *what); // a condition
  Expr lowerIfCondition(uint32_t id);            // an `if` condition: bool, or an integer (!= 0)
  Typed lowerName(uint32_t id);
  Typed lowerBinary(uint32_t id);
  int64_t foldIntLiterals(Tok op, int64_t x, int64_t y, SourceRange where);
  double foldFloatLiterals(Tok op, double x, double y, SourceRange where);
  Typed lowerAttribute(uint32_t id);
  Typed lowerInvert(uint32_t id);
  Typed lowerNegation(uint32_t id);
  Typed lowerCompare(uint32_t id);
  Typed lowerSubscript(uint32_t id);
  std::vector<Expr> lowerIndices(uint32_t subscript);
  Typed lowerCall(uint32_t id);
  Typed lowerBuiltin(uint32_t id, std::string_view name);
  Typed lowerDtypeCall(uint32_t id, std::string_view name, DataType type);
  Typed lowerLet(uint32_t id, std::string_view name);
  Typed lowerBinaryBuiltin(uint32_t id, std::string_view name, BinaryOp binary, bool integersOnly);
  std::optional<Typed> lowerOperatorCall(uint32_t id, std::string_view name);
  Typed lowerIntrinsic(uint32_t id, const IntrinsicInfo &info);
  Typed typeLimit(uint32_t id, std::string_view name);
  // A call of `info` on lowered operands, its errors located at `where` or at the operand
  // (`operands`: their AST nodes, when there are some).
  Expr makeIntrinsicCall(const IntrinsicInfo &info, std::vector<Expr> args, std::optional<DataType> declared,
                         SourceRange where, const uint32_t *operands, std::string_view spelled = {});
  Expr lowerSlice(uint32_t id);
  Expr typedLiteral(const Typed &literal, DataType type, SourceRange where);
  std::pair<Expr, Expr> unify(const Typed &a, const Typed &b, SourceRange where, std::string_view op);
  Expr makeBinary(BinaryOp op, const Typed &a, const Typed &b, SourceRange where, std::string_view opText);
  Expr defaultTyped(const Typed &value, SourceRange where);
  int64_t intLiteral(uint32_t id);
  double floatLiteral(uint32_t id);
  std::string stringLiteral(uint32_t id);
  DataType dtypeArgument(uint32_t id);
  int64_t constantInt(uint32_t id, const char *what);
  // A lane count: a constant, or T.vscale() * k for a scalable vector ({k, true}).
  std::pair<int64_t, bool> laneCount(uint32_t id, const char *what);
  Buffer bufferNamed(uint32_t id);
  AttrValue attrValue(uint32_t id);
  IndexMap lowerIndexMap(uint32_t lambdaId, DataType indexType, size_t expectedInputs, const std::string &bufferName);
  [[noreturn]] void undefinedName(uint32_t id);
  [[noreturn]] void unknownBuiltin(uint32_t id, std::string_view name);
  // Consecutive children of one AST node, read through the parser's children array (indices,
  // not pointers: the array may grow while the arguments are in use). No allocation.
  class ChildRange {
  public:
    ChildRange() = default;
    ChildRange(const Arena<uint32_t> &store, uint32_t first, uint32_t count)
        : store_(&store), first_(first), count_(count) {}
    size_t size() const { return count_; }
    bool empty() const { return count_ == 0; }
    uint32_t operator[](size_t k) const { return (*store_)[first_ + k]; }
    class Iterator {
    public:
      Iterator(const ChildRange &range, size_t k) : range_(&range), k_(k) {}
      uint32_t operator*() const { return (*range_)[k_]; }
      Iterator &operator++() {
        ++k_;
        return *this;
      }
      bool operator!=(const Iterator &other) const { return k_ != other.k_; }

    private:
      const ChildRange *range_;
      size_t k_;
    };
    Iterator begin() const { return {*this, 0}; }
    Iterator end() const { return {*this, count_}; }

  private:
    const Arena<uint32_t> *store_ = nullptr;
    uint32_t first_ = 0, count_ = 0;
  };
  // Call arguments split into positional and keyword (Keyword nodes); checks counts and known
  // keywords.
  struct CallArgs {
    ChildRange positional;
    ChildRange keywords;
    const Parser *parser = nullptr;
    // The value node of keyword `key`, or UINT32_MAX.
    uint32_t find(std::string_view key) const;
  };
  // The arguments of a call or legacy subscript node `id` from child `first` on, unchecked.
  CallArgs splitArgs(uint32_t id, uint32_t first) const;
  CallArgs callArgs(uint32_t callId, std::string_view name, size_t minPositional, size_t maxPositional,
                    std::initializer_list<std::string_view> allowedKeywords);
  // IR node constructors throw IRTypeError; this turns one into a located error.
  template <typename F> auto checked(SourceRange where, F &&build) -> decltype(build()) {
    try {
      return build();
    } catch (const IRTypeError &e) {
      fail(where, e.what());
    }
  }

  // ---- statements and functions (statements.cpp, functions.cpp)
  void parseTopLevel(Module &module);
  void parseFunction(Module &module, uint32_t decoratorBegin, bool isPrivate);
  void parseClass(Module &module);
  void parseImport();
  void parseTypeVar();
  void parseTypeParams();
  void parseParams(PrimFuncNode::Fields &func);
  struct ParamSyntax;
  void bindSymbolicExtents(const std::vector<ParamSyntax> &params, PrimFuncNode::Fields &func);
  // A parameter as written: its name and the AST of its type.
  struct ParamSyntax {
    Token name;
    uint32_t type;
    bool isBuffer; // its type is T.Buffer(...)
  };
  std::vector<ParamSyntax> paramSyntax_; // the parameters of the function being read
  void bindScalarParam(const ParamSyntax &param, size_t k, PrimFuncNode::Fields &func);
  void bindBufferParam(const ParamSyntax &param, size_t k, PrimFuncNode::Fields &func);
  Stmt parseBlock(bool newScope = true);
  // SeqStmtNode::make of blockStmts_[first, end), which it then drops.
  Stmt takeSequence(size_t first);
  Stmt finishDecl(PendingDecl &decl, Stmt body);
  Stmt parseStatement(PendingDecl &pending, bool &opened);
  Stmt parseFor();
  // What a loop iterator says: the loops' kind, each loop's bounds, T.thread_binding's thread
  // and the annotations (of the innermost loop).
  struct LoopIterator {
    ForKind kind = ForKind::Serial;
    SmallList<Range, 2> bounds;
    Symbol thread;
    AttrValue annotations;
  };
  LoopIterator parseLoopIterator(uint32_t iter, size_t variables, SourceRange header);
  Range loopBounds(std::optional<uint32_t> lo, uint32_t hi);
  Stmt parseIf();
  Stmt parseWhile();
  Stmt parseWith(PendingDecl &pending, bool &opened);
  Stmt parseAssert();
  void lowerAttr(uint32_t call, PendingDecl &pending);
  Stmt parseExpressionStatement(PendingDecl &pending, bool &opened);
  void parseTupleAssignment(uint32_t first);
  void parseAnnotatedAssignment(uint32_t first, PendingDecl &pending, bool &opened);
  Stmt parseCallStatement(uint32_t first, PendingDecl &pending, bool &opened);
  Stmt parseAssignment(uint32_t target, PendingDecl &pending, bool &opened);
  Stmt parseBufferStore(uint32_t target, uint32_t valueNode, SourceRange loc);
  bool parseDeclaration(uint32_t target, uint32_t valueNode, SourceRange loc, PendingDecl &pending, bool &opened);
  void declareBuffer(uint32_t target, uint32_t call, std::string_view kind, PendingDecl &pending);
  // Shape, dtype and the keyword arguments shared by every buffer declaration; `first` is the
  // index of the shape among the positional arguments. A null `data` makes a fresh variable.
  Buffer buildBuffer(uint32_t nameNode, const CallArgs &args, size_t first, Var data, SourceRange loc,
                     Symbol defaultScope = {});
  std::vector<Expr> lowerShape(uint32_t id);
  void parseFuncAttr(uint32_t call);
  // Layouts (ir/layout.h): "layout=" of buffers and T.func_attr's "layout_requirements".
  SourceRange insideString(uint32_t id, size_t offset, size_t length);
  Layout layoutArgument(uint32_t id, const std::string &bufferName, size_t rank);
  // Symbol(layoutArgument(...).name()), remembered by the string as spelled (a module names the
  // same few layouts in every function).
  Symbol layoutSymbol(uint32_t id, const std::string &bufferName, size_t rank);
  struct LayoutMemo {
    std::string_view spelled; // the string token, quotes included
    Symbol name;
    size_t dims;
    bool anyRank;
  };
  std::vector<LayoutMemo> layoutMemo_;
  void parseLayoutRequirements(uint32_t dict);
  void parseTransformLayout(uint32_t call);
  void parseMatchBuffer(uint32_t target, uint32_t call);
  void declareView(uint32_t target, uint32_t call, PendingDecl &pending);
  // `A.view("int8")`: the view's dtype, shape and offset in `f` (declareView's).
  void viewAsDtype(const Buffer &base, uint32_t call, uint32_t dtypeArg, BufferNode::Fields &f);
  void defineBuffer(uint32_t nameNode, const Buffer &buffer);
  // ---- blocks (blocks.cpp)
  bool isBlockCall(uint32_t call) const;
  std::string_view axisName(uint32_t callee) const; // "spatial" for T.axis.spatial
  BlockScope *blockHeader(uint32_t id, const char *what);
  Stmt parseBlockStmt(uint32_t call, SourceRange loc);
  Stmt parseInit(uint32_t call);
  Range lowerRange(uint32_t id);
  Range boundsRange(uint32_t minNode, uint32_t endNode, SourceRange where, const char *what);
  BufferRegion lowerRegion(uint32_t id);
  bool parseBlockAnnotation(uint32_t call, std::string_view name);
  void parseAxis(const std::vector<uint32_t> &targets, uint32_t call);
  void parseBlockBuffer(uint32_t target, uint32_t call, std::string_view kind);

  // ---- GPU constructs (gpu.cpp)
  bool isLaunchCall(uint32_t call) const;
  // `x = T.launch_thread("threadIdx.x", 8)` (nameNode: x), `with T.launch_thread(...) as x:`,
  // `T.launch_thread(v, 8)` for a declared v (nameNode UINT32_MAX); defines x in the current scope.
  void lowerLaunch(uint32_t call, uint32_t nameNode, PendingDecl &pending);
  // `v = T.int32()` / `v = T.env_thread("threadIdx.x")`: a variable named before it is bound.
  bool declareFreeVar(uint32_t target, uint32_t call);
  // T.tvm_storage_sync("shared"), T.tvm_thread_allreduce(...) as statements; null otherwise.
  Stmt lowerThreadIntrinsic(uint32_t call, std::string_view name);
  CommReducer lowerCommReducer(uint32_t call);
  AttrValue lowerTarget(uint32_t call);
  // A variable `v = T.int32()` declared that no launch binds here: only an attribute names it.
  void checkFreeVarUse(uint32_t nameNode, const VarNode *var);
  void setLaunched(const VarNode *var, bool launched);
  // Gives the launches of variables declared by `v = T.int32()` (TVM prints no thread index
  // for them) the index their kernel implies, or reports that it cannot tell.
  Stmt resolveThreadTags(const Stmt &body);

  Stmt makeLoop(ForKind kind, Var var, Expr min, Expr extent, Stmt body, Symbol thread, AttrValue annotations,
                SourceRange loc);

  const SourceManager &sources_;
  uint32_t fileId_;
  std::string_view source_;
  DiagnosticSink &diagnostics_;
  // Lexical errors are held back (in source order) and merged with the parser's, which are
  // reported as they are found: the lexer runs ahead of the parser.
  struct LexerSink : DiagnosticSink {
    explicit LexerSink(Parser &p) : parser(p) {}
    void report(Diagnostic diagnostic) override;
    Parser &parser;
  } lexerSink_{*this};
  mutable TokenStream tokens_; // lexed on demand by peek()
  std::vector<Diagnostic> lexerDiagnostics_;
  size_t nextLexerDiagnostic_ = 0;
  size_t pos_ = 0;
  // Token pos_ and the end of its run (advance(), seek()).
  const Token *cur_ = nullptr, *curEnd_ = nullptr;
  bool failed_ = false;
  bool discardFunctions_ = false;
  uint32_t nesting_ = 0;
  uint32_t blockDepth_ = 0;
  size_t openDecls_ = 0; // declarations whose body (the rest of a block) is still open
  bool namingSubject_ = false; // lowering T.attr's node or T.launch_thread's variable
  bool matchingShape_ = false; // lowering a T.match_buffer of a parameter: T.int64() names are extents
  // Buffers of a block's T.match_buffer without a declared elem_offset: the match sets it.
  std::unordered_set<const BufferNode *> matchedWithoutOffset_;

  AstArena ast_;
  Arena<uint32_t> children_;
  std::vector<uint32_t> scratch_;
  std::vector<Stmt> blockStmts_; // the statements of the blocks being read (parseBlock)

  ScopeStack scope_;
  BlockScope *block_ = nullptr;
  bool sawTirxSpelling_ = false; // s_tir=, T.sblock: the module prints back in TVM 0.25-0.27's spelling
  // Module-level `n = TypeVar("n")` (TVM 0.27's symbolic extents), in order: a function whose
  // parameter annotations name one gets it as a trailing int64 scalar parameter.
  std::vector<std::string> typeVars_;
  std::vector<std::string> typeParams_; // the current function's `def f[n, m]`
  // The loops around the statement being read, innermost last: T.axis.remap takes their domains.
  std::vector<std::pair<const VarNode *, Range>> loopDomains_;
  std::unordered_set<std::string_view> functionNames_;
  // Per function being parsed.
  struct FunctionState {
    PrimFuncNode::Fields *fields = nullptr;
    // Variables declared by `v = T.int32()` / `v = T.env_thread("tag")` (tag empty for the
    // former). Until a launch binds one, it may only name an attribute's subject.
    struct FreeVar {
      const VarNode *var;
      Symbol tag;
      bool launched = false; // inside the body of its T.launch_thread
    };
    std::vector<FreeVar> freeVars;
    bool untaggedLaunches = false; // some launch of a T.int32() variable awaits its tag
    std::vector<std::pair<Var, size_t>> handleParams; // handle params awaiting match_buffer
    bool sawStatement = false;
    // Size variables first named in a quoted extent ("n * 8"), trailing scalar parameters; a
    // later `n = T.int32()` names the same variable.
    std::vector<Var> quotedExtentVars;
  } func_;
};

} // namespace tirlower
