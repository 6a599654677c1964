// spectral.cpp - the symmetric (and Hermitian) eigendecomposition (LAPACK syevd, heevd) and the
// singular value decomposition (gesdd), with what torch builds on them: linalg.eigh, eigvalsh,
// matrix_sqrth, svd, svdvals, polar, pinv, matrix_rank, cond, lstsq and the older symeig, svd and
// pinverse. The derivatives are torch's formulas; where eigenvalues or singular values repeat, the
// terms of eigenvectors or singular vectors divide by zero, as torch's do (their gradients are not
// defined there).
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include <algorithm>
#include <vector>

#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/cpu/cast.h"
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
using linalg::fail_matrix;
using linalg::gaps;
using linalg::Complex;
using linalg::mH;
using linalg::mT;
using linalg::with_lapack_type;

// ---- eigh

bool upper_of(const char* fn, const char* uplo) {
  const bool u = std::strcmp(uplo, "U") == 0 || std::strcmp(uplo, "u") == 0;
  CT_CHECK(u || std::strcmp(uplo, "L") == 0 || std::strcmp(uplo, "l") == 0, CT_ERROR_INVALID_ARGUMENT, fn,
           ": expected UPLO argument to be 'L' or 'U', but got ", uplo);
  return u;
}

// linalg_eigh(Tensor A, str UPLO="L") -> (Tensor eigenvalues, Tensor eigenvectors)
void eigh_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  check_matrices("linalg.eigh", a, true, Complex::Taken);
  upper_of("linalg.eigh", f.arg(1).str());
  SymDimVector values = batch_dims(a);
  values.push_back(a.sym_size(a.dim() - 1));
  m.n = 2;
  m.compute = a.dtype();
  set_output(m, 0, values.ref(), real_dtype(a.dtype()), a.device());  // a Hermitian matrix's are real
  set_output(m, 1, a.sym_sizes(), a.dtype(), a.device());
}
void eigh_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = "linalg.eigh";
  const Tensor a = Tensor::borrow(&f.tensor(0));
  const bool upper = upper_of(fn, f.arg(1).str());
  const ColumnMajor v = column_major(a);
  const int n = lapack::lapack_dim(v.rows, fn);
  std::vector<int> info(static_cast<size_t>(v.batch));
  with_lapack_type(a->dtype(), [&](auto t) {
    using T = decltype(t);
    using R = decltype(std::abs(t));
    R* w = outs[0]->data_as<R>();
    linalg::for_each_matrix(v.batch, 9.0 * n * n * n,
                            [&](int64_t i) { info[i] = lapack::syevd(true, upper, n, v.matrix<T>(i), w + i * n); });
  });
  linalg::check_infos(fn, a->dim() > 2, info.data(), v.batch, linalg::Failure::EighNoConvergence);
  copy_(outs[1], v.matrices());
}
// A = V diag(L) V^H: gA = V (diag(gL) + skew(V^H gV) / E) V^H, E the eigenvalue gaps (Hermitian,
// as A is: the skew-Hermitian part over antisymmetric gaps). A complex V's columns are defined up
// to phases: a loss that depends on them is refused (as torch), and the skew part's imaginary
// diagonal, which that leaves near 0, is dropped for diag(gL), as torch does.
void eigh_backward(GradCtx& c) {
  const bool has_vectors = c.has_grad(1);
  const Tensor l = c.result(0), v = c.result(1);
  const Tensor& gl = c.grad(0);
  Tensor inner = diag_embed(gl);
  if (has_vectors) {
    const Tensor vgv = matmul(mH(v), c.grad(1));
    linalg::check_phase_free("linalg_eigh_backward", "eigenvectors", vgv);
    Tensor off = div(mul(sub(vgv, mH(vgv)), Scalar(0.5)), gaps(l));
    if (is_complex(v->dtype())) off = sub(off, diag_embed(diagonal(off, 0, -2, -1)));
    inner = add(inner, off);
  }
  c.set("A", matmul(v, matmul(inner, mH(v))));
}

// linalg_eigvalsh(Tensor A, str UPLO="L") -> Tensor
void eigvalsh_kernel(void*, Frame& f) { f.outs[0] = linalg_eigh(Tensor::borrow(&f.tensor(0)), f.arg(1).str())[0]; }

