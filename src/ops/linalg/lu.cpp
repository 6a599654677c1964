// lu.cpp - what LAPACK's LU (getrf) answers: torch.linalg's lu_factor, lu, lu_solve, solve, inv,
// det, slogdet, tensorinv and tensorsolve, and the torch.* spellings (lu_unpack, lu_solve, inverse,
// det, slogdet, logdet).
// lu_factor_ex, solve_ex, det and slogdet run getrf and have their own derivatives; the rest are
// composites over them and over solve_triangular, so their derivatives come from those. solve, inv,
// det and slogdet take complex matrices too (LAPACK's c* and z* routines); their derivatives are
// the real ones with the transposes made conjugate transposes (Note [Complex tensors]).
#include <cmath>
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
using linalg::ColumnMajor;
using linalg::fail_matrix;
using linalg::Failure;
using linalg::Complex;
using linalg::mH;
using linalg::mT;
using linalg::with_lapack_type;

int64_t product(IntArrayRef sizes) {
  int64_t p = 1;
  for (int64_t s : sizes) p *= s;
  return p;
}

SymDimVector with(SymDimVector sizes, std::initializer_list<SymInt> more) {
  for (const SymInt& s : more) sizes.push_back(s);
  return sizes;
}

// ---- lu_factor

// linalg_lu_factor_ex(Tensor A, *, bool pivot=True, bool check_errors=False)
//     -> (Tensor LU, Tensor pivots, Tensor info)
void lu_factor_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  check_matrices("linalg.lu_factor", a, false, Complex::Taken);
  CT_CHECK(f.arg(1).to_bool(), CT_ERROR_NOT_IMPLEMENTED, "linalg.lu_factor",
           ": LU without pivoting is not implemented (ctorch factors with LAPACK's getrf, which always pivots). "
           "Pass pivot=True");
  const SymDimVector batch = batch_dims(a);
  const SymInt k = sym_min(a.sym_size(a.dim() - 2), a.sym_size(a.dim() - 1));
  m.n = 3;
  m.compute = a.dtype();
  set_output(m, 0, a.sym_sizes(), a.dtype(), a.device());
  set_output(m, 1, with(batch, {k}).ref(), DType::Int32, a.device());
  set_output(m, 2, batch.ref(), DType::Int32, a.device());
}
void lu_factor_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = "linalg.lu_factor";
  const Tensor a = Tensor::borrow(&f.tensor(0));
  const ColumnMajor lu = column_major(a);
  const int m = lapack::lapack_dim(lu.rows, fn), n = lapack::lapack_dim(lu.cols, fn), k = std::min(m, n);
  int32_t* piv = outs[1]->data_as<int32_t>();
  int32_t* info = outs[2]->data_as<int32_t>();
  std::fill(info, info + outs[2]->numel(), 0);
  with_lapack_type(a->dtype(), [&](auto t) {
    using T = decltype(t);
    linalg::for_each_matrix(lu.batch, 2.0 * m * n * k / 3,
                            [&](int64_t i) { info[i] = lapack::getrf<T>(m, n, lu.matrix<T>(i), piv + i * k); });
  });
  copy_(outs[0], lu.matrices());
  if (f.arg(2).to_bool()) linalg::check_infos(fn, a->dim() > 2, info, lu.batch, Failure::LuZeroPivot);
}
// A = P L U; with X = L^-1 P^T dA U^-1, dL = L tril(X, -1) and dU = triu(X) U, so
// gA = P L^-H (tril(L^H gL, -1) + triu(gU U^H)) U^-H for square A (^H the transpose for real A).
void lu_factor_backward(GradCtx& c) {
  const IntArrayRef s = c.sizes("A");
  CT_CHECK(s[s.size() - 1] == s[s.size() - 2], CT_ERROR_NOT_IMPLEMENTED,
           "linalg.lu_factor: ctorch differentiates the LU of square matrices only; A is ", s,
           ". Factor a square matrix, or detach A");
  const Tensor lu = c.result(0);
  const auto plu = lu_unpack(lu, c.result(1));
  const Tensor &p = plu[0], &l = plu[1], &u = plu[2];
  const Tensor& g = c.grad(0);
  Tensor gx = add(tril(matmul(mH(l), tril(g, -1)), -1), triu(matmul(triu(g), mH(u))));
  gx = linalg_solve_triangular(mH(l), gx, /*upper=*/true, /*left=*/true, /*unitriangular=*/true);
  gx = linalg_solve_triangular(mH(u), gx, /*upper=*/false, /*left=*/false);
  c.set("A", matmul(p, gx));
}

