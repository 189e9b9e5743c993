#include "transform/body_pass.h"

namespace tirlower {

Module rewriteBodies(const Module &module, const std::function<Stmt(const PrimFunc &)> &rewrite) {
  Module result = module;
  for (PrimFunc &func : result.functions) {
    Stmt body = rewrite(func);
    if (body == func->body)
      continue;
    PrimFuncNode::Fields f = func->fields();
    f.body = body;
    func = PrimFuncNode::make(std::move(f));
  }
  return result;
}

} // namespace tirlower
