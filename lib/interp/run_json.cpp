#include "interp/run_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "ir/edit_distance.h"

namespace tirlower {

namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string &message) {
  throw CompileError(SourceRange{}, "--inputs: " + message);
}

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

double readFloat(const json &value, const std::string &where) {
  if (value.is_number())
    return value.get<double>();
  if (value.is_string()) {
    const std::string &text = value.get_ref<const std::string &>();
    if (text == "nan")
      return std::nan("");
    if (text == "inf")
      return HUGE_VAL;
    if (text == "-inf")
      return -HUGE_VAL;
  }
  fail(where + ": expected a number, \"nan\", \"inf\" or \"-inf\", got " + value.dump());
}

// Stores `value` (a JSON element) as scalar `index` of `data`.
void storeElement(BufferData &data, size_t index, const json &value, const std::string &where) {
  DataType type = data.elementType();
  if (value.is_null())
    return; // left uninitialised
  if (type.isFloat()) {
    data.setFloat(index, readFloat(value, where));
  } else if (type.isBool()) {
    if (value.is_boolean())
      data.setInt(index, value.get<bool>() ? 1 : 0);
    else if (value.is_number_integer() && (value.get<int64_t>() == 0 || value.get<int64_t>() == 1))
      data.setInt(index, value.get<int64_t>());
    else
      fail(where + ": expected true, false, 0 or 1, got " + value.dump());
  } else if (type.isUInt()) {
    if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<int64_t>() >= 0))
      fail(where + ": expected a non-negative integer, got " + value.dump());
    data.setUInt(index, value.get<uint64_t>());
  } else {
    if (!value.is_number_integer())
      fail(where + ": expected an integer, got " + value.dump());
    data.setInt(index, value.get<int64_t>());
  }
}

ArgValue scalarFromJson(DataType type, const json &value, const std::string &where) {
  if (type.isFloat())
    return ArgValue::ofFloat(readFloat(value, where), type);
  if (type.isBool()) {
    if (!value.is_boolean())
      fail(where + ": expected true or false, got " + value.dump());
    return ArgValue::ofBool(value.get<bool>());
  }
  if (!value.is_number_integer())
    fail(where + ": expected an integer, got " + value.dump());
  if (type.isUInt())
    return ArgValue::ofUInt(value.get<uint64_t>(), type);
  return ArgValue::ofInt(value.get<int64_t>(), type);
}

std::string quoted(const std::string &text) {
  return json(text).dump();
}

std::string scalarText(const ArgValue &arg) {
  if (arg.type.isFloat())
    return floatText(arg.floatValue, arg.type.bits() == 32);
  if (arg.type.isBool())
    return arg.intValue ? "true" : "false";
  if (arg.type.isUInt())
    return std::to_string(arg.uintValue);
  return std::to_string(arg.intValue);
}

std::string elementText(const BufferData &data, size_t index) {
  if (!data.isInitialized(index))
    return "null";
  DataType type = data.elementType();
  if (type.isFloat())
    return floatText(data.getFloat(index), type.bits() == 32);
  if (type.isUInt())
    return std::to_string(data.getUInt(index));
  return std::to_string(data.getInt(index));
}

// A constant extent, or one that is a scalar parameter: its value; else "?".
std::string extentText(const PrimFunc &func, const std::vector<ArgValue> &args, const Expr &extent) {
  if (const auto *value = extent.as<IntImmNode>())
    return std::to_string(value->value);
  for (size_t k = 0; k < func->params.size(); ++k)
    if (extent == Expr(func->params[k]) && !args[k].isBuffer())
      return scalarText(args[k]);
  return quoted("?");
}

// The scalar elements of `data`, nested lists flattened in row-major order.
void flattenElements(const json &data, std::vector<const json *> &elements) {
  if (!data.is_array()) {
    elements.push_back(&data);
    return;
  }
  for (const json &element : data)
    flattenElements(element, elements);
}

// The top level may carry annotations of its own (the TVM corpus's "tolerance"), but a member
// spelt almost like "buffers" or "scalars" is a typo whose values would silently be random.
void checkTopLevel(const json &root) {
  for (const auto &[key, value] : root.items())
    for (const char *known : {"buffers", "scalars"})
      if (key != known && editDistance(key, known, 2) <= 2)
        fail("unknown member \"" + key + "\"; did you mean \"" + known + "\"?");
}

