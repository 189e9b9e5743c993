#include "run_files.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "ir/access_census.h"
#include "interp/run_json.h"
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

// ---- table ------------------------------------------------------------------------------

// An element as the table shows it: its JSON text, "?" when uninitialised, nan/inf unquoted.
std::string tableText(const BufferData &data, size_t index) {
  std::string text;
  appendRunElement(text, data, index);
  if (text == "null")
    return "?";
  if (text.front() == '"')
    return text.substr(1, text.size() - 2);
  return text;
}

class TableWriter {
public:
  TableWriter(const BufferData &data, std::vector<int64_t> shape) : data_(data), shape_(std::move(shape)) {
    int64_t count = 1;
    for (int64_t extent : shape_)
      count *= extent;
    summarise_ = count > 1000;
    for (size_t k = 0; k < data_.size(); ++k)
      width_ = std::max(width_, tableText(data_, k).size());
  }

  std::string write() {
    if (shape_.empty())
      return data_.size() == 0 ? std::string("?") : tableText(data_, 0);
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
        std::string text = tableText(data_, static_cast<size_t>(offset + index));
        out += std::string(width_ - text.size(), ' ') + text;
      } else {
        block(axis + 1, offset + index * stride, out);
      }
    }
    out += ']';
  }

  const BufferData &data_;
  std::vector<int64_t> shape_;
  size_t width_ = 1;
  bool summarise_ = false;
};

// The shape to show a buffer's storage in: the declared shape (with a trailing axis of lanes
// for vector dtypes) when its elements are exactly the storage, else the storage as one row.
std::vector<int64_t> displayShape(const PrimFunc &func, const std::vector<ArgValue> &args, const Buffer &buffer,
                                  size_t storage) {
  std::vector<int64_t> shape;
  int64_t count = 1;
  for (const Expr &extent : buffer->shape) {
    std::string text = runExtentText(func, args, extent);
    if (text.front() == '"')
      return {static_cast<int64_t>(storage)};
    shape.push_back(std::stoll(text));
    count *= shape.back();
  }
  if (buffer->dtype.lanes() > 1) {
    shape.push_back(buffer->dtype.lanes());
    count *= shape.back();
  }
  if (count != static_cast<int64_t>(storage))
    return {static_cast<int64_t>(storage)};
  return shape;
}

// A buffer's declared shape as run's JSON writes it, for a reader: "(2, 3)", "(n, 4)".
std::string shapeText(const PrimFunc &func, const std::vector<ArgValue> &args, const Buffer &buffer) {
  std::string text = "(";
  for (size_t k = 0; k < buffer->shape.size(); ++k) {
    std::string extent = runExtentText(func, args, buffer->shape[k]);
    text += (k ? ", " : "") + (extent.front() == '"' ? extent.substr(1, extent.size() - 2) : extent);
  }
  return text + (buffer->shape.size() == 1 ? ",)" : ")");
}

// The buffer parameter named `name` and its argument index, or {null, 0}.
std::pair<Buffer, size_t> bufferParam(const PrimFunc &func, const std::string &name) {
  for (size_t k = 0; k < func->params.size(); ++k)
    if (Buffer buffer = func->bufferFor(func->params[k]); buffer && buffer->name.str() == name)
      return {buffer, k};
  return {Buffer(), 0};
}

std::string bufferNames(const PrimFunc &func) {
  std::string names;
  for (const Var &param : func->params)
    if (Buffer buffer = func->bufferFor(param))
      names += (names.empty() ? "" : ", ") + buffer->name.str();
  return names;
}

} // namespace

std::string checkRunFileFlags(const std::vector<std::string> &inputs, const std::vector<std::string> &outputs) {
  int jsonInputs = 0;
  std::set<std::string> named;
  for (const std::string &input : inputs) {
    auto [name, path] = splitNamed(input);
    if (!name.empty() && !endsWith(path, ".npy"))
      return "--inputs " + input + ": a named input is a .npy file (NAME=FILE.npy); a JSON file is given alone";
    if (name.empty() && endsWith(path, ".npy"))
      return "--inputs " + input + ": say which buffer the array is for: --inputs NAME=" + path;
    if (name.empty() && ++jsonInputs > 1)
      return "--inputs: give at most one JSON file (and any number of NAME=FILE.npy)";
    if (!name.empty() && !named.insert(name).second)
      return "--inputs " + input + ": buffer '" + name + "' is given twice";
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

std::string runInputsJson(const PrimFunc &func, const std::vector<std::string> &inputs, std::string &json,
                          std::string &arrays) {
  json = "{}";
  for (const std::string &input : inputs) {
    auto [name, path] = splitNamed(input);
    if (!name.empty())
      continue;
    std::string text, error;
    if (!readInput(path, text, error))
      return error;
    json = std::move(text);
  }
  nlohmann::json object = nlohmann::json::object();
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
    object["buffers"][name] = {{"shape", array.shape}, {"data", std::move(array.data)}};
  }
  arrays = object.dump();
  return "";
}

std::pair<int, std::string> writeRunOutputs(const PrimFunc &func, const std::vector<ArgValue> &args,
                                            const RunResult &result, uint64_t seed,
                                            const std::vector<std::string> &outputs, bool table,
                                            std::vector<std::string> &warnings) {
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
    if (!bufferParam(func, name).first)
      return {2, "--outputs " + output + ": the function has no buffer '" + name + "' (buffers: " +
                     bufferNames(func) + ")"};
    arrays.emplace_back(name, path);
  }
  if (jsonTarget.empty() && arrays.empty())
    jsonTarget = "-";
  for (const auto &[name, path] : arrays) {
    auto [buffer, param] = bufferParam(func, name);
    const BufferData &data = *args[param].buffer;
    std::string bytes;
    size_t uninitialised = 0;
    std::string message = writeNpy(buffer->dtype.element().str(), displayShape(func, args, buffer, data.size()), data,
                                   bytes, uninitialised);
    if (!message.empty())
      return {1, "--outputs " + name + "=" + path + ": " + message};
    if (uninitialised)
      warnings.push_back("--outputs " + name + "=" + path + ": " + std::to_string(uninitialised) + " elements of '" +
                         name + "' were never written; the .npy file holds 0 for them");
    if (std::string error = writeOutput(path, bytes); !error.empty())
      return {1, error};
  }
  if (!jsonTarget.empty()) {
    std::string text = table ? runTable(func, args, result, seed) : runResultToJson(func, seed, args, result);
    if (std::string error = writeOutput(jsonTarget, text); !error.empty())
      return {1, error};
  }
  return {0, ""};
}

std::string runTable(const PrimFunc &func, const std::vector<ArgValue> &args, const RunResult &result,
                     uint64_t seed) {
  std::string out = func->name.str() + ": " + (result.status == RunStatus::AssertFailed ? "assert_failed" : "ok") +
                    ", return code " + std::to_string(result.returnCode) + " (seed " + std::to_string(seed) + ")\n";
  std::string scalars;
  for (size_t k = 0; k < func->params.size(); ++k) {
    Buffer buffer = func->bufferFor(func->params[k]);
    if (!buffer) {
      scalars += func->params[k]->name.str() + " = " + runScalarText(args[k]) + "\n";
      continue;
    }
    const BufferData &data = *args[k].buffer;
    out += "\n" + buffer->name.str() + ": " + buffer->dtype.str() + ", shape " + shapeText(func, args, buffer) + "\n" +
           TableWriter(data, displayShape(func, args, buffer, data.size())).write() + "\n";
  }
  return out + (scalars.empty() ? "" : "\n" + scalars);
}

} // namespace tirlower
