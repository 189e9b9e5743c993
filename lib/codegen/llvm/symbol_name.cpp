// C symbols of emitted functions: the LLVM emitter names functions exactly as the C emitter
// does (lib/codegen/c_family.h), so an object from either backend links into the same program.
#include "codegen/c_family.h"
#include "codegen/llvm/llvm_emitter.h"

namespace tirlower {

std::string llvmSymbolName(const PrimFuncNode &func) {
  return cSymbolName(func);
}

} // namespace tirlower
