#include "ir/script_literals.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>

namespace tirlower {

namespace {
// Significand bits (with the implicit one) and the smallest normal exponent of a float type.
struct FloatFormat {
  int significandBits;
  int minExponent;
  int maxExponent;
};

FloatFormat formatOf(DataType type) {
  if (type.code() == DataType::Code::BFloat)
    return {8, -126, 127};
  if (type.bits() == 16)
    return {11, -14, 15};
  if (type.bits() == 32)
    return {24, -126, 127};
  return {53, -1022, 1023};
}

// Rewrites the scientific form "d.ddde+XX" (any sign, any digit count) the way Python's repr
// does: fixed notation for decimal exponents in [-4, 16), otherwise "de+XX" with two or more
// exponent digits.
std::string pythonRepr(std::string_view scientific) {
  std::string out;
  bool negative = !scientific.empty() && scientific.front() == '-';
  if (negative)
    scientific.remove_prefix(1);
  size_t ePos = scientific.find_first_of("eE");
  std::string_view mantissa = scientific.substr(0, ePos);
  int exponent = 0;
  if (ePos != std::string_view::npos) {
    std::string_view expText = scientific.substr(ePos + 1);
    if (!expText.empty() && expText.front() == '+')
      expText.remove_prefix(1);
    std::from_chars(expText.data(), expText.data() + expText.size(), exponent);
  }
  std::string digits;
  for (char c : mantissa)
    if (c != '.')
      digits += c;
  while (digits.size() > 1 && digits.back() == '0')
    digits.pop_back();
  if (negative)
    out += '-';
  if (digits == "0")
    return out + "0.0";
  int n = static_cast<int>(digits.size());
  if (exponent >= -4 && exponent < 16) {
    int point = exponent + 1; // digits before the decimal point
    if (point <= 0) {
      out += "0.";
      out.append(static_cast<size_t>(-point), '0');
      out += digits;
    } else if (point >= n) {
      out += digits;
      out.append(static_cast<size_t>(point - n), '0');
      out += ".0";
    } else {
      out.append(digits, 0, static_cast<size_t>(point));
      out += '.';
      out.append(digits, static_cast<size_t>(point));
    }
    return out;
  }
  out += digits[0];
  if (n > 1) {
    out += '.';
    out.append(digits, 1);
  }
  out += exponent < 0 ? "e-" : "e+";
  int magnitude = exponent < 0 ? -exponent : exponent;
  if (magnitude < 10)
    out += '0';
  appendInt(out, magnitude);
  return out;
}

// The escape sequence of a character appendQuoted escapes, or null.
constexpr const char *escapeOf(char c) {
  switch (c) {
  case '\\': return "\\\\";
  case '"': return "\\\"";
  case '\n': return "\\n";
  case '\t': return "\\t";
  default: return nullptr;
  }
}

constexpr auto kNeedsEscape = [] {
  std::array<bool, 256> table{};
  for (int c = 0; c < 256; ++c)
    table[static_cast<size_t>(c)] = escapeOf(static_cast<char>(c)) != nullptr;
  return table;
}();

// Appends `text` with escapes, in runs of characters that need none.
void appendEscaped(std::string &out, std::string_view text) {
  size_t run = 0;
  for (size_t k = 0; k < text.size(); ++k) {
    if (!kNeedsEscape[static_cast<unsigned char>(text[k])])
      continue;
    if (const char *escape = escapeOf(text[k])) {
      out.append(text.data() + run, k - run);
      out += escape;
      run = k + 1;
    }
  }
  out.append(text.data() + run, text.size() - run);
}
} // namespace

void appendIntDigits(std::string &out, int64_t value) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  (void)ec;
  out.append(digits, end);
}

const TypeSpelling &typeSpelling(DataType type) {
  struct Entry {
    DataType type;
    TypeSpelling spelling;
  };
  // A deque keeps the entries in place as it grows.
  thread_local std::deque<Entry> known;
  for (const Entry &entry : known)
    if (entry.type == type)
      return entry.spelling;
  std::string name = type.str(), quoted;
  appendQuoted(quoted, name);
  return known.emplace_back(Entry{type, {name, std::move(quoted), "T." + name}}).spelling;
}

double roundToFloatType(double value, DataType type) {
  if (!std::isfinite(value) || value == 0)
    return value;
  if (type.bits() == 64 && type.code() == DataType::Code::Float)
    return value;
  if (type.bits() == 32 && type.code() == DataType::Code::Float)
    return static_cast<double>(static_cast<float>(value));
  FloatFormat format = formatOf(type);
  int exponent = 0;
  std::frexp(value, &exponent); // |value| = f * 2^exponent with f in [0.5, 1)
  int unitExponent = std::max(exponent - 1, format.minExponent) - (format.significandBits - 1);
  double rounded = std::ldexp(std::nearbyint(std::ldexp(value, -unitExponent)), unitExponent);
  double maxFinite = std::ldexp(2.0 - std::ldexp(1.0, 1 - format.significandBits), format.maxExponent);
  if (std::fabs(rounded) > maxFinite)
    return std::copysign(INFINITY, value);
  return rounded;
}

