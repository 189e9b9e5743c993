#include <catch2/catch.hpp>

#include <stdexcept>

#include "parse/diagnostic_engine.h"
#include "parse/parser.h"
#include "transform/layout_requirements.h"
#include "transform/passes.h"
#include "transform/target.h"

using namespace tirlower;

namespace {

const char *kInput = R"(from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((1, 4, 4, 8), "float32", layout="NHWC"), B: T.Buffer((1, 2, 4, 4, 4), "float32", scope="global.texture", axis_separators=[3], layout="NCHW4c"), C: T.Buffer((2, 3), "float32")):
    T.func_attr({"layout_requirements": {"A": "NHWC"}})
    scratch = T.alloc_buffer((4, 4), "float32", layout="HW")
    T.evaluate(0)
)";

struct Fixture {
  SourceManager sources;
  DiagnosticCollector diagnostics;
  Module module;
  Fixture() {
    uint32_t id = sources.addFile("in.tir", kInput);
    std::optional<Module> parsed = parseModule(sources, id, diagnostics);
    REQUIRE(parsed);
    module = *parsed;
  }
  const PrimFuncNode &func() const { return *module.functions.at(0); }
};

LayoutRequirement requirement(const std::string &buffer, const std::string &spec) {
  LayoutRequirement r;
  r.buffer = buffer;
  REQUIRE(parseRequirementSpec(spec, r));
  return r;
}

std::string reasons(const BufferNode &buffer, const LayoutRequirement &r) {
  std::string text;
  for (const std::string &reason : unmetRequirement(buffer, r))
    text += (text.empty() ? "" : " | ") + reason;
  return text;
}

} // namespace

TEST_CASE("requirement specs", "[layout]") {
  LayoutRequirement r;
  CHECK(parseRequirementSpec("NCHW4c:texture", r));
  CHECK(r.texture);
  CHECK(r.layout.name() == "NCHW4c");
  CHECK(r.spec() == "NCHW4c:texture");
  LayoutParseError error;
  CHECK_FALSE(parseRequirementSpec("NHWC:texture", r, &error));
  CHECK(error.message == "a texture layout must end in a split of 4 (one RGBA texel), such as NCHW4c:texture");
  CHECK_FALSE(parseRequirementSpec("NCHW8c:texture", r, &error));
  CHECK_FALSE(parseRequirementSpec("NHWC:tex", r, &error));
  CHECK(error.offset == 4);
  CHECK_FALSE(parseRequirementSpec("NH-C", r, &error));
  CHECK(error.offset == 2);
}

TEST_CASE("the pass option require", "[layout]") {
  std::vector<LayoutRequirement> parsed = parseRequireOption({"require", "'A=NCHW4c:texture; B = NCHW'"}).value();
  REQUIRE(parsed.size() == 2);
  CHECK(parsed[0].buffer == "A");
  CHECK(parsed[0].texture);
  CHECK(parsed[1].buffer == "B");
  CHECK(parsed[1].layout.name() == "NCHW");
  CHECK(parsed[1].origin == LayoutRequirement::Origin::PassOption);
  CHECK(parseRequireOption({"require", ""}).value().empty());
  RequireOptionError error;
  CHECK_FALSE(parseRequireOption({"require", "NCHW"}, &error));
  CHECK(error.missingEquals);
  CHECK(error.message == "expects BUFFER=LAYOUT entries separated by ';', got 'NCHW'");
  CHECK_FALSE(parseRequireOption({"require", "A=NCHW; =NCHW"}, &error));
  CHECK(error.message == "expects BUFFER=LAYOUT entries separated by ';', got '=NCHW'");
  CHECK((error.offset == 8 && error.length == 5));
  CHECK_FALSE(parseRequireOption({"require", "B=NCHWc"}));
  CHECK_FALSE(parseRequireOption({"require", "'B= NCHWc'"}, &error));
  CHECK_FALSE(error.missingEquals);
  CHECK(error.message == "malformed layout requirement \"NCHWc\" for 'B': split axis 'c' needs a factor (e.g. 4c)");
  CHECK(error.offset == 8); // the 'c' of NCHWc, inside the quotes
  // Where each requirement is written: its layout, inside the value's source range; and which
  // flag gave it, when one did.
  std::vector<LayoutRequirement> located =
      parseRequireOption({"--require-layout", "A=NCHW4c; B=NCHW", SourceRange{7, 10, 26}, "--require-layout"}).value();
  REQUIRE(located.size() == 2);
  CHECK((located[0].loc.fileId == 7 && located[0].loc.begin == 12 && located[0].loc.end == 18));
  CHECK((located[1].loc.begin == 22 && located[1].loc.end == 26));
  CHECK(located[1].origin == LayoutRequirement::Origin::CommandLine);
  CHECK_FALSE(parsed[0].loc.valid());
  // The pipeline's check of the option's value.
  CHECK(passOptionsError(verifyLayoutsPassInfo(), {{"require", "B=NCHWc"}}) ==
        "option 'require' of pass 'verify-layouts': malformed layout requirement \"NCHWc\" for 'B': split axis 'c' "
        "needs a factor (e.g. 4c) (at character 5)");
  // The option's declaration says the same: the pipeline parser reports it as a usage error.
  CHECK(passOptionsError(legalizeLayoutsPassInfo(), {{"require", "B"}}).find("got 'B'") != std::string::npos);
  CHECK_FALSE(passOptionsError(verifyLayoutsPassInfo(), {{"mode", "loud"}}).empty());
  CHECK_FALSE(passOptionsError(verifyLayoutsPassInfo(), {{"limit", "1"}}).empty());
  // The passes read the checked option.
  CHECK(requireOptionOf({{"require", "A=NCHW4c;B=NHWC"}}).size() == 2);
  CHECK(requireOptionOf({}).empty());
  // require is repeatable: given twice, or by several --require-layout flags, every value counts.
  CHECK(passOptionsError(verifyLayoutsPassInfo(), {{"require", "A=NCHW4c"}, {"require", "B=NHWC"}}).empty());
  PassOptions flags = {{"--require-layout", "A=NCHW4c"}, {"--require-layout", "B=NHWC;C=NCHW"}};
  PassOptions created = passOptionsWithDefaults(verifyLayoutsPassInfo(), {}, flags);
  std::vector<LayoutRequirement> fromFlags = requireOptionOf(created);
  REQUIRE(fromFlags.size() == 3);
  CHECK((fromFlags[0].buffer == "A" && fromFlags[2].buffer == "C"));
  CHECK(fromFlags[0].origin == LayoutRequirement::Origin::CommandLine);
  // What the pipeline gives replaces the flags.
  CHECK(requireOptionOf(passOptionsWithDefaults(verifyLayoutsPassInfo(), {{"require", "Z=NCHW"}}, flags)).size() == 1);
}

