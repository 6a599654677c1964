#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ops/cpu/gemm.h"
#include "ops/functions.h"

using ct::DType;
using ct::Half;
using ct::Tensor;
using ct::cpu::MatrixRef;

namespace {

// Naive C[i][j] = alpha * sum_p A[i][p] * B[p][j] + beta * C[i][j], in double.
template <typename T>
std::vector<double> naive(int64_t m, int64_t n, int64_t k, double alpha, const T* a, int64_t as0, int64_t as1,
                          const T* b, int64_t bs0, int64_t bs1, double beta, const T* c, int64_t ldc) {
  std::vector<double> out(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < k; ++p) acc += double(a[i * as0 + p * as1]) * double(b[p * bs0 + j * bs1]);
      out[i * n + j] = alpha * acc + (beta != 0 ? beta * double(c[i * ldc + j]) : 0.0);
    }
  return out;
}

template <typename T>
void check_gemm(DType dtype, int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b, double alpha, double beta,
                int64_t ldc_pad) {
  // Small integers: every product and sum is exact in float16's range, so the result is exact.
  std::vector<T> a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n));
  for (size_t i = 0; i < a.size(); ++i) a[i] = T(static_cast<int>((i * 7 + 3) % 5) - 2);
  for (size_t i = 0; i < b.size(); ++i) b[i] = T(static_cast<int>((i * 5 + 1) % 7) - 3);
  // A logical (m x k): stored row-major, or stored as its transpose (k x m) and read with swapped strides.
  const int64_t as0 = trans_a ? 1 : k, as1 = trans_a ? m : 1;
  const int64_t bs0 = trans_b ? 1 : n, bs1 = trans_b ? k : 1;
  const int64_t ldc = n + ldc_pad;
  std::vector<T> c(static_cast<size_t>(m * ldc));
  for (size_t i = 0; i < c.size(); ++i) c[i] = T(static_cast<int>(i % 3) - 1);
  const std::vector<T> c0 = c;
  const std::vector<double> want =
      naive(m, n, k, alpha, a.data(), as0, as1, b.data(), bs0, bs1, beta, c0.data(), ldc);
  const ct::Scalar al = alpha == std::floor(alpha) ? ct::Scalar(int64_t(alpha)) : ct::Scalar(alpha);
  const ct::Scalar be = beta == std::floor(beta) ? ct::Scalar(int64_t(beta)) : ct::Scalar(beta);
  ct::cpu::gemm(dtype, m, n, k, al, MatrixRef{a.data(), as0, as1}, MatrixRef{b.data(), bs0, bs1}, be, c.data(), ldc);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j)
      ASSERT_EQ(double(c[i * ldc + j]), want[i * n + j])
          << dtype << " m=" << m << " n=" << n << " k=" << k << " ta=" << trans_a << " tb=" << trans_b << " at " << i
          << "," << j;
    for (int64_t j = n; j < ldc; ++j) ASSERT_EQ(double(c[i * ldc + j]), double(c0[i * ldc + j])) << "padding";
  }
}

}  // namespace

TEST(Gemm, Int32FallbackMatchesNaiveLoopForEveryTransposition) {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      check_gemm<int32_t>(DType::Int32, 5, 7, 3, ta, tb, 1, 0, 0);
      check_gemm<int32_t>(DType::Int32, 17, 9, 33, ta, tb, 2, 3, 4);
      check_gemm<int32_t>(DType::Int32, 1, 1, 1, ta, tb, 1, 1, 0);
    }
}

TEST(Gemm, Float16FallbackMatchesNaiveLoopForEveryTransposition) {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      check_gemm<Half>(DType::Float16, 6, 4, 5, ta, tb, 1, 0, 0);
      check_gemm<Half>(DType::Float16, 13, 11, 20, ta, tb, 0.5, 2, 3);
    }
}

TEST(Gemm, Int64AndBFloat16FallbacksMatchNaiveLoop) {
  check_gemm<int64_t>(DType::Int64, 8, 3, 10, true, false, 3, 0, 1);
  check_gemm<ct::BFloat16>(DType::BFloat16, 4, 5, 6, false, true, 1, 0, 0);
}

TEST(Gemm, Float32BlasPathMatchesNaiveLoop) {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) check_gemm<float>(DType::Float32, 9, 8, 7, ta, tb, 1, 0, 2);
  check_gemm<double>(DType::Float64, 9, 8, 7, true, true, 2, 1, 0);
}

TEST(Gemm, BetaZeroDoesNotReadC) {
  const int64_t m = 2, n = 2, k = 2;
  Half a[4] = {Half(1.f), Half(2.f), Half(3.f), Half(4.f)}, b[4] = {Half(1.f), Half(0.f), Half(0.f), Half(1.f)};
  Half c[4] = {Half(NAN), Half(NAN), Half(INFINITY), Half(NAN)};
  ct::cpu::gemm(DType::Float16, m, n, k, ct::Scalar(1), MatrixRef{a, 2, 1}, MatrixRef{b, 2, 1}, ct::Scalar(0), c, 2);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(float(c[i]), float(a[i])) << i;
}

TEST(Gemm, KZeroGivesBetaTimesC) {
  int32_t c[4] = {1, 2, 3, 4};
  int32_t dummy = 0;
  ct::cpu::gemm(DType::Int32, 2, 2, 0, ct::Scalar(1), MatrixRef{&dummy, 0, 1}, MatrixRef{&dummy, 2, 1}, ct::Scalar(2),
                c, 2);
  EXPECT_EQ(c[0], 2);
  EXPECT_EQ(c[3], 8);
}

TEST(Gemm, BlasReadableAcceptsRowAndColumnMajorOnly) {
  EXPECT_TRUE(ct::cpu::blas_readable(3, 4, 4, 1));
  EXPECT_TRUE(ct::cpu::blas_readable(3, 4, 1, 3));
  EXPECT_TRUE(ct::cpu::blas_readable(3, 4, 8, 1));  // padded rows
  EXPECT_FALSE(ct::cpu::blas_readable(3, 4, 8, 2));
  EXPECT_FALSE(ct::cpu::blas_readable(3, 4, 2, 1));  // overlapping rows
  EXPECT_FALSE(ct::cpu::blas_readable(3, 4, 0, 1));  // expanded
}

TEST(Mm, Int32TransposedOperandsMatchNaiveLoop) {
  Tensor a = ct::ops::reshape(ct::ops::arange(0, 12, 1, DType::Int32, ct::kCPU), {3, 4});
  Tensor at = ct::ops::transpose(a, 0, 1);  // [4, 3]
  Tensor out = ct::ops::mm(at, a);           // [4, 4] = a^T a
  ASSERT_TRUE(out->sizes().equals({4, 4}));
  EXPECT_EQ(out->dtype(), DType::Int32);
  const int32_t* pa = a->data_as<int32_t>();
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      int32_t want = 0;
      for (int p = 0; p < 3; ++p) want += pa[p * 4 + i] * pa[p * 4 + j];
      EXPECT_EQ(out->data_as<int32_t>()[i * 4 + j], want) << i << "," << j;
    }
}
