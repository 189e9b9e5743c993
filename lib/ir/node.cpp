#include "ir/node.h"

#include <sys/mman.h>

#include <cstdlib>
#include <new>
#include <vector>

namespace tirlower {

namespace {
constexpr size_t kGranule = 8; // nodes need no more than pointer alignment
constexpr size_t kMaxPooled = 256;
// One transparent huge page: the kernel then maps a chunk with one page fault instead of 512
// (faults were a fifth of parse time for big modules). Plain pages where THP is off.
constexpr size_t kChunkBytes = 1 << 21;

struct FreeBlock {
  FreeBlock *next;
};

struct Pool {
  FreeBlock *freeLists[kMaxPooled / kGranule + 1] = {};
  char *cursor = nullptr;
  char *limit = nullptr;
  // Chunks are never returned: peak node memory is reused through the free lists.
  std::vector<void *> chunks;

  ~Pool() {
    for (void *chunk : chunks)
      std::free(chunk);
  }
};

Pool &pool() {
  // Leaked on purpose: nodes held by static objects may be released after main returns.
  static Pool *instance = new Pool();
  return *instance;
}

size_t sizeClass(size_t bytes) {
  return (bytes + kGranule - 1) / kGranule;
}
} // namespace

void *poolAllocate(size_t bytes) {
  if (bytes > kMaxPooled)
    return ::operator new(bytes);
  Pool &p = pool();
  size_t cls = sizeClass(bytes);
  if (FreeBlock *block = p.freeLists[cls]) {
    p.freeLists[cls] = block->next;
    return block;
  }
  size_t rounded = cls * kGranule;
  if (p.cursor == nullptr || static_cast<size_t>(p.limit - p.cursor) < rounded) {
    void *chunk = std::aligned_alloc(kChunkBytes, kChunkBytes);
    if (!chunk)
      throw std::bad_alloc();
    ::madvise(chunk, kChunkBytes, MADV_HUGEPAGE);
    p.chunks.push_back(chunk);
    p.cursor = static_cast<char *>(chunk);
    p.limit = p.cursor + kChunkBytes;
  }
  void *result = p.cursor;
  p.cursor += rounded;
  return result;
}

void poolFree(void *pointer, size_t bytes) {
  if (!pointer)
    return;
  if (bytes > kMaxPooled) {
    ::operator delete(pointer);
    return;
  }
  Pool &p = pool();
  size_t cls = sizeClass(bytes);
  auto *block = static_cast<FreeBlock *>(pointer);
  block->next = p.freeLists[cls];
  p.freeLists[cls] = block;
}

} // namespace tirlower
