// Statements and the kernel signature. Thread-bound loops have no loop: their variable is the
// work-item's group or local id, guarded only when the loop is shorter than the launch.
#include "codegen/opencl/kernel_emitter.h"

#include <algorithm>

#include "arith/analyzer.h"
#include "codegen/launch_expr.h"
#include "ir/equality.h"
#include "ir/intrinsics.h"
#include "ir/attrs.h"
#include "ir/gpu_builtins.h"
#include "ir/storage_scope.h"
#include "ir/vscale.h"

namespace tirlower {

namespace {
constexpr const char *kErrorFlag = "tl_error";
} // namespace

KernelEmitter::KernelEmitter(const PrimFuncNode &func, OpenCLSupport &support)
    : CFamilyEmitter(func, AccessCensus::of(func.body), text_), support_(support), census_(takeCensus(func)) {
  dropUnusedConstantLets_ = true;
}

std::string KernelEmitter::emit(const std::string &symbol, KernelLaunch &launch) {
  rejectScalableVectors(func_.body, "OpenCL");
  launch.kernel = symbol;
  for (int d = 0; d < 3; ++d) {
    launch.localSize[d] = census_.local[d];
    launch.groups[d] =
        census_.symbolicGroups[d] ? census_.symbolicGroups[d] : IntImmNode::make(DataType::int64(), census_.groups[d]);
    launch.globalSize[d] = census_.symbolicGroups[d] ? 0 : census_.groups[d] * census_.local[d];
  }
  const bool warps = support_.subgroupSize() && usesWarps(func_.body);
  if (warps) {
    census_.assertMessages.insert(census_.assertMessages.begin(),
                                  "the device runs this kernel in sub-groups of " +
                                      std::to_string(support_.subgroupSize()) +
                                      " work-items in local id order (--subgroup-size)");
    asserts_ = 1;
  }
  std::string head = signature(symbol, launch);
  emitStmt(func_.body);
  return launchComment(launch) + head + " {\n" + localDecls_ + (warps ? subgroupCheck() : "") + prologue_ + body_ +
         "}\n";
}

// TVM lowered the kernel's warp operations for warps of --subgroup-size lanes, lane k of a warp
// being the work-item of local linear id k mod N: a device whose sub-groups differ in size or
// in that order would compute other sums, so the whole work-group fails as assert 1 does (a
// work-group smaller than a sub-group is one sub-group of its size).
std::string KernelEmitter::subgroupCheck() {
  const int64_t items = census_.local[0] * census_.local[1] * census_.local[2];
  const std::string lanes = std::to_string(support_.subgroupSize()) + "u";
  const std::string expected = std::to_string(std::min<int64_t>(support_.subgroupSize(), items)) + "u";
  return "  if (work_group_any(get_sub_group_local_id() != (uint)(get_local_linear_id() % " + lanes +
         ")) || get_max_sub_group_size() != " + expected + ") { // assert 1: " + census_.assertMessages.front() +
         "\n    atomic_cmpxchg(" + std::string(kErrorFlag) + ", 0, 1);\n    return;\n  }\n";
}

// `// launch K: global {128, 8, 1}, local {8, 8, 1} (groups {16, 1, 1})`; a number of groups
// over scalar parameters is written as launch_expr.h's text, `(n + 31) // 32`.
std::string KernelEmitter::launchComment(const KernelLaunch &launch) const {
  LaunchNamer name = [&](const VarNode *var) {
    for (size_t k = 0; k < launch.params.size(); ++k)
      if (launch.params[k] == var)
        return launch.args[k];
    return var->name.str();
  };
  std::string global, local, groups;
  for (int d = 0; d < 3; ++d) {
    std::string g = launchExprText(launch.groups[d], name), l = std::to_string(launch.localSize[d]);
    std::string sep = d ? ", " : "";
    groups += sep + g;
    local += sep + l;
    global += sep + (launch.globalSize[d] || !launch.symbolic() ? std::to_string(launch.globalSize[d])
                     : launch.localSize[d] == 1                 ? g
                                                                : g + " * " + l);
  }
  return "// launch " + launch.kernel + ": global {" + global + "}, local {" + local + "} (groups {" + groups + "})\n";
}

// ---- temporaries and errors -----------------------------------------------------------------------

std::string KernelEmitter::temp(DataType type, const std::string &value, SourceRange where) {
  std::string name = "tl_t" + std::to_string(temps_++);
  line("const " + typeName(type, where) + " " + name + " = " + value + ";");
  return name;
}

void KernelEmitter::fail(SourceRange where, const std::string &message) const {
  throw CompileError(where, "OpenCL emitter: " + message + " (kernel '" + func_.globalSymbol() + "')");
}

// ---- signature --------------------------------------------------------------------------------

std::string KernelEmitter::signature(const std::string &symbol, KernelLaunch &launch) {
  const bool restrictPointers = noalias();
  std::string params;
  for (const Var &param : func_.params) {
    std::string name = bind(param.get(), param->name.view());
    launch.args.push_back(name);
    launch.params.push_back(param.get());
    params += params.empty() ? "" : ", ";
    const VarNode *data = param.get();
    bool read = access_.read.count(data), written = access_.written.count(data);
    Buffer buffer = func_.bufferFor(param);
    if (buffer && isTextureParam(*buffer)) {
      const int64_t *channels = asConstInt(buffer->shape.back());
      if (!(buffer->dtype == DataType::float32(4) ||
            (buffer->dtype == DataType::float32() && channels && *channels == 4)))
        fail(param->loc, "texture buffer '" + buffer->name.str() +
                             "' must have float32 elements with an innermost extent of 4 (one RGBA texel)");
      if (read && written)
        fail(param->loc, "texture buffer '" + buffer->name.str() +
                             "' is both read and written; OpenCL 1.2 images are read-only or write-only in a kernel");
      params += std::string(written ? "__write_only" : "__read_only") + " image2d_t " + name;
      data_[data] = {name, DataType::float32(4), "", !written, true};
      continue;
    }
    if (buffer || param->type.isHandle()) {
      DataType type = buffer ? buffer->dtype : param->pointeeType;
      std::string element = type.isVoid() ? "void" : openclStorageTypeName(type, param->loc);
      if (!type.isVoid())
        support_.noteType(type);
      params += "__global " + std::string(written ? "" : "const ") + element + "* " +
                (restrictPointers ? "restrict " : "") + name;
      data_[data] = {name, type, "__global ", !written, false};
      continue;
    }
    support_.noteType(param->type);
    // bool is not a valid kernel argument type: it travels as an int (0 or 1).
    params += (param->type.isBool() ? std::string("int") : typeName(param->type, param->loc)) + " " + name;
  }
  if (!census_.assertMessages.empty()) {
    // IR names never take the emitter's tl_ prefix (they are renamed), so this one is free.
    reserveName(kErrorFlag);
    launch.args.push_back(kErrorFlag);
    launch.assertMessages = census_.assertMessages;
    params += std::string(params.empty() ? "" : ", ") + "__global int* " + kErrorFlag;
  }
  return "__kernel void " + symbol + "(" + params + ")";
}

// ---- statements -------------------------------------------------------------------------------

void KernelEmitter::visitWhile(const WhileNode *op) {
  // The condition is evaluated inside the loop so that the temporaries it needs are too (C's
  // `while (condition)` would declare them once, before the loop).
  line("while (1) {");
  ++indent_;
  line("if (!(" + bare(op->condition) + ")) break;");
  emitStmt(op->body);
  --indent_;
  line("}");
}

void KernelEmitter::visitIfThenElse(const IfThenElseNode *op) {
  if (op->condition->type.isVector())
    fail(op->loc, "an if statement needs a scalar condition");
  CFamilyEmitter::visitIfThenElse(op);
}

void KernelEmitter::visitAttrStmt(const AttrStmtNode *op) {
  if (census_.barrierBefore.count(op))
    line("barrier(CLK_GLOBAL_MEM_FENCE); // after the work-items' earlier writes (kernel_census.cpp)");
  if (const VarNode *var = op->threadVar(); var && op->key.view() == attr::kThreadExtent)
    return emitThreadIndex(var, op->threadTag.view(), intImm(0, var->type), op->value, op->body, op->loc);
  if (const VarNode *var = op->threadVar()) { // a virtual thread of extent 1 (kernel_census.cpp)
    std::string t = typeName(var->type, op->loc);
    line("const " + t + " " + bind(var, var->name.view()) + " = 0;");
    ranges_.setLoop(var, intImm(0, var->type), intImm(1, var->type));
    return emitStmt(op->body);
  }
  CFamilyEmitter::visitAttrStmt(op);
}

void KernelEmitter::visitAssertStmt(const AssertStmtNode *op) {
  // A kernel returns nothing: the first failed assert's number goes to the error flag, and
  // the work-item ends (as the C function returns 1). Other work-items run on.
  std::string number = std::to_string(++asserts_);
  std::string message;
  for (char c : op->message)
    message += c == '\\' || static_cast<unsigned char>(c) < 0x20 ? ' ' : c; // no line continuation
  line("if (!(" + bare(op->condition) + ")) { // assert " + number + ": " + message);
  line("  atomic_cmpxchg(" + std::string(kErrorFlag) + ", 0, " + number + ");");
  line("  return;");
  line("}");
}

void KernelEmitter::visitEvaluate(const EvaluateNode *op) {
  const auto *call = op->value.as<CallNode>();
  if (call && isThreadAllreduce(*call))
    fail(op->loc, "T.tvm_thread_allreduce must be lowered first (the lower-thread-allreduce pass, in the opencl "
                  "target's pipeline)");
  if (call && isStorageSync(*call) && storageSyncScope(*call) == scope::kWarp) {
    // CUDA's __syncwarp: the sub-group's barrier, which every work-item of the sub-group must reach.
    if (!support_.subgroupSize())
      fail(op->loc, "T.tvm_storage_sync(\"warp\") orders the lanes of a warp: give --subgroup-size=N when the "
                    "device offers cl_khr_subgroups and runs kernels in sub-groups of N work-items (OpenCL has no "
                    "warps otherwise)");
    support_.useSubgroups();
    line("sub_group_barrier(CLK_LOCAL_MEM_FENCE);");
    return;
  }
  if (call && isStorageSync(*call)) {
    bool shared = isSharedScope(storageSyncScope(*call));
    line(shared ? "barrier(CLK_LOCAL_MEM_FENCE);" : "barrier(CLK_GLOBAL_MEM_FENCE);");
    return;
  }
  CFamilyEmitter::visitEvaluate(op);
}

void KernelEmitter::visitFor(const ForNode *op) {
  if (census_.barrierBefore.count(op))
    line("barrier(CLK_GLOBAL_MEM_FENCE); // after the work-items' earlier writes (kernel_census.cpp)");
  if (op->forKind == ForKind::ThreadBinding)
    return emitThreadIndex(op->loopVar.get(), op->threadTag.view(), op->min, op->extent, op->body, op->loc);
  emitLoop(op);
}

void KernelEmitter::emitThreadIndex(const VarNode *var, std::string_view tag, const Expr &min, const Expr &extent,
                                    const Stmt &body, SourceRange where) {
  std::optional<ThreadAxis> axis = parseThreadAxis(tag);
  if (!axis)
    fail(where, "unknown thread tag '" + std::string(tag) + "'");
  std::string t = typeName(var->type, where);
  std::string id = std::string(axis->isBlock ? "get_group_id(" : "get_local_id(") + std::to_string(axis->dim) + ")";
  bool zeroMin = asConstInt(min) && *asConstInt(min) == 0;
  std::string value = "(" + t + ")" + id;
  if (!zeroMin)
    value = exprText(min) + " + " + value;
  std::string name = bind(var, var->name.view());
  line("const " + t + " " + name + " = " + value + ";");
  if (axis->isBlock && census_.symbolicGroups[axis->dim]) {
    // The number of groups depends on scalar parameters: unguarded when it is this extent.
    Expr wide = extent->type == DataType::int64() ? extent : CastNode::make(DataType::int64(), extent);
    ranges_.setLoop(var, min, extent);
    if (structurallyEqual(wide, census_.symbolicGroups[axis->dim]))
      return emitStmt(body);
    line("if (" + std::string(zeroMin ? name : name + " - (" + exprText(min) + ")") + " < " + exprText(extent) + ") {");
    block(body);
    line("}");
    return;
  }
  int64_t launched = axis->isBlock ? census_.groups[axis->dim] : census_.local[axis->dim];
  const int64_t *own = asConstInt(extent);
  // The index is in [min, min + launched - 1]; inside the guard below, [min, min + extent - 1].
  ranges_.setLoop(var, min, own && *own < launched ? extent : IntImmNode::make(var->type, launched));
  if (own && *own == launched)
    return emitStmt(body);
  // A shorter loop on an axis that another loop launched wider: the extra work-items idle.
  line("if (" + std::string(zeroMin ? name : name + " - (" + exprText(min) + ")") + " < " + exprText(extent) + ") {");
  block(body);
  line("}");
}

namespace {
// The first variable `e` uses, for messages.
const VarNode *firstVar(const Expr &e) {
  if (const auto *var = e.as<VarNode>())
    return var;
  if (const auto *cast = e.as<CastNode>())
    return firstVar(cast->value);
  if (const auto *b = e.as<BinaryNode>())
    return firstVar(b->a) ? firstVar(b->a) : firstVar(b->b);
  return nullptr;
}
} // namespace

void KernelEmitter::declareStorage(const VarNode *data, DataType type, const std::vector<Expr> &extents, Symbol scope,
                                   SourceRange where) {
  // A size over scalar parameters takes its constant upper bound (min(n, 64): 64).
  int64_t count = 1;
  for (const Expr &e : extents) {
    const int64_t *v = asConstInt(e);
    std::optional<int64_t> bound = v ? std::optional<int64_t>(*v) : Analyzer().bounds(e).max;
    if (!bound || *bound < 0) {
      const VarNode *var = firstVar(e);
      fail(where, "storage '" + data->name.str() + "' has a size that depends on " +
                      (var ? "'" + var->name.str() + "'" : std::string("a value")) +
                      " with no constant bound; OpenCL kernels cannot allocate dynamically: shared and local storage "
                      "needs a constant size");
    }
    count *= *bound;
  }
  std::string_view space = scope.view();
  if (isTextureScope(space))
    fail(where, "texture storage '" + data->name.str() + "' cannot be allocated in a kernel; pass it as a parameter");
  support_.noteType(type);
  std::string name = bind(data, data->name.view());
  std::string decl =
      openclStorageTypeName(type, where) + " " + name + "[" + std::to_string(std::max<int64_t>(count, 1)) + "];";
  if (isSharedScope(space)) {
    // OpenCL C declares __local variables at kernel scope only.
    localDecls_ += "  __local " + decl + "\n";
    data_[data] = {name, type, "__local ", false, false};
    return;
  }
  line(decl);
  data_[data] = {name, type, "", false, false};
}

} // namespace tirlower
