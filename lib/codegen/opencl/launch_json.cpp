#include "codegen/opencl/launch_json.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "codegen/c_header.h"
#include "codegen/launch_expr.h"
#include "codegen/opencl/opencl_emitter.h"
#include "codegen/opencl/opencl_support.h"
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

// The kernel argument name of a scalar parameter.
LaunchNamer argumentNamer(const KernelLaunch &launch) {
  return [&launch](const VarNode *var) {
    for (size_t k = 0; k < launch.params.size(); ++k)
      if (launch.params[k] == var)
        return launch.args[k];
    return var->name.str();
  };
}

// groups and global of a launch whose number of groups depends on scalar parameters.
Json groupsJson(const KernelLaunch &launch) {
  Json groups = Json::array();
  for (int d = 0; d < 3; ++d)
    groups.push_back(launchExprJson(launch.groups[d], argumentNamer(launch)));
  return groups;
}
Json globalJson(const KernelLaunch &launch) {
  Json global = Json::array();
  for (int d = 0; d < 3; ++d) {
    Json g = launchExprJson(launch.groups[d], argumentNamer(launch));
    global.push_back(g.is_number()              ? Json(launch.globalSize[d])
                     : launch.localSize[d] == 1 ? g
                                                : Json::array({"*", g, launch.localSize[d]}));
  }
  return global;
}

bool usesVar(const Expr &e, const VarNode *var) {
  if (e.get() == var)
    return true;
  if (const auto *cast = e.as<CastNode>())
    return usesVar(cast->value, var);
  if (const auto *b = e.as<BinaryNode>())
    return usesVar(b->a, var) || usesVar(b->b, var);
  return false;
}

// The elements of a buffer with a symbolic shape, as an expression (null if it has strides
// or an extent that is not one).
Json symbolicElements(const BufferNode &buffer, const PrimFuncNode &func, const KernelLaunch &launch) {
  if (!buffer.strides.empty() || buffer.shape.empty())
    return nullptr;
  Expr product;
  for (const Expr &extent : buffer.shape) {
    if (!launchExprProblem(extent, func).empty())
      return nullptr;
    Expr e = extent->type == DataType::int64() ? extent : CastNode::make(DataType::int64(), extent);
    product = product ? BinaryNode::make(BinaryOp::Mul, product, e) : e;
  }
  return launchExprJson(product, argumentNamer(launch));
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
Json argument(const std::string &name, const PrimFuncNode &func, size_t index, const KernelLaunch &launch) {
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
    arg["elements"] = symbolicElements(*buffer, func, launch);
  return arg;
}

} // namespace

std::string emitLaunchJson(const Module &module, DiagnosticSink &diagnostics, const OpenCLEmitOptions &options) {
  emitOpenCL(module, diagnostics, options); // the same errors as --emit=opencl, and only for kernels it writes
  std::vector<KernelLaunch> launches = launchGeometry(module, options);
  std::string kernels;
  for (size_t k = 0; k < launches.size(); ++k) {
    const KernelLaunch &launch = launches[k];
    const PrimFuncNode &func = *module.functions[k];
    std::array<int64_t, 3> groups{};
    for (int d = 0; d < 3; ++d)
      groups[d] = launch.globalSize[d] / launch.localSize[d]; // constant geometry only
    std::string argLines;
    for (size_t a = 0; a < launch.args.size(); ++a)
      argLines += (a ? ",\n        " : "        ") + compact(argument(launch.args[a], func, a, launch));
    bool symbolic = launch.symbolic();
    kernels += std::string(k ? ",\n" : "") + "    {\n      \"kernel\": " + Json(launch.kernel).dump() +
               ",\n      \"function\": " + Json(func.name.str()).dump() +
               ",\n      \"global\": " + compact(symbolic ? globalJson(launch) : triple(launch.globalSize)) +
               ",\n      \"local\": " + compact(triple(launch.localSize)) +
               ",\n      \"groups\": " + compact(symbolic ? groupsJson(launch) : triple(groups)) +
               ",\n      \"args\": [" + (argLines.empty() ? "" : "\n" + argLines + "\n      ") +
               "],\n      \"assert_messages\": " + compact(Json(launch.assertMessages)) + "\n    }";
  }
  return "{\n  \"format\": \"tirlower-opencl-launch\",\n  \"version\": 1,\n  \"kernels\": [" +
         (kernels.empty() ? "" : "\n" + kernels + "\n  ") + "]\n}\n";
}

std::string emitLaunchHeader(const Module &module, DiagnosticSink &diagnostics, const OpenCLEmitOptions &options) {
  emitOpenCL(module, diagnostics, options); // the same errors as --emit=opencl
  std::vector<KernelLaunch> launches = launchGeometry(module, options);
  std::string text = "// Generated by tirlower: launch sizes of the OpenCL kernels (docs/opencl-emitter.md).\n"
                     "#pragma once\n\n#include <stddef.h>\n#include <stdint.h>\n\n";
  text += launchHeaderHelpers();
  for (size_t k = 0; k < launches.size(); ++k) {
    const KernelLaunch &launch = launches[k];
    const PrimFuncNode &func = *module.functions[k];
    LaunchNamer name = argumentNamer(launch);
    std::string params, unused;
    for (size_t a = 0; a < launch.params.size(); ++a) {
      const VarNode *var = launch.params[a];
      if (func.bufferFor(Var(var)) || var->type.isHandle())
        continue;
      DataType t = var->type;
      std::string c = t.isBool()    ? "int"
                      : t.isFloat() ? (t.bits() == 64 ? "double" : "float")
                                    : std::string(t.isUInt() ? "uint" : "int") + std::to_string(t.bits()) + "_t";
      params += c + " " + launch.args[a] + ", ";
      if (std::none_of(launch.groups.begin(), launch.groups.end(), [&](const Expr &g) { return usesVar(g, var); }))
        unused += "  (void)" + launch.args[a] + ";\n";
    }
    std::string groups, local;
    for (int d = 0; d < 3; ++d) {
      groups += std::string(d ? ", " : "") + launchExprC(launch.groups[d], name);
      local += "  local[" + std::to_string(d) + "] = " + std::to_string(launch.localSize[d]) + ";\n";
    }
    text += "\n// " + launch.kernel + ": groups {";
    for (int d = 0; d < 3; ++d)
      text += std::string(d ? ", " : "") + launchExprText(launch.groups[d], name);
    text += "}, local {" + std::to_string(launch.localSize[0]) + ", " + std::to_string(launch.localSize[1]) + ", " +
            std::to_string(launch.localSize[2]) + "}\n";
    text += "static inline int tl_launch_" + launch.kernel + "(" + params + "size_t global[3], size_t local[3]) {\n" +
            unused + "  const int64_t groups[3] = {" + groups + "};\n" + local +
            "  for (int d = 0; d < 3; ++d) {\n"
            "    if (groups[d] < 1)\n"
            "      return 1;\n"
            "    global[d] = (size_t)groups[d] * local[d];\n"
            "  }\n"
            "  return 0;\n"
            "}\n";
  }
  return text;
}

} // namespace tirlower
