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
    for (size_t t = 0; t < count; ++t) {
      Fiber &f = fibers_[t];
      if (!f.stack)
        f.stack = std::make_unique<Stack>();
      f.state = Fiber::State::NotStarted;
      f.error = nullptr;
      f.abort = false;
      f.site = nullptr;
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

  void wait(ThreadState &thread, const void *site, SourceRange loc) {
    Fiber &f = fibers_[static_cast<size_t>(thread.id)];
    f.state = Fiber::State::Waiting;
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

  // Every thread waits or has ended: they must all wait at one site, which they then pass.
  void release() {
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
  thread->run->wait(*thread, site, loc);
}

void checkRace(Frame &frame, BufferData &storage, size_t byteOffset, size_t bytes, bool isStore,
               const SourceRange &loc, Symbol bufferName) {
  const ThreadState *thread = frame.thread;
  if (!thread)
    return;
  RaceLog &log = *storage.raceLog;
  const uint64_t epoch = thread->block->epoch;
  const int32_t me = thread->id;
  const size_t scalar = static_cast<size_t>(storage.elementType().laneBytes());
  const size_t first = byteOffset / scalar, last = (byteOffset + std::max(bytes, scalar) - 1) / scalar;
  for (size_t k = first; k <= last; ++k) {
    const char *conflict = nullptr;
    const SourceRange *at = nullptr;
    int32_t with = -1;
    if (log.writeEpoch[k] == epoch && log.writer[k] != me) {
      conflict = isStore ? "writes an element that thread %d wrote" : "reads an element that thread %d wrote";
      at = log.writeAt[k];
      with = log.writer[k];
    } else if (isStore && log.readEpoch[k] == epoch && log.reader[k] != me && log.reader[k] != -1) {
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
    } else if (log.readEpoch[k] != epoch) {
      log.reader[k] = me;
      log.readEpoch[k] = epoch;
      log.readAt[k] = &loc;
    } else if (log.reader[k] != me) {
      log.reader[k] = RaceLog::kManyReaders;
    }
  }
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
