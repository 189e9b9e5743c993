// Blocks (schedulable TIR): `with T.sblock("name"):` (`T.block` before TVM 0.25) and what may
// open its body: T.axis.spatial/reduce/scan/opaque and T.axis.remap, T.where, T.reads,
// T.writes, T.sblock_attr, block allocations, T.match_buffer of a region, `with T.init():`.
#include "ir/equality.h"
#include "parse/parser_impl.h"

namespace tirlower {

namespace {
struct RestoreBlock {
  Parser::BlockScope *&current;
  Parser::BlockScope *saved;
  ~RestoreBlock() { current = saved; }
};
} // namespace

bool Parser::isBlockCall(uint32_t call) const {
  std::string_view name = builtinName(child(call, 0));
  return name == "sblock" || name == "block";
}

std::string_view Parser::axisName(uint32_t callee) const {
  if (node(callee).kind != Ast::Attr)
    return {};
  uint32_t base = child(callee, 0);
  return builtinName(base) == "axis" ? nodeName(callee) : std::string_view();
}

Parser::BlockScope *Parser::blockHeader(uint32_t id, const char *what) {
  if (!block_ || blockDepth_ != block_->depth)
    fail(nodeRange(id), std::string(what) + " is only allowed at the start of a block's body");
  return block_;
}

Stmt Parser::parseBlockStmt(uint32_t call, SourceRange loc) {
  std::string_view kind = builtinName(child(call, 0));
  CallArgs args = callArgs(call, kind, 1, 1, {"no_realize"});
  BlockScope scope;
  scope.fields.name = Symbol(stringLiteral(args.positional[0]));
  scope.depth = blockDepth_ + 1;
  scope.legacy = kind == "block";
  sawTirxSpelling_ |= !scope.legacy;
  expect(Tok::Newline, "end of line after ':'");
  RestoreBlock restore{block_, block_};
  block_ = &scope;
  scope.fields.body = parseBlock();
  block_ = restore.saved;
  return checked(loc, [&] { return BlockNode::make(std::move(scope.fields), loc); });
}

Stmt Parser::parseInit(uint32_t call) {
  BlockScope *scope = blockHeader(call, "T.init()");
  callArgs(call, "init", 0, 0, {});
  if (scope->fields.init)
    fail(nodeRange(call), "block \"" + scope->fields.name.str() + "\" has two T.init() blocks");
  expect(Tok::Newline, "end of line after ':'");
  RestoreBlock restore{block_, block_};
  block_ = nullptr; // T.reads and the like inside init belong to no block
  scope->fields.init = parseBlock();
  return nullptr;
}

// [start, stop) of a slice in a region, or the single index `e` as [e, e + 1).
Range Parser::lowerRange(uint32_t id) {
  if (node(id).kind != Ast::Slice) {
    Expr index = lowerIndex(id);
    if (index->type.isVector())
      fail(nodeRange(id), "a region index must be a scalar");
    return {index, intImm(1, index->type)};
  }
  uint32_t start = child(id, 0), stop = child(id, 1), step = child(id, 2);
  if (node(step).kind != Ast::Empty)
    fail(nodeRange(step), "a region has no step");
  if (node(start).kind == Ast::Empty || node(stop).kind == Ast::Empty)
    fail(nodeRange(id), "a region range needs both bounds, as in 0:16");
  return boundsRange(start, stop, nodeRange(id), "region");
}

// [min, end) from two bound expressions: the extent is folded when both are constants, and
// `v:v + 4` has extent 4 (the printer writes a range that way).
Range Parser::boundsRange(uint32_t minNode, uint32_t endNode, SourceRange where, const char *what) {
  std::pair<Expr, Expr> bounds = unify(lower(minNode), lower(endNode), where, what);
  Expr min = bounds.first, end = bounds.second;
  if (!min->type.isIndex())
    fail(where, std::string(what) + " bounds must be scalar integers, not " + min->type.str());
  const int64_t *cmin = asConstInt(min), *cend = asConstInt(end);
  if (cmin && cend)
    return {min, intImm(*cend - *cmin, min->type)};
  if (cmin && *cmin == 0)
    return {min, end};
  if (const auto *sum = end.as<BinaryNode>(); sum && sum->op == BinaryOp::Add && structurallyEqual(sum->a, min))
    return {min, sum->b};
  return {min, checked(where, [&] { return BinaryNode::make(BinaryOp::Sub, end, min, where); })};
}

BufferRegion Parser::lowerRegion(uint32_t id) {
  if (node(id).kind == Ast::Name) { // the whole buffer
    Buffer buffer = bufferNamed(id);
    BufferRegion region{buffer, {}};
    for (const Expr &extent : buffer->shape)
      region.region.push_back({intImm(0, extent->type), extent});
    return region;
  }
  if (node(id).kind != Ast::Subscript || node(child(id, 0)).kind != Ast::Name)
    fail(nodeRange(id), "expected a buffer region such as A[v_i, 0:16]");
  BufferRegion region{bufferNamed(child(id, 0)), {}};
  const AstNode n = node(id);
  bool empty = n.count == 2 && node(child(id, 1)).kind == Ast::Tuple && node(child(id, 1)).count == 0;
  for (uint32_t k = 1; k < n.count && !empty; ++k)
    region.region.push_back(lowerRange(child(id, k)));
  if (region.region.size() != region.buffer->rank())
    fail(nodeRange(id), "region of buffer '" + region.buffer->name.str() + "' has " +
                            std::to_string(region.region.size()) + " ranges for " +
                            std::to_string(region.buffer->rank()) + " dimensions");
  return region;
}

// T.reads(...), T.writes(...), T.where(...), T.sblock_attr({...}): true when `call` was one.
bool Parser::parseBlockAnnotation(uint32_t call, std::string_view name) {
  if (name == "reads" || name == "writes") {
    BlockScope *scope = blockHeader(call, ("T." + std::string(name)).c_str());
    CallArgs args = splitArgs(call, 1);
    if (!args.keywords.empty())
      fail(nodeRange(args.keywords[0]), "T." + std::string(name) + " takes buffer regions only");
    std::vector<BufferRegion> &regions = name == "reads" ? scope->fields.reads : scope->fields.writes;
    auto add = [&](uint32_t item) { regions.push_back(lowerRegion(item)); };
    for (uint32_t arg : args.positional) {
      if (node(arg).kind == Ast::List || node(arg).kind == Ast::Tuple)
        for (uint32_t k = 0; k < node(arg).count; ++k)
          add(child(arg, k));
      else
        add(arg);
    }
    return true;
  }
  if (name == "where") {
    BlockScope *scope = blockHeader(call, "T.where");
    CallArgs args = callArgs(call, name, 1, 1, {});
    if (scope->fields.predicate)
      fail(nodeRange(call), "block \"" + scope->fields.name.str() + "\" has two T.where predicates");
    Expr predicate = lowerBool(args.positional[0], "T.where predicate");
    if (predicate->type.isVector())
      fail(nodeRange(args.positional[0]), "T.where predicate must be a scalar bool");
    scope->fields.predicate = predicate;
    return true;
  }
  if (name == "sblock_attr" || name == "block_attr") {
    BlockScope *scope = blockHeader(call, ("T." + std::string(name)).c_str());
    CallArgs args = callArgs(call, name, 1, 1, {});
    if (node(args.positional[0]).kind != Ast::Dict)
      fail(nodeRange(args.positional[0]), "T." + std::string(name) + " takes a dict");
    AttrValue value = attrValue(args.positional[0]);
    if (scope->fields.annotations.isNone())
      scope->fields.annotations = AttrValue::dict();
    for (const AttrValue::Entry &e : value.entries())
      scope->fields.annotations.set(e.first, e.second);
    return true;
  }
  return false;
}

namespace {
std::optional<IterKind> iterKindOf(std::string_view name) {
  if (name == "spatial" || name == "S")
    return IterKind::Spatial;
  if (name == "reduce" || name == "R")
    return IterKind::Reduce;
  if (name == "scan")
    return IterKind::Scan;
  if (name == "opaque")
    return IterKind::Opaque;
  return std::nullopt;
}
} // namespace

// `v = T.axis.spatial(extent, value)` (or `((min, end), value)`), and `v_a, v_b =
// T.axis.remap("SR", [a, b])` whose domains are the loops of `a` and `b`. `targets` are the
// name nodes being assigned.
void Parser::parseAxis(const std::vector<uint32_t> &targets, uint32_t call) {
  BlockScope *scope = blockHeader(call, "T.axis");
  std::string_view name = axisName(child(call, 0));
  auto define = [&](uint32_t target, IterKind kind, Expr min, Expr extent, Expr value) {
    std::string_view varName = nodeText(target);
    Var var = checked(nodeRange(target), [&] { return VarNode::make(Symbol(varName), value->type, nodeRange(target)); });
    scope_.define(varName, {Binding::Kind::Var, var, nullptr, nodeRange(target)});
    scope->fields.iterVars.push_back({var, min, extent, kind, value});
  };
  if (name == "remap") {
    CallArgs args = callArgs(call, name, 2, 2, {});
    std::string kinds = stringLiteral(args.positional[0]);
    uint32_t list = args.positional[1];
    if (node(list).kind != Ast::List && node(list).kind != Ast::Tuple)
      fail(nodeRange(list), "T.axis.remap takes a list of loop variables");
    if (kinds.size() != node(list).count || kinds.size() != targets.size())
      fail(nodeRange(call), "T.axis.remap binds " + std::to_string(targets.size()) + " variables with " +
                                std::to_string(kinds.size()) + " kinds and " + std::to_string(node(list).count) +
                                " loop variables");
    for (size_t k = 0; k < kinds.size(); ++k) {
      std::optional<IterKind> kind = iterKindOf(std::string_view(&kinds[k], 1));
      if (!kind)
        fail(nodeRange(args.positional[0]), std::string("unknown iteration kind '") + kinds[k] +
                                                "' (S spatial, R reduce)");
      uint32_t loopNode = child(list, static_cast<uint32_t>(k));
      Expr value = lowerValue(loopNode);
      auto domain = std::find_if(loopDomains_.rbegin(), loopDomains_.rend(),
                                 [&](const auto &d) { return d.first == value.get(); });
      if (domain == loopDomains_.rend())
        fail(nodeRange(loopNode), "T.axis.remap needs an enclosing loop variable; use T.axis.spatial(extent, value)");
      define(targets[k], *kind, domain->second.min, domain->second.extent, value);
    }
    return;
  }
  std::optional<IterKind> kind = iterKindOf(name);
  if (!kind)
    fail(nodeRange(child(call, 0)), "unknown function 'T.axis." + std::string(name) +
                                        "' (T.axis.spatial, reduce, scan, opaque, remap)");
  if (targets.size() != 1)
    fail(nodeRange(call), "T.axis." + std::string(name) + " binds one variable");
  CallArgs args = callArgs(call, name, 2, 2, {});
  uint32_t dom = args.positional[0];
  Typed value = lower(args.positional[1]);
  Expr min, extent, bound;
  if (node(dom).kind == Ast::Tuple || node(dom).kind == Ast::List) {
    if (node(dom).count != 2)
      fail(nodeRange(dom), "a domain is an extent or a pair (min, end)");
    Range range = boundsRange(child(dom, 0), child(dom, 1), nodeRange(dom), "domain");
    min = range.min;
    extent = range.extent;
  } else {
    Typed e = lower(dom);
    std::pair<Expr, Expr> ev = unify(e, value, nodeRange(call), "T.axis");
    extent = ev.first;
    bound = ev.second;
    min = intImm(0, extent->type);
  }
  if (!bound) {
    std::pair<Expr, Expr> mv = unify({min, false}, value, nodeRange(call), "T.axis");
    bound = mv.second;
  }
  if (!extent->type.isIndex() || extent->type != bound->type)
    fail(nodeRange(call), "a block iteration variable is a scalar integer bound to a value of its type, not " +
                              bound->type.str());
  define(targets[0], *kind, min, extent, bound);
}

// Inside a block: `X = T.sblock_alloc_buffer(...)` (also `T.alloc_buffer`) and
// `X = T.match_buffer(A[v_i, 0:16], (16,))`.
void Parser::parseBlockBuffer(uint32_t target, uint32_t call, std::string_view kind) {
  BlockScope *scope = blockHeader(call, ("T." + std::string(kind)).c_str());
  if (kind == "match_buffer") {
    CallArgs args = callArgs(call, kind, 2, 3,
                             {"shape", "dtype", "strides", "elem_offset", "scope", "align", "offset_factor",
                              "buffer_type", "axis_separators", "layout"});
    BufferRegion source = lowerRegion(args.positional[0]);
    Buffer buffer = buildBuffer(target, args, 1, nullptr, nodeRange(call));
    defineBuffer(target, buffer);
    if (!buffer->elemOffset)
      matchedWithoutOffset_.insert(buffer.get());
    scope->fields.matchBuffers.push_back({buffer, std::move(source)});
    return;
  }
  CallArgs args = callArgs(call, kind, 1, 2,
                           {"shape", "dtype", "strides", "elem_offset", "scope", "axis_separators", "layout", "align",
                            "offset_factor", "annotations", "buffer_type"});
  if (uint32_t a = args.find("annotations"); a != UINT32_MAX && node(a).kind != Ast::Dict)
    fail(nodeRange(a), "annotations must be a dict");
  Buffer buffer = buildBuffer(target, args, 0, nullptr, nodeRange(call));
  defineBuffer(target, buffer);
  scope->fields.allocBuffers.push_back(buffer);
}

} // namespace tirlower
