#include "npy.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace tirlower {

namespace {

// numpy's type codes for tirlower's scalar dtypes: kind letter and size.
struct NpyType {
  const char *dtype;
  char kind; // 'f' float, 'i' signed, 'u' unsigned, 'b' bool
  int size;
};
constexpr NpyType kTypes[] = {{"float16", 'f', 2}, {"float32", 'f', 4}, {"float64", 'f', 8}, {"int8", 'i', 1},
                              {"int16", 'i', 2},   {"int32", 'i', 4},   {"int64", 'i', 8},   {"uint8", 'u', 1},
                              {"uint16", 'u', 2},  {"uint32", 'u', 4},  {"uint64", 'u', 8},  {"bool", 'b', 1}};

double halfToDouble(uint16_t h) {
  int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0x1f)
    return mantissa ? std::numeric_limits<double>::quiet_NaN() : sign * std::numeric_limits<double>::infinity();
  if (exponent == 0)
    return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

// Rounds to nearest, ties to even (the values run writes are float16 values already).
uint16_t doubleToHalf(double value) {
  uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  double a = std::fabs(value);
  if (std::isnan(value))
    return 0x7e00;
  if (a >= 65520.0)
    return sign | 0x7c00;
  if (a < std::ldexp(1.0, -14)) { // subnormal: units of 2^-24
    double units = std::nearbyint(a * std::ldexp(1.0, 24));
    return sign | static_cast<uint16_t>(units);
  }
  int exponent = std::ilogb(a);
  double units = std::nearbyint(std::ldexp(a, 10 - exponent)); // 1024..2048
  if (units >= 2048) {
    units /= 2;
    ++exponent;
  }
  if (exponent > 15)
    return sign | 0x7c00;
  return sign | static_cast<uint16_t>((exponent + 15) << 10) | static_cast<uint16_t>(units - 1024);
}

nlohmann::json floatValue(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  return v;
}

uint64_t loadLittle(const unsigned char *p, int size, bool bigEndian) {
  uint64_t value = 0;
  for (int k = 0; k < size; ++k)
    value |= static_cast<uint64_t>(p[bigEndian ? size - 1 - k : k]) << (8 * k);
  return value;
}

// The value of `key` in the header dict: the text after "'key':" up to the matching end.
std::string headerValue(const std::string &header, const std::string &key) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos)
    return "";
  size_t colon = header.find(':', at);
  if (colon == std::string::npos)
    return "";
  size_t start = header.find_first_not_of(' ', colon + 1);
  if (start == std::string::npos)
    return "";
  char open = header[start];
  if (open == '\'' || open == '"') {
    size_t end = header.find(open, start + 1);
    return end == std::string::npos ? "" : header.substr(start + 1, end - start - 1);
  }
  if (open == '(') {
    size_t end = header.find(')', start);
    return end == std::string::npos ? "" : header.substr(start, end - start + 1);
  }
  size_t end = header.find_first_of(",}", start);
  return header.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

} // namespace

