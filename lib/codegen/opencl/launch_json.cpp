#include "codegen/opencl/launch_json.h"

#include <nlohmann/json.hpp>

#include "codegen/c_header.h"
#include "codegen/opencl/opencl_emitter.h"
#include "ir/buffer.h"
#include "ir/storage_scope.h"

namespace tirlower {

namespace {

using Json = nlohmann::ordered_json; // members in the documented order

// One line: {"name": "A", "kind": "buffer"}, [128, 8, 1].
std::string compact(const Json &value) {
  if (value.is_object()) {
    std::string text = "{";
    for (auto it = value.begin(); it != value.end(); ++it)
      text += (it == value.begin() ? "" : ", ") + Json(it.key()).dump() + ": " + compact(it.value());
    return text + "}";
  }
  if (value.is_array()) {
    std::string text = "[";
    for (size_t k = 0; k < value.size(); ++k)
      text += (k ? ", " : "") + compact(value[k]);
    return text + "]";
  }
  return value.dump();
}

Json triple(const std::array<int64_t, 3> &sizes) {
  return Json::array({sizes[0], sizes[1], sizes[2]});
}

Json shapeOf(const BufferNode &buffer) {
  Json shape = Json::array();
  for (const Expr &extent : buffer.shape) {
    const int64_t *value = asConstInt(extent);
    shape.push_back(value ? Json(*value) : Json("?"));
  }
  return shape;
}

// One kernel argument: what it is and what the host allocates for it.
Json argument(const std::string &name, const PrimFuncNode &func, size_t index) {
  Json arg = {{"name", name}};
  if (index >= func.params.size()) { // the assert flag the emitter adds last
    arg["kind"] = "error_flag";
    arg["dtype"] = "int32";
    arg["elements"] = 1;
    return arg;
  }
  const Var &param = func.params[index];
  Buffer buffer = func.bufferFor(param);
  if (!buffer) {
    arg["kind"] = "scalar";
    arg["dtype"] = param->type.str();
    return arg;
  }
  bool texture = hasTextureScope(*buffer);
  arg["kind"] = texture ? "image" : "buffer";
  arg["dtype"] = buffer->dtype.str();
  arg["shape"] = shapeOf(*buffer);
  if (std::optional<int64_t> elements = bufferStorageElements(*buffer))
    arg["elements"] = *elements; // of dtype: a float32x4 buffer's elements are float4s
  else
    arg["elements"] = nullptr;
  return arg;
}

} // namespace

std::string emitLaunchJson(const Module &module, DiagnosticSink &diagnostics) {
  emitOpenCL(module, diagnostics); // the same errors as --emit=opencl, and only for kernels it writes
  std::vector<KernelLaunch> launches = launchGeometry(module);
  std::string kernels;
  for (size_t k = 0; k < launches.size(); ++k) {
    const KernelLaunch &launch = launches[k];
    const PrimFuncNode &func = *module.functions[k];
    std::array<int64_t, 3> groups{};
    for (int d = 0; d < 3; ++d)
      groups[d] = launch.globalSize[d] / launch.localSize[d];
    std::string argLines;
    for (size_t a = 0; a < launch.args.size(); ++a)
      argLines += (a ? ",\n        " : "        ") + compact(argument(launch.args[a], func, a));
    kernels += std::string(k ? ",\n" : "") + "    {\n      \"kernel\": " + Json(launch.kernel).dump() +
               ",\n      \"function\": " + Json(func.name.str()).dump() +
               ",\n      \"global\": " + compact(triple(launch.globalSize)) +
               ",\n      \"local\": " + compact(triple(launch.localSize)) +
               ",\n      \"groups\": " + compact(triple(groups)) + ",\n      \"args\": [" +
               (argLines.empty() ? "" : "\n" + argLines + "\n      ") +
               "],\n      \"assert_messages\": " + compact(Json(launch.assertMessages)) + "\n    }";
  }
  return "{\n  \"format\": \"tirlower-opencl-launch\",\n  \"version\": 1,\n  \"kernels\": [" +
         (kernels.empty() ? "" : "\n" + kernels + "\n  ") + "]\n}\n";
}

} // namespace tirlower
