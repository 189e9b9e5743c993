// verify-layouts: reports every buffer whose layout does not satisfy a layout requirement,
// and changes nothing.
//
// Requirements come from T.func_attr({"layout_requirements": {...}}), --require-layout, the
// option require='B=NCHW4c;A=NCHW4c:texture' and the target (layout_requirements.h). A buffer
// satisfies "L" when it has L's rank, a layout annotation whose dimensions carry L's names
// (a "*" on either side matches any), and strides that are multiples of L's alignments; a
// buffer without a layout annotation satisfies only all-"*" requirements. ":texture" also
// needs scope "global.texture", float32, an innermost extent of 4 and an axis separator
// before the last two dimensions. Each failure is an error at the buffer's declaration with a
// note at the requirement's source; with --layout-verify=warn (or mode=warn) a warning.
//
// Preconditions: none; run it after legalize-layouts and apply-layout-transforms to check
// what they produced (layout annotations follow the transforms).
//
//   B: T.Buffer((1, 8, 8, 16), "float32", layout="NHWC")     with --require-layout='B=NCHW'
//   -> error: buffer 'B' has layout "NHWC" but "NCHW" is required: dimension 1 is 'H' instead of 'C'
//      note: "NCHW" required by --require-layout='B=NCHW'
#include <stdexcept>

#include "transform/layout_requirements.h"
#include "transform/passes.h"

namespace tirlower {

namespace {

class VerifyLayoutsPass : public Pass {
public:
  VerifyLayoutsPass(std::vector<LayoutRequirement> required, const Target *target, bool warn)
      : required_(std::move(required)), target_(target), warn_(warn) {}

  std::optional<Module> run(Module module, PassContext &ctx) override {
    checkRequirementsApply(module, required_, "verify-layouts");
    bool warn = warn_;
    size_t failures = 0;
    for (const PrimFunc &func : module.functions)
      for (const BufferRequirement &entry : requirementsOf(*func, required_, target_)) {
        std::vector<std::string> reasons = unmetRequirement(*entry.buffer, entry.requirement);
        if (reasons.empty())
          continue;
        ++failures;
        ctx.diagnostics.report(failure(*func, *entry.buffer, entry.requirement, reasons, warn));
      }
    if (failures && !warn)
      return std::nullopt;
    return module;
  }

private:
  static Diagnostic failure(const PrimFuncNode &func, const BufferNode &buffer, const LayoutRequirement &requirement,
                            const std::vector<std::string> &reasons, bool warn) {
    std::string has = buffer.layout.empty() ? "no layout" : "layout \"" + buffer.layout.str() + "\"";
    std::string message =
        "buffer '" + buffer.name.str() + "' has " + has + " but \"" + requirement.spec() + "\" is required: ";
    for (size_t k = 0; k < reasons.size(); ++k)
      message += (k ? "; " : "") + reasons[k];
    Diagnostic diagnostic{
        warn ? Severity::Warning : Severity::Error, buffer.loc.valid() ? buffer.loc : func.loc, message, {}};
    return noteRequirementSource(diagnostic, requirement, func);
  }

  std::vector<LayoutRequirement> required_;
  const Target *target_;
  bool warn_;
};

} // namespace

PassInfo verifyLayoutsPassInfo() {
  PassInfo info;
  info.name = "verify-layouts";
  info.summary = "report every buffer whose layout does not satisfy a layout requirement; change nothing";
  static const PassOption<std::string> modeOption{givenByFlag(
      choiceOption("mode", {"error", "warn"}, "",
                   "unmet requirements are errors or warnings (default: --layout-verify, else error)"),
      "--layout-verify")};
  info.options = {requireOption(), targetOption(), modeOption};
  info.create = [](const PassOptions &options) {
    return std::make_unique<VerifyLayoutsPass>(requireOptionOf(options), targetOptionOf(options),
                                               modeOption.find(options) == "warn");
  };
  return info;
}

} // namespace tirlower
