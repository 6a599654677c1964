#include "core/caching_allocator.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/allocator.h"
#include "core/error.h"

namespace ct {
namespace {

constexpr size_t kKiB = size_t(1) << 10;
constexpr size_t kMiB = size_t(1) << 20;
using Stats = CachingAllocator::Stats;

// Raw "device" memory from the host heap: counts calls, keeps a byte budget, can be told to fail,
// and logs events ("alloc 2097152", "alloc-fail 2097152", "free 2097152", and the tests' own) in order.
class FakeDevice {
 public:
  explicit FakeDevice(size_t budget = size_t(1) << 30) : budget_(budget) {}
  ~FakeDevice() {
    for (auto& kv : live_) std::free(kv.first);
  }

  RawDeviceMemory raw() { return RawDeviceMemory{this, &FakeDevice::allocate, &FakeDevice::release}; }

  void log(const std::string& event) {
    std::lock_guard<std::mutex> g(mu_);
    events_.push_back(event);
  }
  std::vector<std::string> events() {
    std::lock_guard<std::mutex> g(mu_);
    return events_;
  }
  void set_budget(size_t b) {
    std::lock_guard<std::mutex> g(mu_);
    budget_ = b;
  }
  void fail_next(int n) {
    std::lock_guard<std::mutex> g(mu_);
    fail_next_ = n;
  }
  int allocs() { std::lock_guard<std::mutex> g(mu_); return allocs_; }
  int frees() { std::lock_guard<std::mutex> g(mu_); return frees_; }
  size_t used() { std::lock_guard<std::mutex> g(mu_); return used_; }
  size_t live() { std::lock_guard<std::mutex> g(mu_); return live_.size(); }
  std::vector<int> devices_seen() { std::lock_guard<std::mutex> g(mu_); return devices_; }
  int bad_frees() { std::lock_guard<std::mutex> g(mu_); return bad_frees_; }

 private:
  static bool allocate(void* ctx, int device, size_t n, void** out) {
    auto* self = static_cast<FakeDevice*>(ctx);
    std::lock_guard<std::mutex> g(self->mu_);
    self->devices_.push_back(device);
    if (self->fail_next_ > 0 || self->used_ + n > self->budget_) {
      if (self->fail_next_ > 0) --self->fail_next_;
      self->events_.push_back("alloc-fail " + std::to_string(n));
      return false;
    }
    void* p = std::aligned_alloc(512, n);  // n is a multiple of 2 MiB, so of 512
    if (!p) return false;
    ++self->allocs_;
    self->used_ += n;
    self->live_[p] = n;
    self->events_.push_back("alloc " + std::to_string(n));
    *out = p;
    return true;
  }
  static void release(void* ctx, int, void* p) {
    auto* self = static_cast<FakeDevice*>(ctx);
    std::lock_guard<std::mutex> g(self->mu_);
    auto it = self->live_.find(p);
    if (it == self->live_.end()) {
      ++self->bad_frees_;
      return;
    }
    ++self->frees_;
    self->used_ -= it->second;
    self->events_.push_back("free " + std::to_string(it->second));
    self->live_.erase(it);
    std::free(p);
  }

