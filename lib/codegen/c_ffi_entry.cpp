// The TVM FFI entry in C (--abi=tvm-ffi): the description of ffi_entry.h rendered after the
// function it calls, with the ABI structs and helpers it needs once per file. The structs are
// declared here (layout-compatible with tvm/ffi/c_api.h and dlpack.h, under tl_ names so that
// the file stays self-contained and clashes with neither); the only symbol the file needs from
// outside is tvm-ffi's TVMFFIErrorSetRaisedFromCStr.
#include "codegen/c_ffi_entry.h"

#include "ir/script_literals.h"

namespace tirlower {

namespace {

std::string supportBlock() {
  std::string s =
      "/* The TVM FFI calling convention (docs/abi.md): tvm/ffi/c_api.h's TVMFFIAny and dlpack.h's\n"
      "   DLTensor, declared here with the same layout. */\n"
      "#include <stdarg.h>\n#include <stdio.h>\n"
      "typedef struct {\n  int32_t type_index;\n  uint32_t zero_padding;\n"
      "  union {\n    int64_t v_int64;\n    double v_float64;\n    void *v_ptr;\n  } v;\n} tl_ffi_any;\n"
      "typedef struct {\n  uint8_t code;\n  uint8_t bits;\n  uint16_t lanes;\n} tl_dl_dtype;\n"
      "typedef struct {\n  void *data;\n  int32_t device_type;\n  int32_t device_id;\n  int32_t ndim;\n"
      "  tl_dl_dtype dtype;\n  int64_t *shape;\n  int64_t *strides;\n  uint64_t byte_offset;\n} tl_dl_tensor;\n"
      "_Static_assert(sizeof(tl_ffi_any) == 16, \"TVMFFIAny is 16 bytes\");\n"
      "_Static_assert(sizeof(tl_dl_tensor) == 48, \"DLTensor is 48 bytes\");\n"
      "extern void TVMFFIErrorSetRaisedFromCStr(const char *kind, const char *message);\n"
      "/* Raises a tvm-ffi error of `kind` with the printf-formatted message; returns -1. */\n"
      "__attribute__((format(printf, 2, 3))) static inline int tl_ffi_error(const char *kind, const char *format, "
      "...) {\n"
      "  char message[1024];\n  va_list args;\n  va_start(args, format);\n"
      "  vsnprintf(message, sizeof message, format, args);\n  va_end(args);\n"
      "  TVMFFIErrorSetRaisedFromCStr(kind, message);\n  return -1;\n}\n"
      "/* The DLTensor of a DLTensor* or ffi.Tensor argument (after the object's header), else NULL\n"
      "   (a null object too). */\n"
      "static inline tl_dl_tensor *tl_ffi_tensor(const tl_ffi_any *arg) {\n"
      "  if (!arg->v.v_ptr)\n    return NULL;\n"
      "  if (arg->type_index == " +
      std::to_string(kFfiDLTensorPtr) +
      ")\n    return (tl_dl_tensor *)arg->v.v_ptr;\n"
      "  if (arg->type_index == " +
      std::to_string(kFfiTensor) + ")\n    return (tl_dl_tensor *)((char *)arg->v.v_ptr + " +
      std::to_string(kFfiObjectHeaderBytes) +
      ");\n  return NULL;\n}\n"
      "/* A tensor's stride of `axis` in elements: its strides, or the compact one when strides is NULL\n"
      "   (wrapping at 64 bits: a product that overflows fails the check, never traps). */\n"
      "static inline int64_t tl_ffi_stride(const tl_dl_tensor *t, int32_t axis) {\n"
      "  if (t->strides)\n    return t->strides[axis];\n"
      "  uint64_t stride = 1;\n  for (int32_t k = axis + 1; k < t->ndim; ++k)\n"
      "    stride *= (uint64_t)t->shape[k];\n"
      "  return (int64_t)stride;\n}\n"
      "/* The elements a tensor's extents and strides reach: the largest offset + 1; 0 when an extent is\n"
      "   0; -1 when an extent is negative; -2 when that count overflows int64. */\n"
      "static inline int64_t tl_ffi_span(const tl_dl_tensor *t) {\n"
      "  int64_t last = 0, compact = 1, reach;\n  int empty = 0, overflow = 0;\n"
      "  for (int32_t k = t->ndim; k-- > 0;) {\n"
      "    int64_t extent = t->shape[k], step = t->strides ? t->strides[k] : compact;\n"
      "    if (extent < 0)\n      return -1;\n    empty |= extent == 0;\n"
      "    if (step < 0)\n      overflow |= __builtin_sub_overflow((int64_t)0, step, &step);\n"
      "    if (extent > 0)\n"
      "      overflow |= __builtin_mul_overflow(extent - 1, step, &reach) || __builtin_add_overflow(last, reach, &last);\n"
      "    if (!t->strides)\n      overflow |= __builtin_mul_overflow(compact, extent, &compact);\n  }\n"
      "  if (empty)\n    return 0;\n"
      "  return overflow || last == INT64_MAX ? -2 : last + 1;\n}\n"
      "static inline const char *tl_ffi_type_name(int32_t type_index) {\n  switch (type_index) {\n";
  for (const auto &[index, name] : ffiTypeNames())
    s += "  case " + std::to_string(index) + ":\n    return \"" + name + "\";\n";
  s += "  default:\n    return \"object\";\n  }\n}\n"
       "static inline const char *tl_ffi_code_name(uint8_t code) {\n  switch (code) {\n";
  for (const auto &[code, name] : dlCodeNames())
    s += "  case " + std::to_string(code) + ":\n    return \"" + name + "\";\n";
  s += "  default:\n    return \"code\";\n  }\n}\n";
  return s;
}

class EntryWriter : FfiStepRenderer {
public:
  EntryWriter(const FfiEntry &entry, CSupport &support, std::string &out) : e_(entry), support_(support), o_(out) {}