// linalg_lu_factor(Tensor A, *, bool pivot=True) -> (Tensor LU, Tensor pivots)
void lu_factor_kernel(void*, Frame& f) {
  auto r = linalg_lu_factor_ex(Tensor::borrow(&f.tensor(0)), f.arg(1).to_bool(), /*check_errors=*/true);
  f.outs[0] = r[0];
  f.outs[1] = r[1];
}

// lu_unpack(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, bool unpack_pivots=True)
//     -> (Tensor P, Tensor L, Tensor U)
// L (m x k, unit diagonal) and U (k x n) from the packed LU; P (m x m) from the row swaps.
void lu_unpack_kernel(void*, Frame& f) {
  const char* fn = "lu_unpack";
  const Tensor lu = Tensor::borrow(&f.tensor(0)), piv = Tensor::borrow(&f.tensor(1));
  CT_CHECK(lu->dim() >= 2, CT_ERROR_SHAPE, fn, ": LU_data must have at least 2 dimensions, got sizes ", lu->sizes());
  const int64_t m = lu->size(lu->dim() - 2), n = lu->size(lu->dim() - 1), k = std::min(m, n);
  CT_CHECK(piv->dtype() == DType::Int32, CT_ERROR_DTYPE, fn, ": LU_pivots must be int32 (as lu_factor returns them), got ",
           piv->dtype());
  CT_CHECK(piv->dim() >= 1 && piv->size(piv->dim() - 1) == k, CT_ERROR_SHAPE, fn,
           ": LU_pivots must have sizes [..., min(m, n)] = [..., ", k, "] for LU_data of sizes ", lu->sizes(),
           "; got ", piv->sizes());
  check_matrices(fn, *lu, false, Complex::Taken);
  const DType d = lu->dtype();
  const Device dev = lu->device();
  if (f.arg(2).to_bool()) {
    f.outs[1] = add(tril(narrow(lu, -1, 0, k), -1), eye(m, k, d, dev));
    f.outs[2] = triu(narrow(lu, -2, 0, k));
  } else {
    f.outs[1] = empty({0}, d, dev);
    f.outs[2] = empty({0}, d, dev);
  }
  if (!f.arg(3).to_bool()) {
    f.outs[0] = empty({0}, d, dev);
    return;
  }
  // One row of pivots per matrix of LU_data: theirs broadcast to its batch, as torch's do.
  const IntArrayRef batch_sizes(lu->sizes().data(), lu->dim() - 2);
  DimVector pivot_sizes(batch_sizes), psizes(batch_sizes);
  pivot_sizes.push_back(k);
  CT_CHECK(broadcast_shapes(fn, piv->sizes(), pivot_sizes.ref()).ref().equals(pivot_sizes.ref()), CT_ERROR_SHAPE,
           fn, ": LU_pivots of sizes ", piv->sizes(), " do not broadcast to LU_data's batch (pivots ",
           pivot_sizes.ref(), " for LU_data of sizes ", lu->sizes(), ")");
  psizes.push_back(m);
  psizes.push_back(m);
  if (dev.is_meta()) {
    f.outs[0] = empty(psizes, d, dev);
    return;
  }
  const Tensor p = zeros(psizes, d, kCPU);
  const Tensor pv = host_contiguous(expand(piv, pivot_sizes));
  const int32_t* sw = pv->data_as<int32_t>();
  const int64_t batch = m == 0 ? 0 : p->numel() / (m * m);
  std::vector<int64_t> perm(static_cast<size_t>(m));
  with_lapack_type(d, [&](auto t) {
    using T = decltype(t);
    T* out = p->data_as<T>();
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t i = 0; i < m; ++i) perm[i] = i;
      for (int64_t i = 0; i < k; ++i) {
        const int64_t j = sw[b * k + i] - 1;
        CT_CHECK(j >= i && j < m, CT_ERROR_INDEX, fn, ": pivot ", i, " of matrix ", b, " is ", j + 1, ", outside [",
                 i + 1, ", ", m, "] (LAPACK's 1-based row swaps). Pass the pivots lu_factor returned");
        std::swap(perm[i], perm[j]);
      }
      // P^T A = L U takes row i of L U from row perm[i] of A: P[perm[i], i] = 1.
      for (int64_t i = 0; i < m; ++i) out[b * m * m + perm[i] * m + i] = T(1);
    }
  });
  f.outs[0] = dev == kCPU ? p : to(p, dev);
}

