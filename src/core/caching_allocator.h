// caching_allocator.h - CachingAllocator: device memory cached in per-device, per-stream pools.
//
// The policy half of device memory management (PyTorch's CUDACachingAllocator is the model). It
// knows nothing about CUDA: raw memory comes from a RawDeviceMemory function table (cudaMalloc and
// cudaFree in the CUDA backend, a fake over host memory in the tests).
//
// Note [Caching device memory]
// A raw device allocation (cudaMalloc) is slow and a raw free (cudaFree) synchronizes the whole
// device, so a training step that allocates and frees thousands of tensors must not reach them.
// The allocator gets memory from the raw allocator in segments, carves blocks out of them, and
// keeps freed blocks for later requests; memory goes back only on empty_cache() or when a raw
// allocation fails (see Note [Device out of memory]).
//
// - Rounding. Requests round up to a multiple of kRoundBytes (512), so sizes that differ by a few
//   bytes share blocks and every block starts 512-byte aligned (segments are aligned at least that
//   much by the raw allocator), which vectorized kernels need.
// - Two pools. Requests of at most kSmallSize (1 MiB) come from kSmallBuffer (2 MiB) segments;
//   larger ones from kLargeBuffer (20 MiB) segments while under kMinLargeAlloc (10 MiB), so a few
//   medium tensors share one raw allocation, and from a segment of their own size rounded up to
//   kRoundLarge (2 MiB) at 10 MiB and above. Small and large blocks never mix, so a long-lived
//   small tensor cannot pin a large segment and fragment it.
// - Splitting. The best-fitting free block (smallest size that fits, by ordered set) is split when
//   the remainder is usable: any remainder (>= 512 bytes) in the small pool, more than kSmallSize
//   in the large pool (a smaller remainder could only serve small requests, which never come from
//   large segments, so it stays inside the block). Free neighbours within a segment are merged on
//   free, so a segment whose blocks are all freed is one free block again and empty_cache() can
//   return it.
// - Streams. A block belongs to the stream it was allocated on and returns to that stream's pool on
//   free. Work on one stream runs in order, so a block freed on stream S may be handed out again on
//   S at once: the new user's kernels are queued behind the old user's. On another stream they
//   could run concurrently with the old kernels, so pools are per (device, stream) and a block freed
//   on S is only reused by requests on S.
//
// Note [Cross-stream use needs the caller's synchronization]
// There is no record_stream: the allocator only knows the stream a block was allocated on. A
// caller that uses a block on another stream T must make the allocation stream wait for T (an
// event recorded on T, waited on by S), or synchronize T, before calling free; otherwise the block
// may be handed out again on S while T's kernels still read or write it.
//
// Note [Device out of memory]
// When the raw allocator refuses a segment: (1) every unused whole segment of that device (all
// streams) goes back to the raw allocator and the request is retried; (2) the memory pressure hook
// (Note [Memory pressure] in core/allocator.h) runs with the size of the refused segment, at most
// kPressureRetries times while it returns true; it may free tensors, which return blocks to this
// allocator, so after each call the request first looks in the pool again, then the cache is
// flushed once more and the raw allocation retried; (3) the request fails with
// CT_ERROR_OUT_OF_MEMORY, naming the device, the request and the allocated / reserved / cached
// bytes. The hook runs without the allocator's lock.
//
// Threads: every member function may be called from any thread; one mutex guards the pools and
// statistics. The raw functions are called with that mutex held (so they must not call back into
// this allocator); the pressure hook is called without it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <set>
#include <unordered_map>

#include "core/device.h"

