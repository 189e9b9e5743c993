// The TVM reference test: every file of the corpus TVM 0.27 printed (test/tvm/corpus and
// test/tvm/corpus-gpu, made by scripts/gen-tvm-corpus) is parsed unmodified and run on the
// inputs TVM was given, each way compared with the outputs TVM's own LLVM build computed:
//   interp     the reference interpreter on the function as read (GPU kernels: every thread
//              of every block simulated, barriers honoured, shared storage checked for races);
//   c          the C target's default pipeline, the C emitter, the system C compiler (-O2, with
//              -Wall -Wextra -Werror), called through a shim;
//   llvm       the LLVM target's default pipeline, JIT-compiled at -O3;
//   opencl     the OpenCL target's default pipeline and emitter, the kernel run on the OpenCL
//              CPU device (PoCL) by RUNNER with the launch geometry tirlower computes;
//   semantics  the OpenCL target's pipeline with every pass's output run by the interpreter on
//              TVM's inputs and compared with the function as read (--verify-semantics);
//   opencl-interp  the OpenCL target's pipeline, the lowered function run by the interpreter;
//   opencl-build  that, and the emitted source compiled by CLANG as OpenCL C 2.0 with the
//              sub-group extensions (-Wall -Wextra -Werror): for kernels of sub-group functions,
//              which PoCL cannot run.
//   tvm_corpus [--workdir=DIR] [--ways=interp,c,llvm] [--ocl-runner=RUNNER] [--subgroup-size=N]
//              [--clang=CLANG] FILE.tir...
// --subgroup-size=N: the kernels' warps have N lanes: the OpenCL pipeline and emitter take it as
// tirlower's --subgroup-size, the interpreter as --warp-size.
// FILE is NAME.STAGE.tir; its data are NAME.in.json (the inputs) and NAME.out.json (every
// buffer after TVM's run, and "tolerance": {"kind": "exact"} or {"kind": "float", "rtol": R,
// "atol": A}), both in the format of docs/run-json.md; a function over symbolic extents has
// one pair per run instead, NAME.KEY.in.json and NAME.KEY.out.json (KEY such as n7: the
// extents are the files' "scalars"), and each way runs it once per pair. Integers and bools always compare
// exactly; floats bit for bit under "exact" (any NaN matches any NaN), else within
// |got - want| <= atol + rtol * |want|. One PASS/FAIL line per file and way (SKIP for opencl
// without an OpenCL CPU device); exit 0 when none fails.
#include <dlfcn.h>

#include <algorithm>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "c_harness.h"
#include "codegen/c_emitter.h"
#include "codegen/llvm/llvm_emitter.h"
#include "codegen/opencl/launch_json.h"
#include "codegen/opencl/opencl_emitter.h"
#include "interp/run_json.h"
#include "interp/semantic_check.h"
#include "parse/parser.h"
#include "transform/pass_manager.h"
#include "transform/pipeline.h"
#include "transform/target.h"