// linalg_lu(Tensor A, *, bool pivot=True) -> (Tensor P, Tensor L, Tensor U)
void lu_kernel(void*, Frame& f) {
  const auto r = linalg_lu_factor_ex(Tensor::borrow(&f.tensor(0)), f.arg(1).to_bool(), /*check_errors=*/false);
  const auto plu = lu_unpack(r[0], r[1]);
  for (size_t i = 0; i < 3; ++i) f.outs[i] = plu[i];
}

// linalg_lu_solve(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, bool adjoint=False) -> Tensor
// Two triangular solves on the packed factors (L's unit diagonal implied), so the derivative in LU
// is solve_triangular's. adjoint: A^H X = B (A^T X = B for real A); P is real either way.
Tensor lu_solve_left(const Tensor& lu, const Tensor& p, const Tensor& b, bool adjoint) {
  if (!adjoint) {  // A X = P L U X = B
    const Tensor y = linalg_solve_triangular(lu, matmul(mT(p), b), /*upper=*/false, true, /*unitriangular=*/true);
    return linalg_solve_triangular(lu, y, /*upper=*/true);
  }
  // A^H X = U^H L^H P^T X = B
  const Tensor y = linalg_solve_triangular(mH(lu), b, /*upper=*/false);
  return matmul(p, linalg_solve_triangular(mH(lu), y, /*upper=*/true, true, /*unitriangular=*/true));
}
void lu_solve_kernel(void*, Frame& f) {
  const char* fn = "linalg.lu_solve";
  const Tensor lu = Tensor::borrow(&f.tensor(0)), piv = Tensor::borrow(&f.tensor(1)), b = Tensor::borrow(&f.tensor(2));
  const bool left = f.arg(3).to_bool(), adjoint = f.arg(4).to_bool();
  check_matrices(fn, *lu, true, Complex::Taken);
  CT_CHECK(b->dim() >= 2, CT_ERROR_SHAPE, fn, ": B must have at least 2 dimensions, got sizes ", b->sizes());
  const int64_t n = lu->size(lu->dim() - 1);
  CT_CHECK(b->size(b->dim() - (left ? 2 : 1)) == n, CT_ERROR_SHAPE, fn, ": incompatible shapes of A and B for the equation ",
           left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", b->size(b->dim() - 2), "x", b->size(b->dim() - 1), ")");
  CT_CHECK(b->dtype() == lu->dtype(), CT_ERROR_DTYPE, fn, ": expected LU and B to have the same dtype, but found LU of type ",
           lu->dtype(), " and B of type ", b->dtype(), " instead");
  const Tensor p = lu_unpack(lu, piv, /*unpack_data=*/false, /*unpack_pivots=*/true)[0];
  // X A = B is A^H X^H = B^H: the other equation of the conjugate transposes (X A^H = B likewise).
  f.outs[0] = left ? lu_solve_left(lu, p, b, adjoint) : mH(lu_solve_left(lu, p, mH(b), !adjoint));
}

// lu_solve(Tensor self, Tensor LU_data, Tensor LU_pivots) -> Tensor
void legacy_lu_solve_kernel(void*, Frame& f) {
  f.outs[0] = linalg_lu_solve(Tensor::borrow(&f.tensor(1)), Tensor::borrow(&f.tensor(2)), Tensor::borrow(&f.tensor(0)));
}

// ---- solve