namespace ct {

/// Raw device memory, as a function table filled at run time (by the CUDA backend, or a test).
struct RawDeviceMemory {
  void* ctx = nullptr;
  /// Sets *out to nbytes of device memory (aligned to at least 512 bytes) and returns true; returns
  /// false when the device is out of memory. Other failures raise ct::Error.
  bool (*allocate)(void* ctx, int device, size_t nbytes, void** out) = nullptr;
  /// Gives back a pointer from allocate, with its device.
  void (*free)(void* ctx, int device, void* p) = nullptr;
};

/// Device memory in per-device, per-stream pools of cached blocks. See Note [Caching device memory].
class CachingAllocator {
 public:
  static constexpr size_t kRoundBytes = 512;                  // every block size is a multiple
  static constexpr size_t kSmallSize = size_t(1) << 20;       // largest request of the small pool
  static constexpr size_t kSmallBuffer = size_t(2) << 20;     // segment size of the small pool
  static constexpr size_t kLargeBuffer = size_t(20) << 20;    // segment size for 1 MiB < size < 10 MiB
  static constexpr size_t kMinLargeAlloc = size_t(10) << 20;  // from here a segment fits its request
  static constexpr size_t kRoundLarge = size_t(2) << 20;      // ... rounded up to this
  static constexpr size_t kMaxRequest = size_t(1) << 48;      // larger requests fail at once

  /// Counters for one device; bytes are rounded block and segment sizes.
  struct Stats {
    size_t allocated_bytes = 0;       // in blocks handed out and not freed
    size_t peak_allocated_bytes = 0;  // since construction or reset_peak_stats
    size_t reserved_bytes = 0;        // in segments held from the raw allocator
    size_t peak_reserved_bytes = 0;
    size_t active_blocks = 0;  // blocks handed out and not freed
    size_t free_blocks = 0;    // unused blocks cached in the pools
    size_t segments = 0;       // raw allocations held
    uint64_t cache_hits = 0;   // requests served from a pool
    uint64_t cache_misses = 0; // requests that needed a new segment
    uint64_t raw_allocs = 0;   // successful raw allocate calls
    uint64_t raw_frees = 0;    // raw free calls
    uint64_t ooms = 0;         // requests that failed with CT_ERROR_OUT_OF_MEMORY
  };

  /// Serves devices of one type (named in messages and passed to the pressure hook).
  CachingAllocator(RawDeviceMemory raw, DeviceType type);
  /// Deletes the bookkeeping but gives no memory back to the raw allocator: the process-wide
  /// instance is never destroyed (tensors may be freed during static destruction, and at exit the
  /// device runtime may be gone already, so a cudaFree would fail); the process's device memory
  /// goes with the process. A test calls empty_cache() first.
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  /// nbytes of memory on the device, for use on stream (null: the default stream); null for 0
  /// bytes. Raises CT_ERROR_OUT_OF_MEMORY (Note [Device out of memory]), CT_ERROR_INVALID_ARGUMENT
  /// for a negative device.
  void* allocate(int device, size_t nbytes, void* stream);
  /// Returns p (from allocate) to the pool of its device and allocation stream; null is a no-op.
  /// Raises CT_ERROR_INVALID_ARGUMENT for a pointer not handed out by this allocator or freed.
  /// See Note [Cross-stream use needs the caller's synchronization].
  void free(void* p);
  /// Gives every unused whole segment, of every device and stream, back to the raw allocator.
  void empty_cache();
  /// The counters of one device (zeros for a device never used).
  Stats stats(int device) const;
  /// Sets the device's peaks to the current values.
  void reset_peak_stats(int device);

 private:
  struct Block;
  struct BlockLess {
    bool operator()(const Block* a, const Block* b) const;
  };
  using BlockSet = std::set<Block*, BlockLess>;
  struct DeviceState {
    BlockSet small_free;  // INVARIANT: unused blocks of small segments, ordered by (stream, size, ptr)
    BlockSet large_free;
    Stats stats;
  };

  Block* take_free_block(BlockSet& pool, void* stream, size_t size);
  Block* new_segment(std::unique_lock<std::mutex>& lock, DeviceState& d, int device, void* stream, size_t size,
                     size_t nbytes);
  bool raw_allocate(DeviceState& d, int device, size_t nbytes, void** out);
  void release_cached_segments(DeviceState& d, int device);
  [[noreturn]] void fail_out_of_memory(DeviceState& d, int device, size_t nbytes, size_t segment_bytes);

  RawDeviceMemory raw_;
  DeviceType type_;
  mutable std::mutex mu_;
  std::unordered_map<int, DeviceState> devices_;  // by device index; references stay valid
  std::unordered_map<void*, Block*> active_;       // INVARIANT: exactly the blocks handed out
};

}  // namespace ct
