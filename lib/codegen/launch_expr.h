// Launch sizes that depend on a kernel's scalar parameters, `(n + 31) // 32` groups over a
// symbolic n: checked, and written for the host three ways (docs/opencl-emitter.md, "Symbolic
// launch sizes"): as text for the comment above a kernel, as the JSON expression form of
// --emit=launch, and as C for the functions of --emit=launch-h.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "ir/function.h"

namespace tirlower {

// How a scalar parameter is named where the expression is written (the kernel's argument name).
using LaunchNamer = std::function<std::string(const VarNode *)>;

// Empty when `e` is made of integer constants, the function's integer scalar parameters,
// + - * floordiv floormod truncdiv truncmod min max and integer casts; otherwise why not.
std::string launchExprProblem(const Expr &e, const PrimFuncNode &func);

// `(n + 31) // 32`: TVMScript's operators (floor division and modulo), min(a, b), max(a, b),
// int32(x) for a cast.
std::string launchExprText(const Expr &e, const LaunchNamer &name);

// The JSON form: an integer; a string, a scalar argument's name; or [OP, a, b] with OP one of
// "+", "-", "*", "floordiv", "floormod" (the result has the divisor's sign), "truncdiv",
// "truncmod", "min", "max", or ["cast", DTYPE, a] (to an integer type, wrapping). Evaluated in
// 64-bit signed integers.
nlohmann::ordered_json launchExprJson(const Expr &e, const LaunchNamer &name);

// A C expression of type int64_t over the named parameters, using the tl_launch_floordiv and
// tl_launch_floormod helpers that launchHeaderHelpers() defines.
std::string launchExprC(const Expr &e, const LaunchNamer &name);
const char *launchHeaderHelpers();

} // namespace tirlower
