#include "codegen/c_support.h"

#include "ir/diagnostic.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace tirlower {

namespace {
std::string suffix(DataType type) {
  return type.str();
} // "int32", "float32x4"
} // namespace

std::string_view cScalarTypeName(DataType type) {
  // "int<bits>_t" and "uint<bits>_t" for every width a DataType holds, spelled once.
  using Names = std::array<std::string, 256>;
  static const Names ints = [] {
    Names names;
    for (size_t bits = 0; bits < names.size(); ++bits)
      names[bits] = "int" + std::to_string(bits) + "_t";
    return names;
  }();
  static const Names uints = [] {
    Names names;
    for (size_t bits = 0; bits < names.size(); ++bits)
      names[bits] = "uint" + std::to_string(bits) + "_t";
    return names;
  }();
  switch (type.code()) {
  case DataType::Code::Int: return ints[static_cast<size_t>(type.bits())];
  case DataType::Code::UInt: return uints[static_cast<size_t>(type.bits())];
  case DataType::Code::Float: return type.bits() == 64 ? "double" : type.bits() == 16 ? "_Float16" : "float";
  case DataType::Code::BFloat: return "uint16_t";
  case DataType::Code::Bool: return "bool";
  case DataType::Code::Handle: return "void *";
  case DataType::Code::Void: return "void";
  }
  return "void";
}

int cVectorLanes(int lanes) {
  int physical = 1;
  while (physical < lanes)
    physical *= 2;
  return physical;
}

namespace {
// A padded vector's helpers start from zero: GCC cannot tell that their loops write every lane
// and warns (-Wmaybe-uninitialized) where they are inlined.
std::string paddedInit(DataType type) {
  return cVectorLanes(type.lanes()) == type.lanes() ? "" : " = {0}";
}
} // namespace

std::string_view CSupport::typeName(DataType type) {
  if (type.isScalar())
    return cScalarTypeName(type);
  const uint32_t key = static_cast<uint32_t>(type.code()) << 24 | static_cast<uint32_t>(type.bits()) << 16 |
                       static_cast<uint32_t>(type.lanes());
  if (auto known = vectorNames_.find(key); known != vectorNames_.end())
    return known->second;
  std::string name = "tl_" + suffix(type);
  if (!typedefs_.count(name)) {
    // Bool lanes are stored as 0/1 bytes; the others as their scalar type. GCC and Clang take
    // power-of-two lane counts only: other counts are padded (see cVectorLanes). The element's
    // alignment and may_alias let the load and store helpers read and write a buffer's
    // elements through the vector type (one vector move, not a memcpy the compiler may keep).
    std::string lane = type.isBool() ? "int8_t" : scalarTypeName(type.element());
    int bytes = cVectorLanes(type.lanes()) * type.laneBytes();
    typedefs_.emplace(name, "typedef " + lane + " " + name + " __attribute__((vector_size(" + std::to_string(bytes) +
                                "), aligned(" + std::to_string(type.laneBytes()) + "), may_alias));\n");
  }
  return vectorNames_.emplace(key, std::move(name)).first->second;
}

template <typename F> const std::string &CSupport::define(const std::string &name, F &&definition) {
  auto it = helpers_.find(name);
  if (it == helpers_.end())
    it = helpers_.emplace(name, definition()).first;
  return it->first;
}

namespace {
// `(T)((U)0 - (U)a)`: -a wrapping at T's width (U is the unsigned type of that width).
std::string wrappingNegation(const std::string &t, DataType type) {
  return "(" + t + ")((uint" + std::to_string(type.bits()) + "_t)0 - (uint" + std::to_string(type.bits()) + "_t)a)";
}
} // namespace

