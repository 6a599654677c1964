// cholesky.cpp - triangular solves (BLAS trsm), the Cholesky factorization (LAPACK potrf) and its
// indefinite cousin LDL^T (sytrf, sytrs), with what torch builds on them: linalg.solve_triangular,
// triangular_solve, linalg.cholesky(_ex), cholesky, cholesky_solve, cholesky_inverse (composites
// over the first), linalg.ldl_factor(_ex) and linalg.ldl_solve.
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
using linalg::ColumnMajor;
using linalg::Complex;
using linalg::fail_matrix;
using linalg::mH;
using linalg::mT;
using linalg::with_lapack_type;

// ---- solve_triangular

// linalg_solve_triangular(Tensor A, Tensor B, *, bool upper, bool left=True, bool unitriangular=False) -> Tensor
// X with A X = B (left) or X A = B, reading only A's upper (or lower) triangle; batches broadcast.
void solve_triangular_meta(const Frame& f, MetaResult& m) {
  const char* fn = "linalg.solve_triangular";
  const TensorImpl& a = f.tensor(0);
  const TensorImpl& b = f.tensor(1);
  const Device dev = common_device(f);
  const bool left = f.arg(3).to_bool();
  check_matrices(fn, a, true, Complex::Taken);
  CT_CHECK(b.dim() >= 2, CT_ERROR_SHAPE, fn, ": B must have at least 2 dimensions (batches of matrices), got sizes ",
           b.sym_sizes());
  const DType d = promote_types(a.dtype(), b.dtype());  // torch promotes B (and A) to the common dtype
  CT_CHECK(d == DType::Float32 || d == DType::Float64 || is_complex(d), CT_ERROR_DTYPE, fn, ": B is ", b.dtype(),
           "; A and B must promote to float32, float64 or a complex dtype. Convert B with to()");
  const SymInt n = a.sym_size(a.dim() - 1), rows = b.sym_size(b.dim() - 2), cols = b.sym_size(b.dim() - 1);
  CT_CHECK(left ? rows == n : cols == n, CT_ERROR_SHAPE, fn, ": incompatible shapes of A and B for the equation ",
           left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", rows, "x", cols, ")");
  SymDimVector out = broadcast_shapes(fn, batch_dims(a).ref(), batch_dims(b).ref());
  out.push_back(rows);
  out.push_back(cols);
  m.compute = d;
  set_output(m, 0, out.ref(), d, dev);
}
void solve_triangular_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = "linalg.solve_triangular";
  const DType d = outs[0]->dtype();
  const Tensor a = to(Tensor::borrow(&f.tensor(0)), d), b = to(Tensor::borrow(&f.tensor(1)), d);
  const bool upper = f.arg(2).to_bool(), left = f.arg(3).to_bool(), unit = f.arg(4).to_bool();
  const IntArrayRef out = outs[0]->sizes();
  const int64_t n = a->size(a->dim() - 1);
  DimVector asizes(IntArrayRef(out.data(), out.size() - 2));
  asizes.push_back(n), asizes.push_back(n);
  const ColumnMajor am = column_major(expand(a, asizes));
  const ColumnMajor x = column_major(expand(b, out));
  const int rows = lapack::lapack_dim(x.rows, fn), cols = lapack::lapack_dim(x.cols, fn);
  with_lapack_type(d, [&](auto t) {
    using T = decltype(t);
    const double flops = 1.0 * rows * cols * (left ? rows : cols);
    linalg::for_each_matrix(x.batch, flops, [&](int64_t i) {
      lapack::trsm<T>(left, upper, /*trans=*/false, unit, rows, cols, am.matrix<T>(i), x.matrix<T>(i));
    });
  });
  copy_(outs[0], x.matrices());
}
// Left: X = A^-1 B, gB = A^-H g, gA = -gB X^H; right: X = B A^-1, gB = g A^-H, gA = -X^H gB (^H the
// transpose for real matrices); gA kept to the triangle A's values were read from (without its
// diagonal when unitriangular).
void solve_triangular_backward(GradCtx& c) {
  const bool upper = c.arg("upper").to_bool(), left = c.arg("left").to_bool(), unit = c.arg("unitriangular").to_bool();
  const Tensor a = c.saved("A");
  const Tensor gb = linalg_solve_triangular(mH(a), c.grad(0), !upper, left, unit);
  if (c.needs("B")) c.set("B", gb);
  if (!c.needs("A")) return;
  const Tensor x = c.result(0);
  const Tensor ga = neg(left ? matmul(gb, mH(x)) : matmul(mH(x), gb));
  const int64_t off = unit ? 1 : 0;
  c.set("A", upper ? triu(ga, off) : tril(ga, -off));
}

