// qr.cpp - the QR factorization on LAPACK's Householder routines (geqrf, orgqr; ungqr for complex
// matrices): linalg.qr with its three modes, the older qr(some), geqrf's packed form, and Q from the
// packed reflectors (householder_product / orgqr, ormqr).
#include <cstring>
#include <string>

#include <algorithm>
#include <vector>

#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
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
using linalg::mH;
using linalg::mT;
using linalg::with_lapack_type;

enum class QrMode { Reduced, Complete, R };

QrMode qr_mode(const char* mode) {
  if (std::strcmp(mode, "reduced") == 0) return QrMode::Reduced;
  if (std::strcmp(mode, "complete") == 0) return QrMode::Complete;
  CT_CHECK(std::strcmp(mode, "r") == 0, CT_ERROR_INVALID_ARGUMENT, "linalg.qr: qr received unrecognized mode '", mode,
           "' but expected one of 'reduced' (default), 'r', or 'complete'");
  return QrMode::R;
}

// linalg_qr(Tensor A, str mode='reduced') -> (Tensor Q, Tensor R)
// A (m x n) = Q R with k = min(m, n): reduced Q m x k, R k x n; complete Q m x m, R m x n; 'r'
// R k x n only (Q empty).
void qr_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  check_matrices("linalg.qr", a, false, Complex::Taken);
  const QrMode mode = qr_mode(f.arg(1).str());
  const SymInt rows = a.sym_size(a.dim() - 2), cols = a.sym_size(a.dim() - 1), k = sym_min(rows, cols);
  SymDimVector q = batch_dims(a), r = batch_dims(a);
  q.push_back(rows), q.push_back(mode == QrMode::Complete ? rows : k);
  r.push_back(mode == QrMode::Complete ? rows : k), r.push_back(cols);
  m.n = 2;
  m.compute = a.dtype();
  set_output(m, 0, mode == QrMode::R ? SymDimVector{SymInt(0)}.ref() : q.ref(), a.dtype(), a.device());
  set_output(m, 1, r.ref(), a.dtype(), a.device());
}
void qr_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = "linalg.qr";
  const Tensor a = Tensor::borrow(&f.tensor(0));
  const QrMode mode = qr_mode(f.arg(1).str());
  const ColumnMajor fa = column_major(a);
  const int m = lapack::lapack_dim(fa.rows, fn), n = lapack::lapack_dim(fa.cols, fn), k = std::min(m, n);
  const int qcols = mode == QrMode::Complete ? m : k;
  const IntArrayRef batch(a->sizes().data(), a->dim() - 2);
  const ColumnMajor q = column_major_empty(batch, m, qcols, a->dtype());
  with_lapack_type(a->dtype(), [&](auto t) {
    using T = decltype(t);
    linalg::for_each_matrix(fa.batch, 4.0 * m * n * k, [&](int64_t i) {
      std::vector<T> tau(static_cast<size_t>(std::max(k, 1)));
      T* h = fa.matrix<T>(i);
      lapack::geqrf<T>(m, n, h, tau.data());
      if (mode == QrMode::R || q.batch == 0) return;
      // Q from the reflectors: the first min(n, qcols) columns of the factored A, made orthonormal.
      T* qm = q.matrix<T>(i);
      std::memcpy(qm, h, sizeof(T) * static_cast<size_t>(m) * static_cast<size_t>(std::min(n, qcols)));
      lapack::orgqr<T>(m, qcols, k, qm, tau.data());
    });
  });
  if (mode != QrMode::R) {
    if (q.batch) {
      copy_(outs[0], q.matrices());
    } else if (outs[0]->numel()) {  // no reflectors (k = 0): Q is the identity
      copy_(outs[0], expand(eye(m, qcols, a->dtype()), outs[0]->sizes()));
    }
  }
  const Tensor factored = fa.matrices();
  copy_(outs[1], triu(narrow(factored, -2, 0, outs[1]->size(outs[1]->dim() - 2))));
}

