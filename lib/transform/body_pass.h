// Helpers for the common shape of a pass: rewrite each function's body, keep functions whose
// body did not change as they are (so "unchanged" stays cheap to detect).
#pragma once

#include <functional>

#include "transform/pass.h"

namespace tirlower {

// A function-local pass whose whole work is rewriting each function's body with one function
// (rebuilding only functions that changed).
class BodyPass : public FunctionPass {
public:
  explicit BodyPass(std::function<Stmt(const PrimFunc &, PassContext &)> rewrite) : rewrite_(std::move(rewrite)) {}
  std::optional<PrimFunc> runOnFunction(PrimFunc func, PassContext &ctx) override;

private:
  std::function<Stmt(const PrimFunc &, PassContext &)> rewrite_;
};

} // namespace tirlower
