// Writes the requested output atomically: a temporary file in the destination's directory,
// renamed over the destination only when complete. On failure nothing is created or changed;
// SIGINT and SIGTERM during the write remove the temporary file before the process ends. A
// symlink is written through (its target replaced), and an existing file keeps its mode.
#pragma once

#include <cstdint>
#include <string>

namespace tirlower {

// `path` "-" writes to stdout. Returns an error message, empty on success.
std::string writeOutput(const std::string &path, const std::string &contents);

// The largest input (and --inputs file) tirlower reads: a larger one, or an endless one such as
// /dev/zero, is an input error once this much has been read.
inline constexpr uint64_t kMaxInputBytes = uint64_t(256) << 20;

// Reads a whole file ("-": stdin) of at most `maxBytes`. Returns false and sets `error` to the
// whole message ("cannot open 'x.tir': No such file or directory") on failure.
bool readInput(const std::string &path, std::string &contents, std::string &error, uint64_t maxBytes = kMaxInputBytes);

} // namespace tirlower