const std::string &CSupport::workspace() {
  return define("tl_workspace", [] {
    // Each slot the thread has used is on the thread's list, which the destructor (run when the
    // file's code is unloaded, dlclose, or the process exits) frees on the thread that runs it.
    return std::string("typedef struct tl_workspace {\n  void *data;\n  size_t bytes;\n  struct tl_workspace *next;\n"
                       "  int listed;\n} tl_workspace_t;\n"
                       "static _Thread_local tl_workspace_t *tl_workspaces;\n"
                       "static inline void *tl_workspace(tl_workspace_t *w, size_t bytes) {\n"
                       "  if (bytes == 0)\n    bytes = 1;\n"
                       "  if (!w->listed) {\n    w->next = tl_workspaces;\n    tl_workspaces = w;\n    w->listed = 1;\n  }\n"
                       "  if (w->bytes < bytes) {\n    free(w->data);\n    w->data = malloc(bytes);\n"
                       "    w->bytes = w->data ? bytes : 0;\n  }\n  return w->data;\n}\n"
                       "__attribute__((destructor)) static void tl_release_workspaces(void) {\n"
                       "  for (tl_workspace_t *w = tl_workspaces; w; w = w->next) {\n    free(w->data);\n"
                       "    w->data = 0;\n    w->bytes = 0;\n  }\n}\n");
  });
}

const std::string &CSupport::floorDiv(DataType type) {
  std::string t = scalarTypeName(type), name = "tl_floordiv_" + suffix(type);
  return define(name, [&] {
    return "static inline " + t + " " + name + "(" + t + " a, " + t + " b) {\n  if (b == -1)\n    return " +
           wrappingNegation(t, type) + ";\n  " + t +
           " q = a / b;\n  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;\n}\n";
  });
}

// r + (signs differ ? b : 0) rather than (signs differ) ? r + b : r: GCC 12 at -O2/-O3 (the
// --emit=so build) miscompiles the latter in a vectorized loop whose array index it is
// (In[tl_floormod_int32(-i, 2)] read In[-1] for odd i); the sum form compiles right.
const std::string &CSupport::floorMod(DataType type) {
  std::string t = scalarTypeName(type), name = "tl_floormod_" + suffix(type);
  return define(name, [&] {
    return "static inline " + t + " " + name + "(" + t + " a, " + t + " b) {\n  if (b == -1)\n    return 0;\n  " + t +
           " r = a % b;\n  return r + ((r != 0 && (r ^ b) < 0) ? b : 0);\n}\n";
  });
}

const std::string &CSupport::truncDiv(DataType type) {
  std::string t = scalarTypeName(type), name = "tl_div_" + suffix(type);
  return define(name, [&] {
    return "static inline " + t + " " + name + "(" + t + " a, " + t + " b) { return b == -1 ? " +
           wrappingNegation(t, type) + " : a / b; }\n";
  });
}

const std::string &CSupport::truncMod(DataType type) {
  std::string t = scalarTypeName(type), name = "tl_mod_" + suffix(type);
  return define(name, [&] {
    return "static inline " + t + " " + name + "(" + t + " a, " + t + " b) { return b == -1 ? 0 : a % b; }\n";
  });
}

const std::string &CSupport::integerAbs(DataType type) {
  std::string t = scalarTypeName(type), name = "tl_abs_" + suffix(type);
  return define(name, [&] {
    return "static inline " + t + " " + name + "(" + t + " a) { return a < 0 ? " + wrappingNegation(t, type) +
           " : a; }\n";
  });
}

const std::string &CSupport::floatFloorDiv(DataType type) {
  std::string t = scalarTypeName(type), name = "tl_floordiv_" + suffix(type);
  if (type.bits() == 16) // every operation rounds to _Float16 (see the C emitter)
    return define(name, [&] {
      return "static inline " + t + " " + name + "(" + t + " a, " + t + " b) { return (" + t + ")floorf((" + t +
             ")(a / b)); }\n";
    });
  std::string f = type.bits() == 32 ? "floorf" : "floor";
  return define(name, [&] {
    return "static inline " + t + " " + name + "(" + t + " a, " + t + " b) { return " + f + "(a / b); }\n";
  });
}

