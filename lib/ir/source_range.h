// A half-open byte range in one source buffer. Every IR node carries one; rendering to
// line:col is done by the SourceManager in lib/parse, so the IR stays free of file handling.
#pragma once

#include <cstdint>

namespace tirlower {

struct SourceRange {
  uint32_t fileId = 0; // 0: no location (synthesised by a pass)
  uint32_t begin = 0;
  uint32_t end = 0;

  bool valid() const { return fileId != 0; }
  static SourceRange cover(SourceRange a, SourceRange b) {
    if (!a.valid())
      return b;
    if (!b.valid() || a.fileId != b.fileId)
      return a;
    return {a.fileId, a.begin < b.begin ? a.begin : b.begin, a.end > b.end ? a.end : b.end};
  }
};

} // namespace tirlower

#include <string_view>

namespace tirlower {

// Resolves ranges to file:line:col for emitters that record locations (JSON). Implemented by
// the SourceManager in lib/parse; the IR and the emitters only see this interface.
struct SourcePosition {
  std::string_view file;
  uint32_t line = 0; // 1-based; 0 when unknown
  uint32_t column = 0;
};

class SourceInfo {
public:
  virtual ~SourceInfo() = default;
  virtual SourcePosition position(uint32_t fileId, uint32_t offset) const = 0;
};

} // namespace tirlower
