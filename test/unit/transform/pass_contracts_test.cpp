#include <catch2/catch.hpp>

#include <algorithm>

#include "ir/verifier.h"
#include "parse/diagnostic_engine.h"
#include "parse/parser.h"
#include "transform/pass_manager.h"
#include "transform/passes.h"
#include "transform/target.h"

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
  for (const Target &target : targets()) {
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

TEST_CASE("the registry refuses a name or alias already taken and records it", "[transform]") {
  PassRegistry registry = PassRegistry::builtin();
  CHECK(registry.conflicts().empty());
  const size_t count = registry.passes().size();
  registry.add(unrollPassInfo());
  PassInfo alias = simplifyPassInfo();
  alias.name = "fresh-name";
  alias.aliases = {"flatten-buffer"};
  registry.add(alias);
  CHECK(registry.passes().size() == count);
  CHECK(registry.conflicts() == std::vector<std::string>{"pass 'unroll' is registered twice or shares a name",
                                                         "pass 'fresh-name' is registered twice or shares a name"});
  CHECK(registry.find("flatten-buffer")->name == "flatten");
  CHECK_FALSE(registry.find("fresh-name"));
}

TEST_CASE("verifyModule checks a function node once; a new node is checked again", "[transform]") {
  SourceManager sources;
  DiagnosticCollector diagnostics;
  uint32_t id = sources.addFile("in.tir", R"(from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "int32")):
    for i in range(4):
        A[i] = i
)");
  std::optional<Module> parsed = parseModule(sources, id, diagnostics);
  REQUIRE(parsed);
  const PrimFunc &f = parsed->functions.at(0);
  CHECK(verifyModule(*parsed).empty());
  CHECK(f->knownWellFormed.load());
  CHECK(verifyModule(*parsed).empty());

  // The same function with a use of an undefined variable: a new node, checked and rejected
  // every time (a failed check is not remembered as success).
  Var undefined = VarNode::make(Symbol("j"), DataType::int32());
  const Buffer &a = f->bufferMap.at(0).buffer;
  PrimFuncNode::Fields fields = f->fields();
  fields.body = BufferStoreNode::make(a, undefined, {IntImmNode::make(DataType::int32(), 0)});
  Module broken;
  broken.functions.push_back(PrimFuncNode::make(std::move(fields)));
  CHECK_FALSE(broken.functions[0]->knownWellFormed.load());
  CHECK_FALSE(verifyModule(broken).empty());
  CHECK_FALSE(broken.functions[0]->knownWellFormed.load());
  CHECK_FALSE(verifyModule(broken).empty());
}
