// linalg.cpp - CUDA compute for the LAPACK-backed operators of torch.linalg, on cuSOLVER (the
// table's solver member) and cuBLAS trsm: lu_factor_ex, solve_ex, inv_ex, det, slogdet,
// cholesky_ex, solve_triangular, eigh, eig, _linalg_eigvals, svd, qr, geqrf, ldl_factor_ex and
// ldl_solve. Their meta functions and derivatives are
// the ops' own (src/ops/linalg/); the composites over them (solve, inv, lu, lu_solve, cholesky_solve,
// eigvalsh, svdvals, matrix_rank, cond, lstsq, the matrix norms, ...) run on cuda through them.
//
// Each kernel copies its matrices column-major on the device (linalg::column_major, as the cpu
// kernels do for LAPACK), runs one routine per matrix on the call's stream, and reports a failed
// matrix as the cpu kernel does (linalg::check_infos), which reads the infos back: the same sync
// torch makes for its errors. float32 and float64; complex tensors are refused by code() as every
// cuda kernel refuses them (eig's complex results are written through their parts).
#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "core/error.h"
#include "cuda/driver_members.h"
#include "cuda/kernel_util.h"
#include "cuda/kernels.h"
#include "ops/functions.h"
#include "ops/linalg/batched.h"
#include "ops/op_common.h"