const std::string &CSupport::floatFloorMod(DataType type) {
  std::string t = scalarTypeName(type), name = "tl_floormod_" + suffix(type);
  if (type.bits() == 16)
    return define(name, [&] {
      return "static inline " + t + " " + name + "(" + t + " a, " + t + " b) { return (" + t + ")(a - (" + t +
             ")(floorf((" + t + ")(a / b)) * b)); }\n";
    });
  std::string f = type.bits() == 32 ? "floorf" : "floor";
  return define(name, [&] {
    return "static inline " + t + " " + name + "(" + t + " a, " + t + " b) { return a - " + f + "(a / b) * b; }\n";
  });
}

const std::string &CSupport::minMax(bool isMax, DataType type) {
  std::string name = std::string(isMax ? "tl_max_" : "tl_min_") + suffix(type);
  std::string t(typeName(type));
  std::string op = isMax ? ">" : "<";
  if (type.isScalar())
    return define(name, [&] {
      return "static inline " + t + " " + name + "(" + t + " a, " + t + " b) { return a " + op + " b ? a : b; }\n";
    });
  return define(name, [&] {
    return "static inline " + t + " " + name + "(" + t + " a, " + t + " b) {\n  " + t + " r;\n  for (int k = 0; k < " +
           std::to_string(cVectorLanes(type.lanes())) + "; ++k)\n    r[k] = a[k] " + op +
           " b[k] ? a[k] : b[k];\n  return r;\n}\n";
  });
}

const std::string &CSupport::vectorLoad(DataType type) {
  std::string t(typeName(type)), s = scalarTypeName(type.element()), name = "tl_load_" + suffix(type);
  const int lanes = type.lanes(), physical = cVectorLanes(lanes);
  if (physical != lanes) // padded: read the lanes only, and repeat the last one
    return define(name, [&] {
      return "static inline " + t + " " + name + "(const " + s + " *p) {\n  " + t + " v" + paddedInit(type) +
             ";\n  memcpy(&v, p, " + std::to_string(lanes) + " * sizeof(" + s +
             "));\n  for (int k = " + std::to_string(lanes) + "; k < " + std::to_string(physical) +
             "; ++k)\n    v[k] = v[" + std::to_string(lanes - 1) + "];\n  return v;\n}\n";
    });
  return define(name, [&] {
    return "static inline " + t + " " + name + "(const " + s + " *p) { return *(const " + t + " *)p; }\n";
  });
}

const std::string &CSupport::vectorStore(DataType type) {
  std::string t(typeName(type)), s = scalarTypeName(type.element()), name = "tl_store_" + suffix(type);
  const int lanes = type.lanes();
  if (cVectorLanes(lanes) == lanes)
    return define(
        name, [&] { return "static inline void " + name + "(" + s + " *p, " + t + " v) { *(" + t + " *)p = v; }\n"; });
  // Padded: write the lanes only.
  return define(name, [&] {
    return "static inline void " + name + "(" + s + " *p, " + t + " v) { memcpy(p, &v, " + std::to_string(lanes) +
           " * sizeof(" + s + ")); }\n";
  });
}