// linalg_matrix_sqrth(Tensor self) -> Tensor: the symmetric (Hermitian) positive-(semi)definite
// square root of symmetric (Hermitian) matrices, from the lower triangle as eigh reads it:
// V diag(sqrt(L)) V^H, an eigenvalue below 0 (rounding, or an indefinite input) taken as 0, as torch
// does.
void matrix_sqrth_kernel(void*, Frame& f) {
  const Tensor a = Tensor::borrow(&f.tensor(0));
  check_matrices("linalg.matrix_sqrth", *a, true, Complex::Taken);
  const auto lv = linalg_eigh(a);
  const Tensor root = sqrt(clamp_min(lv[0], 0));
  f.outs[0] = matmul(mul(lv[1], unsqueeze(root, -2)), mH(lv[1]));
}

// linalg_polar(Tensor A) -> (Tensor U, Tensor H): A = U H for m x n A with m >= n, U's columns
// orthonormal and H symmetric (Hermitian) positive-semidefinite, from the reduced SVD A = W S V^H:
// U = W V^H and H = V S V^H (torch's cpu computation).
void polar_kernel(void*, Frame& f) {
  const Tensor a = Tensor::borrow(&f.tensor(0));
  check_matrices("linalg.polar", *a, false, Complex::Taken);
  const int64_t m = a->size(a->dim() - 2), n = a->size(a->dim() - 1);
  CT_CHECK(m >= n, CT_ERROR_SHAPE, "linalg.polar: input must have at least as many rows as columns, but got ", m,
           " by ", n, " matrices. Transpose A (A^T = H U^T) or use linalg.svd");
  const auto usv = linalg_svd(a, false);
  const Tensor v = mH(usv[2]);
  f.outs[0] = matmul(usv[0], usv[2]);
  f.outs[1] = matmul(mul(v, unsqueeze(usv[1], -2)), usv[2]);
}

// symeig(Tensor self, bool eigenvectors=False, bool upper=True) -> (Tensor eigenvalues, Tensor eigenvectors)
// The older spelling of eigh: its default triangle is the upper one, and without eigenvectors the
// second result is empty.
void symeig_kernel(void*, Frame& f) {
  const Tensor a = Tensor::borrow(&f.tensor(0));
  auto r = linalg_eigh(a, f.arg(2).to_bool() ? "U" : "L");
  f.outs[0] = r[0];
  f.outs[1] = f.arg(1).to_bool() ? r[1] : empty({0}, a->dtype(), a->device());
}

// ---- svd

// linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) -> (Tensor U, Tensor S, Tensor Vh)
void svd_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  check_matrices("linalg.svd", a, false, Complex::Taken);
  const bool full = f.arg(1).to_bool();
  const SymInt rows = a.sym_size(a.dim() - 2), cols = a.sym_size(a.dim() - 1), k = sym_min(rows, cols);
  const SymDimVector batch = batch_dims(a);
  SymDimVector u = batch, s = batch, vh = batch;
  u.push_back(rows), u.push_back(full ? rows : k);
  s.push_back(k);
  vh.push_back(full ? cols : k), vh.push_back(cols);
  m.n = 3;
  m.compute = a.dtype();
  set_output(m, 0, u.ref(), a.dtype(), a.device());
  set_output(m, 1, s.ref(), real_dtype(a.dtype()), a.device());  // singular values are real
  set_output(m, 2, vh.ref(), a.dtype(), a.device());
}
void svd_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = "linalg.svd";
  const Tensor a = Tensor::borrow(&f.tensor(0));
  CT_CHECK(f.arg(2).is_none(), CT_ERROR_INVALID_ARGUMENT, fn,
           ": keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend. Leave it out");
  const bool full = f.arg(1).to_bool();
  const ColumnMajor h = column_major(a);
  const int m = lapack::lapack_dim(h.rows, fn), n = lapack::lapack_dim(h.cols, fn), k = std::min(m, n);
  const IntArrayRef batch(a->sizes().data(), a->dim() - 2);
  const ColumnMajor u = column_major_empty(batch, m, full ? m : k, a->dtype());
  const ColumnMajor vh = column_major_empty(batch, full ? n : k, n, a->dtype());
  if (h.batch == 0) {  // no singular values: U and Vh are identities (of no columns when reduced)
    copy_(outs[0], expand(eye(m, full ? m : k, a->dtype()), outs[0]->sizes()));
    copy_(outs[2], expand(eye(full ? n : k, n, a->dtype()), outs[2]->sizes()));
    return;
  }
  // Note [Non-finite input to the SVD]: this LAPACK's gesdd neither checks for NaN nor stops on
  // infinity (it returned negative "singular values" for a NaN, and never returned on a 3x3 matrix
  // with one inf, which the sequence fuzzer found). So the matrices are scanned first, and as
  // PyTorch does: a NaN is an error, an infinity gives NaN singular values and vectors.
  std::vector<int> info(static_cast<size_t>(h.batch));
  std::vector<char> has_nan(static_cast<size_t>(h.batch), 0);
  with_lapack_type(a->dtype(), [&](auto t) {
    using T = decltype(t);
    using R = decltype(std::abs(t));
    R* s = outs[1]->data_as<R>();
    linalg::for_each_matrix(h.batch, 8.0 * m * n * k, [&](int64_t i) {
      const T* x = h.matrix<T>(i);
      bool finite = true;
      for (int64_t j = 0; j < int64_t{m} * n; ++j) {  // both parts of a complex element
        has_nan[i] |= std::isnan(std::real(x[j])) || std::isnan(std::imag(x[j]));
        finite &= std::isfinite(std::real(x[j])) && std::isfinite(std::imag(x[j]));
      }
      if (!finite) {
        const R nan = std::numeric_limits<R>::quiet_NaN();
        T nan_t = T(nan);
        if constexpr (cpu::is_complex_t<T>::value) nan_t = T(nan, nan);
        std::fill(s + i * k, s + (i + 1) * k, nan);
        std::fill(u.matrix<T>(i), u.matrix<T>(i) + u.rows * u.cols, nan_t);
        std::fill(vh.matrix<T>(i), vh.matrix<T>(i) + vh.rows * vh.cols, nan_t);
        return;
      }
      info[i] = lapack::gesdd(true, full, m, n, h.matrix<T>(i), s + i * k, u.matrix<T>(i), vh.matrix<T>(i));
    });
  });
  for (int64_t i = 0; i < h.batch; ++i)
    if (has_nan[i])
      fail_matrix(fn, a->dim() > 2, i,
                  "The algorithm failed to converge because the input matrix contained non-finite values.");
  linalg::check_infos(fn, a->dim() > 2, info.data(), h.batch, linalg::Failure::SvdNoConvergence);
  copy_(outs[0], u.matrices());
  copy_(outs[2], vh.matrices());
}
// A = U diag(S) Vh with k = min(m, n) (full matrices narrowed to their first k vectors):
// gA = U (diag(gS) + (skew(U^H gU) S_j + S_i skew(Vh gVh^H)) / E) Vh, E[i][j] = S_j^2 - S_i^2, plus
// the parts of gU (m > n) or gVh (m < n) outside the span of U or Vh (^H the transpose for real
// matrices; skew(X) = X - X^H). Complex singular vectors are defined up to a phase shared by u_i and
// v_i: a loss that depends on it is refused as torch refuses it (Im diag(U^H gU) + Im diag(V^H gV)
// must vanish, which also cancels the skew parts' diagonals), and the phase U^H dU takes, i Im(U^H
// dA V)_ii / s_i, adds i Im(U^H gU)_ii / s_i to the diagonal.
void svd_backward(GradCtx& c) {
  const bool has_u = c.has_grad(0), has_vh = c.has_grad(2);
  const IntArrayRef sz = c.sizes("A");
  const int64_t m = sz[sz.size() - 2], n = sz[sz.size() - 1], k = std::min(m, n);
  const Tensor u = narrow(c.result(0), -1, 0, k), s = c.result(1), vh = narrow(c.result(2), -2, 0, k);
  const Tensor gs = c.grad(1);
  if (!has_u && !has_vh) {
    c.set("A", matmul(mul(u, unsqueeze(gs, -2)), vh));
    return;
  }
  const Tensor gu = narrow(c.grad(0), -1, 0, k), gvh = narrow(c.grad(2), -2, 0, k);
  const Tensor e = gaps(mul(s, s));
  const bool complex_vectors = is_complex(u->dtype());
  Tensor inner = diag_embed(gs);
  Tensor phase;  // Im diag(U^H gU) + Im diag(V^H gV), as a diagonal matrix's worth of checks
  if (has_u) {
    const Tensor j = matmul(mH(u), gu);
    inner = add(inner, div(mul(sub(j, mH(j)), unsqueeze(s, -2)), e));
    if (complex_vectors) {
      const Tensor im = imag(diagonal(j, 0, -2, -1));
      inner = add(inner, diag_embed(complex(mul(im, Scalar(0.0)), div(im, s))));
      phase = j;
    }
  }
  if (has_vh) {
    const Tensor kk = matmul(vh, mH(gvh));
    inner = add(inner, div(mul(unsqueeze(s, -1), sub(kk, mH(kk))), e));
    if (complex_vectors) phase = phase.defined() ? add(phase, kk) : kk;
  }
  if (phase.defined()) linalg::check_phase_free("svd_backward", "singular vectors", phase);
  Tensor ga;
  if (m > n && has_u) {
    const Tensor gus = div(gu, unsqueeze(s, -2));
    ga = add(matmul(u, inner), sub(gus, matmul(u, matmul(mH(u), gus))));
    ga = matmul(ga, vh);
  } else if (m < n && has_vh) {
    const Tensor sgvh = div(gvh, unsqueeze(s, -1));
    ga = add(matmul(inner, vh), sub(sgvh, matmul(matmul(sgvh, mH(vh)), vh)));
    ga = matmul(u, ga);
  } else {
    ga = matmul(u, matmul(inner, vh));
  }
  c.set("A", ga);
}

