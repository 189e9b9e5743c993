// GPU-scheduled TIR as TVM prints it: thread launches (`i = T.launch_thread("blockIdx.x", 16)`,
// `with T.launch_thread("threadIdx.y", 8) as ty:`, `v = T.env_thread(...)` or `v = T.int32()`
// then `T.launch_thread(v, 4)`), the thread intrinsics T.tvm_storage_sync and
// T.tvm_thread_allreduce, T.comm_reducer and T.target. T.alloc_shared / T.alloc_local are
// buffer declarations (buffers.cpp).
#include <algorithm>
#include <unordered_map>

#include "ir/visitor.h"
#include "parse/parser_impl.h"

namespace tirlower {

bool Parser::isLaunchCall(uint32_t call) const {
  return builtinName(child(call, 0)) == "launch_thread";
}

void Parser::lowerLaunch(uint32_t call, uint32_t nameNode, PendingDecl &pending) {
  CallArgs args = callArgs(call, "launch_thread", 2, 2, {});
  uint32_t first = args.positional[0], extentNode = args.positional[1];
  pending.kind = PendingDecl::Kind::Attr;
  pending.loc = nodeRange(call);
  if (node(first).kind == Ast::String) {
    if (nameNode == UINT32_MAX)
      fail(nodeRange(call), "the thread variable of T.launch_thread(\"" + stringLiteral(first) +
                                "\", n) needs a name: v = T.launch_thread(...) or with T.launch_thread(...) as v:");
    std::string tag = stringLiteral(first);
    std::optional<ThreadTag> parsed = parseThreadTag(tag);
    if (!parsed)
      fail(nodeRange(first), "unknown thread tag '" + tag + "' (expected blockIdx.x|y|z, threadIdx.x|y|z or vthread)");
    Expr extent = lowerValue(extentNode);
    if (!extent->type.isIndex())
      fail(nodeRange(extentNode), "a thread extent must be a scalar integer, not " + extent->type.str());
    std::string_view name = nodeText(nameNode);
    Var var = VarNode::make(Symbol(name), extent->type, nodeRange(nameNode));
    scope_.define(name, {Binding::Kind::Var, var, nullptr, nodeRange(nameNode)});
    pending.value = var;
    pending.name = Symbol(parsed->kind == ThreadTag::Kind::Virtual ? "virtual_thread" : "thread_extent");
    pending.threadTag = Symbol(tag);
    pending.extents = {extent};
    return;
  }
  // T.launch_thread(v, n): v was declared by T.env_thread (its tag) or T.int32() (no tag).
  if (nameNode != UINT32_MAX)
    fail(nodeRange(first), "T.launch_thread of a declared variable binds no new name; write T.launch_thread(\"" +
                               std::string("threadIdx.x") + "\", n) to name one");
  if (node(first).kind != Ast::Name)
    fail(nodeRange(first), "T.launch_thread takes a thread tag such as \"threadIdx.x\" or a variable declared by "
                           "T.env_thread");
  namingSubject_ = true;
  Expr value;
  try {
    value = lowerValue(first);
  } catch (...) {
    namingSubject_ = false;
    throw;
  }
  namingSubject_ = false;
  const auto *var = value.as<VarNode>();
  auto declared = std::find_if(func_.freeVars.begin(), func_.freeVars.end(),
                               [&](const FunctionState::FreeVar &entry) { return entry.var == var; });
  if (!var || declared == func_.freeVars.end())
    fail(nodeRange(first), "'" + std::string(nodeText(first)) + "' is not a thread variable; declare it with " +
                               std::string(nodeText(first)) +
                               " = T.env_thread(\"threadIdx.x\") or launch a tag: T.launch_thread(\"threadIdx.x\", n)");
  Expr extent = lowerAs(extentNode, var->type);
  if (extent->type != var->type)
    fail(nodeRange(extentNode), "the extent of thread variable '" + var->name.str() + "' must be " + var->type.str() +
                                    ", not " + extent->type.str());
  Symbol tag = declared->tag;
  declared->launched = true; // until finishDecl closes the launch
  std::optional<ThreadTag> parsed = parseThreadTag(tag.view());
  if (tag.empty())
    func_.untaggedLaunches = true;
  pending.value = value;
  pending.name = Symbol(parsed && parsed->kind == ThreadTag::Kind::Virtual ? "virtual_thread" : "thread_extent");
  pending.threadTag = tag;
  pending.extents = {extent};
}

bool Parser::declareFreeVar(uint32_t target, uint32_t call) {
  std::string_view callee = builtinName(child(call, 0));
  Symbol tag;
  DataType type = DataType::int32();
  if (callee == "env_thread") {
    // T.env_thread("threadIdx.x") or, for an int64 index (Relax's functions), with dtype="int64".
    CallArgs args = callArgs(call, callee, 1, 2, {"dtype"});
    std::string text = stringLiteral(args.positional[0]);
    if (!parseThreadTag(text))
      fail(nodeRange(args.positional[0]),
           "unknown thread tag '" + text + "' (expected blockIdx.x|y|z, threadIdx.x|y|z or vthread)");
    tag = Symbol(text);
    uint32_t dtypeNode = args.positional.size() > 1 ? args.positional[1] : args.find("dtype");
    if (args.positional.size() > 1 && args.find("dtype") != UINT32_MAX)
      fail(nodeRange(args.find("dtype")), "the dtype is given twice");
    if (dtypeNode != UINT32_MAX) {
      type = dtypeArgument(dtypeNode);
      if (!type.isInt() || type.isVector())
        fail(nodeRange(dtypeNode), "a thread index is a scalar signed integer, not " + type.str());
    }
  } else {
    // `v = T.int32()`: TVM's declaration of a variable used before it is bound.
    std::optional<DataType> parsed = callee.empty() ? std::nullopt : DataType::parse(callee);
    if (!parsed || !parsed->isScalar() || parsed->isHandle() || parsed->isVoid() || node(call).count != 1)
      return false;
    type = *parsed;
  }
  std::string_view name = nodeText(target);
  for (const Var &quoted : func_.quotedExtentVars)
    if (quoted->name.view() == name && quoted->type == type && tag.empty())
      if (const Binding *b = scope_.find(name); b && b->var == quoted)
        return true; // TVM's declaration of a size variable a quoted extent named first
  Var var = VarNode::make(Symbol(name), type, nodeRange(target));
  scope_.define(name, {Binding::Kind::Var, var, nullptr, nodeRange(target)});
  func_.freeVars.push_back({var.get(), tag, false});
  return true;
}

void Parser::checkFreeVarUse(uint32_t nameNode, const VarNode *var) {
  if (namingSubject_)
    return;
  if (matchingShape_) {
    // `n = T.int64()` then `A = T.match_buffer(a, (n, 32))`: a symbolic extent, as TVM before
    // 0.25 prints dynamic shapes; like a TypeVar's, it becomes a trailing scalar parameter.
    auto it = std::find_if(func_.freeVars.begin(), func_.freeVars.end(), [&](const FunctionState::FreeVar &free) {
      return free.var == var && free.tag.empty() && !free.launched;
    });
    if (it != func_.freeVars.end()) {
      func_.fields->params.push_back(Var(var));
      func_.freeVars.erase(it);
      return;
    }
  }
  // `i = T.int32()` then a use outside any launch: a variable the function does not bind (TVM's
  // tests use such free variables); like a symbolic extent, it becomes a trailing scalar
  // parameter, so its value is the caller's.
  auto unbound = std::find_if(func_.freeVars.begin(), func_.freeVars.end(), [&](const FunctionState::FreeVar &free) {
    return free.var == var && free.tag.empty() && !free.launched;
  });
  if (unbound != func_.freeVars.end() && func_.fields && !func_.untaggedLaunches) {
    func_.fields->params.push_back(Var(var));
    func_.freeVars.erase(unbound);
    return;
  }
  for (const FunctionState::FreeVar &free : func_.freeVars)
    if (free.var == var && !free.launched)
      fail(nodeRange(nameNode), "'" + var->name.str() + "' is declared by " + var->name.str() + " = T." +
                                    (free.tag.empty() ? var->type.str() + "()" : "env_thread(...)") +
                                    " and not bound here: it may only name the subject of T.attr or be launched, "
                                    "T.launch_thread(" +
                                    var->name.str() + ", extent), and used inside that launch");
}

void Parser::setLaunched(const VarNode *var, bool launched) {
  for (FunctionState::FreeVar &free : func_.freeVars)
    if (free.var == var)
      free.launched = launched;
}

Stmt Parser::lowerThreadIntrinsic(uint32_t call, std::string_view name) {
  SourceRange loc = nodeRange(call);
  if (name == "tvm_storage_sync") {
    CallArgs args = callArgs(call, name, 1, 1, {});
    uint32_t scopeNode = args.positional[0];
    if (node(scopeNode).kind != Ast::String)
      fail(nodeRange(scopeNode), "T.tvm_storage_sync takes the storage scope to synchronise, such as \"shared\"");
    std::string scope = stringLiteral(scopeNode);
    if (scope != "shared" && scope != "global" && scope != "warp")
      fail(nodeRange(scopeNode),
           "T.tvm_storage_sync synchronises \"shared\", \"global\" or \"warp\" storage, not \"" + scope + "\"");
    Expr value =
        CallNode::make(DataType::int32(), Symbol(name), {StringImmNode::make(scope, nodeRange(scopeNode))}, loc);
    return EvaluateNode::make(value, loc);
  }
  if (name != "tvm_thread_allreduce")
    return nullptr;
  // T.tvm_thread_allreduce(T.uint32(n), source_1, ..., source_n, condition, dest_1, ..., dest_n,
  // thread variables...): each dest is a buffer element the result goes to.
  CallArgs args = callArgs(call, name, 4, SIZE_MAX, {});
  Expr count = lowerValue(args.positional[0]);
  const int64_t *n = asConstInt(count);
  if (!n || *n < 1 || !count->type.isIndex() || 2 * static_cast<size_t>(*n) + 2 > args.positional.size())
    fail(nodeRange(args.positional[0]), "the first argument of T.tvm_thread_allreduce is the number of values "
                                        "reduced, a constant such as T.uint32(1), followed by as many values, a "
                                        "condition, as many destinations and the reduction's thread variables");
  std::vector<Expr> operands{count};
  size_t values = static_cast<size_t>(*n);
  for (size_t k = 1; k < args.positional.size(); ++k) {
    uint32_t arg = args.positional[k];
    Expr e = lowerValue(arg);
    if (k <= values && !e->type.isScalar())
      fail(nodeRange(arg), "a reduced value must be a scalar, not " + e->type.str());
    if (k == values + 1 && e->type != DataType::boolean())
      fail(nodeRange(arg), "the condition of T.tvm_thread_allreduce must be a bool, not " + e->type.str());
    if (k > values + 1 && k <= 2 * values + 1) {
      const auto *dest = e.as<BufferLoadNode>();
      if (!dest || dest->type != operands[k - values - 1]->type)
        fail(nodeRange(arg), "destination " + std::to_string(k - values - 1) +
                                 " of T.tvm_thread_allreduce must be a buffer element of the reduced value's type");
    }
    if (k > 2 * values + 1 && (!e.as<VarNode>() || !e->type.isIndex()))
      fail(nodeRange(arg), "the reduction's threads are named by their thread variables");
    operands.push_back(e);
  }
  Expr value = CallNode::make(DataType::handle(), Symbol(name), std::move(operands), loc);
  return EvaluateNode::make(value, loc);
}

// T.comm_reducer(lambda x0, y0: x0 + y0, [T.float32(0)]): the lambda takes the running values
// then the incoming ones; several values return a tuple.
CommReducer Parser::lowerCommReducer(uint32_t call) {
  CallArgs args = callArgs(call, "comm_reducer", 2, 2, {});
  uint32_t lambda = args.positional[0], identities = args.positional[1];
  if (node(lambda).kind != Ast::Lambda)
    fail(nodeRange(lambda), "the combiner of T.comm_reducer is a lambda: lambda x, y: x + y");
  if (node(identities).kind != Ast::List && node(identities).kind != Ast::Tuple)
    fail(nodeRange(identities), "the identities of T.comm_reducer are a list: [T.float32(0)]");
  uint32_t params = node(lambda).count - 1, count = node(identities).count;
  if (count == 0 || params != 2 * count)
    fail(nodeRange(lambda), "a reducer of " + std::to_string(count) + " value" + (count == 1 ? "" : "s") + " takes " +
                                std::to_string(2 * count) + " parameters, not " + std::to_string(params));
  std::vector<Expr> identity;
  for (uint32_t k = 0; k < count; ++k) {
    Expr e = lowerValue(child(identities, k));
    if (!e->type.isScalar())
      fail(nodeRange(child(identities, k)), "an identity must be a scalar, not " + e->type.str());
    identity.push_back(e);
  }
  scope_.push();
  struct PopScope {
    ScopeStack &scope;
    ~PopScope() { scope.pop(); }
  } pop{scope_};
  std::vector<Var> lhs, rhs;
  for (uint32_t k = 0; k < params; ++k) {
    uint32_t p = child(lambda, k);
    for (uint32_t j = 0; j < k; ++j)
      if (nodeText(child(lambda, j)) == nodeText(p))
        fail(nodeRange(p), "duplicate parameter '" + std::string(nodeText(p)) + "'");
    Var var = VarNode::make(Symbol(nodeText(p)), identity[k % count]->type, nodeRange(p));
    scope_.define(nodeText(p), {Binding::Kind::Var, var, nullptr, nodeRange(p)});
    (k < count ? lhs : rhs).push_back(var);
  }
  uint32_t body = child(lambda, params);
  std::vector<Expr> result;
  if (count > 1) {
    if (node(body).kind != Ast::Tuple && node(body).kind != Ast::List)
      fail(nodeRange(body), "a reducer of " + std::to_string(count) + " values returns a tuple of as many");
    if (node(body).count != count)
      fail(nodeRange(body), "a reducer of " + std::to_string(count) + " values returns " + std::to_string(count) +
                                " results, not " + std::to_string(node(body).count));
    for (uint32_t k = 0; k < count; ++k)
      result.push_back(lowerAs(child(body, k), identity[k]->type));
  } else {
    result.push_back(lowerAs(body, identity[0]->type));
  }
  return checked(nodeRange(call), [&] { return CommReducerNode::make(lhs, rhs, result, identity, nodeRange(call)); });
}

// T.target({...}) or T.target("opencl") in T.func_attr: kept as written.
AttrValue Parser::lowerTarget(uint32_t call) {
  CallArgs args = callArgs(call, "target", 1, 1, {});
  uint32_t spec = args.positional[0];
  if (node(spec).kind != Ast::Dict && node(spec).kind != Ast::String)
    fail(nodeRange(spec), "T.target takes a dict or a string");
  return AttrValue::target(attrValue(spec));
}

// ---- thread tags of T.int32() variables ------------------------------------------------------

namespace {

struct LaunchInfo {
  const AttrStmtNode *attr;
  size_t kernel;                           // index of the outermost launch around it
  std::vector<const AttrStmtNode *> outer; // enclosing launches, outermost first
};

// Every launch, with its kernel and the launches around it.
class LaunchCollector : public IRVisitor {
public:
  std::vector<LaunchInfo> launches;
  using IRVisitor::visit;