// For m >= n (reduced, or complete when square): with M = R gR^H - gQ^H Q,
// gA = (gQ + Q copyltu(M)) R^-H, copyltu(M) the Hermitian matrix with M's strict lower triangle and
// the real part of its diagonal (^H the transpose for real matrices). For complex A that comes from
// Q^H dQ being skew-Hermitian and R's diagonal real (LAPACK's convention): the imaginary part of
// Q^H dA R^-1's diagonal moves Q, its real part R.
Tensor qr_backward_tall(const Tensor& q, const Tensor& r, const Tensor& gq, const Tensor& gr) {
  const Tensor mm = sub(matmul(r, mH(gr)), matmul(mH(gq), q));
  const Tensor low = tril(mm, -1);
  Tensor diag = diagonal(mm, 0, -2, -1);
  if (is_complex(diag->dtype())) diag = real(diag);
  const Tensor copyltu = add(add(low, mH(low)), diag_embed(diag));
  return linalg_solve_triangular(mH(r), add(gq, matmul(q, copyltu)), /*upper=*/false, /*left=*/false);
}
// Reduced only. m < n: A = [X | Y] with X = Q U square and Y = Q V; Y's gradient is Q gV, and X's
// is the square case's with gQ + Y gV^H for gQ.
void qr_backward(GradCtx& c) {
  const QrMode mode = qr_mode(c.arg("mode").str());
  const IntArrayRef s = c.sizes("A");
  const int64_t m = s[s.size() - 2], n = s[s.size() - 1];
  CT_CHECK(mode != QrMode::R, CT_ERROR_INVALID_ARGUMENT, "linalg.qr: the derivative of linalg.qr depends on Q, which is "
           "not computed when mode='r'. Use linalg.qr(A, mode='reduced') if you are going to differentiate through it");
  CT_CHECK(mode != QrMode::Complete || m <= n, CT_ERROR_NOT_IMPLEMENTED, "linalg.qr: the QR decomposition is not "
           "differentiable when mode='complete' and nrows > ncols (A is ", s, ")");
  const Tensor q = c.result(0), r = c.result(1);
  const Tensor &gq = c.grad(0), &gr = c.grad(1);
  if (m >= n) {
    c.set("A", qr_backward_tall(q, r, gq, gr));
    return;
  }
  const Tensor u = narrow(r, -1, 0, m), v = narrow(r, -1, m, n - m);
  const Tensor gu = narrow(gr, -1, 0, m), gv = narrow(gr, -1, m, n - m);
  const Tensor y = matmul(q, v);
  const Tensor gx = qr_backward_tall(q, u, add(gq, matmul(y, mH(gv))), gu);
  c.set("A", cat({gx.impl(), matmul(q, gv).impl()}, -1));
}

// qr(Tensor self, bool some=True) -> (Tensor Q, Tensor R)
void legacy_qr_kernel(void*, Frame& f) {
  auto r = linalg_qr(Tensor::borrow(&f.tensor(0)), f.arg(1).to_bool() ? "reduced" : "complete");
  f.outs[0] = r[0];
  f.outs[1] = r[1];
}

// ---- The reflectors themselves: geqrf, and Q (or Q applied) from them

// geqrf(Tensor self) -> (Tensor a, Tensor tau): LAPACK's packed QR, R on and above the diagonal and
// the Householder vectors below, their scales in tau. Not differentiable, as in torch.
void geqrf_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  check_matrices("geqrf", a, false, Complex::Taken);
  SymDimVector tau = batch_dims(a);
  tau.push_back(sym_min(a.sym_size(a.dim() - 2), a.sym_size(a.dim() - 1)));
  m.n = 2;
  m.compute = a.dtype();
  set_output(m, 0, a.sym_sizes(), a.dtype(), a.device());
  set_output(m, 1, tau.ref(), a.dtype(), a.device());
}
void geqrf_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = "geqrf";
  const Tensor a = Tensor::borrow(&f.tensor(0));
  const ColumnMajor fa = column_major(a);
  const int m = lapack::lapack_dim(fa.rows, fn), n = lapack::lapack_dim(fa.cols, fn), k = std::min(m, n);
  with_lapack_type(a->dtype(), [&](auto t) {
    using T = decltype(t);
    T* tau = outs[1]->data_as<T>();
    linalg::for_each_matrix(fa.batch, 2.0 * m * n * k,
                            [&](int64_t i) { lapack::geqrf<T>(m, n, fa.matrix<T>(i), tau + i * k); });
  });
  copy_(outs[0], fa.matrices());
}

// The Householder vectors of a packed QR (m x r): column i is zero above row i, one at it, and the
// packed column below it.
Tensor reflectors(const Tensor& packed) {
  const int64_t m = packed->size(packed->dim() - 2), r = packed->size(packed->dim() - 1);
  return add(tril(packed, -1), eye(m, r, packed->dtype(), packed->device()));
}

void check_reflectors(const char* fn, const Tensor& v, const Tensor& tau) {
  check_matrices(fn, *v, false, Complex::Taken);
  const int64_t m = v->size(v->dim() - 2), n = v->size(v->dim() - 1);
  CT_CHECK(tau->dim() == v->dim() - 1, CT_ERROR_SHAPE, fn, ": tau must have one dimension less than input (",
           v->dim() - 1, "), got sizes ", tau->sizes());
  CT_CHECK(tau->size(tau->dim() - 1) <= n && n <= m, CT_ERROR_SHAPE, fn, ": expected input.size(-2) >= input.size(-1) >= "
           "tau.size(-1), got input ", v->sizes(), " and tau ", tau->sizes());
  CT_CHECK(tau->dtype() == v->dtype(), CT_ERROR_DTYPE, fn, ": expected tau of input's dtype ", v->dtype(), ", got ",
           tau->dtype());
}