// linalg_svdvals(Tensor A, *, str? driver=None) -> Tensor
void svdvals_kernel(void*, Frame& f) {
  const Value& driver = f.arg(1);
  f.outs[0] = linalg_svd(Tensor::borrow(&f.tensor(0)), false, driver.is_none() ? nullptr : driver.str())[1];
}

// svd(Tensor self, bool some=True, bool compute_uv=True) -> (Tensor U, Tensor S, Tensor V)
// The older spelling: V rather than Vh, and without compute_uv zero-filled U (m x m) and V (n x n).
void legacy_svd_kernel(void*, Frame& f) {
  const Tensor a = Tensor::borrow(&f.tensor(0));
  const bool some = f.arg(1).to_bool(), compute_uv = f.arg(2).to_bool();
  check_matrices("svd", *a, false, Complex::Taken);
  auto r = linalg_svd(a, compute_uv ? !some : false);
  f.outs[1] = r[1];
  if (compute_uv) {
    f.outs[0] = r[0];
    f.outs[2] = mH(r[2]);
    return;
  }
  const int64_t m = a->size(a->dim() - 2), n = a->size(a->dim() - 1);
  DimVector us(IntArrayRef(a->sizes().data(), a->sizes().size() - 2)), vs(us);
  us.push_back(m), us.push_back(m), vs.push_back(n), vs.push_back(n);
  f.outs[0] = zeros(us, a->dtype(), a->device());
  f.outs[2] = zeros(vs, a->dtype(), a->device());
}

// ---- what the singular values give: pinv, matrix_rank

// The cutoff below which singular values (or |eigenvalues|) count as zero, per matrix, torch's
// rule: max(atol, rtol * largest), rtol defaulting to eps * max(m, n) when neither is given and to
// 0 when only atol is.
Tensor cutoff(const Tensor& a, const Tensor& largest, const Value& atol, const Value& rtol) {
  const int64_t m = a->size(a->dim() - 2), n = a->size(a->dim() - 1);
  const double eps = real_dtype(a->dtype()) == DType::Float64 ? std::numeric_limits<double>::epsilon()
                                                              : static_cast<double>(std::numeric_limits<float>::epsilon());
  const double r = !rtol.is_none() ? rtol.to_double() : atol.is_none() ? eps * static_cast<double>(std::max(m, n)) : 0.0;
  const double at = atol.is_none() ? 0.0 : atol.to_double();
  return clamp_min(mul(largest, Scalar(r)), Scalar(at));
}