  void visit(const AttrStmtNode *op) override {
    if (!op->isThreadLaunch())
      return IRVisitor::visit(op);
    if (stack_.empty())
      ++kernels_;
    launches.push_back({op, kernels_, stack_});
    stack_.push_back(op);
    IRVisitor::visit(op);
    stack_.pop_back();
  }

private:
  std::vector<const AttrStmtNode *> stack_;
  size_t kernels_ = 0;
};

bool sameExtent(const Expr &a, const Expr &b) {
  const int64_t *x = asConstInt(a), *y = asConstInt(b);
  return a == b || (x && y && *x == *y);
}

// The launches of one untagged thread variable, and how another launch stands to them.
struct UntaggedLaunch {
  UntaggedLaunch(const std::vector<LaunchInfo> &launches, const VarNode *var) : var(var) {
    for (const LaunchInfo &l : launches)
      if (l.attr->node.get() == var)
        own.push_back(&l);
  }
  bool isOwn(const LaunchInfo &other) const { return other.attr->node.get() == var; }
  bool isAround(const LaunchInfo &other) const {
    return std::any_of(own.begin(), own.end(), [&](const LaunchInfo *o) { return has(o->outer, other.attr); });
  }
  bool isInside(const LaunchInfo &other) const {
    return std::any_of(own.begin(), own.end(), [&](const LaunchInfo *o) { return has(other.outer, o->attr); });
  }
  // Both inside v, one around the other.
  bool nestedWith(const LaunchInfo &a, const LaunchInfo &b) const {
    return isInside(a) && isInside(b) && (has(a.outer, b.attr) || has(b.outer, a.attr));
  }
  bool sameKernel(const LaunchInfo &other) const {
    return std::any_of(own.begin(), own.end(), [&](const LaunchInfo *o) { return o->kernel == other.kernel; });
  }
  bool sameKernelAndExtent(const LaunchInfo &other) const {
    return std::all_of(own.begin(), own.end(), [&](const LaunchInfo *o) {
      return o->kernel == other.kernel && sameExtent(other.attr->value, o->attr->value);
    });
  }
  static bool has(const std::vector<const AttrStmtNode *> &list, const AttrStmtNode *attr) {
    return std::find(list.begin(), list.end(), attr) != list.end();
  }
  const VarNode *var;
  std::vector<const LaunchInfo *> own;
};

// The index the rules give an untagged launch, or an empty tag and why none.
std::pair<Symbol, std::string> chooseTag(const std::vector<Symbol> &candidates, bool mustBlock, bool mustThread,
                                         const std::vector<Symbol> &kernelTags) {
  if (mustBlock && mustThread)
    return {Symbol(), "a block index launch is inside it and a thread index launch around it"};
  if (candidates.size() == 1)
    return {candidates[0], ""};
  if (candidates.size() > 1)
    return {Symbol(), "the launches of its extent that it may share an index with name " +
                          std::to_string(candidates.size()) + " indices (" + candidates[0].str() + ", " +
                          candidates[1].str() + ")"};
  if (!mustBlock)
    return {Symbol(), "no other launch of this kernel settles it"};
  for (const char *free : {"blockIdx.x", "blockIdx.y", "blockIdx.z"})
    if (std::find(kernelTags.begin(), kernelTags.end(), Symbol(free)) == kernelTags.end())
      return {Symbol(free), ""};
  return {Symbol(), "it is a block index (a block index launch is inside it) and every block index is taken"};
}

class TagRewriter : public IRMutator {
public:
  explicit TagRewriter(const std::unordered_map<const AttrStmtNode *, Symbol> &tags) : tags_(tags) {}
  using IRMutator::visit;
  Stmt visit(const AttrStmtNode *op) override {
    Stmt body = mutate(op->body);
    auto it = tags_.find(op);
    if (it == tags_.end())
      return body == op->body ? Stmt(op) : AttrStmtNode::like(*op, op->node, op->value, body);
    return AttrStmtNode::make(op->node, op->key, op->value, body, op->loc, it->second, op->reducer);
  }

private:
  const std::unordered_map<const AttrStmtNode *, Symbol> &tags_;
};

} // namespace

// TVM prints `v = T.int32()`, pragmas on v, then `T.launch_thread(v, n)` for a thread-bound loop
// with annotations (the loop's own binding), and leaves the thread index out. Only what the
// kernel shows is taken, never a guess between indices:
//  - v never takes the index of a launch around it, nor of a launch inside it, unless that
//    inner launch re-launches the enclosing threads: TVM's cooperative fetches bind their loops
//    to the thread indices around them again (dlight's matmul launches threadIdx.y and x again
//    inside the loop over k); an inner launch is such a re-launch when it, or a launch it is
//    nested with inside v, takes the index of a launch around v. Any other inner launch is a
//    loop of its own, and two nested loops bound to one index would run as one.
//  - kind: v is a block index when a block index launch (not a re-launch) is inside it, a
//    thread index when a threadIdx launch is around it.
//  1. the other launches of the kernel with extent n that are not around v (siblings, or
//     re-launches inside it) and whose index v may take and whose kind agrees: when they
//     name one index, that is v's (dlight's reductions: threadIdx.x, launched again later
//     with the same extent; sequential launches of one index are the same index);
//  2. else, when v must be a block index, a block index no launch of the kernel takes
//     (dlight's transpose: blockIdx.y; which free block dimension it is does not change what
//     the kernel computes);
//  3. else it is an error that asks for `v = T.env_thread("...")`, saying why.
// A variable launched more than once takes one index for all its launches; launches are
// resolved outermost first, so an inner untagged launch sees the index an outer one took.
Stmt Parser::resolveThreadTags(const Stmt &body) {
  LaunchCollector collector;
  collector.visit(body);
  const std::vector<LaunchInfo> &launches = collector.launches;
  std::unordered_map<const AttrStmtNode *, Symbol> resolved;
  auto tagOf = [&](const AttrStmtNode *attr) {
    auto it = resolved.find(attr);
    return it != resolved.end() ? it->second : attr->threadTag;
  };
  auto contains = [](const std::vector<Symbol> &tags, Symbol tag) {
    return std::find(tags.begin(), tags.end(), tag) != tags.end();
  };
  std::unordered_map<const VarNode *, bool> done;
  for (const LaunchInfo &first : launches) {
    const auto *var = first.attr->node.as<VarNode>();
    if (!first.attr->threadTag.empty() || done[var])
      continue;
    done[var] = true;
    UntaggedLaunch v(launches, var);
    std::vector<Symbol> aroundTags, kernelTags;
    for (const LaunchInfo &other : launches)
      if (!v.isOwn(other) && v.sameKernel(other) && !tagOf(other.attr).empty()) {
        kernelTags.push_back(tagOf(other.attr));
        if (v.isAround(other))
          aroundTags.push_back(tagOf(other.attr));
      }
    // An inner launch re-launches the enclosing threads when it, or one it is nested with
    // inside v, takes an index around v.
    auto relaunch = [&](const LaunchInfo &inner) {
      for (const LaunchInfo &other : launches)
        if (v.isInside(other) && (&other == &inner || v.nestedWith(other, inner)) &&
            contains(aroundTags, tagOf(other.attr)))
          return true;
      return false;
    };
    std::vector<Symbol> taken = aroundTags;
    bool mustBlock = false, mustThread = false;
    for (const LaunchInfo &other : launches) {
      std::optional<ThreadTag> t = parseThreadTag(tagOf(other.attr).view());
      if (v.isOwn(other) || !t)
        continue;
      mustThread |= v.isAround(other) && t->kind == ThreadTag::Kind::Thread;
      if (v.isInside(other) && !relaunch(other)) {
        taken.push_back(tagOf(other.attr));
        mustBlock |= t->kind == ThreadTag::Kind::Block;
      }
    }
    std::vector<Symbol> candidates;
    for (const LaunchInfo &other : launches) {
      Symbol tag = tagOf(other.attr);
      std::optional<ThreadTag> t = parseThreadTag(tag.view());
      if (v.isOwn(other) || !t || t->kind == ThreadTag::Kind::Virtual || v.isAround(other) || contains(taken, tag) ||
          contains(candidates, tag) || (mustBlock && t->kind != ThreadTag::Kind::Block) ||
          (mustThread && t->kind != ThreadTag::Kind::Thread) || !v.sameKernelAndExtent(other))
        continue;
      candidates.push_back(tag);
    }
    auto [tag, why] = chooseTag(candidates, mustBlock, mustThread, kernelTags);
    if (tag.empty())
      fail(first.attr->loc, "cannot tell which thread index '" + var->name.str() +
                                "' is: TVM prints no thread tag for a variable declared by " + var->name.str() +
                                " = T." + var->type.str() + "(), and " + why + "; declare it with " + var->name.str() +
                                " = T.env_thread(\"threadIdx.x\"" +
                                (var->type == DataType::int32() ? "" : ", dtype=\"" + var->type.str() + "\"") +
                                ") (or the index it is)");
    for (const LaunchInfo *o : v.own)
      resolved.emplace(o->attr, tag);
  }
  return TagRewriter(resolved).mutate(body);
}

} // namespace tirlower
