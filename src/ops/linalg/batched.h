// batched.h - what the LAPACK-backed operators share: checking their matrices as torch.linalg does,
// copying a batch into the column-major storage LAPACK reads (Note [LAPACK calls]), running a
// routine per matrix, and reporting a matrix LAPACK could not handle with its batch element.
#pragma once

#include <complex>
#include <cstdint>
#include <functional>
#include <string>

#include "core/error.h"
#include "core/tensor.h"
#include "ops/functions.h"

namespace ct::ops::linalg {

/// Whether a function takes complex matrices besides real ones (those whose LAPACK routines ctorch
/// calls in their complex forms too).
enum class Complex { Refused, Taken };

/// A's matrices: at least 2 dims, and square when `square`; float32 or float64 (torch.linalg's
/// real dtypes; the 16-bit floats and integers are refused naming fn, as torch refuses them), or
/// complex64 and complex128 too where complex is Taken.
void check_matrices(const char* fn, const TensorImpl& a, bool square, Complex complex = Complex::Refused);

/// A batch of matrices [..., rows, cols] copied to one contiguous tensor whose matrices each lie
/// column-major, so LAPACK writes into it in place.
struct ColumnMajor {
  Tensor data;  // sizes [..., cols, rows]
  int64_t batch = 0, rows = 0, cols = 0;

  template <typename T>
  T* matrix(int64_t i) const {
    return data->data_as<T>() + i * rows * cols;
  }
  /// The matrices as [..., rows, cols] again (a transposed view of data).
  Tensor matrices() const { return transpose(data, -2, -1); }
};
/// A's batch dims: all but the last `matrix_dims` (2 for matrices), symbolic or not.
SymDimVector batch_dims(const TensorImpl& a, size_t matrix_dims = 2);

/// For each matrix of a batch broadcast to sizes `to` (in row-major order), the index of the matrix
/// of `batch` it is: a contiguous int64 tensor of sizes `to`. A solver factors each matrix of its A
/// once and solves every right-hand side broadcast against it with those factors.
Tensor broadcast_sources(IntArrayRef batch, IntArrayRef to);

/// a's matrices, copied column-major into a new tensor of a's dtype on a's device (always a copy,
/// never a's memory). matrix<T>(i) is a device pointer for a cuda tensor (cuSOLVER reads the same
/// layout).
ColumnMajor column_major(const Tensor& a);
/// A new column-major batch of `batch` sizes [..., rows, cols], uninitialized.
ColumnMajor column_major_empty(IntArrayRef batch, int64_t rows, int64_t cols, DType dtype, Device device = kCPU);

/// Calls body(T{}) with T float for float32 and double for float64.
template <typename F>
void with_real_type(DType d, F&& body) {
  if (d == DType::Float64) {
    body(double{});
  } else {
    body(float{});
  }
}

/// Calls body(T{}) with T float, double, std::complex<float> or std::complex<double> for float32,
/// float64, complex64 and complex128.
template <typename F>
void with_lapack_type(DType d, F&& body) {
  switch (d) {
    case DType::Complex64: return body(std::complex<float>{});
    case DType::Complex128: return body(std::complex<double>{});
    default: return with_real_type(d, body);
  }
}

/// Runs body(i) for each matrix i < count of a batch, each costing about `flops`, with BLAS on one
/// thread (cpu::SingleThreadedBlas): the matrices are shared out among ctorch's threads, except
/// ones too cheap to be worth it (an 8 x 8 LU), which run in turn. So a factorization's bits never
/// depend on the thread count; the price is that one large matrix is factored on one core. Bodies
/// record failures (info) rather than raise, so that the batch element reported never depends on
/// the threads either.
void for_each_matrix(int64_t count, double flops, const std::function<void(int64_t)>& body);

/// Raises CT_ERROR_LINALG for matrix i of a batch: "fn: (Batch element i): what" when the input
/// was batched (batched), "fn: what" otherwise.
[[noreturn]] void fail_matrix(const char* fn, bool batched, int64_t i, const std::string& what);

/// What a routine's info > 0 means (LAPACK's and cuSOLVER's alike), said in torch's words by
/// check_infos: every device's kernel of a function reports a failed matrix the same way.
enum class Failure {
  LuZeroPivot,          // lu_factor: U[info, info] is zero
  SolveSingular,        // solve
  InverseSingular,      // inv: the diagonal element info is zero
  NotPositiveDefinite,  // cholesky: the leading minor of order info
  EighNoConvergence,    // eigh, eig
  SvdNoConvergence,     // svd
  LdlSingular,          // ldl_factor: D[info - 1, info - 1] is zero
};
/// Raises fail_matrix for the first of `count` matrices whose info (host memory) is > 0.
void check_infos(const char* fn, bool batched, const int32_t* info, int64_t count, Failure failure);

/// Raises CT_ERROR_INVALID_ARGUMENT unless the pivots of `count` matrices of size n (host memory,
/// n per matrix) are LAPACK's sytrf pivots, which sytrs indexes rows with: each a row in [1, n], or
/// a negative pair (a 2 x 2 block) naming one row twice.
void check_ldl_pivots(const char* fn, const int32_t* pivots, int64_t count, int64_t n);

/// Raises CT_ERROR_INVALID_ARGUMENT for a loss that depends on the phases of complex eigenvectors or
/// singular vectors (`what`; each defined up to e^{i phi}), as torch does: such a loss shows as an
/// imaginary diagonal of V^H gV (for singular vectors U^H gU + V^H gV), given here as vhgv. Nothing
/// for real vectors or on the meta device.
void check_phase_free(const char* fn, const char* what, const Tensor& vhgv);

/// The matrix E with E[i][j] = x_j - x_i off the diagonal and ones on it, for each vector x of a
/// batch: the gaps a derivative of eigenvectors or singular vectors divides by.
Tensor gaps(const Tensor& x);

/// The identity of A's matrix size for each matrix of its batch, in A's dtype, from A's own
/// diagonal so that symbolic sizes carry through.
Tensor identity_like(const Tensor& a);

/// The last two dims swapped.
inline Tensor mT(const Tensor& a) { return transpose(a, -2, -1); }
/// The conjugate transpose: mT for a real tensor.
inline Tensor mH(const Tensor& a) { return conj_if_complex(transpose(a, -2, -1)); }

}  // namespace ct::ops::linalg