  std::mutex mu_;
  size_t budget_;
  size_t used_ = 0;
  int fail_next_ = 0;
  int allocs_ = 0;
  int frees_ = 0;
  int bad_frees_ = 0;
  std::map<void*, size_t> live_;
  std::vector<std::string> events_;
  std::vector<int> devices_;
};

// Installs a memory pressure hook for one test and removes it again.
class PressureHookScope {
 public:
  PressureHookScope(MemoryPressureHook hook, void* ctx) { set_memory_pressure_hook(hook, ctx); }
  ~PressureHookScope() { set_memory_pressure_hook(nullptr, nullptr); }
};

void* const kStreamA = reinterpret_cast<void*>(uintptr_t(0x1000));
void* const kStreamB = reinterpret_cast<void*>(uintptr_t(0x2000));

TEST(CachingAllocator, FreedBlockIsReusedWithoutRawAllocation) {
  FakeDevice fake;
  CachingAllocator a(fake.raw(), DeviceType::CUDA);
  void* p = a.allocate(0, 4000, nullptr);
  std::memset(p, 1, 4000);
  a.free(p);
  void* q = a.allocate(0, 4000, nullptr);
  EXPECT_EQ(q, p);
  EXPECT_EQ(fake.allocs(), 1);
  Stats s = a.stats(0);
  EXPECT_EQ(s.cache_hits, 1u);
  EXPECT_EQ(s.cache_misses, 1u);
  EXPECT_EQ(s.raw_allocs, 1u);
  a.free(q);
  a.empty_cache();
  EXPECT_EQ(fake.live(), 0u);
}

TEST(CachingAllocator, SmallRequestsSplitOneSegmentAndMergeOnFree) {
  FakeDevice fake;
  CachingAllocator a(fake.raw(), DeviceType::CUDA);
  char* p = static_cast<char*>(a.allocate(0, 1000, nullptr));
  char* q = static_cast<char*>(a.allocate(0, 1000, nullptr));
  EXPECT_EQ(fake.allocs(), 1);
  EXPECT_EQ(q, p + 1024);  // best fit takes the lowest-address remainder
  Stats s = a.stats(0);
  EXPECT_EQ(s.segments, 1u);
  EXPECT_EQ(s.reserved_bytes, 2 * kMiB);
  EXPECT_EQ(s.allocated_bytes, 2048u);
  EXPECT_EQ(s.active_blocks, 2u);
  EXPECT_EQ(s.free_blocks, 1u);  // the remainder after q
  a.free(p);
  EXPECT_EQ(a.stats(0).free_blocks, 2u);  // p cannot merge: q is still in use
  a.free(q);
  s = a.stats(0);
  EXPECT_EQ(s.free_blocks, 1u);
  EXPECT_EQ(s.active_blocks, 0u);
  EXPECT_EQ(s.allocated_bytes, 0u);
  // Only a merged segment fits 1 MiB at the segment's start (unmerged, it would start at p + 2048).
  void* whole = a.allocate(0, kMiB, nullptr);
  EXPECT_EQ(whole, p);
  a.free(whole);
  EXPECT_EQ(fake.frees(), 0);
  a.empty_cache();
  EXPECT_EQ(fake.frees(), 1);
  EXPECT_EQ(fake.live(), 0u);
  s = a.stats(0);
  EXPECT_EQ(s.segments, 0u);
  EXPECT_EQ(s.reserved_bytes, 0u);
  EXPECT_EQ(s.free_blocks, 0u);
  EXPECT_EQ(s.raw_frees, 1u);
}

TEST(CachingAllocator, FreeingTheMiddleBlockMergesBothNeighbours) {
  FakeDevice fake;
  CachingAllocator a(fake.raw(), DeviceType::CUDA);
  void* x = a.allocate(0, 512, nullptr);
  void* y = a.allocate(0, 512, nullptr);
  void* z = a.allocate(0, 512, nullptr);
  a.free(x);
  a.free(z);  // merges with the remainder after it
  EXPECT_EQ(a.stats(0).free_blocks, 2u);
  a.free(y);
  EXPECT_EQ(a.stats(0).free_blocks, 1u);
  a.empty_cache();
  EXPECT_EQ(fake.live(), 0u);
}

TEST(CachingAllocator, EmptyCacheKeepsSegmentsWithLiveBlocks) {
  FakeDevice fake;
  CachingAllocator a(fake.raw(), DeviceType::CUDA);
  void* live = a.allocate(0, 1000, nullptr);
  void* dead = a.allocate(0, 3 * kMiB, nullptr);
  a.free(dead);
  a.empty_cache();
  EXPECT_EQ(fake.frees(), 1);  // the large segment; the small one still holds `live`
  EXPECT_EQ(a.stats(0).reserved_bytes, 2 * kMiB);
  std::memset(live, 7, 1000);
  a.free(live);
  a.empty_cache();
  EXPECT_EQ(fake.live(), 0u);
}

TEST(CachingAllocator, BlocksFreedOnOneStreamAreOnlyReusedOnThatStream) {
  FakeDevice fake;
  CachingAllocator a(fake.raw(), DeviceType::CUDA);
  void* p = a.allocate(0, 4096, kStreamA);
  a.free(p);
  void* q = a.allocate(0, 4096, kStreamB);
  EXPECT_EQ(fake.allocs(), 2);  // A's cached segment is not touched
  EXPECT_NE(q, p);
  void* r = a.allocate(0, 4096, kStreamA);
  EXPECT_EQ(r, p);
  EXPECT_EQ(fake.allocs(), 2);
  a.free(q);
  void* s = a.allocate(0, 4096, nullptr);  // the default stream is a stream of its own
  EXPECT_EQ(fake.allocs(), 3);
  a.free(r);
  a.free(s);
  a.empty_cache();
  EXPECT_EQ(fake.live(), 0u);
}

TEST(CachingAllocator, DevicesHaveSeparatePoolsAndStats) {
  FakeDevice fake;
  CachingAllocator a(fake.raw(), DeviceType::CUDA);
  void* p = a.allocate(1, 4096, nullptr);
  a.free(p);
  void* q = a.allocate(0, 4096, nullptr);
  EXPECT_EQ(fake.allocs(), 2);
  EXPECT_EQ(fake.devices_seen(), (std::vector<int>{1, 0}));
  EXPECT_EQ(a.stats(0).allocated_bytes, 4096u);
  EXPECT_EQ(a.stats(1).allocated_bytes, 0u);
  EXPECT_EQ(a.stats(1).reserved_bytes, 2 * kMiB);
  EXPECT_EQ(a.stats(7).reserved_bytes, 0u);  // never used
  a.free(q);
  a.empty_cache();
  EXPECT_EQ(fake.live(), 0u);
}

TEST(CachingAllocator, SegmentSizesFollowThePool) {
  FakeDevice fake;
  CachingAllocator a(fake.raw(), DeviceType::CUDA);
  auto reserved_for = [&](size_t n) {
    void* p = a.allocate(0, n, nullptr);
    const size_t r = a.stats(0).reserved_bytes;
    a.free(p);
    a.empty_cache();
    return r;
  };
  EXPECT_EQ(reserved_for(1), 2 * kMiB);
  EXPECT_EQ(reserved_for(kMiB), 2 * kMiB);
  EXPECT_EQ(reserved_for(kMiB + 1), 20 * kMiB);
  EXPECT_EQ(reserved_for(10 * kMiB - 512), 20 * kMiB);
  EXPECT_EQ(reserved_for(10 * kMiB), 10 * kMiB);
  EXPECT_EQ(reserved_for(11 * kMiB + 1), 12 * kMiB);
  EXPECT_EQ(reserved_for(100 * kMiB), 100 * kMiB);
  EXPECT_EQ(fake.live(), 0u);
}

TEST(CachingAllocator, SmallAndLargePoolsDoNotShareBlocks) {
  FakeDevice fake;
  CachingAllocator a(fake.raw(), DeviceType::CUDA);
  void* small = a.allocate(0, 4096, nullptr);
  a.free(small);  // a free 2 MiB small segment
  void* large = a.allocate(0, kMiB + 512, nullptr);
  EXPECT_EQ(fake.allocs(), 2);  // not carved from the small segment, though it would fit
  a.free(large);  // a free 20 MiB large segment
  void* small2 = a.allocate(0, 4096, nullptr);
  EXPECT_EQ(small2, small);
  EXPECT_EQ(fake.allocs(), 2);
  a.free(small2);
  a.empty_cache();
  EXPECT_EQ(fake.live(), 0u);
}

TEST(CachingAllocator, LargeBlocksSplitOnlyForARemainderAboveOneMebibyte) {
  FakeDevice fake;
  CachingAllocator a(fake.raw(), DeviceType::CUDA);
  char* p = static_cast<char*>(a.allocate(0, 3 * kMiB, nullptr));
  char* q = static_cast<char*>(a.allocate(0, 5 * kMiB, nullptr));
  EXPECT_EQ(fake.allocs(), 1);  // both from one 20 MiB segment
  EXPECT_EQ(q, p + 3 * kMiB);
  EXPECT_EQ(a.stats(0).allocated_bytes, 8 * kMiB);
  // 12 MiB remain; 11.5 MiB leaves 0.5 MiB, too little for a large request: the block stays whole.
  void* r = a.allocate(0, 11 * kMiB + 512 * kKiB, nullptr);
  EXPECT_EQ(fake.allocs(), 1);
  EXPECT_EQ(a.stats(0).allocated_bytes, 20 * kMiB);
  EXPECT_EQ(a.stats(0).free_blocks, 0u);
  a.free(p);
  a.free(q);
  a.free(r);
  EXPECT_EQ(a.stats(0).free_blocks, 1u);
  a.empty_cache();
  EXPECT_EQ(fake.live(), 0u);
}

TEST(CachingAllocator, RequestsRoundUpTo512Bytes) {
  FakeDevice fake;
  CachingAllocator a(fake.raw(), DeviceType::CUDA);
  const std::pair<size_t, size_t> cases[] = {{1, 512}, {512, 512}, {513, 1024}, {1000, 1024}, {4097, 4608}};
  for (auto [n, rounded] : cases) {
    void* p = a.allocate(0, n, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 512, 0u) << n;
    EXPECT_EQ(a.stats(0).allocated_bytes, rounded) << n;
    a.free(p);
  }
  EXPECT_EQ(a.allocate(0, 0, nullptr), nullptr);
  EXPECT_EQ(a.stats(0).active_blocks, 0u);
  a.free(nullptr);
  a.empty_cache();
  EXPECT_EQ(fake.live(), 0u);
}

TEST(CachingAllocator, StatsTrackCurrentAndPeakUntilReset) {
  FakeDevice fake;
  CachingAllocator a(fake.raw(), DeviceType::CUDA);
  void* x = a.allocate(0, 3 * kMiB, nullptr);   // a 20 MiB segment
  void* y = a.allocate(0, 18 * kMiB, nullptr);  // too big for the 17 MiB left: an 18 MiB segment
  Stats s = a.stats(0);
  EXPECT_EQ(s.allocated_bytes, 21 * kMiB);
  EXPECT_EQ(s.peak_allocated_bytes, 21 * kMiB);
  EXPECT_EQ(s.reserved_bytes, 38 * kMiB);
  EXPECT_EQ(s.segments, 2u);
  a.free(y);
  a.empty_cache();
  s = a.stats(0);
  EXPECT_EQ(s.allocated_bytes, 3 * kMiB);
  EXPECT_EQ(s.peak_allocated_bytes, 21 * kMiB);
  EXPECT_EQ(s.reserved_bytes, 20 * kMiB);
  EXPECT_EQ(s.peak_reserved_bytes, 38 * kMiB);
  a.reset_peak_stats(0);
  s = a.stats(0);
  EXPECT_EQ(s.peak_allocated_bytes, 3 * kMiB);
  EXPECT_EQ(s.peak_reserved_bytes, 20 * kMiB);
  void* z = a.allocate(0, kMiB + 512, nullptr);  // from x's segment
  a.free(z);
  s = a.stats(0);
  EXPECT_EQ(s.peak_allocated_bytes, 4 * kMiB + 512);
  EXPECT_EQ(s.peak_reserved_bytes, 20 * kMiB);
  EXPECT_EQ(s.raw_allocs, 2u);
  EXPECT_EQ(s.raw_frees, 1u);
  EXPECT_EQ(s.cache_misses, 2u);
  EXPECT_EQ(s.cache_hits, 1u);
  EXPECT_EQ(s.ooms, 0u);
  a.free(x);
  a.empty_cache();
  EXPECT_EQ(fake.live(), 0u);
}

struct HookState {
  HookState(FakeDevice* f, CachingAllocator* a) : fake(f), alloc(a) {}
  FakeDevice* fake;
  CachingAllocator* alloc;
  std::vector<void*> to_free;  // what the "garbage collector" frees, one per call
  bool result = true;
  int calls = 0;
  DeviceType device = DeviceType::CPU;
};

bool test_hook(void* ctx, DeviceType device, size_t nbytes) {
  auto* h = static_cast<HookState*>(ctx);
  ++h->calls;
  h->device = device;
  h->fake->log("hook " + std::to_string(nbytes));
  if (!h->to_free.empty()) {
    h->alloc->free(h->to_free.back());  // called without the allocator's lock, as a GC would
    h->to_free.pop_back();
  }
  return h->result;
}

TEST(CachingAllocator, OutOfMemoryFlushesTheCacheBeforeThePressureHook) {
  FakeDevice fake(40 * kMiB);
  CachingAllocator a(fake.raw(), DeviceType::CUDA);
  HookState h{&fake, &a};
  PressureHookScope scope(test_hook, &h);
  void* cached = a.allocate(0, 12 * kMiB, kStreamB);  // 12 MiB segment, freed into B's pool
  void* live = a.allocate(0, 20 * kMiB, kStreamA);    // 20 MiB segment, live
  a.free(cached);
  h.to_free.push_back(live);
  // 22 MiB fits only after both the cached segment (another stream's) and the live one go back.
  void* big = a.allocate(0, 22 * kMiB, kStreamA);
  ASSERT_NE(big, nullptr);
  const std::vector<std::string> expected = {
      "alloc 12582912", "alloc 20971520",
      "alloc-fail 23068672",  // first try
      "free 12582912",        // (1) the cache is flushed, all streams
      "alloc-fail 23068672",  // retried
      "hook 23068672",        // (2) the hook frees `live` into the cache
      "free 20971520",        // which is flushed again
      "alloc 23068672"};      // and the retry succeeds
  EXPECT_EQ(fake.events(), expected);
  EXPECT_EQ(h.calls, 1);
  EXPECT_EQ(h.device, DeviceType::CUDA);
  Stats s = a.stats(0);
  EXPECT_EQ(s.ooms, 0u);
  EXPECT_EQ(s.allocated_bytes, 22 * kMiB);
  EXPECT_EQ(s.reserved_bytes, 22 * kMiB);
  a.free(big);
  a.empty_cache();
  EXPECT_EQ(fake.live(), 0u);
}

TEST(CachingAllocator, FlushingTheCacheAloneAvoidsThePressureHook) {
  FakeDevice fake(24 * kMiB);
  CachingAllocator a(fake.raw(), DeviceType::CUDA);
  HookState h{&fake, &a};
  PressureHookScope scope(test_hook, &h);
  void* p = a.allocate(0, 20 * kMiB, nullptr);
  a.free(p);
  void* q = a.allocate(0, 22 * kMiB, nullptr);
  EXPECT_EQ(h.calls, 0);
  EXPECT_EQ(fake.allocs(), 2);
  EXPECT_EQ(fake.frees(), 1);
  a.free(q);
  a.empty_cache();
}

TEST(CachingAllocator, BlockFreedByTheHookIsReusedFromThePool) {
  FakeDevice fake(20 * kMiB);
  CachingAllocator a(fake.raw(), DeviceType::CUDA);
  HookState h{&fake, &a};
  PressureHookScope scope(test_hook, &h);
  char* x = static_cast<char*>(a.allocate(0, 8 * kMiB, nullptr));
  void* y = a.allocate(0, 12 * kMiB, nullptr);  // fills the 20 MiB segment with x
  h.to_free.push_back(x);
  void* z = a.allocate(0, 6 * kMiB, nullptr);  // no room for a segment; x's block serves it
  EXPECT_EQ(z, x);
  EXPECT_EQ(h.calls, 1);
  EXPECT_EQ(fake.allocs(), 1);
  a.free(y);
  a.free(z);
  a.empty_cache();
  EXPECT_EQ(fake.live(), 0u);
}

// Runs f, which must raise ct::Error; returns it.
template <typename F>
Error error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no ct::Error raised";
  return Error(CT_OK, "");
}

TEST(CachingAllocator, OutOfMemoryRaisesAfterThePressureRetries) {
  FakeDevice fake(30 * kMiB);
  CachingAllocator a(fake.raw(), DeviceType::CUDA);
  HookState h{&fake, &a};  // returns true but frees nothing
  PressureHookScope scope(test_hook, &h);
  void* x = a.allocate(3, 3 * kMiB, nullptr);  // one 20 MiB segment: x, y, 12 MiB free
  void* y = a.allocate(3, 5 * kMiB, nullptr);
  a.free(x);  // 5 MiB allocated, 20 MiB reserved, 15 MiB free in the cache
  Error e = error_of([&] { a.allocate(3, 14 * kMiB, nullptr); });
  EXPECT_EQ(e.status(), CT_ERROR_OUT_OF_MEMORY);
  const std::string msg = e.message();
  for (const char* part : {"allocate: out of memory on cuda:3", "requested 14.00 MiB", "5.00 MiB allocated",
                           "20.00 MiB reserved", "15.00 MiB of that free in the cache", "Free tensors",
                           "empty_cache()", "smaller sizes"})
    EXPECT_NE(msg.find(part), std::string::npos) << part << " not in: " << msg;
  EXPECT_EQ(h.calls, kPressureRetries);
  Stats s = a.stats(3);
  EXPECT_EQ(s.ooms, 1u);
  EXPECT_EQ(s.allocated_bytes, 5 * kMiB);  // the failure changed nothing
  EXPECT_EQ(s.active_blocks, 1u);
  // Still usable: with y gone the segment is whole, flushed on the next failure, and 14 MiB fits.
  a.free(y);
  void* z = a.allocate(3, 14 * kMiB, nullptr);
  EXPECT_NE(z, nullptr);
  EXPECT_EQ(a.stats(3).ooms, 1u);
  a.free(z);
  a.empty_cache();
  EXPECT_EQ(fake.live(), 0u);
}

TEST(CachingAllocator, HookThatFreesNothingIsCalledOnce) {
  FakeDevice fake(8 * kMiB);
  CachingAllocator a(fake.raw(), DeviceType::CUDA);
  HookState h{&fake, &a};
  h.result = false;
  PressureHookScope scope(test_hook, &h);
  Error e = error_of([&] { a.allocate(0, 2 * kMiB, nullptr); });
  EXPECT_EQ(e.status(), CT_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(h.calls, 1);
  EXPECT_EQ(a.stats(0).ooms, 1u);
}

TEST(CachingAllocator, OutOfMemoryWithoutAHookAndForHugeRequests) {
  FakeDevice fake(4 * kMiB);
  CachingAllocator a(fake.raw(), DeviceType::CUDA);
  EXPECT_EQ(error_of([&] { a.allocate(0, 4 * kMiB, nullptr); }).status(), CT_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(error_of([&] { a.allocate(0, SIZE_MAX, nullptr); }).status(), CT_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(a.stats(0).ooms, 2u);
  EXPECT_EQ(fake.live(), 0u);
}

TEST(CachingAllocator, RawFailureOtherThanOutOfMemoryPropagates) {
  struct Throwing {
    static bool allocate(void*, int, size_t, void**) { throw Error(CT_ERROR_BACKEND, "cudaMalloc: launch failure"); }
    static void release(void*, int, void*) {}
  };
  CachingAllocator a(RawDeviceMemory{nullptr, &Throwing::allocate, &Throwing::release}, DeviceType::CUDA);
  Error e = error_of([&] { a.allocate(0, 100, nullptr); });
  EXPECT_EQ(e.status(), CT_ERROR_BACKEND);
  EXPECT_EQ(a.stats(0).ooms, 0u);
  EXPECT_EQ(a.stats(0).segments, 0u);
}

TEST(CachingAllocator, FreeingAForeignPointerIsInvalidArgument) {
  FakeDevice fake;
  CachingAllocator a(fake.raw(), DeviceType::CUDA);
  int on_stack = 0;
  Error e = error_of([&] { a.free(&on_stack); });
  EXPECT_EQ(e.status(), CT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("not handed out by this cuda allocator"), std::string::npos) << e.message();
  char* p = static_cast<char*>(a.allocate(0, 4096, nullptr));
  EXPECT_EQ(error_of([&] { a.free(p + 512); }).status(), CT_ERROR_INVALID_ARGUMENT);  // interior
  a.free(p);
  EXPECT_EQ(error_of([&] { a.free(p); }).status(), CT_ERROR_INVALID_ARGUMENT);  // twice
  Stats s = a.stats(0);
  EXPECT_EQ(s.active_blocks, 0u);
  EXPECT_EQ(s.free_blocks, 1u);
  a.empty_cache();
  EXPECT_EQ(fake.live(), 0u);
  EXPECT_EQ(fake.bad_frees(), 0);
}

TEST(CachingAllocator, NegativeDeviceIsInvalidArgument) {
  FakeDevice fake;
  CachingAllocator a(fake.raw(), DeviceType::CUDA);
  EXPECT_EQ(error_of([&] { a.allocate(-1, 100, nullptr); }).status(), CT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(fake.allocs(), 0);
}

TEST(CachingAllocator, ConcurrentAllocateAndFreeLeaveNothingBehind) {
  FakeDevice fake(256 * kMiB);  // tight enough that the out-of-memory path runs under contention
  CachingAllocator a(fake.raw(), DeviceType::CUDA);
  constexpr int kThreads = 4;
  constexpr int kSteps = 20000;
  std::atomic<int> ooms{0};
  std::atomic<int> corrupted{0};
  auto worker = [&](int t) {
    std::mt19937 rng(1234 + t);
    struct Live { unsigned char* p; size_t n; int device; };
    std::vector<Live> live;
    void* streams[] = {nullptr, reinterpret_cast<void*>(uintptr_t(0x100 + t)), kStreamA};
    const unsigned char tag = static_cast<unsigned char>(0x40 + t);
    auto check_and_free = [&](size_t i) {
      Live b = live[i];
      const size_t k = b.n < 64 ? b.n : 64;
      for (size_t j = 0; j < k; ++j)
        if (b.p[j] != tag || b.p[b.n - 1 - j] != tag) ++corrupted;
      a.free(b.p);
      live[i] = live.back();
      live.pop_back();
    };
    for (int step = 0; step < kSteps; ++step) {
      if (!live.empty() && (live.size() >= 6 || rng() % 2)) {
        check_and_free(rng() % live.size());
        continue;
      }
      const unsigned kind = rng() % 20;  // 70% small, 25% medium (20 MiB segments), 5% large
      const size_t n = kind < 14   ? 1 + rng() % kMiB
                       : kind < 19 ? kMiB + rng() % (9 * kMiB)
                                   : 10 * kMiB + rng() % (14 * kMiB);
      const int device = static_cast<int>(rng() % 2);
      try {
        auto* p = static_cast<unsigned char*>(a.allocate(device, n, streams[rng() % 3]));
        const size_t k = n < 64 ? n : 64;
        std::memset(p, tag, k);
        std::memset(p + n - k, tag, k);
        live.push_back({p, n, device});
      } catch (const Error& e) {
        if (e.status() != CT_ERROR_OUT_OF_MEMORY) throw;
        ++ooms;
      }
    }
    while (!live.empty()) check_and_free(live.size() - 1);
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);
  for (auto& th : threads) th.join();
  EXPECT_EQ(corrupted.load(), 0);
  for (int device : {0, 1}) {
    Stats s = a.stats(device);
    EXPECT_EQ(s.allocated_bytes, 0u) << device;
    EXPECT_EQ(s.active_blocks, 0u) << device;
    EXPECT_GT(s.cache_hits, 0u) << device;
  }
  EXPECT_EQ(uint64_t(ooms.load()), a.stats(0).ooms + a.stats(1).ooms);
  EXPECT_LT(ooms.load(), kThreads * kSteps / 10);  // the budget is tight, not hopeless
  a.empty_cache();
  EXPECT_EQ(fake.live(), 0u);
  EXPECT_EQ(fake.used(), 0u);
  EXPECT_EQ(fake.bad_frees(), 0);
  for (int device : {0, 1}) {
    Stats s = a.stats(device);
    EXPECT_EQ(s.reserved_bytes, 0u) << device;
    EXPECT_EQ(s.segments, 0u) << device;
    EXPECT_EQ(s.free_blocks, 0u) << device;
    EXPECT_EQ(s.raw_allocs, s.raw_frees) << device;
  }
}

}  // namespace
}  // namespace ct
