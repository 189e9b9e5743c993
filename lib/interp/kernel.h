// GPU kernels in the interpreter (docs/interpreter.md, "Thread launches"). The statement under an
// outermost thread launch is a kernel: it runs once per thread of every block, each thread with
// its own copy of the variables. The threads of a block run as fibers on one OS thread, in a fixed
// order, each until it waits at a barrier or ends, so a run is deterministic. Shared storage is
// allocated once per block; local storage per thread. Every access to shared storage is checked
// against the other threads' accesses since the last barrier (a data race is a located error).
#pragma once

#include <array>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "interp/runtime.h"

namespace tirlower {

class KernelRun;
struct BlockState;

// Which thread last wrote and which read each scalar of a shared storage since the last barrier.
struct RaceLog {
  explicit RaceLog(size_t scalars)
      : writer(scalars, -1), reader(scalars, -1), writeEpoch(scalars, 0), readEpoch(scalars, 0),
        writeAt(scalars, nullptr), readAt(scalars, nullptr) {}
  static constexpr int32_t kManyReaders = -2;
  std::vector<int32_t> writer, reader; // thread ids within the block; -1 none
  std::vector<uint64_t> writeEpoch, readEpoch;
  std::vector<const SourceRange *> writeAt, readAt;
};

// One simulated thread: its indices and its block.
struct ThreadState {
  BlockState *block = nullptr;
  KernelRun *run = nullptr;
  std::array<int64_t, 3> threadIdx{0, 0, 0};
  int32_t id = 0; // x fastest, then y, then z
  std::string describe() const;
};

struct BlockState {
  std::array<int64_t, 3> blockIdx{0, 0, 0};
  std::array<int64_t, 3> local{1, 1, 1}; // threads per dimension
  // Barriers passed by the block's threads (implicit ones included); accesses in one epoch
  // are not ordered between threads.
  uint64_t epoch = 1;
  // Shared storage of each allocation, created by the first thread that reaches it.
  std::unordered_map<const void *, std::unique_ptr<BufferData>> shared;
  std::vector<std::unique_ptr<RaceLog>> logs;
  // Values each thread brought to the cross-thread reduction that completed last, per thread:
  // `values` cells then a condition cell (see AllreduceCode).
  std::vector<Cell> deposit, completed;
  size_t depositStride = 0;
};

// Checks an access of `bytes` bytes at `byteOffset` of shared storage `storage` by the current
// thread; a located error on a race. Called by buffer accesses when the storage has a RaceLog.
void checkRace(Frame &frame, BufferData &storage, size_t byteOffset, size_t bytes, bool isStore, const SourceRange &loc,
               Symbol bufferName);

// Blocks the current thread at a barrier (or cross-thread reduction) `site` until every thread of
// its block reaches the same site; they then pass together and the block's epoch advances.
void waitAtBarrier(Frame &frame, const void *site, SourceRange loc);

} // namespace tirlower
