// A pass plugin for the cli test `load_pass_plugin`: `tirlower --load-pass-plugin=THIS.so`
// adds the pass plugin-scale-constants{factor=F}, which multiplies every floating-point
// constant by F. Built as a meson shared_module; its tirlower symbols come from the tool.
#include <stdexcept>
#include <string>

#include "ir/visitor.h"
#include "transform/pass_plugin.h"

namespace {

using namespace tirlower;

class ScaleConstants : public IRMutator {
public:
  explicit ScaleConstants(double factor) : factor_(factor) {}

protected:
  using IRMutator::visit;
  Expr visit(const FloatImmNode *op) override { return FloatImmNode::make(op->type, op->value * factor_); }

private:
  double factor_;
};

class ScaleConstantsPass : public Pass {
public:
  explicit ScaleConstantsPass(double factor) : factor_(factor) {}
  std::optional<Module> run(Module module, PassContext &) override {
    for (PrimFunc &func : module.functions) {
      PrimFuncNode::Fields fields = func->fields();
      fields.body = ScaleConstants(factor_).mutate(fields.body);
      func = PrimFuncNode::make(std::move(fields));
    }
    return module;
  }

private:
  double factor_;
};

} // namespace

extern "C" const int tirlower_plugin_api_version = TIRLOWER_PLUGIN_API_VERSION;

extern "C" void tirlower_register_passes(tirlower::PassRegistry *registry) {
  PassInfo info;
  info.name = "plugin-scale-constants";
  info.summary = "multiply every floating-point constant by a factor (a pass plugin)";
  info.options = {numberOption("factor", "1", "the factor")};
  // The tool checks the value against the declaration and fills in the default.
  info.create = [](const PassOptions &options) -> std::unique_ptr<Pass> {
    return std::make_unique<ScaleConstantsPass>(passOptionNumber(options, "factor").value());
  };
  registry->add(std::move(info));
}
