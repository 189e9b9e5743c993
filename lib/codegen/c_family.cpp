#include "codegen/c_family.h"

#include <cctype>
#include <unordered_set>

namespace tirlower {

bool isReservedCName(const std::string &name) {
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

std::string cIdentifier(std::string_view name) {
  std::string out;
  for (char c : name)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])))
    out = "v_" + out;
  if (out.rfind("tl_", 0) == 0 || out.rfind("__", 0) == 0)
    out = "u" + out;
  return out;
}

std::string cSymbolName(const PrimFuncNode &func) {
  std::string symbol = cIdentifier(func.globalSymbol());
  return isReservedCName(symbol) ? "tir_" + symbol : symbol;
}

const char *cInfixOperator(BinaryOp op, bool vector) {
  switch (op) {
  case BinaryOp::Add: return "+";
  case BinaryOp::Sub: return "-";
  case BinaryOp::Mul: return "*";
  case BinaryOp::Div: return "/";
  case BinaryOp::Mod: return "%";
  case BinaryOp::LT: return "<";
  case BinaryOp::LE: return "<=";
  case BinaryOp::GT: return ">";
  case BinaryOp::GE: return ">=";
  case BinaryOp::EQ: return "==";
  case BinaryOp::NE: return "!=";
  case BinaryOp::And: return vector ? "&" : "&&";
  case BinaryOp::Or: return vector ? "|" : "||";
  default: return nullptr;
  }
}

} // namespace tirlower
