#include "ir/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
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

} // namespace tirlower
