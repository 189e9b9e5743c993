// Accesses that are out of bounds whatever the inputs: checked on what the user writes (the
// parser runs it on every function it reads), so that a program that can only read or write
// outside a buffer is a located error instead of C or LLVM that does.
#pragma once

#include <vector>

#include "ir/diagnostic.h"
#include "ir/function.h"

namespace tirlower {

// One diagnostic per access with a constant index outside the buffer's constant extent on that
// axis (or negative on any extent, lane by lane for a constant ramp), per access to a buffer
// with a constant zero extent, and per buffer declared with a constant negative elem_offset.
// Accesses that always run are errors; those under a condition that may hold are warnings;
// those under a constant-false condition are not reported.
std::vector<Diagnostic> staticBoundsErrors(const PrimFuncNode &function);

} // namespace tirlower
