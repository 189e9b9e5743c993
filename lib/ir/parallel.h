// The worker pool of --threads=N: runs one body for each index of a range on N threads.
// Callers store each index's result in its own slot and join the slots in index order, so what
// they produce does not depend on N or on which thread ran which index.
#pragma once

#include <cstddef>
#include <functional>

namespace tirlower {

// The core count (std::thread::hardware_concurrency), at least 1: --threads' default.
unsigned defaultThreadCount();

// Calls body(k, worker) once for each k in [0, count), on `threads` threads (the calling thread
// is one of them; fewer when there are fewer indices). `worker` numbers the thread running the
// body, from 0 (the calling thread) to threads - 1, for per-thread scratch. Indices are handed
// out in increasing order as threads become free. When bodies throw, every thread still
// finishes the index it is on, no new index starts, and the exception of the lowest index that
// threw is rethrown here.
void parallelFor(size_t count, unsigned threads, const std::function<void(size_t index, unsigned worker)> &body);

// parallelFor whose results are consumed in index order while the loop runs: inOrder(k) is
// called once for each k, in increasing order, as soon as body(k) and inOrder(k - 1) are done,
// by whichever thread finished the last of them (never two at once), so a producer's result can
// be written out and freed without waiting for the whole range. When body(k) or inOrder(k)
// throws, no index starts after it, inOrder is not called for k or any later index, and the
// exception is rethrown here once every running body has finished (the lowest such k's, as
// parallelFor's).
void parallelForOrdered(size_t count, unsigned threads, const std::function<void(size_t index, unsigned worker)> &body,
                        const std::function<void(size_t index)> &inOrder);

} // namespace tirlower