// Whether B is a vector (or a batch of them) for A, as torch decides: 1-D, or A's sizes less the
// last.
bool vector_rhs(IntArrayRef a, IntArrayRef b) {
  return b.size() == 1 || (b.size() + 1 == a.size() && IntArrayRef(a.data(), a.size() - 1).equals(b));
}
bool vector_rhs(const TensorImpl& a, const TensorImpl& b) {
  if (b.dim() == 1) return true;
  if (b.dim() + 1 != a.dim()) return false;
  for (size_t d = 0; d < b.dim(); ++d)
    if (!(a.sym_size(d) == b.sym_size(d))) return false;
  return true;
}

// linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False) -> (Tensor result, Tensor info)
void solve_meta(const Frame& f, MetaResult& m) {
  const char* fn = "linalg.solve";
  const TensorImpl& a = f.tensor(0);
  const TensorImpl& b = f.tensor(1);
  const Device dev = common_device(f);
  const bool left = f.arg(2).to_bool();
  check_matrices(fn, a, true, Complex::Taken);
  CT_CHECK(a.dtype() == b.dtype(), CT_ERROR_DTYPE, fn, ": expected A and B to have the same dtype, but found A of type ",
           a.dtype(), " and B of type ", b.dtype(), " instead");
  const bool vector = vector_rhs(a, b);
  CT_CHECK(!vector || left, CT_ERROR_SHAPE, fn, ": vector broadcasting of the left hand side is not supported for "
           "left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1)");
  CT_CHECK(vector || b.dim() >= 2, CT_ERROR_SHAPE, fn, ": B must be a vector or batches of matrices, got sizes ",
           b.sym_sizes());
  const SymInt n = a.sym_size(a.dim() - 1);
  const SymDimVector bb = batch_dims(b, vector ? 1 : 2);  // B's batch, then its matrix sizes
  SymInt rows = vector ? b.sym_size(b.dim() - 1) : b.sym_size(b.dim() - 2), cols = vector ? SymInt(1) : b.sym_size(b.dim() - 1);
  CT_CHECK(left ? rows == n : cols == n, CT_ERROR_SHAPE, fn, ": incompatible shapes of A and B for the equation ",
           left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", rows, "x", cols, ")");
  const SymDimVector batch = broadcast_shapes(fn, batch_dims(a).ref(), bb.ref());
  m.n = 2;
  m.compute = a.dtype();
  set_output(m, 0, vector ? with(batch, {rows}).ref() : with(batch, {rows, cols}).ref(), a.dtype(), dev);
  set_output(m, 1, batch_dims(a).ref(), DType::Int32, dev);  // one per matrix of A, as torch
}
void solve_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = "linalg.solve";
  const Tensor a = Tensor::borrow(&f.tensor(0)), b = Tensor::borrow(&f.tensor(1));
  const bool left = f.arg(2).to_bool();
  const bool vector = vector_rhs(*a, *b);
  Tensor rhs = vector ? unsqueeze(b, -1) : b;
  if (!left) rhs = mT(rhs);  // X A = B: A^T X^T = B^T
  const int64_t n = a->size(a->dim() - 1), nrhs = rhs->size(rhs->dim() - 1);
  // Each matrix of A is factored once; each right-hand side of the broadcast batch is solved with
  // the factors of the matrix of A it broadcasts against (owner).
  const IntArrayRef abatch(a->sizes().data(), a->dim() - 2);
  const IntArrayRef rsz = outs[0]->sizes();
  DimVector batch(IntArrayRef(rsz.data(), rsz.size() - (vector ? 1 : 2)));
  DimVector rsizes(batch);
  rsizes.push_back(n), rsizes.push_back(nrhs);
  const ColumnMajor lu = column_major(a);
  const ColumnMajor x = column_major(expand(rhs, rsizes));
  const Tensor owner = linalg::broadcast_sources(abatch, batch);
  const int64_t* own = owner->data_as<int64_t>();
  const int ni = lapack::lapack_dim(n, fn), ki = lapack::lapack_dim(nrhs, fn);
  int32_t* info = outs[1]->data_as<int32_t>();
  std::fill(info, info + outs[1]->numel(), 0);
  std::vector<int> piv(static_cast<size_t>(std::max<int64_t>(lu.batch * n, 1)));
  with_lapack_type(a->dtype(), [&](auto t) {
    using T = decltype(t);
    linalg::for_each_matrix(lu.batch, 2.0 * n * n * n / 3, [&](int64_t i) {
      info[i] = lapack::getrf<T>(ni, ni, lu.matrix<T>(i), piv.data() + i * n);
    });
    if (lu.batch == 0) return;
    linalg::for_each_matrix(x.batch, 2.0 * n * n * nrhs, [&](int64_t i) {
      lapack::getrs<T>(!left, ni, ki, lu.matrix<T>(own[i]), piv.data() + own[i] * n, x.matrix<T>(i));
    });
  });
  if (f.arg(3).to_bool()) linalg::check_infos(fn, a->dim() > 2, info, lu.batch, Failure::SolveSingular);
  Tensor r = x.matrices();
  if (!left) r = mT(r);
  copy_(outs[0], vector ? squeeze(r, -1) : r);
}
// Left: X = A^-1 B, so gB = A^-H g and gA = -gB X^H; right: X = B A^-1, gB = g A^-H, gA = -X^H gB
// (^H the transpose for real matrices).
void solve_backward(GradCtx& c) {
  const Tensor a = c.saved("A"), x = c.result(0);
  const bool left = c.arg("left").to_bool();
  const Tensor gb = linalg_solve(mH(a), c.grad(0), left);
  if (c.needs("B")) c.set("B", gb);
  if (!c.needs("A")) return;
  if (vector_rhs(c.sizes("A"), c.sizes("B"))) {
    c.set("A", neg(mul(unsqueeze(gb, -1), unsqueeze(conj_if_complex(x), -2))));
    return;
  }
  c.set("A", neg(left ? matmul(gb, mH(x)) : matmul(mH(x), gb)));
}

// linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor
void linalg_solve_kernel(void*, Frame& f) {
  f.outs[0] = linalg_solve_ex(Tensor::borrow(&f.tensor(0)), Tensor::borrow(&f.tensor(1)), f.arg(2).to_bool(),
                              /*check_errors=*/true)[0];
}

// ---- inv: getrf then getri (4/3 n^3 flops where solving A X = I would take 8/3 n^3)

// linalg_inv_ex(Tensor A, *, bool check_errors=False) -> (Tensor inverse, Tensor info)
void inv_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  check_matrices("linalg.inv", a, true, Complex::Taken);
  m.n = 2;
  m.compute = a.dtype();
  set_output(m, 0, a.sym_sizes(), a.dtype(), a.device());
  set_output(m, 1, batch_dims(a).ref(), DType::Int32, a.device());
}
void inv_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = "linalg.inv";
  const Tensor a = Tensor::borrow(&f.tensor(0));
  const ColumnMajor x = column_major(a);
  const int n = lapack::lapack_dim(x.rows, fn);
  int32_t* info = outs[1]->data_as<int32_t>();
  std::fill(info, info + outs[1]->numel(), 0);
  with_lapack_type(a->dtype(), [&](auto t) {
    using T = decltype(t);
    linalg::for_each_matrix(x.batch, 2.0 * n * n * n, [&](int64_t i) {
      std::vector<int> piv(static_cast<size_t>(n));
      info[i] = lapack::getrf<T>(n, n, x.matrix<T>(i), piv.data());
      if (info[i] == 0) lapack::getri<T>(n, x.matrix<T>(i), piv.data());
    });
  });
  if (f.arg(1).to_bool()) linalg::check_infos(fn, a->dim() > 2, info, x.batch, Failure::InverseSingular);
  copy_(outs[0], x.matrices());
}
// X = A^-1: dX = -X dA X, so gA = -X^H g X^H.
void inv_backward(GradCtx& c) {
  const Tensor x = mH(c.result(0));
  c.set("A", neg(matmul(matmul(x, c.grad(0)), x)));
}
// linalg_inv(Tensor A) -> Tensor; inverse(Tensor self) -> Tensor
void inv_kernel(void*, Frame& f) { f.outs[0] = linalg_inv_ex(Tensor::borrow(&f.tensor(0)), /*check_errors=*/true)[0]; }

