#include <gtest/gtest.h>

#include <limits>

#include "core/sym_int.h"

using ct::SymInt;

TEST(SymInt, IsEightBytes) {
  EXPECT_EQ(sizeof(SymInt), 8u);
  EXPECT_EQ(sizeof(SymInt), sizeof(int64_t));
}

TEST(SymInt, ConcreteValuesAreNotSymbolic) {
  const int64_t values[] = {0, 1, -1, 42, int64_t(1) << 40, std::numeric_limits<int64_t>::max(),
                            -(int64_t(1) << 62), -(int64_t(1) << 62) + 1};
  for (int64_t v : values) {
    SymInt s(v);
    EXPECT_FALSE(s.is_symbolic()) << v;
    EXPECT_EQ(s.expect_int(), v);
    EXPECT_EQ(s.raw(), v);
  }
}

TEST(SymInt, ReservedTaggedRangeIsSymbolicAndExpectIntRaisesGuard) {
  SymInt s(std::numeric_limits<int64_t>::min());  // top bits 10
  EXPECT_TRUE(s.is_symbolic());
  try {
    s.expect_int();
    FAIL() << "expect_int on a symbolic value did not raise";
  } catch (const ct::Error& e) {
    EXPECT_EQ(e.status(), CT_ERROR_GUARD);
  }
}
