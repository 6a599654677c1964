#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>

#include "core/array_ref.h"

using ct::DimVector;
using ct::IntArrayRef;
using ct::SmallVector;

namespace {
bool is_inline(const SmallVector<int64_t, 4>& v) {
  const char* self = reinterpret_cast<const char*>(&v);
  const char* d = reinterpret_cast<const char*>(v.data());
  return d >= self && d < self + sizeof(v);
}
}  // namespace

TEST(SmallVector, StaysInlineUpToNThenMovesToTheHeapKeepingElements) {
  SmallVector<int64_t, 4> v;
  for (int64_t i = 0; i < 4; ++i) v.push_back(i * 10);
  EXPECT_TRUE(is_inline(v));
  v.push_back(40);
  EXPECT_FALSE(is_inline(v));
  ASSERT_EQ(v.size(), 5u);
  for (int64_t i = 0; i < 5; ++i) EXPECT_EQ(v[i], i * 10);
  for (int64_t i = 5; i < 100; ++i) v.push_back(i * 10);
  ASSERT_EQ(v.size(), 100u);
  for (int64_t i = 0; i < 100; ++i) EXPECT_EQ(v[i], i * 10);
  EXPECT_EQ(v.back(), 990);
}

TEST(SmallVector, CopiesAreDeepForInlineAndHeapStorage) {
  SmallVector<int64_t, 4> small{1, 2, 3};
  SmallVector<int64_t, 4> big{1, 2, 3, 4, 5, 6, 7};
  SmallVector<int64_t, 4> a(small), b(big);
  a[0] = 100;
  b[6] = 100;
  EXPECT_EQ(small[0], 1);
  EXPECT_EQ(big[6], 7);
  EXPECT_NE(b.data(), big.data());
  EXPECT_TRUE(is_inline(a));
  // Assignment heap -> inline-sized and inline -> heap-sized.
  a = big;
  EXPECT_TRUE(a.ref().equals(big.ref()));
  b = small;
  EXPECT_TRUE(b.ref().equals(small.ref()));
  ASSERT_EQ(b.size(), 3u);
  // Self-assignment keeps the contents.
  SmallVector<int64_t, 4>& alias = a;
  a = alias;
  EXPECT_EQ(a.size(), 7u);
  EXPECT_EQ(a[6], 7);
}

TEST(SmallVector, InsertAndEraseShiftElements) {
  SmallVector<int64_t, 4> v{1, 2, 4};
  v.insert(2, 3);  // middle
  EXPECT_TRUE(v.ref().equals({1, 2, 3, 4}));
  v.insert(0, 0);  // front, grows to the heap
  EXPECT_TRUE(v.ref().equals({0, 1, 2, 3, 4}));
  v.insert(v.size(), 5);  // end
  EXPECT_TRUE(v.ref().equals({0, 1, 2, 3, 4, 5}));
  v.erase(0);
  EXPECT_TRUE(v.ref().equals({1, 2, 3, 4, 5}));
  v.erase(2);
  EXPECT_TRUE(v.ref().equals({1, 2, 4, 5}));
  v.erase(v.size() - 1);
  EXPECT_TRUE(v.ref().equals({1, 2, 4}));
}

TEST(SmallVector, FillConstructorAndResize) {
  DimVector v(9, int64_t(7));
  ASSERT_EQ(v.size(), 9u);
  for (int64_t x : v) EXPECT_EQ(x, 7);
  v.resize(2);
  EXPECT_EQ(v.size(), 2u);
  EXPECT_FALSE(v.empty());
  v.resize(0);
  EXPECT_TRUE(v.empty());
}

TEST(ArrayRef, EqualsComparesContentsAndPrintsLikeErrorMessages) {
  std::vector<int64_t> a{2, 3};
  IntArrayRef r(a);
  EXPECT_TRUE(r.equals({2, 3}));
  EXPECT_FALSE(r.equals({2, 3, 1}));
  EXPECT_FALSE(r.equals({2, 4}));
  std::ostringstream os;
  os << r << IntArrayRef();
  EXPECT_EQ(os.str(), "[2, 3][]");
  EXPECT_EQ(r.vec(), a);
}