namespace ct::cuda {
namespace {

using ops::linalg::column_major;
using ops::linalg::column_major_empty;
using ops::linalg::ColumnMajor;
using ops::linalg::Failure;

ct_cuda_solver solver_args(int op, DType d, int64_t m, int64_t n, int64_t batch) {
  ct_cuda_solver s{};
  s.op = op;
  s.dtype = code(d);
  s.m = m;
  s.n = n;
  s.batch = batch;
  return s;
}

// Runs s on stream with a workspace from the caching allocator (freed in stream order).
void run_solver(const char* fn, const ct_cuda_solver& s, Device device, void* stream) {
  const ct_cuda_driver& d = CT_CUDA_DRIVER_WITH(fn, solver);
  size_t bytes = 0;
  check(d.solver_workspace(&s, &bytes), fn);
  const Tensor work = empty_on({static_cast<int64_t>(bytes)}, DType::UInt8, device);
  check(d.solver(&s, bytes ? work->data() : nullptr, bytes, stream), fn);
}

// A contiguous int32 device tensor of sizes, zeroed (a batch with no matrices reports no failure).
Tensor zeroed_int32(const char* fn, IntArrayRef sizes, Device device, void* stream) {
  Tensor t = empty_on(sizes, DType::Int32, device);
  fill(fn, *t, Scalar(0), stream);
  return t;
}

// Raises as the cpu kernel does for the first matrix whose info (on the device) is > 0.
void check_device_infos(const char* fn, bool batched, const Tensor& info, Failure failure, void* stream) {
  const std::vector<int32_t> host = read_back<int32_t>(fn, info->data(), info->numel(), stream);
  ops::linalg::check_infos(fn, batched, host.data(), info->numel(), failure);
}

IntArrayRef batch_of(const Tensor& a) { return IntArrayRef(a->sizes().data(), a->dim() - 2); }

DimVector with(IntArrayRef sizes, std::initializer_list<int64_t> more) {
  DimVector r(sizes);
  for (int64_t s : more) r.push_back(s);
  return r;
}

// Factors a's matrices in place (GETRF): pivots and infos in contiguous int32 device tensors.
struct Lu {
  ColumnMajor lu;
  Tensor pivots, info;
};
Lu lu_factor(const char* fn, const Tensor& a, void* stream) {
  Lu r{column_major(a), {}, {}};
  const int64_t k = std::min(r.lu.rows, r.lu.cols);
  r.pivots = empty_on(with(batch_of(a), {k}), DType::Int32, a->device());
  r.info = zeroed_int32(fn, batch_of(a), a->device(), stream);
  ct_cuda_solver s = solver_args(CT_CUDA_SOLVER_GETRF, a->dtype(), r.lu.rows, r.lu.cols, r.lu.batch);
  s.a = r.lu.data->data();
  s.ipiv = r.pivots->data_as<int32_t>();
  s.info = r.info->data_as<int32_t>();
  run_solver(fn, s, a->device(), stream);
  return r;
}

// x's matrices (column-major, n x k) <- op(A)^-1 x with the factors of A (n x n) and pivots
// (contiguous, one matrix and one row of pivots per matrix of x).
void lu_solve_in_place(const char* fn, const Tensor& factors, const Tensor& pivots, bool trans, const ColumnMajor& x,
                       void* stream) {
  ct_cuda_solver s = solver_args(CT_CUDA_SOLVER_GETRS, x.data->dtype(), x.rows, x.rows, x.batch);
  s.k = x.cols;
  s.trans = trans;
  s.a = factors->data();
  s.ipiv = pivots->data_as<int32_t>();
  s.b = x.data->data();
  const Tensor info = zeroed_int32(fn, {std::max<int64_t>(x.batch, 1)}, x.data->device(), stream);
  s.info = info->data_as<int32_t>();
  run_solver(fn, s, x.data->device(), stream);
}

// linalg_lu_factor_ex(Tensor A, *, bool pivot=True, bool check_errors=False) -> (LU, pivots, info)
void lu_factor_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = "linalg.lu_factor";
  const Tensor a = Tensor::borrow(&f.tensor(0));
  void* stream = stream_for(*a);
  const Lu r = lu_factor(fn, a, stream);
  ops::copy_(outs[0], r.lu.matrices());
  ops::copy_(outs[1], r.pivots);
  ops::copy_(outs[2], r.info);
  if (f.arg(2).to_bool()) check_device_infos(fn, a->dim() > 2, r.info, Failure::LuZeroPivot, stream);
}

// linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False) -> (result, info)
// Each matrix of A is factored once; its factors are broadcast to B's batch for the solves.
void solve_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = "linalg.solve";
  const Tensor a = Tensor::borrow(&f.tensor(0)), b = Tensor::borrow(&f.tensor(1));
  const bool left = f.arg(2).to_bool();
  void* stream = stream_for(*a);
  // B is a batch of vectors when it has one dim less than A and A's batch (as the meta function).
  const IntArrayRef rsz = outs[0]->sizes();
  const bool vector = rsz.size() + 1 == static_cast<size_t>(a->dim());
  Tensor rhs = vector ? ops::unsqueeze(b, -1) : b;
  if (!left) rhs = ops::transpose(rhs, -2, -1);  // X A = B: A^T X^T = B^T
  const int64_t n = a->size(a->dim() - 1), nrhs = rhs->size(rhs->dim() - 1);
  const DimVector batch(IntArrayRef(rsz.data(), rsz.size() - (vector ? 1 : 2)));
  const Lu lu = lu_factor(fn, a, stream);
  ops::copy_(outs[1], lu.info);
  if (f.arg(3).to_bool()) check_device_infos(fn, a->dim() > 2, lu.info, Failure::SolveSingular, stream);
  const ColumnMajor x = column_major(ops::expand(rhs, with(batch, {n, nrhs})));
  const Tensor factors = ops::contiguous(ops::expand(lu.lu.data, with(batch, {n, n})));
  const Tensor pivots = ops::contiguous(ops::expand(lu.pivots, with(batch, {n})));
  lu_solve_in_place(fn, factors, pivots, !left, x, stream);
  Tensor r = x.matrices();
  if (!left) r = ops::transpose(r, -2, -1);
  ops::copy_(outs[0], vector ? ops::squeeze(r, -1) : r);
}

