// The tool's pass registry: the product's passes plus those of --load-pass-plugin libraries.
#pragma once

#include <string>
#include <vector>

#include "transform/pass.h"

namespace tirlower {

// The registry every pipeline, --list-passes and --print-ir-after of the tool use.
const PassRegistry &toolPassRegistry();

// dlopens each library and lets it register its passes (transform/pass_plugin.h). Returns an
// empty string, or the reason the first library could not be loaded.
std::string loadPassPlugins(const std::vector<std::string> &paths);

} // namespace tirlower
