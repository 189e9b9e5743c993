// The TVM FFI entry in C (--abi=tvm-ffi; docs/abi.md, "The TVM FFI entry"): ffi_entry.h's
// description rendered as a C function after the function it calls.
#pragma once

#include <string>
#include <vector>

#include "codegen/c_support.h"
#include "codegen/ffi_entry.h"

namespace tirlower {

// Appends `entry`'s C definition; `paramTypes` are the C types of the called function's
// parameters ("const float *", "int64_t"). Registers the ABI structs and helpers in `support`.
void appendCFfiEntry(std::string &out, const FfiEntry &entry, const std::vector<std::string> &paramTypes,
                     CSupport &support);
// `TVMFFIErrorSetRaisedFromCStr("KIND", "message");`: how the function itself raises a failed
// assert (RuntimeError) or allocation (MemoryError) under --abi=tvm-ffi.
void appendCFfiRaise(std::string &out, const char *kind, const std::string &message);

} // namespace tirlower
