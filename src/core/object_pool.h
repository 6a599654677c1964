// object_pool.h - fixed-size slots for TensorImpl and StorageImpl, recycled without malloc.
//
// Note [Handle poisoning]
// The C ABI promises that a released handle passed back in gives CT_ERROR_INVALID_ARGUMENT rather
// than a crash. Tensor objects therefore live in pool slots whose memory is never returned to the
// system: after release a slot keeps a poisoned tag (TensorImpl::kDeadTag) until it is handed out
// again, so reading the tag of a released handle is always a valid read. The pool is also why
// creating and releasing a small tensor costs no heap traffic: each thread keeps a short free list
// and only trades with the shared list in batches.
//
// The pool also counts what is live (slots handed out and not returned) for the library's
// metrics, from bookkeeping it does anyway: the slots it ever made minus the free ones, shared or
// held by a thread. Each thread's free count has a single writer, so updating it is a plain store.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>

namespace ct {

template <size_t SlotSize, size_t Align>
class SlotPool {
 public:
  static void* allocate() {
    Local& l = local();
    if (!l.head) refill(l);
    Slot* s = l.head;
    l.head = s->next;
    l.add(-1);
    return s;
  }
  static void deallocate(void* p) {
    Local& l = local();
    Slot* s = static_cast<Slot*>(p);
    s->next = l.head;
    l.head = s;
    l.add(1);
    if (l.free() > kLocalMax) spill(l, kBatch);
  }
  /// Slots handed out and not yet returned. Exact while no other thread allocates or frees.
  static size_t live() {
    Shared& sh = shared();
    std::lock_guard<std::mutex> g(sh.mu);
    size_t held = sh.free;
    for (const Local* l = sh.locals; l; l = l->next) held += l->free();
    return sh.total - held;
  }

 private:
  static constexpr size_t kBatch = 64;
  static constexpr size_t kLocalMax = 256;
  // The free-list link sits past the first 8 bytes, which belong to the object's liveness tag.
  union alignas(Align) Slot {
    struct {
      uint64_t tag_area;
      Slot* next;
    };
    unsigned char bytes[SlotSize];
  };
  static_assert(SlotSize >= 16, "a slot holds the tag area and the free-list link");
  // A thread's free list. The lists are linked to each other (Shared::locals) rather than kept in
  // a container, so that a thread's first release, inside a destructor, never allocates.
  struct Local {
    Slot* head = nullptr;
    std::atomic<size_t> count{0};  // free slots in head's list; written by this thread only
    Local* prev = nullptr;
    Local* next = nullptr;
    size_t free() const { return count.load(std::memory_order_relaxed); }
    void add(long d) { count.store(free() + d, std::memory_order_relaxed); }
    Local() noexcept {
      Shared& sh = shared();
      std::lock_guard<std::mutex> g(sh.mu);
      next = sh.locals;
      if (next) next->prev = this;
      sh.locals = this;
    }
    ~Local() {  // a finished thread gives its slots back
      spill(*this, free());
      Shared& sh = shared();
      std::lock_guard<std::mutex> g(sh.mu);
      (prev ? prev->next : sh.locals) = next;
      if (next) next->prev = prev;
    }
  };
  struct Shared {
    std::mutex mu;
    Slot* head = nullptr;
    size_t free = 0;   // slots in head's list
    size_t total = 0;  // slots ever made
    Local* locals = nullptr;
  };
  static Local& local() noexcept {
    thread_local Local l;
    return l;
  }
  static Shared& shared() noexcept {
    // Never destroyed (slots outlive static destruction order), and made without the heap.
    alignas(Shared) static unsigned char storage[sizeof(Shared)];
    static Shared* s = new (storage) Shared;
    return *s;
  }
  static void refill(Local& l) {
    Shared& s = shared();
    std::lock_guard<std::mutex> g(s.mu);
    for (size_t i = 0; i < kBatch && s.head; ++i) {
      Slot* x = s.head;
      s.head = x->next;
      --s.free;
      x->next = l.head;
      l.head = x;
      l.add(1);
    }
    if (l.head) return;
    // A new slab; never freed (see Note [Handle poisoning]).
    Slot* slab = static_cast<Slot*>(::operator new(sizeof(Slot) * kBatch, std::align_val_t(Align)));
    for (size_t i = 0; i < kBatch; ++i) {
      new (&slab[i]) Slot;
      slab[i].tag_area = 0;
      slab[i].next = l.head;
      l.head = &slab[i];
    }
    l.add(kBatch);
    s.total += kBatch;
  }
  static void spill(Local& l, size_t n) {
    Shared& s = shared();
    std::lock_guard<std::mutex> g(s.mu);
    for (size_t i = 0; i < n && l.head; ++i) {
      Slot* x = l.head;
      l.head = x->next;
      l.add(-1);
      x->next = s.head;
      s.head = x;
      ++s.free;
    }
  }
};

}  // namespace ct
