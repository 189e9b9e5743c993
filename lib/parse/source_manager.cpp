#include "parse/source_manager.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

#include <sys/mman.h>

namespace tirlower {

std::optional<SourceText> SourceText::map(int fd, size_t size) {
  if (size == 0)
    return std::nullopt;
  void *address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  if (address == MAP_FAILED)
    return std::nullopt;
  SourceText text;
  text.mapped_ = static_cast<const char *>(address);
  text.mappedSize_ = size;
  return text;
}

SourceText::SourceText(SourceText &&other) noexcept
    : string_(std::move(other.string_)), mapped_(std::exchange(other.mapped_, nullptr)),
      mappedSize_(std::exchange(other.mappedSize_, 0)) {}

SourceText &SourceText::operator=(SourceText &&other) noexcept {
  if (this != &other) {
    if (mapped_)
      ::munmap(const_cast<char *>(mapped_), mappedSize_);
    string_ = std::move(other.string_);
    mapped_ = std::exchange(other.mapped_, nullptr);
    mappedSize_ = std::exchange(other.mappedSize_, 0);
  }
  return *this;
}

SourceText::~SourceText() {
  if (mapped_)
    ::munmap(const_cast<char *>(mapped_), mappedSize_);
}

uint32_t SourceManager::addFile(std::string name, std::string text) {
  return addFile(std::move(name), SourceText(std::move(text)));
}

uint32_t SourceManager::addFile(std::string name, SourceText text) {
  if (text.view().size() >= UINT32_MAX)
    throw std::length_error("input file '" + name + "' is larger than 4 GiB");
  auto file = std::make_unique<File>();
  file->name = std::move(name);
  file->storage = std::move(text);
  file->text = file->storage.view();
  files_.push_back(std::move(file));
  return static_cast<uint32_t>(files_.size());
}

const std::vector<uint32_t> &SourceManager::lineStarts(const File &f) const {
  if (f.lineStarts.empty()) {
    f.lineStarts.push_back(0);
    // memchr scans a word at a time; a byte loop was a visible cost on big inputs.
    const char *begin = f.text.data(), *end = begin + f.text.size();
    for (const char *p = begin;
         (p = static_cast<const char *>(std::memchr(p, '\n', static_cast<size_t>(end - p)))) != nullptr;)
      f.lineStarts.push_back(static_cast<uint32_t>(++p - begin));
  }
  return f.lineStarts;
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
  const std::vector<uint32_t> &starts = lineStarts(f);
  auto it = std::upper_bound(starts.begin(), starts.end(), offset);
  auto line = static_cast<uint32_t>(it - starts.begin());
  return {f.name, line, offset - starts[line - 1] + 1};
}

std::string_view SourceManager::lineText(uint32_t fileId, uint32_t line) const {
  const File &f = file(fileId);
  const std::vector<uint32_t> &starts = lineStarts(f);
  if (line == 0 || line > starts.size())
    return {};
  uint32_t begin = starts[line - 1];
  uint32_t end = line < starts.size() ? starts[line] - 1 : static_cast<uint32_t>(f.text.size());
  std::string_view text(f.text.data() + begin, end - begin);
  if (!text.empty() && text.back() == '\r')
    text.remove_suffix(1);
  return text;
}

} // namespace tirlower