namespace tirlower {
namespace {

struct Tolerance {
  bool exact = true;
  double rtol = 0, atol = 0;
};

class CollectingSink : public DiagnosticSink {
public:
  void report(Diagnostic d) override {
    if (d.severity == Severity::Error)
      messages += "    " + d.message + "\n";
  }
  std::string messages;
};

std::string readFile(const std::filesystem::path &path) {
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("cannot open " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Compares every buffer parameter with TVM's; describes the first difference of each.
bool compareWithTvm(const PrimFuncNode &func, const std::vector<ArgValue> &want, const std::vector<ArgValue> &got,
                    const Tolerance &tolerance, std::string &report) {
  bool ok = true;
  for (size_t p = 0; p < want.size(); ++p) {
    if (!want[p].isBuffer())
      continue;
    const BufferData &w = *want[p].buffer, &g = *got[p].buffer;
    DataType t = w.elementType();
    size_t differing = 0, first = 0;
    double worst = 0;
    for (size_t k = 0; k < w.size(); ++k) {
      bool same;
      if (!t.isFloat()) {
        same = t.isUInt() ? w.getUInt(k) == g.getUInt(k) : w.getInt(k) == g.getInt(k);
      } else {
        double a = g.getFloat(k), b = w.getFloat(k);
        if (std::isnan(a) || std::isnan(b))
          same = std::isnan(a) && std::isnan(b);
        else if (tolerance.exact || std::isinf(a) || std::isinf(b))
          same = a == b && std::signbit(a) == std::signbit(b);
        else {
          double error = std::fabs(a - b), bound = tolerance.atol + tolerance.rtol * std::fabs(b);
          same = error <= bound;
          worst = std::max(worst, error / (bound > 0 ? bound : 1));
        }
      }
      if (!same && differing++ == 0)
        first = k;
    }
    if (!differing)
      continue;
    ok = false;
    report += "    buffer '" + func.params[p]->name.str() + "' differs from TVM in " + std::to_string(differing) +
              " of " + std::to_string(w.size()) + " elements; first at " + std::to_string(first) + ": TVM " +
              cdiff::elementText(w, first) + ", got " + cdiff::elementText(g, first) + "\n";
  }
  return ok;
}

// No OpenCL platform or CPU device: the opencl way is skipped.
struct NoOpenCLDevice {};

// Compares each pass's output of the OpenCL pipeline with the function as read.
class SemanticInstrumentation : public PassInstrumentation {
public:
  explicit SemanticInstrumentation(const SemanticChecker &checker) : checker_(checker) {}
  void beforePass(const PassInstance &, const Module &) override {}
  void afterPass(const PassInstance &instance, const Module &, const Module &after, bool identical) override {
    reassociated_ |= instance.info->reassociates;
    if (!failure && !identical)
      failure = checker_.check(after, instance.info->name, reassociated_);
  }
  std::optional<Diagnostic> failure;

private:
  const SemanticChecker &checker_;
  bool reassociated_ = false;
};

class Tester {
public:
  Tester(std::string workdir, std::vector<std::string> ways, std::string runner, int subgroupSize, std::string clang)
      : workdir_(std::move(workdir)), ways_(std::move(ways)), runner_(std::move(runner)), subgroupSize_(subgroupSize),
        clang_(std::move(clang)) {
    if (subgroupSize_) {
      flags_.emplace_back("--subgroup-size", std::to_string(subgroupSize_));
      runOptions_.warpSize = subgroupSize_;
    }
  }

  int run(const std::vector<std::string> &files) {
    int failed = 0, total = 0, skipped = 0;
    for (const std::string &file : files) {
      for (const std::string &way : ways_)
        for (const std::string &data : dataSets(file, way == "semantics")) { // semantics: random inputs
          std::string report;
          bool ok = false, skip = false;
          try {
            ok = testFile(file, data, way, report);
          } catch (const NoOpenCLDevice &) {
            skip = true;
          } catch (const std::exception &error) {
            report += "    " + std::string(error.what()) + "\n";
          }
          std::cout << (skip ? "SKIP "
                        : ok ? "PASS "
                             : "FAIL ")
                    << way << " " << std::filesystem::path(file).filename().string()
                    << (data.empty() ? "" : " " + data.substr(1)) << "\n"
                    << report << std::flush;
          skipped += skip;
          failed += !ok && !skip;
          ++total;
        }
    }
    std::cout << total - failed - skipped << " of " << total << " runs match TVM"
              << (skipped ? " (" + std::to_string(skipped) + " skipped: no OpenCL CPU device)" : "") << "\n";
    if (failed)
      return 1;
    return 0;
  }

private:
  // "" for NAME.in.json, else ".KEY" for each NAME.KEY.in.json, sorted.
  static std::vector<std::string> dataSets(const std::string &file, bool firstOnly) {
    std::filesystem::path path(file);
    std::string stem = path.filename().string();
    stem = stem.substr(0, stem.find('.'));
    std::filesystem::path dir = path.parent_path().empty() ? "." : path.parent_path();
    if (std::filesystem::exists(dir / (stem + ".in.json")))
      return {""};
    std::vector<std::string> keys;
    for (const auto &entry : std::filesystem::directory_iterator(dir)) {
      std::string name = entry.path().filename().string(), tail = ".in.json";
      if (name.size() > stem.size() + tail.size() + 1 && name.rfind(stem + ".", 0) == 0 &&
          name.compare(name.size() - tail.size(), tail.size(), tail) == 0) {
        std::string key = name.substr(stem.size(), name.size() - stem.size() - tail.size());
        if (key.find('.', 1) == std::string::npos)
          keys.push_back(key);
      }
    }
    std::sort(keys.begin(), keys.end());
    if (firstOnly && keys.size() > 1)
      keys.resize(1);
    if (keys.empty())
      throw std::runtime_error("no " + stem + ".in.json or " + stem + ".KEY.in.json beside " + file);
    return keys;
  }

  bool testFile(const std::string &file, const std::string &data, const std::string &way, std::string &report) {
    std::filesystem::path path(file);
    std::string stem = path.filename().string();
    stem = stem.substr(0, stem.find('.')); // NAME.STAGE.tir -> NAME
    std::filesystem::path dir = path.parent_path();
    std::string inputs = readFile(dir / (stem + data + ".in.json")),
                outputs = readFile(dir / (stem + data + ".out.json"));
    Tolerance tolerance;
    nlohmann::json out = nlohmann::json::parse(outputs);
    if (out.contains("tolerance") && out["tolerance"].value("kind", "exact") == "float") {
      tolerance.exact = false;
      tolerance.rtol = out["tolerance"].value("rtol", 0.0);
      tolerance.atol = out["tolerance"].value("atol", 0.0);
    }
    std::string functionName = nlohmann::json::parse(inputs).value("function", "");

    SourceManager sources;
    CollectingSink sink;
    uint32_t id = sources.addFile(file, readFile(path));
    std::optional<Module> parsed = parseModule(sources, id, sink, {});
    if (!parsed) {
      report += "    does not parse:\n" + sink.messages;
      return false;
    }
    if (way == "semantics")
      return checkSemantics(*parsed, report, sink);
    std::optional<Module> module = *parsed;
    if (way != "interp") {
      const Target *target = findTarget(way == "opencl-build" || way == "opencl-interp" ? "opencl" : way);
      module = cdiff::lowerModule(*parsed, target->pipeline, sink, flags_);
      if (!module) {
        report += "    the " + way + " pipeline fails:\n" + sink.messages;
        return false;
      }
    }
    size_t index = 0;
    while (index < module->functions.size() && module->functions[index]->name.str() != functionName)
      ++index;
    if (index == module->functions.size()) {
      if (module->functions.size() != 1)
        throw std::runtime_error("no function '" + functionName + "' in " + file);
      index = 0;
    }
    const PrimFunc &func = module->functions[index];
    std::vector<ArgValue> args = makeArgsFromJson(func, inputs, 0);
    std::vector<ArgValue> want = makeArgsFromJson(func, outputs, 0);
    if (way == "opencl-build" && !buildOpenCL(*module, path.filename().string() + data, sink, report))
      return false;
    if (way == "interp" || way == "opencl-build" || way == "opencl-interp") {
      RunResult result = tirlower::run(func, args, runOptions_);
      if (!result.ok()) {
        report += "    the interpreter stops: " + cdiff::describe(result) + "\n";
        return false;
      }
    } else if (way == "c") {
      if (!runC(*module, index, args, stem + data + "." + path.filename().string(), sink, report))
        return false;
    } else if (way == "opencl") {
      if (!runOpenCL(*module, index, args, path.filename().string() + data, sink, report))
        return false;
    } else {
      LLVMEmitOptions options;
      options.optLevel = 3;
      JitModule jit(*module, options, true);
      std::vector<std::vector<uint8_t>> scalars;
      std::vector<void *> pointers = cdiff::shimArguments(args, scalars);
      if (int32_t rc = jit.callPacked(llvmSymbolName(*func), pointers.data()); rc != 0) {
        report += "    the function returned " + std::to_string(rc) + "\n";
        return false;
      }
    }
    return compareWithTvm(*func, want, args, tolerance, report);
  }

  bool runC(const Module &module, size_t index, std::vector<ArgValue> &args, const std::string &stem,
            DiagnosticSink &sink, std::string &report) {
    std::string source = emitC(module, CEmitOptions{}, sink);
    std::vector<std::string> symbols = cdiff::definedSymbols(source);
    if (symbols.size() != module.functions.size()) {
      report += "    the C source defines " + std::to_string(symbols.size()) + " functions for " +
                std::to_string(module.functions.size()) + "\n";
      return false;
    }
    std::string c = workdir_ + "/" + stem + ".c", so = workdir_ + "/" + stem + ".so", output;
    std::ofstream(c) << source << "\n" << cdiff::callShim(*module.functions[index], index, symbols[index]);
    std::string command =
        "cc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -o " + cdiff::quote(so) + " " + cdiff::quote(c) + " -lm";
    if (cdiff::shell(command, output) != 0) {
      report += "    the emitted C does not compile (" + c + "):\n" + output;
      return false;
    }
    void *library = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      report += "    dlopen: " + std::string(dlerror()) + "\n";
      return false;
    }
    using Shim = int32_t (*)(void **);
    auto shim = reinterpret_cast<Shim>(dlsym(library, ("tl_call_" + std::to_string(index)).c_str()));
    std::vector<std::vector<uint8_t>> scalars;
    std::vector<void *> pointers = cdiff::shimArguments(args, scalars);
    int32_t rc = shim(pointers.data());
    dlclose(library);
    if (rc != 0) {
      report += "    the function returned " + std::to_string(rc) + "\n";
      return false;
    }
    return true;
  }

  // The OpenCL pipeline, pass by pass, against the interpreter's run of the function as read
  // (random inputs, as --verify-semantics).
  bool checkSemantics(const Module &parsed, std::string &report, CollectingSink &sink) {
    SemanticCheckOptions options;
    options.run = runOptions_;
    SemanticChecker checker(parsed, options);
    for (const Diagnostic &d : checker.skipped())
      report += "    not checked: " + d.message + "\n";
    if (checker.checkedFunctions() == 0)
      return false;
    PassManager passes;
    for (const PipelineEntry &entry : parsePipeline(findTarget("opencl")->pipeline, PassRegistry::builtin()))
      passes.add(entry, flags_);
    PassContext context{sink};
    SemanticInstrumentation instrumentation(checker);
    std::optional<Module> lowered = passes.run(parsed, context, &instrumentation);
    if (!lowered) {
      report += "    the opencl pipeline fails:\n" + sink.messages;
      return false;
    }
    if (instrumentation.failure) {
      report += "    " + instrumentation.failure->message + "\n";
      return false;
    }
    return true;
  }

  static nlohmann::json element(const BufferData &data, size_t k) {
    DataType t = data.elementType();
    if (t.isFloat())
      return data.getFloat(k);
    if (t.isUInt() || t.isBool())
      return data.getUInt(k);
    return data.getInt(k);
  }

  // Emits the module's OpenCL and compiles it with clang as OpenCL C 2.0 with the sub-group
  // extensions declared, warnings as errors.
  bool buildOpenCL(const Module &module, const std::string &stem, DiagnosticSink &sink, std::string &report) {
    if (clang_.empty())
      throw std::runtime_error("the opencl-build way needs --clang=PATH");
    std::string source;
    try {
      source = emitOpenCL(module, sink, {subgroupSize_});
    } catch (const CompileError &error) {
      report += "    the OpenCL emitter rejects it: " + std::string(error.what()) + "\n";
      return false;
    }
    std::string cl = workdir_ + "/" + stem + ".cl", output;
    std::ofstream(cl) << source;
    std::string command = cdiff::quote(clang_) +
                          " -x cl -cl-std=CL2.0 -target spir64 -Xclang -finclude-default-header -Xclang "
                          "-cl-ext=+cl_khr_subgroups,+cl_khr_subgroup_shuffle,+cl_khr_subgroup_shuffle_relative "
                          "-fsyntax-only -Wall -Wextra -Werror " +
                          cdiff::quote(cl);
    if (cdiff::shell(command, output) != 0) {
      report += "    the emitted OpenCL does not compile (" + cl + "):\n" + output;
      return false;
    }
    return true;
  }

  // Emits the module's OpenCL, runs function `index` on PoCL with its launch geometry and
  // copies the buffers back into `args`.
  bool runOpenCL(const Module &module, size_t index, std::vector<ArgValue> &args, const std::string &stem,
                 DiagnosticSink &sink, std::string &report) {
    if (runner_.empty())
      throw std::runtime_error("the opencl way needs --ocl-runner=PATH");
    std::string source;
    std::vector<KernelLaunch> launches;
    try {
      source = emitOpenCL(module, sink, {subgroupSize_});
      launches = launchGeometry(module);
    } catch (const CompileError &error) {
      report += "    the OpenCL emitter rejects it: " + std::string(error.what()) + "\n";
      return false;
    }
    const KernelLaunch &launch = launches.at(index);
    nlohmann::json described = nlohmann::json::array();
    for (size_t a = 0; a < args.size(); ++a) {
      const ArgValue &arg = args[a];
      if (!arg.isBuffer()) {
        described.push_back(
            {{"scalar", arg.type.str()},
             {"value", arg.type.isFloat() ? nlohmann::json(arg.floatValue) : nlohmann::json(arg.intValue)},
             {"name", launch.args.at(a)}});
        continue;
      }
      const BufferData &data = *arg.buffer;
      nlohmann::json values = nlohmann::json::array();
      for (size_t k = 0; k < data.size(); ++k)
        values.push_back(element(data, k));
      described.push_back(
          {{"buffer", data.elementType().isBool() ? "uint8" : data.elementType().str()}, {"data", std::move(values)}});
    }
    if (!launch.assertMessages.empty())
      described.push_back({{"buffer", "int32"}, {"data", {0}}});
    // The sizes as --emit=launch writes them (expressions of the scalars where they depend on
    // them): ocl_runner evaluates them.
    nlohmann::json geometry = nlohmann::json::parse(emitLaunchJson(module, sink)).at("kernels").at(index);
    nlohmann::json description = {{"kernel", launch.kernel},
                                  {"global", geometry.at("global")},
                                  {"local", geometry.at("local")},
                                  {"args", described}};
    std::string cl = workdir_ + "/" + stem + ".cl", argsPath = workdir_ + "/" + stem + ".args.json",
                out = workdir_ + "/" + stem + ".out.json", output;
    std::ofstream(cl) << source;
    std::ofstream(argsPath) << description.dump();
    int status = cdiff::shell(cdiff::quote(runner_) + " " + cdiff::quote(cl) + " " + cdiff::quote(argsPath) + " " +
                                  cdiff::quote(out),
                              output);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
      throw NoOpenCLDevice{};
    if (status != 0) {
      report += "    ocl_runner fails (" + cl + "):\n" + output;
      return false;
    }
    nlohmann::json actual = nlohmann::json::parse(readFile(out)).at("args");
    if (!launch.assertMessages.empty() && actual.back().at("data").at(0).get<int>() != 0) {
      report += "    the kernel reports a failed assert\n";
      return false;
    }
    for (size_t p = 0; p < args.size(); ++p) {
      if (!args[p].isBuffer())
        continue;
      BufferData &data = *args[p].buffer;
      const nlohmann::json &values = actual.at(p).at("data");
      for (size_t k = 0; k < data.size(); ++k) {
        if (data.elementType().isFloat())
          data.setFloat(k, values.at(k).is_null() ? std::nan("") : values.at(k).get<double>());
        else if (data.elementType().isUInt() || data.elementType().isBool())
          data.setUInt(k, values.at(k).get<uint64_t>());
        else
          data.setInt(k, values.at(k).get<int64_t>());
      }
    }
    return true;
  }

  std::string workdir_;
  std::vector<std::string> ways_;
  std::string runner_;
  int subgroupSize_;
  std::string clang_;
  PassOptions flags_;
  RunOptions runOptions_;
};

} // namespace
} // namespace tirlower

int main(int argc, char **argv) {
  using namespace tirlower;
  std::string workdir = (std::filesystem::temp_directory_path() / "tirlower-tvm-corpus").string();
  std::vector<std::string> ways = {"interp", "c", "llvm"}, files;
  std::string runner, clang;
  int subgroupSize = 0;
  for (int k = 1; k < argc; ++k) {
    std::string arg = argv[k];
    if (arg.rfind("--workdir=", 0) == 0) {
      workdir = arg.substr(10);
    } else if (arg.rfind("--clang=", 0) == 0) {
      clang = arg.substr(8);
    } else if (arg.rfind("--subgroup-size=", 0) == 0) {
      subgroupSize = std::stoi(arg.substr(16));
    } else if (arg.rfind("--ocl-runner=", 0) == 0) {
      runner = arg.substr(13);
    } else if (arg.rfind("--ways=", 0) == 0) {
      ways.clear();
      std::stringstream list(arg.substr(7));
      for (std::string way; std::getline(list, way, ',');) {
        if (way != "interp" && way != "c" && way != "llvm" && way != "opencl" && way != "semantics" &&
            way != "opencl-build" && way != "opencl-interp") {
          std::cerr << "tvm_corpus: unknown way '" << way
                    << "' (interp, c, llvm, opencl, semantics, opencl-interp, opencl-build)\n";
          return 2;
        }
        ways.push_back(way);
      }
    } else {
      files.push_back(arg);
    }
  }
  std::filesystem::create_directories(workdir);
  try {
    return Tester(workdir, ways, runner, subgroupSize, clang).run(files);
  } catch (const std::exception &error) {
    std::cerr << "FAIL: " << error.what() << "\n";
    return 1;
  }
}
