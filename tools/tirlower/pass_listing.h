// What --list-passes and --print-pipeline print.
#pragma once

#include <string>

#include "transform/pass_manager.h"

namespace tirlower {

// Every registered pass (name, aliases, summary, options, what it requires and establishes),
// then each target's default pipeline: the text of docs/passes.md's generated part.
std::string listPasses();

// The passes of `manager` with their options, as --pass-pipeline text, and a newline.
std::string pipelineText(const PassManager &manager);

} // namespace tirlower
