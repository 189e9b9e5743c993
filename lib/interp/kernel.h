// GPU kernels in the interpreter (docs/interpreter.md, "Thread launches"). The statement under an
// outermost thread launch is a kernel: it runs once per thread of every block, each thread with
// its own copy of the variables. The threads of a block run as fibers on one OS thread, in a fixed
// order, each until it waits at a barrier or ends, so a run is deterministic. Shared storage is
// allocated once per block; local storage per thread. Every access to shared storage is checked
// against the other threads' accesses since the last barrier (a data race is a located error).
//
// Warps: the threads of a block, in id order (x fastest), form warps of RunOptions::warpSize
// lanes. T.tvm_warp_shuffle[_up|_down] and T.tvm_warp_activemask are collectives of a warp
// (warp_code.cpp): a lane waits at one until every thread of the block waits or has ended; the
// lanes of its warp waiting at the same call then meet. T.tvm_warp_activemask() gives the mask of
// those lanes; a shuffle checks that every lane its mask names is there with the same mask (else a
// located divergence error) and gives each lane the value of its source lane (CUDA's __shfl_sync,
// __shfl_up_sync, __shfl_down_sync: a source outside the lane's width segment gives its own value).
//
// Undefined values: CUDA leaves a shuffle from a lane outside the mask undefined, and TVM's warp
// reductions let the lanes whose results are discarded compute with such values and with
// uninitialised local storage. In a kernel with warp collectives, a store to local storage may
// keep a value computed from either (Frame::undefinedSeen): the element is left uninitialised,
// so a later read of it where it matters (a condition, an index, a store to shared or global
// storage) is a located error; a shuffle carries its value's definedness to the lane that gets it.
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
  // `warps`: the kernel has warp barriers (BlockState::warpBarriers), whose epochs are kept too.
  RaceLog(size_t scalars, bool warps)
      : writer(scalars, -1), reader(scalars, -1), writeEpoch(scalars, 0), readEpoch(scalars, 0),
        writeWarpEpoch(warps ? scalars : 0, 0), readWarpEpoch(warps ? scalars : 0, 0), readWarp(warps ? scalars : 0, -1),
        writeAt(scalars, nullptr), readAt(scalars, nullptr) {}
  static constexpr int32_t kManyReaders = -2;
  std::vector<int32_t> writer, reader; // thread ids within the block; -1 none
  std::vector<uint64_t> writeEpoch, readEpoch;
  // The warp barriers (T.tvm_storage_sync("warp")) the accessor's warp had passed: accesses of one
  // warp in one epoch of the block are ordered by a warp barrier between them. readWarp: the warp
  // of every reader in the epoch (-1: readers of several warps); readWarpEpoch: the latest read's.
  std::vector<uint64_t> writeWarpEpoch, readWarpEpoch;
  std::vector<int32_t> readWarp;
  std::vector<const SourceRange *> writeAt, readAt;
};

enum class WarpOp : uint8_t { ActiveMask, Shuffle, ShuffleUp, ShuffleDown, Barrier };

// What a lane brings to a warp collective and, once its warp's lanes have met, what it gets.
struct WarpCall {
  WarpOp op = WarpOp::ActiveMask;
  const char *name = "";   // T.tvm_warp_shuffle_down, for messages
  uint32_t mask = 0;       // the lanes it shuffles with
  int64_t lane = 0;        // the source lane (shuffle) or the distance (up, down)
  int64_t width = 1;       // the lanes of a segment: a power of two up to the warp size
  Cell value{};            // its own value
  bool undefined = false;  // computed from uninitialised storage or an undefined shuffle
  Cell result{};
  bool resultUndefined = false;
  std::string why; // why the result is undefined
};

// One simulated thread: its indices and its block.
struct ThreadState {
  BlockState *block = nullptr;
  KernelRun *run = nullptr;
  std::array<int64_t, 3> threadIdx{0, 0, 0};
  int32_t id = 0; // x fastest, then y, then z
  WarpCall warp;  // the warp collective it waits at
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
  // Per warp: the warp barriers (T.tvm_storage_sync("warp")) its lanes have met at; the kernel
  // has such barriers at all (the race check then counts them).
  std::vector<uint64_t> warpEpochs;
  bool warpBarriers = false;
};

// Checks an access of `bytes` bytes at `byteOffset` of shared storage `storage` by the current
// thread; a located error on a race. Called by buffer accesses when the storage has a RaceLog.
void checkRace(Frame &frame, BufferData &storage, size_t byteOffset, size_t bytes, bool isStore, const SourceRange &loc,
               Symbol bufferName);

// Blocks the current thread at a barrier (or cross-thread reduction) `site` until every thread of
// its block reaches the same site; they then pass together and the block's epoch advances.
void waitAtBarrier(Frame &frame, const void *site, SourceRange loc);

// Blocks the current thread at the warp collective `site` (its ThreadState::warp filled) until the
// lanes of its warp meet there; then ThreadState::warp holds its result. A located error on a
// divergent shuffle or a mask naming a lane that is not there.
void waitInWarp(Frame &frame, const void *site, SourceRange loc);

} // namespace tirlower
