// Writes the requested output atomically: a temporary file in the destination's directory,
// renamed over the destination only when complete. On failure nothing is created or changed;
// SIGINT and SIGTERM during the write remove the temporary file before the process ends. A
// symlink is written through (its target replaced), and an existing file keeps its mode.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "parse/source_manager.h"

namespace tirlower {

// `path` "-" writes to stdout. Returns an error message, empty on success.
std::string writeOutput(const std::string &path, const std::string &contents);

// The text of an output that is written before its beginning is known (the C file's head
// depends on every function): everything after the head, appended as it is produced. For a
// regular file (or a new one) it goes to an unnamed temporary file in the destination's directory
// (O_TMPFILE), so that a large output is not held in memory; for stdout and devices, or where no
// such file can be made, it is kept in memory. Nothing reaches the destination before
// writeOutput(path, head, body); an unwritten body leaves nothing behind.
class OutputBody {
public:
  explicit OutputBody(const std::string &path);
  ~OutputBody();
  OutputBody(const OutputBody &) = delete;
  OutputBody &operator=(const OutputBody &) = delete;

  void append(std::string_view text);

private:
  friend std::string writeOutput(const std::string &path, const std::string &head, OutputBody &body);
  bool flush();
  bool copyTo(int fd);
  int fd_ = -1;        // the temporary file, or -1: the text is all in buffer_
  std::string buffer_; // text not yet written to the temporary file
  uint64_t size_ = 0;  // bytes written to the temporary file
  int error_ = 0;      // errno of the first failed write to the temporary file
};

// writeOutput of `head` followed by `body`'s text.
std::string writeOutput(const std::string &path, const std::string &head, OutputBody &body);

// The largest input (and --inputs file) tirlower reads: a larger one, or an endless one such as
// /dev/zero, is an input error once this much has been read.
inline constexpr uint64_t kMaxInputBytes = uint64_t(256) << 20;

// Reads a whole file ("-": stdin) of at most `maxBytes`. Returns false and sets `error` to the
// whole message ("cannot open 'x.tir': No such file or directory") on failure.
bool readInput(const std::string &path, std::string &contents, std::string &error, uint64_t maxBytes = kMaxInputBytes);
// The same into a SourceText: a regular file of kMapInputBytes or more is mapped, not read (10^5
// bench functions, 81 MB: 0.17 s to read, 0.02 s to map).
inline constexpr uint64_t kMapInputBytes = uint64_t(1) << 20;
bool readInput(const std::string &path, SourceText &text, std::string &error, uint64_t maxBytes = kMaxInputBytes);

} // namespace tirlower
