// The C header of a module: include guard, extern "C", and per function the parameter comment
// and the prototype, spelled as the C emitter spells the definition.
#include "codegen/c_header.h"

#include <cctype>
#include <unordered_set>

#include "codegen/c_emitter.h"
#include "codegen/c_family.h"
#include "codegen/c_support.h"
#include "codegen/tir_printer.h"
#include "ir/access_census.h"
#include "ir/buffer.h"

namespace tirlower {

namespace {

// Bytes of one element of `type` in C (a bool is one byte).
int64_t elementBytes(DataType type) {
  if (type.isBool())
    return type.lanes();
  return (static_cast<int64_t>(type.bits()) * type.lanes() + 7) / 8;
}

std::string tuple(const std::vector<Expr> &values) {
  std::string text = "(";
  for (size_t k = 0; k < values.size(); ++k)
    text += (k ? ", " : "") + printExpr(values[k]);
  return text + (values.size() == 1 ? ",)" : ")");
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
  std::string text;
  for (size_t k = 0; k < buffer.shape.size(); ++k) {
    const int64_t *extent = asConstInt(buffer.shape[k]);
    const int64_t *stride = strided ? asConstInt(buffer.strides[k]) : nullptr;
    if (!extent || (strided && !stride)) {
      known = false;
    } else if (known) {
      total = strided ? total + (*extent - 1) * *stride : total * *extent;
    }
    text += (k ? " * " : "") + printExpr(buffer.shape[k]);
  }
  if (known) {
    constant = strided ? total + 1 : total;
    return std::to_string(*constant);
  }
  return strided ? "" : text;
}

std::string parameterLine(const std::string &name, const Var &param, const Buffer &buffer, bool readOnly) {
  if (!buffer) {
    if (param->type.isHandle())
      return name + ": pointer to " + (param->pointeeType.isVoid() ? "data" : param->pointeeType.str());
    return name + ": " + param->type.str() + " scalar";
  }
  std::string line = name + ": " + buffer->dtype.str() + ", shape " + tuple(buffer->shape);
  if (!buffer->layout.empty())
    line += ", layout " + buffer->layout.str();
  if (!buffer->strides.empty())
    line += ", strides " + tuple(buffer->strides);
  if (buffer->elemOffset && !(asConstInt(buffer->elemOffset) && *asConstInt(buffer->elemOffset) == 0))
    line += ", element offset " + printExpr(buffer->elemOffset);
  std::optional<int64_t> count;
  std::string elements = elementCount(*buffer, count);
  int lanes = buffer->dtype.lanes();
  // The scalar count and the bytes are products that may not fit int64 for a huge declared
  // shape (a comment must never overflow); then the comment says so instead of a number.
  auto product = [](int64_t count, int64_t factor) {
    int64_t value;
    return __builtin_mul_overflow(count, factor, &value) ? std::string("over 2^63") : std::to_string(value);
  };
  if (count && lanes > 1) // the C pointer is to the scalar type
    line += ": " + elements + " elements of " + std::to_string(lanes) + " lanes, " + product(*count, lanes) + " " +
            buffer->dtype.element().str() + " (" + product(*count, elementBytes(buffer->dtype)) + " bytes)";
  else if (count)
    line += ": " + elements + " elements (" + product(*count, elementBytes(buffer->dtype)) + " bytes)";
  else if (!elements.empty())
    line += ": " + elements + " elements";
  if (!buffer->scope.empty() && !buffer->hasDefaultScope())
    line += ", scope " + buffer->scope.str();
  return line + (readOnly ? ", read only" : "");
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
  bool noalias = false;
  if (const AttrValue *a = func.attrs.find("tir.noalias"))
    noalias = a->kind() == AttrValue::Kind::Bool ? a->asBool() : a->asInt() != 0;
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
                     (noalias ? std::string(restrictSpelling) + " " : "") + name;
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
  std::string base = !module.name.empty()       ? module.name
                     : module.functions.empty() ? std::string("module")
                                                : cSymbolName(*module.functions.front());
  std::string guard = "TIRLOWER_";
  for (char c : cIdentifier(base))
    guard += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return guard + "_H";
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

std::string cParameterComment(const PrimFuncNode &func, const std::string &symbol, const AccessCensus &census) {
  Prototype proto = prototype(func, symbol, "restrict", census);
  std::string names;
  for (const std::string &name : proto.names)
    names += (names.empty() ? "" : ", ") + name;
  std::string text = "// " + symbol + "(" + names +
                     "): returns 0, 1 when an assert fails, 2 when heap storage cannot be allocated.\n"
                     "// Buffers in their physical layout (docs/abi.md):\n";
  for (size_t k = 0; k < func.params.size(); ++k) {
    const Var &param = func.params[k];
    Buffer buffer = func.bufferFor(param);
    text += "//   " + parameterLine(proto.names[k], param, buffer, buffer && !census.written.count(param.get())) + "\n";
  }
  return text;
}

std::string emitCHeader(const Module &module, DiagnosticSink &diagnostics) {
  emitC(module, CEmitOptions{}, diagnostics); // the header describes only what --emit=c writes
  std::string guard = includeGuard(module);
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
