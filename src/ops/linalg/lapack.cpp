// lapack.cpp - the LAPACK and BLAS triangular-solve calls of lapack.h, over OpenBLAS's Fortran
// LAPACK (s* for float, d* for double).
#include "ops/linalg/lapack.h"

#include <cblas.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <vector>

#include "core/error.h"
#include "ops/cpu/parallel.h"

extern "C" {
// Fortran LAPACK: every argument by pointer, column-major storage; each character argument adds a
// hidden length at the end (gfortran's convention).
#define CT_LAPACK_DECLARE(T, p)                                                                                    \
  void p##getrf_(const int* m, const int* n, T* a, const int* lda, int* ipiv, int* info);                          \
  void p##getrs_(const char* trans, const int* n, const int* nrhs, const T* a, const int* lda, const int* ipiv,    \
                 T* b, const int* ldb, int* info, size_t);                                                         \
  void p##getri_(const int* n, T* a, const int* lda, const int* ipiv, T* work, const int* lwork, int* info);      \
  void p##potrf_(const char* uplo, const int* n, T* a, const int* lda, int* info, size_t);                         \
  void p##sytrf_(const char* uplo, const int* n, T* a, const int* lda, int* ipiv, T* work, const int* lwork,      \
                 int* info, size_t);                                                                               \
  void p##sytrs_(const char* uplo, const int* n, const int* nrhs, const T* a, const int* lda, const int* ipiv,    \
                 T* b, const int* ldb, int* info, size_t);                                                         \
  void p##geqrf_(const int* m, const int* n, T* a, const int* lda, T* tau, T* work, const int* lwork, int* info);  \
  void p##orgqr_(const int* m, const int* n, const int* k, T* a, const int* lda, const T* tau, T* work,            \
                 const int* lwork, int* info);                                                                     \
  void p##syevd_(const char* jobz, const char* uplo, const int* n, T* a, const int* lda, T* w, T* work,            \
                 const int* lwork, int* iwork, const int* liwork, int* info, size_t, size_t);                      \
  void p##gesdd_(const char* jobz, const int* m, const int* n, T* a, const int* lda, T* s, T* u, const int* ldu,  \
                 T* vt, const int* ldvt, T* work, const int* lwork, int* iwork, int* info, size_t);
CT_LAPACK_DECLARE(float, s)
CT_LAPACK_DECLARE(double, d)
#undef CT_LAPACK_DECLARE
}

