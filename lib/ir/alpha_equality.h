// Structural equality of functions up to the names of what they define ("alpha-equivalence"):
// two functions are equal when one becomes the other by renaming variables, buffers, blocks
// and the function itself. Unlike structurallyEqual (ir/equality.h), which compares variables
// by identity, a variable of one function corresponds to the variable of the other at the same
// place where it is first met (a parameter, loop variable, let, allocation, buffer field or a
// free variable), and must correspond to that one everywhere after (a bijection); buffers
// likewise, compared by their fields (element type, shape, strides, element offset, scope, axis
// separators, layout; not their names). Everything else compares as in structurallyEqual:
// node kinds, types, constants (floats at their type's precision), operators, loop kinds,
// annotations, attributes (the function's attributes except "global_symbol"), block regions and
// the order of statements.
//   alphaEqual(f, g)               f: for i in range(4): A[i] = 0   g: for k in range(4): B[k] = 0
//                                  (A and B of the same type and shape): equal
#pragma once

#include <string>

#include "ir/function.h"

namespace tirlower {

// Whether `a` and `b` are equal up to renaming; when not and `why` is given, it receives a short
// description of the first difference found ("loop extent: 16 vs 8").
bool alphaEqual(const PrimFuncNode &a, const PrimFuncNode &b, std::string *why = nullptr);

} // namespace tirlower
