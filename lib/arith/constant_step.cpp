#include "arith/constant_step.h"

#include "arith/expr_util.h"
#include "ir/visitor.h"

namespace tirlower {

std::optional<int64_t> constantStep(Analyzer &analyzer, const Expr &e, const Var &var) {
  if (!usesVar(e, var.get()))
    return 0;
  Expr next = substitute(e, {{var, var + intImm(1, var->type)}});
  const int64_t *c = asConstInt(analyzer.simplify(next - e));
  return c ? std::optional<int64_t>(*c) : std::nullopt;
}

} // namespace tirlower
