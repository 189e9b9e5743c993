#include "ir/node.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <mutex>
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
};

// Pools of threads that have exited, for the next new thread to adopt: a worker's free lists
// and the rest of its chunk are not lost when it ends (--threads=N starts workers for each
// parallel section).
struct Orphans {
  std::mutex mutex;
  std::vector<Pool *> pools;
};

Orphans &orphans() {
  // Leaked on purpose, like the pools: threads may end after main returns.
  static Orphans *instance = new Orphans();
  return *instance;
}

// Hands the thread's pool to the orphans when the thread ends.
struct PoolReturn {
  Pool *pool = nullptr;
  ~PoolReturn() {
    if (!pool)
      return;
    std::lock_guard<std::mutex> lock(orphans().mutex);
    orphans().pools.push_back(pool);
  }
};

// A plain pointer (no constructor or destructor), so reaching it costs no guard check.
thread_local Pool *threadPool = nullptr;

Pool &adoptPool() {
  // Leaked on purpose: nodes held by static objects may be released after main returns.
  Pool *adopted = nullptr;
  {
    std::lock_guard<std::mutex> lock(orphans().mutex);
    if (!orphans().pools.empty()) {
      adopted = orphans().pools.back();
      orphans().pools.pop_back();
    }
  }
  if (!adopted)
    adopted = new Pool();
  thread_local PoolReturn giveBack;
  giveBack.pool = adopted;
  threadPool = adopted;
  return *adopted;
}

Pool &pool() {
  if (Pool *p = threadPool)
    return *p;
  return adoptPool();
}

#if defined(__SANITIZE_ADDRESS__)
#define TIRLOWER_POOL_FROM_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define TIRLOWER_POOL_FROM_MALLOC 1
#endif
#endif

#ifdef TIRLOWER_POOL_FROM_MALLOC
// Under the sanitizers chunks come from malloc and stay listed: LeakSanitizer scans only heap
// blocks reachable from its roots, so nodes alive at exit must lie in the heap for what they
// own (vectors, strings) to count as reachable.
void *newChunk() {
  static std::mutex *mutex = new std::mutex();
  static std::vector<void *> *chunks = new std::vector<void *>();
  std::lock_guard<std::mutex> lock(*mutex);
  void *chunk = std::aligned_alloc(kChunkBytes, kChunkBytes);
  if (!chunk)
    throw std::bad_alloc();
  chunks->push_back(chunk);
  return chunk;
}
#else
// A chunk aligned to its size, mapped directly: through aligned_alloc each chunk was a large
// malloc request, which consolidates and sorts glibc's free lists (malloc_consolidate,
// unlink_chunk) and so cost more the larger the heap of other allocations had grown.
void *newChunk() {
  // Twice the size, then the unaligned head and tail are unmapped.
  void *mapped = ::mmap(nullptr, 2 * kChunkBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED)
    throw std::bad_alloc();
  auto begin = reinterpret_cast<uintptr_t>(mapped);
  uintptr_t aligned = (begin + kChunkBytes - 1) & ~(uintptr_t{kChunkBytes} - 1);
  if (aligned > begin)
    ::munmap(mapped, aligned - begin);
  if (uintptr_t end = begin + 2 * kChunkBytes; end > aligned + kChunkBytes)
    ::munmap(reinterpret_cast<void *>(aligned + kChunkBytes), end - (aligned + kChunkBytes));
  void *chunk = reinterpret_cast<void *>(aligned);
  ::madvise(chunk, kChunkBytes, MADV_HUGEPAGE);
  return chunk;
}
#endif

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
    void *chunk = newChunk();
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
