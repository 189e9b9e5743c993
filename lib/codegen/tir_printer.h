// Prints IR as canonical TVMScript. Deterministic byte for byte; parse(print(m)) prints the
// same text again. Names are made unique in definition order (A, A_1, A_2, ...).
#pragma once

#include <string>

#include "ir/function.h"

namespace tirlower {

std::string printModule(const Module &module);
std::string printFunction(const PrimFunc &function);
// Short forms for diagnostics and tests; variables print by their plain names.
std::string printExpr(const Expr &expr);
std::string printStmt(const Stmt &stmt);
std::string printIndexMap(const IndexMap &map);

} // namespace tirlower
