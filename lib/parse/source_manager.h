// Owns the text of every input (files, stdin, command-line snippets) and maps byte offsets
// to line and column for diagnostics.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/source_range.h"

namespace tirlower {

class SourceManager : public SourceInfo {
public:
  // Returns the new file's id (>= 1). `name` is what diagnostics print ("in.tir", "<stdin>",
  // "<command line>").
  uint32_t addFile(std::string name, std::string text);

  const std::string &name(uint32_t fileId) const;
  std::string_view text(uint32_t fileId) const;

  // 1-based line and column (columns count bytes, tabs count one).
  SourcePosition position(uint32_t fileId, uint32_t offset) const override;
  // The text of a 1-based line, without its newline.
  std::string_view lineText(uint32_t fileId, uint32_t line) const;

private:
  struct File {
    std::string name;
    std::string text;
    // Offsets of the first byte of each line; built on the first position or line asked for
    // (a run without diagnostics or locations never needs it).
    mutable std::vector<uint32_t> lineStarts;
  };
  const File &file(uint32_t fileId) const;
  const std::vector<uint32_t> &lineStarts(const File &file) const;
  std::vector<std::unique_ptr<File>> files_;
};

} // namespace tirlower