namespace ct::ops::lapack {
namespace {

// The routine for T: float picks the s* one, double the d* one.
template <typename T, typename S, typename D>
constexpr auto pick(S s, D d) {
  if constexpr (sizeof(T) == sizeof(float)) {
    return s;
  } else {
    return d;
  }
}

// A workspace of the size a query (lwork = -1) answered, at least `least`.
template <typename T>
std::vector<T> workspace(T answered, int least) {
  return std::vector<T>(static_cast<size_t>(std::max(least, static_cast<int>(answered))));
}

int at_least_1(int n) { return std::max(n, 1); }

}  // namespace

int lapack_dim(int64_t n, const char* fn) {
  CT_CHECK(n < INT_MAX, CT_ERROR_SHAPE, fn, ": a matrix size of ", n,
           " is more than LAPACK's 32-bit sizes take (2^31 - 1). Split the matrix");
  return static_cast<int>(n);
}

template <typename T>
int getrf(int m, int n, T* a, int* ipiv) {
  int info = 0;
  const int lda = at_least_1(m);
  pick<T>(sgetrf_, dgetrf_)(&m, &n, a, &lda, ipiv, &info);
  return info;
}

template <typename T>
int getrs(bool trans, int n, int nrhs, const T* lu, const int* ipiv, T* b) {
  int info = 0;
  const int ld = at_least_1(n);
  const char t = trans ? 'T' : 'N';
  pick<T>(sgetrs_, dgetrs_)(&t, &n, &nrhs, lu, &ld, ipiv, b, &ld, &info, 1);
  return info;
}

template <typename T>
int getri(int n, T* lu, const int* ipiv) {
  int info = 0, query = -1;
  const int ld = at_least_1(n);
  T best = 0;
  const auto f = pick<T>(sgetri_, dgetri_);
  f(&n, lu, &ld, ipiv, &best, &query, &info);
  std::vector<T> work = workspace(best, at_least_1(n));
  const int lwork = static_cast<int>(work.size());
  f(&n, lu, &ld, ipiv, work.data(), &lwork, &info);
  return info;
}

template <typename T>
int potrf(bool upper, int n, T* a) {
  int info = 0;
  const int ld = at_least_1(n);
  const char uplo = upper ? 'U' : 'L';
  pick<T>(spotrf_, dpotrf_)(&uplo, &n, a, &ld, &info, 1);
  // Reference LAPACK stops at a NaN pivot as at a non-positive one; OpenBLAS's potrf takes NaN as
  // positive and factors on, handing back NaN as a factor with info 0. The first NaN pivot, before
  // any it stopped at, is reported as reference LAPACK (and so torch) reports it.
  const int checked = info > 0 ? info - 1 : n;
  for (int j = 0; j < checked; ++j)
    if (std::isnan(a[static_cast<int64_t>(j) * ld + j])) return j + 1;
  return info;
}

template <typename T>
int sytrf(int n, T* a, int* ipiv) {
  int info = 0, query = -1;
  const int ld = at_least_1(n);
  const char uplo = 'L';
  T best = 0;
  const auto f = pick<T>(ssytrf_, dsytrf_);
  f(&uplo, &n, a, &ld, ipiv, &best, &query, &info, 1);
  std::vector<T> work = workspace(best, 1);
  const int lwork = static_cast<int>(work.size());
  f(&uplo, &n, a, &ld, ipiv, work.data(), &lwork, &info, 1);
  return info;
}

template <typename T>
int sytrs(int n, int nrhs, const T* ld, const int* ipiv, T* b) {
  int info = 0;
  const int lda = at_least_1(n);
  const char uplo = 'L';
  pick<T>(ssytrs_, dsytrs_)(&uplo, &n, &nrhs, ld, &lda, ipiv, b, &lda, &info, 1);
  return info;
}

template <typename T>
void trsm(bool left, bool upper, bool trans, bool unit, int m, int n, const T* a, T* b) {
  const int lda = at_least_1(left ? m : n), ldb = at_least_1(m);
  const auto side = left ? CblasLeft : CblasRight;
  const auto uplo = upper ? CblasUpper : CblasLower;
  const auto op = trans ? CblasTrans : CblasNoTrans;
  const auto diag = unit ? CblasUnit : CblasNonUnit;
  pick<T>(cblas_strsm, cblas_dtrsm)(CblasColMajor, side, uplo, op, diag, m, n, T(1), a, lda, b, ldb);
}

template <typename T>
int geqrf(int m, int n, T* a, T* tau) {
  int info = 0, query = -1;
  const int lda = at_least_1(m);
  T best = 0;
  const auto f = pick<T>(sgeqrf_, dgeqrf_);
  f(&m, &n, a, &lda, tau, &best, &query, &info);
  std::vector<T> work = workspace(best, at_least_1(n));
  const int lwork = static_cast<int>(work.size());
  f(&m, &n, a, &lda, tau, work.data(), &lwork, &info);
  return info;
}

template <typename T>
int orgqr(int m, int n, int k, T* a, const T* tau) {
  int info = 0, query = -1;
  const int lda = at_least_1(m);
  T best = 0;
  const auto f = pick<T>(sorgqr_, dorgqr_);
  f(&m, &n, &k, a, &lda, tau, &best, &query, &info);
  std::vector<T> work = workspace(best, at_least_1(n));
  const int lwork = static_cast<int>(work.size());
  f(&m, &n, &k, a, &lda, tau, work.data(), &lwork, &info);
  return info;
}

template <typename T>
int syevd(bool vectors, bool upper, int n, T* a, T* w) {
  int info = 0, query = -1, ibest = 0;
  const int lda = at_least_1(n);
  const char jobz = vectors ? 'V' : 'N', uplo = upper ? 'U' : 'L';
  T best = 0;
  const auto f = pick<T>(ssyevd_, dsyevd_);
  f(&jobz, &uplo, &n, a, &lda, w, &best, &query, &ibest, &query, &info, 1, 1);
  std::vector<T> work = workspace(best, 1);
  std::vector<int> iwork(static_cast<size_t>(std::max(ibest, 1)));
  const int lwork = static_cast<int>(work.size()), liwork = static_cast<int>(iwork.size());
  f(&jobz, &uplo, &n, a, &lda, w, work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1);
  return info;
}

template <typename T>
int gesdd(bool vectors, bool full, int m, int n, T* a, T* s, T* u, T* vt) {
  int info = 0, query = -1;
  const int k = std::min(m, n);
  const char jobz = !vectors ? 'N' : full ? 'A' : 'S';
  const int lda = at_least_1(m), ldu = at_least_1(m), ldvt = at_least_1(full ? n : k);
  std::vector<int> iwork(static_cast<size_t>(8 * std::max(k, 1)));
  T best = 0;
  const auto f = pick<T>(sgesdd_, dgesdd_);
  f(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, &best, &query, iwork.data(), &info, 1);
  std::vector<T> work = workspace(best, 1);
  const int lwork = static_cast<int>(work.size());
  f(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work.data(), &lwork, iwork.data(), &info, 1);
  return info;
}

#define CT_LAPACK_INSTANTIATE(T)                                                \
  template int getrf<T>(int, int, T*, int*);                                   \
  template int getrs<T>(bool, int, int, const T*, const int*, T*);             \
  template int getri<T>(int, T*, const int*);                                  \
  template int potrf<T>(bool, int, T*);                                        \
  template int sytrf<T>(int, T*, int*);                                        \
  template int sytrs<T>(int, int, const T*, const int*, T*);                   \
  template void trsm<T>(bool, bool, bool, bool, int, int, const T*, T*);       \
  template int geqrf<T>(int, int, T*, T*);                                     \
  template int orgqr<T>(int, int, int, T*, const T*);                          \
  template int syevd<T>(bool, bool, int, T*, T*);                              \
  template int gesdd<T>(bool, bool, int, int, T*, T*, T*, T*);
CT_LAPACK_INSTANTIATE(float)
CT_LAPACK_INSTANTIATE(double)
#undef CT_LAPACK_INSTANTIATE

void qr_reduced(double* a, int64_t m64, int64_t n64, double* r_diag, const char* fn) {
  CT_CHECK(m64 >= n64 && n64 >= 1, CT_ERROR_SHAPE, fn, ": a QR of ", m64, " x ", n64,
           " needs rows >= columns >= 1");
  const int m = lapack_dim(m64, fn), n = lapack_dim(n64, fn);
  const cpu::SingleThreadedBlas one;  // Note [LAPACK calls]: the bits must not follow the thread count
  std::vector<double> tau(static_cast<size_t>(n));
  int info = geqrf(m, n, a, tau.data());
  CT_CHECK(info == 0, CT_ERROR_INTERNAL, fn, ": LAPACK dgeqrf failed (info ", info, ")");
  for (int j = 0; j < n; ++j) r_diag[j] = a[static_cast<int64_t>(j) * m + j];
  info = orgqr(m, n, n, a, tau.data());
  CT_CHECK(info == 0, CT_ERROR_INTERNAL, fn, ": LAPACK dorgqr failed (info ", info, ")");
}

}  // namespace ct::ops::lapack
