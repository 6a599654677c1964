// matrix_functions.cpp - matrix_power and matrix_exp (torch.linalg's, with their torch.* names):
// composites over matmul, so their derivatives, batching and devices are matmul's.
#include <cmath>
#include <limits>

#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/linalg/batched.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

// Batches of square matrices: [..., n, n].
void check_square(const char* op, const TensorImpl& a) {
  CT_CHECK(a.dim() >= 2, CT_ERROR_SHAPE, op, ": A must have at least 2 dimensions (batches of square matrices), got "
           "sizes ", a.sym_sizes());
  CT_CHECK(a.sym_size(a.dim() - 1) == a.sym_size(a.dim() - 2), CT_ERROR_SHAPE, op,
           ": A must be batches of square matrices, but they are ", a.sym_size(a.dim() - 2), " by ",
           a.sym_size(a.dim() - 1), " matrices");
}

// matrix_power(Tensor self, int n) -> Tensor: A^n by the binary decomposition of n (the squares of
// A times each other as n's bits say), in torch's order of products; a negative n powers A's inverse.
void matrix_power_kernel(void*, Frame& f) {
  const char* op = f.op.schema.name.c_str();
  const Tensor a = Tensor::borrow(&f.tensor(0));
  int64_t n = f.arg(1).to_int();
  check_square(op, *a);
  CT_CHECK(a->dtype() != DType::Bool, CT_ERROR_DTYPE, op, ": bool matrices are not supported. Convert A with to()");
  if (n < 0) {  // (A^-1)^|n|; LinAlgError when A is singular
    const Tensor inverse = linalg_inv(a);
    // |INT64_MIN| is no int64: one factor is taken out first (negating it recursed without end).
    f.outs[0] = n == std::numeric_limits<int64_t>::min()
                    ? matmul(matrix_power(inverse, std::numeric_limits<int64_t>::max()), inverse)
                    : matrix_power(inverse, -n);
    return;
  }
  if (n == 0) {
    // A copy of A overwritten with I: the result depends on A, with a zero gradient, as torch's.
    Tensor r = clone(a);
    f.outs[0] = copy_(r, linalg::identity_like(a));
    return;
  }
  if (n == 1) {
    f.outs[0] = clone(a);
    return;
  }
  if (n == 2) {
    f.outs[0] = matmul(a, a);
    return;
  }
  if (n == 3) {
    f.outs[0] = matmul(matmul(a, a), a);
    return;
  }
  Tensor z, result;
  while (n > 0) {
    const bool bit = n % 2;
    n /= 2;
    z = z.defined() ? matmul(z, z) : a;
    if (bit) result = result.defined() ? matmul(result, z) : z;
  }
  f.outs[0] = result;
}

// matrix_exp(Tensor self) -> Tensor: scaling and squaring over a Taylor polynomial. A is scaled by
// 2^-s so that its 1-norm is at most 1/2, the polynomial is taken to the first degree m whose
// remainder bound x^(m+1) / (m+1)! falls below the dtype's unit roundoff (m <= 14 in float64), and
// the result is squared s times. The scale and degree come from the largest norm in the batch, read
// on the host: an eager choice, as torch's.
void matrix_exp_kernel(void*, Frame& f) {
  const char* op = f.op.schema.name.c_str();
  const Tensor a = Tensor::borrow(&f.tensor(0));
  check_square(op, *a);
  CT_CHECK(is_floating(a->dtype()) || is_complex(a->dtype()), CT_ERROR_DTYPE, op, ": A is ", a->dtype(),
           "; the matrix exponential takes floating or complex matrices. Convert A with to()");
  if (a->device().is_meta() || a->numel() == 0) {  // the result has A's sizes whatever its values
    f.outs[0] = clone(a);
    return;
  }
  if (a->size(a->dim() - 1) == 1) {  // as torch: a 1 x 1 matrix's exponential is its entry's (inf too)
    f.outs[0] = exp(a);
    return;
  }
  auto host_max = [](const Tensor& t) { return to(amax(t), kCPU, DType::Float64)->data_as<double>()[0]; };
  const Tensor norms = amax(sum(abs(a), IntArrayRef{-2}), IntArrayRef{-1});  // each matrix's 1-norm
  double norm = host_max(norms);
  // As torch, a matrix holding a non-finite value (its norm NaN or inf, and so the largest) gives
  // NaN everywhere, and the others their exponential, scaled by the largest finite norm.
  Tensor base = a, finite;
  if (!std::isfinite(norm)) {
    const Tensor zero = zeros({}, a->dtype(), a->device()), zero_norm = zeros({}, norms->dtype(), a->device());
    finite = unsqueeze(unsqueeze(isfinite(norms), -1), -1);
    base = where(finite, a, zero);
    norm = host_max(where(isfinite(norms), norms, zero_norm));
  }
  const int s = norm > 0.5 ? static_cast<int>(std::ceil(std::log2(norm / 0.5))) : 0;
  const double x = std::ldexp(norm, -s);
  const double unit = real_dtype(a->dtype()) == DType::Float64 ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
  int m = 0;
  for (double term = x; term > unit && m < 30; term *= x / (m + 2)) ++m;  // term = x^(m+1) / (m+1)!
  const Tensor scaled = s > 0 ? mul(base, Scalar(std::ldexp(1.0, -s))) : base;
  const Tensor eye_a = linalg::identity_like(a);
  // Horner: P = I + X (I + X/2 (I + ... (I + X/m))).
  Tensor p = eye_a;
  for (int k = m; k >= 1; --k) p = add(eye_a, div(matmul(scaled, p), Scalar(static_cast<double>(k))));
  for (int i = 0; i < s; ++i) p = matmul(p, p);
  if (!finite.defined()) {
    f.outs[0] = p;
    return;
  }
  Tensor nan = full({}, std::numeric_limits<double>::quiet_NaN(), real_dtype(a->dtype()), a->device());
  if (is_complex(a->dtype())) nan = complex(nan, nan);  // NaN in both parts, as torch's
  f.outs[0] = where(finite, p, nan);
}

}  // namespace

void define_matrix_functions(Registry& r) {
  r.def("matrix_power(Tensor self, int n) -> Tensor").composite(matrix_power_kernel);
  r.def("linalg_matrix_power(Tensor A, int n) -> Tensor").composite(matrix_power_kernel);
  r.def("matrix_exp(Tensor self) -> Tensor").composite(matrix_exp_kernel);
  r.def("linalg_matrix_exp(Tensor A) -> Tensor").composite(matrix_exp_kernel);
}

}  // namespace ct::ops