// A misspelt member would otherwise be ignored and its values replaced by random ones.
void checkMembers(const json &object, std::initializer_list<const char *> known, const std::string &where) {
  for (const auto &[key, value] : object.items()) {
    bool isKnown = false;
    std::string list;
    for (const char *name : known) {
      isKnown = isKnown || key == name;
      list += std::string(list.empty() ? "" : ", ") + "\"" + name + "\"";
    }
    if (!isKnown)
      fail(where + "unknown member \"" + key + "\" (expected " + list + ")");
  }
}

} // namespace

std::vector<ArgValue> makeArgsFromJson(const PrimFunc &func, std::string_view text, uint64_t seed,
                                       const RandomArgOptions &randomOptions) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error &e) {
    fail(std::string("invalid JSON: ") + e.what());
  }
  if (!root.is_object())
    fail("the top level must be an object");
  const json empty = json::object();
  const json &scalars = root.contains("scalars") ? root["scalars"] : empty;
  const json &buffers = root.contains("buffers") ? root["buffers"] : empty;
  if (!scalars.is_object() || !buffers.is_object())
    fail("\"scalars\" and \"buffers\" must be objects");
  checkTopLevel(root);

  RandomArgOptions options = randomOptions;
  std::map<std::string, size_t> bufferParams; // buffer name -> parameter index
  for (size_t k = 0; k < func->params.size(); ++k) {
    const Var &param = func->params[k];
    if (Buffer buffer = func->bufferFor(param)) {
      bufferParams[buffer->name.str()] = k;
      continue;
    }
    const std::string &name = param->name.str();
    if (scalars.contains(name))
      options.scalars[name] = scalarFromJson(param->type, scalars[name], "scalar '" + name + "'");
  }
  for (const auto &[name, value] : scalars.items()) {
    bool known = false;
    for (const Var &param : func->params)
      known = known || (!func->bufferFor(param) && param->name.str() == name);
    if (!known)
      fail("function '" + func->name.str() + "' has no scalar parameter '" + name + "'");
  }

  std::vector<ArgValue> args = makeRandomArgs(func, seed, options);
  for (const auto &[name, value] : buffers.items()) {
    auto it = bufferParams.find(name);
    if (it == bufferParams.end())
      fail("function '" + func->name.str() + "' has no buffer parameter '" + name + "'");
    const std::string where = "buffer '" + name + "'";
    BufferData &data = *args[it->second].buffer;
    Buffer buffer = func->bufferFor(func->params[it->second]);
    if (value.is_object())
      checkMembers(value, {"dtype", "shape", "data"}, where + ": ");
    const bool bare = value.is_array(); // "A": [[1, 2], [3, 4]], as numpy's tolist() writes it
    if (!bare && (!value.is_object() || !value.contains("data") || !value["data"].is_array()))
      fail(where + ": expected an object with a \"data\" array, or the data as a (nested) list");
    if (!bare && value.contains("dtype") && value["dtype"] != buffer->dtype.str())
      fail(where + ": dtype " + value["dtype"].dump() + " differs from the parameter's \"" + buffer->dtype.str() +
           "\"");
    std::vector<const json *> elements;
    flattenElements(bare ? value : value["data"], elements);
    if (elements.size() != data.size())
      fail(where + ": \"data\" has " + std::to_string(elements.size()) + " elements, the parameter's storage has " +
           std::to_string(data.size()));
    BufferData fresh(data.elementType(), data.size());
    for (size_t e = 0; e < elements.size(); ++e)
      storeElement(fresh, e, *elements[e], where + " element " + std::to_string(e));
    args[it->second].buffer = fresh.clone();
  }
  return args;
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
      out += (d ? ", " : "") + extentText(func, args, buffer->shape[d]);
    }
    out += "], \"data\": [";
    for (size_t e = 0; e < data.size(); ++e)
      out += (e ? ", " : "") + elementText(data, e);
    out += "]}";
    first = false;
  }
  out += first ? "},\n  \"scalars\": {" : "\n  },\n  \"scalars\": {";
  first = true;
  for (size_t k = 0; k < func->params.size(); ++k) {
    if (func->bufferFor(func->params[k]))
      continue;
    out += std::string(first ? "" : ",") + "\n    " + quoted(func->params[k]->name.str()) + ": " + scalarText(args[k]);
    first = false;
  }
  out += first ? "}\n}\n" : "\n  }\n}\n";
  return out;
}

} // namespace tirlower
