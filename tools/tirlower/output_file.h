// Writes the requested output atomically: a temporary file in the destination's directory,
// renamed over the destination only when complete. On failure nothing is created or changed.
#pragma once

#include <string>

namespace tirlower {

// `path` "-" writes to stdout. Returns an error message, empty on success.
std::string writeOutput(const std::string &path, const std::string &contents);

// Reads a whole file ("-": stdin). Returns false and sets `error` ("No such file or
// directory") on failure.
bool readInput(const std::string &path, std::string &contents, std::string &error);

} // namespace tirlower
