// Prints IR as canonical TVMScript. Deterministic byte for byte; parse(print(m)) prints the
// same text again. Names are made unique in definition order (A, A_1, A_2, ...).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "codegen/module_writer.h"
#include "ir/function.h"

namespace tirlower {

// In the module's own spelling (the one its input used), or in `spelling` when given.
std::string printModule(const Module &module, std::optional<ScriptSpelling> spelling = std::nullopt);
std::string printFunction(const PrimFunc &function);
// printModule in parts (codegen/module_writer.h), in `spelling` when given, else in the
// pieces' own: pieces of both spellings (without `spelling`) make head() nullopt.
std::unique_ptr<ModuleWriter> makeTirModuleWriter(std::optional<ScriptSpelling> spelling);
// A statement for diagnostics and tests; variables print by their plain names (expressions,
// shapes and index maps: formatExpr and its kin in ir/script_expr_printer.h).
std::string printStmt(const Stmt &stmt);

} // namespace tirlower