// linalg_inv_ex(Tensor A, *, bool check_errors=False) -> (inverse, info): cuSOLVER has no getri,
// so the inverse solves A X = I with the LU (as torch does on cuda).
void inv_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = "linalg.inv";
  const Tensor a = Tensor::borrow(&f.tensor(0));
  void* stream = stream_for(*a);
  const Lu lu = lu_factor(fn, a, stream);
  ops::copy_(outs[1], lu.info);
  if (f.arg(1).to_bool()) check_device_infos(fn, a->dim() > 2, lu.info, Failure::InverseSingular, stream);
  const int64_t n = lu.lu.rows;
  const ColumnMajor x = column_major(ops::expand(ops::eye(n, n, a->dtype(), a->device()), a->sizes()));
  lu_solve_in_place(fn, lu.lu.data, lu.pivots, false, x, stream);
  ops::copy_(outs[0], x.matrices());
}

// linalg_det(Tensor A) -> Tensor; linalg_slogdet(Tensor A) -> (sign, logabsdet): from U's diagonal
// and the parity of the row swaps, as the cpu kernel computes them.
template <bool kLog>
void determinant_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = kLog ? "linalg.slogdet" : "linalg.det";
  const Tensor a = Tensor::borrow(&f.tensor(0));
  void* stream = stream_for(*a);
  const Lu lu = lu_factor(fn, a, stream);
  const int64_t n = lu.lu.rows;
  const Tensor u = ops::diagonal(lu.lu.matrices(), 0, -2, -1);
  // (-1)^(rows swapped): pivot j (1-based) names another row than j + 1.
  const Tensor rows = ops::arange(Scalar(1), Scalar(n + 1), Scalar(1), DType::Int32, a->device());
  const Tensor odd = ops::remainder(ops::sum(ops::ne(lu.pivots, rows), IntArrayRef{-1}), Scalar(2));
  const Tensor parity = ops::to(ops::add(ops::mul(odd, Scalar(-2)), Scalar(1)), a->dtype());
  if constexpr (kLog) {
    ops::copy_(outs[0], ops::mul(parity, ops::prod(ops::sign(u), IntArrayRef{-1})));
    ops::copy_(outs[1], ops::sum(ops::log(ops::abs(u)), IntArrayRef{-1}));
  } else {
    ops::copy_(outs[0], ops::mul(parity, ops::prod(u, IntArrayRef{-1})));
  }
}

// linalg_cholesky_ex(Tensor A, *, bool upper=False, bool check_errors=False) -> (L, info)
void cholesky_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = "linalg.cholesky";
  const Tensor a = Tensor::borrow(&f.tensor(0));
  const bool upper = f.arg(1).to_bool();
  void* stream = stream_for(*a);
  const ColumnMajor l = column_major(a);
  const Tensor info = zeroed_int32(fn, batch_of(a), a->device(), stream);
  ct_cuda_solver s = solver_args(CT_CUDA_SOLVER_POTRF, a->dtype(), l.rows, l.cols, l.batch);
  s.upper = upper;
  s.a = l.data->data();
  s.info = info->data_as<int32_t>();
  run_solver(fn, s, a->device(), stream);
  // potrf leaves the other triangle as A had it: the factor is the one triangle.
  ops::copy_(outs[0], upper ? ops::triu(l.matrices()) : ops::tril(l.matrices()));
  ops::copy_(outs[1], info);
  if (f.arg(2).to_bool()) check_device_infos(fn, a->dim() > 2, info, Failure::NotPositiveDefinite, stream);
}

// linalg_solve_triangular(Tensor A, Tensor B, *, bool upper, bool left=True, bool unitriangular=False)
void solve_triangular_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = "linalg.solve_triangular";
  const DType d = outs[0]->dtype();
  const Tensor a = ops::to(Tensor::borrow(&f.tensor(0)), d), b = ops::to(Tensor::borrow(&f.tensor(1)), d);
  const bool upper = f.arg(2).to_bool(), left = f.arg(3).to_bool(), unit = f.arg(4).to_bool();
  void* stream = stream_for(*outs[0]);
  const IntArrayRef out = outs[0]->sizes();
  const int64_t n = a->size(a->dim() - 1);
  const ColumnMajor am = column_major(ops::expand(a, with(IntArrayRef(out.data(), out.size() - 2), {n, n})));
  const ColumnMajor x = column_major(ops::expand(b, out));
  check(CT_CUDA_DRIVER_WITH(fn, trsm).trsm(code(d), left, upper, /*trans=*/0, unit, x.rows, x.cols,
                                           am.data->data(), n * n, x.data->data(), x.rows * x.cols, x.batch, stream),
        fn);
  ops::copy_(outs[0], x.matrices());
}

