// Helpers for the common shape of a pass: rewrite each function's body, keep functions whose
// body did not change as they are (so "unchanged" stays cheap to detect).
#pragma once

#include <functional>

#include "transform/pass.h"

namespace tirlower {

// Replaces each function's body by rewrite(function); rebuilds only functions that changed.
Module rewriteBodies(Module module, const std::function<Stmt(const PrimFunc &)> &rewrite);

// A pass whose whole work is rewriteBodies with one function.
class BodyPass : public Pass {
public:
  explicit BodyPass(std::function<Stmt(const PrimFunc &, PassContext &)> rewrite) : rewrite_(std::move(rewrite)) {}
  std::optional<Module> run(Module module, PassContext &ctx) override {
    return rewriteBodies(std::move(module), [&](const PrimFunc &func) { return rewrite_(func, ctx); });
  }

private:
  std::function<Stmt(const PrimFunc &, PassContext &)> rewrite_;
};

} // namespace tirlower
