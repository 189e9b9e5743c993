// An out-of-tree program, built by test/install/check_install.py against an installed copy of
// tirlower (`pkg-config tirlower`): a library user adds a pass of its own,
// scale-float-constants{factor=F}, to a registry holding the product's passes, runs a pipeline
// that mixes both on a file and prints the TIR.
//
//   scale_constants FILE PIPELINE      e.g. scale_constants in.tir 'flatten,scale-float-constants{factor=2}'
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "codegen/tir_printer.h"
#include "ir/visitor.h"
#include "parse/diagnostic_engine.h"
#include "parse/parser.h"
#include "parse/source_manager.h"
#include "transform/pass_manager.h"
#include "transform/pipeline.h"

using namespace tirlower;

namespace {

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

PassInfo scaleConstantsPassInfo() {
  PassInfo info;
  info.name = "scale-float-constants";
  info.summary = "multiply every floating-point constant by a factor (an out-of-tree example)";
  info.options = {numberOption("factor", "1", "the factor")};
  // The pipeline parser checks the value against the declaration; the pass manager fills in
  // the default.
  info.create = [](const PassOptions &options) -> std::unique_ptr<Pass> {
    return std::make_unique<ScaleConstantsPass>(passOptionNumber(options, "factor").value());
  };
  return info;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::cerr << "usage: scale_constants FILE PIPELINE\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) {
    std::cerr << "scale_constants: cannot read " << argv[1] << "\n";
    return 2;
  }
  SourceManager sources;
  uint32_t file = sources.addFile(argv[1], text.str());
  DiagnosticEngine diagnostics(sources, std::cerr, DiagnosticFormat::Text);

  PassRegistry registry = PassRegistry::builtin();
  registry.add(scaleConstantsPassInfo());

  std::optional<Module> module = parseModule(sources, file, diagnostics);
  if (!module)
    return 1;
  PassManager passes;
  try {
    for (const PipelineEntry &entry : parsePipeline(argv[2], registry))
      passes.add(entry);
  } catch (const std::exception &error) {
    std::cerr << "scale_constants: " << error.what() << "\n";
    return 2;
  }
  PassContext context{diagnostics};
  std::optional<Module> lowered = passes.run(std::move(*module), context);
  if (!lowered)
    return 1;
  std::cout << printModule(*lowered);
  return 0;
}