// linalg_eigh(Tensor A, str UPLO='L') -> (eigenvalues, eigenvectors)
void eigh_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = "linalg.eigh";
  const Tensor a = Tensor::borrow(&f.tensor(0));
  const char* uplo = f.arg(1).str();
  void* stream = stream_for(*a);
  const ColumnMajor v = column_major(a);
  const Tensor w = empty_on(outs[0]->sizes(), outs[0]->dtype(), a->device());
  const Tensor info = zeroed_int32(fn, batch_of(a), a->device(), stream);
  ct_cuda_solver s = solver_args(CT_CUDA_SOLVER_SYEVD, a->dtype(), v.rows, v.cols, v.batch);
  s.upper = std::strcmp(uplo, "U") == 0 || std::strcmp(uplo, "u") == 0;  // 'L' or 'U': checked by the meta function
  s.a = v.data->data();
  s.w = w->data();
  s.info = info->data_as<int32_t>();
  run_solver(fn, s, a->device(), stream);
  check_device_infos(fn, a->dim() > 2, info, Failure::EighNoConvergence, stream);
  ops::copy_(outs[0], w);
  ops::copy_(outs[1], v.matrices());
}

// linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) -> (U, S, Vh)
// cuSOLVER's gesvd factors m >= n matrices only: a wide A is factored through A^T = V S U^T.
void svd_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = "linalg.svd";
  const Tensor a = Tensor::borrow(&f.tensor(0));
  const bool full = f.arg(1).to_bool();
  CT_CHECK(f.arg(2).is_none() || std::strcmp(f.arg(2).str(), "gesvd") == 0, CT_ERROR_NOT_IMPLEMENTED, fn, ": driver='",
           f.arg(2).str(), "' is not implemented: ctorch runs cuSOLVER's gesvd on cuda. Pass driver=None or 'gesvd'");
  void* stream = stream_for(*a);
  const int64_t rows = a->size(a->dim() - 2), cols = a->size(a->dim() - 1);
  const DType d = a->dtype();
  if (rows == 0 || cols == 0) {  // no singular values: U and Vh are identities (no columns when reduced)
    const int64_t ucols = outs[0]->size(outs[0]->dim() - 1), vrows = outs[2]->size(outs[2]->dim() - 2);
    ops::copy_(outs[0], ops::expand(ops::eye(rows, ucols, d, a->device()), outs[0]->sizes()));
    ops::copy_(outs[2], ops::expand(ops::eye(vrows, cols, d, a->device()), outs[2]->sizes()));
    return;
  }
  // Note [Non-finite input to the SVD] (spectral.cpp): a NaN is an error, an infinity gives NaN
  // singular values and vectors, as on the cpu.
  const Tensor flat = ops::flatten(a, -2, -1);
  const Tensor nan_in = ops::contiguous(ops::any(ops::isnan(flat), -1));
  const std::vector<uint8_t> has_nan = read_back<uint8_t>(fn, nan_in->data(), nan_in->numel(), stream);
  for (size_t i = 0; i < has_nan.size(); ++i)
    if (has_nan[i])
      ops::linalg::fail_matrix(
          fn, a->dim() > 2, static_cast<int64_t>(i),
          "The algorithm failed to converge because the input matrix contained non-finite values.");
  const Tensor finite = ops::all(ops::isfinite(flat), -1);
  const Tensor keep = ops::unsqueeze(ops::unsqueeze(finite, -1), -1);
  const Tensor zero = ops::zeros({}, d, a->device());
  const Tensor nan = ops::full({}, Scalar(std::numeric_limits<double>::quiet_NaN()), d, a->device());
  // A matrix holding an infinity is factored as zeros (its results are NaN below): gesvd is not
  // handed values it may not converge on.
  const Tensor finite_a = ops::where(keep, a, zero);
  const bool wide = rows < cols;
  const int64_t m = wide ? cols : rows, n = wide ? rows : cols;
  const ColumnMajor h = column_major(wide ? ops::transpose(finite_a, -2, -1) : finite_a);
  const ColumnMajor u = column_major_empty(batch_of(a), m, full ? m : n, d, a->device());
  const ColumnMajor vt = column_major_empty(batch_of(a), n, n, d, a->device());
  const Tensor s_values = empty_on(outs[1]->sizes(), outs[1]->dtype(), a->device());
  const Tensor info = zeroed_int32(fn, batch_of(a), a->device(), stream);
  ct_cuda_solver s = solver_args(CT_CUDA_SOLVER_GESVD, d, m, n, h.batch);
  s.full = full;
  s.a = h.data->data();
  s.b = u.data->data();
  s.c = vt.data->data();
  s.w = s_values->data();
  s.info = info->data_as<int32_t>();
  run_solver(fn, s, a->device(), stream);
  check_device_infos(fn, a->dim() > 2, info, Failure::SvdNoConvergence, stream);
  // A = U S VT, or for a wide A: A^T = U S VT, so A = VT^T S U^T.
  const Tensor big_u = wide ? ops::transpose(vt.matrices(), -2, -1) : u.matrices();
  const Tensor big_vh = wide ? ops::transpose(u.matrices(), -2, -1) : vt.matrices();
  ops::copy_(outs[0], ops::where(keep, big_u, nan));
  ops::copy_(outs[1], ops::where(ops::unsqueeze(finite, -1), s_values, nan));
  ops::copy_(outs[2], ops::where(keep, big_vh, nan));
}

