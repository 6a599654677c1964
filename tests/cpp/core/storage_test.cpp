#include <gtest/gtest.h>

#include <cstring>

#include "core/allocator.h"
#include "core/device_backend.h"
#include "core/storage.h"
#include "core/tensor.h"

using ct::DType;
using ct::StorageImpl;
using ct::Tensor;
using ct::TensorImpl;

namespace {
struct DeleterLog {
  int calls = 0;
  void* data = nullptr;
};
void log_deleter(void* data, void* user) {
  auto* log = static_cast<DeleterLog*>(user);
  ++log->calls;
  log->data = data;
}
}  // namespace

TEST(StorageImpl, FromBlobDeleterRunsOnceWhenTheLastViewGoes) {
  float buf[12] = {};
  DeleterLog log;
  StorageImpl* s = StorageImpl::from_blob(buf, sizeof buf, log_deleter, &log);
  EXPECT_EQ(s->data(), buf);
  EXPECT_EQ(s->nbytes(), sizeof buf);
  EXPECT_TRUE(s->device().is_cpu());
  Tensor base = Tensor::adopt(TensorImpl::create(s, {3, 4}, {4, 1}, 0, DType::Float32));
  EXPECT_EQ(base->data(), buf);
  Tensor v1 = Tensor::adopt(TensorImpl::view_of(*base, {4, 3}, {1, 4}, 0));
  Tensor v2 = Tensor::adopt(TensorImpl::view_of(*v1, {2}, {1}, 10));
  EXPECT_EQ(v2->data_as<float>(), buf + 10);
  base = Tensor();
  EXPECT_EQ(log.calls, 0);
  v1 = Tensor();
  EXPECT_EQ(log.calls, 0);
  v2 = Tensor();
  EXPECT_EQ(log.calls, 1);
  EXPECT_EQ(log.data, buf);
}

TEST(StorageImpl, FromBlobWithoutDeleterIsAllowed) {
  int buf[2] = {1, 2};
  Tensor t = Tensor::adopt(TensorImpl::create(StorageImpl::from_blob(buf, sizeof buf, nullptr, nullptr), {2}, {1}, 0,
                                              DType::Int32));
  EXPECT_EQ(t->data_as<int>()[1], 2);
}

TEST(StorageImpl, ManualRetainAndReleaseRunTheDeleterOnce) {
  char buf[8];
  DeleterLog log;
  StorageImpl* s = StorageImpl::from_blob(buf, sizeof buf, log_deleter, &log);
  s->retain();
  s->release();
  EXPECT_EQ(log.calls, 0);
  s->release();
  EXPECT_EQ(log.calls, 1);
}

TEST(StorageImpl, VersionCounterIsSharedByViews) {
  Tensor a = Tensor::adopt(TensorImpl::empty({4}, DType::Float32, ct::kCPU));
  Tensor v = Tensor::adopt(TensorImpl::view_of(*a, {2}, {1}, 2));
  const uint32_t v0 = a->storage()->version();
  v->storage()->bump_version();
  EXPECT_EQ(a->storage()->version(), v0 + 1);
}

TEST(StorageImpl, SmallCpuStorageLivesInlineAndLargeOnTheAllocator) {
  StorageImpl* small = StorageImpl::create(64, ct::kCPU);
  StorageImpl* large = StorageImpl::create(1 << 16, ct::kCPU);
  const char* sp = static_cast<const char*>(static_cast<void*>(small));
  EXPECT_TRUE(small->data() >= sp && static_cast<const char*>(small->data()) < sp + sizeof(StorageImpl));
  ASSERT_NE(large->data(), nullptr);
  static_cast<char*>(large->data())[(1 << 16) - 1] = 1;
  small->release();
  large->release();
}

TEST(StorageImpl, DeviceWithoutBackendRaisesDeviceError) {
  EXPECT_EQ(ct::device_backend(ct::DeviceType::PrivateUse4), nullptr);
  EXPECT_NE(ct::device_backend(ct::DeviceType::CPU), nullptr);
  try {
    StorageImpl::create(16, ct::Device{ct::DeviceType::PrivateUse4, 0});
    FAIL() << "storage on a device without a backend did not raise";
  } catch (const ct::Error& e) {
    EXPECT_EQ(e.status(), CT_ERROR_DEVICE);
  }
}

// Through tensors, the allocator's cache must never hand a storage fewer bytes than it asked for:
// a storage just under 1 MiB, released, must not come back as a 1 MiB storage.
// 64 KiB is the CPU allocator's cache minimum (kCacheMin in allocator.cpp).
TEST(StorageImpl, ReleasedStorageJustUnderTheCacheMinimumIsNotReusedForALargerOne) {
  ct::cpu_empty_cache();
  const size_t small = (size_t(64) << 10) - 4096 + 64;
  StorageImpl* a = StorageImpl::create(small, ct::kCPU);
  a->release();
  EXPECT_EQ(ct::cpu_cached_bytes(), 0u) << "a " << small << "-byte storage was cached among 64 KiB blocks";
  StorageImpl* b = StorageImpl::create(size_t(64) << 10, ct::kCPU);
  std::memset(b->data(), 0, size_t(64) << 10);
  b->release();
  ct::cpu_empty_cache();
}
