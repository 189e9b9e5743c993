// Reading the arguments of `tirlower run --inputs` (docs/run-json.md). Everything a user may
// plausibly have meant is either read or refused with a message naming the member: a member
// given twice, a top-level member that is a parameter's name, a "shape" that is not the
// buffer's, a ragged nested list, a value the element type cannot hold.
#include "interp/run_json.h"

#include <cmath>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "ir/edit_distance.h"

namespace tirlower {

namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string &message) {
  throw CompileError(SourceRange{}, "--inputs: " + message);
}

// json::parse, but a member given twice in one object is an error (json::parse keeps the last
// silently), and a number beyond a double's range names where it is.
class StrictSax {
public:
  StrictSax(json &root, std::string_view what) : dom_(root, true), what_(what) {}

  bool null() { return value(), dom_.null(); }
  bool boolean(bool v) { return value(), dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return value(), dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return value(), dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const std::string &s) { return value(), dom_.number_float(v, s); }
  bool string(std::string &v) { return value(), dom_.string(v); }
  bool binary(json::binary_t &v) { return value(), dom_.binary(v); }
  bool start_object(std::size_t n) {
    value();
    levels_.push_back({true, "", -1, {}});
    return dom_.start_object(n);
  }
  bool key(std::string &k) {
    Level &level = levels_.back();
    level.key = k;
    if (!level.keys.insert(k).second)
      fail(what_ + path() + ": the member appears twice (one object names each member once)");
    return dom_.key(k);
  }
  bool end_object() { return levels_.pop_back(), dom_.end_object(); }
  bool start_array(std::size_t n) {
    value();
    levels_.push_back({false, "", -1, {}});
    return dom_.start_array(n);
  }
  bool end_array() { return levels_.pop_back(), dom_.end_array(); }
  bool parse_error(std::size_t position, const std::string &token, const nlohmann::detail::exception &e) {
    if (e.id == 406) {
      value();
      fail(what_ + path() + ": " + token + " is beyond the range of any floating-point type (largest finite "
                                            "float64 1.7976931348623157e308)");
    }
    fail(what_ + "invalid JSON at byte " + std::to_string(position) + ": " + e.what());
  }

private:
  struct Level {
    bool object;
    std::string key;
    int64_t index; // the array's element being read
    std::set<std::string> keys;
  };

  // A value starts: in an array, it is the next element.
  void value() {
    if (!levels_.empty() && !levels_.back().object)
      ++levels_.back().index;
  }

  std::string path() const {
    std::string text;
    for (const Level &level : levels_)
      text += level.object ? (text.empty() ? "" : ".") + level.key : "[" + std::to_string(level.index) + "]";
    return text.empty() ? "the top level" : text;
  }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  std::string what_;
  std::vector<Level> levels_;
};

json parseStrictly(std::string_view text, std::string_view what) {
  json root;
  StrictSax sax(root, what);
  json::sax_parse(text, &sax);
  if (!root.is_object())
    fail(std::string(what) + "the top level must be an object, such as {\"buffers\": {\"A\": [1, 2]}}");
  return root;
}

// Whether a finite `value` rounds to infinity in the float type `type`: beyond its largest
// finite value by half a unit in the last place or more.
bool overflowsFloat(double value, DataType type) {
  double magnitude = std::fabs(value);
  if (type.bits() == 64)
    return false;
  if (type.bits() == 32)
    return std::isinf(static_cast<float>(value));
  if (type.code() == DataType::Code::Float)
    return magnitude >= 65520.0;                              // float16: largest 65504
  return magnitude >= std::ldexp(2.0 - std::ldexp(1.0, -8), 127); // bfloat16: largest (2 - 2^-7) * 2^127
}

