// How emitter diagnostics name a buffer: as the user wrote it. The flatten pass accesses a
// parameter `B` through an alias `B_flat` over the same data; an error about the alias names
// both, "'B' (flattened as 'B_flat')", so the user finds the buffer in the input.
#pragma once

#include <string>

#include "ir/buffer.h"

namespace tirlower {

// "'B' (flattened as 'B_flat')" for flatten's alias of B, else "'NAME'".
std::string quotedBufferName(const BufferNode &buffer);

} // namespace tirlower
