// The runtime of kernels (kernel.h): fibers for the threads of a block, barriers, the race
// check of shared storage, and KernelCode, which runs a kernel block by block.
#include "interp/kernel.h"

#include <sys/mman.h>
#include <ucontext.h>

#include <algorithm>

#include "interp/compile_kernel.h"

// AddressSanitizer knows one stack per thread: each swapcontext between the scheduler and a
// fiber is announced to it (start before, finish after), or it takes the other stack's frames
// for out-of-scope ones (a false stack-use-after-scope). Only in ASan builds.
#if defined(__SANITIZE_ADDRESS__)
#define TIRLOWER_ASAN_FIBERS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TIRLOWER_ASAN_FIBERS 1
#endif
#endif
#ifdef TIRLOWER_ASAN_FIBERS
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace tirlower {

std::string ThreadState::describe() const {
  auto triple = [](const std::array<int64_t, 3> &v) {
    return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + ")";
  };
  return "thread " + triple(threadIdx) + " of block " + triple(block->blockIdx);
}

namespace {

#ifdef TIRLOWER_ASAN_FIBERS
void startSwitch(void **fakeStackSave, const void *bottom, size_t size) {
  __sanitizer_start_switch_fiber(fakeStackSave, bottom, size);
}
void finishSwitch(void *fakeStackSave, const void **bottomOld, size_t *sizeOld) {
  __sanitizer_finish_switch_fiber(fakeStackSave, bottomOld, sizeOld);
}
void unpoisonStack(void *bottom, size_t size) { ASAN_UNPOISON_MEMORY_REGION(bottom, size); }
#else
void startSwitch(void **, const void *, size_t) {}
void finishSwitch(void *, const void **, size_t *) {}
void unpoisonStack(void *, size_t) {}
#endif

// Thrown inside a suspended fiber to unwind it when its kernel stops with an error.
struct KernelAbort {};

constexpr size_t kStackBytes = size_t(2) << 20; // committed only as far as it is used

class Stack {
public:
  Stack() {
    memory_ = mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (memory_ == MAP_FAILED)
      throw std::bad_alloc();
    mprotect(memory_, 4096, PROT_NONE); // a guard page below the stack
  }
  ~Stack() { munmap(memory_, kStackBytes); }
  Stack(const Stack &) = delete;
  Stack &operator=(const Stack &) = delete;
  void *base() const { return memory_; }

private:
  void *memory_;
};

} // namespace

// The threads of one block as fibers, run in thread order, each until it waits or ends.
class KernelRun {
public:
  struct Fiber {
    enum class State { NotStarted, Ready, Waiting, Done } state = State::NotStarted;
    ucontext_t context;
    std::unique_ptr<Stack> stack;
    ThreadState thread;
    std::unique_ptr<Frame> frame;
    const void *site = nullptr; // where it waits
    bool inWarp = false;        // at a warp collective, not a barrier of the block
    SourceRange siteLoc;
    std::exception_ptr error;
    bool abort = false;
    const StmtCode *body = nullptr;
    KernelRun *run = nullptr;
    void *fakeStack = nullptr; // ASan's fake stack of the fiber while it is suspended
  };

  KernelRun(const StmtCode &body, const Frame &parent) : body_(body), parent_(parent) {}

  // Runs every thread of `block` to its end. `stepsSoFar` carries the step count across threads.
  void runBlock(BlockState &block, const std::array<int64_t, 3> &local, uint64_t &steps) {
    size_t count = static_cast<size_t>(local[0] * local[1] * local[2]);
    fibers_.resize(count);
    warpWaiters_ = 0;
    for (size_t t = 0; t < count; ++t) {
      Fiber &f = fibers_[t];
      if (!f.stack)
        f.stack = std::make_unique<Stack>();
      f.state = Fiber::State::NotStarted;
      f.error = nullptr;
      f.abort = false;
      f.site = nullptr;
      f.inWarp = false;
      f.thread.block = &block;
      f.thread.run = this;
      f.thread.id = static_cast<int32_t>(t);
      f.thread.threadIdx = {static_cast<int64_t>(t) % local[0], static_cast<int64_t>(t) / local[0] % local[1],
                            static_cast<int64_t>(t) / (local[0] * local[1])};
      f.frame = std::make_unique<Frame>(*parent_.options);
      f.frame->env = parent_.env;
      f.frame->thread = &f.thread;
      f.body = &body_;
    }
    block_ = &block;
    while (true) {
      for (Fiber &f : fibers_) {
        if (f.state != Fiber::State::NotStarted && f.state != Fiber::State::Ready)
          continue;
        f.frame->steps = steps;
        resume(f);
        steps = f.frame->steps;
        if (f.error)
          abortAll(f.error);
      }
      if (std::all_of(fibers_.begin(), fibers_.end(), [](const Fiber &f) { return f.state == Fiber::State::Done; }))
        return;
      release();
    }
  }

  void wait(ThreadState &thread, const void *site, SourceRange loc, bool inWarp) {
    Fiber &f = fibers_[static_cast<size_t>(thread.id)];
    f.state = Fiber::State::Waiting;
    f.inWarp = inWarp;
    warpWaiters_ += inWarp ? 1 : 0;
    f.site = site;
    f.siteLoc = loc;
    startSwitch(&f.fakeStack, schedulerBottom_, schedulerSize_);
    swapcontext(&f.context, &scheduler_);
    finishSwitch(f.fakeStack, nullptr, nullptr);
    if (f.abort)
      throw KernelAbort{};
  }

private:
  static void entry(unsigned hi, unsigned lo) {
    auto *f = reinterpret_cast<Fiber *>((static_cast<uintptr_t>(hi) << 32) | static_cast<uintptr_t>(lo));
    finishSwitch(nullptr, &f->run->schedulerBottom_, &f->run->schedulerSize_);
    try {
      f->body->exec(*f->frame);
    } catch (const KernelAbort &) {
    } catch (...) {
      f->error = std::current_exception();
    }
    f->state = Fiber::State::Done;
    // Returning follows uc_link back to the scheduler; this stack's frames are gone.
    startSwitch(nullptr, f->run->schedulerBottom_, f->run->schedulerSize_);
  }

  void resume(Fiber &f) {
    if (f.state == Fiber::State::NotStarted) {
      getcontext(&f.context);
      f.context.uc_stack.ss_sp = static_cast<char *>(f.stack->base()) + 4096;
      f.context.uc_stack.ss_size = kStackBytes - 4096;
      f.context.uc_link = &scheduler_;
      f.run = this;
      unpoisonStack(f.context.uc_stack.ss_sp, f.context.uc_stack.ss_size); // an earlier block's fiber ran here
      auto bits = reinterpret_cast<uintptr_t>(&f);
      makecontext(&f.context, reinterpret_cast<void (*)()>(&KernelRun::entry), 2, static_cast<unsigned>(bits >> 32),
                  static_cast<unsigned>(bits & 0xffffffffu));
    }
    f.state = Fiber::State::Ready;
    switchTo(f);
  }

  void switchTo(Fiber &f) {
    startSwitch(&schedulerFakeStack_, static_cast<char *>(f.stack->base()) + 4096, kStackBytes - 4096);
    swapcontext(&scheduler_, &f.context);
    finishSwitch(schedulerFakeStack_, nullptr, nullptr);
  }

  // Every thread waits or has ended: the warps whose lanes wait at a collective meet there
  // (meetInWarps); when none does, all threads must wait at one barrier, which they then pass.
  void release() {
    if (meetInWarps())
      return;
    const Fiber *waiting = nullptr;
    for (const Fiber &f : fibers_)
      if (f.state == Fiber::State::Waiting) {
        waiting = &f;
        break;
      }
    for (const Fiber &f : fibers_) {
      if (f.state == Fiber::State::Done) {
        Diagnostic d{Severity::Error, waiting->siteLoc,
                     "barrier divergence: " + waiting->thread.describe() + " waits here, but " + f.thread.describe() +
                         " ended without reaching this barrier (every thread of a block must reach each barrier)",
                     {}};
        abortAll(std::make_exception_ptr(CompileError(d)));
      }
      if (f.site != waiting->site) {
        Diagnostic d{Severity::Error, waiting->siteLoc,
                     "barrier divergence: " + waiting->thread.describe() + " waits at this barrier, " +
                         f.thread.describe() + " at another one (every thread of a block must reach the same barrier)",
                     {}};
        d.note(f.siteLoc, f.thread.describe() + " waits here");
        abortAll(std::make_exception_ptr(CompileError(d)));
      }
    }
    ++block_->epoch;
    block_->completed = block_->deposit;
    for (Fiber &f : fibers_)
      f.state = Fiber::State::Ready;
  }

  // Completes every warp collective some lanes wait at; false when no lane waits at one.
  bool meetInWarps();
  void checkMask(const Fiber &f, size_t lane, const std::vector<Fiber *> &lanes, size_t base, size_t end);

  // Unwinds every suspended fiber, then rethrows `error` in the scheduler.
  [[noreturn]] void abortAll(std::exception_ptr error) {
    for (Fiber &f : fibers_) {
      if (f.state == Fiber::State::Done || f.state == Fiber::State::NotStarted)
        continue;
      f.abort = true;
      switchTo(f);
    }
    std::rethrow_exception(error);
  }

  const StmtCode &body_;
  const Frame &parent_;
  std::vector<Fiber> fibers_;
  size_t warpWaiters_ = 0; // fibers waiting at a warp collective: most kernels have none
  BlockState *block_ = nullptr;
  ucontext_t scheduler_;
  void *schedulerFakeStack_ = nullptr;
  const void *schedulerBottom_ = nullptr; // the scheduler's stack, as the first fiber learns it
  size_t schedulerSize_ = 0;
};

void waitAtBarrier(Frame &frame, const void *site, SourceRange loc) {
  ThreadState *thread = frame.thread;
  if (!thread || !thread->run)
    return; // outside a kernel (loops bound to threads run one after another): nothing to wait for
  thread->run->wait(*thread, site, loc, false);
}

void waitInWarp(Frame &frame, const void *site, SourceRange loc) {
  ThreadState *thread = frame.thread;
  thread->run->wait(*thread, site, loc, true);
}

// ---- warps ----------------------------------------------------------------------------------

namespace {

std::string hexMask(uint32_t mask) {
  static const char *digits = "0123456789abcdef";
  std::string text = "0x";
  for (int shift = 28; shift >= 0; shift -= 4)
    text += digits[(mask >> shift) & 15];
  return text;
}

// The source lane of `lane` (in its warp) for its call, or -1 when it keeps its own value.
int64_t sourceLane(const WarpCall &call, int64_t lane) {
  const int64_t segment = call.width - 1;
  const uint64_t distance = static_cast<uint32_t>(call.lane); // CUDA's delta is unsigned
  switch (call.op) {
  case WarpOp::Shuffle: return (lane & ~segment) | (call.lane & segment);
  case WarpOp::ShuffleDown: return static_cast<uint64_t>(lane & segment) + distance < static_cast<uint64_t>(call.width) ? lane + static_cast<int64_t>(distance) : -1;
  case WarpOp::ShuffleUp: return static_cast<uint64_t>(lane & segment) >= distance ? lane - static_cast<int64_t>(distance) : -1;
  case WarpOp::ActiveMask:
  case WarpOp::Barrier: break;
  }
  return -1;
}

// Gives each lane at a shuffle (calls[lane], null where a lane is not there) its source lane's value.
void giveShuffleResults(const std::vector<WarpCall *> &calls) {
  for (size_t l = 0; l < calls.size(); ++l) {
    WarpCall *call = calls[l];
    if (!call || call->op == WarpOp::ActiveMask || call->op == WarpOp::Barrier)
      continue;
    const int64_t source = sourceLane(*call, static_cast<int64_t>(l));
    if (source < 0) {
      call->result = call->value;
      call->resultUndefined = call->undefined;
      call->why = "its own value was computed from uninitialised storage";
    } else if (!((call->mask >> source) & 1)) {
      call->result = call->value;
      call->resultUndefined = true;
      call->why = "its source lane " + std::to_string(source) + " is not in the mask " + hexMask(call->mask);
    } else {
      const WarpCall &from = *calls[static_cast<size_t>(source)];
      call->result = from.value;
      call->resultUndefined = from.undefined;
      call->why = "the value of its source lane " + std::to_string(source) + " was computed from uninitialised storage";
    }
  }
}

} // namespace

// The lanes of warp `warp` (fibers [base, end)) at one shuffle: every lane the mask of lane
// `l` names is there with the same mask, else a located error.
void KernelRun::checkMask(const Fiber &f, size_t l, const std::vector<Fiber *> &lanes, size_t base, size_t end) {
  const size_t width = lanes.size(), warp = base / width;
  const WarpCall &call = f.thread.warp;
  auto fail = [&](const std::string &message, const Fiber *other, const std::string &note) {
    Diagnostic d{Severity::Error, f.siteLoc, message, {}};
    if (other)
      d.note(other->siteLoc, note);
    abortAll(std::make_exception_ptr(CompileError(d)));
  };
  const std::string who =
      "lane " + std::to_string(l) + " of warp " + std::to_string(warp) + " (" + f.thread.describe() + ")";
  const std::string mask = hexMask(call.mask);
  if (!((call.mask >> l) & 1))
    fail(std::string(call.name) + ": the mask " + mask + " of " + who +
             " does not name the lane itself (a lane shuffles with the lanes its mask names)",
         nullptr, "");
  for (size_t b = 0; b < 32; ++b) {
    if (!((call.mask >> b) & 1))
      continue;
    if (b >= end - base)
      fail(std::string(call.name) + ": the mask " + mask + " of " + who + " names lane " + std::to_string(b) +
               ", which " +
               (b >= width ? "is past the warp of " + std::to_string(width) + " lanes (--warp-size)"
                           : "this warp does not have (its block has " + std::to_string(fibers_.size()) + " threads)"),
           nullptr, "");
    const Fiber *other = lanes[b];
    if (!other) {
      const Fiber &absent = fibers_[base + b];
      const bool ended = absent.state == Fiber::State::Done;
      fail("warp shuffle divergence: " + who + " waits at this " + call.name + " with the mask " + mask +
               ", but lane " + std::to_string(b) + ", which the mask names, " +
               (ended ? "has ended without reaching it" : "waits at another operation") +
               " (every lane a mask names must reach the same shuffle)",
           ended ? nullptr : &absent, absent.thread.describe() + " waits here");
    }
    if (other->thread.warp.mask != call.mask)
      fail(std::string(call.name) + ": lanes " + std::to_string(l) + " and " + std::to_string(b) + " of warp " +
               std::to_string(warp) + " meet here with different masks (" + mask + " and " +
               hexMask(other->thread.warp.mask) + ")",
           nullptr, "");
  }
}

bool KernelRun::meetInWarps() {
  if (warpWaiters_ == 0)
    return false;
  const size_t width = static_cast<size_t>(parent_.options->warpSize);
  bool met = false;
  for (size_t t = 0; t < fibers_.size(); ++t) {
    Fiber &first = fibers_[t];
    if (first.state != Fiber::State::Waiting || !first.inWarp)
      continue;
    const size_t base = t / width * width, end = std::min(base + width, fibers_.size()), warp = base / width;
    std::vector<Fiber *> lanes(width, nullptr); // the lanes of this warp at this call
    std::vector<WarpCall *> calls(width, nullptr);
    uint32_t present = 0;
    for (size_t u = base; u < end; ++u)
      if (Fiber &f = fibers_[u]; f.state == Fiber::State::Waiting && f.inWarp && f.site == first.site) {
        lanes[u - base] = &f;
        calls[u - base] = &f.thread.warp;
        present |= uint32_t(1) << (u - base);
      }
    for (size_t l = 0; l < width; ++l) {
      if (!lanes[l])
        continue;
      WarpCall &call = *calls[l];
      if (call.op == WarpOp::ActiveMask || call.op == WarpOp::Barrier)
        call.result.u = present; // the lanes that met
      else
        checkMask(*lanes[l], l, lanes, base, end);
    }
    giveShuffleResults(calls);
    for (Fiber *f : lanes)
      if (f) {
        f->state = Fiber::State::Ready;
        f->inWarp = false;
        --warpWaiters_;
      }
    if (first.thread.warp.op == WarpOp::Barrier) { // orders the shared accesses of the lanes that met
      std::vector<uint64_t> &epochs = block_->warpEpochs;
      if (epochs.size() <= warp)
        epochs.resize(warp + 1, 0);
      ++epochs[warp];
    }
    met = true;
  }
  return met;
}

namespace {

// kWarps: the kernel has warp barriers, which order the accesses of one warp's lanes (a kernel
// without them takes the plain path).
template <bool kWarps>
[[gnu::always_inline]] inline void checkRaceIn(Frame &frame, BufferData &storage, size_t byteOffset, size_t bytes, bool isStore,
                 const SourceRange &loc, Symbol bufferName) {
  const ThreadState *thread = frame.thread;
  RaceLog &log = *storage.raceLog;
  const uint64_t epoch = thread->block->epoch;
  const int32_t me = thread->id;
  const int32_t lanes = kWarps ? frame.options->warpSize : 1, myWarp = kWarps ? me / lanes : 0;
  uint64_t warpEpoch = 0;
  if constexpr (kWarps) {
    const std::vector<uint64_t> &warpEpochs = thread->block->warpEpochs;
    warpEpoch = static_cast<size_t>(myWarp) < warpEpochs.size() ? warpEpochs[myWarp] : 0;
  }
  // An access of another lane of this warp before a warp barrier this warp has met since.
  auto warpOrdered = [&](int32_t other, uint64_t otherWarpEpoch) {
    return kWarps && other >= 0 && other / lanes == myWarp && otherWarpEpoch < warpEpoch;
  };
  const size_t scalar = static_cast<size_t>(storage.elementType().laneBytes());
  const size_t first = byteOffset / scalar, last = (byteOffset + std::max(bytes, scalar) - 1) / scalar;
  for (size_t k = first; k <= last; ++k) {
    const char *conflict = nullptr;
    const SourceRange *at = nullptr;
    int32_t with = -1;
    if (log.writeEpoch[k] == epoch && log.writer[k] != me &&
        !(kWarps && warpOrdered(log.writer[k], log.writeWarpEpoch[k]))) {
      conflict = isStore ? "writes an element that thread %d wrote" : "reads an element that thread %d wrote";
      at = log.writeAt[k];
      with = log.writer[k];
    } else if (isStore && log.readEpoch[k] == epoch && log.reader[k] != me && log.reader[k] != -1 &&
               !(kWarps && log.readWarp[k] == myWarp && log.readWarpEpoch[k] < warpEpoch)) {
      conflict = log.reader[k] == RaceLog::kManyReaders ? "writes an element that other threads read"
                                                        : "writes an element that thread %d read";
      at = log.readAt[k];
      with = log.reader[k];
    }
    if (conflict) {
      std::string what = conflict;
      if (size_t p = what.find("%d"); p != std::string::npos)
        what.replace(p, 2, std::to_string(with));
      Diagnostic d{Severity::Error, loc,
                   "data race on shared buffer '" + bufferName.str() + "' (element " + std::to_string(k) + "): " +
                       thread->describe() + " (thread " + std::to_string(me) + ") " + what +
                       " with no barrier in between (T.tvm_storage_sync(\"shared\"))",
                   {}};
      if (at && at->valid())
        d.note(*at, "the other thread's access");
      throw CompileError(d);
    }
    if (isStore) {
      log.writer[k] = me;
      log.writeEpoch[k] = epoch;
      log.writeAt[k] = &loc;
      if constexpr (kWarps)
        log.writeWarpEpoch[k] = warpEpoch;
    } else if (log.readEpoch[k] != epoch) {
      log.reader[k] = me;
      log.readEpoch[k] = epoch;
      log.readAt[k] = &loc;
      if constexpr (kWarps) {
        log.readWarp[k] = myWarp;
        log.readWarpEpoch[k] = warpEpoch;
      }
    } else {
      if (log.reader[k] != me)
        log.reader[k] = RaceLog::kManyReaders;
      if constexpr (kWarps) {
        if (log.readWarp[k] != myWarp)
          log.readWarp[k] = -1;
        log.readWarpEpoch[k] = warpEpoch;
      }
    }
  }
}

} // namespace

void checkRace(Frame &frame, BufferData &storage, size_t byteOffset, size_t bytes, bool isStore,
               const SourceRange &loc, Symbol bufferName) {
  const ThreadState *thread = frame.thread;
  if (!thread)
    return;
  if (thread->block->warpBarriers) [[unlikely]]
    return checkRaceIn<true>(frame, storage, byteOffset, bytes, isStore, loc, bufferName);
  checkRaceIn<false>(frame, storage, byteOffset, bytes, isStore, loc, bufferName);
}

// ---- KernelCode -----------------------------------------------------------------------------

void KernelCode::exec(Frame &frame) const {
  std::array<int64_t, 3> groups{1, 1, 1}, local{1, 1, 1};
  for (const LaunchExtent &launch : launches_) {
    const int64_t extent = launch.extent->scalar(frame).i;
    if (extent < 1)
      runtimeError(launch.loc, "the launch of " + launch.tag + " has extent " + std::to_string(extent) +
                                   "; a thread extent must be positive");
    if (launch.virtualThread) {
      if (extent != 1)
        runtimeError(launch.loc, "virtual thread " + launch.tag + " has extent " + std::to_string(extent) +
                                     "; only virtual threads of extent 1 are supported");
      continue;
    }
    int64_t &slot = launch.block ? groups[launch.dim] : local[launch.dim];
    slot = std::max(slot, extent);
  }
  const int64_t threads = local[0] * local[1] * local[2];
  if (threads > kMaxThreadsPerBlock)
    runtimeError(loc, "a block of " + std::to_string(threads) + " threads is more than the interpreter simulates (" +
                          std::to_string(kMaxThreadsPerBlock) + ")");
  uint64_t steps = frame.steps;
  std::unique_ptr<KernelRun> run;
  if (!sequential_)
    run = std::make_unique<KernelRun>(*body_, frame);
  for (int64_t bz = 0; bz < groups[2]; ++bz)
    for (int64_t by = 0; by < groups[1]; ++by)
      for (int64_t bx = 0; bx < groups[0]; ++bx) {
        BlockState block;
        block.blockIdx = {bx, by, bz};
        block.local = local;
        block.depositStride = depositStride_;
        block.warpBarriers = warpBarriers_;
        block.deposit.assign(static_cast<size_t>(threads) * depositStride_, Cell{});
        if (run) {
          run->runBlock(block, local, steps);
          continue;
        }
        // No barrier in the kernel: each thread runs to its end in turn.
        for (int64_t t = 0; t < threads; ++t) {
          ThreadState thread;
          thread.block = &block;
          thread.id = static_cast<int32_t>(t);
          thread.threadIdx = {t % local[0], t / local[0] % local[1], t / (local[0] * local[1])};
          Frame own(*frame.options);
          own.env = frame.env;
          own.thread = &thread;
          own.steps = steps;
          body_->exec(own);
          steps = own.steps;
        }
      }
  frame.steps = steps;
}

} // namespace tirlower
