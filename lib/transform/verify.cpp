// verify: runs the IR verifier (lib/ir/verifier.h) and fails on the first invalid
// function; the module comes back unchanged. Useful at any point of a pipeline, and when
// --verify-each is off.
//
// Preconditions: none; it checks the invariants every IR must keep.
//
//   before: for i in range(4): B[i] = A[j]     (j undefined)
//   after:  error: invalid IR: variable 'j' is used but not defined in this scope
#include "ir/verifier.h"
#include "transform/pass.h"
#include "transform/passes.h"

namespace tirlower {

namespace {

class VerifyPass : public Pass {
public:
  std::optional<Module> run(Module module, PassContext &ctx) override {
    std::vector<Diagnostic> problems = verifyModule(module);
    if (problems.empty())
      return module;
    for (Diagnostic &problem : problems) {
      problem.message = "invalid IR: " + problem.message;
      ctx.diagnostics.report(std::move(problem));
    }
    return std::nullopt;
  }
};

} // namespace

PassInfo verifyPassInfo() {
  PassInfo info;
  info.name = "verify";
  info.summary = "check the IR invariants (scoping, declared buffers, access types); change nothing";
  info.create = [](const PassOptions &) { return std::make_unique<VerifyPass>(); };
  return info;
}

} // namespace tirlower
