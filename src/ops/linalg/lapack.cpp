// lapack.cpp - the LAPACK and BLAS triangular-solve calls of lapack.h, over OpenBLAS's Fortran
// LAPACK (s* for float, d* for double, c* and z* for their complex numbers).
#include "ops/linalg/lapack.h"

#include <cblas.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <complex>
#include <cstddef>
#include <type_traits>
#include <vector>

#include "core/error.h"
#include "ops/cpu/cast.h"
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
#define CT_LAPACK_DECLARE_COMPLEX(T, R, p)                                                                         \
  void p##getrf_(const int* m, const int* n, T* a, const int* lda, int* ipiv, int* info);                          \
  void p##getrs_(const char* trans, const int* n, const int* nrhs, const T* a, const int* lda, const int* ipiv,    \
                 T* b, const int* ldb, int* info, size_t);                                                         \
  void p##getri_(const int* n, T* a, const int* lda, const int* ipiv, T* work, const int* lwork, int* info);    \
  void p##potrf_(const char* uplo, const int* n, T* a, const int* lda, int* info, size_t);                        \
  void p##geqrf_(const int* m, const int* n, T* a, const int* lda, T* tau, T* work, const int* lwork, int* info);  \
  void p##ungqr_(const int* m, const int* n, const int* k, T* a, const int* lda, const T* tau, T* work,            \
                 const int* lwork, int* info);                                                                     \
  void p##gesdd_(const char* jobz, const int* m, const int* n, T* a, const int* lda, R* s, T* u, const int* ldu,  \
                 T* vt, const int* ldvt, T* work, const int* lwork, R* rwork, int* iwork, int* info, size_t);      \
  void p##sytrf_(const char* uplo, const int* n, T* a, const int* lda, int* ipiv, T* work, const int* lwork,      \
                 int* info, size_t);                                                                               \
  void p##sytrs_(const char* uplo, const int* n, const int* nrhs, const T* a, const int* lda, const int* ipiv,    \
                 T* b, const int* ldb, int* info, size_t);                                                         \
  void p##hetrf_(const char* uplo, const int* n, T* a, const int* lda, int* ipiv, T* work, const int* lwork,      \
                 int* info, size_t);                                                                               \
  void p##hetrs_(const char* uplo, const int* n, const int* nrhs, const T* a, const int* lda, const int* ipiv,    \
                 T* b, const int* ldb, int* info, size_t);
CT_LAPACK_DECLARE_COMPLEX(std::complex<float>, float, c)
CT_LAPACK_DECLARE_COMPLEX(std::complex<double>, double, z)
#undef CT_LAPACK_DECLARE_COMPLEX
// geev: a real matrix's eigenvalues come as real and imaginary parts (wr, wi), a complex one's as
// complex numbers with a real workspace (rwork) beside the complex one.
#define CT_LAPACK_DECLARE_GEEV(T, p)                                                                               \
  void p##geev_(const char* jobvl, const char* jobvr, const int* n, T* a, const int* lda, T* wr, T* wi, T* vl,    \
                const int* ldvl, T* vr, const int* ldvr, T* work, const int* lwork, int* info, size_t, size_t);
CT_LAPACK_DECLARE_GEEV(float, s)
CT_LAPACK_DECLARE_GEEV(double, d)
#undef CT_LAPACK_DECLARE_GEEV
#define CT_LAPACK_DECLARE_GEEV(T, R, p)                                                                            \
  void p##geev_(const char* jobvl, const char* jobvr, const int* n, T* a, const int* lda, T* w, T* vl,            \
                const int* ldvl, T* vr, const int* ldvr, T* work, const int* lwork, R* rwork, int* info, size_t,  \
                size_t);
CT_LAPACK_DECLARE_GEEV(std::complex<float>, float, c)
CT_LAPACK_DECLARE_GEEV(std::complex<double>, double, z)
#undef CT_LAPACK_DECLARE_GEEV
// The Hermitian eigendecomposition: syevd's complex form, with a real workspace beside the complex one.
#define CT_LAPACK_DECLARE_HEEVD(T, R, p)                                                                           \
  void p##heevd_(const char* jobz, const char* uplo, const int* n, T* a, const int* lda, R* w, T* work,            \
                 const int* lwork, R* rwork, const int* lrwork, int* iwork, const int* liwork, int* info, size_t,   \
                 size_t);
CT_LAPACK_DECLARE_HEEVD(std::complex<float>, float, c)
CT_LAPACK_DECLARE_HEEVD(std::complex<double>, double, z)
#undef CT_LAPACK_DECLARE_HEEVD
}

