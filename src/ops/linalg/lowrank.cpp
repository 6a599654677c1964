// lowrank.cpp - svd_lowrank and pca_lowrank (torch.*'s): the randomized SVD of Halko, Martinsson and
// Tropp (2009, algorithms 4.4 and 5.1) for matrices of low rank, composed of randn, matmul,
// linalg.qr and linalg.svd, so their batching, devices, dtypes and derivatives are those operators'.
//
// The random test matrix is drawn from the default generator, so a seed makes the result repeat;
// it is not the matrix torch draws (ctorch's normal stream is its own), so the factors agree with
// torch's only as far as the approximation is good: exactly, to rounding, for a matrix of rank q
// or less.
#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/linalg/batched.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

using linalg::mH;

void check_lowrank_input(const char* op, const Tensor& a) {
  CT_CHECK(a->dim() >= 2, CT_ERROR_SHAPE, op, ": A must have at least 2 dimensions (batches of m x n matrices), got "
           "sizes ", a->sym_sizes());
  const DType d = a->dtype();
  CT_CHECK(d == DType::Float32 || d == DType::Float64 || is_complex(d), CT_ERROR_DTYPE, op, ": A is ", d,
           "; it must be float32, float64 or complex (its QR and SVD run on LAPACK, in single or double "
           "precision). Convert it with to(float32)");
}

// A - M, and A^H - M^H, applied to X without forming A - M: M is the mean that pca_lowrank takes
// out, or none.
Tensor times(const Tensor& a, const Tensor* m, const Tensor& x) {
  const Tensor ax = matmul(a, x);
  return m ? sub(ax, matmul(*m, x)) : ax;
}

// Q with q orthonormal columns whose span holds most of the range of A - M: the range of
// (A - M) R for a Gaussian R, sharpened by niter rounds of power iteration (algorithm 4.4), with a
// QR after every product so that the small singular values keep their digits.
Tensor approximate_basis(const Tensor& a, int64_t q, int64_t niter, const Tensor* m) {
  const int64_t n = a->size(a->dim() - 1);
  const Tensor r = randn({n, q}, nullptr, a->dtype(), a->device());
  const Tensor a_h = mH(a);
  const Tensor m_h = m ? mH(*m) : Tensor();
  Tensor basis = linalg_qr(times(a, m, r))[0];
  for (int64_t i = 0; i < niter; ++i) {
    basis = linalg_qr(times(a_h, m ? &m_h : nullptr, basis))[0];
    basis = linalg_qr(times(a, m, basis))[0];
  }
  return basis;
}

// The SVD of A - M through that basis (algorithm 5.1): B = Q^H (A - M) is small, and its SVD, with
// Q times its left vectors, is the approximate SVD of A - M. A wide A goes through its conjugate
// transpose, whose factors are A's swapped.
std::array<Tensor, 3> svd_lowrank_of(Tensor a, int64_t q, int64_t niter, std::optional<Tensor> m) {
  const int64_t rows = a->size(a->dim() - 2), cols = a->size(a->dim() - 1);
  if (m) m = expand(*m, a->sizes());
  const bool wide = rows < cols;
  if (wide) {
    a = mH(a);
    if (m) m = mH(*m);
  }
  const Tensor* mp = m ? &*m : nullptr;
  const Tensor basis = approximate_basis(a, q, niter, mp);
  const Tensor basis_h = mH(basis);
  const Tensor b = mp ? sub(matmul(basis_h, a), matmul(basis_h, *mp)) : matmul(basis_h, a);
  auto [u, s, vh] = linalg_svd(b, false);
  const Tensor left = matmul(basis, u), right = mH(vh);
  if (wide) return {right, s, left};
  return {left, s, right};
}

int64_t count_arg(const char* op, const char* name, const Value& v, int64_t fallback) {
  if (v.is_none()) return fallback;
  const int64_t k = v.to_int();
  CT_CHECK(k >= 0, CT_ERROR_INVALID_ARGUMENT, op, ": ", name, " is ", k, "; it must be a non-negative integer");
  return k;
}

// svd_lowrank(Tensor A, int? q=6, int? niter=2, Tensor? M=None) -> (Tensor U, Tensor S, Tensor V)
void svd_lowrank_kernel(void*, Frame& f) {
  const Tensor a = Tensor::borrow(&f.tensor(0));
  check_lowrank_input("svd_lowrank", a);
  const int64_t q = count_arg("svd_lowrank", "q", f.arg(1), 6);
  const int64_t niter = count_arg("svd_lowrank", "niter", f.arg(2), 2);
  std::optional<Tensor> m;
  if (!f.arg(3).is_none()) {
    m = Tensor::borrow(&f.tensor(3));
    const SymDimVector both = broadcast_shapes("svd_lowrank", (*m)->sym_sizes(), a->sym_sizes());
    CT_CHECK(both.ref().equals(a->sym_sizes()), CT_ERROR_SHAPE, "svd_lowrank: M (sizes ", (*m)->sym_sizes(),
             ") must broadcast to A's sizes ", a->sym_sizes(), ": it is A's mean, of sizes [..., 1, n] or A's own");
  }
  auto [u, s, v] = svd_lowrank_of(a, q, niter, m);
  f.outs[0] = u, f.outs[1] = s, f.outs[2] = v;
}

// pca_lowrank(Tensor A, int? q=None, bool center=True, int niter=2) -> (Tensor U, Tensor S, Tensor V):
// svd_lowrank of A less its column means (center), q = min(6, m, n) unless given.
void pca_lowrank_kernel(void*, Frame& f) {
  const Tensor a = Tensor::borrow(&f.tensor(0));
  check_lowrank_input("pca_lowrank", a);
  const int64_t rows = a->size(a->dim() - 2), cols = a->size(a->dim() - 1);
  const int64_t most = std::min(rows, cols);
  const int64_t q = count_arg("pca_lowrank", "q", f.arg(1), std::min<int64_t>(6, most));
  CT_CHECK(q <= most, CT_ERROR_INVALID_ARGUMENT, "pca_lowrank: q is ", q, "; it must not exceed min(m, n) = ", most,
           " for A of sizes ", a->sym_sizes());
  const int64_t niter = count_arg("pca_lowrank", "niter", f.arg(3), 2);
  const int64_t rows_dim = static_cast<int64_t>(a->dim()) - 2;
  const Tensor centered = f.arg(2).to_bool() ? sub(a, mean(a, IntArrayRef{rows_dim}, true)) : a;
  auto [u, s, v] = svd_lowrank_of(centered, q, niter, std::nullopt);
  f.outs[0] = u, f.outs[1] = s, f.outs[2] = v;
}

}  // namespace

void define_lowrank(Registry& r) {
  r.def("svd_lowrank(Tensor A, int? q=6, int? niter=2, Tensor? M=None) -> (Tensor U, Tensor S, Tensor V)")
      .composite(svd_lowrank_kernel);
  r.def("pca_lowrank(Tensor A, int? q=None, bool center=True, int niter=2) -> (Tensor U, Tensor S, Tensor V)")
      .composite(pca_lowrank_kernel);
}

}  // namespace ct::ops