// Factors a's matrices in place (GEQRF): R and the reflectors, and tau in a contiguous device tensor.
struct Qr {
  ColumnMajor factored;
  Tensor tau;
};
Qr geqrf(const char* fn, const Tensor& a, void* stream) {
  Qr r{column_major(a), {}};
  const int64_t k = std::min(r.factored.rows, r.factored.cols);
  r.tau = empty_on(with(batch_of(a), {k}), a->dtype(), a->device());
  const Tensor info = zeroed_int32(fn, {std::max<int64_t>(r.factored.batch, 1)}, a->device(), stream);
  ct_cuda_solver s = solver_args(CT_CUDA_SOLVER_GEQRF, a->dtype(), r.factored.rows, r.factored.cols, r.factored.batch);
  s.a = r.factored.data->data();
  s.w = r.tau->data();
  s.info = info->data_as<int32_t>();
  run_solver(fn, s, a->device(), stream);
  return r;
}

// linalg_qr(Tensor A, str mode='reduced') -> (Q, R); Q (mode 'r': none) from the reflectors by ORGQR.
void qr_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = "linalg.qr";
  const Tensor a = Tensor::borrow(&f.tensor(0));
  void* stream = stream_for(*a);
  const Qr qr = geqrf(fn, a, stream);
  const int64_t m = qr.factored.rows, n = qr.factored.cols, k = std::min(m, n);
  const Tensor& q_out = outs[0];
  const bool want_q = q_out->dim() == a->dim();  // mode 'r' returns an empty Q
  if (want_q && q_out->numel()) {
    const int64_t qcols = q_out->size(q_out->dim() - 1);
    if (k == 0) {  // no reflectors: Q is the identity
      ops::copy_(q_out, ops::expand(ops::eye(m, qcols, a->dtype(), a->device()), q_out->sizes()));
    } else {
      // Q's first min(n, qcols) columns start as the factored A's (column-major: the first matrices
      // of rows), the rest as ORGQR sets them.
      const ColumnMajor q = column_major_empty(batch_of(a), m, qcols, a->dtype(), a->device());
      const int64_t c = std::min(n, qcols);
      ops::copy_(ops::narrow(q.data, -2, 0, c), ops::narrow(qr.factored.data, -2, 0, c));
      const Tensor info = zeroed_int32(fn, {q.batch}, a->device(), stream);
      ct_cuda_solver s = solver_args(CT_CUDA_SOLVER_ORGQR, a->dtype(), m, qcols, q.batch);
      s.k = k;
      s.a = q.data->data();
      s.w = qr.tau->data();
      s.info = info->data_as<int32_t>();
      run_solver(fn, s, a->device(), stream);
      ops::copy_(q_out, q.matrices());
    }
  }
  ops::copy_(outs[1], ops::triu(ops::narrow(qr.factored.matrices(), -2, 0, outs[1]->size(outs[1]->dim() - 2))));
}