// ---- det and slogdet, from U's diagonal and the number of row swaps

// det (kLog false) or (sign, log|det|) (kLog true) of each LU: what their kernels share. A complex
// determinant's sign is det / |det| (0 where det is).
template <bool kLog, typename T, typename R>
void lu_determinants(const ColumnMajor& lu, const int* piv, int64_t i, T& sign, R& logabs, T& det) {
  const int64_t n = lu.rows;
  const T* a = lu.matrix<T>(i);
  sign = T(1), logabs = R(0), det = T(1);
  for (int64_t j = 0; j < n; ++j) {
    const T u = a[j * n + j];
    if constexpr (kLog) {
      if (piv[j] != j + 1) sign = -sign;
      const R size = std::abs(u);
      if constexpr (cpu::is_complex_t<T>::value) {
        sign = size == R(0) ? T(0) : sign * (u / size);
      } else {
        sign = u < 0 ? -sign : u > 0 ? sign : T(0);
      }
      logabs += std::log(size);
    } else {
      if (piv[j] != j + 1) det = -det;
      det *= u;
    }
  }
}

void determinant_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  check_matrices(f.op.schema.name == "linalg_det" ? "linalg.det" : "linalg.slogdet", a, true, Complex::Taken);
  const SymDimVector batch = batch_dims(a);
  m.n = f.op.schema.returns.size();
  m.compute = a.dtype();
  // det, or sign in A's dtype; logabsdet real.
  for (size_t i = 0; i < m.n; ++i) set_output(m, i, batch.ref(), i == 0 ? a.dtype() : real_dtype(a.dtype()), a.device());
}
template <bool kLog>
void determinant_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = kLog ? "linalg.slogdet" : "linalg.det";
  const Tensor a = Tensor::borrow(&f.tensor(0));
  const ColumnMajor lu = column_major(a);
  const int n = lapack::lapack_dim(lu.rows, fn);
  with_lapack_type(a->dtype(), [&](auto t) {
    using T = decltype(t);
    using R = decltype(std::abs(t));
    T* out0 = outs[0]->data_as<T>();
    R* out1 = kLog ? outs[1]->data_as<R>() : nullptr;
    // Every matrix of the batch, a 0 x 0 one (no LU) having determinant 1.
    linalg::for_each_matrix(outs[0]->numel(), 2.0 * n * n * n / 3, [&](int64_t i) {
      T sign = 1, det = 1;
      R logabs = 0;
      if (lu.batch) {
        // The pivots of a small matrix live on the stack: a batch of 8 x 8 matrices paid an
        // allocation per matrix.
        int small[64];
        std::vector<int> large(n > 64 ? static_cast<size_t>(n) : 0);
        int* piv = n > 64 ? large.data() : small;
        lapack::getrf<T>(n, n, lu.matrix<T>(i), piv);
        lu_determinants<kLog>(lu, piv, i, sign, logabs, det);
      }
      if constexpr (kLog) {
        out0[i] = sign, out1[i] = logabs;
      } else {
        out0[i] = det;
      }
    });
  });
}

