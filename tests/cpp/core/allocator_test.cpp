#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "core/allocator.h"

TEST(CpuAllocator, ReturnsSixtyFourByteAlignedBlocks) {
  for (size_t n : {size_t(0), size_t(1), size_t(63), size_t(100), size_t(4097), size_t(3) << 20}) {
    void* p = ct::cpu_allocate(n);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << n;
    if (n) std::memset(p, 0xab, n);
    ct::cpu_free(p, n);
  }
}

TEST(CpuAllocator, FreedLargeBlockIsReusedForTheSameSize) {
  ct::cpu_empty_cache();
  const size_t n = (size_t(1) << 20) * 3 + 123;
  void* p = ct::cpu_allocate(n);
  std::memset(p, 1, n);
  ct::cpu_free(p, n);
  EXPECT_GE(ct::cpu_cached_bytes(), n);
  void* q = ct::cpu_allocate(n);
  EXPECT_EQ(q, p);
  EXPECT_EQ(ct::cpu_cached_bytes(), 0u);
  std::memset(q, 2, n);
  ct::cpu_free(q, n);
  ct::cpu_empty_cache();
}

TEST(CpuAllocator, ExactlyOneMebibyteIsCached) {
  ct::cpu_empty_cache();
  const size_t n = size_t(1) << 20;
  void* p = ct::cpu_allocate(n);
  ct::cpu_free(p, n);
  EXPECT_EQ(ct::cpu_cached_bytes(), n);
  void* q = ct::cpu_allocate(n);
  EXPECT_EQ(q, p);
  ct::cpu_free(q, n);
  ct::cpu_empty_cache();
}

TEST(CpuAllocator, EmptyCacheGivesEveryBlockBack) {
  ct::cpu_empty_cache();
  const size_t n = size_t(2) << 20;
  void* a = ct::cpu_allocate(n);
  void* b = ct::cpu_allocate(n);
  ct::cpu_free(a, n);
  ct::cpu_free(b, n);
  EXPECT_EQ(ct::cpu_cached_bytes(), 2 * n);
  ct::cpu_empty_cache();
  EXPECT_EQ(ct::cpu_cached_bytes(), 0u);
}

TEST(CpuAllocator, SmallBlocksAreNotCached) {
  ct::cpu_empty_cache();
  void* p = ct::cpu_allocate(4096);
  ct::cpu_free(p, 4096);
  EXPECT_EQ(ct::cpu_cached_bytes(), 0u);
}

// A block just under 1 MiB is allocated with 64-byte rounding; it must not enter the cache as a
// 1 MiB block, or the next 1 MiB request would get fewer bytes than it asked for. Checked on the
// cache itself: comparing addresses would depend on how the system allocator reuses freed memory.
// 64 KiB is the allocator's cache minimum (kCacheMin in allocator.cpp).
TEST(CpuAllocator, BlockJustUnderTheCacheMinimumIsNeverHandedOutAsALargerBlock) {
  ct::cpu_empty_cache();
  const size_t small = (size_t(64) << 10) - 4096 + 64;  // a multiple of 64, rounds up to 64 KiB in 4 KiB pages
  void* p = ct::cpu_allocate(small);
  ct::cpu_free(p, small);
  EXPECT_EQ(ct::cpu_cached_bytes(), 0u) << "a " << small << "-byte block entered the cache of large blocks";
  const size_t n = size_t(64) << 10;
  void* q = ct::cpu_allocate(n);
  std::memset(q, 0, n);  // the whole request must be writable (ASan checks it)
  ct::cpu_free(q, n);
  ct::cpu_empty_cache();
}

TEST(CpuAllocator, ReusedBlockIsLargeEnoughForTheRequest) {
  ct::cpu_empty_cache();
  const size_t big = size_t(5) << 20, req = (size_t(4) << 20) + 1;
  void* p = ct::cpu_allocate(big);
  ct::cpu_free(p, big);
  void* q = ct::cpu_allocate(req);  // 5 MiB wastes less than a quarter of itself: reused
  EXPECT_EQ(q, p);
  std::memset(q, 3, req);
  ct::cpu_free(q, req);
  void* r = ct::cpu_allocate(size_t(1) << 20);  // a 4 MiB+ block would waste more than a quarter
  EXPECT_NE(r, p);
  ct::cpu_free(r, size_t(1) << 20);
  ct::cpu_empty_cache();
}