// linalg_pinv(Tensor A, *, float? atol=None, float? rtol=None, bool hermitian=False) -> Tensor
// Computed from the SVD (eigh when hermitian) below autograd; differentiated by the pseudo-inverse's
// own formula (torch's), which does not depend on the factorization that computed it.
void pinv_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  check_matrices("linalg.pinv", a, f.arg(3).to_bool(), Complex::Taken);
  SymDimVector out = batch_dims(a);
  out.push_back(a.sym_size(a.dim() - 1));
  out.push_back(a.sym_size(a.dim() - 2));
  m.compute = a.dtype();
  set_output(m, 0, out.ref(), a.dtype(), a.device());
}
// Operators only (eigh or svd, then products), so it runs on every device that has those.
void pinv_compute(const Frame& f, const MetaResult&, Tensor* outs) {
  const Tensor a = Tensor::borrow(&f.tensor(0));
  // The kept singular values' (or eigenvalues') reciprocals, 0 for the others; real.
  const Tensor zero = zeros({}, real_dtype(a->dtype()), a->device());
  if (f.arg(3).to_bool()) {  // A = V diag(L) V^H: V diag(1 / L) V^H over the eigenvalues kept
    auto lv = linalg_eigh(a);
    const Tensor absl = abs(lv[0]);
    const Tensor largest = absl->size(absl->dim() - 1) ? amax(absl, IntArrayRef{-1}, true) : absl;
    const Tensor inv = where(gt(absl, cutoff(a, largest, f.arg(1), f.arg(2))), reciprocal(lv[0]), zero);
    copy_(outs[0], matmul(mul(lv[1], unsqueeze(inv, -2)), mH(lv[1])));
    return;
  }
  auto usv = linalg_svd(a, false);
  const Tensor& s = usv[1];
  const Tensor largest = s->size(s->dim() - 1) ? narrow(s, -1, 0, 1) : s;  // descending: the first
  const Tensor inv = where(gt(s, cutoff(a, largest, f.arg(1), f.arg(2))), reciprocal(s), zero);
  copy_(outs[0], matmul(mul(mH(usv[2]), unsqueeze(inv, -2)), mH(usv[0])));
}
// With P = pinv(A) (m x n A), grouped so the products are the smaller of m and n square (^H the
// transpose for real matrices).
void pinv_backward(GradCtx& c) {
  const Tensor a = c.saved("A"), p = c.result(0), ph = mH(p), gh = mH(c.grad(0));
  const IntArrayRef s = c.sizes("A");
  if (s[s.size() - 2] <= s[s.size() - 1]) {
    const Tensor k = matmul(gh, p), kph = matmul(k, ph);
    c.set("A", add(sub(add(neg(mH(matmul(p, k))), kph), matmul(matmul(a, p), kph)),
                   matmul(matmul(ph, p), sub(gh, matmul(k, a)))));
    return;
  }
  const Tensor k = matmul(p, gh), phk = matmul(ph, k);
  c.set("A", sub(add(add(neg(mH(matmul(k, p))), matmul(matmul(sub(gh, matmul(a, k)), p), ph)), phk),
                 matmul(matmul(phk, p), a)));
}

// pinverse(Tensor self, float rcond=1e-15) -> Tensor
void pinverse_kernel(void*, Frame& f) {
  f.outs[0] = linalg_pinv(Tensor::borrow(&f.tensor(0)), std::nullopt, f.arg(1).to_double());
}

// linalg_matrix_rank(Tensor A, *, float? atol=None, float? rtol=None, bool hermitian=False) -> Tensor
void matrix_rank_kernel(void*, Frame& f) {
  const Tensor a = Tensor::borrow(&f.tensor(0));
  const bool hermitian = f.arg(3).to_bool();
  check_matrices("linalg.matrix_rank", *a, hermitian, Complex::Taken);
  const Tensor s = hermitian ? abs(linalg_eigvalsh(a)) : linalg_svdvals(a);
  if (s->size(s->dim() - 1) == 0) {
    f.outs[0] = zeros(IntArrayRef(s->sizes().data(), s->dim() - 1), DType::Int64, a->device());
    return;
  }
  const Tensor tol = cutoff(a, amax(s, IntArrayRef{-1}, true), f.arg(1), f.arg(2));
  f.outs[0] = count_nonzero(gt(s, tol), IntArrayRef{-1});
}

