// Owns the text of every input (files, stdin, command-line snippets) and maps byte offsets
// to line and column for diagnostics.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/source_range.h"

namespace tirlower {

// The bytes of one input: a string, or a regular file mapped read-only (a large input is then
// neither copied nor paged in by a read before the parse; the file must not be truncated while
// it is in use). Move-only.
class SourceText {
public:
  SourceText() = default;
  explicit SourceText(std::string text) : string_(std::move(text)) {}
  // The first `size` bytes of the open file `fd`, mapped; nullopt when it cannot be mapped.
  static std::optional<SourceText> map(int fd, size_t size);
  SourceText(SourceText &&other) noexcept;
  SourceText &operator=(SourceText &&other) noexcept;
  SourceText(const SourceText &) = delete;
  SourceText &operator=(const SourceText &) = delete;
  ~SourceText();

  std::string_view view() const { return mapped_ ? std::string_view(mapped_, mappedSize_) : std::string_view(string_); }

private:
  std::string string_;
  const char *mapped_ = nullptr;
  size_t mappedSize_ = 0;
};

class SourceManager : public SourceInfo {
public:
  // Returns the new file's id (>= 1). `name` is what diagnostics print ("in.tir", "<stdin>",
  // "<command line>").
  uint32_t addFile(std::string name, std::string text);
  uint32_t addFile(std::string name, SourceText text);

  const std::string &name(uint32_t fileId) const;
  std::string_view text(uint32_t fileId) const;

  // 1-based line and column (columns count bytes, tabs count one).
  SourcePosition position(uint32_t fileId, uint32_t offset) const override;
  // The text of a 1-based line, without its newline.
  std::string_view lineText(uint32_t fileId, uint32_t line) const;

private:
  struct File {
    std::string name;
    SourceText storage;
    std::string_view text; // storage's
    // Offsets of the first byte of each line; built on the first position or line asked for
    // (a run without diagnostics or locations never needs it).
    mutable std::vector<uint32_t> lineStarts;
  };
  const File &file(uint32_t fileId) const;
  const std::vector<uint32_t> &lineStarts(const File &file) const;
  std::vector<std::unique_ptr<File>> files_;
};

} // namespace tirlower
