// Buffer declarations (parameters, match_buffer, alloc_buffer, decl_buffer, T.Buffer aliases,
// allocate), T.func_attr and T.transform_layout.
#include "parse/parser_impl.h"

#include "ir/attrs.h"
#include "ir/storage_scope.h"

namespace tirlower {

std::vector<Expr> Parser::lowerShape(uint32_t id) {
  std::vector<Expr> shape;
  auto add = [&](uint32_t item) {
    Expr extent = node(item).kind == Ast::String ? lowerQuotedExtent(item) : lowerValue(item);
    if (!extent->type.isIndex())
      fail(nodeRange(item), "buffer extents must be scalar integers, not " + extent->type.str());
    if (const int64_t *c = asConstInt(extent); c && *c < 0)
      fail(nodeRange(item), "buffer extent " + std::to_string(*c) + " is negative");
    shape.push_back(extent);
  };
  const AstNode n = node(id);
  if (n.kind == Ast::Tuple || n.kind == Ast::List) {
    shape.reserve(n.count);
    for (uint32_t k = 0; k < n.count; ++k)
      add(child(id, k));
  } else {
    add(id);
  }
  return shape;
}

// An extent TVM prints as a string, `T.Buffer(("n * 8",), "float32")` (when the size variable is
// a parameter declared later, or a variable TVM declares in the body, `n = T.int32()`): the
// string's text read as an expression in the current scope. A name not in scope is a size
// variable (int64 when the text states T.int64, else int32) that becomes a trailing scalar
// parameter, as a TypeVar's extent does.
Expr Parser::lowerQuotedExtent(uint32_t id) {
  const AstNode n = node(id);
  std::string_view text = source_.substr(n.begin, n.end - n.begin);
  if (text.size() < 2 || (text.front() != '"' && text.front() != '\'') || text.back() != text.front())
    fail(nodeRange(id), "a string is not a value here");
  Parser inner(sources_, fileId_, diagnostics_, {n.begin + 1, n.end - 1});
  inner.scope_ = scope_;
  Expr value;
  try {
    uint32_t expr = inner.parseExpr();
    inner.accept(Tok::Newline);
    if (!inner.at(Tok::EndOfFile))
      inner.fail(inner.tokenRange(inner.peek()), "unexpected text after the extent");
    std::vector<uint32_t> stack{expr};
    while (!stack.empty()) {
      uint32_t k = stack.back();
      stack.pop_back();
      if (inner.node(k).kind == Ast::Name && inner.nodeText(k) != "T" && !scope_.find(inner.nodeText(k)) &&
          func_.fields) {
        DataType type = text.find("int64") != std::string_view::npos ? DataType::int64() : DataType::int32();
        Var var = VarNode::make(Symbol(inner.nodeText(k)), type, inner.nodeRange(k));
        scope_.define(var->name.view(), {Binding::Kind::Var, var, nullptr, inner.nodeRange(k)});
        // In the signature, a size parameter declared later; inside a block, a name the
        // declaration binds (`T.match_buffer(..., strides=("As_0", "As_1"))`: the region's strides).
        if (!block_) {
          func_.fields->params.push_back(var);
          func_.quotedExtentVars.push_back(var);
        }
      }
      if (inner.node(k).kind != Ast::Attr)
        for (uint32_t c = 0; c < inner.node(k).count; ++c)
          stack.push_back(inner.child(k, c));
    }
    inner.scope_ = scope_;
    value = inner.lowerValue(expr);
  } catch (const StatementFailed &) {
  }
  inner.flushLexerDiagnostics(UINT32_MAX);
  if (inner.failed_ || !value) {
    failed_ = true;
    throw StatementFailed{};
  }
  return value;
}

void Parser::defineBuffer(uint32_t nameNode, const Buffer &buffer) {
  std::string_view name = nodeText(nameNode);
  if (const Binding *previous = scope_.findInCurrentScope(name); previous && previous->kind == Binding::Kind::Buffer)
    failWithNote(nodeRange(nameNode), "redefinition of buffer '" + std::string(name) + "'", previous->loc,
                 "previous definition is here");
  scope_.define(name, {Binding::Kind::Buffer, nullptr, buffer, nodeRange(nameNode)});
}

Buffer Parser::buildBuffer(uint32_t nameNode, const CallArgs &args, size_t first, Var data, SourceRange loc,
                           Symbol defaultScope) {
  BufferNode::Fields f;
  f.name = Symbol(nodeText(nameNode));
  f.loc = loc;
  uint32_t shapeNode = args.positional.size() > first ? args.positional[first] : args.find("shape");
  if (shapeNode == UINT32_MAX)
    fail(loc, "missing the buffer shape");
  f.shape = lowerShape(shapeNode);
  uint32_t dtypeNode = args.positional.size() > first + 1 ? args.positional[first + 1] : args.find("dtype");
  f.dtype = dtypeNode == UINT32_MAX ? DataType::float32() : dtypeArgument(dtypeNode);
  if (f.dtype.isHandle() || f.dtype.isVoid())
    fail(nodeRange(dtypeNode), "a buffer cannot hold elements of type " + f.dtype.str());
  if (args.find("shape") != UINT32_MAX && args.positional.size() > first)
    fail(nodeRange(args.find("shape")), "the shape is given twice");
  if (args.find("dtype") != UINT32_MAX && args.positional.size() > first + 1)
    fail(nodeRange(args.find("dtype")), "the dtype is given twice");
  if (uint32_t s = args.find("strides"); s != UINT32_MAX) {
    if (node(s).kind != Ast::Tuple && node(s).kind != Ast::List)
      fail(nodeRange(s), "strides must be a list or tuple");
    f.strides = lowerShape(s);
    if (f.strides.size() != f.shape.size())
      fail(nodeRange(s), "buffer '" + f.name.str() + "' has " + std::to_string(f.shape.size()) + " dimensions but " +
                             std::to_string(f.strides.size()) + " strides");
  }
  if (uint32_t e = args.find("elem_offset"); e != UINT32_MAX) {
    f.elemOffset = lowerValue(e);
    if (!f.elemOffset->type.isIndex())
      fail(nodeRange(e), "elem_offset must be a scalar integer, not " + f.elemOffset->type.str());
  }
  f.scope = defaultScope;
  if (uint32_t s = args.find("scope"); s != UINT32_MAX) {
    std::string scope = stringLiteral(s);
    if (scope.empty())
      fail(nodeRange(s), "the storage scope must not be empty");
    f.scope = Symbol(scope);
  }
  if (uint32_t a = args.find("axis_separators"); a != UINT32_MAX) {
    if (node(a).kind != Ast::List && node(a).kind != Ast::Tuple)
      fail(nodeRange(a), "axis_separators must be a list of integers");
    int previous = 0;
    for (uint32_t k = 0; k < node(a).count; ++k) {
      int64_t sep = constantInt(child(a, k), "an axis separator");
      if (sep < previous || sep > static_cast<int64_t>(f.shape.size()))
        fail(nodeRange(a), "axis_separators of buffer '" + f.name.str() + "' must be non-decreasing and within [0, " +
                               std::to_string(f.shape.size()) + "], got " + std::to_string(sep));
      previous = static_cast<int>(sep);
      f.axisSeparators.push_back(previous);
    }
  }
  if (uint32_t l = args.find("layout"); l != UINT32_MAX)
    f.layout = layoutSymbol(l, f.name.str(), f.shape.size());
  if (uint32_t t = args.find("buffer_type"); t != UINT32_MAX && stringLiteral(t) != "default")
    fail(nodeRange(t), "buffer_type \"" + stringLiteral(t) +
                           "\" is not supported (broadcasting buffers with zero strides); only \"default\"");
  for (std::string_view hint : {"align", "offset_factor"})
    if (uint32_t h = args.find(hint); h != UINT32_MAX && constantInt(h, hint.data()) < 0)
      fail(nodeRange(h), std::string(hint) + " must not be negative");
  f.data = data ? data
                : VarNode::makeHandle(f.name, f.dtype, f.scope.empty() ? globalScope() : f.scope, nodeRange(nameNode));
  return checked(loc, [&] { return BufferNode::make(std::move(f)); });
}

void Parser::declareBuffer(uint32_t target, uint32_t call, std::string_view kind, PendingDecl &pending) {
  SourceRange loc = nodeRange(call);
  if (kind == "allocate") {
    CallArgs args = callArgs(call, kind, 2, 3, {"scope", "condition", "annotations"});
    uint32_t extentsNode = args.positional[0];
    if (node(extentsNode).kind != Ast::List && node(extentsNode).kind != Ast::Tuple)
      fail(nodeRange(extentsNode), "the extents of T.allocate must be a list");
    std::vector<Expr> extents = lowerShape(extentsNode);
    DataType dtype = dtypeArgument(args.positional[1]);
    uint32_t scopeNode = args.positional.size() > 2 ? args.positional[2] : args.find("scope");
    if (args.positional.size() > 2 && args.find("scope") != UINT32_MAX)
      fail(nodeRange(args.find("scope")), "the scope is given twice");
    Symbol scope = scopeNode == UINT32_MAX ? globalScope() : Symbol(stringLiteral(scopeNode));
    if (uint32_t c = args.find("condition"); c != UINT32_MAX && node(c).kind != Ast::True)
      fail(nodeRange(c), "only condition=True is supported for T.allocate");
    if (uint32_t a = args.find("annotations"); a != UINT32_MAX && !attrValue(a).empty())
      fail(nodeRange(a), "annotations of T.allocate are not supported");
    std::string_view name = nodeText(target);
    Var var = VarNode::makeHandle(Symbol(name), dtype, scope, nodeRange(target));
    scope_.define(name, {Binding::Kind::Var, var, nullptr, nodeRange(target)});
    pending = {PendingDecl::Kind::Allocate, var, nullptr, nullptr, false, dtype, std::move(extents), scope, loc, {}, {}};
    return;
  }
  // T.alloc_shared and T.alloc_local are T.alloc_buffer with another default scope.
  bool alloc = kind == "alloc_buffer" || kind == "alloc_shared" || kind == "alloc_local";
  // annotations= (TVM prints allocation hints such as "buffer_data_alignment") do not change
  // what the function computes and are not kept.
  CallArgs args = alloc ? callArgs(call, kind, 1, 2,
                                   {"shape", "dtype", "strides", "elem_offset", "scope", "axis_separators", "layout",
                                    "align", "offset_factor", "annotations", "buffer_type"})
                        : callArgs(call, kind, kind == "Buffer" ? 0 : 1, 2,
                                   {"shape", "dtype", "data", "strides", "elem_offset", "scope", "axis_separators",
                                    "layout", "align", "offset_factor", "annotations", "buffer_type"});
  if (uint32_t a = args.find("annotations"); a != UINT32_MAX && node(a).kind != Ast::Dict)
    fail(nodeRange(a), "annotations must be a dict");
  Var data;
  if (uint32_t d = args.find("data"); d != UINT32_MAX) {
    Expr value = lowerValue(d);
    const auto *var = value.as<VarNode>();
    if (!var || !value->type.isHandle())
      fail(nodeRange(d), "data= must be a handle variable such as A.data");
    data = Var(var);
  }
  Symbol defaultScope = kind == "alloc_shared"  ? Symbol(scope::kShared)
                        : kind == "alloc_local" ? Symbol(scope::kLocal)
                                                : Symbol();
  Buffer buffer = buildBuffer(target, args, 0, data, loc, defaultScope);
  defineBuffer(target, buffer);
  pending.buffer = buffer;
  pending.kind = alloc ? PendingDecl::Kind::AllocBuffer : PendingDecl::Kind::DeclBuffer;
  pending.allocates = !alloc && !data;
}

// `x_1 = x.view(512)`: TVM's alias of a buffer's storage with another shape (how FlattenBuffer
// writes the flat view of a parameter), `x.view(-1)` inferring one extent, and `x.view("int8")`
// reinterpreting the last dimension with another element type. The alias keeps the data,
// strides, elem_offset and scope of `x`.
// `A.view("int8")`: the same bytes as another dtype; the last extent (and the offset) scale by
// the ratio of the element sizes.
void Parser::viewAsDtype(const Buffer &base, uint32_t call, uint32_t dtypeArg, BufferNode::Fields &f) {
  DataType to = dtypeArgument(dtypeArg);
  int from = base->dtype.bits() * base->dtype.lanes(), bits = to.bits() * to.lanes();
  if (base->rank() == 0 || (from % bits != 0 && bits % from != 0))
    fail(nodeRange(dtypeArg), "cannot view buffer '" + base->name.str() + "' of " + base->dtype.str() + " as " +
                                  to.str() + ": the element sizes do not divide each other");
  f.dtype = to;
  f.shape = base->shape;
  int64_t ratio = from > bits ? from / bits : bits / from;
  auto rescale = [&](const Expr &e) -> Expr {
    if (const int64_t *c = asConstInt(e)) {
      if (from < bits && *c % ratio != 0)
        fail(nodeRange(call), "cannot view buffer '" + base->name.str() + "' as " + to.str() + ": its extent " +
                                  std::to_string(*c) + " is not a multiple of " + std::to_string(ratio));
      int64_t scaled = *c / ratio;
      if (from > bits && __builtin_mul_overflow(*c, ratio, &scaled))
        fail(nodeRange(call), "the view of buffer '" + base->name.str() + "' as " + to.str() +
                                  " has more than 2^63 - 1 elements along its last axis");
      return intImm(scaled, e->type);
    }
    return checked(f.loc, [&] {
      return BinaryNode::make(from > bits ? BinaryOp::Mul : BinaryOp::FloorDiv, e, intImm(ratio, e->type), f.loc);
    });
  };
  f.shape.back() = rescale(f.shape.back());
  if (f.elemOffset)
    f.elemOffset = rescale(f.elemOffset);
}

void Parser::declareView(uint32_t target, uint32_t call, PendingDecl &pending) {
  uint32_t callee = child(call, 0);
  Buffer base = bufferNamed(child(callee, 0));
  CallArgs args = splitArgs(call, 1);
  for (uint32_t keyword : args.keywords)
    fail(nodeRange(keyword), "'" + std::string(nodeName(keyword)) + "' is not an argument of '.view'");
  if (args.positional.empty())
    fail(nodeRange(call), "'.view' needs a shape, such as " + base->name.str() + ".view(16)");
  BufferNode::Fields f;
  f.name = Symbol(nodeText(target));
  f.loc = nodeRange(call);
  f.data = base->data;
  f.dtype = base->dtype;
  f.strides = base->strides;
  f.elemOffset = base->elemOffset;
  f.scope = base->scope;
  if (args.positional.size() == 1 && node(args.positional[0]).kind == Ast::String) {
    viewAsDtype(base, call, args.positional[0], f);
  } else {
    int64_t known = 1;
    size_t inferred = SIZE_MAX;
    for (size_t k = 0; k < args.positional.size(); ++k) {
      uint32_t item = args.positional[k];
      Expr extent = lowerValue(item);
      if (!extent->type.isIndex())
        fail(nodeRange(item), "buffer extents must be scalar integers, not " + extent->type.str());
      const int64_t *c = asConstInt(extent);
      if (c && *c == -1 && inferred == SIZE_MAX) {
        inferred = k;
      } else if (c && *c < 0) {
        fail(nodeRange(item), "buffer extent " + std::to_string(*c) + " is negative");
      } else if (c) {
        if (known >= 0 && __builtin_mul_overflow(known, *c, &known))
          fail(nodeRange(item), "the view's extents multiply to more than 2^63 - 1 elements");
      } else {
        known = -1;
      }
      f.shape.push_back(extent);
    }
    int64_t total = 1; // -1: symbolic
    for (const Expr &e : base->shape)
      if (total >= 0 && !asConstInt(e))
        total = -1;
      else if (total >= 0 && __builtin_mul_overflow(total, *asConstInt(e), &total))
        fail(nodeRange(call), "buffer '" + base->name.str() + "' has more than 2^63 - 1 elements");
    if (inferred != SIZE_MAX) {
      if (total < 0 || known <= 0 || total % known != 0)
        fail(nodeRange(args.positional[inferred]), "cannot infer this extent of the view of buffer '" +
                                                       base->name.str() + "'");
      f.shape[inferred] = intImm(total / known, base->shape.empty() ? DataType::int32() : base->shape[0]->type);
    } else if (total >= 0 && known >= 0 && total != known) {
      fail(nodeRange(call), "the view has " + std::to_string(known) + " elements but buffer '" + base->name.str() +
                                "' has " + std::to_string(total));
    }
    if (!f.strides.empty() && f.strides.size() != f.shape.size())
      fail(nodeRange(call), "cannot view strided buffer '" + base->name.str() + "' with another rank");
  }
  Buffer buffer = checked(f.loc, [&] { return BufferNode::make(std::move(f)); });
  defineBuffer(target, buffer);
  pending.buffer = buffer;
  pending.kind = PendingDecl::Kind::DeclBuffer;
  pending.allocates = false;
}

void Parser::parseMatchBuffer(uint32_t target, uint32_t call) {
  CallArgs args = callArgs(
      call, "match_buffer", 2, 3,
      {"shape", "dtype", "strides", "elem_offset", "scope", "axis_separators", "layout", "align", "offset_factor",
       "buffer_type"});
  uint32_t handle = args.positional[0];
  if (node(handle).kind != Ast::Name)
    fail(nodeRange(handle), "the first argument of T.match_buffer must be a T.handle parameter");
  Typed param = lowerName(handle);
  auto pending = std::find_if(func_.handleParams.begin(), func_.handleParams.end(),
                              [&](const auto &p) { return p.first.get() == param.expr.get(); });
  if (pending == func_.handleParams.end()) {
    for (const BufferBinding &b : func_.fields->bufferMap)
      if (b.param.get() == param.expr.get())
        fail(nodeRange(handle), "parameter '" + std::string(nodeText(handle)) + "' is already bound to buffer '" +
                                    b.buffer->name.str() + "'");
    fail(nodeRange(handle), "'" + std::string(nodeText(handle)) + "' is not a T.handle parameter");
  }
  matchingShape_ = true;
  Buffer buffer;
  try {
    buffer = buildBuffer(target, args, 1, pending->first, nodeRange(call));
  } catch (...) {
    matchingShape_ = false;
    throw;
  }
  matchingShape_ = false;
  defineBuffer(target, buffer);
  func_.fields->bufferMap.push_back({pending->first, buffer});
  func_.handleParams.erase(pending);
}

void Parser::parseFuncAttr(uint32_t call) {
  CallArgs args = callArgs(call, "func_attr", 1, 1, {});
  uint32_t dict = args.positional[0];
  if (node(dict).kind != Ast::Dict)
    fail(nodeRange(dict), "T.func_attr takes a dict");
  AttrValue value = attrValue(dict);
  for (uint32_t k = 0; k + 1 < node(dict).count; k += 2)
    if (stringLiteral(child(dict, k)) == attr::kLayoutRequirements) {
      func_.fields->layoutRequirements.clear(); // a later T.func_attr replaces the entry
      parseLayoutRequirements(child(dict, k + 1));
    }
  AttrValue &attrs = func_.fields->attrs;
  if (attrs.isNone())
    attrs = AttrValue::dict();
  for (const AttrValue::Entry &e : value.entries())
    attrs.set(e.first, e.second);
}

SourceRange Parser::insideString(uint32_t id, size_t offset, size_t length) {
  SourceRange whole = nodeRange(id);
  std::string_view raw = nodeText(id);
  // Point inside the quotes ("..." or """...""") when the literal has no escapes (its text is
  // the value).
  size_t quote = raw.size() >= 6 && (raw.starts_with("\"\"\"") || raw.starts_with("'''")) ? 3 : 1;
  if (raw.size() < 2 * quote || raw.find('\\') != std::string_view::npos || offset + length + 2 * quote > raw.size())
    return whole;
  uint32_t begin = whole.begin + static_cast<uint32_t>(quote + offset);
  return {whole.fileId, begin, begin + static_cast<uint32_t>(length)};
}

Symbol Parser::layoutSymbol(uint32_t id, const std::string &bufferName, size_t rank) {
  std::string_view spelled = node(id).kind == Ast::String ? nodeText(id) : std::string_view();
  if (!spelled.empty())
    for (const LayoutMemo &memo : layoutMemo_)
      if (memo.spelled == spelled && (memo.anyRank || memo.dims == rank))
        return memo.name;
  Layout layout = layoutArgument(id, bufferName, rank); // reports what is wrong with it
  Symbol name(layout.name());
  if (!spelled.empty() && layoutMemo_.size() < 16)
    layoutMemo_.push_back({spelled, name, layout.numDims(), layout.isAnyRank()});
  return name;
}

Layout Parser::layoutArgument(uint32_t id, const std::string &bufferName, size_t rank) {
  std::string text = stringLiteral(id);
  LayoutParseError error;
  std::optional<Layout> layout = Layout::parse(text, &error);
  if (!layout)
    fail(insideString(id, error.offset, error.length), "malformed layout \"" + text + "\": " + error.message);
  if (!layout->isAnyRank() && layout->numDims() != rank)
    fail(nodeRange(id), "layout \"" + text + "\" has " + std::to_string(layout->numDims()) +
                            " dimensions but buffer '" + bufferName + "' has " + std::to_string(rank));
  return *layout;
}

// {"B": "NCHW4c", "A": "NCHW4c:texture"}: kept in attrs for printing, and recorded with the
// location of each requirement for verify-layouts and legalize-layouts.
void Parser::parseLayoutRequirements(uint32_t dict) {
  if (node(dict).kind != Ast::Dict)
    fail(nodeRange(dict), "layout_requirements must be a dict from buffer names to layout strings");
  for (uint32_t k = 0; k + 1 < node(dict).count; k += 2) {
    uint32_t key = child(dict, k), value = child(dict, k + 1);
    LayoutRequirement requirement;
    requirement.buffer = stringLiteral(key);
    if (node(value).kind != Ast::String)
      fail(nodeRange(value),
           "the layout requirement of '" + requirement.buffer + "' must be a string such as \"NCHW4c\"");
    std::string text = stringLiteral(value);
    LayoutParseError error;
    if (!parseRequirementSpec(text, requirement, &error))
      fail(insideString(value, error.offset, error.length),
           "malformed layout requirement \"" + text + "\": " + error.message);
    requirement.origin = LayoutRequirement::Origin::FuncAttr;
    requirement.loc = nodeRange(value);
    func_.fields->layoutRequirements.push_back(std::move(requirement));
  }
}

void Parser::parseTransformLayout(uint32_t call) {
  CallArgs args = callArgs(call, "transform_layout", 2, 2, {"pad_value"});
  Buffer buffer = bufferNamed(args.positional[0]);
  DataType indexType = DataType::int32();
  for (const Expr &e : buffer->shape)
    if (e->type == DataType::int64())
      indexType = DataType::int64();
  IndexMap map = lowerIndexMap(args.positional[1], indexType, buffer->rank(), buffer->name.str());
  Expr padValue;
  if (uint32_t p = args.find("pad_value"); p != UINT32_MAX && node(p).kind != Ast::None) {
    padValue = lowerAs(p, buffer->dtype);
    if (padValue->type != buffer->dtype)
      fail(nodeRange(p), "pad_value of type " + padValue->type.str() + " does not match buffer '" + buffer->name.str() +
                             "' of type " + buffer->dtype.str());
  }
  func_.fields->layoutTransforms.push_back({buffer, map, padValue, nodeRange(call)});
}

} // namespace tirlower
