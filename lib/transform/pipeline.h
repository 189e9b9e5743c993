// Pipeline text: "a,b{key=value,k2=v2},c". Parsed against a registry; every error carries
// the byte offset it refers to so the tool can print the text with a caret under it.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "transform/pass.h"

namespace tirlower {

struct PipelineEntry {
  const PassInfo *info = nullptr;
  PassOptions options;
  size_t offset = 0; // where the pass name starts in the pipeline text
};

class PipelineError : public std::runtime_error {
public:
  PipelineError(std::string message, size_t offset, size_t length)
      : std::runtime_error(std::move(message)), offset(offset), length(length ? length : 1) {}
  size_t offset; // 0-based byte offset into the pipeline text
  size_t length; // bytes to underline
};

// Parses pipeline text. Throws PipelineError for bad syntax, unknown passes (suggesting the
// closest registered name), unknown options (suggesting the closest declared one, or listing
// them) and values of the wrong type (pass_options.h), located at the name or value. Whitespace around
// names, keys and values is ignored; a value may contain commas and braces inside quotes or
// balanced brackets ("m=lambda i, j: [j, i]"). When the text is a source (`fileId`, not 0), each
// option value keeps its range in it (PassOptionValue::loc).
std::vector<PipelineEntry> parsePipeline(std::string_view text, const PassRegistry &registry, uint32_t fileId = 0);

// "message (column N)\n  TEXT\n  ^~~~\n": the error shown under the pipeline text.
std::string formatPipelineError(std::string_view text, const PipelineError &error);

// "name{k=v,k2=v2}", or just "name": how a pass and its options are shown in dumps and tables.
std::string describePass(const PassInfo &info, const PassOptions &options);

// The registered name closest to `name` by edit distance (aliases included), or empty when
// nothing is close enough to be a plausible typo.
std::string closestPassName(std::string_view name, const PassRegistry &registry);

} // namespace tirlower