// triangular_solve(Tensor self, Tensor A, bool upper=True, bool transpose=False, bool unitriangular=False)
//     -> (Tensor solution, Tensor cloned_coefficient)
// The older spelling: solves A X = self (A^T X = self with transpose), returning a copy of A too.
void triangular_solve_kernel(void*, Frame& f) {
  const Tensor b = Tensor::borrow(&f.tensor(0)), a = Tensor::borrow(&f.tensor(1));
  const bool upper = f.arg(2).to_bool(), transpose = f.arg(3).to_bool(), unit = f.arg(4).to_bool();
  f.outs[0] = transpose ? linalg_solve_triangular(mT(a), b, !upper, true, unit) : linalg_solve_triangular(a, b, upper, true, unit);
  f.outs[1] = clone(a);
}

// ---- cholesky

// linalg_cholesky_ex(Tensor A, *, bool upper=False, bool check_errors=False) -> (Tensor L, Tensor info)
void cholesky_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  check_matrices("linalg.cholesky", a, true, Complex::Taken);
  const SymDimVector batch = batch_dims(a);
  m.n = 2;
  m.compute = a.dtype();
  set_output(m, 0, a.sym_sizes(), a.dtype(), a.device());
  set_output(m, 1, batch.ref(), DType::Int32, a.device());
}
void cholesky_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = "linalg.cholesky";
  const Tensor a = Tensor::borrow(&f.tensor(0));
  const bool upper = f.arg(1).to_bool();
  const ColumnMajor l = column_major(a);
  const int n = lapack::lapack_dim(l.rows, fn);
  int32_t* info = outs[1]->data_as<int32_t>();
  std::fill(info, info + outs[1]->numel(), 0);
  with_lapack_type(a->dtype(), [&](auto t) {
    using T = decltype(t);
    linalg::for_each_matrix(l.batch, 1.0 * n * n * n / 3, [&](int64_t i) {
      T* m = l.matrix<T>(i);
      info[i] = lapack::potrf<T>(upper, n, m);
      // potrf leaves the other triangle as A had it: the factor is the one triangle. Cleared here,
      // while the matrix is in cache (a tril of the batch took another pass and a mask).
      for (int64_t j = 0; j < n; ++j)  // column j, rows above (lower) or below (upper) the diagonal
        std::fill(m + j * n + (upper ? j + 1 : 0), m + j * n + (upper ? n : j), T(0));
    });
  });
  copy_(outs[0], l.matrices());
  if (f.arg(2).to_bool())
    linalg::check_infos(fn, a->dim() > 2, info, l.batch, linalg::Failure::NotPositiveDefinite);
}
// A = L L^H: L^-1 dA L^-H = X + X^H with X = L^-1 dL lower triangular, so dL = L phi(L^-1 dA L^-H)
// (phi: the lower triangle, its diagonal halved) and gA = L^-H phi(L^H gL) L^-1, made Hermitian as A
// is (^H the transpose for real matrices).
void cholesky_backward(GradCtx& c) {
  const bool upper = c.arg("upper").to_bool();
  const Tensor l = upper ? mH(c.result(0)) : c.result(0);
  const Tensor gl = upper ? mH(c.grad(0)) : c.grad(0);
  Tensor phi = tril(matmul(mH(l), gl));
  phi = sub(phi, mul(diag_embed(diagonal(phi, 0, -2, -1)), Scalar(0.5)));
  // L^-H phi L^-1: solve L^H Y = phi, then Z L = Y.
  Tensor ga = linalg_solve_triangular(mH(l), phi, /*upper=*/true);
  ga = linalg_solve_triangular(l, ga, /*upper=*/false, /*left=*/false);
  c.set("A", mul(add(ga, mH(ga)), Scalar(0.5)));
}

