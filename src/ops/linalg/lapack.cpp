// lapack.cpp - qr_reduced over dgeqrf (the factorization) and dorgqr (Q from its reflectors).
#include "ops/linalg/lapack.h"

#include <algorithm>
#include <climits>
#include <vector>

#include "core/error.h"

extern "C" {
// Fortran LAPACK: every argument by pointer, column-major storage.
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work, const int* lwork,
             int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau, double* work,
             const int* lwork, int* info);
}

namespace ct::ops {

void qr_reduced(double* a, int64_t m64, int64_t n64, double* r_diag, const char* fn) {
  CT_CHECK(m64 >= n64 && n64 >= 1 && m64 <= INT_MAX, CT_ERROR_SHAPE, fn, ": a QR of ", m64, " x ", n64,
           " is outside what LAPACK's 32-bit sizes take (rows >= columns >= 1, rows < 2^31)");
  const int m = static_cast<int>(m64), n = static_cast<int>(n64);
  std::vector<double> tau(static_cast<size_t>(n));
  int info = 0, query = -1;
  double best = 0;
  dgeqrf_(&m, &n, a, &m, tau.data(), &best, &query, &info);  // the workspace size LAPACK wants
  int lwork = std::max(n, static_cast<int>(best));
  std::vector<double> work(static_cast<size_t>(lwork));
  dgeqrf_(&m, &n, a, &m, tau.data(), work.data(), &lwork, &info);
  CT_CHECK(info == 0, CT_ERROR_INTERNAL, fn, ": LAPACK dgeqrf failed (info ", info, ")");
  for (int j = 0; j < n; ++j) r_diag[j] = a[static_cast<int64_t>(j) * m + j];
  dorgqr_(&m, &n, &n, a, &m, tau.data(), &best, &query, &info);
  lwork = std::max(n, static_cast<int>(best));
  work.resize(static_cast<size_t>(lwork));
  dorgqr_(&m, &n, &n, a, &m, tau.data(), work.data(), &lwork, &info);
  CT_CHECK(info == 0, CT_ERROR_INTERNAL, fn, ": LAPACK dorgqr failed (info ", info, ")");
}

}  // namespace ct::ops
