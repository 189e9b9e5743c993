// The IR verifier: structural invariants every pass must preserve. The parser establishes
// them; the pass manager runs the verifier after each pass (--verify-each) and names the pass
// that broke one.
//
// Checked: every variable used is defined in scope (parameters, loop variables, lets,
// allocations, buffer data variables); no variable is redefined inside its own scope; every
// buffer accessed is declared in scope (parameter, alloc_buffer, decl_buffer); accesses
// re-type-check under the lanes rule; loop bounds are scalar integers; layout transforms refer
// to declared buffers with a map of matching rank.
#pragma once

#include <vector>

#include "ir/diagnostic.h"
#include "ir/function.h"

namespace tirlower {

// Returns one error per violation (empty when the function is well formed).
std::vector<Diagnostic> verifyFunction(const PrimFunc &function);
// verifyFunction, unless the function (the same node) was verified well formed before
// (PrimFuncNode::knownWellFormed). Safe to call from several threads.
std::vector<Diagnostic> verifyFunctionOnce(const PrimFunc &function);
// verifyFunctionOnce of every function of the module, in order.
std::vector<Diagnostic> verifyModule(const Module &module);

} // namespace tirlower