// linalg_cholesky(Tensor A, *, bool upper=False) -> Tensor; cholesky(Tensor self, bool upper=False) -> Tensor
void cholesky_kernel(void*, Frame& f) {
  f.outs[0] = linalg_cholesky_ex(Tensor::borrow(&f.tensor(0)), f.arg(1).to_bool(), /*check_errors=*/true)[0];
}

// cholesky_solve(Tensor self, Tensor input2, bool upper=False) -> Tensor: X with A X = self for
// A = L L^H (or U^H U), input2 the factor; two triangular solves, batches broadcast.
Tensor solve_with_factor(const Tensor& b, const Tensor& factor, bool upper) {
  const Tensor l = upper ? mH(factor) : factor;
  return linalg_solve_triangular(mH(l), linalg_solve_triangular(l, b, /*upper=*/false), /*upper=*/true);
}
void cholesky_solve_kernel(void*, Frame& f) {
  const Tensor b = Tensor::borrow(&f.tensor(0)), factor = Tensor::borrow(&f.tensor(1));
  check_matrices("cholesky_solve", *factor, true, Complex::Taken);
  f.outs[0] = solve_with_factor(b, factor, f.arg(2).to_bool());
}
// cholesky_inverse(Tensor self, bool upper=False) -> Tensor: A^-1 from A's Cholesky factor. A zero
// on a factor's diagonal is torch's error (LAPACK's potri reports it), not infinities.
void cholesky_inverse_kernel(void*, Frame& f) {
  const char* fn = "cholesky_inverse";
  const Tensor factor = Tensor::borrow(&f.tensor(0));
  check_matrices(fn, *factor, true, Complex::Taken);
  const int64_t n = factor->size(factor->dim() - 1);
  if (!factor->device().is_meta() && factor->numel() > 0) {
    const Tensor zero = eq(diagonal(factor, 0, -2, -1), 0);
    if (host_contiguous(any(zero))->data_as<bool>()[0]) {
      const Tensor z = host_contiguous(reshape(zero, {-1, n}));
      const bool* p = z->data_as<bool>();
      const int64_t at = std::find(p, p + z->numel(), true) - p;
      fail_matrix(fn, factor->dim() > 2, at / n,
                  str("The diagonal element ", at % n + 1, " is zero, the inversion could not be completed because "
                      "the input matrix is singular."));
    }
  }
  f.outs[0] = solve_with_factor(linalg::identity_like(factor), factor, f.arg(1).to_bool());
}

// ---- LDL^T (Bunch-Kaufman): symmetric matrices that need not be positive-definite

