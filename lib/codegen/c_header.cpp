// The C header of a module: include guard, extern "C", and per function the parameter comment
// and the prototype, spelled as the C emitter spells the definition.
#include "codegen/c_header.h"

#include <cctype>
#include <cstdio>
#include <unordered_set>

#include "codegen/c_emitter.h"
#include "codegen/c_family.h"
#include "codegen/c_support.h"
#include "ir/access_census.h"
#include "ir/attrs.h"
#include "ir/buffer.h"
#include "ir/script_expr_printer.h"
#include "ir/script_literals.h"

namespace tirlower {

namespace {

// Bytes of one element of `type` in C (a bool is one byte).
int64_t elementBytes(DataType type) {
  if (type.isBool())
    return type.lanes();
  return (static_cast<int64_t>(type.bits()) * type.lanes() + 7) / 8;
}

// An extent, stride or offset as the TVMScript printer writes it (an int32 constant is its
// digits, the common case, written here directly).
void appendValue(std::string &out, const Expr &value) {
  if (const auto *imm = value.as<IntImmNode>(); imm && imm->type == DataType::int32())
    appendInt(out, imm->value);
  else
    out += formatExpr(value);
}

void appendTuple(std::string &out, const std::vector<Expr> &values) {
  out += '(';
  for (size_t k = 0; k < values.size(); ++k) {
    if (k)
      out += ", ";
    appendValue(out, values[k]);
  }
  out += values.size() == 1 ? ",)" : ")";
}

// How many elements the caller's storage must hold: the shape's product for a contiguous
// buffer, else the furthest element a strided view reaches plus one. A symbolic extent is
// given as its expression.
std::string elementCount(const BufferNode &buffer, std::optional<int64_t> &constant) {
  constant.reset();
  bool strided = !buffer.strides.empty();
  const int64_t *offset = buffer.elemOffset ? asConstInt(buffer.elemOffset) : nullptr;
  int64_t total = strided ? (buffer.elemOffset ? (offset ? *offset : -1) : 0) : 1;
  bool known = total >= 0;
  for (size_t k = 0; k < buffer.shape.size(); ++k) {
    const int64_t *extent = asConstInt(buffer.shape[k]);
    const int64_t *stride = strided ? asConstInt(buffer.strides[k]) : nullptr;
    if (!extent || (strided && !stride)) {
      known = false;
    } else if (known) {
      total = strided ? total + (*extent - 1) * *stride : total * *extent;
    }
  }
  if (known) {
    constant = strided ? total + 1 : total;
    return std::to_string(*constant);
  }
  if (strided)
    return "";
  std::string text;
  for (size_t k = 0; k < buffer.shape.size(); ++k) {
    if (k)
      text += " * ";
    appendValue(text, buffer.shape[k]);
  }
  return text;
}

void appendParameterLine(std::string &out, const std::string &name, const Var &param, const Buffer &buffer,
                         bool readOnly) {
  out += "//   ";
  out += name;
  out += ": ";
  if (!buffer) {
    if (param->type.isHandle()) {
      out += "pointer to ";
      out += param->pointeeType.isVoid() ? std::string_view("data") : typeSpelling(param->pointeeType).name;
    } else {
      out += typeSpelling(param->type).name;
      out += " scalar";
    }
    out += '\n';
    return;
  }
  out += typeSpelling(buffer->dtype).name;
  out += ", shape ";
  appendTuple(out, buffer->shape);
  if (!buffer->layout.empty()) {
    out += ", layout ";
    out += buffer->layout.view();
  }
  if (!buffer->strides.empty()) {
    out += ", strides ";
    appendTuple(out, buffer->strides);
  }
  if (buffer->elemOffset && !(asConstInt(buffer->elemOffset) && *asConstInt(buffer->elemOffset) == 0)) {
    out += ", element offset ";
    appendValue(out, buffer->elemOffset);
  }
  std::optional<int64_t> count;
  std::string elements = elementCount(*buffer, count);
  int lanes = buffer->dtype.lanes();
  // The scalar count and the bytes are products that may not fit int64 for a huge declared
  // shape (a comment must never overflow); then the comment says so instead of a number.
  auto product = [&out](int64_t count, int64_t factor) {
    int64_t value;
    if (__builtin_mul_overflow(count, factor, &value))
      out += "over 2^63";
    else
      appendInt(out, value);
  };
  if (count) {
    out += ": ";
    out += elements;
    if (lanes > 1) { // the C pointer is to the scalar type
      out += " elements of ";
      appendInt(out, lanes);
      out += " lanes, ";
      product(*count, lanes);
      out += ' ';
      out += typeSpelling(buffer->dtype.element()).name;
      out += " (";
    } else {
      out += " elements (";
    }
    product(*count, elementBytes(buffer->dtype));
    out += " bytes)";
  } else if (!elements.empty()) {
    out += ": ";
    out += elements;
    out += " elements";
  }
  if (!buffer->scope.empty() && !buffer->hasDefaultScope()) {
    out += ", scope ";
    out += buffer->scope.view();
  }
  out += readOnly ? ", read only\n" : "\n";
}

struct Prototype {
  std::vector<std::string> names; // the parameters' C names, in order
  std::string text;               // "int32_t f(const float *TIRLOWER_RESTRICT A, int32_t n)"
};

// The definition's parameter names and types, as the C emitter binds them: a parameter that
// is a reserved C name or repeats an earlier one gets "_1", "_2", ...
Prototype prototype(const PrimFuncNode &func, const std::string &symbol, const char *restrictSpelling,
                    const AccessCensus &census) {
  Prototype result;
  CSupport support;
  bool restrictParams = noalias(func);
  std::unordered_set<std::string> taken;
  result.text = "int32_t " + symbol + "(";
  for (size_t k = 0; k < func.params.size(); ++k) {
    const Var &param = func.params[k];
    std::string base = cIdentifier(param->name.view()), name = base;
    for (int n = 1; taken.count(name) || isReservedCName(name); ++n)
      name = base + "_" + std::to_string(n);
    taken.insert(name);
    result.names.push_back(name);
    result.text += k ? ", " : "";
    if (Buffer buffer = func.bufferFor(param)) {
      bool readOnly = !census.written.count(param.get());
      result.text += std::string(readOnly ? "const " : "") + support.scalarTypeName(buffer->dtype.element()) + " *" +
                     (restrictParams ? std::string(restrictSpelling) + " " : "") + name;
    } else if (param->type.isHandle()) {
      DataType pointee = param->pointeeType.isVoid() ? DataType::voidType() : param->pointeeType.element();
      result.text += support.scalarTypeName(pointee) + " *" + name;
    } else {
      result.text += support.scalarTypeName(param->type) + " " + name;
    }
  }
  result.text += func.params.empty() ? "void)" : ")";
  return result;
}

std::string includeGuard(const Module &module) {
  std::string base = module.functions.empty() ? std::string("module") : cSymbolName(*module.functions.front());
  uint64_t hash = 1469598103934665603ull; // FNV-1a of the functions' symbols
  for (const PrimFunc &func : module.functions)
    for (char c : cSymbolName(*func) + "\n") {
      hash ^= static_cast<unsigned char>(c);
      hash *= 1099511628211ull;
    }
  std::string guard = "TIRLOWER_";
  for (char c : cIdentifier(base))
    guard += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "_%08X_H", static_cast<unsigned>(hash & 0xffffffffu));
  return guard + suffix;
}

} // namespace

