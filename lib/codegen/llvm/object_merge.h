// Joins relocatable ELF objects into one, as `ld -r` would for the objects the LLVM emitter
// writes: the functions of a module are optimised and compiled in pieces, each in its own LLVM
// context on its own thread, and their objects are joined in module order, so the output does
// not depend on the thread count (docs/llvm-emitter.md, "Objects on several threads").
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tirlower {

// Sections of the same name, type, flags and entry size are concatenated in input order (each
// piece at its own alignment) and their relocations follow them; local symbols are kept per
// input, defined globals must be distinct, undefined ones are shared, and each input's file
// symbol is replaced by the first input's. Handles 64-bit little-endian ELF with RELA
// relocations and no section groups (what LLVM writes for x86-64, AArch64 and RISC-V here);
// returns nullopt for anything else, so that the caller can compile the module whole instead.
std::optional<std::string> mergeElfObjects(const std::vector<std::string> &objects);

} // namespace tirlower
