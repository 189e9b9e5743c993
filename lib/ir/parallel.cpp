#include "ir/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace tirlower {

unsigned defaultThreadCount() {
  return std::max(1u, std::thread::hardware_concurrency());
}

void parallelFor(size_t count, unsigned threads, const std::function<void(size_t index, unsigned worker)> &body) {
  size_t workers = std::min<size_t>(std::max(1u, threads), count);
  if (workers <= 1) {
    for (size_t k = 0; k < count; ++k)
      body(k, 0);
    return;
  }
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;
  size_t failedIndex = count;
  std::exception_ptr failure;
  auto work = [&](unsigned worker) {
    while (!failed.load(std::memory_order_relaxed)) {
      size_t k = next.fetch_add(1, std::memory_order_relaxed);
      if (k >= count)
        return;
      try {
        body(k, worker);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (k < failedIndex) {
          failedIndex = k;
          failure = std::current_exception();
        }
        failed.store(true, std::memory_order_relaxed);
      }
    }
  };
  {
    std::vector<std::jthread> pool;
    pool.reserve(workers - 1);
    for (size_t w = 1; w < workers; ++w)
      pool.emplace_back(work, static_cast<unsigned>(w));
    work(0);
  } // joins
  if (failure)
    std::rethrow_exception(failure);
}

void parallelForOrdered(size_t count, unsigned threads, const std::function<void(size_t index, unsigned worker)> &body,
                        const std::function<void(size_t index)> &inOrder) {
  if (std::min<size_t>(std::max(1u, threads), count) <= 1) {
    for (size_t k = 0; k < count; ++k) {
      body(k, 0);
      inOrder(k);
    }
    return;
  }
  std::unique_ptr<std::atomic<bool>[]> done(new std::atomic<bool>[count]);
  for (size_t k = 0; k < count; ++k)
    done[k].store(false, std::memory_order_relaxed);
  std::atomic<size_t> next{0};      // the first index not yet consumed
  std::atomic<bool> stopped{false}; // a consumer threw
  std::mutex consuming;
  std::exception_ptr consumeFailure; // under `consuming`
  // Consumes the done indices from `next` on, unless another thread is consuming: that one
  // checks again after unlocking, so an index done meanwhile is not left behind.
  auto consumeReady = [&] {
    auto ready = [&] {
      size_t k = next.load(std::memory_order_acquire);
      return k < count && done[k].load(std::memory_order_acquire) && !stopped.load();
    };
    while (ready() && consuming.try_lock()) {
      try {
        for (size_t k = next.load(std::memory_order_relaxed); ready(); k = next.load(std::memory_order_relaxed)) {
          inOrder(k);
          next.store(k + 1, std::memory_order_release);
        }
      } catch (...) {
        consumeFailure = std::current_exception();
        stopped.store(true);
      }
      consuming.unlock();
    }
  };
  std::exception_ptr bodyFailure;
  try {
    parallelFor(count, threads, [&](size_t k, unsigned worker) {
      if (stopped.load(std::memory_order_relaxed))
        return;        // nothing more is consumed
      body(k, worker); // when it throws, k is never marked done: nothing from k on is consumed
      done[k].store(true, std::memory_order_release);
      consumeReady();
    });
  } catch (...) {
    bodyFailure = std::current_exception();
  }
  // Every body has finished. A body failure at k leaves the indices before it to consume; a
  // consumer failure ended consuming where it happened.
  if (!consumeFailure) {
    for (size_t k = next.load(); k < count && done[k].load(); ++k) {
      try {
        inOrder(k);
      } catch (...) {
        consumeFailure = std::current_exception();
        break;
      }
    }
  }
  // A consumer failure comes first in index order: consuming stops before the first index that
  // is not done.
  if (consumeFailure)
    std::rethrow_exception(consumeFailure);
  if (bodyFailure)
    std::rethrow_exception(bodyFailure);
}

} // namespace tirlower