std::optional<int64_t> bufferStorageElements(const BufferNode &buffer) {
  std::optional<int64_t> count;
  elementCount(buffer, count);
  return count;
}

std::string cParameterComment(const PrimFuncNode &func, const std::string &symbol) {
  return cParameterComment(func, symbol, AccessCensus::of(func.body, /*countAssume=*/false));
}

void appendCParameterComment(std::string &out, const PrimFuncNode &func, const std::string &symbol,
                             const std::vector<std::string> &names, const AccessCensus &census) {
  out += "// ";
  out += symbol;
  out += '(';
  for (size_t k = 0; k < names.size(); ++k) {
    if (k)
      out += ", ";
    out += names[k];
  }
  out += "): returns 0, 1 when an assert fails, 2 when heap storage cannot be allocated.\n"
         "// Buffers in their physical layout (docs/abi.md):\n";
  for (size_t k = 0; k < func.params.size(); ++k) {
    const Var &param = func.params[k];
    Buffer buffer = func.bufferFor(param);
    appendParameterLine(out, names[k], param, buffer, buffer && !census.written.count(param.get()));
  }
}

std::string cParameterComment(const PrimFuncNode &func, const std::string &symbol, const AccessCensus &census) {
  std::string text;
  appendCParameterComment(text, func, symbol, prototype(func, symbol, "restrict", census).names, census);
  return text;
}

std::string emitCHeader(const Module &module, DiagnosticSink &diagnostics, const std::string &givenGuard) {
  emitC(module, CEmitOptions{}, diagnostics); // the header describes only what --emit=c writes
  std::string guard = givenGuard.empty() ? includeGuard(module) : givenGuard;
  std::string out = "// Generated by tirlower: the functions --emit=c defines for this module (docs/abi.md).\n"
                    "#ifndef " +
                    guard + "\n#define " + guard +
                    "\n\n#include <stdbool.h>\n#include <stdint.h>\n\n"
                    "#ifndef TIRLOWER_RESTRICT\n"
                    "#ifdef __cplusplus\n#define TIRLOWER_RESTRICT __restrict\n"
                    "#else\n#define TIRLOWER_RESTRICT restrict\n#endif\n#endif\n\n"
                    "#ifdef __cplusplus\nextern \"C\" {\n#endif\n";
  for (const PrimFunc &func : module.functions) {
    std::string symbol = cSymbolName(*func);
    AccessCensus census = AccessCensus::of(func->body, /*countAssume=*/false);
    out += "\n" + cParameterComment(*func, symbol, census) +
           prototype(*func, symbol, "TIRLOWER_RESTRICT", census).text + ";\n";
  }
  out += "\n#ifdef __cplusplus\n}\n#endif\n\n#endif // " + guard + "\n";
  return out;
}

} // namespace tirlower
