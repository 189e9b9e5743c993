#include "transform/body_pass.h"

namespace tirlower {

Module rewriteBodies(Module module, const std::function<Stmt(const PrimFunc &)> &rewrite) {
  Module result = std::move(module);
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
