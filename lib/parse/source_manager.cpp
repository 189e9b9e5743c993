#include "parse/source_manager.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace tirlower {

uint32_t SourceManager::addFile(std::string name, std::string text) {
  if (text.size() >= UINT32_MAX)
    throw std::length_error("input file '" + name + "' is larger than 4 GiB");
  auto file = std::make_unique<File>();
  file->name = std::move(name);
  file->text = std::move(text);
  file->lineStarts.push_back(0);
  // memchr scans a word at a time; the byte loop was a visible share of parsing big inputs.
  const char *begin = file->text.data(), *end = begin + file->text.size();
  for (const char *p = begin;
       (p = static_cast<const char *>(std::memchr(p, '\n', static_cast<size_t>(end - p)))) != nullptr;)
    file->lineStarts.push_back(static_cast<uint32_t>(++p - begin));
  files_.push_back(std::move(file));
  return static_cast<uint32_t>(files_.size());
}

const SourceManager::File &SourceManager::file(uint32_t fileId) const {
  if (fileId == 0 || fileId > files_.size())
    throw std::out_of_range("unknown source file id " + std::to_string(fileId));
  return *files_[fileId - 1];
}

const std::string &SourceManager::name(uint32_t fileId) const {
  return file(fileId).name;
}

std::string_view SourceManager::text(uint32_t fileId) const {
  return file(fileId).text;
}

SourcePosition SourceManager::position(uint32_t fileId, uint32_t offset) const {
  if (fileId == 0 || fileId > files_.size())
    return {};
  const File &f = file(fileId);
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(f.text.size()));
  auto it = std::upper_bound(f.lineStarts.begin(), f.lineStarts.end(), offset);
  auto line = static_cast<uint32_t>(it - f.lineStarts.begin());
  return {f.name, line, offset - f.lineStarts[line - 1] + 1};
}

std::string_view SourceManager::lineText(uint32_t fileId, uint32_t line) const {
  const File &f = file(fileId);
  if (line == 0 || line > f.lineStarts.size())
    return {};
  uint32_t begin = f.lineStarts[line - 1];
  uint32_t end = line < f.lineStarts.size() ? f.lineStarts[line] - 1 : static_cast<uint32_t>(f.text.size());
  std::string_view text(f.text.data() + begin, end - begin);
  if (!text.empty() && text.back() == '\r')
    text.remove_suffix(1);
  return text;
}

} // namespace tirlower
