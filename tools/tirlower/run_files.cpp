#include "run_files.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "ir/access_census.h"
#include "ir/buffer.h"
#include "npy.h"
#include "output_file.h"

namespace tirlower {

namespace {

bool endsWith(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "NAME=PATH" -> {NAME, PATH}; no '=' (or a '/' before it: a path) -> {"", value}.
std::pair<std::string, std::string> splitNamed(const std::string &value) {
  size_t eq = value.find('=');
  if (eq == std::string::npos || eq == 0 || value.find('/') < eq)
    return {"", value};
  return {value.substr(0, eq), value.substr(eq + 1)};
}

Buffer paramBuffer(const PrimFunc &func, const std::string &name) {
  for (const Var &param : func->params)
    if (Buffer buffer = func->bufferFor(param))
      if (buffer->name.str() == name || param->name.str() == name)
        return buffer;
  return Buffer();
}

std::string buffersOf(const nlohmann::json &run) {
  std::string names;
  for (const auto &item : run["buffers"].items())
    names += (names.empty() ? "" : ", ") + item.key();
  return names;
}

// ---- table ------------------------------------------------------------------------------

std::string elementText(const nlohmann::json &value) {
  if (value.is_null())
    return "?";
  if (value.is_string())
    return value.get<std::string>();
  return value.dump();
}

class TableWriter {
public:
  TableWriter(const nlohmann::json &data, std::vector<int64_t> shape) : data_(data), shape_(std::move(shape)) {
    int64_t count = 1;
    for (int64_t extent : shape_)
      count *= extent;
    summarise_ = count > 1000;
    for (const nlohmann::json &value : data_)
      width_ = std::max(width_, elementText(value).size());
  }

  std::string write() {
    if (shape_.empty())
      return elementText(data_.empty() ? nlohmann::json() : data_[0]);
    std::string out;
    block(0, 0, out);
    return out;
  }

private:
  // The indices of axis `axis` to print: all, or the first and last 3 with -1 for "...".
  std::vector<int64_t> shown(size_t axis) const {
    std::vector<int64_t> indices;
    int64_t extent = shape_[axis];
    for (int64_t k = 0; k < extent; ++k) {
      if (summarise_ && extent > 6 && k == 3) {
        indices.push_back(-1);
        k = extent - 4;
        continue;
      }
      indices.push_back(k);
    }
    return indices;
  }

  void block(size_t axis, int64_t offset, std::string &out) {
    int64_t stride = 1;
    for (size_t k = axis + 1; k < shape_.size(); ++k)
      stride *= shape_[k];
    out += '[';
    bool first = true;
    for (int64_t index : shown(axis)) {
      if (!first)
        out += axis + 1 == shape_.size()
                   ? ", "
                   : ",\n" + std::string(axis + 1 < shape_.size() - 1 ? 1 : 0, '\n') + std::string(axis + 1, ' ');
      first = false;
      if (index < 0) {
        out += "...";
        continue;
      }
      if (axis + 1 == shape_.size()) {
        std::string text = elementText(data_[offset + index]);
        out += std::string(width_ - text.size(), ' ') + text;
      } else {
        block(axis + 1, offset + index * stride, out);
      }
    }
    out += ']';
  }

  const nlohmann::json &data_;
  std::vector<int64_t> shape_;
  size_t width_ = 1;
  bool summarise_ = false;
};

// The shape to show `data` in: the declared shape (with a trailing axis of lanes for vector
// dtypes) when its elements are exactly the storage, else the storage as one row.
std::vector<int64_t> displayShape(const nlohmann::json &buffer) {
  const nlohmann::json &data = buffer["data"];
  std::vector<int64_t> shape;
  int64_t count = 1;
  for (const nlohmann::json &extent : buffer["shape"]) {
    if (!extent.is_number_integer())
      return {static_cast<int64_t>(data.size())};
    shape.push_back(extent.get<int64_t>());
    count *= shape.back();
  }
  std::string dtype = buffer["dtype"].get<std::string>();
  size_t x = dtype.find('x');
  if (x != std::string::npos) {
    int64_t lanes = std::stoll(dtype.substr(x + 1));
    shape.push_back(lanes);
    count *= lanes;
  }
  if (count != static_cast<int64_t>(data.size()))
    return {static_cast<int64_t>(data.size())};
  return shape;
}

std::string shapeText(const nlohmann::json &shape) {
  std::string text = "(";
  for (size_t k = 0; k < shape.size(); ++k)
    text += (k ? ", " : "") + (shape[k].is_string() ? shape[k].get<std::string>() : shape[k].dump());
  return text + (shape.size() == 1 ? ",)" : ")");
}

} // namespace

std::string checkRunFileFlags(const std::vector<std::string> &inputs, const std::vector<std::string> &outputs) {
  int jsonInputs = 0;
  for (const std::string &input : inputs) {
    auto [name, path] = splitNamed(input);
    if (!name.empty() && !endsWith(path, ".npy"))
      return "--inputs " + input + ": a named input is a .npy file (NAME=FILE.npy); a JSON file is given alone";
    if (name.empty() && endsWith(path, ".npy"))
      return "--inputs " + input + ": say which buffer the array is for: --inputs NAME=" + path;
    if (name.empty() && ++jsonInputs > 1)
      return "--inputs: give at most one JSON file (and any number of NAME=FILE.npy)";
  }
  int jsonOutputs = 0;
  for (const std::string &output : outputs) {
    auto [name, path] = splitNamed(output);
    if (!name.empty() && !endsWith(path, ".npy"))
      return "--outputs " + output + ": a named output is a .npy file (NAME=FILE.npy); JSON is written whole";
    if (name.empty() && !endsWith(path, ".npy") && ++jsonOutputs > 1)
      return "run: give the JSON output once (-o or --outputs)";
  }
  return "";
}

std::string runInputsJson(const PrimFunc &func, const std::vector<std::string> &inputs, std::string &json) {
  nlohmann::json object = nlohmann::json::object();
  for (const std::string &input : inputs) {
    auto [name, path] = splitNamed(input);
    if (!name.empty())
      continue;
    std::string text, error;
    if (!readInput(path, text, error))
      return error;
    object = nlohmann::json::parse(text, nullptr, false);
    if (object.is_discarded() || !object.is_object()) {
      json = text; // makeArgsFromJson says where and how the JSON is malformed
      return "";
    }
  }
  for (const std::string &input : inputs) {
    auto [name, path] = splitNamed(input);
    if (name.empty())
      continue;
    std::string bytes, error;
    if (!readInput(path, bytes, error))
      return error;
    NpyArray array;
    if (std::string message = readNpy(bytes, array); !message.empty())
      return "--inputs " + name + "=" + path + ": " + message;
    // A buffer of another element type would be read with the wrong values: say so. Unknown
    // names are reported by the JSON reader with the function's names.
    if (Buffer buffer = paramBuffer(func, name)) {
      std::string element = buffer->dtype.element().str();
      if (element != array.dtype)
        return "--inputs " + name + "=" + path + ": the array holds " + array.dtype + ", buffer '" + name + "' is " +
               buffer->dtype.str();
    }
    if (array.shape.empty() && !paramBuffer(func, name)) {
      object["scalars"][name] = array.data[0];
      continue;
    }
    object["buffers"][name] = {{"data", std::move(array.data)}};
  }
  json = object.dump();
  return "";
}

std::pair<int, std::string> writeRunOutputs(const PrimFunc &func, const std::vector<std::string> &outputs, bool table,
                                            const std::string &json, std::vector<std::string> &warnings) {
  nlohmann::json run = nlohmann::json::parse(json);
  std::vector<std::pair<std::string, std::string>> arrays; // buffer name, path
  std::string jsonTarget;
  for (const std::string &output : outputs) {
    auto [name, path] = splitNamed(output);
    if (!endsWith(path, ".npy")) {
      jsonTarget = path;
      continue;
    }
    if (name.empty()) { // the one buffer the function writes
      AccessCensus census = AccessCensus::of(func->body);
      std::vector<std::string> written;
      for (const Var &param : func->params)
        if (Buffer buffer = func->bufferFor(param); buffer && census.written.count(param.get()))
          written.push_back(buffer->name.str());
      if (written.size() != 1) {
        std::string names;
        for (const std::string &w : written)
          names += (names.empty() ? "" : ", ") + w;
        return {2, "--outputs " + path + ": the function writes " +
                       (written.empty() ? std::string("no buffer") : "buffers " + names) +
                       "; name the buffer to save: --outputs NAME=" + path};
      }
      name = written.front();
    }
    if (!run["buffers"].contains(name))
      return {2,
              "--outputs " + output + ": the function has no buffer '" + name + "' (buffers: " + buffersOf(run) + ")"};
    arrays.emplace_back(name, path);
  }
  if (jsonTarget.empty() && arrays.empty())
    jsonTarget = "-";
  for (const auto &[name, path] : arrays) {
    const nlohmann::json &buffer = run["buffers"][name];
    std::string dtype = buffer["dtype"].get<std::string>();
    std::string bytes;
    size_t uninitialised = 0;
    std::string message =
        writeNpy(dtype.substr(0, dtype.find('x')), displayShape(buffer), buffer["data"], bytes, uninitialised);
    if (!message.empty())
      return {1, "--outputs " + name + "=" + path + ": " + message};
    if (uninitialised)
      warnings.push_back("--outputs " + name + "=" + path + ": " + std::to_string(uninitialised) + " elements of '" +
                         name + "' were never written; the .npy file holds 0 for them");
    if (std::string error = writeOutput(path, bytes); !error.empty())
      return {1, error};
  }
  if (!jsonTarget.empty())
    if (std::string error = writeOutput(jsonTarget, table ? runTable(json) : json); !error.empty())
      return {1, error};
  return {0, ""};
}

std::string runTable(const std::string &json) {
  nlohmann::json run = nlohmann::json::parse(json);
  std::string out = run["function"].get<std::string>() + ": " + run["status"].get<std::string>() + ", return code " +
                    run["return_code"].dump() + " (seed " + run["seed"].dump() + ")\n";
  for (const auto &item : run["buffers"].items()) {
    const nlohmann::json &buffer = item.value();
    out += "\n" + item.key() + ": " + buffer["dtype"].get<std::string>() + ", shape " + shapeText(buffer["shape"]) +
           "\n" + TableWriter(buffer["data"], displayShape(buffer)).write() + "\n";
  }
  if (!run["scalars"].empty()) {
    out += "\n";
    for (const auto &item : run["scalars"].items())
      out += item.key() + " = " + elementText(item.value()) + "\n";
  }
  return out;
}

} // namespace tirlower
