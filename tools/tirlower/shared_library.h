// --emit=so: a shared library from the emitted C (compiled) or LLVM object (linked) with the
// system toolchain, in a temporary directory that is removed afterwards.
#pragma once

#include <string>

#include "emitters.h"

namespace tirlower {

// The bytes of the shared library built from `code` (C source when `extension` is ".c", an
// object file for ".o") with the compiler of `settings.cc`, else $CC, else cc (a command line
// split at blanks: "ccache gcc -m64"). Throws CompileError, located at the module's first
// function, when the toolchain cannot be run or fails (with its output in the message).
std::string buildSharedLibrary(const std::string &code, const char *extension, const Module &module,
                               const EmitSettings &settings);

} // namespace tirlower
