// Base of all IR nodes: intrusive reference count, pooled allocation, source range.
// Nodes are immutable once built; passes build new nodes and share unchanged subtrees.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>

#include "ir/source_range.h"

namespace tirlower {

// Size-class free lists carved from large chunks: IR nodes are small and numerous, and a
// general-purpose malloc per node dominated parse time. Each thread has its own pool, so no
// lock is taken; a node freed on another thread than the one that allocated it joins the
// freeing thread's lists (chunks are never returned, so any thread may reuse any block).
void *poolAllocate(size_t bytes);
void poolFree(void *pointer, size_t bytes);

class Node {
public:
  Node(const Node &) = delete;
  Node &operator=(const Node &) = delete;

  static void *operator new(size_t bytes) { return poolAllocate(bytes); }
  static void operator delete(void *pointer, size_t bytes) { poolFree(pointer, bytes); }

  SourceRange loc;

  // Atomic: nodes are shared between functions (plans, constants kept in statics), and the
  // workers of --threads=N retain and release them concurrently.
  void retain() const { refCount_.fetch_add(1, std::memory_order_relaxed); }
  void release() const {
    if (refCount_.fetch_sub(1, std::memory_order_acq_rel) == 1)
      delete this;
  }

protected:
  Node() = default;
  virtual ~Node() = default;

private:
  mutable std::atomic<uint32_t> refCount_{0};
};

// Owning pointer to an immutable node. Copying shares the node.
template <typename T> class Ref {
public:
  Ref() = default;
  Ref(std::nullptr_t) {}
  Ref(const T *node) : node_(node) {
    if (node_)
      node_->retain();
  }
  Ref(const Ref &other) : Ref(other.node_) {}
  Ref(Ref &&other) noexcept : node_(std::exchange(other.node_, nullptr)) {}
  template <typename U> Ref(const Ref<U> &other) : Ref(static_cast<const T *>(other.get())) {}
  ~Ref() {
    if (node_)
      node_->release();
  }
  Ref &operator=(Ref other) noexcept {
    std::swap(node_, other.node_);
    return *this;
  }

  const T *get() const { return node_; }
  const T *operator->() const { return node_; }
  const T &operator*() const { return *node_; }
  explicit operator bool() const { return node_ != nullptr; }
  bool defined() const { return node_ != nullptr; }
  bool same(const Ref &other) const { return node_ == other.node_; }
  friend bool operator==(const Ref &a, const Ref &b) { return a.node_ == b.node_; }
  friend bool operator!=(const Ref &a, const Ref &b) { return a.node_ != b.node_; }

  // Checked downcast by node kind; null when the node is of another kind.
  template <typename U> const U *as() const {
    return node_ && node_->kind() == U::kNodeKind ? static_cast<const U *>(node_) : nullptr;
  }

private:
  const T *node_ = nullptr;
};

} // namespace tirlower

template <typename T> struct std::hash<tirlower::Ref<T>> {
  size_t operator()(const tirlower::Ref<T> &ref) const noexcept { return std::hash<const T *>()(ref.get()); }
};
