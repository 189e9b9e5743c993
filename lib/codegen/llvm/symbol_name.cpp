// C symbols of emitted functions. The LLVM emitter names functions exactly as the C emitter
// does, so that an object from either backend links into the same program.
#include <cctype>
#include <unordered_set>

#include "codegen/llvm/llvm_emitter.h"

namespace tirlower {

namespace {

// C keywords and the C library names an emitted module (or a program linking it) defines or
// calls; a function with one of these names gets a "tir_" prefix.
bool clashesWithC(const std::string &name) {
  static const std::unordered_set<std::string> names = {
      "auto",     "break",  "case",     "char",    "const",  "continue", "default", "do",     "double",  "else",
      "enum",     "extern", "float",    "for",     "goto",   "if",       "inline",  "int",    "long",    "register",
      "restrict", "return", "short",    "signed",  "sizeof", "static",   "struct",  "switch", "typedef", "union",
      "unsigned", "void",   "volatile", "while",   "bool",   "true",     "false",   "main",   "memcpy",  "malloc",
      "free",     "exp",    "expf",     "exp2",    "exp2f",  "log",      "logf",    "log2",   "log2f",   "sqrt",
      "sqrtf",    "sin",    "sinf",     "cos",     "cosf",   "tanh",     "tanhf",   "fabs",   "fabsf",   "floor",
      "floorf",   "ceil",   "ceilf",    "round",   "roundf", "trunc",    "truncf",  "pow",    "powf",    "fmod",
      "fmodf",    "abs",    "NAN",      "INFINITY"};
  return names.count(name) != 0;
}

} // namespace

std::string llvmSymbolName(const PrimFuncNode &func) {
  std::string symbol;
  for (char c : func.globalSymbol())
    symbol += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (symbol.empty() || std::isdigit(static_cast<unsigned char>(symbol[0])))
    symbol = "v_" + symbol;
  if (symbol.rfind("tl_", 0) == 0 || symbol.rfind("__", 0) == 0)
    symbol = "u" + symbol;
  return clashesWithC(symbol) ? "tir_" + symbol : symbol;
}

} // namespace tirlower
