// Scalable vectors at a fixed vscale: the interpreter runs a function that uses T.vscale() and
// scalable vector types ("float32xvscalex4") by fixing vscale first, as the target would at run
// time. Every T.vscale() becomes the constant and every scalable type the fixed vector of
// vscale times its lanes.
//
//   A[0:T.vscale() * 4] = T.Broadcast(T.float32(1), T.vscale() * 4)
//     -> (vscale 2)  A[0:8] = T.Broadcast(T.float32(1), 8)
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ir/stmt.h"

namespace tirlower {

// k when `e` is T.vscale() * k, k * T.vscale() or T.vscale() (k = 1): the lane count of a
// scalable vector as TVMScript writes it; nullopt otherwise.
std::optional<int64_t> scalableMultiplier(const Expr &e);

// Whether `s` calls T.vscale() or has an expression of a scalable vector type.
bool usesVscale(const Stmt &s);

// For the emitters, whose targets have no scalable vectors: a CompileError located at the first
// T.vscale() or scalable vector expression of `s`, naming `target`, when there is one.
void rejectScalableVectors(const Stmt &s, const std::string &target);

// `s` with vscale fixed to `vscale` (>= 1).
Stmt fixVscale(const Stmt &s, int vscale);

} // namespace tirlower
