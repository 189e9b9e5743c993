// The tool's flow: flags -> pipeline -> for each input chunk: parse, layout flags, passes,
// emit -> atomic write. No IR logic lives here.
#pragma once

#include "options.h"

namespace tirlower {

// Returns the exit code: 0 success, 1 input errors, 2 command-line misuse.
int runTool(const ToolOptions &options);

} // namespace tirlower