// geqrf(Tensor self) -> (a, tau)
void geqrf_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const Tensor a = Tensor::borrow(&f.tensor(0));
  const Qr qr = geqrf("geqrf", a, stream_for(*a));
  ops::copy_(outs[0], qr.factored.matrices());
  ops::copy_(outs[1], qr.tau);
}

// linalg_eig(Tensor A) -> (eigenvalues, eigenvectors), _linalg_eigvals(Tensor A) -> eigenvalues:
// cuSOLVER's geev, whose results are complex (Note [GEEV's eigenvectors] in solver.cu). A NaN or an
// infinity is refused before cuSOLVER sees it, as on the cpu: a flag per matrix, read back.
template <bool kVectors>
void eig_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = kVectors ? "linalg.eig" : "linalg.eigvals";
  const Tensor a = Tensor::borrow(&f.tensor(0));
  void* stream = stream_for(*a);
  const int64_t n = a->size(a->dim() - 1);
  const ColumnMajor h = column_major(a);
  if (h.batch > 0 && n > 0) {
    const Tensor finite = contiguous_as(
        *ops::all(ops::reshape(ops::isfinite(a), {h.batch, n * n}), -1, false), DType::Bool);
    const std::vector<uint8_t> ok = read_back<uint8_t>(fn, finite->data(), h.batch, stream);
    for (int64_t i = 0; i < h.batch; ++i)
      CT_CHECK(ok[static_cast<size_t>(i)], CT_ERROR_INVALID_ARGUMENT, fn, ": input tensor should not contain infs or "
               "NaNs (matrix ", i, " of A, sizes ", a->sizes(), "). Replace them, e.g. with nan_to_num, first");
  }
  const ColumnMajor v = column_major_empty(batch_of(a), kVectors ? n : 0, kVectors ? n : 0,
                                           complex_dtype(a->dtype()), a->device());
  const Tensor info = zeroed_int32(fn, {std::max<int64_t>(h.batch, 1)}, a->device(), stream);
  ct_cuda_solver s = solver_args(CT_CUDA_SOLVER_GEEV, a->dtype(), n, n, h.batch);
  s.a = h.data->data();
  s.w = outs[0]->data();
  s.c = kVectors ? v.data->data() : nullptr;
  s.info = info->data_as<int32_t>();
  run_solver(fn, s, a->device(), stream);
  check_device_infos(fn, a->dim() > 2, info, Failure::EighNoConvergence, stream);
  if (kVectors) ops::copy_(outs[1], v.matrices());
}