  void write(const std::vector<std::string> &paramTypes) {
    support_.addHelper("tl_ffi", supportBlock());
    o_ += "\n// The TVM FFI entry of " + e_.symbol + " (docs/abi.md): " + e_.signature + "\n";
    o_ += "int " + e_.entrySymbol + "(void *self, const tl_ffi_any *args, int32_t num_args, tl_ffi_any *result) {\n";
    o_ += "  (void)self;\n";
    o_ += "  if (num_args != " + std::to_string(e_.arguments) + ")\n";
    raise("TypeError", e_.countMessage, std::to_string(e_.arguments) + ", (int)num_args");
    renderFfiSteps(e_, *this);
    // The call: the function raised the error of a nonzero result itself.
    o_ += "  int32_t status = " + e_.symbol + "(";
    for (size_t k = 0; k < e_.params.size(); ++k) {
      if (k)
        o_ += ", ";
      const FfiParam &p = e_.params[k];
      if (p.kind == FfiParam::Kind::Tensor)
        o_ += "t" + std::to_string(k) + "->data";
      else if (p.kind == FfiParam::Kind::Int || p.kind == FfiParam::Kind::Extent)
        o_ += "(" + paramTypes[k] + ")v" + std::to_string(p.var);
      else
        o_ += "(" + paramTypes[k] + ")a" + std::to_string(k);
    }
    o_ += ");\n";
    o_ += "  result->type_index = 0;\n  result->zero_padding = 0;\n  result->v.v_int64 = 0;\n";
    o_ += "  return status == 0 ? 0 : -1;\n}\n";
  }

private:
  void raise(const char *kind, const std::string &format, const std::string &values) {
    o_ += "    return tl_ffi_error(\"" + std::string(kind) + "\", ";
    appendQuoted(o_, format);
    o_ += values.empty() ? ");\n" : ", " + values + ");\n";
  }