// linalg_ldl_factor_ex(Tensor self, *, bool hermitian=False, bool check_errors=False)
//     -> (Tensor LD, Tensor pivots, Tensor info)
// LD holds L below the diagonal and D's blocks on and next to it, read from A's lower triangle; its
// upper triangle is zero, as torch's. A complex A is factored as symmetric (A = L D L^T, sytrf) or,
// with hermitian, as Hermitian (A = L D L^H, hetrf); for real matrices hermitian changes nothing.
void ldl_factor_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  check_matrices("torch.linalg.ldl_factor_ex", a, true, Complex::Taken);
  SymDimVector piv = batch_dims(a);
  piv.push_back(a.sym_size(a.dim() - 1));
  m.n = 3;
  m.compute = a.dtype();
  set_output(m, 0, a.sym_sizes(), a.dtype(), a.device());
  set_output(m, 1, piv.ref(), DType::Int32, a.device());
  set_output(m, 2, batch_dims(a).ref(), DType::Int32, a.device());
}
void ldl_factor_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = "torch.linalg.ldl_factor";
  const Tensor a = Tensor::borrow(&f.tensor(0));
  const ColumnMajor ld = column_major(a);
  const int n = lapack::lapack_dim(ld.rows, fn);
  int32_t* piv = outs[1]->data_as<int32_t>();
  int32_t* info = outs[2]->data_as<int32_t>();
  std::fill(info, info + outs[2]->numel(), 0);
  const bool hermitian = f.arg(1).to_bool();
  with_lapack_type(a->dtype(), [&](auto t) {
    using T = decltype(t);
    linalg::for_each_matrix(ld.batch, 1.0 * n * n * n / 3, [&](int64_t i) {
      info[i] = lapack::sytrf<T>(hermitian, n, ld.matrix<T>(i), piv + i * n);
    });
  });
  copy_(outs[0], tril(ld.matrices()));
  if (f.arg(2).to_bool()) linalg::check_infos(fn, a->dim() > 2, info, ld.batch, linalg::Failure::LdlSingular);
}

// linalg_ldl_factor(Tensor self, *, bool hermitian=False) -> (Tensor LD, Tensor pivots)
void ldl_factor_kernel(void*, Frame& f) {
  auto r = linalg_ldl_factor_ex(Tensor::borrow(&f.tensor(0)), f.arg(1).to_bool(), /*check_errors=*/true);
  f.outs[0] = r[0];
  f.outs[1] = r[1];
}

// linalg_ldl_solve(Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False) -> Tensor
// A X = B from ldl_factor's LD and pivots; B's batch broadcasts against LD's.
void ldl_solve_meta(const Frame& f, MetaResult& m) {
  const char* fn = "torch.linalg.ldl_solve";
  const TensorImpl& ld = f.tensor(0);
  const TensorImpl& piv = f.tensor(1);
  const TensorImpl& b = f.tensor(2);
  const Device dev = common_device(f);
  check_matrices(fn, ld, true, Complex::Taken);
  CT_CHECK(piv.dtype() == DType::Int32, CT_ERROR_DTYPE, fn, ": pivots must be int32 (as ldl_factor returns them), got ",
           piv.dtype());
  CT_CHECK(piv.dim() + 1 == ld.dim(), CT_ERROR_SHAPE, fn, ": pivots must have sizes [..., n] for LD of sizes ",
           ld.sym_sizes(), ", got ", piv.sym_sizes());
  for (size_t d = 0; d < piv.dim(); ++d)
    CT_CHECK(piv.sym_size(d) == ld.sym_size(d), CT_ERROR_SHAPE, fn, ": pivots (sizes ", piv.sym_sizes(),
             ") must match LD's batch and size (LD ", ld.sym_sizes(), ")");
  CT_CHECK(b.dim() >= 2, CT_ERROR_SHAPE, fn, ": B must have at least 2 dimensions, got sizes ", b.sym_sizes());
  CT_CHECK(b.dtype() == ld.dtype(), CT_ERROR_DTYPE, fn, ": expected LD and B to have the same dtype, but got ",
           ld.dtype(), " and ", b.dtype());
  const SymInt n = ld.sym_size(ld.dim() - 1);
  CT_CHECK(b.sym_size(b.dim() - 2) == n, CT_ERROR_SHAPE, fn, ": B (sizes ", b.sym_sizes(), ") must have ", n,
           " rows, as LD (sizes ", ld.sym_sizes(), ")");
  SymDimVector out = broadcast_shapes(fn, batch_dims(ld).ref(), batch_dims(b).ref());
  out.push_back(n);
  out.push_back(b.sym_size(b.dim() - 1));
  m.compute = ld.dtype();
  set_output(m, 0, out.ref(), ld.dtype(), dev);
}
void ldl_solve_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = "torch.linalg.ldl_solve";
  const Tensor ld = Tensor::borrow(&f.tensor(0)), piv = host_contiguous(Tensor::borrow(&f.tensor(1)));
  const Tensor b = Tensor::borrow(&f.tensor(2));
  const IntArrayRef out = outs[0]->sizes();
  const int64_t n = ld->size(ld->dim() - 1), nrhs = out[out.size() - 1];
  const IntArrayRef lbatch(ld->sizes().data(), ld->dim() - 2);
  int64_t nl = 1;
  for (int64_t s : lbatch) nl *= s;
  const int32_t* p = piv->data_as<int32_t>();
  linalg::check_ldl_pivots(fn, p, nl, n);
  const ColumnMajor lm = column_major(ld);
  DimVector bsizes(IntArrayRef(out.data(), out.size() - 2));
  const Tensor owner = linalg::broadcast_sources(lbatch, bsizes);
  const int64_t* own = owner->data_as<int64_t>();
  const ColumnMajor x = column_major(expand(b, out));
  const int ni = lapack::lapack_dim(n, fn), ki = lapack::lapack_dim(nrhs, fn);
  const bool hermitian = f.arg(3).to_bool();
  with_lapack_type(ld->dtype(), [&](auto t) {
    using T = decltype(t);
    linalg::for_each_matrix(x.batch, 2.0 * n * n * nrhs, [&](int64_t i) {
      lapack::sytrs<T>(hermitian, ni, ki, lm.matrix<T>(own[i]), p + own[i] * n, x.matrix<T>(i));
    });
  });
  copy_(outs[0], x.matrices());
}

}  // namespace

