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

bool Parser::isLaunchCall(uint32_t call) const { return builtinName(child(call, 0)) == "launch_thread"; }

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
    fail(nodeRange(first), "'" + std::string(nodeText(first)) +
                               "' is not a thread variable; declare it with " + std::string(nodeText(first)) +
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
  for (const FunctionState::FreeVar &free : func_.freeVars)
    if (free.var == var && !free.launched)
      fail(nodeRange(nameNode), "'" + var->name.str() + "' is declared by " + var->name.str() + " = T." +
                                    (free.tag.empty() ? var->type.str() + "()" : "env_thread(...)") +
                                    " and not bound here: it may only name the subject of T.attr or be launched, "
                                    "T.launch_thread(" + var->name.str() + ", extent), and used inside that launch");
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
      fail(nodeRange(scopeNode), "T.tvm_storage_sync synchronises \"shared\", \"global\" or \"warp\" storage, not \"" +
                                     scope + "\"");
    Expr value = CallNode::make(DataType::int32(), Symbol(name), {StringImmNode::make(scope, nodeRange(scopeNode))}, loc);
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
  size_t kernel;                          // index of the outermost launch around it
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
// with annotations, and leaves the thread index out. The kernel tells which it is:
//  1. the other launches of the kernel with extent n, outside and not around this one, whose
//     tag no launch around this one takes: when they name one tag, that is v's (dlight's
//     reductions and matmul: threadIdx.x, launched again later with the same extent);
//  2. else, when no launch has extent n and v's launch has a blockIdx launch inside it, a
//     block index no launch of the kernel takes (dlight's transpose: blockIdx.y; which free
//     block dimension it is does not change what the kernel computes);
//  3. else it is an error that asks for `v = T.env_thread("...")`.
Stmt Parser::resolveThreadTags(const Stmt &body) {
  LaunchCollector collector;
  collector.visit(body);
  std::unordered_map<const AttrStmtNode *, Symbol> resolved;
  for (const LaunchInfo &launch : collector.launches) {
    if (!launch.attr->threadTag.empty())
      continue;
    const AttrStmtNode *attr = launch.attr;
    auto taggedAround = [&](Symbol tag) {
      return std::any_of(launch.outer.begin(), launch.outer.end(), [&](const AttrStmtNode *o) { return o->threadTag == tag; });
    };
    std::vector<Symbol> candidates;
    bool anySameExtent = false, blockInside = false;
    std::vector<Symbol> kernelTags;
    for (const LaunchInfo &other : collector.launches) {
      if (other.kernel != launch.kernel || other.attr == attr || other.attr->threadTag.empty())
        continue;
      kernelTags.push_back(other.attr->threadTag);
      bool around = std::find(launch.outer.begin(), launch.outer.end(), other.attr) != launch.outer.end();
      bool inside = std::find(other.outer.begin(), other.outer.end(), attr) != other.outer.end();
      std::optional<ThreadTag> t = parseThreadTag(other.attr->threadTag.view());
      if (inside && t && t->kind == ThreadTag::Kind::Block)
        blockInside = true;
      if (around || !sameExtent(other.attr->value, attr->value))
        continue;
      anySameExtent = true;
      if (!taggedAround(other.attr->threadTag) && t && t->kind != ThreadTag::Kind::Virtual &&
          std::find(candidates.begin(), candidates.end(), other.attr->threadTag) == candidates.end())
        candidates.push_back(other.attr->threadTag);
    }
    Symbol tag;
    if (candidates.size() == 1) {
      tag = candidates[0];
    } else if (!anySameExtent && blockInside) {
      for (const char *free : {"blockIdx.x", "blockIdx.y", "blockIdx.z"})
        if (std::find(kernelTags.begin(), kernelTags.end(), Symbol(free)) == kernelTags.end()) {
          tag = Symbol(free);
          break;
        }
    }
    if (tag.empty()) {
      const auto *var = attr->node.as<VarNode>();
      fail(attr->loc, "cannot tell which thread index '" + var->name.str() +
                          "' is: TVM prints no thread tag for a variable declared by " + var->name.str() +
                          " = T." + var->type.str() + "(), and no other launch of this kernel settles it; declare it with " +
                          var->name.str() + " = T.env_thread(\"threadIdx.x\"" +
                          (var->type == DataType::int32() ? "" : ", dtype=\"" + var->type.str() + "\"") +
                          ") (or the index it is)");
    }
    resolved.emplace(attr, tag);
  }
  return TagRewriter(resolved).mutate(body);
}

} // namespace tirlower