// linalg_cond(Tensor A, Scalar? p=None) -> Tensor; linalg_cond.p_str(Tensor A, str p) -> Tensor
// The condition number: for p None or +-2 the ratio of the extreme singular values; for the other
// matrix norms norm(A, p) * norm(inv(A), p).
void cond_kernel(void*, Frame& f) {
  const Tensor a = Tensor::borrow(&f.tensor(0));
  const Value& p = f.arg(1);
  const bool by_svd = p.is_none() || (p.kind() != Value::Kind::String && std::fabs(p.to_double()) == 2.0);
  check_matrices("linalg.cond", *a, !by_svd, Complex::Taken);
  const int64_t dims[2] = {-2, -1};
  if (!by_svd) {
    // As torch: a singular matrix's condition number is inf, not an error.
    const auto inv_info = linalg_inv_ex(a, /*check_errors=*/false);
    const Tensor& inv = inv_info[0];
    const Tensor cond = p.kind() == Value::Kind::String
                            ? mul(linalg_norm(a, p.str(), IntArrayRef(dims, 2)), linalg_norm(inv, p.str(), IntArrayRef(dims, 2)))
                            : mul(linalg_norm(a, p.to_scalar(), IntArrayRef(dims, 2)),
                                  linalg_norm(inv, p.to_scalar(), IntArrayRef(dims, 2)));
    f.outs[0] = where(gt(inv_info[1], 0), full({}, std::numeric_limits<double>::infinity(), cond->dtype(), cond->device()),
                      cond);
    return;
  }
  const Tensor s = linalg_svdvals(a);
  const int64_t k = s->size(s->dim() - 1);
  CT_CHECK(k > 0, CT_ERROR_SHAPE, "linalg.cond: A's matrices are empty (sizes ", a->sizes(), "); they have no singular values");
  const Tensor largest = select(s, -1, 0), smallest = select(s, -1, k - 1);
  f.outs[0] = !p.is_none() && p.to_double() < 0 ? div(smallest, largest) : div(largest, smallest);
}

// linalg_lstsq(Tensor self, Tensor b, float? rcond=None, *, str? driver=None)
//     -> (Tensor solution, Tensor residuals, Tensor rank, Tensor singular_values)
// The least-squares solution of minimal norm, pinv(A) B with singular values below rcond * the
// largest dropped: what every LAPACK driver answers for full-rank A, and what gelsy, gelsd and gelss
// answer for any A. The other results are filled as torch fills them for the driver (default gelsy):
// residuals (the squared column residuals) when m > n and A is full rank, except for gelsy; rank
// except for gels; singular values for gelsd and gelss; empty otherwise.
void lstsq_kernel(void*, Frame& f) {
  const char* fn = "torch.linalg.lstsq";
  const Tensor a = Tensor::borrow(&f.tensor(0)), b = Tensor::borrow(&f.tensor(1));
  const std::string driver = f.arg(3).is_none() ? "gelsy" : f.arg(3).str();
  CT_CHECK(driver == "gels" || driver == "gelsy" || driver == "gelsd" || driver == "gelss", CT_ERROR_INVALID_ARGUMENT,
           fn, ": parameter `driver` should be one of (gels, gelsy, gelsd, gelss), got ", driver);
  check_matrices(fn, *a, false, Complex::Taken);
  CT_CHECK(a->dtype() == b->dtype(), CT_ERROR_DTYPE, fn, ": expected input and other to have the same dtype, but got ",
           a->dtype(), " and ", b->dtype());
  const bool vector = b->dim() + 1 == a->dim();
  const Tensor bm = vector ? unsqueeze(b, -1) : b;
  const int64_t m = a->size(a->dim() - 2), n = a->size(a->dim() - 1);
  CT_CHECK(bm->dim() >= 2 && bm->size(bm->dim() - 2) == m, CT_ERROR_SHAPE, fn, ": input.size(-2) should match ",
           vector ? "other.size(-1)" : "other.size(-2)", " (A ", a->sizes(), ", B ", b->sizes(), ")");
  const double eps = real_dtype(a->dtype()) == DType::Float64 ? std::numeric_limits<double>::epsilon()
                                                              : static_cast<double>(std::numeric_limits<float>::epsilon());
  const double rcond = f.arg(2).is_none() || f.arg(2).to_double() < 0 ? eps * static_cast<double>(std::max(m, n))
                                                                       : f.arg(2).to_double();
  const Tensor x = matmul(linalg_pinv(a, std::nullopt, rcond), bm);
  const Tensor rank = driver == "gels" ? empty({0}, DType::Int64, a->device())
                                       : linalg_matrix_rank(a, std::nullopt, rcond);
  Tensor residuals = empty({0}, real_dtype(a->dtype()), a->device());  // squared norms: real
  if (m > n && driver != "gelsy") {
    // gels assumes A full rank; the others computed the rank above.
    const bool all_full = driver == "gels" || a->device().is_meta() ||
                          host_contiguous(all(eq(rank, n)))->data_as<bool>()[0];
    if (all_full) {
      const Tensor r = sub(matmul(a, x), bm);
      residuals = sum(is_complex(r->dtype()) ? real(mul(r, conj(r))) : mul(r, r), IntArrayRef{-2});
      if (vector) residuals = squeeze(residuals, -1);
    }
  }
  f.outs[0] = vector ? squeeze(x, -1) : x;
  f.outs[1] = residuals;
  f.outs[2] = rank;
  f.outs[3] = driver == "gelsd" || driver == "gelss" ? linalg_svdvals(a)
                                                    : empty({0}, real_dtype(a->dtype()), a->device());
}

}  // namespace