namespace ct::ops::lapack {
namespace {

// The routine for T: float picks the s* one, double the d* one (and, where a routine has complex
// forms, std::complex<float> the c* one and std::complex<double> the z* one).
template <typename T, typename S, typename D>
constexpr auto pick(S s, D d) {
  if constexpr (std::is_same_v<T, float>) {
    return s;
  } else {
    static_assert(std::is_same_v<T, double>);
    return d;
  }
}
template <typename T, typename S, typename D, typename C, typename Z>
constexpr auto pick(S s, D d, C c, Z z) {
  if constexpr (std::is_same_v<T, std::complex<float>>) {
    return c;
  } else if constexpr (std::is_same_v<T, std::complex<double>>) {
    return z;
  } else {
    return pick<T>(s, d);
  }
}

// A workspace of the size a query (lwork = -1) answered (a complex routine answers in the real
// part), at least `least`.
template <typename T>
std::vector<T> workspace(T answered, int least) {
  return std::vector<T>(static_cast<size_t>(std::max(least, static_cast<int>(std::real(answered)))));
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
  pick<T>(sgetrf_, dgetrf_, cgetrf_, zgetrf_)(&m, &n, a, &lda, ipiv, &info);
  return info;
}

template <typename T>
int getrs(bool trans, int n, int nrhs, const T* lu, const int* ipiv, T* b) {
  int info = 0;
  const int ld = at_least_1(n);
  const char t = trans ? 'T' : 'N';
  pick<T>(sgetrs_, dgetrs_, cgetrs_, zgetrs_)(&t, &n, &nrhs, lu, &ld, ipiv, b, &ld, &info, 1);
  return info;
}

template <typename T>
int getri(int n, T* lu, const int* ipiv) {
  int info = 0, query = -1;
  const int ld = at_least_1(n);
  T best = 0;
  const auto f = pick<T>(sgetri_, dgetri_, cgetri_, zgetri_);
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
  pick<T>(spotrf_, dpotrf_, cpotrf_, zpotrf_)(&uplo, &n, a, &ld, &info, 1);
  // Reference LAPACK stops at a NaN pivot as at a non-positive one; OpenBLAS's potrf takes NaN as
  // positive and factors on, handing back NaN as a factor with info 0. The first NaN pivot, before
  // any it stopped at, is reported as reference LAPACK (and so torch) reports it.
  const int checked = info > 0 ? info - 1 : n;
  for (int j = 0; j < checked; ++j)  // a Hermitian matrix's diagonal is real
    if (std::isnan(std::real(a[static_cast<int64_t>(j) * ld + j]))) return j + 1;
  return info;
}

template <typename T>
int sytrf(bool hermitian, int n, T* a, int* ipiv) {
  int info = 0, query = -1;
  const int ld = at_least_1(n);
  const char uplo = 'L';
  T best = 0;
  // A complex matrix is factored as symmetric (sytrf) or Hermitian (hetrf); a real one is both.
  const auto f = hermitian ? pick<T>(ssytrf_, dsytrf_, chetrf_, zhetrf_) : pick<T>(ssytrf_, dsytrf_, csytrf_, zsytrf_);
  f(&uplo, &n, a, &ld, ipiv, &best, &query, &info, 1);
  std::vector<T> work = workspace(best, 1);
  const int lwork = static_cast<int>(work.size());
  f(&uplo, &n, a, &ld, ipiv, work.data(), &lwork, &info, 1);
  return info;
}

template <typename T>
int sytrs(bool hermitian, int n, int nrhs, const T* ld, const int* ipiv, T* b) {
  int info = 0;
  const int lda = at_least_1(n);
  const char uplo = 'L';
  const auto f = hermitian ? pick<T>(ssytrs_, dsytrs_, chetrs_, zhetrs_) : pick<T>(ssytrs_, dsytrs_, csytrs_, zsytrs_);
  f(&uplo, &n, &nrhs, ld, &lda, ipiv, b, &lda, &info, 1);
  return info;
}

template <typename T>
void trsm(bool left, bool upper, bool trans, bool unit, int m, int n, const T* a, T* b) {
  const int lda = at_least_1(left ? m : n), ldb = at_least_1(m);
  const auto side = left ? CblasLeft : CblasRight;
  const auto uplo = upper ? CblasUpper : CblasLower;
  const auto op = trans ? CblasTrans : CblasNoTrans;
  const auto diag = unit ? CblasUnit : CblasNonUnit;
  if constexpr (cpu::is_complex_t<T>::value) {  // the complex forms take alpha by pointer
    const T one(1);
    pick<T>(nullptr, nullptr, cblas_ctrsm, cblas_ztrsm)(CblasColMajor, side, uplo, op, diag, m, n, &one, a, lda, b, ldb);
  } else {
    pick<T>(cblas_strsm, cblas_dtrsm)(CblasColMajor, side, uplo, op, diag, m, n, T(1), a, lda, b, ldb);
  }
}

template <typename T>
int geqrf(int m, int n, T* a, T* tau) {
  int info = 0, query = -1;
  const int lda = at_least_1(m);
  T best = 0;
  const auto f = pick<T>(sgeqrf_, dgeqrf_, cgeqrf_, zgeqrf_);
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
  const auto f = pick<T>(sorgqr_, dorgqr_, cungqr_, zungqr_);  // ungqr: orgqr's complex form
  f(&m, &n, &k, a, &lda, tau, &best, &query, &info);
  std::vector<T> work = workspace(best, at_least_1(n));
  const int lwork = static_cast<int>(work.size());
  f(&m, &n, &k, a, &lda, tau, work.data(), &lwork, &info);
  return info;
}

template <typename T, typename R>
int syevd(bool vectors, bool upper, int n, T* a, R* w) {
  int info = 0, query = -1, ibest = 0;
  const int lda = at_least_1(n);
  const char jobz = vectors ? 'V' : 'N', uplo = upper ? 'U' : 'L';
  T best = 0;
  if constexpr (cpu::is_complex_t<T>::value) {  // heevd
    R rbest = 0;
    const auto f = pick<T>(nullptr, nullptr, cheevd_, zheevd_);
    f(&jobz, &uplo, &n, a, &lda, w, &best, &query, &rbest, &query, &ibest, &query, &info, 1, 1);
    std::vector<T> work = workspace(best, 1);
    std::vector<R> rwork = workspace(rbest, 1);
    std::vector<int> iwork(static_cast<size_t>(std::max(ibest, 1)));
    const int lwork = static_cast<int>(work.size()), lrwork = static_cast<int>(rwork.size());
    const int liwork = static_cast<int>(iwork.size());
    f(&jobz, &uplo, &n, a, &lda, w, work.data(), &lwork, rwork.data(), &lrwork, iwork.data(), &liwork, &info, 1, 1);
  } else {
    const auto f = pick<T>(ssyevd_, dsyevd_);
    f(&jobz, &uplo, &n, a, &lda, w, &best, &query, &ibest, &query, &info, 1, 1);
    std::vector<T> work = workspace(best, 1);
    std::vector<int> iwork(static_cast<size_t>(std::max(ibest, 1)));
    const int lwork = static_cast<int>(work.size()), liwork = static_cast<int>(iwork.size());
    f(&jobz, &uplo, &n, a, &lda, w, work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1);
  }
  return info;
}

template <typename T, typename R>
int gesdd(bool vectors, bool full, int m, int n, T* a, R* s, T* u, T* vt) {
  int info = 0, query = -1;
  const int k = std::min(m, n);
  const char jobz = !vectors ? 'N' : full ? 'A' : 'S';
  const int lda = at_least_1(m), ldu = at_least_1(m), ldvt = at_least_1(full ? n : k);
  std::vector<int> iwork(static_cast<size_t>(8 * std::max(k, 1)));
  T best = 0;
  if constexpr (cpu::is_complex_t<T>::value) {
    // The real workspace's size is LAPACK's documented bound (no query answers it).
    const int64_t mn = std::max(k, 1), mx = std::max({m, n, 1});
    const int64_t lrwork = vectors ? std::max(5 * mn * mn + 5 * mn, 2 * mx * mn + 2 * mn * mn + mn) : 7 * mn;
    std::vector<R> rwork(static_cast<size_t>(lrwork));
    const auto f = pick<T>(nullptr, nullptr, cgesdd_, zgesdd_);
    f(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, &best, &query, rwork.data(), iwork.data(), &info, 1);
    std::vector<T> work = workspace(best, 1);
    const int lwork = static_cast<int>(work.size());
    f(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work.data(), &lwork, rwork.data(), iwork.data(), &info, 1);
  } else {
    const auto f = pick<T>(sgesdd_, dgesdd_);
    f(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, &best, &query, iwork.data(), &info, 1);
    std::vector<T> work = workspace(best, 1);
    const int lwork = static_cast<int>(work.size());
    f(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work.data(), &lwork, iwork.data(), &info, 1);
  }
  return info;
}

template <typename T, typename C>
int geev(bool vectors, int n, T* a, C* w, C* v) {
  int info = 0, query = -1, one = 1;
  const int lda = at_least_1(n), ldv = vectors ? lda : 1;
  const char jobvl = 'N', jobvr = vectors ? 'V' : 'N';
  T best = 0;
  if constexpr (cpu::is_complex_t<T>::value) {
    // Written straight into w and v.
    using R = typename T::value_type;
    std::vector<R> rwork(static_cast<size_t>(2 * at_least_1(n)));
    const auto f = pick<T>(nullptr, nullptr, cgeev_, zgeev_);
    f(&jobvl, &jobvr, &n, a, &lda, w, nullptr, &one, v, &ldv, &best, &query, rwork.data(), &info, 1, 1);
    std::vector<T> work = workspace(best, 2 * at_least_1(n));
    const int lwork = static_cast<int>(work.size());
    f(&jobvl, &jobvr, &n, a, &lda, w, nullptr, &one, v, &ldv, work.data(), &lwork, rwork.data(), &info, 1, 1);
  } else {
    // A real matrix's eigenvalues come as (wr, wi), a complex conjugate pair at j, j + 1 with
    // wi[j] > 0, and its vectors as real columns: column j the real one of a real eigenvalue; for a
    // pair, columns j and j + 1 the real and imaginary parts of the first vector, the second its
    // conjugate.
    std::vector<T> wr(static_cast<size_t>(at_least_1(n))), wi(wr.size());
    std::vector<T> vr(vectors ? static_cast<size_t>(n) * n : 1);
    const auto f = pick<T>(sgeev_, dgeev_);
    f(&jobvl, &jobvr, &n, a, &lda, wr.data(), wi.data(), nullptr, &one, vr.data(), &ldv, &best, &query, &info, 1, 1);
    std::vector<T> work = workspace(best, (vectors ? 4 : 3) * at_least_1(n));
    const int lwork = static_cast<int>(work.size());
    f(&jobvl, &jobvr, &n, a, &lda, wr.data(), wi.data(), nullptr, &one, vr.data(), &ldv, work.data(), &lwork, &info,
      1, 1);
    if (info != 0) return info;
    const int64_t rows = n;
    for (int64_t j = 0; j < n; ++j) {
      w[j] = C(wr[j], wi[j]);
      if (!vectors) continue;
      const T* re = vr.data() + j * rows;
      if (wi[j] == T(0)) {
        for (int64_t i = 0; i < rows; ++i) v[j * rows + i] = C(re[i], 0);
        continue;
      }
      const T* im = re + rows;
      for (int64_t i = 0; i < rows; ++i) {
        v[j * rows + i] = C(re[i], im[i]);
        v[(j + 1) * rows + i] = C(re[i], -im[i]);
      }
      w[j + 1] = C(wr[j + 1], wi[j + 1]);
      ++j;
    }
  }
  return info;
}

#define CT_LAPACK_INSTANTIATE(T)                                                \
  template int getrf<T>(int, int, T*, int*);                                   \
  template int getrs<T>(bool, int, int, const T*, const int*, T*);             \
  template int getri<T>(int, T*, const int*);                                  \
  template int potrf<T>(bool, int, T*);                                        \
  template int sytrf<T>(bool, int, T*, int*);                                  \
  template int sytrs<T>(bool, int, int, const T*, const int*, T*);             \
  template void trsm<T>(bool, bool, bool, bool, int, int, const T*, T*);       \
  template int geqrf<T>(int, int, T*, T*);                                     \
  template int orgqr<T>(int, int, int, T*, const T*);                          \
  template int syevd<T, T>(bool, bool, int, T*, T*);                           \
  template int gesdd<T, T>(bool, bool, int, int, T*, T*, T*, T*);
CT_LAPACK_INSTANTIATE(float)
CT_LAPACK_INSTANTIATE(double)
#undef CT_LAPACK_INSTANTIATE
#define CT_LAPACK_INSTANTIATE_COMPLEX(T)                                        \
  template int getrf<T>(int, int, T*, int*);                                   \
  template int getrs<T>(bool, int, int, const T*, const int*, T*);             \
  template int getri<T>(int, T*, const int*);                                  \
  template int potrf<T>(bool, int, T*);                                        \
  template void trsm<T>(bool, bool, bool, bool, int, int, const T*, T*);       \
  template int geqrf<T>(int, int, T*, T*);                                     \
  template int orgqr<T>(int, int, int, T*, const T*);                          \
  template int syevd<T, T::value_type>(bool, bool, int, T*, T::value_type*);   \
  template int gesdd<T, T::value_type>(bool, bool, int, int, T*, T::value_type*, T*, T*);  \
  template int sytrf<T>(bool, int, T*, int*);                                  \
  template int sytrs<T>(bool, int, int, const T*, const int*, T*);
CT_LAPACK_INSTANTIATE_COMPLEX(std::complex<float>)
CT_LAPACK_INSTANTIATE_COMPLEX(std::complex<double>)
#undef CT_LAPACK_INSTANTIATE_COMPLEX
template int geev<float, std::complex<float>>(bool, int, float*, std::complex<float>*, std::complex<float>*);
template int geev<double, std::complex<double>>(bool, int, double*, std::complex<double>*, std::complex<double>*);
template int geev<std::complex<float>, std::complex<float>>(bool, int, std::complex<float>*, std::complex<float>*,
                                                            std::complex<float>*);
template int geev<std::complex<double>, std::complex<double>>(bool, int, std::complex<double>*,
                                                              std::complex<double>*, std::complex<double>*);

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