// The cofactor matrix of A (the gradient of det): det(A) A^-T where A is invertible (conjugated for
// complex A: g conj(det) A^-H). Where a matrix of the batch is singular, from A = U S V^H: det(U)
// det(V^H) U diag(prod_{j != i} s_j) V^H for all, which is exact everywhere (its conjugate factor
// conj(det(U) det(V^H)) for complex A).
void det_backward(GradCtx& c) {
  const Tensor a = c.saved("A"), det = c.result(0);
  const Tensor g = unsqueeze(unsqueeze(mul(c.grad(0), conj_if_complex(det)), -1), -1);
  // Which formula is a choice made on the values; on the meta device only the sizes matter.
  if (det->device().is_meta() || !host_contiguous(any(eq(det, 0)))->data_as<bool>()[0]) {
    c.set("A", mul(g, mH(linalg_inv(a))));
    return;
  }
  const auto usv = linalg_svd(a, /*full_matrices=*/false);
  const Tensor &u = usv[0], &s = usv[1], &vh = usv[2];
  // prod_{j != i} s_j as the product of the prefix before i and the suffix after it.
  const int64_t n = s->size(s->dim() - 1);
  const Tensor one = ones(narrow(s, -1, 0, 1)->sizes(), s->dtype(), s->device());
  const Tensor before = cat({one.impl(), narrow(cumprod(s, -1), -1, 0, n - 1).impl()}, -1);
  const Tensor after = flip(cat({one.impl(), narrow(cumprod(flip(s, {-1}), -1), -1, 0, n - 1).impl()}, -1), {-1});
  const Tensor sign = conj_if_complex(mul(linalg_det(u), linalg_det(vh)));
  const Tensor cof = matmul(mul(u, unsqueeze(mul(before, after), -2)), vh);
  c.set("A", mul(unsqueeze(unsqueeze(mul(c.grad(0), sign), -1), -1), cof));
}
// d log|det A| = Re tr(A^-1 dA): gA = g A^-H. A real sign is piecewise constant; a complex one,
// det / |det|, moves by sign i Im tr(A^-1 dA), which adds -i Im(conj(g_sign) sign) to g.
void slogdet_backward(GradCtx& c) {
  Tensor g = c.grad(1);
  if (is_complex(c.result(0)->dtype())) g = complex(g, neg(imag(mul(conj(c.grad(0)), c.result(0)))));
  c.set("A", mul(unsqueeze(unsqueeze(g, -1), -1), mH(linalg_inv_ex(c.saved("A"))[0])));
}

// det(Tensor self) -> Tensor; slogdet(Tensor self) -> (Tensor sign, Tensor logabsdet)
void det_kernel(void*, Frame& f) { f.outs[0] = linalg_det(Tensor::borrow(&f.tensor(0))); }
void slogdet_kernel(void*, Frame& f) {
  auto r = linalg_slogdet(Tensor::borrow(&f.tensor(0)));
  f.outs[0] = r[0];
  f.outs[1] = r[1];
}
// logdet(Tensor self) -> Tensor: log det A, NaN where det A < 0 and -inf where it is 0; for complex
// A, log(sign) + log|det A|.
void logdet_kernel(void*, Frame& f) {
  auto r = linalg_slogdet(Tensor::borrow(&f.tensor(0)));
  if (is_complex(r[0]->dtype())) {
    f.outs[0] = add(log(r[0]), r[1]);
    return;
  }
  f.outs[0] = where(lt(r[0], 0), full({}, Scalar(NAN), r[1]->dtype(), r[1]->device()), r[1]);
}

// ---- inv and solve of tensors read as matrices

// linalg_tensorinv(Tensor A, int ind=2) -> Tensor: the inverse of A read as the matrix of its first
// ind dims by the rest, with sizes A.shape[ind:] + A.shape[:ind].
void tensorinv_kernel(void*, Frame& f) {
  const char* fn = "linalg.tensorinv";
  const Tensor a = Tensor::borrow(&f.tensor(0));
  const int64_t ind = f.arg(1).to_int();
  CT_CHECK(ind > 0, CT_ERROR_INVALID_ARGUMENT, fn, ": expected a strictly positive integer for 'ind', but got ", ind);
  CT_CHECK(ind <= static_cast<int64_t>(a->dim()), CT_ERROR_INVALID_ARGUMENT, fn, ": ind ", ind, " is more than A's ",
           a->dim(), " dims");
  const IntArrayRef s = a->sizes();
  const IntArrayRef rows(s.data(), static_cast<size_t>(ind)), cols(s.data() + ind, s.size() - static_cast<size_t>(ind));
  const int64_t n = product(rows), m = product(cols);
  CT_CHECK(n == m, CT_ERROR_SHAPE, fn, ": expected prod(A.shape[:ind]) == prod(A.shape[ind:]), but got ", n, " != ", m,
           " for A of sizes ", s, " and ind=", ind);
  DimVector out(cols);
  for (int64_t r : rows) out.push_back(r);
  f.outs[0] = reshape(linalg_inv(reshape(a, {n, m})), out);
}