void define_spectral(Registry& r) {
  r.def("linalg_eigh(Tensor A, str UPLO='L') -> (Tensor eigenvalues, Tensor eigenvectors)")
      .meta(eigh_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, eigh_cpu, Determinism::Deterministic)
      .derivative(eigh_backward, save_result());
  r.def("linalg_eigvalsh(Tensor A, str UPLO='L') -> Tensor").composite(eigvalsh_kernel);
  r.def("linalg_matrix_sqrth(Tensor self) -> Tensor").composite(matrix_sqrth_kernel);
  r.def("linalg_polar(Tensor A) -> (Tensor U, Tensor H)").composite(polar_kernel);
  r.def("symeig(Tensor self, bool eigenvectors=False, bool upper=True) -> (Tensor eigenvalues, Tensor eigenvectors)")
      .composite(symeig_kernel);
  r.def("linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) -> (Tensor U, Tensor S, Tensor Vh)")
      .meta(svd_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, svd_cpu, Determinism::Deterministic)
      .derivative(svd_backward, save_result());
  r.def("linalg_svdvals(Tensor A, *, str? driver=None) -> Tensor").composite(svdvals_kernel);
  r.def("svd(Tensor self, bool some=True, bool compute_uv=True) -> (Tensor U, Tensor S, Tensor V)")
      .composite(legacy_svd_kernel);
  r.def("linalg_pinv(Tensor A, *, float? atol=None, float? rtol=None, bool hermitian=False) -> Tensor")
      .meta(pinv_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, pinv_compute, Determinism::Deterministic)
      .compute(DispatchKey::CUDA, pinv_compute, Determinism::Deterministic)
      .derivative(pinv_backward, save_result(save("A")));
  r.def("pinverse(Tensor self, float rcond=1e-15) -> Tensor").composite(pinverse_kernel);
  r.def("linalg_matrix_rank(Tensor A, *, float? atol=None, float? rtol=None, bool hermitian=False) -> Tensor")
      .composite(matrix_rank_kernel)
      .not_differentiable();  // a count
  r.def("linalg_cond(Tensor A, Scalar? p=None) -> Tensor").composite(cond_kernel);
  r.def("linalg_cond.p_str(Tensor A, str p) -> Tensor").composite(cond_kernel);
  r.def("linalg_lstsq(Tensor self, Tensor b, float? rcond=None, *, str? driver=None) -> "
        "(Tensor solution, Tensor residuals, Tensor rank, Tensor singular_values)")
      .composite(lstsq_kernel);
}

}  // namespace ct::ops
