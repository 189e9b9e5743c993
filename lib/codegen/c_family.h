// Spellings shared by the C-family emitters (C, OpenCL C) and the LLVM emitter's symbols: one
// identifier rule and one symbol rule, so objects from either backend link into one program,
// and one table of C infix operators.
#pragma once

#include <string>
#include <string_view>

#include "ir/function.h"

namespace tirlower {

// A valid C identifier for `name`: other characters become '_', a leading digit gets "v_", and
// names in the emitters' own prefixes ("tl_", "__") get a "u" in front.
std::string cIdentifier(std::string_view name);
// C keywords and the C library names emitted code defines or calls.
bool isReservedCName(const std::string &name);
// The C symbol of a function: its global symbol as an identifier, with "tir_" in front when it
// clashes with a reserved name (`main` becomes `tir_main`).
std::string cSymbolName(const PrimFuncNode &func);
// The C operator of an infix BinaryOp ("+", "<=", "&&"); vector and/or use "&" and "|". Null
// for the ops C spells as calls (floordiv, min, ...).
const char *cInfixOperator(BinaryOp op, bool vector);

} // namespace tirlower
