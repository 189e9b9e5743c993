// ocl_runner: runs one OpenCL C kernel on the CPU device (PoCL) and writes its buffers back.
//   ocl_runner KERNEL.cl ARGS.json OUT.json
// ARGS.json: {"kernel": "name", "global": [x, y, z], "local": [x, y, z], "args": [
//   {"buffer": "float32", "data": [...]}          a buffer filled from data (or "size": n, zeroed)
//   {"image": [width, height], "data": [...]}     a 2-d RGBA float32 image (data: width*height*4)
//   {"scalar": "int32", "value": 5, "name": "n"}]}       (the name is optional)
// A size of global or local may be an expression of the named scalars in --emit=launch's form
// (docs/opencl-emitter.md, "Symbolic launch sizes"): an integer, a scalar's name, or
// [OP, a, b] / ["cast", DTYPE, a]; a global size below 1 launches nothing.
// OUT.json: {"args": [{"data": [...]} for buffers and images, null for scalars]}.
// Exit status: 0 ran, 77 no OpenCL platform or CPU device (meson: skipped), 1 any other error.
// This program must not link LLVM: PoCL loads its own (see docs/opencl-emitter.md).
#include <CL/cl.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using nlohmann::json;

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(cl_int status, const char *what) {
  if (status != CL_SUCCESS)
    throw Failure(std::string(what) + " failed with OpenCL status " + std::to_string(status));
}

size_t elementSize(const std::string &type) {
  static const std::pair<const char *, size_t> sizes[] = {{"int8", 1},    {"uint8", 1},  {"int16", 2}, {"uint16", 2},
                                                          {"int32", 4},   {"uint32", 4}, {"int64", 8}, {"uint64", 8},
                                                          {"float32", 4}, {"float64", 8}};
  for (const auto &[name, size] : sizes)
    if (type == name)
      return size;
  throw Failure("unknown element type '" + type + "'");
}

template <typename T> void put(std::vector<unsigned char> &bytes, size_t k, T value) {
  std::memcpy(bytes.data() + k * sizeof(T), &value, sizeof(T));
}
template <typename T> T get(const std::vector<unsigned char> &bytes, size_t k) {
  T value;
  std::memcpy(&value, bytes.data() + k * sizeof(T), sizeof(T));
  return value;
}

void store(std::vector<unsigned char> &bytes, const std::string &type, size_t k, const json &v) {
  if (type == "float32")
    put<float>(bytes, k, v.get<float>());
  else if (type == "float64")
    put<double>(bytes, k, v.get<double>());
  else if (type == "int8")
    put<int8_t>(bytes, k, v.get<int8_t>());
  else if (type == "uint8")
    put<uint8_t>(bytes, k, v.get<uint8_t>());
  else if (type == "int16")
    put<int16_t>(bytes, k, v.get<int16_t>());
  else if (type == "uint16")
    put<uint16_t>(bytes, k, v.get<uint16_t>());
  else if (type == "int32")
    put<int32_t>(bytes, k, v.get<int32_t>());
  else if (type == "uint32")
    put<uint32_t>(bytes, k, v.get<uint32_t>());
  else if (type == "int64")
    put<int64_t>(bytes, k, v.get<int64_t>());
  else
    put<uint64_t>(bytes, k, v.get<uint64_t>());
}

json fetch(const std::vector<unsigned char> &bytes, const std::string &type, size_t k) {
  if (type == "float32")
    return get<float>(bytes, k);
  if (type == "float64")
    return get<double>(bytes, k);
  if (type == "int8")
    return get<int8_t>(bytes, k);
  if (type == "uint8")
    return get<uint8_t>(bytes, k);
  if (type == "int16")
    return get<int16_t>(bytes, k);
  if (type == "uint16")
    return get<uint16_t>(bytes, k);
  if (type == "int32")
    return get<int32_t>(bytes, k);
  if (type == "uint32")
    return get<uint32_t>(bytes, k);
  if (type == "int64")
    return get<int64_t>(bytes, k);
  return get<uint64_t>(bytes, k);
}

// One kernel argument and the host copy of its memory.
struct Argument {
  std::string type; // element type; "float32" for images
  std::vector<unsigned char> bytes;
  size_t width = 0, height = 0; // images only
  cl_mem memory = nullptr;
  bool isImage = false, isScalar = false;
};