double readFloat(const json &value, DataType type, const std::string &where) {
  double result = 0;
  if (value.is_number()) {
    result = value.get<double>();
  } else if (value.is_string() && (value == "nan" || value == "inf" || value == "-inf")) {
    const std::string &text = value.get_ref<const std::string &>();
    return text == "nan" ? std::nan("") : text == "inf" ? HUGE_VAL : -HUGE_VAL;
  } else {
    fail(where + ": expected a number, \"nan\", \"inf\" or \"-inf\", got " + value.dump());
  }
  if (std::isfinite(result) && overflowsFloat(result, type))
    fail(where + ": " + value.dump() + " is beyond the range of " + type.element().str() +
         " (it would become infinity; write \"inf\" for that)");
  return result;
}

// An integer element or scalar of `type`, checked against the type's range (a value that does
// not fit would wrap around silently).
uint64_t readInteger(const json &value, DataType type, const std::string &where) {
  if (!value.is_number_integer())
    fail(where + ": expected an integer, got " + value.dump());
  int bits = type.bits();
  bool negative = !value.is_number_unsigned() && value.get<int64_t>() < 0;
  uint64_t magnitude = negative ? 0 - value.get<uint64_t>() : value.get<uint64_t>();
  uint64_t max = type.isUInt() ? (bits == 64 ? UINT64_MAX : (uint64_t(1) << bits) - 1) : (uint64_t(1) << (bits - 1)) - 1;
  bool fits = negative ? !type.isUInt() && magnitude <= max + 1 : magnitude <= max;
  if (!fits) {
    std::string low = type.isUInt() ? "0" : "-" + std::to_string(max + 1);
    fail(where + ": " + value.dump() + " is out of the range of " + type.element().str() + " [" + low + ", " +
         std::to_string(max) + "]");
  }
  return value.get<uint64_t>();
}

// Stores `value` (a JSON element) as scalar `index` of `data`.
void storeElement(BufferData &data, size_t index, const json &value, const std::string &where) {
  DataType type = data.elementType();
  if (value.is_null())
    return; // left uninitialised
  if (type.isFloat()) {
    data.setFloat(index, readFloat(value, type, where));
  } else if (type.isBool()) {
    if (value.is_boolean())
      data.setInt(index, value.get<bool>() ? 1 : 0);
    else if (value.is_number_integer() && (value.get<int64_t>() == 0 || value.get<int64_t>() == 1))
      data.setInt(index, value.get<int64_t>());
    else
      fail(where + ": expected true, false, 0 or 1, got " + value.dump());
  } else if (type.isUInt()) {
    data.setUInt(index, readInteger(value, type, where));
  } else {
    data.setInt(index, static_cast<int64_t>(readInteger(value, type, where)));
  }
}

ArgValue scalarFromJson(DataType type, const json &value, const std::string &where) {
  if (type.isFloat())
    return ArgValue::ofFloat(readFloat(value, type, where), type);
  if (type.isBool()) {
    if (!value.is_boolean())
      fail(where + ": expected true or false, got " + value.dump());
    return ArgValue::ofBool(value.get<bool>());
  }
  uint64_t bits = readInteger(value, type, where);
  if (type.isUInt())
    return ArgValue::ofUInt(bits, type);
  return ArgValue::ofInt(static_cast<int64_t>(bits), type);
}

std::string listText(const std::vector<std::optional<int64_t>> &shape) {
  std::string text = "[";
  for (size_t k = 0; k < shape.size(); ++k)
    text += (k ? ", " : "") + (shape[k] ? std::to_string(*shape[k]) : std::string("\"?\""));
  return text + "]";
}

// The shape of a nested list of scalars, which must be rectangular (numpy's tolist() of an
// array): every list at one depth has the same length, every scalar the same depth.
void nestedShape(const json &data, std::vector<std::optional<int64_t>> &shape) {
  for (const json *level = &data; level->is_array(); level = &level->front()) {
    shape.push_back(static_cast<int64_t>(level->size()));
    if (level->empty())
      break;
  }
}