std::string readNpy(const std::string &bytes, NpyArray &array) {
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
    return "not a .npy file (no \\x93NUMPY magic)";
  int major = static_cast<unsigned char>(bytes[6]);
  size_t headerLength = 0, headerStart = 0;
  const auto *u = reinterpret_cast<const unsigned char *>(bytes.data());
  if (major == 1) {
    headerLength = u[8] | (u[9] << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return "truncated .npy header";
    headerLength = loadLittle(u + 8, 4, false);
    headerStart = 12;
  } else {
    return ".npy format version " + std::to_string(major) + " is not supported (1, 2 and 3 are)";
  }
  if (bytes.size() < headerStart + headerLength)
    return "truncated .npy header";
  std::string header = bytes.substr(headerStart, headerLength);
  std::string descr = headerValue(header, "descr"), fortran = headerValue(header, "fortran_order"),
              shapeText = headerValue(header, "shape");
  if (descr.size() < 3 || shapeText.empty() || (fortran != "False" && fortran != "True"))
    return "malformed .npy header: " + header;
  if (fortran == "True")
    return "the array is in Fortran order; save it in C order (numpy.ascontiguousarray)";
  char order = descr[0], kind = descr[1];
  int size = std::atoi(descr.c_str() + 2);
  const NpyType *type = nullptr;
  for (const NpyType &t : kTypes)
    if (t.kind == kind && t.size == size)
      type = &t;
  if (!type || (order != '<' && order != '>' && order != '|' && order != '='))
    return "the .npy dtype '" + descr + "' has no tirlower dtype (float16/32/64, int8-64, uint8-64, bool)";
  bool bigEndian = order == '>';
  array.dtype = type->dtype;
  array.shape.clear();
  int64_t count = 1;
  for (size_t k = 1; k + 1 < shapeText.size();) {
    size_t end = shapeText.find(',', k);
    std::string item = shapeText.substr(k, (end == std::string::npos ? shapeText.size() - 1 : end) - k);
    if (item.find_first_not_of(' ') != std::string::npos) {
      int64_t extent = std::atoll(item.c_str());
      if (extent < 0 || (extent > 0 && count > (int64_t(1) << 40) / extent))
        return "malformed .npy shape " + shapeText;
      array.shape.push_back(extent);
      count *= extent;
    }
    if (end == std::string::npos)
      break;
    k = end + 1;
  }
  size_t dataStart = headerStart + headerLength;
  if (bytes.size() - dataStart != static_cast<size_t>(count) * type->size)
    return "the .npy data holds " + std::to_string(bytes.size() - dataStart) + " bytes; shape " + shapeText + " of " +
           descr + " needs " + std::to_string(count * type->size);
  array.data = nlohmann::json::array();
  const unsigned char *p = u + dataStart;
  for (int64_t k = 0; k < count; ++k, p += type->size) {
    uint64_t bits = loadLittle(p, type->size, bigEndian);
    switch (kind) {
    case 'b': array.data.push_back(bits != 0 ? 1 : 0); break;
    case 'u': array.data.push_back(bits); break;
    case 'i': {
      int shift = 64 - 8 * type->size;
      array.data.push_back(static_cast<int64_t>(bits << shift) >> shift);
      break;
    }
    default:
      array.data.push_back(floatValue(size == 2   ? halfToDouble(static_cast<uint16_t>(bits))
                                      : size == 4 ? double(std::bit_cast<float>(static_cast<uint32_t>(bits)))
                                                  : std::bit_cast<double>(bits)));
    }
  }
  return "";
}

std::string writeNpy(const std::string &dtype, const std::vector<int64_t> &shape, const BufferData &data,
                     std::string &bytes, size_t &uninitialised) {
  const NpyType *type = nullptr;
  for (const NpyType &t : kTypes)
    if (dtype == t.dtype)
      type = &t;
  if (!type)
    return "numpy has no dtype for " + dtype + "; write this buffer as JSON";
  std::string descr = std::string(type->size == 1 ? "|" : "<") + type->kind + std::to_string(type->size);
  std::string shapeText = "(";
  for (size_t k = 0; k < shape.size(); ++k)
    shapeText += (k ? ", " : "") + std::to_string(shape[k]);
  shapeText += shape.size() == 1 ? ",)" : ")";
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shapeText + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  bytes = "\x93NUMPY";
  bytes += '\x01';
  bytes += '\x00';
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  bytes += header;
  uninitialised = 0;
  bytes.reserve(bytes.size() + data.size() * type->size);
  for (size_t e = 0; e < data.size(); ++e) {
    uint64_t bits = 0;
    if (!data.isInitialized(e)) {
      ++uninitialised;
    } else if (type->kind == 'f') {
      double v = data.getFloat(e);
      bits = type->size == 2   ? doubleToHalf(v)
             : type->size == 4 ? std::bit_cast<uint32_t>(static_cast<float>(v))
                               : std::bit_cast<uint64_t>(v);
    } else if (type->kind == 'u' || type->kind == 'b') {
      bits = data.getUInt(e);
    } else {
      bits = static_cast<uint64_t>(data.getInt(e));
    }
    char little[8];
    for (int k = 0; k < type->size; ++k)
      little[k] = static_cast<char>((bits >> (8 * k)) & 0xff);
    bytes.append(little, static_cast<size_t>(type->size));
  }
  return "";
}

} // namespace tirlower