// Clang's __builtin_nontemporal_store takes any vector; GCC has no such builtin, so on x86 it
// takes the SSE2/AVX streaming intrinsics (its vector types cast to __m128i/__m256i as they have
// the same size). The store needs an aligned address: a misaligned one takes the plain store.
const std::string *CSupport::streamStore(DataType type) {
  const int lanes = type.lanes();
  const int bytes = lanes * type.element().laneBytes();
  if (cVectorLanes(lanes) != lanes || type.isBool() || (bytes != 16 && bytes != 32))
    return nullptr;
  std::string t(typeName(type)), s = scalarTypeName(type.element()), name = "tl_stream_" + suffix(type);
  return &define(name, [&] {
    std::string size = std::to_string(bytes), mask = std::to_string(bytes - 1);
    std::string x86 = bytes == 16 ? "__SSE2__" : "__AVX__";
    std::string intrinsic =
        bytes == 16 ? "_mm_stream_si128((__m128i *)p, (__m128i)v)" : "_mm256_stream_si256((__m256i *)p, (__m256i)v)";
    return "#if !defined(__clang__) && defined(" + x86 +
           ")\n#include <immintrin.h>\n#endif\n"
           "static inline void " +
           name + "(" + s + " *p, " + t +
           " v) {\n"
           "#if defined(__clang__)\n"
           "  typedef " +
           s + " aligned_t __attribute__((vector_size(" + size +
           ")));\n"
           "  if (((uintptr_t)p & " +
           mask +
           ") == 0) {\n"
           "    __builtin_nontemporal_store((aligned_t)v, (aligned_t *)p);\n"
           "    return;\n"
           "  }\n"
           "#elif defined(" +
           x86 +
           ")\n"
           "  if (((uintptr_t)p & " +
           mask +
           ") == 0) {\n"
           "    " +
           intrinsic +
           ";\n"
           "    return;\n"
           "  }\n"
           "#endif\n"
           "  *(" +
           t +
           " *)p = v;\n"
           "}\n";
  });
}

const std::string &CSupport::ramp(DataType type) {
  std::string t(typeName(type)), s = scalarTypeName(type.element()), name = "tl_ramp_" + suffix(type);
  // Padding lanes repeat the last lane, so they compute what it computes (no new traps).
  std::string last = std::to_string(type.lanes() - 1);
  std::string lane = cVectorLanes(type.lanes()) == type.lanes() ? "k" : "(k < " + last + " ? k : " + last + ")";
  // Signed lanes wrap as the IR's arithmetic does: computed in the unsigned type of that width.
  std::string value = "base + (" + s + ")" + lane + " * stride";
  if (type.isInt()) {
    std::string u = "(uint" + std::to_string(type.bits()) + "_t)";
    value = "(" + s + ")(" + u + "base + " + u + lane + " * " + u + "stride)";
  }
  return define(name, [&] {
    return "static inline " + t + " " + name + "(" + s + " base, " + s + " stride) {\n  " + t + " v" +
           paddedInit(type) + ";\n  for (int k = 0; k < " + std::to_string(cVectorLanes(type.lanes())) +
           "; ++k)\n    v[k] = " + value + ";\n  return v;\n}\n";
  });
}

const std::string &CSupport::broadcast(DataType type) {
  std::string t(typeName(type)), s = scalarTypeName(type.element()), name = "tl_broadcast_" + suffix(type);
  std::string lane = type.isBool() ? "(int8_t)x" : "x";
  // A vector literal (every lane, padding lanes included): one splat for the compiler.
  std::string lanes;
  for (int k = 0; k < cVectorLanes(type.lanes()); ++k)
    lanes += (k ? ", " : "") + lane;
  return define(name, [&] {
    return "static inline " + t + " " + name + "(" + s + " x) { return (" + t + "){" + lanes + "}; }\n";
  });
}

const std::string &CSupport::select(DataType type) {
  std::string t(typeName(type)), c(typeName(DataType::boolean(type.lanes()))), name = "tl_select_" + suffix(type);
  return define(name, [&] {
    return "static inline " + t + " " + name + "(" + c + " c, " + t + " a, " + t + " b) {\n  " + t +
           " r;\n  for (int k = 0; k < " + std::to_string(cVectorLanes(type.lanes())) +
           "; ++k)\n    r[k] = c[k] ? a[k] : b[k];\n  return r;\n}\n";
  });
}