void checkRectangular(const json &data, const std::vector<std::optional<int64_t>> &shape, size_t depth,
                      const std::string &where) {
  bool list = data.is_array();
  if (list != (depth < shape.size()) || (list && static_cast<int64_t>(data.size()) != *shape[depth]))
    fail(where + " is a ragged list: " + (list ? "a list of " + std::to_string(data.size()) : std::string("a scalar")) +
         " where the first elements make the shape " + listText(shape) + " expect " +
         (depth < shape.size() ? "a list of " + std::to_string(*shape[depth]) : std::string("a scalar")));
  if (list)
    for (size_t k = 0; k < data.size(); ++k)
      checkRectangular(data[k], shape, depth + 1, where + "[" + std::to_string(k) + "]");
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

// The shapes a buffer's data may be given in: the declared one (an extent that is a scalar
// parameter is its value; another symbolic extent, nullopt, matches any), with the lanes of a
// vector dtype as a last axis, or the storage as one row when it is not the shape's product
// (a strided view), as `run` writes .npy files.
std::vector<std::vector<std::optional<int64_t>>> acceptedShapes(const PrimFunc &func, const std::vector<ArgValue> &args,
                                                                const Buffer &buffer, size_t storage) {
  std::vector<std::optional<int64_t>> declared;
  std::optional<int64_t> product = 1;
  for (const Expr &extent : buffer->shape) {
    std::optional<int64_t> value;
    if (const auto *imm = extent.as<IntImmNode>())
      value = imm->value;
    for (size_t k = 0; k < func->params.size() && !value; ++k)
      if (extent == Expr(func->params[k]) && !args[k].isBuffer())
        value = args[k].type.isUInt() ? static_cast<int64_t>(args[k].uintValue) : args[k].intValue;
    declared.push_back(value);
    product = value && product ? std::optional<int64_t>(*product * *value) : std::nullopt;
  }
  std::vector<std::vector<std::optional<int64_t>>> shapes = {declared};
  if (buffer->dtype.lanes() > 1) {
    shapes.push_back(declared);
    shapes.back().push_back(buffer->dtype.lanes());
  }
  if (product && *product * buffer->dtype.lanes() != static_cast<int64_t>(storage))
    shapes.push_back({static_cast<int64_t>(storage)});
  return shapes;
}

bool shapeMatches(const std::vector<std::optional<int64_t>> &given, const std::vector<std::optional<int64_t>> &shape) {
  if (given.size() != shape.size())
    return false;
  for (size_t k = 0; k < given.size(); ++k)
    if (shape[k] && given[k] != shape[k])
      return false;
  return true;
}

void checkShape(const std::vector<std::optional<int64_t>> &given,
                const std::vector<std::vector<std::optional<int64_t>>> &accepted, const std::string &what) {
  for (const auto &shape : accepted)
    if (shapeMatches(given, shape))
      return;
  std::string shapes;
  for (size_t k = 0; k < accepted.size(); ++k)
    shapes += (k == 0 ? "" : k + 1 == accepted.size() ? " or " : ", ") + listText(accepted[k]);
  fail(what + " " + listText(given) + " is not the buffer's shape " + shapes);
}

std::vector<std::optional<int64_t>> shapeMember(const json &shape, const std::string &where) {
  std::vector<std::optional<int64_t>> result;
  if (shape.is_array())
    for (const json &extent : shape) {
      if (extent.is_number_integer() && extent.get<int64_t>() >= 0)
        result.push_back(extent.get<int64_t>());
      else if (extent == "?")
        result.push_back(std::nullopt);
      else
        fail(where + ": \"shape\" must be a list of non-negative integers, got " + shape.dump());
    }
  else
    fail(where + ": \"shape\" must be a list of non-negative integers, got " + shape.dump());
  return result;
}

// Another spelling of one of `names` a user may have meant by `name`: the same letters in
// another case, or a close typo.
std::string suggestion(const std::string &name, const std::vector<std::string> &names) {
  auto lower = [](std::string text) {
    for (char &c : text)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
  };
  for (const std::string &candidate : names)
    if (lower(candidate) == lower(name))
      return "; did you mean '" + candidate + "'?";
  ClosestName closest(name, 2);
  for (const std::string &candidate : names)
    closest.consider(candidate);
  return closest.best().empty() ? "" : "; did you mean '" + std::string(closest.best()) + "'?";
}

struct Params {
  std::map<std::string, size_t> buffers; // buffer name -> parameter index
  std::vector<std::string> bufferNames, scalarNames;
};

Params paramsOf(const PrimFunc &func) {
  Params params;
  for (size_t k = 0; k < func->params.size(); ++k) {
    if (Buffer buffer = func->bufferFor(func->params[k])) {
      params.buffers[buffer->name.str()] = k;
      params.bufferNames.push_back(buffer->name.str());
    } else {
      params.scalarNames.push_back(func->params[k]->name.str());
    }
  }
  return params;
}

std::string namesText(const std::vector<std::string> &names) {
  std::string text;
  for (const std::string &name : names)
    text += (text.empty() ? "" : ", ") + name;
  return text.empty() ? "none" : text;
}

// The members a run's JSON has; the TVM corpus adds "tolerance". Anything else at the top level
// was meant as something: a parameter given outside "buffers" or "scalars", another wrapper
// ("inputs"), a typo.
void checkTopLevel(const PrimFunc &func, const Params &params, const json &root) {
  static const std::vector<std::string> known = {"buffers", "scalars",     "function", "seed",
                                                 "status",  "return_code", "tolerance"};
  for (const auto &[key, value] : root.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end())
      continue;
    std::string where = "top-level member \"" + key + "\"";
    if (params.buffers.count(key))
      fail(where + " is a buffer of '" + func->name.str() + "'; buffers go in \"buffers\": {\"buffers\": {\"" + key +
           "\": [...]}}");
    if (std::find(params.scalarNames.begin(), params.scalarNames.end(), key) != params.scalarNames.end())
      fail(where + " is a scalar parameter of '" + func->name.str() + "'; scalars go in \"scalars\": {\"scalars\": {\"" +
           key + "\": ...}}");
    ClosestName closest(key, 2);
    for (const std::string &name : known)
      closest.consider(name);
    if (!closest.best().empty())
      fail("unknown " + where + "; did you mean \"" + std::string(closest.best()) + "\"?");
    fail("unknown " + where + ": the inputs are read from \"buffers\" and \"scalars\" ({\"buffers\": {\"A\": [...]}, "
                              "\"scalars\": {\"n\": 4}}; docs/run-json.md)");
  }
  if (root.contains("function")) {
    const json &name = root["function"];
    if (!name.is_string() || (name != func->name.str() && name != func->globalSymbol()))
      fail("the inputs are for function " + name.dump() + ", not '" + func->name.str() +
           "' (choose it with --func, or drop \"function\")");
  }
}