class Runner {
public:
  Runner() {
    cl_uint count = 0;
    if (clGetPlatformIDs(0, nullptr, &count) != CL_SUCCESS || count == 0)
      throw Skip("no OpenCL platform");
    std::vector<cl_platform_id> platforms(count);
    check(clGetPlatformIDs(count, platforms.data(), nullptr), "clGetPlatformIDs");
    for (cl_platform_id platform : platforms)
      if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device_, nullptr) == CL_SUCCESS)
        break;
    if (!device_)
      throw Skip("no OpenCL CPU device");
    cl_int status = CL_SUCCESS;
    context_ = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &status);
    check(status, "clCreateContext");
    queue_ = clCreateCommandQueue(context_, device_, 0, &status);
    check(status, "clCreateCommandQueue");
  }
  ~Runner() {
    for (Argument &arg : args_)
      if (arg.memory)
        clReleaseMemObject(arg.memory);
    if (kernel_)
      clReleaseKernel(kernel_);
    if (program_)
      clReleaseProgram(program_);
    if (queue_)
      clReleaseCommandQueue(queue_);
    if (context_)
      clReleaseContext(context_);
  }
  Runner(const Runner &) = delete;
  Runner &operator=(const Runner &) = delete;

  struct Skip : std::runtime_error {
    using std::runtime_error::runtime_error;
  };

  void build(const std::string &source, const std::string &kernel) {
    const char *text = source.c_str();
    size_t length = source.size();
    cl_int status = CL_SUCCESS;
    program_ = clCreateProgramWithSource(context_, 1, &text, &length, &status);
    check(status, "clCreateProgramWithSource");
    if (clBuildProgram(program_, 1, &device_, "-cl-std=CL1.2", nullptr, nullptr) != CL_SUCCESS) {
      size_t size = 0;
      clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
      std::string log(size, '\0');
      clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
      throw Failure("clBuildProgram failed:\n" + log);
    }
    kernel_ = clCreateKernel(program_, kernel.c_str(), &status);
    check(status, "clCreateKernel");
  }

  void bind(const json &description) {
    cl_int status = CL_SUCCESS;
    for (const json &a : description) {
      Argument arg;
      if (a.contains("scalar")) {
        arg.type = a["scalar"].get<std::string>();
        arg.isScalar = true;
        if (a.contains("name") && a["value"].is_number_integer())
          scalars_[a["name"].get<std::string>()] = a["value"].get<int64_t>();
        arg.bytes.resize(elementSize(arg.type));
        store(arg.bytes, arg.type, 0, a["value"]);
      } else if (a.contains("image")) {
        arg.type = "float32";
        arg.isImage = true;
        arg.width = a["image"][0].get<size_t>();
        arg.height = a["image"][1].get<size_t>();
        fill(arg, a, arg.width * arg.height * 4);
        cl_image_format format{CL_RGBA, CL_FLOAT};
        cl_image_desc desc{};
        desc.image_type = CL_MEM_OBJECT_IMAGE2D;
        desc.image_width = arg.width;
        desc.image_height = arg.height;
        arg.memory = clCreateImage(context_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &format, &desc, arg.bytes.data(),
                                   &status);
        check(status, "clCreateImage");
      } else {
        arg.type = a["buffer"].get<std::string>();
        fill(arg, a, a.contains("data") ? a["data"].size() : a["size"].get<size_t>());
        size_t bytes = std::max<size_t>(arg.bytes.size(), 1);
        arg.bytes.resize(bytes);
        arg.memory =
            clCreateBuffer(context_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, arg.bytes.data(), &status);
        check(status, "clCreateBuffer");
      }
      args_.push_back(std::move(arg));
    }
    for (cl_uint k = 0; k < args_.size(); ++k) {
      Argument &arg = args_[k];
      status = arg.isScalar ? clSetKernelArg(kernel_, k, arg.bytes.size(), arg.bytes.data())
                            : clSetKernelArg(kernel_, k, sizeof(cl_mem), &arg.memory);
      check(status, ("clSetKernelArg " + std::to_string(k)).c_str());
    }
  }

  void run(const json &global, const json &local) {
    size_t globalSize[3], localSize[3];
    for (int d = 0; d < 3; ++d) {
      int64_t g = evaluate(global.at(d)), l = evaluate(local.at(d));
      if (l < 1)
        throw Failure("local size " + std::to_string(d) + " is " + std::to_string(l));
      if (g < 1)
        return; // nothing to launch (n = 0)
      globalSize[d] = static_cast<size_t>(g);
      localSize[d] = static_cast<size_t>(l);
    }
    check(clEnqueueNDRangeKernel(queue_, kernel_, 3, nullptr, globalSize, localSize, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel");
    check(clFinish(queue_), "clFinish");
  }

  json results() {
    json out = json::array();
    for (Argument &arg : args_) {
      if (arg.isScalar) {
        out.push_back(nullptr);
        continue;
      }
      if (arg.isImage) {
        size_t origin[3] = {0, 0, 0}, region[3] = {arg.width, arg.height, 1};
        check(clEnqueueReadImage(queue_, arg.memory, CL_TRUE, origin, region, 0, 0, arg.bytes.data(), 0, nullptr,
                                 nullptr),
              "clEnqueueReadImage");
      } else {
        check(clEnqueueReadBuffer(queue_, arg.memory, CL_TRUE, 0, arg.bytes.size(), arg.bytes.data(), 0, nullptr,
                                  nullptr),
              "clEnqueueReadBuffer");
      }
      json data = json::array();
      for (size_t k = 0; k < arg.bytes.size() / elementSize(arg.type); ++k)
        data.push_back(fetch(arg.bytes, arg.type, k));
      out.push_back({{"data", std::move(data)}});
    }
    return {{"args", std::move(out)}};
  }

private:
  // A launch size: --emit=launch's expression form over the named scalars, in int64.
  int64_t evaluate(const json &e) const {
    if (e.is_number_integer())
      return e.get<int64_t>();
    if (e.is_string()) {
      auto it = scalars_.find(e.get<std::string>());
      if (it == scalars_.end())
        throw Failure("a launch size names scalar '" + e.get<std::string>() + "', which no argument gives");
      return it->second;
    }
    if (!e.is_array() || e.size() != 3 || !e[0].is_string())
      throw Failure("not a launch size expression: " + e.dump());
    std::string op = e[0].get<std::string>();
    if (op == "cast") {
      std::string t = e[1].get<std::string>();
      int64_t v = evaluate(e[2]);
      if (t == "int32")
        return static_cast<int32_t>(v);
      if (t == "int64")
        return v;
      throw Failure("launch size cast to " + t);
    }
    int64_t a = evaluate(e[1]), b = evaluate(e[2]);
    if ((op == "floordiv" || op == "floormod" || op == "truncdiv" || op == "truncmod") && b == 0)
      throw Failure("launch size divides by zero");
    if (op == "+")
      return a + b;
    if (op == "-")
      return a - b;
    if (op == "*")
      return a * b;
    if (op == "floordiv")
      return a / b - ((a % b != 0 && (a < 0) != (b < 0)) ? 1 : 0);
    if (op == "floormod")
      return a % b + ((a % b != 0 && (a % b < 0) != (b < 0)) ? b : 0);
    if (op == "truncdiv")
      return a / b;
    if (op == "truncmod")
      return a % b;
    if (op == "min")
      return std::min(a, b);
    if (op == "max")
      return std::max(a, b);
    throw Failure("unknown launch size operator '" + op + "'");
  }

  static void fill(Argument &arg, const json &a, size_t count) {
    arg.bytes.assign(count * elementSize(arg.type), 0);
    if (!a.contains("data"))
      return;
    if (a["data"].size() != count)
      throw Failure("argument data has " + std::to_string(a["data"].size()) + " values, expected " +
                    std::to_string(count));
    for (size_t k = 0; k < count; ++k)
      store(arg.bytes, arg.type, k, a["data"][k]);
  }

  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  cl_kernel kernel_ = nullptr;
  std::vector<Argument> args_;
  std::map<std::string, int64_t> scalars_;
};

std::string readFile(const char *path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Failure(std::string("cannot read ") + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 4) {
    std::cerr << "usage: ocl_runner KERNEL.cl ARGS.json OUT.json\n";
    return 1;
  }
  try {
    std::string source = readFile(argv[1]);
    json description = json::parse(readFile(argv[2]));
    Runner runner;
    runner.build(source, description.at("kernel").get<std::string>());
    runner.bind(description.at("args"));
    runner.run(description.at("global"), description.at("local"));
    std::ofstream out(argv[3]);
    out << runner.results().dump() << "\n";
    return out ? 0 : 1;
  } catch (const Runner::Skip &skip) {
    std::cerr << "ocl_runner: skipped: " << skip.what() << "\n";
    return 77;
  } catch (const std::exception &error) {
    std::cerr << "ocl_runner: " << error.what() << "\n";
    return 1;
  }
}