const std::string &CSupport::compare(const char *op, DataType type) {
  static const std::map<std::string, std::string> names = {{"<", "lt"},  {"<=", "le"}, {">", "gt"},
                                                           {">=", "ge"}, {"==", "eq"}, {"!=", "ne"}};
  std::string t(typeName(type)), b(typeName(DataType::boolean(type.lanes())));
  std::string name = "tl_" + names.at(op) + "_" + suffix(type);
  return define(name, [&] {
    return "static inline " + b + " " + name + "(" + t + " a, " + t + " b) {\n  " + b + " r;\n  for (int k = 0; k < " +
           std::to_string(cVectorLanes(type.lanes())) + "; ++k)\n    r[k] = a[k] " + op + " b[k];\n  return r;\n}\n";
  });
}

const std::string &CSupport::convert(DataType from, DataType to) {
  std::string f(typeName(from)), t(typeName(to)), name = "tl_convert_" + suffix(from) + "_" + suffix(to);
  std::string lane = "(" + scalarTypeName(to.element()) + ")a[k]";
  if (to.isBool())
    lane = "(int8_t)(a[k] != 0)";
  return define(name, [&] {
    return "static inline " + t + " " + name + "(" + f + " a) {\n  " + t + " r;\n  for (int k = 0; k < " +
           std::to_string(cVectorLanes(to.lanes())) + "; ++k)\n    r[k] = " + lane + ";\n  return r;\n}\n";
  });
}

const std::string &CSupport::bfloat16ToDouble() {
  return define("tl_bf16_to_double", [] {
    return std::string("static inline double tl_bf16_to_double(uint16_t h) {\n"
                       "  union { uint32_t u; float f; } v = {(uint32_t)h << 16};\n"
                       "  return v.f;\n}\n");
  });
}

const std::string &CSupport::bfloat16FromDouble() {
  // x = m * 2^e with m in [0.5, 1): bfloat16 keeps 8 significant bits, so x is rounded (in the
  // current rounding mode, to nearest even) at 2^(e - 8), or at 2^-133 below the normal range;
  // the result is exact in float, whose upper half is the bfloat16.
  return define("tl_bf16_from_double", [] {
    return std::string("static inline uint16_t tl_bf16_from_double(double x) {\n"
                       "  if (x != x)\n    return signbit(x) ? 0xffc0 : 0x7fc0;\n"
                       "  int e;\n  (void)frexp(x, &e);\n  e = e - 8 < -133 ? -133 : e - 8;\n"
                       "  double r = ldexp(nearbyint(ldexp(x, -e)), e);\n"
                       "  if (fabs(r) >= 0x1p128)\n    return signbit(x) ? 0xff80 : 0x7f80;\n"
                       "  union { float f; uint32_t u; } v = {(float)r};\n"
                       "  return (uint16_t)(v.u >> 16);\n}\n");
  });
}

const std::string &CSupport::lanewise(const std::string &scalarFunction, DataType type, int arity,
                                      std::optional<DataType> argType) {
  DataType from = argType ? *argType : type;
  std::string t(typeName(type)), a(typeName(from)), name = scalarFunction + "_x" + std::to_string(type.lanes());
  if (scalarFunction.rfind("tl_", 0) != 0)
    name = "tl_" + name + "_" + suffix(from.element());
  std::string params = arity == 1 ? a + " a" : a + " a, " + a + " b";
  std::string call = arity == 1 ? scalarFunction + "(a[k])" : scalarFunction + "(a[k], b[k])";
  return define(name, [&] {
    return "static inline " + t + " " + name + "(" + params + ") {\n  " + t + " r;\n  for (int k = 0; k < " +
           std::to_string(cVectorLanes(type.lanes())) + "; ++k)\n    r[k] = " + call + ";\n  return r;\n}\n";
  });
}