// H_i = I - tau_i v_i v_i^H applied to c from the left (c - tau_i v_i (v_i^H c)) or the right
// (c - tau_i (c v_i) v_i^H) (^H the transpose for real reflectors; LAPACK's complex reflectors are
// I - tau v v^H, and H_i^H has conj(tau_i)): composites, so the derivatives in the reflectors, tau and
// c are the products' own.
Tensor reflect(const Tensor& c, const Tensor& v, const Tensor& tau, int64_t i, bool left) {
  const Tensor vi = narrow(v, -1, i, 1);                       // [..., m, 1]
  const Tensor ti = unsqueeze(narrow(tau, -1, i, 1), -1);      // [..., 1, 1]
  return left ? sub(c, mul(ti, matmul(vi, matmul(mH(vi), c)))) : sub(c, mul(ti, matmul(matmul(c, vi), mH(vi))));
}

// linalg_householder_product(Tensor A, Tensor tau) -> Tensor; orgqr(Tensor self, Tensor input2) -> Tensor
// The first n columns of H_1 ... H_k: the identity's columns with the reflectors applied last first.
void householder_product_kernel(void*, Frame& f) {
  const Tensor a = Tensor::borrow(&f.tensor(0)), tau = Tensor::borrow(&f.tensor(1));
  check_reflectors("linalg.householder_product", a, tau);
  const int64_t m = a->size(a->dim() - 2), n = a->size(a->dim() - 1), k = tau->size(tau->dim() - 1);
  const Tensor v = reflectors(a);
  Tensor q = expand(eye(m, n, a->dtype(), a->device()), a->sizes());
  for (int64_t i = k - 1; i >= 0; --i) q = reflect(q, v, tau, i, true);
  f.outs[0] = k ? q : clone(q);
}

// ormqr(Tensor self, Tensor input2, Tensor input3, bool left=True, bool transpose=False) -> Tensor
// op(Q) C or C op(Q) for the Q of geqrf's reflectors (self, tau = input2), C = input3.
void ormqr_kernel(void*, Frame& f) {
  const char* fn = "ormqr";
  const Tensor a = Tensor::borrow(&f.tensor(0)), tau = Tensor::borrow(&f.tensor(1)), c = Tensor::borrow(&f.tensor(2));
  const bool left = f.arg(3).to_bool(), transpose = f.arg(4).to_bool();
  CT_CHECK(a->dim() >= 2 && c->dim() >= 2, CT_ERROR_SHAPE, fn, ": input and input3 must be matrices, got sizes ",
           a->sizes(), " and ", c->sizes());
  const int64_t m = a->size(a->dim() - 2), k = tau->size(tau->dim() - 1);
  CT_CHECK(c->size(c->dim() - (left ? 2 : 1)) == m, CT_ERROR_SHAPE, fn, ": input3.size(", left ? -2 : -1,
           ") must equal input.size(-2) = ", m, ", got input3 of sizes ", c->sizes());
  CT_CHECK(c->dtype() == a->dtype(), CT_ERROR_DTYPE, fn, ": expected input3 of input's dtype ", a->dtype(), ", got ",
           c->dtype());
  CT_CHECK(tau->dim() == a->dim() - 1 && k <= a->size(a->dim() - 1) && k <= m, CT_ERROR_SHAPE, fn,
           ": tau must have sizes [..., k] with k <= min(input.size(-2), input.size(-1)), got ", tau->sizes(),
           " for input ", a->sizes());
  CT_CHECK(tau->dtype() == a->dtype(), CT_ERROR_DTYPE, fn, ": expected tau of input's dtype ", a->dtype(), ", got ",
           tau->dtype());
  const Tensor v = reflectors(narrow(a, -1, 0, k));
  // Q = H_1 ... H_k. Q C applies H_k first; Q^H C applies H_1 first; C Q applies H_1 first; C Q^H H_k.
  // transpose means Q^H for complex reflectors, whose H_i^H has conj(tau_i), as torch's.
  const bool forward = left == transpose;
  const Tensor t = transpose ? conj_if_complex(tau) : tau;
  Tensor r = c;
  for (int64_t j = 0; j < k; ++j) r = reflect(r, v, t, forward ? j : k - 1 - j, left);
  f.outs[0] = k ? r : clone(r);
}

}  // namespace

void define_qr(Registry& r) {
  r.def("linalg_qr(Tensor A, str mode='reduced') -> (Tensor Q, Tensor R)")
      .meta(qr_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, qr_cpu, Determinism::Deterministic)
      .derivative(qr_backward, save_result());
  r.def("qr(Tensor self, bool some=True) -> (Tensor Q, Tensor R)").composite(legacy_qr_kernel);
  // No derivative, as torch defines none: an input that requires grad is refused.
  r.def("geqrf(Tensor self) -> (Tensor a, Tensor tau)")
      .meta(geqrf_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, geqrf_cpu, Determinism::Deterministic);
  r.def("linalg_householder_product(Tensor A, Tensor tau) -> Tensor").composite(householder_product_kernel);
  r.def("orgqr(Tensor self, Tensor input2) -> Tensor").composite(householder_product_kernel);
  r.def("ormqr(Tensor self, Tensor input2, Tensor input3, bool left=True, bool transpose=False) -> Tensor")
      .composite(ormqr_kernel);
}

}  // namespace ct::ops