namespace {
std::string shortestFloat(double value, DataType type);
} // namespace

// The shortest decimal that reads back to `value` at the precision of `type`, unless that
// decimal, read as a double, lies beyond the type's largest finite value (3.4028235e+38 for
// FLT_MAX): TVM's parser rejects such a literal as out of range, so the float64 spelling of the
// exact value is written instead.
std::string formatFloat(double value, DataType type) {
  std::string text = shortestFloat(value, type);
  bool narrow = type.code() != DataType::Code::Float || type.bits() != 64;
  if (narrow && std::isfinite(value)) {
    FloatFormat format = formatOf(type);
    double maxFinite = std::ldexp(2.0 - std::ldexp(1.0, 1 - format.significandBits), format.maxExponent);
    if (std::fabs(std::strtod(text.c_str(), nullptr)) > maxFinite)
      return shortestFloat(roundToFloatType(value, type), DataType::float64());
  }
  return text;
}

namespace {
std::string shortestFloat(double value, DataType type) {
  char buffer[64];
  if (type.code() == DataType::Code::Float && type.bits() == 64) {
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
    (void)ec;
    return pythonRepr(std::string_view(buffer, static_cast<size_t>(end - buffer)));
  }
  if (type.code() == DataType::Code::Float && type.bits() == 32) {
    auto [end, ec] =
        std::to_chars(buffer, buffer + sizeof buffer, static_cast<float>(value), std::chars_format::scientific);
    (void)ec;
    return pythonRepr(std::string_view(buffer, static_cast<size_t>(end - buffer)));
  }
  // Half-precision types: the fewest significant digits that read back to the same value.
  double target = roundToFloatType(value, type);
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*e", precision - 1, target);
    if (roundToFloatType(std::strtod(buffer, nullptr), type) == target)
      break;
  }
  return pythonRepr(buffer);
}
} // namespace

namespace {
// formatFloat's spelling of the common integral values, without the round trip through
// scientific notation: below 2^24 (float32) or 2^53 (float64) in magnitude, consecutive
// values are at most 1 apart, so no decimal shorter than the integer's own digits reads back
// to it, and Python writes such values in fixed notation: the digits followed by ".0".
bool appendIntegralFloat(std::string &out, double value, DataType type) {
  if (type.code() != DataType::Code::Float || (type.bits() != 32 && type.bits() != 64))
    return false;
  double limit = type.bits() == 64 ? 0x1p53 : 0x1p24;
  if (!(std::fabs(value) < limit) || value != std::trunc(value))
    return false;
  if (value == 0)
    out += std::signbit(value) ? "-0.0" : "0.0";
  else {
    appendInt(out, static_cast<int64_t>(value));
    out += ".0";
  }
  return true;
}
} // namespace

void appendFloatLiteral(std::string &out, double value, DataType type) {
  out += typeSpelling(type).annotation;
  if (std::isnan(value)) {
    out += "(\"nan\")";
  } else if (std::isinf(value)) {
    out += value < 0 ? "(\"-inf\")" : "(\"inf\")";
  } else {
    out += '(';
    if (!appendIntegralFloat(out, value, type))
      out += formatFloat(value, type);
    out += ')';
  }
}

void appendQuoted(std::string &out, std::string_view text) {
  out += '"';
  appendEscaped(out, text);
  out += '"';
}

void appendAttrValue(std::string &out, const AttrValue &value) {
  // kind-switch: exhaustive over attribute value kinds (literals), not an IR walk.
  switch (value.kind()) {
  case AttrValue::Kind::None: out += "None"; break;
  case AttrValue::Kind::Bool: out += value.asBool() ? "True" : "False"; break;
  case AttrValue::Kind::Int: appendInt(out, value.asInt()); break;
  case AttrValue::Kind::Float:
    if (std::isnan(value.asFloat()))
      out += "float(\"nan\")";
    else if (std::isinf(value.asFloat()))
      out += value.asFloat() < 0 ? "float(\"-inf\")" : "float(\"inf\")";
    else
      out += formatFloat(value.asFloat(), DataType::float64());
    break;
  case AttrValue::Kind::String: appendQuoted(out, value.asString()); break;
  case AttrValue::Kind::List: {
    out += '[';
    bool first = true;
    for (const AttrValue &item : value.items()) {
      if (!first)
        out += ", ";
      first = false;
      appendAttrValue(out, item);
    }
    out += ']';
    break;
  }
  case AttrValue::Kind::Target:
    out += "T.target(";
    appendAttrValue(out, value.items().at(0));
    out += ')';
    break;
  case AttrValue::Kind::Dict: {
    out += '{';
    bool first = true;
    for (const auto &[key, item] : value.entries()) {
      if (!first)
        out += ", ";
      first = false;
      appendQuoted(out, key);
      out += ": ";
      appendAttrValue(out, item);
    }
    out += '}';
    break;
  }
  }
}

} // namespace tirlower