void define_cholesky(Registry& r) {
  r.def("linalg_solve_triangular(Tensor A, Tensor B, *, bool upper, bool left=True, bool unitriangular=False) -> Tensor")
      .meta(solve_triangular_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, solve_triangular_cpu, Determinism::Deterministic)
      .derivative(solve_triangular_backward, save_result(save("A")));
  r.def("triangular_solve(Tensor self, Tensor A, bool upper=True, bool transpose=False, bool unitriangular=False) -> "
        "(Tensor solution, Tensor cloned_coefficient)")
      .composite(triangular_solve_kernel);
  r.def("linalg_cholesky_ex(Tensor A, *, bool upper=False, bool check_errors=False) -> (Tensor L, Tensor info)")
      .meta(cholesky_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, cholesky_cpu, Determinism::Deterministic)
      .derivative(cholesky_backward, save_result());
  r.def("linalg_cholesky(Tensor A, *, bool upper=False) -> Tensor").composite(cholesky_kernel);
  r.def("cholesky(Tensor self, bool upper=False) -> Tensor").composite(cholesky_kernel);
  r.def("cholesky_solve(Tensor self, Tensor input2, bool upper=False) -> Tensor").composite(cholesky_solve_kernel);
  r.def("cholesky_inverse(Tensor self, bool upper=False) -> Tensor").composite(cholesky_inverse_kernel);
  // No derivatives, as torch defines none: an input that requires grad is refused.
  r.def("linalg_ldl_factor_ex(Tensor self, *, bool hermitian=False, bool check_errors=False) -> "
        "(Tensor LD, Tensor pivots, Tensor info)")
      .meta(ldl_factor_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, ldl_factor_cpu, Determinism::Deterministic);
  r.def("linalg_ldl_factor(Tensor self, *, bool hermitian=False) -> (Tensor LD, Tensor pivots)")
      .composite(ldl_factor_kernel);
  r.def("linalg_ldl_solve(Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False) -> Tensor")
      .meta(ldl_solve_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, ldl_solve_cpu, Determinism::Deterministic);
}

}  // namespace ct::ops