  void argument(size_t k) override {
    const FfiParam &p = e_.params[k];
    std::string arg = "args[" + std::to_string(p.argument) + "]";
    std::string kindName = "tl_ffi_type_name(" + arg + ".type_index)";
    std::string is = arg + ".type_index == ";
    std::string n = std::to_string(k);
    switch (p.kind) {
    case FfiParam::Kind::Tensor: {
      std::string t = "t" + n;
      o_ += "  tl_dl_tensor *" + t + " = tl_ffi_tensor(&" + arg + ");\n";
      o_ += "  if (!" + t + " && (" + is + std::to_string(kFfiDLTensorPtr) + " || " + is + std::to_string(kFfiTensor) +
            "))\n";
      raise("ValueError", p.nullMessage, kindName);
      o_ += "  if (!" + t + ")\n";
      raise("TypeError", p.kindMessage, kindName);
      o_ += "  if (" + t + "->ndim != " + std::to_string(p.ndim) + ")\n";
      raise("ValueError", p.ndimMessage, "(int)" + t + "->ndim");
      if (p.ndim > 0) {
        o_ += "  if (!" + t + "->shape)\n";
        raise("ValueError", p.shapeMessage, "");
      }
      o_ += "  if (" + t + "->dtype.code != " + std::to_string(p.dlCode) + " || " + t +
            "->dtype.bits != " + std::to_string(p.dlBits) + " || " + t + "->dtype.lanes != " +
            std::to_string(p.dlLanes) + ")\n";
      raise("TypeError", p.dtypeMessage,
            "tl_ffi_code_name(" + t + "->dtype.code), (int)" + t + "->dtype.bits, " + t +
                "->dtype.lanes != 1 ? \"x\" : \"\", " + t + "->dtype.lanes != 1 ? (int)" + t + "->dtype.lanes : 0");
      o_ += "  if (" + t + "->device_type != 1)\n";
      raise("ValueError", p.deviceMessage, "(int)" + t + "->device_type, (int)" + t + "->device_id");
      if (p.alignment > 1) {
        o_ += "  if ((uintptr_t)" + t + "->data % " + std::to_string(p.alignment) + " != 0)\n";
        raise("ValueError", p.alignmentMessage, "(unsigned long long)(uintptr_t)" + t + "->data");
      }
      return;
    }
    case FfiParam::Kind::Int: {
      std::string v = "v" + std::to_string(p.var);
      o_ += "  if (!(" + is + std::to_string(kFfiInt) + " || " + is + std::to_string(kFfiBool) + "))\n";
      raise("TypeError", p.kindMessage, kindName);
      o_ += "  int64_t " + v + " = " + arg + ".v.v_int64;\n";
      if (!p.rangeMessage.empty()) {
        std::string narrow = "(int" + std::to_string(p.type.bits()) + "_t)";
        if (p.type.isUInt())
          narrow = "(uint" + std::to_string(p.type.bits()) + "_t)";
        o_ += "  if (" + v + " != (int64_t)" + narrow + v + ")\n";
        raise("ValueError", p.rangeMessage, "(long long)" + v);
      }
      return;
    }
    case FfiParam::Kind::Bool:
      o_ += "  if (!(" + is + std::to_string(kFfiInt) + " || " + is + std::to_string(kFfiBool) + "))\n";
      raise("TypeError", p.kindMessage, kindName);
      o_ += "  bool a" + n + " = " + arg + ".v.v_int64 != 0;\n";
      return;
    case FfiParam::Kind::Float:
      o_ += "  if (!(" + is + std::to_string(kFfiFloat) + " || " + is + std::to_string(kFfiInt) + " || " + is +
            std::to_string(kFfiBool) + "))\n";
      raise("TypeError", p.kindMessage, kindName);
      o_ += "  double a" + n + " = " + is + std::to_string(kFfiFloat) + " ? " + arg + ".v.v_float64 : (double)" + arg +
            ".v.v_int64;\n";
      return;
    case FfiParam::Kind::Pointer:
      o_ += "  void *a" + n + ";\n  if (" + is + std::to_string(kFfiNone) + ")\n    a" + n + " = NULL;\n";
      o_ += "  else if (" + is + std::to_string(kFfiOpaquePtr) + ")\n    a" + n + " = " + arg + ".v.v_ptr;\n";
      o_ += "  else if (tl_ffi_tensor(&" + arg + "))\n    a" + n + " = tl_ffi_tensor(&" + arg + ")->data;\n";
      o_ += "  else\n";
      raise("TypeError", p.kindMessage, kindName);
      return;
    case FfiParam::Kind::Extent:
      return;
    }
  }

  void bind(size_t index) override {
    const FfiVar &v = e_.vars[index];
    std::string t = "t" + std::to_string(v.param);
    std::string value = v.fromStride ? "tl_ffi_stride(" + t + ", " + std::to_string(v.axis) + ")"
                                     : t + "->shape[" + std::to_string(v.axis) + "]";
    std::string name = "v" + std::to_string(index);
    o_ += "  int64_t " + name + " = " + value + ";\n  (void)" + name + ";\n";
    if (!v.negativeMessage.empty()) {
      o_ += "  if (" + name + " < 0)\n";
      raise("ValueError", v.negativeMessage, "(long long)" + name);
    }
    if (!v.rangeMessage.empty()) {
      o_ += "  if (" + name + " != (int64_t)(int32_t)" + name + ")\n";
      raise("ValueError", v.rangeMessage, "(long long)" + name);
    }
  }

