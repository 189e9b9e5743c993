// --emit=json: the module as a JSON document (schema in docs/json-schema.md).
#pragma once

#include <string>

#include "ir/function.h"

namespace tirlower {

// `sources` may be null; then locations are omitted.
std::string emitJson(const Module &module, const SourceInfo *sources);

} // namespace tirlower