// A misspelt member would otherwise be ignored and its values replaced by random ones.
void checkBufferMembers(const json &object, const std::string &where) {
  for (const auto &[key, value] : object.items())
    if (key != "dtype" && key != "shape" && key != "data")
      fail(where + ": unknown member \"" + key + "\" (expected \"dtype\", \"shape\", \"data\")");
}

// Buffer `name`'s value read into fresh storage like `data`.
std::unique_ptr<BufferData> readBuffer(const PrimFunc &func, const std::vector<ArgValue> &args, size_t param,
                                       const std::string &name, const json &value) {
  const std::string where = "buffer '" + name + "'";
  const BufferData &data = *args[param].buffer;
  Buffer buffer = func->bufferFor(func->params[param]);
  if (value.is_object())
    checkBufferMembers(value, where);
  const bool bare = value.is_array(); // "A": [[1, 2], [3, 4]], as numpy's tolist() writes it
  if (!bare && (!value.is_object() || !value.contains("data") || !value["data"].is_array()))
    fail(where + ": expected an object with a \"data\" array, or the data as a (nested) list");
  if (!bare && value.contains("dtype") && value["dtype"] != buffer->dtype.str())
    fail(where + ": dtype " + value["dtype"].dump() + " differs from the parameter's \"" + buffer->dtype.str() + "\"");
  const json &list = bare ? value : value["data"];
  auto accepted = acceptedShapes(func, args, buffer, data.size());
  if (!bare && value.contains("shape"))
    checkShape(shapeMember(value["shape"], where), accepted, where + ": \"shape\"");
  std::vector<std::optional<int64_t>> nested;
  nestedShape(list, nested);
  checkRectangular(list, nested, 0, where + ": data");
  if (nested.size() > 1)
    checkShape(nested, accepted, where + ": the nested lists' shape");
  std::vector<const json *> elements;
  flattenElements(list, elements);
  if (elements.size() != data.size())
    fail(where + ": \"data\" has " + std::to_string(elements.size()) + " elements, the parameter's storage has " +
         std::to_string(data.size()));
  auto fresh = std::make_unique<BufferData>(data.elementType(), data.size());
  for (size_t e = 0; e < elements.size(); ++e)
    storeElement(*fresh, e, *elements[e], where + " element " + std::to_string(e));
  return fresh;
}

