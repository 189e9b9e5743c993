#include <catch2/catch.hpp>

#include <algorithm>

#include "transform/pass_manager.h"
#include "transform/target_pipelines.h"

using namespace tirlower;

namespace {
PassManager managerFor(const std::string &pipeline) {
  PassManager manager;
  for (const PipelineEntry &entry : parsePipeline(pipeline, PassRegistry::builtin()))
    manager.add(entry);
  return manager;
}
} // namespace

TEST_CASE("every property a pass requires is established by some pass", "[transform]") {
  const std::vector<PassInfo> &passes = PassRegistry::builtin().passes();
  for (const PassInfo &info : passes)
    for (IRProperty property : info.requirements) {
      INFO(info.name << " requires " << irPropertyName(property));
      CHECK(std::any_of(passes.begin(), passes.end(), [&](const PassInfo &other) {
        return std::find(other.establishes.begin(), other.establishes.end(), property) != other.establishes.end();
      }));
    }
}

TEST_CASE("the targets' pipelines keep the passes' contracts", "[transform]") {
  for (const TargetPipeline &target : targetPipelines()) {
    INFO(target.name);
    CHECK(managerFor(target.pipeline).orderError().empty());
  }
}

TEST_CASE("a pass before the pass establishing what it requires is an order error naming both", "[transform]") {
  CHECK(managerFor("flatten,apply-layout-transforms").orderError() ==
        "pass 'flatten' requires layouts applied, which the later pass 'apply-layout-transforms' establishes: run "
        "'apply-layout-transforms' before 'flatten'");
  CHECK(managerFor("apply-layout-transforms,flatten,apply-layout-transforms").orderError().empty());
  CHECK(managerFor("flatten").orderError().empty()); // the input may already have the property
  CHECK(managerFor("thread-sync,lower-thread-binding").orderError().find("requires thread launches") !=
        std::string::npos);
}
