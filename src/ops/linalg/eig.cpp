// eig.cpp - the eigendecomposition of general square matrices (LAPACK geev): linalg.eig and
// linalg.eigvals. Their results are complex whatever A's dtype, as torch's are: a real matrix's
// eigenvalues come in conjugate pairs. The eigenvectors are LAPACK's: each of norm 1 with its
// largest component real, in the order of the eigenvalues.
#include <cmath>
#include <complex>
#include <vector>

#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "dispatch/grad_mode.h"
#include "ops/functions.h"
#include "ops/linalg/batched.h"
#include "ops/linalg/lapack.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

using autograd::GradCtx;
using linalg::batch_dims;
using linalg::check_matrices;
using linalg::column_major;
using linalg::column_major_empty;
using linalg::ColumnMajor;
using linalg::Complex;
using linalg::fail_matrix;
using linalg::mH;
using linalg::with_lapack_type;

// linalg_eig(Tensor A) -> (Tensor eigenvalues, Tensor eigenvectors)
// _linalg_eigvals(Tensor A) -> Tensor: the eigenvalues alone (geev without vectors: 226 against 269
// ms for a 512 x 512 float64 matrix, bench/bench_linalg.py), for linalg_eigvals when no gradient is
// wanted.
template <bool kVectors>
void eig_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  check_matrices(kVectors ? "linalg.eig" : "linalg.eigvals", a, true, Complex::Taken);
  SymDimVector values = batch_dims(a);
  values.push_back(a.sym_size(a.dim() - 1));
  const DType c = complex_dtype(a.dtype());
  m.n = kVectors ? 2 : 1;
  m.compute = a.dtype();
  set_output(m, 0, values.ref(), c, a.device());
  if (kVectors) set_output(m, 1, a.sym_sizes(), c, a.device());
}
template <bool kVectors>
void eig_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = kVectors ? "linalg.eig" : "linalg.eigvals";
  const Tensor a = Tensor::borrow(&f.tensor(0));
  const ColumnMajor h = column_major(a);
  const int n = lapack::lapack_dim(h.rows, fn);
  const IntArrayRef batch(a->sizes().data(), a->dim() - 2);
  const ColumnMajor v = column_major_empty(batch, kVectors ? n : 0, kVectors ? n : 0, complex_dtype(a->dtype()));
  std::vector<int> info(static_cast<size_t>(h.batch));
  std::vector<char> finite(static_cast<size_t>(h.batch), 1);
  with_lapack_type(a->dtype(), [&](auto t) {
    using T = decltype(t);
    using C = std::complex<decltype(std::abs(t))>;
    C* w = outs[0]->data_as<C>();
    // LAPACK has no defined answer for a NaN or an infinity (geev's balancing reports an illegal
    // argument, as torch 1.13's eigvals printed): such a matrix is refused before LAPACK sees it, as
    // torch's eig refuses it.
    linalg::for_each_matrix(h.batch, 25.0 * n * n * n, [&](int64_t i) {
      const T* x = h.matrix<T>(i);
      for (int64_t j = 0; j < int64_t{n} * n; ++j)
        if (!std::isfinite(std::real(x[j])) || !std::isfinite(std::imag(x[j]))) {
          finite[i] = 0;
          return;
        }
      info[i] = lapack::geev<T, C>(kVectors, n, h.matrix<T>(i), w + i * n, kVectors ? v.matrix<C>(i) : nullptr);
    });
  });
  for (int64_t i = 0; i < h.batch; ++i)
    CT_CHECK(finite[i], CT_ERROR_INVALID_ARGUMENT, fn, ": input tensor should not contain infs or NaNs (matrix ", i,
             " of A, sizes ", a->sizes(), "). Replace them, e.g. with nan_to_num, first");
  linalg::check_infos(fn, a->dim() > 2, info.data(), h.batch, linalg::Failure::EighNoConvergence);
  if (kVectors) copy_(outs[1], v.matrices());
}

// A = V diag(L) V^-1 (torch's formula): gA = V^-H (diag(gL) + (V^H gV - V^H V diag(Re(V^H gV))) /
// conj(E)) V^H, E[i][j] = L_j - L_i off the diagonal, diag(gL) on it. Each eigenvector is defined up
// to a phase e^{i phi}; a loss that depends on the phases has no derivative, and such a loss shows
// as an imaginary diagonal of V^H gV, which is refused as torch refuses it. For a real A the real
// part is A's gradient (GradCtx::set casts it to A's dtype).
void eig_backward(GradCtx& c) {
  const Tensor l = c.result(0), v = c.result(1), vh = mH(v);
  Tensor inner = diag_embed(c.grad(0));
  if (c.has_grad(1)) {
    const Tensor vhgv = matmul(vh, c.grad(1));
    linalg::check_phase_free("linalg_eig_backward", "eigenvectors", vhgv);
    const Tensor diag = diagonal(vhgv, 0, -2, -1);
    Tensor off = sub(vhgv, matmul(vh, mul(v, unsqueeze(real(diag), -2))));
    off = div(off, linalg::gaps(conj(l)));  // the diagonal, divided by 1, is replaced below
    inner = add(inner, sub(off, diag_embed(diagonal(off, 0, -2, -1))));
  }
  c.set("A", linalg_solve(vh, matmul(inner, vh)));
}

// linalg_eigvals(Tensor A) -> Tensor: as torch decides, through linalg_eig where a gradient may be
// wanted (the derivative needs the eigenvectors), and without the vectors otherwise.
void eigvals_kernel(void*, Frame& f) {
  const Tensor a = Tensor::borrow(&f.tensor(0));
  f.outs[0] = autograd::grad_enabled() && a->requires_grad() ? linalg_eig(a)[0] : _linalg_eigvals(a);
}

}  // namespace

void define_eig(Registry& r) {
  r.def("linalg_eig(Tensor A) -> (Tensor eigenvalues, Tensor eigenvectors)")
      .meta(eig_meta<true>)
      .takes_complex()
      .compute(DispatchKey::CPU, eig_cpu<true>, Determinism::Deterministic)
      .derivative(eig_backward, save_result());
  r.def("_linalg_eigvals(Tensor A) -> Tensor")
      .meta(eig_meta<false>)
      .takes_complex()
      .compute(DispatchKey::CPU, eig_cpu<false>, Determinism::Deterministic)
      .not_differentiable();  // linalg_eigvals calls it only where no gradient is wanted
  r.def("linalg_eigvals(Tensor A) -> Tensor").composite(eigvals_kernel);
}

}  // namespace ct::ops
