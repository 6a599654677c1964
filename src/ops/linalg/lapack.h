// lapack.h - the LAPACK routines ctorch calls, from the LAPACK that Debian's OpenBLAS carries (the
// library ctorch already links for BLAS), as small C++ functions over float and double, and over
// std::complex<float> and std::complex<double> where a complex operator needs them (the LU family,
// geev, heevd, potrf, trsm, geqrf/ungqr, gesdd and sytrf/hetrf).
//
// Note [LAPACK calls]
// Every matrix is column-major with its leading dimension equal to its row count: a row-major
// [n, m] block is the column-major m x n matrix. Each function takes care of LAPACK's workspace
// query and returns LAPACK's info (0: success; > 0: a mathematical failure the caller reports
// with the batch element, as torch does; < 0 cannot happen for the sizes the callers pass). The
// Fortran character arguments carry gfortran's hidden lengths. Sizes are checked to fit LAPACK's
// 32-bit integers by lapack_dim.
//
// Determinism: every call runs with OpenBLAS on one thread (linalg::for_each_matrix shares a batch's
// matrices among ctorch's threads instead), because OpenBLAS's threaded symv and parallel Cholesky
// split sums, and their bits would follow the thread count.
#pragma once

#include <complex>
#include <cstdint>

namespace ct::ops::lapack {

/// n as LAPACK's int; CT_ERROR_SHAPE naming fn when it is 2^31 or more.
int lapack_dim(int64_t n, const char* fn);

/// LU with partial pivoting of the m x n a: L (unit diagonal) below, U on and above; ipiv[min(m, n)]
/// the 1-based row swaps. info > 0: U(info, info) is exactly zero.
template <typename T>
int getrf(int m, int n, T* a, int* ipiv);
/// Solves A X = B (trans: A^T X = B, the plain transpose for complex A too) for nrhs columns of b,
/// from getrf's LU of the n x n A.
template <typename T>
int getrs(bool trans, int n, int nrhs, const T* lu, const int* ipiv, T* b);
/// The inverse of the n x n A from getrf's LU of it, in place of the LU.
template <typename T>
int getri(int n, T* lu, const int* ipiv);
/// Cholesky of the symmetric (Hermitian, for complex T) positive-definite n x n a, lower (or upper)
/// triangle written, the other left as it was. info > 0: the leading minor of order info is not
/// positive-definite.
template <typename T>
int potrf(bool upper, int n, T* a);
/// Bunch-Kaufman LDL^T (LDL^H for a hermitian complex a: hetrf) of the symmetric n x n a from its
/// lower triangle: L (unit diagonal) below, the 1 x 1 and 2 x 2 blocks of D on and next to the
/// diagonal, ipiv[n] LAPACK's interchanges (a negative pair marks a 2 x 2 block). info > 0:
/// D(info, info) is exactly zero. For real T hermitian changes nothing.
template <typename T>
int sytrf(bool hermitian, int n, T* a, int* ipiv);
/// Solves A X = B for nrhs columns of b from sytrf's factors of the n x n A (hetrs when hermitian).
template <typename T>
int sytrs(bool hermitian, int n, int nrhs, const T* ld, const int* ipiv, T* b);
/// B <- op(A)^-1 B (left) or B op(A)^-1 for the triangular A (k x k, k = m when left, n else) and
/// the m x n b; op(A) = A^T (not conjugated) when trans; unit: A's diagonal is taken as ones.
template <typename T>
void trsm(bool left, bool upper, bool trans, bool unit, int m, int n, const T* a, T* b);
/// Householder QR of the m x n a: R on and above the diagonal, the reflectors below, their scales
/// in tau[min(m, n)].
template <typename T>
int geqrf(int m, int n, T* a, T* tau);
/// The m x n Q with orthonormal columns from the first k reflectors of geqrf (m >= n >= k), in a.
template <typename T>
int orgqr(int m, int n, int k, T* a, const T* tau);
/// Eigenvalues (ascending, real) of the symmetric (Hermitian, for complex T: heevd) n x n a into w,
/// reading its lower (or upper) triangle; with vectors, a is overwritten by the orthonormal
/// eigenvectors, one per column. info > 0: no convergence.
template <typename T, typename R>
int syevd(bool vectors, bool upper, int n, T* a, R* w);
/// Singular values (descending, real) of the m x n a into s; with vectors, U (m x ucols) into u and
/// V^H (vrows x n) into vt, where ucols = vrows = m and n (full) or min(m, n) (reduced). a is
/// destroyed. info > 0: no convergence.
template <typename T, typename R>
int gesdd(bool vectors, bool full, int m, int n, T* a, R* s, T* u, T* vt);

/// The eigenvalues of the general n x n a into w[n] and, with vectors, its right eigenvectors into
/// v (n x n, one per column, each of Euclidean norm 1 and largest component real), in LAPACK's
/// order; a is destroyed. T is real (a real matrix's complex conjugate pairs of eigenvalues and
/// vectors are unpacked into w and v) or complex. info > 0: the QR algorithm did not converge.
template <typename T, typename C>
int geev(bool vectors, int n, T* a, C* w, C* v);

/// The Householder QR of the m x n column-major matrix a (m >= n): overwrites a with the reduced Q
/// (m x n, orthonormal columns) and writes R's diagonal to r_diag[n]. Raises CT_ERROR_INTERNAL
/// naming fn when LAPACK reports an error (it cannot for valid sizes).
void qr_reduced(double* a, int64_t m, int64_t n, double* r_diag, const char* fn);

}  // namespace ct::ops::lapack
