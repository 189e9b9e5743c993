#include <catch2/catch.hpp>

#include <stdexcept>

#include "transform/pass_manager.h"
#include "transform/passes.h"

using namespace tirlower;

namespace {
PipelineError pipelineError(const std::string &text) {
  try {
    parsePipeline(text, PassRegistry::builtin());
  } catch (const PipelineError &e) {
    return e;
  }
  FAIL("no error for " << text);
  return PipelineError("", 0, 0);
}
} // namespace

TEST_CASE("declared defaults are filled in and given values kept", "[transform][options]") {
  const PassInfo unroll = unrollPassInfo();
  PassOptions filled = passOptionsWithDefaults(unroll, {});
  REQUIRE(filled.size() == 1);
  CHECK(filled[0] == PassOptionValue("limit", unroll.options[0].defaultValue));
  CHECK(passOptionInteger(filled, "limit") == std::stoll(unroll.options[0].defaultValue));
  CHECK(passOptionInteger(passOptionsWithDefaults(unroll, {{"limit", "7"}}), "limit") == 7);
  // No default: absent unless given.
  const PassInfo verify = verifyLayoutsPassInfo();
  CHECK(passOptionsWithDefaults(verify, {}).empty());
  CHECK(*passOptionText(passOptionsWithDefaults(verify, {{"mode", "warn"}}), "mode") == "warn");
}

TEST_CASE("a tool flag gives the options bound to it that the pipeline does not", "[transform][options]") {
  const PassInfo verify = verifyLayoutsPassInfo();
  const PassOptions flags = {{"--layout-verify", "warn"}, {"--target", "opencl"}};
  PassOptions created = passOptionsWithDefaults(verify, {}, flags);
  CHECK(*passOptionText(created, "mode") == "warn");
  CHECK(*passOptionText(created, "target") == "opencl");
  // What the pipeline gives wins over the flag.
  CHECK(*passOptionText(passOptionsWithDefaults(verify, {{"mode", "error"}}, flags), "mode") == "error");
  // A pass that declares no option bound to a flag gets nothing from the flags.
  CHECK(passOptionsWithDefaults(unrollPassInfo(), {}, flags) == passOptionsWithDefaults(unrollPassInfo(), {}));
}

TEST_CASE("a declared option is read typed, by its declaration", "[transform][options]") {
  const PassOption<int64_t> limit{integerOption("limit", "16", "a limit", 1)};
  const PassOption<std::string> mode{choiceOption("mode", {"a", "b"}, "", "a mode")};
  const PassOption<double> ratio{numberOption("ratio", "0.5", "a ratio")};
  PassInfo info;
  info.name = "p";
  info.options = {limit, mode, ratio};
  CHECK(limit.of(passOptionsWithDefaults(info, {})) == 16);
  CHECK(limit.of(passOptionsWithDefaults(info, {{"limit", "3"}})) == 3);
  CHECK(ratio.of(passOptionsWithDefaults(info, {{"ratio", "2.25"}})) == 2.25);
  CHECK_FALSE(mode.find(passOptionsWithDefaults(info, {})));
  CHECK(mode.find(passOptionsWithDefaults(info, {{"mode", "b"}})) == "b");
  // Read as another type than declared: the pass's bug.
  CHECK_THROWS_AS(PassOption<int64_t>(textOption("t", "", "text")), std::logic_error);
  CHECK_THROWS_AS(PassOption<std::string>(integerOption("n", "1", "n")), std::logic_error);
}

