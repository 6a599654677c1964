// batched.cpp - the checks, column-major copies and errors the LAPACK-backed operators share.
#include "ops/linalg/batched.h"

#include "ops/cpu/parallel.h"
#include "ops/op_common.h"

namespace ct::ops::linalg {

void check_matrices(const char* fn, const TensorImpl& a, bool square, Complex complex) {
  CT_CHECK(a.dim() >= 2, CT_ERROR_SHAPE, fn, ": A must have at least 2 dimensions (batches of matrices), got sizes ",
           a.sym_sizes());
  if (square)
    CT_CHECK(a.sym_size(a.dim() - 1) == a.sym_size(a.dim() - 2), CT_ERROR_SHAPE, fn,
             ": A must be batches of square matrices, but they are ", a.sym_size(a.dim() - 2), " by ",
             a.sym_size(a.dim() - 1), " matrices");
  if (complex == Complex::Taken && is_complex(a.dtype())) return;
  CT_CHECK(a.dtype() == DType::Float32 || a.dtype() == DType::Float64, CT_ERROR_DTYPE, fn,
           ": expected a float32 or float64", complex == Complex::Taken ? " (or complex64 or complex128)" : "",
           " tensor, got ", a.dtype(),
           " (LAPACK computes in single or double precision). Convert A with to(float32) or to(float64)");
}

SymDimVector batch_dims(const TensorImpl& a, size_t matrix_dims) {
  SymDimVector b;
  for (size_t d = 0; d + matrix_dims < a.dim(); ++d) b.push_back(a.sym_size(d));
  return b;
}

Tensor broadcast_sources(IntArrayRef batch, IntArrayRef to) {
  int64_t n = 1;
  for (int64_t s : batch) n *= s;
  return contiguous(expand(reshape(arange(Scalar(0), Scalar(n), Scalar(1), DType::Int64), batch), to));
}

ColumnMajor column_major(const Tensor& a) {
  // Always a copy: LAPACK overwrites it, and contiguous() of an input that already lies column-major
  // (a transposed view) would hand back the input's own memory.
  const IntArrayRef s = a->sizes();
  const IntArrayRef batch(s.data(), s.size() - 2);
  ColumnMajor c = column_major_empty(batch, s[s.size() - 2], s[s.size() - 1], a->dtype(), a->device());
  copy_(c.data, transpose(a, -2, -1));
  return c;
}

ColumnMajor column_major_empty(IntArrayRef batch, int64_t rows, int64_t cols, DType dtype, Device device) {
  DimVector sizes(batch);
  sizes.push_back(cols);
  sizes.push_back(rows);
  ColumnMajor c;
  c.data = empty(sizes, dtype, device);
  c.rows = rows;
  c.cols = cols;
  c.batch = rows * cols == 0 ? 0 : c.data->numel() / (rows * cols);
  return c;
}

void for_each_matrix(int64_t count, double flops, const std::function<void(int64_t)>& body) {
  // Below a few thousand flops a matrix, sharing the batch out costs more than it saves (measured:
  // the LU and Cholesky of 8 x 8 matrices, whose OpenBLAS routines take a lock for their workspace).
  constexpr double kWorthSharing = 1000;
  cpu::SingleThreadedBlas one;
  if (flops < kWorthSharing) {
    for (int64_t i = 0; i < count; ++i) body(i);
    return;
  }
  cpu::parallel_for(0, count, 1, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) body(i);
  });
}

void fail_matrix(const char* fn, bool batched, int64_t i, const std::string& what) {
  if (batched) fail(CT_ERROR_LINALG, str(fn, ": (Batch element ", i, "): ", what));
  fail(CT_ERROR_LINALG, str(fn, ": ", what));
}

void check_infos(const char* fn, bool batched, const int32_t* info, int64_t count, Failure failure) {
  for (int64_t i = 0; i < count; ++i) {
    const int32_t k = info[i];
    if (k <= 0) continue;
    switch (failure) {
      case Failure::LuZeroPivot:
        fail_matrix(fn, batched, i,
                    str("U[", k, ",", k, "] is zero and using it on lu_solve would result in a division by zero. If "
                        "you still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
                        "linalg.lu_factor_ex(A, pivot)"));
      case Failure::SolveSingular:
        fail_matrix(fn, batched, i, "The solver failed because the input matrix is singular.");
      case Failure::InverseSingular:
        fail_matrix(fn, batched, i,
                    str("The diagonal element ", k, " is zero, the inversion could not be completed because the "
                        "input matrix is singular."));
      case Failure::NotPositiveDefinite:
        fail_matrix(fn, batched, i,
                    str("The factorization could not be completed because the input is not positive-definite (the "
                        "leading minor of order ", k, " is not positive-definite)."));
      case Failure::EighNoConvergence:
        fail_matrix(fn, batched, i,
                    str("The algorithm failed to converge because the input matrix is ill-conditioned or has too "
                        "many repeated eigenvalues (error code: ", k, ")."));
      case Failure::SvdNoConvergence:
        fail_matrix(fn, batched, i,
                    str("The algorithm failed to converge because the input matrix is ill-conditioned or has too "
                        "many repeated singular values (error code: ", k, ")."));
      case Failure::LdlSingular:
        fail_matrix(fn, batched, i,
                    str("The factorization could not be completed because the input is singular: D[", k - 1, ", ",
                        k - 1, "] is exactly zero."));
    }
  }
}

void check_ldl_pivots(const char* fn, const int32_t* pivots, int64_t count, int64_t n) {
  for (int64_t m = 0; m < count; ++m)
    for (int64_t k = 0; k < n; ++k) {
      const int32_t v = pivots[m * n + k];
      const bool one = v >= 1 && v <= n;
      const bool pair = v < 0 && -v <= n && k + 1 < n && pivots[m * n + k + 1] == v;
      CT_CHECK(one || pair, CT_ERROR_INVALID_ARGUMENT, fn, ": pivot ", k, " of matrix ", m, " is ", v,
               ", which is not one of LAPACK's (a row in [1, ", n, "], or a negative pair). Pass the pivots "
               "ldl_factor returned");
      if (pair) ++k;
    }
}

void check_phase_free(const char* fn, const char* what, const Tensor& vhgv) {
  if (!is_complex(vhgv->dtype()) || vhgv->device().is_meta() || vhgv->numel() == 0) return;
  const Tensor phase = amax(abs(imag(diagonal(vhgv, 0, -2, -1))));
  const double worst = host_contiguous(to(phase, DType::Float64))->data_as<double>()[0];
  // torch's tolerance: a loss of the phases moves the diagonal by its derivative, far above rounding.
  CT_CHECK(worst <= 1e-2, CT_ERROR_INVALID_ARGUMENT, fn, ": The ", what,
           " in the complex case are specified up to multiplication by e^{i phi}. The specified loss function "
           "depends on this phase term, making it ill-defined (the imaginary part of the diagonal that measures it "
           "reaches ", worst, "). Make the loss depend on the ", what, " through phase-free quantities such as abs()");
}

Tensor gaps(const Tensor& x) {
  const Tensor e = sub(unsqueeze(x, -2), unsqueeze(x, -1));
  return add(e, diag_embed(ones(x->sizes(), x->dtype(), x->device())));
}

Tensor identity_like(const Tensor& a) {
  const Tensor d = diagonal(a, 0, -2, -1);
  return diag_embed(full_symint(d->sym_sizes(), Scalar(1), a->dtype(), a->device()));
}

}  // namespace ct::ops::linalg
