#include <gtest/gtest.h>

#include "dispatch/dispatch_key.h"

using ct::DispatchKey;
using ct::DispatchKeySet;

TEST(DispatchKeySet, HighestIsTheHighestPriorityKeyPresent) {
  DispatchKeySet s = DispatchKeySet(DispatchKey::CPU).add(DispatchKey::Autograd);
  EXPECT_EQ(s.highest(), DispatchKey::Autograd);
  EXPECT_EQ(s.add(DispatchKey::Tracer).highest(), DispatchKey::Tracer);
  EXPECT_EQ(s.add(DispatchKey::Profiler).highest(), DispatchKey::Profiler);
  EXPECT_EQ(DispatchKeySet(DispatchKey::CPU).highest(), DispatchKey::CPU);
  EXPECT_EQ(DispatchKeySet(DispatchKey::Meta).add(DispatchKey::CPU).highest(), DispatchKey::Meta);
}

TEST(DispatchKeySet, BelowKeepsOnlyStrictlyLowerKeys) {
  DispatchKeySet s = DispatchKeySet(DispatchKey::CPU)
                         .add(DispatchKey::Autograd)
                         .add(DispatchKey::Profiler)
                         .add(DispatchKey::Tracer);
  DispatchKeySet b = s.below(DispatchKey::Profiler);
  EXPECT_TRUE(b.has(DispatchKey::Autograd));
  EXPECT_TRUE(b.has(DispatchKey::CPU));
  EXPECT_FALSE(b.has(DispatchKey::Profiler));
  EXPECT_FALSE(b.has(DispatchKey::Tracer));
  EXPECT_EQ(b.highest(), DispatchKey::Autograd);
  EXPECT_EQ(s.below(DispatchKey::Autograd).highest(), DispatchKey::CPU);
  EXPECT_TRUE(s.below(DispatchKey::CPU).empty());
}

TEST(DispatchKeySet, SetOperationsCombineBits) {
  DispatchKeySet a = DispatchKeySet(DispatchKey::CPU).add(DispatchKey::Autograd);
  DispatchKeySet b = DispatchKeySet(DispatchKey::Autograd).add(DispatchKey::Tracer);
  EXPECT_EQ((a | b).bits(), a.bits() | b.bits());
  EXPECT_TRUE((a | b).has(DispatchKey::Tracer));
  EXPECT_EQ((a & b).bits(), DispatchKeySet(DispatchKey::Autograd).bits());
  EXPECT_EQ((a - b).bits(), DispatchKeySet(DispatchKey::CPU).bits());
  EXPECT_TRUE((a - a).empty());
  EXPECT_TRUE(DispatchKeySet().empty());
  EXPECT_FALSE(a.has(DispatchKey::Meta));
  EXPECT_EQ(DispatchKeySet(DispatchKey::Tracer).bits(), uint64_t(1) << 9);
}

TEST(DispatchKeySet, BackendsCoverExactlyTheBackendKeys) {
  DispatchKeySet b = DispatchKeySet::backends();
  for (int k = 0; k < ct::kNumDispatchKeys; ++k)
    EXPECT_EQ(b.has(static_cast<DispatchKey>(k)), k < ct::kNumBackendKeys) << k;
  EXPECT_EQ(b.highest(), DispatchKey::PrivateUse4);
}

TEST(DispatchKey, BackendKeyFollowsTheDevice) {
  EXPECT_EQ(ct::backend_key(ct::kCPU), DispatchKey::CPU);
  EXPECT_EQ(ct::backend_key(ct::kMeta), DispatchKey::Meta);
  EXPECT_EQ(ct::backend_key(ct::Device{ct::DeviceType::CUDA, 1}), DispatchKey::CUDA);
  EXPECT_STREQ(ct::dispatch_key_name(DispatchKey::Profiler), "profiler");
}

TEST(DispatchKeyGuard, IncludesAndExcludesForItsScopeAndRestores) {
  const ct::LocalDispatchKeys before = ct::local_dispatch_keys();
  {
    ct::DispatchKeyGuard g{DispatchKeySet(DispatchKey::Tracer), DispatchKeySet(DispatchKey::Autograd)};
    EXPECT_TRUE(ct::local_dispatch_keys().included.has(DispatchKey::Tracer));
    EXPECT_TRUE(ct::local_dispatch_keys().excluded.has(DispatchKey::Autograd));
    {
      ct::DispatchKeyGuard inner{DispatchKeySet(DispatchKey::Profiler), DispatchKeySet()};
      EXPECT_TRUE(ct::local_dispatch_keys().included.has(DispatchKey::Profiler));
      EXPECT_TRUE(ct::local_dispatch_keys().included.has(DispatchKey::Tracer));
    }
    EXPECT_FALSE(ct::local_dispatch_keys().included.has(DispatchKey::Profiler));
  }
  EXPECT_EQ(ct::local_dispatch_keys().included.bits(), before.included.bits());
  EXPECT_EQ(ct::local_dispatch_keys().excluded.bits(), before.excluded.bits());
}
