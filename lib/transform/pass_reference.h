// The pass reference of docs/passes.md, written from the registry and the targets' pipelines:
// every pass with its aliases, summary, typed options and contract, and each target's default
// pipeline. test/docs checks that the committed page holds exactly this text.
#pragma once

#include <string>
#include <vector>

#include "transform/pass.h"
#include "transform/target.h"

namespace tirlower {

// Markdown: a "Registered passes" table and a "Target pipelines" table.
std::string passReferenceMarkdown(const PassRegistry &registry, const std::vector<Target> &targets);

} // namespace tirlower