// linalg_tensorsolve(Tensor A, Tensor B, int[]? dims=None) -> Tensor: X with tensordot(A, X, X.ndim)
// = B; dims, when given, are moved to A's end first.
void tensorsolve_kernel(void*, Frame& f) {
  const char* fn = "linalg.tensorsolve";
  Tensor a = Tensor::borrow(&f.tensor(0));
  const Tensor b = Tensor::borrow(&f.tensor(1));
  if (!f.arg(2).is_none()) {
    const IntArrayRef dims = f.arg(2).int_list();
    DimVector dest;
    for (size_t i = 0; i < dims.size(); ++i) dest.push_back(static_cast<int64_t>(a->dim() - dims.size() + i));
    a = movedim(a, dims, dest);
  }
  CT_CHECK(a->dim() >= b->dim(), CT_ERROR_SHAPE, fn, ": A (sizes ", a->sizes(), ") must have at least B's ", b->dim(),
           " dims");
  const IntArrayRef s = a->sizes();
  const IntArrayRef out(s.data() + b->dim(), s.size() - b->dim());
  const int64_t n = b->numel();
  CT_CHECK(product(IntArrayRef(s.data(), b->dim())) == n && product(out) == n, CT_ERROR_SHAPE, fn,
           ": expected prod(A.shape[B.ndim:]) == prod(A.shape[:B.ndim]) == B.numel() = ", n, ", but A has sizes ", s);
  f.outs[0] = reshape(linalg_solve(reshape(a, {n, n}), reshape(b, {n})), out);
}

}  // namespace

void define_lu(Registry& r) {
  r.def("linalg_lu_factor_ex(Tensor A, *, bool pivot=True, bool check_errors=False) -> (Tensor LU, Tensor pivots, Tensor info)")
      .meta(lu_factor_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, lu_factor_cpu, Determinism::Deterministic)
      .derivative(lu_factor_backward, save_result());
  r.def("linalg_lu_factor(Tensor A, *, bool pivot=True) -> (Tensor LU, Tensor pivots)").composite(lu_factor_kernel);
  r.def("lu_unpack(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, bool unpack_pivots=True) -> (Tensor P, Tensor L, Tensor U)")
      .composite(lu_unpack_kernel);
  r.def("linalg_lu(Tensor A, *, bool pivot=True) -> (Tensor P, Tensor L, Tensor U)").composite(lu_kernel);
  r.def("linalg_lu_solve(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, bool adjoint=False) -> Tensor")
      .composite(lu_solve_kernel);
  r.def("lu_solve(Tensor self, Tensor LU_data, Tensor LU_pivots) -> Tensor").composite(legacy_lu_solve_kernel);
  r.def("linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False) -> (Tensor result, Tensor info)")
      .meta(solve_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, solve_cpu, Determinism::Deterministic)
      .derivative(solve_backward, save_result(save("A")));
  r.def("linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor").composite(linalg_solve_kernel);
  r.def("linalg_inv_ex(Tensor A, *, bool check_errors=False) -> (Tensor inverse, Tensor info)")
      .meta(inv_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, inv_cpu, Determinism::Deterministic)
      .derivative(inv_backward, save_result());
  r.def("linalg_inv(Tensor A) -> Tensor").composite(inv_kernel);
  r.def("inverse(Tensor self) -> Tensor").composite(inv_kernel);
  r.def("linalg_det(Tensor A) -> Tensor")
      .meta(determinant_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, determinant_cpu<false>, Determinism::Deterministic)
      .derivative(det_backward, save_result(save("A")));
  r.def("det(Tensor self) -> Tensor").composite(det_kernel);
  r.def("linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet)")
      .meta(determinant_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, determinant_cpu<true>, Determinism::Deterministic)
      .derivative(slogdet_backward, save_result(save("A")));
  r.def("slogdet(Tensor self) -> (Tensor sign, Tensor logabsdet)").composite(slogdet_kernel);
  r.def("logdet(Tensor self) -> Tensor").composite(logdet_kernel);
  r.def("linalg_tensorinv(Tensor A, int ind=2) -> Tensor").composite(tensorinv_kernel);
  r.def("linalg_tensorsolve(Tensor A, Tensor B, int[]? dims=None) -> Tensor").composite(tensorsolve_kernel);
}

}  // namespace ct::ops