TEST_CASE("values are checked against their declared type", "[transform][options]") {
  const PassInfo unroll = unrollPassInfo();
  const PassOptionInfo &limit = unroll.options[0];
  CHECK(passOptionTypeText(limit) == "integer from 1 to 1048576");
  CHECK(passOptionValueError(unroll, limit, "64").empty());
  CHECK(passOptionValueError(unroll, limit, "0") ==
        "option 'limit' of pass 'unroll' takes an integer from 1 to 1048576, not '0'");
  CHECK(passOptionValueError(unroll, limit, "1048576").empty());
  CHECK_FALSE(passOptionValueError(unroll, limit, "1048577").empty());
  CHECK_FALSE(passOptionValueError(unroll, limit, "12x").empty());
  CHECK_FALSE(passOptionValueError(unroll, limit, "").empty());
  CHECK_FALSE(passOptionValueError(unroll, limit, "99999999999999999999").empty());
  const PassInfo verify = verifyLayoutsPassInfo();
  const PassOptionInfo &mode = *findPassOption(verify, "mode");
  CHECK(passOptionTypeText(mode) == "error|warn");
  CHECK(passOptionValueError(verify, mode, "loud") ==
        "option 'mode' of pass 'verify-layouts' is error|warn, not 'loud'");
  // Text options run their own check.
  const PassOptionInfo &require = *findPassOption(verify, "require");
  CHECK(passOptionValueError(verify, require, "B=NCHW4c").empty());
  CHECK(passOptionValueError(verify, require, "B").rfind("option 'require' of pass 'verify-layouts': ", 0) == 0);
}

TEST_CASE("a pass's options as a whole: the first problem, in the order written", "[transform][options]") {
  const PassInfo unroll = unrollPassInfo();
  CHECK(passOptionsError(unroll, {}).empty());
  CHECK(passOptionsError(unroll, {{"limit", "7"}}).empty());
  CHECK(passOptionsError(unroll, {{"limit", "2"}, {"limit", "3"}}) == "option 'limit' of pass 'unroll' is given twice");
  CHECK(passOptionsError(unroll, {{"limt", "3"}}) == "unknown option 'limt' for pass 'unroll'; did you mean 'limit'?");
  CHECK(passOptionsError(unroll, {{"limit", "0"}, {"limt", "3"}}) ==
        "option 'limit' of pass 'unroll' takes an integer from 1 to 1048576, not '0'");
  const PassInfo legalize = legalizeLayoutsPassInfo();
  CHECK(passOptionsError(legalize, {{"require", "B"}}) ==
        "option 'require' of pass 'legalize-layouts': require expects BUFFER=LAYOUT entries separated by ';', got 'B'");
  CHECK(passOptionsError(legalize, {{"require", "B=NCHW4c"}}).empty());
}

TEST_CASE("unknown options suggest the closest declared one", "[transform][options]") {
  CHECK(unknownPassOptionMessage(unrollPassInfo(), "limt") ==
        "unknown option 'limt' for pass 'unroll'; did you mean 'limit'?");
  CHECK(unknownPassOptionMessage(verifyLayoutsPassInfo(), "xyzzy") ==
        "unknown option 'xyzzy' for pass 'verify-layouts'; valid options: require target mode");
  CHECK(unknownPassOptionMessage(*PassRegistry::builtin().find("flatten"), "x") ==
        "unknown option 'x' for pass 'flatten'; it takes no options");
  // Options reach the pass manager checked (parsePipeline): unchecked bad ones are a bug.
  CHECK_THROWS_AS(PassManager().add(unrollPassInfo(), {{"limt", "3"}}), std::logic_error);
}

TEST_CASE("the pipeline parser locates option errors", "[transform][options]") {
  PipelineError name = pipelineError("simplify,unroll{limt=3}");
  CHECK(std::string(name.what()) == "unknown option 'limt' for pass 'unroll'; did you mean 'limit'?");
  CHECK(name.offset == 16);
  CHECK(name.length == 4);
  PipelineError value = pipelineError("unroll{limit= many }");
  CHECK(std::string(value.what()) == "option 'limit' of pass 'unroll' takes an integer from 1 to 1048576, not 'many'");
  CHECK(value.offset == 14);
  CHECK(value.length == 4);
  std::vector<PipelineEntry> entries = parsePipeline("unroll{limit=64}", PassRegistry::builtin());
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].options == PassOptions{{"limit", "64"}});
}
