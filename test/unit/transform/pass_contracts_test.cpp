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

TEST_CASE("the registry orders the passes that establish a property by their contracts", "[transform]") {
  const PassRegistry &registry = PassRegistry::builtin();
  for (IRProperty property :
       {IRProperty::LayoutsApplied, IRProperty::Flat, IRProperty::InitBlocksLowered, IRProperty::BlocksOpaque,
        IRProperty::MatchBuffersLowered, IRProperty::BlocksLowered, IRProperty::ThreadsLaunched}) {
    INFO(irPropertyName(property));
    std::vector<const PassInfo *> passes = registry.pipelineEstablishing(property);
    REQUIRE(!passes.empty());
    CHECK(passes.back() == registry.establishing(property));
    PassManager manager;
    for (const PassInfo *info : passes)
      manager.add(*info, {});
    CHECK(manager.orderError().empty());
    // Every requirement of every pass is established by an earlier one.
    for (size_t k = 0; k < passes.size(); ++k)
      for (IRProperty required : passes[k]->requirements)
        CHECK(std::any_of(passes.begin(), passes.begin() + static_cast<std::ptrdiff_t>(k), [&](const PassInfo *p) {
          return std::find(p->establishes.begin(), p->establishes.end(), required) != p->establishes.end();
        }));
  }
  std::vector<std::string> blocks;
  for (const PassInfo *info : registry.pipelineEstablishing(IRProperty::BlocksLowered))
    blocks.push_back(info->name);
  CHECK(blocks == std::vector<std::string>{"lower-init-block", "convert-blocks-to-opaque", "lower-match-buffer",
                                           "lower-opaque-block"});
}