const json &member(const json &root, const char *name) {
  static const json empty = json::object();
  if (!root.contains(name))
    return empty;
  if (!root[name].is_object())
    fail(std::string("\"") + name + "\" must be an object of members by name");
  return root[name];
}

} // namespace

std::vector<ArgValue> makeArgsFromJson(const PrimFunc &func, std::string_view text, uint64_t seed,
                                       const RandomArgOptions &randomOptions, std::string_view arrays) {
  json root = parseStrictly(text, "");
  json extra = arrays.empty() ? json::object() : parseStrictly(arrays, "");
  Params params = paramsOf(func);
  checkTopLevel(func, params, root);
  const json &scalars = member(root, "scalars"), &buffers = member(root, "buffers");
  const json &extraScalars = member(extra, "scalars"), &extraBuffers = member(extra, "buffers");

  RandomArgOptions options = randomOptions;
  // A .npy array given for a member of the JSON file replaces it (docs/cli.md).
  for (const json *group : {&scalars, &extraScalars})
    for (const auto &[name, value] : group->items()) {
      if (group == &scalars && extraScalars.contains(name))
        continue;
      if (params.buffers.count(name))
        fail("'" + name + "' is a buffer of '" + func->name.str() + "', not a scalar: give it in \"buffers\"");
      size_t k = 0;
      while (k < func->params.size() && (func->bufferFor(func->params[k]) || func->params[k]->name.str() != name))
        ++k;
      if (k == func->params.size())
        fail("function '" + func->name.str() + "' has no scalar parameter '" + name + "' (scalars: " +
             namesText(params.scalarNames) + ")" + suggestion(name, params.scalarNames));
      options.scalars[name] = scalarFromJson(func->params[k]->type, value, "scalar '" + name + "'");
    }

  std::vector<ArgValue> args = makeRandomArgs(func, seed, options);
  for (const json *group : {&buffers, &extraBuffers})
    for (const auto &[name, value] : group->items()) {
      if (group == &buffers && extraBuffers.contains(name))
        continue;
      auto it = params.buffers.find(name);
      if (it == params.buffers.end()) {
        if (std::find(params.scalarNames.begin(), params.scalarNames.end(), name) != params.scalarNames.end())
          fail("'" + name + "' is a scalar parameter of '" + func->name.str() + "', not a buffer: give it in \"scalars\"");
        fail("function '" + func->name.str() + "' has no buffer parameter '" + name + "' (buffers: " +
             namesText(params.bufferNames) + ")" + suggestion(name, params.bufferNames));
      }
      args[it->second].buffer = readBuffer(func, args, it->second, name, value);
    }
  return args;
}

} // namespace tirlower
