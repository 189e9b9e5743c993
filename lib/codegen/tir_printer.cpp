// Entry points of the TVMScript printer; the work is done by ScriptPrinter.
#include "codegen/tir_printer.h"

#include "codegen/tir_script_printer.h"

namespace tirlower {

std::string printModule(const Module &module) {
  ScriptPrinter printer(/*plainNames=*/false);
  printer.reserve(1 << 16);
  printer.printModule(module);
  return printer.take();
}

std::string printFunction(const PrimFunc &function) {
  ScriptPrinter printer(/*plainNames=*/false);
  printer.reserve(1 << 12);
  printer.printFunction(*function);
  return printer.take();
}

std::string printExpr(const Expr &expr) {
  ScriptPrinter printer(/*plainNames=*/true);
  printer.printExpr(expr);
  return printer.take();
}

std::string printStmt(const Stmt &stmt) {
  ScriptPrinter printer(/*plainNames=*/true);
  printer.printStmt(stmt);
  std::string text = printer.take();
  if (!text.empty() && text.back() == '\n')
    text.pop_back();
  return text;
}

std::string printIndexMap(const IndexMap &map) {
  ScriptPrinter printer(/*plainNames=*/true);
  printer.printIndexMap(*map);
  return printer.take();
}

} // namespace tirlower
