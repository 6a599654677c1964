// lapack.cpp - gradcheck cases of the LAPACK-backed linear algebra. Inputs are made well conditioned
// (A + 3 I; A A^T + n I where positive-definite), and factors defined up to sign (eigenvectors,
// singular vectors) enter through their squares, weighted so that the check sees every entry.
#include "gradcheck.h"

namespace ct::gradcheck {
namespace {

Tensor eye_like(const Tensor& a) {
  const int64_t n = a->size(a->dim() - 1);
  return ops::eye(n, n, DType::Float64);
}
Tensor mT(const Tensor& a) { return ops::transpose(a, -2, -1); }
Tensor well(const Tensor& a) { return ops::add(a, ops::mul(eye_like(a), Scalar(3.0))); }
Tensor spd(const Tensor& a) {
  return ops::add(ops::matmul(a, mT(a)), ops::mul(eye_like(a), Scalar(static_cast<double>(a->size(a->dim() - 1)))));
}
Tensor sym(const Tensor& a) { return ops::add(a, mT(a)); }
// v * v weighted by distinct constants: sign-free, and every entry counts.
Tensor squares(const Tensor& v) {
  const int64_t n = v->numel();
  const Tensor w = ops::reshape(ops::arange(Scalar(1), Scalar(n + 1), Scalar(1), DType::Float64), v->sizes());
  return ops::mul(ops::mul(v, v), w);
}
// The entries of tensors of any sizes, one after another, as one vector (a case's single output).
Tensor flat(std::initializer_list<Tensor> ts) {
  std::vector<const TensorImpl*> pieces;
  std::vector<Tensor> keep;
  for (const Tensor& t : ts) keep.push_back(ops::reshape(t, {-1}));
  for (const Tensor& t : keep) pieces.push_back(t.impl());
  return ops::cat(pieces, 0);
}
Tensor parts(const Tensor& z) { return ops::view_as_real(z); }
// f() with the cpu's default generator seeded with seed, its state before put back after.
template <typename F>
auto with_seed(uint64_t seed, const F& f) {
  runtime::Generator& g = runtime::Generator::default_for(kCPU);
  uint8_t state[runtime::Generator::kStateSize];
  g.get_state(state);
  g.manual_seed(seed);
  auto result = f();
  g.set_state(state);
  return result;
}

// Eigenvalues 1 +- 2i (nearly) and 4: apart, so that eig's derivative is well conditioned.
const Input kGeneral{{3, 3}, -1, 1, {1, 2, 0, -2, 1, 0.5, 0.3, 0, 4}};
const Input kGeneralIm{{3, 3}, -1, 1, {0.2, -0.1, 0.3, 0, 0.5, -0.2, 0.1, 0.4, -0.3}};
// eig's results without the phase each eigenvector is defined up to: the eigenvalues' parts, the
// eigenvectors' weighted squared moduli, and each eigenvector times the conjugate phase of its
// first entry.
Tensor phase_free(const std::array<Tensor, 2>& lv) {
  const Tensor first = ops::narrow(lv[1], -2, 0, 1);
  const Tensor turned = ops::mul(lv[1], ops::div(ops::conj(first), ops::abs(first)));
  return flat({parts(lv[0]), squares(ops::abs(lv[1])), parts(turned)});
}
Tensor lu_of(const Tensor& a) { return ops::linalg_lu_factor(well(a))[0]; }
Tensor pivots_of(const Tensor& a) { return ops::linalg_lu_factor(well(a))[1]; }

std::vector<Case> lapack_cases() {
  const Input m3{{3, 3}}, b3{{2, 3, 3}}, r32{{3, 2}}, r23{{2, 3}}, t43{{4, 3}};
  std::vector<Case> cs = {
      {{"linalg_lu_factor_ex"}, {b3}, [](const Inputs& x) { return ops::linalg_lu_factor_ex(well(x[0]))[0]; }},
      {{"linalg_lu_factor"}, {m3}, [](const Inputs& x) { return lu_of(x[0]); }},
      {{"lu_unpack"},
       {m3},
       [](const Inputs& x) {
         const auto plu = ops::lu_unpack(x[0], ops::full({3}, Scalar(3), DType::Int32));  // swaps 1-3, 2-3
         return ops::add(plu[1], plu[2]);
       }},
      {{"linalg_lu"},
       {b3},
       [](const Inputs& x) {
         const auto plu = ops::linalg_lu(well(x[0]));
         return ops::add(plu[1], plu[2]);
       }},
      {{"linalg_lu_solve"},
       {m3, r32},
       [](const Inputs& x) { return ops::linalg_lu_solve(lu_of(x[0]), pivots_of(x[0]), x[1], true, true); }},
      {{"lu_solve"}, {m3, r32}, [](const Inputs& x) { return ops::lu_solve(x[1], lu_of(x[0]), pivots_of(x[0])); }},
      {{"linalg_solve"}, {b3, r32}, [](const Inputs& x) { return ops::linalg_solve(well(x[0]), x[1]); }},
      {{"linalg_solve_ex"}, {m3, r23}, [](const Inputs& x) { return ops::linalg_solve_ex(well(x[0]), x[1], false)[0]; }},
      {{"linalg_inv"}, {b3}, [](const Inputs& x) { return ops::linalg_inv(well(x[0])); }},
      {{"linalg_inv_ex"}, {m3}, [](const Inputs& x) { return ops::linalg_inv_ex(well(x[0]))[0]; }},
      {{"inverse"}, {m3}, [](const Inputs& x) { return ops::inverse(well(x[0])); }},
      {{"linalg_det"}, {b3}, [](const Inputs& x) { return ops::linalg_det(x[0]); }},
      // A singular matrix: the cofactors through the SVD (rank 2, so its singular values differ).
      {{"det"},
       {{{3, 3}, -1, 1, {1, 2, 3, 2, 4, 6, 0, 1, 1}}},
       [](const Inputs& x) { return ops::det(x[0]); },
       false},
      {{"linalg_slogdet"}, {b3}, [](const Inputs& x) { return ops::linalg_slogdet(well(x[0]))[1]; }},
      {{"slogdet"}, {m3}, [](const Inputs& x) { return ops::slogdet(well(x[0]))[1]; }},
      {{"logdet"}, {m3}, [](const Inputs& x) { return ops::logdet(spd(x[0])); }},
      {{"linalg_tensorinv"},
       {{{4, 4}}},
       [](const Inputs& x) { return ops::linalg_tensorinv(ops::reshape(well(x[0]), {2, 2, 4}), 2); }},
      {{"linalg_tensorsolve"},
       {{{4, 4}}, {{2, 2}}},
       [](const Inputs& x) { return ops::linalg_tensorsolve(ops::reshape(well(x[0]), {2, 2, 4}), x[1]); }},
      {{"linalg_solve_triangular"},
       {b3, r32},
       [](const Inputs& x) { return ops::linalg_solve_triangular(well(x[0]), x[1], true, true, false); }},
      {{"triangular_solve"},
       {r32, m3},
       [](const Inputs& x) { return ops::triangular_solve(x[0], well(x[1]), false, true, false)[0]; }},
      {{"linalg_cholesky_ex"}, {b3}, [](const Inputs& x) { return ops::linalg_cholesky_ex(spd(x[0]), true)[0]; }},
      {{"linalg_cholesky"}, {m3}, [](const Inputs& x) { return ops::linalg_cholesky(spd(x[0])); }},
      {{"cholesky"}, {m3}, [](const Inputs& x) { return ops::cholesky(spd(x[0]), true); }},
      {{"cholesky_solve"},
       {r32, m3},
       [](const Inputs& x) { return ops::cholesky_solve(x[0], ops::linalg_cholesky(spd(x[1])), false); }},
      {{"cholesky_inverse"}, {m3}, [](const Inputs& x) { return ops::cholesky_inverse(ops::linalg_cholesky(spd(x[0]))); }},
      {{"linalg_qr"},
       {t43},
       [](const Inputs& x) {
         const auto qr = ops::linalg_qr(x[0]);
         return ops::add(ops::sum(qr[0]), ops::sum(qr[1]));
       }},
      {{"qr"},
       {r23},
       [](const Inputs& x) {
         const auto qr = ops::qr(x[0]);
         return ops::add(ops::sum(qr[0]), ops::sum(qr[1]));
       }},
      {{"linalg_householder_product"},
       {t43, {{2}}},
       [](const Inputs& x) { return ops::linalg_householder_product(x[0], x[1]); }},
      {{"orgqr"}, {t43, {{3}}}, [](const Inputs& x) { return ops::orgqr(x[0], x[1]); }},
      {{"ormqr"}, {t43, {{2}}, {{4, 2}}}, [](const Inputs& x) { return ops::ormqr(x[0], x[1], x[2], true, true); }},
      {{"linalg_eigh"},
       {m3},
       [](const Inputs& x) {
         const auto lv = ops::linalg_eigh(sym(x[0]));
         return ops::add(ops::unsqueeze(lv[0], -2), squares(lv[1]));
       }},
      {{"linalg_eigvalsh"}, {b3}, [](const Inputs& x) { return ops::linalg_eigvalsh(sym(x[0]), "U"); }},
      {{"linalg_matrix_sqrth"}, {b3}, [](const Inputs& x) { return ops::linalg_matrix_sqrth(spd(x[0])); }},
      {{"linalg_polar"},
       {t43},
       [](const Inputs& x) {
         const auto uh = ops::linalg_polar(x[0]);
         return ops::add(ops::sum(uh[0]), ops::sum(uh[1]));
       }},
      {{"symeig"},
       {m3},
       [](const Inputs& x) {
         const auto lv = ops::symeig(sym(x[0]), true, true);
         return ops::add(ops::unsqueeze(lv[0], -2), squares(lv[1]));
       }},
      {{"linalg_svd"},
       {t43},
       [](const Inputs& x) {
         const auto usv = ops::linalg_svd(x[0], false);
         return ops::add(ops::add(ops::sum(squares(usv[0])), ops::sum(squares(usv[2]))), ops::sum(usv[1]));
       }},
      {{"svd"},
       {r23},
       [](const Inputs& x) {
         const auto usv = ops::svd(x[0]);
         return ops::add(ops::add(ops::sum(squares(usv[0])), ops::sum(squares(usv[2]))), ops::sum(usv[1]));
       }},
      // The randomized SVDs with the default generator seeded before each evaluation, so that every
      // one draws the same test matrix and the function differentiated is a smooth one of A (and
      // M); q = 3 below A's rank, so that the singular values stay apart.
      {{"svd_lowrank"},
       {{{5, 4}}, {{1, 4}}},
       [](const Inputs& x) {
         const auto usv = with_seed(11, [&] { return ops::svd_lowrank(x[0], 3, 1, x[1]); });
         return flat({squares(usv[0]), usv[1], squares(usv[2])});
       }},
      {{"pca_lowrank"},
       {{{5, 4}}},
       [](const Inputs& x) {
         const auto usv = with_seed(11, [&] { return ops::pca_lowrank(x[0], 3, true, 1); });
         return flat({squares(usv[0]), usv[1], squares(usv[2])});
       }},
      {{"linalg_svdvals"}, {t43}, [](const Inputs& x) { return ops::linalg_svdvals(x[0]); }},
      {{"linalg_pinv"}, {t43}, [](const Inputs& x) { return ops::linalg_pinv(x[0]); }},
      {{"pinverse"}, {r23}, [](const Inputs& x) { return ops::pinverse(x[0]); }},
      {{"linalg_cond", "linalg_cond.p_str"},
       {m3},
       [](const Inputs& x) { return ops::add(ops::linalg_cond(x[0]), ops::linalg_cond(well(x[0]), "fro")); }},
      {{"linalg_lstsq"}, {t43, {{4, 2}}}, [](const Inputs& x) { return ops::linalg_lstsq(x[0], x[1])[0]; }},
      {{"nuclear_norm", "nuclear_norm.dim"},
       {t43},
       [](const Inputs& x) {
         return ops::add(ops::nuclear_norm(x[0]), ops::nuclear_norm(ops::unsqueeze(x[0], 0), IntArrayRef{1, 2}));
       }},
      {{"linalg_vander"}, {{{3}}}, [](const Inputs& x) { return ops::linalg_vander(x[0], 4); }},
      {{"linalg_eig"}, {kGeneral}, [](const Inputs& x) { return phase_free(ops::linalg_eig(x[0])); }},
      {{"linalg_eig"},
       {kGeneral, kGeneralIm},
       [](const Inputs& x) { return phase_free(ops::linalg_eig(ops::complex(x[0], x[1]))); }},
      // A Hermitian matrix from two real ones: real eigenvalues, eigenvectors without their phases.
      {{"linalg_eigh", "linalg_eigvalsh"},
       {m3, m3},
       [](const Inputs& x) {
         const Tensor z = ops::complex(x[0], x[1]);
         const Tensor h = ops::add(z, ops::conj(mT(z)));
         const auto lv = ops::linalg_eigh(h);
         const Tensor values = ops::linalg_eigvalsh(h, "U");
         return flat({values, phase_free({ops::complex(lv[0], ops::mul(lv[0], Scalar(0.0))), lv[1]})});
       }},
      // Cholesky and triangular solves of a Hermitian positive-definite complex matrix.
      {{"linalg_cholesky_ex", "linalg_solve_triangular", "cholesky_solve", "cholesky_inverse"},
       {m3, m3, r32, r32},
       [](const Inputs& x) {
         const Tensor z = ops::complex(x[0], x[1]), b = ops::complex(x[2], x[3]);
         const Tensor h = ops::add(ops::matmul(z, ops::conj(mT(z))), ops::mul(eye_like(x[0]), Scalar(3.0)));
         const Tensor l = ops::linalg_cholesky_ex(h, false)[0], u = ops::linalg_cholesky_ex(h, true)[0];
         return flat({parts(l), parts(u), parts(ops::linalg_solve_triangular(u, b, true, true, false)),
                      parts(ops::cholesky_solve(b, l, false)), parts(ops::cholesky_inverse(u, true))});
       }},
      // QR of complex matrices, tall and wide (R's diagonal real, so Q and R are unique).
      {{"linalg_qr"},
       {t43, t43, r23, r23},
       [](const Inputs& x) {
         const auto tall = ops::linalg_qr(ops::complex(x[0], x[1]));
         const auto wide = ops::linalg_qr(ops::complex(x[2], x[3]));
         return flat({parts(tall[0]), parts(tall[1]), parts(wide[0]), parts(wide[1])});
       }},
      // The SVD of complex matrices: singular values, and the products u_i v_i^H (phase-free).
      {{"linalg_svd", "linalg_svdvals"},
       {t43, t43},
       [](const Inputs& x) {
         const Tensor z = ops::complex(x[0], x[1]);
         const auto usv = ops::linalg_svd(z, false);
         const Tensor products = ops::mul(ops::unsqueeze(usv[0], -1), ops::unsqueeze(usv[2], -3));
         return flat({usv[1], parts(products), ops::linalg_svdvals(ops::conj(mT(z)))});
       }},
      // LU of complex matrices, and solves with its factors (adjoint, from the right).
      {{"linalg_lu_factor_ex", "linalg_lu_solve", "lu_unpack"},
       {m3, m3, r23, r23},
       [](const Inputs& x) {
         const Tensor z = ops::complex(well(x[0]), x[1]), b = ops::complex(x[2], x[3]);
         const auto lu = ops::linalg_lu_factor(z);
         const auto plu = ops::lu_unpack(lu[0], lu[1]);
         return flat({parts(plu[1]), parts(plu[2]), parts(ops::linalg_lu_solve(lu[0], lu[1], b, false, true))});
       }},
      // Complex reflectors (I - tau v v^H): Q from them, and Q^H applied from the right.
      {{"linalg_householder_product", "ormqr"},
       {t43, t43, {{2}}, {{2}}, {{2, 4}}, {{2, 4}}},
       [](const Inputs& x) {
         const Tensor a = ops::complex(x[0], x[1]), tau = ops::mul(ops::complex(x[2], x[3]), Scalar(0.25));
         const Tensor c = ops::complex(x[4], x[5]);
         return flat({parts(ops::linalg_householder_product(a, tau)), parts(ops::ormqr(a, tau, c, false, true))});
       }},
      {{"linalg_matrix_sqrth", "linalg_polar"},
       {t43, t43},
       [](const Inputs& x) {
         const Tensor z = ops::complex(x[0], x[1]);
         const Tensor h = ops::add(ops::matmul(ops::conj(mT(z)), z), ops::mul(eye_like(x[0]), Scalar(3.0)));
         const auto uh = ops::linalg_polar(z);
         return flat({parts(ops::linalg_matrix_sqrth(h)), parts(uh[0]), parts(uh[1])});
       }},
      {{"linalg_matrix_exp"},
       {m3, m3},
       [](const Inputs& x) { return parts(ops::linalg_matrix_exp(ops::complex(x[0], x[1]))); }},
      // pinv (and lstsq and cond through it and the SVD) of complex matrices.
      {{"linalg_pinv", "linalg_lstsq", "linalg_cond"},
       {t43, t43, {{4, 2}}, {{4, 2}}},
       [](const Inputs& x) {
         const Tensor z = ops::complex(x[0], x[1]), b = ops::complex(x[2], x[3]);
         return flat({parts(ops::linalg_pinv(z)), parts(ops::linalg_lstsq(z, b)[0]), ops::linalg_cond(z)});
       }},
      // det at a singular complex matrix: the cofactors through the complex SVD.
      {{"linalg_det"},
       {{{3, 3}, -1, 1, {1, 2, 3, 2, 4, 6, 0, 1, 1}}, {{3, 3}, -1, 1, {0.5, 1, 1.5, 1, 2, 3, 0, 0, 1}}},
       [](const Inputs& x) { return parts(ops::linalg_det(ops::complex(x[0], x[1]))); },
       false},
      {{"linalg_eigvals"}, {kGeneral}, [](const Inputs& x) { return parts(ops::linalg_eigvals(x[0])); }},
      // The LU family on complex matrices: the conjugate transposes in their derivatives.
      {{"linalg_solve_ex", "linalg_inv_ex", "linalg_det", "linalg_slogdet", "logdet"},
       {m3, m3, r32, r32},
       [](const Inputs& x) {
         const Tensor a = ops::complex(well(x[0]), x[1]), b = ops::complex(x[2], x[3]);
         const auto sl = ops::linalg_slogdet(a);
         return flat({parts(ops::linalg_solve(a, b)), parts(ops::linalg_inv(a)), parts(ops::linalg_det(a)),
                      parts(sl[0]), sl[1], parts(ops::logdet(a))});
       }},
  };
  return cs;
}

const GradCheckFamily family(lapack_cases);

}  // namespace
}  // namespace ct::gradcheck