const std::string &CSupport::reinterpret(DataType from, DataType to, SourceRange where) {
  std::string f(typeName(from)), t(typeName(to)), name = "tl_reinterpret_" + suffix(from) + "_" + suffix(to);
  if (from.bits() % 8 != 0 || to.bits() % 8 != 0)
    throw CompileError(where, "C emitter: T.reinterpret of " + from.str() + " as " + to.str() + " is not supported");
  const int lanes = to.lanes(), physical = to.isVector() ? cVectorLanes(lanes) : 1;
  std::string padding = physical == lanes
                            ? ""
                            : "  for (int k = " + std::to_string(lanes) + "; k < " + std::to_string(physical) +
                                  "; ++k)\n    r[k] = r[" + std::to_string(lanes - 1) + "];\n";
  std::string bytes = std::to_string(from.lanes() * from.bits() / 8);
  return define(name, [&] {
    return "static inline " + t + " " + name + "(" + f + " v) {\n  " + t + " r" + paddedInit(to) +
           ";\n  memcpy(&r, &v, " + bytes + ");\n" + padding + "  return r;\n}\n";
  });
}

void CSupport::merge(const CSupport &other) {
  typedefs_.insert(other.typedefs_.begin(), other.typedefs_.end());
  helpers_.insert(other.helpers_.begin(), other.helpers_.end());
  externs_.insert(other.externs_.begin(), other.externs_.end());
}

std::string CSupport::externDeclarations() const {
  std::string out;
  for (const std::string &proto : externs_) {
    out += "extern ";
    out += proto;
    out += '\n';
  }
  return out;
}

std::string CSupport::preamble() const {
  std::string out;
  for (const auto &[name, text] : typedefs_)
    out += text;
  if (!typedefs_.empty())
    out += "\n";
  for (const auto &[name, text] : helpers_)
    out += text + "\n";
  return out;
}

namespace {
// The bit pattern of `value` rounded to bfloat16 (as tl_bf16_from_double computes it).
uint16_t bfloat16Bits(double value) {
  if (std::isnan(value))
    return std::signbit(value) ? 0xffc0 : 0x7fc0;
  int e = 0;
  (void)std::frexp(value, &e);
  e = std::max(e - 8, -133);
  double r = std::ldexp(std::nearbyint(std::ldexp(value, -e)), e);
  if (std::fabs(r) >= 0x1p128)
    return std::signbit(value) ? 0xff80 : 0x7f80;
  uint32_t bits = 0;
  float f = static_cast<float>(r);
  std::memcpy(&bits, &f, sizeof bits);
  return static_cast<uint16_t>(bits >> 16);
}
} // namespace

void appendCFloatLiteral(std::string &out, double value, DataType type) {
  if (type.code() == DataType::Code::BFloat) { // carried as its bit pattern
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "(uint16_t)0x%04x", static_cast<unsigned>(bfloat16Bits(value)));
    out += buffer;
    return;
  }
  bool single = type.bits() == 32;
  if (std::isnan(value)) {
    out += single ? "NAN" : "(double)NAN";
    return;
  }
  if (std::isinf(value)) {
    out += value < 0 ? "(-" : "(";
    out += single ? "INFINITY" : "(double)INFINITY";
    out += ')';
    return;
  }
  // %.9g of the float value, %.17g of the double (to_chars prints as printf does).
  char buffer[64];
  std::to_chars_result r =
      single ? std::to_chars(buffer, buffer + sizeof buffer, static_cast<float>(value), std::chars_format::general, 9)
             : std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::general, 17);
  std::string_view digits(buffer, static_cast<size_t>(r.ptr - buffer));
  // A negative literal is parenthesised, unless a float16 cast comes first.
  const bool negative = digits.front() == '-' && type.bits() != 16;
  if (negative)
    out += '(';
  if (type.bits() == 16)
    out += "(_Float16)";
  out += digits;
  if (digits.find_first_of(".eE") == std::string_view::npos)
    out += ".0";
  if (single)
    out += 'f';
  if (negative)
    out += ')';
}

std::string cFloatLiteral(double value, DataType type) {
  std::string text;
  appendCFloatLiteral(text, value, type);
  return text;
}

} // namespace tirlower
