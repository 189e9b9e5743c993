// OpenCL emitter tests: emit hand-built flattened PrimFuncs, syntax-check the source with
// clang-15 when it is installed, run the kernels on PoCL through ocl_runner (a separate process
// that does not link LLVM), and compare with values computed here.
//   opencl_test CASE RUNNER WORKDIR     exit 0 pass, 1 fail, 77 skip (no OpenCL CPU device)
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "codegen/opencl/opencl_emitter.h"
#include "test_kernels.h"

namespace {

using namespace tirlower;
using namespace tirlower::opencl_test;
using nlohmann::json;

struct Skip {};

struct Context {
  std::string runner, dir;
  int failures = 0;
};
Context ctx;

void expect(bool ok, const std::string &what) {
  if (ok)
    return;
  ++ctx.failures;
  std::cerr << "FAIL: " << what << "\n";
}

class CollectingSink : public DiagnosticSink {
public:
  void report(Diagnostic d) override { diagnostics.push_back(std::move(d)); }
  std::vector<Diagnostic> diagnostics;
};

Module moduleOf(const PrimFunc &func) {
  Module module;
  module.functions = {func};
  return module;
}

std::string emit(const PrimFunc &func) {
  CollectingSink sink;
  return emitOpenCL(moduleOf(func), sink);
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

std::string writeFile(const std::string &name, const std::string &text) {
  std::string path = ctx.dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

void syntaxCheck(const std::string &name, const std::string &source) {
  if (std::system("command -v clang-15 >/dev/null 2>&1") != 0) {
    std::cerr << "note: clang-15 not found, syntax check skipped\n";
    return;
  }
  std::string path = writeFile(name + ".check.cl", source);
  std::string command =
      "clang-15 -x cl -cl-std=CL1.2 -fsyntax-only -Werror -Xclang -finclude-default-header '" + path + "'";
  expect(std::system(command.c_str()) == 0, name + ": clang-15 syntax check of " + path);
}

// Emits, checks and runs `func` with `args`; returns the output arguments.
json run(const PrimFunc &func, const json &args) {
  std::string source = emit(func);
  std::string name = func->globalSymbol();
  std::cerr << source;
  syntaxCheck(name, source);
  KernelLaunch launch = launchGeometry(moduleOf(func)).front();
  json description = {
      {"kernel", launch.kernel}, {"global", launch.globalSize}, {"local", launch.localSize}, {"args", args}};
  std::string cl = writeFile(name + ".cl", source);
  std::string in = writeFile(name + ".args.json", description.dump());
  std::string out = ctx.dir + "/" + name + ".out.json";
  int status = std::system(("'" + ctx.runner + "' '" + cl + "' '" + in + "' '" + out + "'").c_str());
  if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
    throw Skip{};
  if (status != 0) {
    expect(false, name + ": ocl_runner exit status " + std::to_string(status));
    return json::array();
  }
  std::ifstream result(out);
  return json::parse(result).at("args");
}

std::vector<float> randomFloats(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(gen);
  return v;
}

void expectFloats(const json &actual, const std::vector<float> &expected, const std::string &what) {
  bool sizeOk = actual.size() == expected.size();
  expect(sizeOk, what + ": size " + std::to_string(actual.size()) + " != " + std::to_string(expected.size()));
  if (!sizeOk)
    return;
  for (size_t k = 0; k < expected.size(); ++k) {
    float a = actual[k].get<float>(), e = expected[k];
    if (std::fabs(a - e) > 1e-6f * std::max(1.0f, std::fabs(e))) {
      expect(false, what + "[" + std::to_string(k) + "] = " + std::to_string(a) + ", expected " + std::to_string(e));
      return;
    }
  }
}

void expectInts(const json &actual, const std::vector<int32_t> &expected, const std::string &what) {
  expect(actual.get<std::vector<int32_t>>() == expected, what + " differs: " + actual.dump());
}

// ---- cases ------------------------------------------------------------------------------------

void testAdd() {
  std::string source = emit(elementwiseAdd());
  expect(contains(source, "__kernel void add(__global const float* restrict A"), "add: signature");
  expect(contains(source, "get_group_id(0)") && contains(source, "get_local_id(0)"), "add: thread ids");
  expect(contains(source, "// launch add: global {256, 1, 1}, local {64, 1, 1}"), "add: geometry comment");
  KernelLaunch launch = launchGeometry(moduleOf(elementwiseAdd())).front();
  expect(launch.args == std::vector<std::string>{"A", "B", "C"}, "add: launch args");
  std::vector<float> a = randomFloats(256, 1), b = randomFloats(256, 2), expected(256);
  for (size_t k = 0; k < 256; ++k)
    expected[k] = a[k] + b[k];
  json out = run(elementwiseAdd(), json::array({{{"buffer", "float32"}, {"data", a}},
                                                {{"buffer", "float32"}, {"data", b}},
                                                {{"buffer", "float32"}, {"size", 256}}}));
  expectFloats(out.at(2).at("data"), expected, "add C");
}

void testVectorScale() {
  std::string source = emit(vectorScale());
  expect(contains(source, "vload4(0, A + "), "scale4: vload4 of a ramp");
  expect(contains(source, "vstore4("), "scale4: vstore4 through the float32x4 alias");
  expect(contains(source, "select("), "scale4: vector select");
  expect(contains(source, "__global float* restrict B"), "scale4: B stays a scalar pointer");
  std::vector<float> a = randomFloats(64, 3), expected(64);
  for (size_t k = 0; k < 64; ++k)
    expected[k] = a[k] > 0 ? a[k] * 2 + 1 : 0;
  json out =
      run(vectorScale(), json::array({{{"buffer", "float32"}, {"data", a}}, {{"buffer", "float32"}, {"size", 64}}}));
  expectFloats(out.at(1).at("data"), expected, "scale4 B");
}

void testFloorDivision() {
  std::vector<int32_t> a(32), b(32), q(32), r(32);
  std::mt19937 gen(4);
  for (size_t k = 0; k < 32; ++k) {
    a[k] = static_cast<int32_t>(gen() % 41) - 20;
    do
      b[k] = static_cast<int32_t>(gen() % 15) - 7;
    while (b[k] == 0);
    q[k] = static_cast<int32_t>(std::floor(static_cast<double>(a[k]) / b[k]));
    r[k] = a[k] - q[k] * b[k];
  }
  json out = run(floorDivision(), json::array({{{"buffer", "int32"}, {"data", a}},
                                               {{"buffer", "int32"}, {"data", b}},
                                               {{"buffer", "int32"}, {"size", 32}},
                                               {{"buffer", "int32"}, {"size", 32}},
                                               {{"buffer", "int32"}, {"size", 32}},
                                               {{"buffer", "int32"}, {"size", 32}}}));
  expectInts(out.at(2).at("data"), q, "floordiv scalar");
  expectInts(out.at(3).at("data"), r, "floormod scalar");
  expectInts(out.at(4).at("data"), q, "floordiv int4");
  expectInts(out.at(5).at("data"), r, "floormod int4");
}

void testTexture() {
  std::string pack = emit(packTexture()), unpack = emit(unpackTexture());
  expect(contains(pack, "__write_only image2d_t Y") && contains(pack, "write_imagef(Y, (int2)("), "pack: image write");
  expect(contains(unpack, "__read_only image2d_t Y") && contains(unpack, "read_imagef(Y, tl_sampler, (int2)("),
         "unpack: image read");
  constexpr int rows = kN * kC / 4 * kH, count = kN * kH * kW * kC;
  std::vector<float> x = randomFloats(count, 5), image(count);
  for (int n = 0; n < kN; ++n)
    for (int h = 0; h < kH; ++h)
      for (int w = 0; w < kW; ++w)
        for (int ch = 0; ch < kC; ++ch) {
          int row = (n * (kC / 4) + ch / 4) * kH + h;
          image[(row * kW + w) * 4 + ch % 4] = x[((n * kH + h) * kW + w) * kC + ch];
        }
  json packed = run(packTexture(), json::array({{{"buffer", "float32"}, {"data", x}}, {{"image", {kW, rows}}}}));
  expectFloats(packed.at(1).at("data"), image, "pack image");
  json unpacked =
      run(unpackTexture(),
          json::array({{{"image", {kW, rows}}, {"data", image}}, {{"buffer", "float32"}, {"size", count}}}));
  expectFloats(unpacked.at(1).at("data"), x, "unpack Z");
}

void testShared() {
  std::string source = emit(sharedReverse());
  expect(contains(source, "__local float S[16];") && contains(source, "barrier(CLK_LOCAL_MEM_FENCE);"),
         "shared: __local storage and barrier");
  std::vector<float> a = randomFloats(64, 6), expected(64);
  for (size_t k = 0; k < 64; ++k) {
    float v = a[k / 16 * 16 + 15 - k % 16];
    expected[k] = v * v + v;
  }
  json out =
      run(sharedReverse(), json::array({{{"buffer", "float32"}, {"data", a}}, {{"buffer", "float32"}, {"size", 64}}}));
  expectFloats(out.at(1).at("data"), expected, "shared B");
}

void testGather() {
  std::vector<float> a = randomFloats(32, 7), b(32);
  std::vector<int32_t> c(32, 0);
  for (size_t block = 0; block < 32; block += 8)
    for (size_t k = 0; k < 4; ++k) {
      b[block + k] = a[block + 2 * k];
      b[block + 4 + k] = a[block + 2 * k + 1];
      c[block + 2 * k] = static_cast<int32_t>(a[block + k] * 10.0f);
    }
  json out = run(stridedGather(), json::array({{{"buffer", "float32"}, {"data", a}},
                                               {{"buffer", "float32"}, {"size", 32}},
                                               {{"buffer", "int32"}, {"size", 32}}}));
  expectFloats(out.at(1).at("data"), b, "gather B");
  expectInts(out.at(2).at("data"), c, "scatter C");
}

// Builds on PoCL and runs; work-items race on D, so only the while loop's count is checked.
void testMiscellany() {
  std::string source = emit(miscellany());
  expect(contains(source, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable"), "misc: fp64 pragma");
  expect(contains(source, "__global uchar* restrict flags"), "misc: bool data as uchar");
  expect(contains(source, "__global float4* restrict V4"), "misc: float32x4 parameter as float4*");
  expect(contains(source, "(__global int*)F"), "misc: int32 view of float data");
  expect(contains(source, "if (tx_short < 4)"), "misc: guard of a shorter thread loop");
  json out = run(miscellany(), json::array({{{"buffer", "uint8"}, {"size", 8}},
                                            {{"buffer", "float64"}, {"size", 8}},
                                            {{"buffer", "int8"}, {"size", 8}},
                                            {{"buffer", "uint32"}, {"size", 8}},
                                            {{"buffer", "float32"}, {"size", 32}},
                                            {{"buffer", "float32"}, {"size", 32}}}));
  expect(out.at(3).at("data").at(0) == 3, "misc: while loop count");
}

// A failed assert stores its number in the tl_error argument and ends the work-item.
void testAssert() {
  std::string source = emit(kernelWithAssert());
  expect(contains(source, "__kernel void asserting(__global float* restrict A, int n, __global int* tl_error)"),
         "assert: error flag argument");
  expect(contains(source, "atomic_cmpxchg(tl_error, 0, 2);"), "assert: second assert's number");
  KernelLaunch launch = launchGeometry(moduleOf(kernelWithAssert())).front();
  expect(launch.args.back() == "tl_error" &&
             launch.assertMessages == std::vector<std::string>{"n is positive", "index below n"},
         "assert: launch metadata");
  std::vector<float> initial = randomFloats(8, 8);
  for (int n : {8, 5, 0}) {
    std::vector<float> expected = initial;
    for (int i = 0; i < std::min(n, 8); ++i)
      expected[i] = 1;
    int flag = n <= 0 ? 1 : n < 8 ? 2 : 0;
    json out = run(kernelWithAssert(), json::array({{{"buffer", "float32"}, {"data", initial}},
                                                    {{"scalar", "int32"}, {"value", n}},
                                                    {{"buffer", "int32"}, {"data", {0}}}}));
    expectInts(out.at(2).at("data"), {flag}, "assert flag with n = " + std::to_string(n));
    expectFloats(out.at(0).at("data"), expected, "assert A with n = " + std::to_string(n));
  }
}

void expectError(const PrimFunc &func, const std::vector<std::string> &parts) {
  try {
    emit(func);
    expect(false, func->globalSymbol() + ": expected an emit error");
  } catch (const CompileError &error) {
    for (const std::string &part : parts)
      expect(contains(error.what(), part),
             func->globalSymbol() + ": message '" + error.what() + "' lacks '" + part + "'");
  }
}

void testErrors() {
  expectError(rank2GlobalBuffer(), {"buffer 'M' (flattened as 'M_flat')", "physical rank 2"});
  expectError(textureReadWrite(), {"texture buffer 'Y'", "both read and written"});
  expectError(fiveLaneVector(), {"float32x5"});
}

} // namespace

int main(int argc, char **argv) {
  const std::map<std::string, std::function<void()>> cases = {
      {"add", testAdd},         {"vload", testVectorScale}, {"floordiv", testFloorDivision},
      {"texture", testTexture}, {"shared", testShared},     {"gather", testGather},
      {"misc", testMiscellany}, {"errors", testErrors},     {"assert", testAssert}};
  auto found = argc == 4 ? cases.find(argv[1]) : cases.end();
  if (found == cases.end()) {
    std::cerr << "usage: opencl_test add|vload|floordiv|texture|shared|gather|misc|errors RUNNER WORKDIR\n";
    return 1;
  }
  ctx.runner = argv[2];
  ctx.dir = argv[3];
  try {
    found->second();
  } catch (const Skip &) {
    std::cerr << "skipped: no OpenCL CPU device\n";
    return 77;
  } catch (const std::exception &error) {
    std::cerr << "FAIL: unexpected exception: " << error.what() << "\n";
    return 1;
  }
  return ctx.failures == 0 ? 0 : 1;
}