// linalg_ldl_factor_ex(Tensor self, *, bool hermitian=False, bool check_errors=False)
//     -> (LD, pivots, info): sytrf on the lower triangle, as the cpu; LD keeps that triangle.
void ldl_factor_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = "torch.linalg.ldl_factor";
  const Tensor a = Tensor::borrow(&f.tensor(0));
  void* stream = stream_for(*a);
  const ColumnMajor ld = column_major(a);
  fill(fn, *outs[2], Scalar(0), stream);  // a batch with no matrices reports no failure
  ct_cuda_solver s = solver_args(CT_CUDA_SOLVER_SYTRF, a->dtype(), ld.rows, ld.cols, ld.batch);
  s.a = ld.data->data();
  s.ipiv = outs[1]->data_as<int32_t>();
  s.info = outs[2]->data_as<int32_t>();
  run_solver(fn, s, a->device(), stream);
  ops::copy_(outs[0], ops::tril(ld.matrices()));
  if (f.arg(2).to_bool()) check_device_infos(fn, a->dim() > 2, outs[2], Failure::LdlSingular, stream);
}

// linalg_ldl_solve(Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False) -> Tensor: the
// pivots are read back and checked to be LAPACK's first (sytrs indexes rows with them, as the cpu
// kernel checks), then LD and the pivots are broadcast to B's batch for one sytrs per matrix.
void ldl_solve_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = "torch.linalg.ldl_solve";
  const Tensor ld = Tensor::borrow(&f.tensor(0)), piv = Tensor::borrow(&f.tensor(1)), b = Tensor::borrow(&f.tensor(2));
  void* stream = stream_for(*outs[0]);
  const int64_t n = ld->size(ld->dim() - 1);
  const Tensor pivots = contiguous_as(*piv, DType::Int32);
  const std::vector<int32_t> host = read_back<int32_t>(fn, pivots->data(), pivots->numel(), stream);
  ops::linalg::check_ldl_pivots(fn, host.data(), pivots->numel() / std::max<int64_t>(n, 1), n);
  const IntArrayRef out = outs[0]->sizes();
  const DimVector batch(IntArrayRef(out.data(), out.size() - 2));
  const int64_t nrhs = out[out.size() - 1];
  const ColumnMajor x = column_major(ops::expand(b, out));
  const ColumnMajor factors = column_major(ops::expand(ld, with(batch, {n, n})));
  const Tensor wide_pivots = ops::contiguous(ops::expand(pivots, with(batch, {n})));
  ct_cuda_solver s = solver_args(CT_CUDA_SOLVER_SYTRS, ld->dtype(), n, n, x.batch);
  s.k = nrhs;
  s.a = factors.data->data();
  s.ipiv = wide_pivots->data_as<int32_t>();
  s.b = x.data->data();
  const Tensor info = zeroed_int32(fn, {std::max<int64_t>(x.batch, 1)}, ld->device(), stream);
  s.info = info->data_as<int32_t>();
  run_solver(fn, s, ld->device(), stream);
  ops::copy_(outs[0], x.matrices());
}

}  // namespace

void register_linalg_kernels(Registry& r) {
  set_cuda_compute(r, "linalg_lu_factor_ex", lu_factor_cuda);
  set_cuda_compute(r, "linalg_solve_ex", solve_cuda);
  set_cuda_compute(r, "linalg_inv_ex", inv_cuda);
  set_cuda_compute(r, "linalg_det", determinant_cuda<false>);
  set_cuda_compute(r, "linalg_slogdet", determinant_cuda<true>);
  set_cuda_compute(r, "linalg_cholesky_ex", cholesky_cuda);
  set_cuda_compute(r, "linalg_solve_triangular", solve_triangular_cuda);
  set_cuda_compute(r, "linalg_eigh", eigh_cuda);
  set_cuda_compute(r, "linalg_svd", svd_cuda);
  set_cuda_compute(r, "linalg_qr", qr_cuda);
  set_cuda_compute(r, "geqrf", geqrf_cuda);
  set_cuda_compute(r, "linalg_ldl_factor_ex", ldl_factor_cuda);
  set_cuda_compute(r, "linalg_ldl_solve", ldl_solve_cuda);
  set_cuda_compute(r, "linalg_eig", eig_cuda<true>);
  set_cuda_compute(r, "_linalg_eigvals", eig_cuda<false>);
}

}  // namespace ct::cuda
