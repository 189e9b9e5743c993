#include "interp/run_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>


namespace tirlower {

namespace {

using nlohmann::json;

std::string floatText(double value, bool single) {
  if (std::isnan(value))
    return "\"nan\"";
  if (std::isinf(value))
    return value < 0 ? "\"-inf\"" : "\"inf\"";
  char text[64];
  std::to_chars_result r = single ? std::to_chars(text, text + sizeof text, static_cast<float>(value))
                                  : std::to_chars(text, text + sizeof text, value);
  return std::string(text, r.ptr);
}

std::string quoted(const std::string &text) {
  return json(text).dump();
}

} // namespace

std::string runScalarText(const ArgValue &arg) {
  if (arg.type.isFloat())
    return floatText(arg.floatValue, arg.type.bits() == 32);
  if (arg.type.isBool())
    return arg.intValue ? "true" : "false";
  if (arg.type.isUInt())
    return std::to_string(arg.uintValue);
  return std::to_string(arg.intValue);
}

// Element `index` of `data` appended to `out` without a temporary string: a 256 MiB buffer
// has 67 million of them.
void appendRunElement(std::string &out, const BufferData &data, size_t index) {
  if (!data.isInitialized(index)) {
    out += "null";
    return;
  }
  DataType type = data.elementType();
  char text[64];
  std::to_chars_result r{text, {}};
  if (type.isFloat()) {
    double value = data.getFloat(index);
    if (!std::isfinite(value)) {
      out += floatText(value, false);
      return;
    }
    r = type.bits() == 32 ? std::to_chars(text, text + sizeof text, static_cast<float>(value))
                          : std::to_chars(text, text + sizeof text, value);
  } else if (type.isUInt()) {
    r = std::to_chars(text, text + sizeof text, data.getUInt(index));
  } else {
    r = std::to_chars(text, text + sizeof text, data.getInt(index));
  }
  out.append(text, r.ptr);
}

// A constant extent, or one that is a scalar parameter: its value; else "?".
std::string runExtentText(const PrimFunc &func, const std::vector<ArgValue> &args, const Expr &extent) {
  if (const auto *value = extent.as<IntImmNode>())
    return std::to_string(value->value);
  for (size_t k = 0; k < func->params.size(); ++k)
    if (extent == Expr(func->params[k]) && !args[k].isBuffer())
      return runScalarText(args[k]);
  return "\"?\"";
}

std::string runResultToJson(const PrimFunc &func, uint64_t seed, const std::vector<ArgValue> &args,
                            const RunResult &result) {
  std::string out = "{\n  \"function\": " + quoted(func->name.str()) + ",\n  \"seed\": " + std::to_string(seed) +
                    ",\n  \"status\": \"" + (result.status == RunStatus::AssertFailed ? "assert_failed" : "ok") +
                    "\",\n  \"return_code\": " + std::to_string(result.returnCode) + ",\n  \"buffers\": {";
  bool first = true;
  for (size_t k = 0; k < func->params.size(); ++k) {
    Buffer buffer = func->bufferFor(func->params[k]);
    if (!buffer)
      continue;
    const BufferData &data = *args[k].buffer;
    out += std::string(first ? "" : ",") + "\n    " + quoted(buffer->name.str()) + ": {\"dtype\": \"" +
           buffer->dtype.str() + "\", \"shape\": [";
    for (size_t d = 0; d < buffer->shape.size(); ++d) {
      out += (d ? ", " : "") + runExtentText(func, args, buffer->shape[d]);
    }
    out += "], \"data\": [";
    out.reserve(out.size() + data.size() * 12);
    for (size_t e = 0; e < data.size(); ++e) {
      if (e)
        out += ", ";
      appendRunElement(out, data, e);
    }
    out += "]}";
    first = false;
  }
  out += first ? "},\n  \"scalars\": {" : "\n  },\n  \"scalars\": {";
  first = true;
  for (size_t k = 0; k < func->params.size(); ++k) {
    if (func->bufferFor(func->params[k]))
      continue;
    out += std::string(first ? "" : ",") + "\n    " + quoted(func->params[k]->name.str()) + ": " + runScalarText(args[k]);
    first = false;
  }
  out += first ? "}\n}\n" : "\n  }\n}\n";
  return out;
}

} // namespace tirlower
