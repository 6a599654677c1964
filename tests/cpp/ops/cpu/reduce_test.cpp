#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ops/cpu/parallel.h"
#include "ops/functions.h"

using ct::DType;
using ct::Tensor;

namespace {

Tensor random_floats(std::initializer_list<int64_t> sizes, uint64_t seed) {
  Tensor t = ct::ops::empty(sizes, DType::Float32, ct::kCPU);
  float* p = t->data_as<float>();
  uint64_t s = seed;
  for (int64_t i = 0; i < t->numel(); ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    p[i] = static_cast<float>(static_cast<int64_t>(s >> 40) - (int64_t(1) << 23)) / float(1 << 20);  // [-8, 8)
  }
  return t;
}

// Runs f with a fixed thread count and restores the previous one.
template <typename F>
Tensor with_threads(int n, F f) {
  const int saved = ct::cpu::get_num_threads();
  ct::cpu::set_num_threads(n);
  Tensor r;
  try {
    r = f();
  } catch (...) {
    ct::cpu::set_num_threads(saved);
    throw;
  }
  ct::cpu::set_num_threads(saved);
  return r;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a->numel() == b->numel() && a->dtype() == b->dtype() &&
         std::memcmp(a->data(), b->data(), static_cast<size_t>(a->numel()) * ct::itemsize(a->dtype())) == 0;
}

}  // namespace

TEST(Sum, FullFloatSumIsBitwiseIdenticalOnOneAndTwoThreads) {
  Tensor x = random_floats({int64_t(1) << 22}, 1);
  const int before = ct::cpu::get_num_threads();
  Tensor one = with_threads(1, [&] { return ct::ops::sum(x, {}, false); });
  Tensor two = with_threads(2, [&] { return ct::ops::sum(x, {}, false); });
  Tensor four = with_threads(4, [&] { return ct::ops::sum(x, {}, false); });
  EXPECT_EQ(ct::cpu::get_num_threads(), before);
  ASSERT_EQ(one->dim(), 0u);
  EXPECT_TRUE(same_bits(one, two)) << one->data_as<float>()[0] << " vs " << two->data_as<float>()[0];
  EXPECT_TRUE(same_bits(one, four)) << one->data_as<float>()[0] << " vs " << four->data_as<float>()[0];
  double ref = 0;
  for (int64_t i = 0; i < x->numel(); ++i) ref += x->data_as<float>()[i];
  EXPECT_NEAR(one->data_as<float>()[0], ref, 1e-5 * std::sqrt(double(x->numel())) * 8 + 1e-2);
}

TEST(Sum, RowWiseSumIsBitwiseIdenticalOnOneAndTwoThreads) {
  Tensor x = random_floats({64, 65536}, 2);
  Tensor one = with_threads(1, [&] { return ct::ops::sum(x, {1}, false); });
  Tensor two = with_threads(2, [&] { return ct::ops::sum(x, {1}, false); });
  ASSERT_TRUE(one->sizes().equals({64}));
  EXPECT_TRUE(same_bits(one, two));
  for (int64_t r = 0; r < 64; r += 21) {
    double ref = 0;
    for (int64_t j = 0; j < 65536; ++j) ref += x->data_as<float>()[r * 65536 + j];
    EXPECT_NEAR(one->data_as<float>()[r], ref, 0.05) << r;
  }
}

TEST(Sum, ColumnSumOfATransposedInputIsBitwiseIdenticalOnOneAndTwoThreads) {
  Tensor x = ct::ops::transpose(random_floats({4096, 300}, 3), 0, 1);  // [300, 4096], strided
  Tensor one = with_threads(1, [&] { return ct::ops::sum(x, {1}, false); });
  Tensor two = with_threads(2, [&] { return ct::ops::sum(x, {1}, false); });
  EXPECT_TRUE(same_bits(one, two));
}

// Leading and middle dims of a contiguous input take the in-place column path
// (Note [Column reductions]): same bits on any thread count, pairwise-level accuracy.
TEST(Sum, LeadingAndMiddleDimReductionsAreBitwiseIdenticalOnOneAndTwoThreads) {
  Tensor x = random_floats({3000, 2500}, 4);  // 2500 columns: three chunks, the last one partial
  Tensor one = with_threads(1, [&] { return ct::ops::sum(x, {0}, false); });
  Tensor two = with_threads(2, [&] { return ct::ops::sum(x, {0}, false); });
  ASSERT_TRUE(one->sizes().equals({2500}));
  EXPECT_TRUE(same_bits(one, two));
  for (int64_t j = 0; j < 2500; j += 613) {
    double ref = 0;
    for (int64_t i = 0; i < 3000; ++i) ref += x->data_as<float>()[i * 2500 + j];
    EXPECT_NEAR(one->data_as<float>()[j], ref, 2e-3) << j;
  }
  Tensor y = random_floats({6, 700, 130}, 5);
  Tensor mid1 = with_threads(1, [&] { return ct::ops::sum(y, {1}, true); });
  Tensor mid2 = with_threads(2, [&] { return ct::ops::sum(y, {1}, true); });
  ASSERT_TRUE(mid1->sizes().equals({6, 1, 130}));
  EXPECT_TRUE(same_bits(mid1, mid2));
  double ref = 0;
  for (int64_t i = 0; i < 700; ++i) ref += y->data_as<float>()[(5 * 700 + i) * 130 + 129];
  EXPECT_NEAR(mid1->data_as<float>()[5 * 130 + 129], ref, 1e-3);
}

