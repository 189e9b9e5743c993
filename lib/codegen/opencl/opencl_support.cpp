#include "codegen/opencl/opencl_support.h"

#include <charconv>
#include <cmath>
#include <unordered_set>

#include "ir/diagnostic.h"

namespace tirlower {

bool isOpenCLVectorWidth(int lanes) {
  return lanes == 2 || lanes == 3 || lanes == 4 || lanes == 8 || lanes == 16;
}

namespace {

std::string scalarName(DataType type, SourceRange where) {
  int bits = type.bits();
  switch (type.code()) {
  case DataType::Code::Int:
  case DataType::Code::UInt: {
    const char *base = bits == 8 ? "char" : bits == 16 ? "short" : bits == 32 ? "int" : bits == 64 ? "long" : nullptr;
    if (!base)
      break;
    return (type.isUInt() ? "u" : "") + std::string(base);
  }
  case DataType::Code::Float:
    if (bits == 16 || bits == 32 || bits == 64)
      return bits == 16 ? "half" : bits == 32 ? "float" : "double";
    break;
  case DataType::Code::Bool: return "bool";
  default: break;
  }
  throw CompileError(where, "OpenCL emitter: type " + type.str() + " has no OpenCL C equivalent");
}

std::string withLanes(const std::string &scalar, DataType type, SourceRange where) {
  if (type.isScalar())
    return scalar;
  if (!isOpenCLVectorWidth(type.lanes()))
    throw CompileError(where, "OpenCL emitter: vector type " + type.str() +
                                  " has no OpenCL C equivalent (vectors have 2, 3, 4, 8 or 16 lanes)");
  return scalar + std::to_string(type.lanes());
}

} // namespace

std::string openclTypeName(DataType type, SourceRange where) {
  if (type.isBool() && type.isVector())
    return withLanes("int", type, where);
  return withLanes(scalarName(type, where), type, where);
}

std::string openclStorageTypeName(DataType type, SourceRange where) {
  return withLanes(type.isBool() ? "uchar" : scalarName(type, where), type, where);
}

std::string openclIntLiteral(DataType type, int64_t value) {
  if (type.isBool())
    return value ? "1" : "0";
  std::string digits = type.isUInt() ? std::to_string(static_cast<uint64_t>(value)) : std::to_string(value);
  if (type.bits() == 64) {
    if (type.isInt() && value == INT64_MIN)
      return "(-9223372036854775807L - 1)";
    digits += type.isUInt() ? "UL" : "L";
  } else if (type.bits() == 32) {
    if (type.isInt() && value == INT32_MIN)
      return "(-2147483647 - 1)";
    if (type.isUInt())
      digits += "u";
  } else {
    digits = "(" + scalarName(type, {}) + ")" + (value < 0 ? "(" + digits + ")" : digits);
    return "(" + digits + ")";
  }
  return value < 0 && type.isInt() ? "(" + digits + ")" : digits;
}

std::string openclFloatLiteral(DataType type, double value) {
  bool single = type.bits() != 64;
  std::string text;
  if (std::isnan(value)) {
    text = "NAN";
  } else if (std::isinf(value)) {
    text = value < 0 ? "(-INFINITY)" : "INFINITY";
  } else {
    char buffer[64];
    auto result = single ? std::to_chars(buffer, buffer + sizeof buffer, static_cast<float>(value))
                         : std::to_chars(buffer, buffer + sizeof buffer, value);
    text.assign(buffer, result.ptr);
    if (text.find_first_of(".eEn") == std::string::npos)
      text += ".0";
    if (single)
      text += "f";
    if (text.front() == '-')
      text = "(" + text + ")";
  }
  if (type.bits() == 16)
    return "((half)" + text + ")";
  if (!single && (std::isnan(value) || std::isinf(value)))
    return "((double)" + text + ")";
  return text;
}

bool isReservedOpenCLName(const std::string &name) {
  static const std::unordered_set<std::string> names = {
      "auto",     "break",     "case",     "char",      "const",      "continue",   "default",   "do",      "double",
      "else",     "enum",      "extern",   "float",     "for",        "goto",       "if",        "inline",  "int",
      "long",     "register",  "restrict", "return",    "short",      "signed",     "sizeof",    "static",  "struct",
      "switch",   "typedef",   "union",    "unsigned",  "void",       "volatile",   "while",     "bool",    "true",
      // ir-names: OpenCL C's reserved words, among them the address spaces global and local
      "false",    "main",      "half",     "uchar",     "ushort",     "uint",       "ulong",     "size_t",  "ptrdiff_t",
      "intptr_t", "uintptr_t", "event_t",  "sampler_t", "image1d_t",  "image2d_t",  "image3d_t", "kernel",  "global",
      "local",    "constant",  "private",  "read_only", "write_only", "read_write", "min",       "max",     "select",
      "clamp",    "mad",       "exp",      "exp2",      "log",        "log2",       "sqrt",      "rsqrt",   "sin",
      "cos",      "tan",       "tanh",     "fabs",      "abs",        "floor",      "ceil",      "round",   "trunc",
      "pow",      "fmod",      "fmin",     "fmax",      "barrier",    "dot",        "cross",     "length",  "normalize",
      "NAN",      "INFINITY",  "sign",     "step",      "mix",        "any",        "all",       "shuffle", "shuffle2",
      "vec_step"};
  if (names.count(name) || isIntrinsicCName(name))
    return true;
  static const char *prefixes[] = {"vload",   "vstore", "convert_", "as_",   "get_",   "read_image", "write_image",
                                   "atomic_", "atom_",  "native_",  "half_", "async_", "__"};
  for (const char *prefix : prefixes)
    if (name.rfind(prefix, 0) == 0)
      return true;
  // Vector type names: int4, float16, ...
  static const char *types[] = {"char", "uchar", "short", "ushort", "int",  "uint",
                                "long", "ulong", "float", "double", "half", "bool"};
  for (const char *type : types) {
    std::string t = type;
    if (name.size() > t.size() && name.compare(0, t.size(), t) == 0) {
      std::string rest = name.substr(t.size());
      if (rest == "2" || rest == "3" || rest == "4" || rest == "8" || rest == "16")
        return true;
    }
  }
  return false;
}

namespace {

// For signed integer helpers: declarations of `d`, the divisor with -1 replaced by 1 (so that
// `/` and `%` are defined), and of `m`, whether b is -1 (a mask for vectors).
std::string safeDivisor(const std::string &t, bool vector) {
  if (!vector)
    return "  const int m = b == -1;\n  const " + t + " d = m ? 1 : b;\n";
  return "  const " + t + " m = b == (" + t + ")(-1);\n  const " + t + " d = select(b, (" + t + ")(1), m);\n";
}

// The quotient a / b with MIN / -1 wrapping to MIN: -a computed in the unsigned type.
std::string safeQuotient(const std::string &t, bool vector) {
  std::string u = "u" + t;
  if (!vector)
    return "m ? (" + t + ")((" + u + ")0 - (" + u + ")a) : a / d";
  return "select(a / d, as_" + t + "((" + u + ")(0) - as_" + u + "(a)), m)";
}

} // namespace

std::string OpenCLSupport::floorDiv(DataType type, SourceRange where) {
  std::string t = openclTypeName(type, where), name = "tl_floordiv_" + t;
  if (type.isFloat()) {
    helpers_.emplace(name,
                     "static inline " + t + " " + name + "(" + t + " a, " + t + " b) {\n  return floor(a / b);\n}\n");
    return name;
  }
  // Scalar comparisons give 1, vector ones -1: subtract the former, add the latter.
  bool vector = type.isVector();
  std::string adjust = vector ? "q + " : "q - ";
  helpers_.emplace(name, "static inline " + t + " " + name + "(" + t + " a, " + t + " b) {\n" + safeDivisor(t, vector) +
                             "  " + t + " q = " + safeQuotient(t, vector) + ";\n  " + t + " r = a % d;\n  return " +
                             adjust + "(" + t + ")((r != 0) & ((r ^ b) < 0));\n}\n");
  return name;
}

std::string OpenCLSupport::floorMod(DataType type, SourceRange where) {
  std::string t = openclTypeName(type, where), name = "tl_floormod_" + t;
  if (type.isFloat()) {
    helpers_.emplace(name, "static inline " + t + " " + name + "(" + t + " a, " + t +
                               " b) {\n  return a - floor(a / b) * b;\n}\n");
    return name;
  }
  bool vector = type.isVector();
  std::string fix =
      vector ? "r + (b & (" + t + ")((r != 0) & ((r ^ b) < 0)))" : "((r != 0) & ((r ^ b) < 0)) ? r + b : r";
  helpers_.emplace(name, "static inline " + t + " " + name + "(" + t + " a, " + t + " b) {\n" + safeDivisor(t, vector) +
                             "  " + t + " r = a % d;\n  return " + fix + ";\n}\n");
  return name;
}

std::string OpenCLSupport::truncDiv(DataType type, SourceRange where) {
  std::string t = openclTypeName(type, where), name = "tl_div_" + t;
  helpers_.emplace(name, "static inline " + t + " " + name + "(" + t + " a, " + t + " b) {\n" +
                             safeDivisor(t, type.isVector()) + "  return " + safeQuotient(t, type.isVector()) +
                             ";\n}\n");
  return name;
}

std::string OpenCLSupport::truncMod(DataType type, SourceRange where) {
  std::string t = openclTypeName(type, where), name = "tl_mod_" + t;
  helpers_.emplace(name, "static inline " + t + " " + name + "(" + t + " a, " + t + " b) {\n" +
                             safeDivisor(t, type.isVector()) + "  return a % d;\n}\n");
  return name;
}

std::string OpenCLSupport::integerAbs(DataType type, SourceRange where) {
  std::string t = openclTypeName(type, where), u = "u" + t, name = "tl_abs_" + t;
  std::string body = type.isVector() ? "select(a, as_" + t + "((" + u + ")(0) - as_" + u + "(a)), a < (" + t + ")(0))"
                                     : "a < 0 ? (" + t + ")((" + u + ")0 - (" + u + ")a) : a";
  helpers_.emplace(name, "static inline " + t + " " + name + "(" + t + " a) {\n  return " + body + ";\n}\n");
  return name;
}

std::string OpenCLSupport::texelLane() {
  helpers_.emplace("tl_texel_lane", "static inline float tl_texel_lane(float4 t, int k) {\n"
                                    "  return k == 0 ? t.s0 : k == 1 ? t.s1 : k == 2 ? t.s2 : t.s3;\n}\n");
  return "tl_texel_lane";
}

std::string OpenCLSupport::sampler() {
  sampler_ = true;
  return "tl_sampler";
}

void OpenCLSupport::noteType(DataType type) {
  if (type.isFloat() && type.bits() == 64)
    fp64_ = true;
  if (type.isFloat() && type.bits() == 16)
    fp16_ = true;
}

std::string OpenCLSupport::warpHelper(std::string_view op, DataType type, SourceRange where) {
  subgroups_ = true;
  if (op == "activemask") {
    helpers_.emplace("tl_warp_activemask",
                     "// The lanes of the work-item's sub-group: sub-group functions are reached by all of them.\n"
                     "static inline uint tl_warp_activemask(void) {\n"
                     "  return get_sub_group_size() >= 32u ? 0xffffffffu : (1u << get_sub_group_size()) - 1u;\n}\n");
    return "tl_warp_activemask";
  }
  const std::string t = openclTypeName(type, where);
  const std::string name = "tl_warp_" + std::string(op) + "_" + t;
  const std::string head = "static inline " + t + " " + name + "(" + t + " v, uint ";
  std::string body;
  if (op == "shuffle") // CUDA's __shfl_sync: the lane within the work-item's width segment
    body = head + "lane, uint width) {\n  return sub_group_shuffle(v, (get_sub_group_local_id() & ~(width - 1u)) | "
                  "(lane & (width - 1u)));\n}\n";
  else if (op == "shuffle_up") // __shfl_up_sync: past the segment's start, its own value
    body = head + "delta, uint width) {\n  const " + t + " moved = sub_group_shuffle_up(v, delta);\n"
                  "  return (get_sub_group_local_id() & (width - 1u)) >= delta ? moved : v;\n}\n";
  else // __shfl_down_sync: past the segment's end, its own value
    body = head + "delta, uint width) {\n  const " + t + " moved = sub_group_shuffle_down(v, delta);\n"
                  "  return (get_sub_group_local_id() & (width - 1u)) + delta < width ? moved : v;\n}\n";
  helpers_.emplace(name, body);
  return name;
}

std::string OpenCLSupport::preamble() const {
  std::string out;
  if (fp64_)
    out += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  if (fp16_)
    out += "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n";
  if (subgroups_) // the shuffle extensions take no pragma; they need OpenCL C 2.0 or later
    out += "#pragma OPENCL EXTENSION cl_khr_subgroups : enable\n";
  if (sampler_)
    out += "__constant sampler_t tl_sampler = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;\n";
  if (!out.empty())
    out += "\n";
  for (const auto &[name, definition] : helpers_)
    out += definition + "\n";
  return out.empty() ? "\n" : out;
}

} // namespace tirlower
