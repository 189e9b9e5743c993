// Differential test of one TVMScript sample: parse, run the OpenCL pipeline, emit, run every
// kernel on PoCL through ocl_runner, and compare every buffer with the reference interpreter on
// the same random inputs.
//   opencl_sample SAMPLE.tir PIPELINE RUNNER WORKDIR
// A kernel with asserts gets the error flag argument; when the interpreter's assert fails, the
// flag must name that assert. Exit 0 match, 1 mismatch or failure (also an emitter error), 77 no
// OpenCL CPU device.
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "codegen/opencl/opencl_emitter.h"
#include "interp/interpreter.h"
#include "parse/parser.h"
#include "transform/pass_manager.h"
#include "transform/pipeline.h"

namespace {

using namespace tirlower;
using nlohmann::json;

class PrintingSink : public DiagnosticSink {
public:
  void report(Diagnostic d) override { std::cerr << "diagnostic: " << d.message << "\n"; }
};

int64_t product(const std::vector<Expr> &dims, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t k = begin; k < end; ++k) {
    const int64_t *v = asConstInt(dims[k]);
    if (!v)
      throw std::runtime_error("texture parameter with a non-constant shape");
    n *= *v;
  }
  return n;
}

// The runner's description of one argument, with the interpreter's random data.
json describe(const PrimFuncNode &func, size_t index, const ArgValue &arg) {
  if (!arg.isBuffer())
    return {{"scalar", arg.type.str()}, {"value", arg.type.isFloat() ? json(arg.floatValue) : json(arg.intValue)}};
  const BufferData &data = *arg.buffer;
  DataType t = data.elementType();
  json values = json::array();
  for (size_t k = 0; k < data.size(); ++k)
    values.push_back(t.isFloat() ? json(data.getFloat(k)) : t.isUInt() ? json(data.getUInt(k)) : json(data.getInt(k)));
  Buffer declared = func.bufferFor(func.params[index]);
  if (declared && declared->scope.view() == "global.texture" && declared->physicalRank() == 2) {
    size_t separator = static_cast<size_t>(declared->axisSeparators[0]);
    int64_t lanes = declared->dtype.lanes();
    int64_t rows = product(declared->shape, 0, separator);
    int64_t texels = product(declared->shape, separator, declared->shape.size()) * lanes / 4;
    return {{"image", {texels, rows}}, {"data", values}};
  }
  return {{"buffer", t.isBool() ? "uint8" : t.str()}, {"data", values}};
}

int compare(const std::string &kernel, const std::vector<ArgValue> &expected, const json &actual) {
  int mismatches = 0;
  for (size_t p = 0; p < expected.size(); ++p) {
    if (!expected[p].isBuffer())
      continue;
    const BufferData &b = *expected[p].buffer;
    for (size_t k = 0; k < b.size(); ++k) {
      if (!b.isInitialized(k))
        continue;
      double e = b.elementType().isFloat() ? b.getFloat(k) : static_cast<double>(b.getInt(k));
      double a = actual.at(p).at("data").at(k).get<double>();
      if (std::fabs(a - e) <= 1e-5 * std::max(1.0, std::fabs(e)))
        continue;
      if (mismatches++ < 5)
        std::cerr << kernel << ": parameter " << p << " element " << k << " is " << a << ", expected " << e << "\n";
    }
  }
  return mismatches;
}

int runSample(const std::string &path, const std::string &pipeline, const std::string &runner, const std::string &dir) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  SourceManager sources;
  uint32_t file = sources.addFile(path, text.str());
  PrintingSink sink;
  std::optional<Module> parsed = parseModule(sources, file, sink);
  if (!parsed)
    return 1;
  PassManager passes;
  for (const PipelineEntry &entry : parsePipeline(pipeline, PassRegistry::builtin()))
    passes.add(entry);
  PassContext context{sink};
  std::optional<Module> lowered = passes.run(*parsed, context);
  if (!lowered)
    return 1;
  std::string source;
  std::vector<KernelLaunch> launches;
  try {
    source = emitOpenCL(*lowered, sink);
    launches = launchGeometry(*lowered);
  } catch (const CompileError &error) {
    std::cerr << "FAIL: the OpenCL emitter rejects the sample: " << error.what() << "\n";
    return 1;
  }
  std::string name = path.substr(path.find_last_of('/') + 1);
  std::string cl = dir + "/" + name + ".cl", argsPath = dir + "/" + name + ".args.json",
              out = dir + "/" + name + ".out.json";
  std::ofstream(cl) << source;
  int mismatches = 0;
  for (size_t f = 0; f < lowered->functions.size(); ++f) {
    const PrimFunc &func = lowered->functions[f];
    std::vector<ArgValue> args = makeRandomArgs(func, 42 + f);
    std::vector<ArgValue> expected = deepCopyArgs(args);
    RunResult reference = run(func, expected);
    const KernelLaunch &launch = launches[f];
    if (reference.status == RunStatus::Error) {
      std::cerr << launch.kernel << ": the interpreter failed: "
                << (reference.error ? reference.error->message : std::string("?")) << "\n";
      return 1;
    }
    json described = json::array();
    for (size_t p = 0; p < args.size(); ++p)
      described.push_back(describe(*func, p, args[p]));
    if (!launch.assertMessages.empty()) // the error flag (docs/opencl-emitter.md, Asserts)
      described.push_back({{"buffer", "int32"}, {"data", {0}}});
    json description = {
        {"kernel", launch.kernel}, {"global", launch.globalSize}, {"local", launch.localSize}, {"args", described}};
    std::ofstream(argsPath) << description.dump();
    int status = std::system(("'" + runner + "' '" + cl + "' '" + argsPath + "' '" + out + "'").c_str());
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
      return 77;
    if (status != 0) {
      std::cerr << launch.kernel << ": ocl_runner failed (" << status << ")\n";
      return 1;
    }
    std::ifstream result(out);
    json actual = json::parse(result).at("args");
    int flag = launch.assertMessages.empty() ? 0 : actual.back().at("data").at(0).get<int>();
    if (reference.status == RunStatus::AssertFailed) {
      // Work-items run on after another one's assert fails, so only the flag is compared.
      std::string message = reference.error ? reference.error->message : std::string();
      bool named = flag > 0 && static_cast<size_t>(flag) <= launch.assertMessages.size() &&
                   message.find(launch.assertMessages[flag - 1]) != std::string::npos;
      std::cerr << launch.kernel << ": the interpreter's assert fails (" << message << "); the kernel reports "
                << (flag ? "assert " + std::to_string(flag) : std::string("none")) << (named ? "" : ": MISMATCH")
                << "\n";
      mismatches += !named;
      continue;
    }
    int bad = compare(launch.kernel, expected, actual);
    if (flag) {
      std::cerr << launch.kernel << ": the kernel reports a failed assert " << flag << "; the interpreter none\n";
      ++bad;
    }
    std::cerr << launch.kernel << ": " << (bad ? "MISMATCH" : "matches the interpreter")
              << (launch.assertMessages.empty() ? "" : " (no assert fails, error flag 0)") << "\n";
    mismatches += bad;
  }
  return mismatches ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 5) {
    std::cerr << "usage: opencl_sample SAMPLE.tir PIPELINE RUNNER WORKDIR\n";
    return 1;
  }
  try {
    return runSample(argv[1], argv[2], argv[3], argv[4]);
  } catch (const std::exception &error) {
    std::cerr << "FAIL: " << error.what() << "\n";
    return 1;
  }
}
