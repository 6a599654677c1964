#include "ops/cpu/gemm.h"

#include <cblas.h>

#include <algorithm>
#include <climits>
#include <complex>
#include <vector>

#include "core/error.h"
#include "ops/cpu/parallel.h"

namespace ct::cpu {
namespace {

struct BlasLayout {
  bool trans;
  int64_t ld;
};

bool layout(int64_t rows, int64_t cols, int64_t s0, int64_t s1, BlasLayout* out) {
  if (rows == 0 || cols == 0) {  // nothing is read, so any strides do (an empty view may have stride 0)
    *out = {false, std::max<int64_t>(cols, 1)};
    return true;
  }
  if (s1 == 1 || cols == 1) {  // row-major
    const int64_t ld = rows == 1 ? std::max<int64_t>(cols, 1) : s0;
    if (ld >= std::max<int64_t>(cols, 1)) {
      *out = {false, ld};
      return true;
    }
  }
  if (s0 == 1 || rows == 1) {  // column-major: a transposed row-major matrix
    const int64_t ld = cols == 1 ? std::max<int64_t>(rows, 1) : s1;
    if (ld >= std::max<int64_t>(rows, 1)) {
      *out = {true, ld};
      return true;
    }
  }
  return false;
}

// How BLAS reads A (m x k) and B (k x n); sizes past the 32-bit interface are refused.
void blas_layouts(int64_t m, int64_t n, int64_t k, MatrixRef a, MatrixRef b, int64_t ldc, BlasLayout* la,
                  BlasLayout* lb) {
  CT_CHECK(layout(m, k, a.s0, a.s1, la) && layout(k, n, b.s0, b.s1, lb), CT_ERROR_INTERNAL,
           "gemm: operands not readable by BLAS");
  CT_CHECK(m < INT_MAX && n < INT_MAX && k < INT_MAX && la->ld < INT_MAX && lb->ld < INT_MAX && ldc < INT_MAX,
           CT_ERROR_NOT_IMPLEMENTED, "mm: sizes (", m, ", ", n, ", ", k,
           ") exceed the 32-bit BLAS interface. Split the product into smaller blocks");
}

template <typename T>
void blas_gemm(int64_t m, int64_t n, int64_t k, T alpha, MatrixRef a, MatrixRef b, T beta, T* c, int64_t ldc) {
  BlasLayout la{}, lb{};
  blas_layouts(m, n, k, a, b, ldc, &la, &lb);
  const auto ta = la.trans ? CblasTrans : CblasNoTrans, tb = lb.trans ? CblasTrans : CblasNoTrans;
  // One row times one column is BLAS dot, as torch's dot: its bits (the same OpenBLAS).
  if (k > 0 && m == 1 && n == 1 && a.s1 != 0 && b.s0 != 0 && a.s1 < INT_MAX && b.s0 < INT_MAX) {
    T d;
    if constexpr (std::is_same<T, float>::value)
      d = cblas_sdot(int(k), static_cast<const float*>(a.data), int(a.s1), static_cast<const float*>(b.data), int(b.s0));
    else
      d = cblas_ddot(int(k), static_cast<const double*>(a.data), int(a.s1), static_cast<const double*>(b.data), int(b.s0));
    c[0] = beta == T(0) ? alpha * d : alpha * d + beta * c[0];
    return;
  }
  // A matrix times a vector (n == 1) or a vector times a matrix (m == 1) is gemv: gemm with one
  // column took twice as long (1024x1024 @ 1024 float32: 287 us against 142 for torch's gemv).
  // The vector is B's column (stride b.s0) or A's row (stride a.s1); the result steps by ldc or 1.
  if (k > 0 && (n == 1 || m == 1)) {
    const bool column = n == 1;
    const BlasLayout& lm = column ? la : lb;  // the matrix: A (m x k) or B (k x n)
    const void* mat = column ? a.data : b.data;
    const void* vec = column ? b.data : a.data;
    const int64_t incx = column ? b.s0 : a.s1, incy = column ? ldc : 1;
    // Row-major storage of the matrix as it lies: rows x cols, read transposed when its layout is.
    const int64_t rows = column ? (lm.trans ? k : m) : (lm.trans ? n : k);
    const int64_t cols = column ? (lm.trans ? m : k) : (lm.trans ? k : n);
    // y = M x for A x; y = B^T x for x^T B: trans flips for the second.
    const bool trans = column ? lm.trans : !lm.trans;
    if (incx != 0 && incx < INT_MAX) {
      const auto t = trans ? CblasTrans : CblasNoTrans;
      if constexpr (std::is_same<T, float>::value)
        cblas_sgemv(CblasRowMajor, t, int(rows), int(cols), alpha, static_cast<const float*>(mat), int(lm.ld),
                    static_cast<const float*>(vec), int(incx), beta, c, int(incy));
      else
        cblas_dgemv(CblasRowMajor, t, int(rows), int(cols), alpha, static_cast<const double*>(mat), int(lm.ld),
                    static_cast<const double*>(vec), int(incx), beta, c, int(incy));
      return;
    }
  }
  if constexpr (std::is_same<T, float>::value)
    cblas_sgemm(CblasRowMajor, ta, tb, int(m), int(n), int(k), alpha, static_cast<const float*>(a.data), int(la.ld),
                static_cast<const float*>(b.data), int(lb.ld), beta, c, int(ldc));
  else
    cblas_dgemm(CblasRowMajor, ta, tb, int(m), int(n), int(k), alpha, static_cast<const double*>(a.data),
                int(la.ld), static_cast<const double*>(b.data), int(lb.ld), beta, c, int(ldc));
}

// complex64 and complex128: cgemm and zgemm, which take alpha and beta by address. Every shape goes
// to gemm (no dot or gemv forms), so the order of the products is one BLAS routine's.
template <typename C>
void blas_complex_gemm(int64_t m, int64_t n, int64_t k, C alpha, MatrixRef a, MatrixRef b, C beta, C* c,
                       int64_t ldc) {
  BlasLayout la{}, lb{};
  blas_layouts(m, n, k, a, b, ldc, &la, &lb);
  const auto ta = la.trans ? CblasTrans : CblasNoTrans, tb = lb.trans ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same<C, std::complex<float>>::value)
    cblas_cgemm(CblasRowMajor, ta, tb, int(m), int(n), int(k), &alpha, a.data, int(la.ld), b.data, int(lb.ld), &beta,
                c, int(ldc));
  else
    cblas_zgemm(CblasRowMajor, ta, tb, int(m), int(n), int(k), &alpha, a.data, int(la.ld), b.data, int(lb.ld), &beta,
                c, int(ldc));
}

// Rows of C in parallel; for each row, k-blocks of A times rows of B accumulate into a row buffer
// in the opmath type (float for float16/bfloat16).
template <typename T>
void loop_gemm(int64_t m, int64_t n, int64_t k, const Scalar& alpha_s, MatrixRef a, MatrixRef b, const Scalar& beta_s,
               T* c, int64_t ldc) {
  using Acc = opmath_t<T>;
  const Acc alpha = alpha_s.to<Acc>(), beta = beta_s.to<Acc>();
  const bool read_c = !beta_s.equals(0.0);
  const T* A = static_cast<const T*>(a.data);
  const T* B = static_cast<const T*>(b.data);
  parallel_for(0, m, std::max<int64_t>(1, 4096 / std::max<int64_t>(n * k, 1)), [&](int64_t r0, int64_t r1) {
    std::vector<Acc> row(static_cast<size_t>(n));
    for (int64_t i = r0; i < r1; ++i) {
      std::fill(row.begin(), row.end(), Acc(0));
      for (int64_t p = 0; p < k; ++p) {
        const Acc x = Acc(A[i * a.s0 + p * a.s1]);
        const T* brow = B + p * b.s0;
        for (int64_t j = 0; j < n; ++j) row[j] += x * Acc(brow[j * b.s1]);
      }
      T* crow = c + i * ldc;
      for (int64_t j = 0; j < n; ++j) crow[j] = T(alpha * row[j] + (read_c ? beta * Acc(crow[j]) : Acc(0)));
    }
  });
}

// float16 and bfloat16: the operands widened to float32, one sgemm, the result rounded once, as
// PyTorch's CPU kernels accumulate these types in float32 (and an order of magnitude faster than
// the loop: autocast's products land here).
template <typename T>
void widened_gemm(int64_t m, int64_t n, int64_t k, const Scalar& alpha, MatrixRef a, MatrixRef b, const Scalar& beta,
                  T* c, int64_t ldc) {
  std::vector<float> af(static_cast<size_t>(m * k)), bf(static_cast<size_t>(k * n)), cf(static_cast<size_t>(m * n));
  const T* A = static_cast<const T*>(a.data);
  const T* B = static_cast<const T*>(b.data);
  const bool read_c = !beta.equals(0.0);
  parallel_for(0, m, std::max<int64_t>(1, 4096 / std::max<int64_t>(k + n, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t i = r0; i < r1; ++i) {
      for (int64_t p = 0; p < k; ++p) af[i * k + p] = static_cast<float>(A[i * a.s0 + p * a.s1]);
      if (read_c)
        for (int64_t j = 0; j < n; ++j) cf[i * n + j] = static_cast<float>(c[i * ldc + j]);
    }
  });
  parallel_for(0, k, std::max<int64_t>(1, 4096 / std::max<int64_t>(n, 1)), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p)
      for (int64_t j = 0; j < n; ++j) bf[p * n + j] = static_cast<float>(B[p * b.s0 + j * b.s1]);
  });
  blas_gemm<float>(m, n, k, alpha.to<float>(), {af.data(), k, 1}, {bf.data(), n, 1}, beta.to<float>(), cf.data(), n);
  parallel_for(0, m, std::max<int64_t>(1, 4096 / std::max<int64_t>(n, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t i = r0; i < r1; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = T(cf[i * n + j]);
  });
}

}  // namespace

bool blas_readable(int64_t rows, int64_t cols, int64_t s0, int64_t s1) {
  BlasLayout l{};
  return layout(rows, cols, s0, s1, &l);
}

void gemm(DType dtype, int64_t m, int64_t n, int64_t k, const Scalar& alpha, MatrixRef a, MatrixRef b,
          const Scalar& beta, void* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (dtype == DType::Float32) {
    blas_gemm<float>(m, n, k, alpha.to<float>(), a, b, beta.to<float>(), static_cast<float*>(c), ldc);
    return;
  }
  if (dtype == DType::Float64) {
    blas_gemm<double>(m, n, k, alpha.to<double>(), a, b, beta.to<double>(), static_cast<double*>(c), ldc);
    return;
  }
  visit_dtype<kNumericDTypes | kComplexDTypes>(dtype, "mm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
      blas_complex_gemm<T>(m, n, k, alpha.to<T>(), a, b, beta.to<T>(), static_cast<T*>(c), ldc);
    else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
      widened_gemm<T>(m, n, k, alpha, a, b, beta, static_cast<T*>(c), ldc);
    else
      loop_gemm<T>(m, n, k, alpha, a, b, beta, static_cast<T*>(c), ldc);
  });
}

}  // namespace ct::cpu
