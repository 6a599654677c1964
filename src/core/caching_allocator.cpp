#include "core/caching_allocator.h"

#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "core/allocator.h"
#include "core/error.h"

namespace ct {

// A piece of a segment. The blocks of a segment form a doubly linked list in address order.
// INVARIANT: prev == next == nullptr exactly when the block is a whole segment; neighbours share
// device, stream and pool; two free neighbours never exist (free merges them).
struct CachingAllocator::Block {
  char* ptr;
  size_t size;
  void* stream;
  int device;
  bool small;  // from the small pool (a kSmallBuffer segment)
  bool allocated = false;
  Block* prev = nullptr;
  Block* next = nullptr;
};

bool CachingAllocator::BlockLess::operator()(const Block* a, const Block* b) const {
  if (a->stream != b->stream) return std::less<void*>()(a->stream, b->stream);
  if (a->size != b->size) return a->size < b->size;
  return std::less<char*>()(a->ptr, b->ptr);
}

namespace {

size_t round_size(size_t n) { return n < CachingAllocator::kRoundBytes ? CachingAllocator::kRoundBytes
                                                                       : (n + 511) & ~size_t(511); }

size_t segment_size(size_t size) {
  if (size <= CachingAllocator::kSmallSize) return CachingAllocator::kSmallBuffer;
  if (size < CachingAllocator::kMinLargeAlloc) return CachingAllocator::kLargeBuffer;
  const size_t r = CachingAllocator::kRoundLarge;
  return (size + r - 1) / r * r;
}

// A remainder is worth a block of its own only if some request of the same pool can use it.
bool should_split(size_t block_size, size_t size, bool small) {
  const size_t rest = block_size - size;
  return small ? rest >= CachingAllocator::kRoundBytes : rest > CachingAllocator::kSmallSize;
}

std::string format_bytes(size_t n) {
  static const char* const kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  if (n < 1024) return str(n, " bytes");
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f %s", v, kUnits[u]);
  return buf;
}

const char* type_name(DeviceType type) {
  const char* name = device_type_name(type);
  return name ? name : "unregistered_plugin";
}

void note_peak(size_t current, size_t& peak) {
  if (current > peak) peak = current;
}

}  // namespace

CachingAllocator::CachingAllocator(RawDeviceMemory raw, DeviceType type) : raw_(raw), type_(type) {
  CT_CHECK(raw.allocate && raw.free, CT_ERROR_INVALID_ARGUMENT,
           "CachingAllocator: the raw allocate and free functions must both be set");
}

CachingAllocator::~CachingAllocator() {
  // Bookkeeping only; see the header for why no memory goes back to the raw allocator. Every
  // block is either handed out (in active_) or cached (in a pool).
  for (auto& kv : active_) delete kv.second;
  for (auto& kv : devices_) {
    for (Block* b : kv.second.small_free) delete b;
    for (Block* b : kv.second.large_free) delete b;
  }
}

void* CachingAllocator::allocate(int device, size_t nbytes, void* stream) {
  CT_CHECK(device >= 0, CT_ERROR_INVALID_ARGUMENT, "allocate: device index ", device, " is negative (",
           type_name(type_), "). Resolve the device index before allocating");
  if (nbytes == 0) return nullptr;
  std::unique_lock<std::mutex> lock(mu_);
  DeviceState& d = devices_[device];
  if (nbytes > kMaxRequest) fail_out_of_memory(d, device, nbytes, nbytes);
  const size_t size = round_size(nbytes);
  const bool small = size <= kSmallSize;
  BlockSet& pool = small ? d.small_free : d.large_free;

  Block* b = take_free_block(pool, stream, size);
  if (b) {
    ++d.stats.cache_hits;
  } else {
    b = new_segment(lock, d, device, stream, size, nbytes);
  }
  if (should_split(b->size, size, small)) {
    auto rest = std::make_unique<Block>(Block{b->ptr + size, b->size - size, stream, device, small});
    rest->prev = b;
    rest->next = b->next;
    if (b->next) b->next->prev = rest.get();
    b->next = rest.get();
    b->size = size;
    pool.insert(rest.release());
  }
  b->allocated = true;
  active_.emplace(b->ptr, b);
  d.stats.allocated_bytes += b->size;
  note_peak(d.stats.allocated_bytes, d.stats.peak_allocated_bytes);
  ++d.stats.active_blocks;
  return b->ptr;
}

CachingAllocator::Block* CachingAllocator::take_free_block(BlockSet& pool, void* stream, size_t size) {
  Block key{nullptr, size, stream, 0, false};
  auto it = pool.lower_bound(&key);  // the smallest block of this stream that fits (then lowest address)
  if (it == pool.end() || (*it)->stream != stream) return nullptr;
  Block* b = *it;
  pool.erase(it);
  return b;
}

bool CachingAllocator::raw_allocate(DeviceState& d, int device, size_t nbytes, void** out) {
  *out = nullptr;
  if (!raw_.allocate(raw_.ctx, device, nbytes, out) || !*out) return false;
  ++d.stats.raw_allocs;
  ++d.stats.segments;
  d.stats.reserved_bytes += nbytes;
  note_peak(d.stats.reserved_bytes, d.stats.peak_reserved_bytes);
  return true;
}

// Returns a block taken out of the pool (a whole new segment, or after the pressure hook, any
// fitting cached block); raises CT_ERROR_OUT_OF_MEMORY. See Note [Device out of memory].
CachingAllocator::Block* CachingAllocator::new_segment(std::unique_lock<std::mutex>& lock, DeviceState& d,
                                                       int device, void* stream, size_t size, size_t nbytes) {
  const bool small = size <= kSmallSize;
  BlockSet& pool = small ? d.small_free : d.large_free;
  const size_t seg = segment_size(size);
  auto block = std::make_unique<Block>(Block{nullptr, seg, stream, device, small});
  void* p = nullptr;
  bool ok = raw_allocate(d, device, seg, &p);
  if (!ok) {
    release_cached_segments(d, device);
    ok = raw_allocate(d, device, seg, &p);
  }
  for (int i = 0; !ok && i < kPressureRetries; ++i) {
    lock.unlock();  // the hook may free tensors, which calls free()
    const bool relieved = relieve_memory_pressure(type_, seg);
    lock.lock();
    if (!relieved) break;
    if (Block* b = take_free_block(pool, stream, size)) {
      ++d.stats.cache_hits;
      return b;
    }
    release_cached_segments(d, device);
    ok = raw_allocate(d, device, seg, &p);
  }
  if (!ok) fail_out_of_memory(d, device, nbytes, seg);
  ++d.stats.cache_misses;
  block->ptr = static_cast<char*>(p);
  return block.release();
}

void CachingAllocator::release_cached_segments(DeviceState& d, int device) {
  for (BlockSet* pool : {&d.small_free, &d.large_free}) {
    for (auto it = pool->begin(); it != pool->end();) {
      Block* b = *it;
      if (b->prev || b->next) {
        ++it;
        continue;
      }
      it = pool->erase(it);
      raw_.free(raw_.ctx, device, b->ptr);
      ++d.stats.raw_frees;
      --d.stats.segments;
      d.stats.reserved_bytes -= b->size;
      delete b;
    }
  }
}

void CachingAllocator::fail_out_of_memory(DeviceState& d, int device, size_t nbytes, size_t segment_bytes) {
  ++d.stats.ooms;
  const size_t cached = d.stats.reserved_bytes - d.stats.allocated_bytes;
  fail(CT_ERROR_OUT_OF_MEMORY,
       str("allocate: out of memory on ", type_name(type_), ":", device, " (requested ", format_bytes(nbytes),
           ", needing a new segment of ", format_bytes(segment_bytes), "; ", format_bytes(d.stats.allocated_bytes),
           " allocated, ", format_bytes(d.stats.reserved_bytes), " reserved, ", format_bytes(cached),
           " of that free in the cache). Free tensors you no longer need, call empty_cache() to give cached ",
           "memory back to the device for other users, or use smaller sizes (a smaller batch, say)"));
}

void CachingAllocator::free(void* p) {
  if (!p) return;
  std::lock_guard<std::mutex> g(mu_);
  auto it = active_.find(p);
  if (it == active_.end()) {
    char addr[32];
    std::snprintf(addr, sizeof addr, "%p", p);
    fail(CT_ERROR_INVALID_ARGUMENT,
         str("free: pointer ", addr, " was not handed out by this ",
             type_name(type_), " allocator, or was freed already. Free only pointers from allocate, and each once"));
  }
  Block* b = it->second;
  active_.erase(it);
  DeviceState& d = devices_.at(b->device);
  BlockSet& pool = b->small ? d.small_free : d.large_free;
  b->allocated = false;
  d.stats.allocated_bytes -= b->size;
  --d.stats.active_blocks;
  if (Block* prev = b->prev; prev && !prev->allocated) {  // prev absorbs b
    pool.erase(prev);
    prev->size += b->size;
    prev->next = b->next;
    if (b->next) b->next->prev = prev;
    delete b;
    b = prev;
  }
  if (Block* next = b->next; next && !next->allocated) {  // b absorbs next
    pool.erase(next);
    b->size += next->size;
    b->next = next->next;
    if (next->next) next->next->prev = b;
    delete next;
  }
  pool.insert(b);
}

void CachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> g(mu_);
  for (auto& kv : devices_) release_cached_segments(kv.second, kv.first);
}

CachingAllocator::Stats CachingAllocator::stats(int device) const {
  std::lock_guard<std::mutex> g(mu_);
  auto it = devices_.find(device);
  if (it == devices_.end()) return Stats{};
  Stats s = it->second.stats;
  s.free_blocks = it->second.small_free.size() + it->second.large_free.size();
  return s;
}

void CachingAllocator::reset_peak_stats(int device) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = devices_.find(device);
  if (it == devices_.end()) return;
  it->second.stats.peak_allocated_bytes = it->second.stats.allocated_bytes;
  it->second.stats.peak_reserved_bytes = it->second.stats.reserved_bytes;
}

}  // namespace ct