TEST_CASE("requirements of a function and the buffers they name", "[layout]") {
  Fixture fx;
  const PrimFuncNode &func = fx.func();
  REQUIRE(func.layoutRequirements.size() == 1);
  CHECK(func.layoutRequirements[0].origin == LayoutRequirement::Origin::FuncAttr);
  CHECK(findBufferNamed(func, "scratch")->layout.view() == "HW");
  CHECK(findBufferNamed(func, "A")->rank() == 4);
  CHECK_FALSE(findBufferNamed(func, "Z"));

  std::vector<BufferRequirement> all = requirementsOf(func, {requirement("scratch", "WH")}, nullptr);
  REQUIRE(all.size() == 2);
  CHECK(all[1].buffer->name.view() == "scratch");
  // The OpenCL target adds its texture role for B (global.texture, N, C, H, W).
  std::vector<BufferRequirement> opencl = requirementsOf(func, {}, findTarget("opencl"));
  REQUIRE(opencl.size() == 2);
  CHECK(opencl[1].requirement.origin == LayoutRequirement::Origin::Target);
  CHECK(opencl[1].requirement.spec() == "NCHW4c:texture");
  CHECK(unmetRequirement(*opencl[1].buffer, opencl[1].requirement).empty());

  CHECK_THROWS_AS(checkRequirementsApply(fx.module, {requirement("Z", "N")}, "verify-layouts"), CompileError);
  CHECK_NOTHROW(checkRequirementsApply(fx.module, {requirement("C", "**")}, "verify-layouts"));
}

TEST_CASE("what a buffer does not satisfy", "[layout]") {
  Fixture fx;
  const PrimFuncNode &func = fx.func();
  const BufferNode &a = *findBufferNamed(func, "A"), &b = *findBufferNamed(func, "B"), &c = *findBufferNamed(func, "C");
  CHECK(reasons(a, requirement("A", "NHWC")) == "");
  CHECK(reasons(a, requirement("A", "N**C")) == "");
  CHECK(reasons(a, requirement("A", "NCHW")) == "dimension 1 is 'H' instead of 'C'");
  CHECK(reasons(a, requirement("A", "N[a=128]HWC")) == "");
  CHECK(reasons(a, requirement("A", "N[a=256]HWC")) ==
        "dimension 0 must be aligned to 256 elements but its stride is 128");
  CHECK(reasons(a, requirement("A", "NCHW4c:texture")) ==
        "the buffer has 4 dimensions but \"NCHW4c\" has 5 dimensions | a texture is in scope \"global.texture\", "
        "not \"global\" | a texture's innermost extent is 4 (one RGBA texel) | a texture has one axis separator, "
        "before its last two dimensions (axis_separators=[3])");
  CHECK(reasons(b, requirement("B", "NCHW4c:texture")) == "");
  CHECK(reasons(c, requirement("C", "**")) == "");
  CHECK(reasons(c, requirement("C", "*")) == "");
  CHECK(reasons(c, requirement("C", "HW")) == "it has no layout annotation");
  CHECK(reasons(c, requirement("C", "NHW")) ==
        "it has no layout annotation | the buffer has 2 dimensions but \"NHW\" has 3 dimensions");
}
