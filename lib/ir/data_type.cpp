#include "ir/data_type.h"

#include <cmath>

#include <charconv>

namespace tirlower {

namespace {
bool parseNumber(std::string_view text, int &out) {
  if (text.empty())
    return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}
} // namespace

std::optional<DataType> DataType::parse(std::string_view text) {
  int lanes = 1;
  bool scalable = false;
  // The lane suffix is the last 'x' followed only by digits ("float32x4"), after "xvscale" for
  // a scalable vector ("float32xvscalex4").
  if (auto x = text.rfind('x'); x != std::string_view::npos && x + 1 < text.size()) {
    if (parseNumber(text.substr(x + 1), lanes)) {
      if (lanes < 1 || lanes > 65535)
        return std::nullopt;
      text = text.substr(0, x);
      constexpr std::string_view kVscale = "xvscale";
      if (text.size() > kVscale.size() && text.substr(text.size() - kVscale.size()) == kVscale) {
        scalable = true;
        text = text.substr(0, text.size() - kVscale.size());
      }
    } else {
      lanes = 1;
    }
  }
  auto withBits = [&](std::string_view prefix, Code code, int defaultBits) -> std::optional<DataType> {
    std::string_view rest = text.substr(prefix.size());
    int bits = defaultBits;
    if (!rest.empty() && !parseNumber(rest, bits))
      return std::nullopt;
    bool valid = false;
    switch (code) {
    case Code::Int:
    case Code::UInt:
      valid = bits == 8 || bits == 16 || bits == 32 || bits == 64 || (code == Code::UInt && bits == 1);
      break;
    case Code::Float:
      valid = bits == 16 || bits == 32 || bits == 64;
      break;
    case Code::BFloat:
      valid = bits == 16;
      break;
    default:
      break;
    }
    if (!valid)
      return std::nullopt;
    if (code == Code::UInt && bits == 1)
      return DataType(Code::Bool, 1, lanes, scalable);
    return DataType(code, bits, lanes, scalable);
  };
  if (text == "bool")
    return DataType(Code::Bool, 1, lanes, scalable);
  if (text == "handle")
    return lanes == 1 && !scalable ? std::optional<DataType>(handle()) : std::nullopt;
  if (text == "void")
    return lanes == 1 && !scalable ? std::optional<DataType>(voidType()) : std::nullopt;
  if (text.substr(0, 4) == "uint")
    return withBits("uint", Code::UInt, 32);
  if (text.substr(0, 3) == "int")
    return withBits("int", Code::Int, 32);
  if (text.substr(0, 6) == "bfloat")
    return withBits("bfloat", Code::BFloat, 16);
  if (text.substr(0, 5) == "float")
    return withBits("float", Code::Float, 32);
  return std::nullopt;
}

std::string DataType::str() const {
  std::string out;
  switch (code_) {
  case Code::Int:
    out = "int" + std::to_string(bits_);
    break;
  case Code::UInt:
    out = "uint" + std::to_string(bits_);
    break;
  case Code::Float:
    out = "float" + std::to_string(bits_);
    break;
  case Code::BFloat:
    out = "bfloat" + std::to_string(bits_);
    break;
  case Code::Bool:
    out = "bool";
    break;
  case Code::Handle:
    return "handle";
  case Code::Void:
    return "void";
  }
  if (scalable_)
    out += "xvscalex" + std::to_string(lanes_);
  else if (lanes_ > 1)
    out += "x" + std::to_string(lanes_);
  return out;
}

double floatOverflowThreshold(DataType type) {
  // Significand bits (with the implicit one) and the largest exponent of each format.
  int significand = 53, maxExponent = 1023;
  if (type.code() == DataType::Code::BFloat)
    significand = 8, maxExponent = 127;
  else if (type.bits() == 16)
    significand = 11, maxExponent = 15;
  else if (type.bits() == 32)
    significand = 24, maxExponent = 127;
  if (type.bits() == 64)
    return INFINITY;
  // Halfway between the largest finite value and the next power of two rounds (to even) up.
  return std::ldexp(2.0 - std::ldexp(1.0, -significand), maxExponent);
}

} // namespace tirlower