TEST(ArgMax, OverALeadingDimFindsTheFirstLargestInEachColumn) {
  Tensor x = random_floats({500, 70}, 6);
  x->data_as<float>()[123 * 70 + 5] = 100.0f;
  x->data_as<float>()[400 * 70 + 5] = 100.0f;  // a later tie: the first index wins
  const int64_t dim = 0;
  Tensor am = ct::ops::argmax(x, dim, false);
  EXPECT_EQ(am->data_as<int64_t>()[5], 123);
  Tensor mx = ct::ops::amax(x, {0}, false);
  EXPECT_EQ(mx->data_as<float>()[5], 100.0f);
}

TEST(Sum, MeanAndAmaxOverDimsMatchTorchOnSmallInputs) {
  Tensor x = ct::ops::reshape(ct::ops::arange(0, 24, 1, DType::Float32, ct::kCPU), {2, 3, 4});
  Tensor s = ct::ops::sum(x, {0, 2}, false);  // torch: tensor([ 60.,  92., 124.])
  ASSERT_TRUE(s->sizes().equals({3}));
  EXPECT_EQ(s->data_as<float>()[0], 60.0f);
  EXPECT_EQ(s->data_as<float>()[1], 92.0f);
  EXPECT_EQ(s->data_as<float>()[2], 124.0f);
  Tensor m = ct::ops::mean(x, {-1}, true);
  ASSERT_TRUE(m->sizes().equals({2, 3, 1}));
  EXPECT_EQ(m->data_as<float>()[5], 21.5f);
  Tensor i = ct::ops::arange(0, 10, 1, DType::Int32, ct::kCPU);
  Tensor si = ct::ops::sum(i, {}, false);
  EXPECT_EQ(si->dtype(), DType::Int64);  // torch.sum of int32 is int64
  EXPECT_EQ(si->data_as<int64_t>()[0], 45);
}

TEST(ArgMax, TiesGoToTheFirstOccurrence) {
  Tensor x = ct::ops::to(ct::ops::reshape(ct::ops::arange(0, 6, 1, DType::Float32, ct::kCPU), {2, 3}), DType::Int32);
  x->data_as<int32_t>()[0] = 5;  // [[5, 1, 2], [3, 4, 5]]
  Tensor flat = ct::ops::argmax(x);
  EXPECT_EQ(flat->dtype(), DType::Int64);
  EXPECT_EQ(flat->dim(), 0u);
  EXPECT_EQ(flat->data_as<int64_t>()[0], 0);  // torch.argmax: first maximal element
  const int64_t dim = 1;
  Tensor rows = ct::ops::argmax(x, dim, false);
  ASSERT_TRUE(rows->sizes().equals({2}));
  EXPECT_EQ(rows->data_as<int64_t>()[0], 0);
  EXPECT_EQ(rows->data_as<int64_t>()[1], 2);
}

TEST(Sum, OfBoolCountsTrueValuesAsInt64) {
  Tensor b = ct::ops::gt(ct::ops::arange(0, 10, 1, DType::Int64, ct::kCPU), ct::Scalar(6));
  EXPECT_EQ(b->dtype(), DType::Bool);
  Tensor s = ct::ops::sum(b, {}, false);
  EXPECT_EQ(s->dtype(), DType::Int64);
  EXPECT_EQ(s->data_as<int64_t>()[0], 3);
}

TEST(Sum, OverAnEmptyDimGivesZeroAndAmaxRaises) {
  Tensor e = ct::ops::zeros({3, 0}, DType::Float32, ct::kCPU);
  Tensor s = ct::ops::sum(e, {1}, false);
  ASSERT_TRUE(s->sizes().equals({3}));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(s->data_as<float>()[i], 0.0f);
  EXPECT_THROW(ct::ops::amax(e, {1}, false), ct::Error);  // torch: amax of an empty dim is an error
}
