#include <gtest/gtest.h>

#include <limits>

#include "symbolic/sym_int.h"

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

TEST(SymInt, ValuesInTheTaggedRangeAreRefusedNotReadAsPointers) {
  try {
    SymInt s(std::numeric_limits<int64_t>::min());  // top bits 10: the tag of a node pointer
    FAIL() << "a reserved value became a SymInt: " << s.raw();
  } catch (const ct::Error& e) {
    EXPECT_EQ(e.status(), CT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(e.message().find("-2^62"), std::string::npos) << e.message();
  }
}
