// lapack.h - the LAPACK routines ctorch calls, from the LAPACK that Debian's OpenBLAS carries (the
// library ctorch already links for BLAS), and the small C++ forms over them.
#pragma once

#include <cstdint>

namespace ct::ops {

/// The Householder QR of the m x n column-major matrix a (m >= n): overwrites a with the reduced Q
/// (m x n, orthonormal columns) and writes R's diagonal to r_diag[n]. Raises CT_ERROR_INTERNAL
/// naming fn when LAPACK reports an error (it cannot for valid sizes).
void qr_reduced(double* a, int64_t m, int64_t n, double* r_diag, const char* fn);

}  // namespace ct::ops
