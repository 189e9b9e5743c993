#include "transform/body_pass.h"

#include <stdexcept>

#include "arith/analyzer.h"

namespace tirlower {

std::optional<PrimFunc> BodyPass::runOnFunction(PrimFunc func, PassContext &ctx) {
  Stmt body = rewrite_(func, ctx);
  if (body == func->body)
    return func;
  PrimFuncNode::Fields f = func->fields();
  f.body = body;
  return PrimFuncNode::make(std::move(f));
}

std::optional<PrimFunc> Pass::runOnFunction(PrimFunc, PassContext &) {
  throw std::logic_error("runOnFunction called on a pass that is not function-local");
}

std::optional<Module> FunctionPass::run(Module module, PassContext &ctx) {
  Module result = std::move(module);
  for (PrimFunc &func : result.functions) {
    SimplifiedScope simplified; // per function: a scope holds what it remembers until it closes
    std::optional<PrimFunc> rewritten = runOnFunction(std::move(func), ctx);
    if (!rewritten)
      return std::nullopt;
    func = std::move(*rewritten);
  }
  return result;
}

} // namespace tirlower