  // Step 5: the elements tensor k reaches, then its data.
  void extentOf(size_t k) override {
    const FfiParam &p = e_.params[k];
    std::string t = "t" + std::to_string(k);
    if (p.spanCheck) {
      std::string span = "s" + std::to_string(k);
      o_ += "  int64_t " + span + " = tl_ffi_span(" + t + ");\n  if (" + span + " == -1)\n";
      raise("ValueError", p.negativeMessage, "");
      o_ += "  if (" + span + " < 0 || " + span + " - 1 > (int64_t)" + std::to_string(p.maxOffset) + ")\n";
      raise("ValueError", p.spanMessage, "");
      o_ += "  if (!" + t + "->data && " + span + " != 0)\n";
      raise("ValueError", p.dataMessage, "");
    } else if (p.constantElements != 0) {
      o_ += "  if (!" + t + "->data)\n";
      raise("ValueError", p.dataMessage, "");
    }
  }

  void check(const FfiCheck &c) override {
    std::string t = "t" + std::to_string(c.param);
    std::string given;
    std::string guard;
    switch (c.what) {
    case FfiCheck::What::Shape:
      given = t + "->shape[" + std::to_string(c.axis) + "]";
      break;
    case FfiCheck::What::Stride:
      given = "tl_ffi_stride(" + t + ", " + std::to_string(c.axis) + ")";
      guard = t + "->shape[" + std::to_string(c.axis) + "] != 1 && ";
      break;
    case FfiCheck::What::ByteOffset:
      given = "(int64_t)" + t + "->byte_offset";
      break;
    }
    std::string expected = expr(c.expected);
    o_ += "  if (" + guard + given + " != " + expected + ")\n";
    raise("ValueError", c.message, "(long long)" + given + ", (long long)" + expected);
  }

  // An expression's C text over the int64 variables v<k>.
  std::string expr(int index) {
    const FfiExpr &x = e_.exprs[index];
    // Wrapping at 64 bits, a zero divisor read as 1 (as the LLVM entry computes them).
    auto infix = [&](const char *op) {
      return "(int64_t)((uint64_t)" + expr(x.a) + " " + op + " (uint64_t)" + expr(x.b) + ")";
    };
    auto call = [&](const std::string &fn) { return fn + "(" + expr(x.a) + ", " + expr(x.b) + ")"; };
    auto divide = [&](const std::string &fn) {
      const FfiExpr &divisor = e_.exprs[x.b];
      if (divisor.op == FfiExpr::Op::Const && divisor.value != 0)
        return call(fn);
      std::string b = expr(x.b);
      return fn + "(" + expr(x.a) + ", " + b + " ? " + b + " : (int64_t)1)";
    };
    switch (x.op) {
    case FfiExpr::Op::Const:
      return x.value == INT64_MIN ? "INT64_MIN" : "(int64_t)" + std::to_string(x.value);
    case FfiExpr::Op::Var:
      return "v" + std::to_string(x.value);
    case FfiExpr::Op::Add:
      return infix("+");
    case FfiExpr::Op::Sub:
      return infix("-");
    case FfiExpr::Op::Mul:
      return infix("*");
    case FfiExpr::Op::FloorDiv:
      return divide(support_.floorDiv(DataType::int64()));
    case FfiExpr::Op::FloorMod:
      return divide(support_.floorMod(DataType::int64()));
    case FfiExpr::Op::Min:
      return call(support_.minMax(false, DataType::int64()));
    case FfiExpr::Op::Max:
      return call(support_.minMax(true, DataType::int64()));
    }
    return "";
  }

  const FfiEntry &e_;
  CSupport &support_;
  std::string &o_;
};

} // namespace

void appendCFfiEntry(std::string &out, const FfiEntry &entry, const std::vector<std::string> &paramTypes,
                     CSupport &support) {
  EntryWriter(entry, support, out).write(paramTypes);
}

void appendCFfiRaise(std::string &out, const char *kind, const std::string &message) {
  out += "TVMFFIErrorSetRaisedFromCStr(\"";
  out += kind;
  out += "\", ";
  appendQuoted(out, message);
  out += ");";
}

} // namespace tirlower
