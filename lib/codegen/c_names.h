// C naming rules shared by the C and LLVM emitters, so an object from either backend links
// into the same program under the same symbols.
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

} // namespace tirlower
