#include "core/allocator.h"

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <new>

#include "core/error.h"
#include "core/fault_injection.h"

namespace ct {
namespace {

constexpr size_t kAlign = 64;
constexpr size_t kCacheMin = size_t(64) << 10;
constexpr size_t kCacheLimit = size_t(1) << 30;

std::atomic<size_t> g_allocated{0};  // bytes out of cpu_allocate (as requested, rounded)
std::atomic<size_t> g_live_blocks{0};  // blocks out of cpu_allocate

struct Cache {
  std::mutex mu;
  std::multimap<size_t, void*> blocks;  // rounded size -> block
  size_t bytes = 0;
};
Cache& cache() {
  static Cache* c = new Cache;  // never destroyed: tensors may be freed during static destruction
  return *c;
}

// The size a request really gets: whole pages for cacheable blocks, 64-byte multiples below.
// cpu_allocate and cpu_free must agree on it, or a freed block is cached as larger than it is.
size_t block_size(size_t n) {
  if (n == 0) n = 1;
  return n >= kCacheMin ? (n + 4095) & ~size_t(4095) : (n + kAlign - 1) & ~(kAlign - 1);
}

struct PressureHook {
  std::mutex mu;
  MemoryPressureHook fn = nullptr;
  void* ctx = nullptr;
};
PressureHook& pressure_hook() {
  static PressureHook* h = new PressureHook;
  return *h;
}

void* system_allocate(size_t rounded) {
  void* p = ct::fault::aligned_alloc(kAlign, rounded);
  if (p) return p;
  cpu_empty_cache();
  p = ct::fault::aligned_alloc(kAlign, rounded);
  for (int i = 0; !p && i < kPressureRetries && relieve_memory_pressure(DeviceType::CPU, rounded); ++i)
    p = ct::fault::aligned_alloc(kAlign, rounded);
  return p;
}

}  // namespace

void* cpu_allocate(size_t nbytes) {
  const size_t rounded = block_size(nbytes);
  if (rounded >= kCacheMin) {
    Cache& c = cache();
    std::lock_guard<std::mutex> g(c.mu);
    auto it = c.blocks.lower_bound(rounded);
    if (it != c.blocks.end() && it->first - rounded <= it->first / 4) {
      // The caller frees it under its own (smaller) size: the cache then under-counts, never over.
      void* p = it->second;
      c.bytes -= it->first;
      c.blocks.erase(it);
      g_allocated.fetch_add(rounded, std::memory_order_relaxed);
      g_live_blocks.fetch_add(1, std::memory_order_relaxed);
      return p;
    }
  }
  void* p = system_allocate(rounded);
  CT_CHECK(p, CT_ERROR_OUT_OF_MEMORY, "allocate: could not allocate ", nbytes,
           " bytes on cpu. Free tensors or reduce the sizes");
  g_allocated.fetch_add(rounded, std::memory_order_relaxed);
  g_live_blocks.fetch_add(1, std::memory_order_relaxed);
  return p;
}

void cpu_free(void* p, size_t nbytes) {
  if (!p) return;
  const size_t rounded = block_size(nbytes);
  g_allocated.fetch_sub(rounded, std::memory_order_relaxed);
  g_live_blocks.fetch_sub(1, std::memory_order_relaxed);
  if (rounded >= kCacheMin) {
    Cache& c = cache();
    std::lock_guard<std::mutex> g(c.mu);
    if (c.bytes + rounded <= kCacheLimit) {
      try {
        c.blocks.emplace(rounded, p);
        c.bytes += rounded;
        return;
      } catch (const std::bad_alloc&) {  // freeing runs in destructors: with no room to keep it, free it
        fault::failure_absorbed();
      }
    }
  }
  std::free(p);
}

void set_memory_pressure_hook(MemoryPressureHook hook, void* ctx) {
  PressureHook& h = pressure_hook();
  std::lock_guard<std::mutex> g(h.mu);
  h.fn = hook;
  h.ctx = ctx;
}

bool relieve_memory_pressure(DeviceType device, size_t nbytes) {
  // An allocation that fails inside the hook (the host's collector making tensors) must not call
  // the hook again: that recursion would only end when the stack overflows.
  thread_local bool in_hook = false;
  if (in_hook) return false;
  PressureHook& h = pressure_hook();
  MemoryPressureHook fn;
  void* ctx;
  {
    std::lock_guard<std::mutex> g(h.mu);
    fn = h.fn;
    ctx = h.ctx;
  }
  if (!fn) return false;
  struct InHook {
    InHook() { in_hook = true; }
    ~InHook() { in_hook = false; }
  } scope;
  return fn(ctx, device, nbytes);
}

void cpu_empty_cache() {
  Cache& c = cache();
  std::lock_guard<std::mutex> g(c.mu);
  for (auto& kv : c.blocks) std::free(kv.second);
  c.blocks.clear();
  c.bytes = 0;
}

size_t cpu_allocated_bytes() { return g_allocated.load(std::memory_order_relaxed); }

size_t cpu_live_allocations() { return g_live_blocks.load(std::memory_order_relaxed); }

size_t cpu_cached_bytes() {
  Cache& c = cache();
  std::lock_guard<std::mutex> g(c.mu);
  return c.bytes;
}

}  // namespace ct
