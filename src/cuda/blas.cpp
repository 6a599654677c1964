// blas.cpp - CUDA compute for mm, bmm and addmm through the table's cuBLAS gemm_strided_batched.
//
// cuBLAS is column-major; ctorch's outputs are row-major. A row-major C = A B is the column-major
// C^T = B^T A^T, so the call swaps A and B (and m and n). A row-major operand read column-major is
// already its transpose (no flag); a transposed view (unit row stride) is read with the transpose
// flag; anything else (broadcast, non-unit inner strides) is copied to contiguous first.
#include <algorithm>

#include "core/error.h"
#include "cuda/kernel_util.h"
#include "cuda/kernels.h"
#include "cuda/loop_plan.h"
#include "runtime/defaults.h"

namespace ct::cuda {
namespace {

// A batch of matrices as cuBLAS reads it: pointer, transpose flag, leading dim, batch stride.
struct Operand {
  Tensor keep;  // a contiguous copy, when one was needed
  const void* data = nullptr;
  int trans = 0;
  int64_t ld = 1;
  int64_t batch_stride = 0;
};

// t: [rows, cols] (dim 2) or [batch, rows, cols] (dim 3), converted to dtype d when it differs.
Operand operand(const TensorImpl& t, DType d) {
  const size_t r = t.dim() - 2, c = t.dim() - 1;
  const int64_t rows = t.size(r), cols = t.size(c), s0 = t.stride(r), s1 = t.stride(c);
  Operand o;
  if (t.dtype() == d) {
    o.data = t.data();
    o.batch_stride = t.dim() == 3 ? t.stride(0) : 0;
    // Row-major: column-major it is the transpose the swapped product wants.
    if ((s1 == 1 || cols == 1) && (rows == 1 || s0 >= std::max<int64_t>(1, cols))) {
      o.trans = 0;
      o.ld = rows == 1 ? std::max<int64_t>(1, cols) : s0;
      return o;
    }
    // Column-major (a transposed view): read with the transpose flag.
    if ((s0 == 1 || rows == 1) && (cols == 1 || s1 >= std::max<int64_t>(1, rows))) {
      o.trans = 1;
      o.ld = cols == 1 ? std::max<int64_t>(1, rows) : s1;
      return o;
    }
  }
  o.keep = contiguous_as(t, d);
  o.data = o.keep->data();
  o.trans = 0;
  o.ld = std::max<int64_t>(1, cols);
  o.batch_stride = rows * cols;
  return o;
}

void check_dtype(const char* op, DType d) {
  if (!is_floating(d)) unsupported(op, d, "cuBLAS multiplies float16, bfloat16, float32 and float64 matrices");
}

// out (contiguous [batch,] m x n) = alpha * a b + beta * out, a [batch,] m x k, b [batch,] k x n.
void gemm(const char* op, const TensorImpl& a, const TensorImpl& b, double alpha, double beta, const TensorImpl& out,
          void* stream) {
  const DType d = out.dtype();
  const int64_t m = a.size(a.dim() - 2), k = a.size(a.dim() - 1), n = b.size(b.dim() - 1);
  const int64_t batch = out.dim() == 3 ? out.size(0) : 1;
  const Operand A = operand(a, d), B = operand(b, d);
  const bool tf32 = runtime::matmul_precision() != runtime::MatmulPrecision::Highest;
  check(driver().gemm_strided_batched(code(d), B.trans, A.trans, n, m, k, alpha, B.data, B.ld, B.batch_stride, A.data,
                                      A.ld, A.batch_stride, beta, out.data(), std::max<int64_t>(1, n), m * n, batch,
                                      tf32 ? 1 : 0, stream),
        op);
}

// mm(Tensor self, Tensor mat2), bmm(Tensor self, Tensor mat2)
void product_cuda(const Frame& f, const MetaResult& m, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  check_dtype(f.name(), m.compute);
  if (out.numel() == 0) return;
  void* stream = stream_for(out);
  const TensorImpl& a = f.tensor(0);
  if (a.size(a.dim() - 1) == 0) return fill(f.name(), out, Scalar(0), stream);  // an empty sum
  gemm(f.name(), a, f.tensor(1), 1.0, 0.0, out, stream);
}

// addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1): out = beta self +
// alpha mat1 mat2, self broadcast; beta 0 ignores self (NaN included), as on the cpu.
void addmm_cuda(const Frame& f, const MetaResult& m, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  check_dtype("addmm", m.compute);
  if (out.numel() == 0) return;
  void* stream = stream_for(out);
  const double beta = f.arg(3).to_double(), alpha = f.arg(4).to_double();
  if (beta == 0) {
    fill("addmm", out, Scalar(0), stream);
  } else {
    Tensor holder;
    copy_into("addmm", out, *on_device("addmm", f.tensor(0), out.device(), stream, holder), stream);
  }
  const TensorImpl& a = f.tensor(1);
  if (a.size(1) == 0) {  // no product: out = beta self
    if (beta == 0 || beta == 1) return;
    Tensor scale = empty_on({}, DType::Float64, out.device());
    fill("addmm", *scale, Scalar(beta), stream);
    const TensorImpl* in[2] = {&out, scale.impl()};
    const ct_cuda_loop loop = plan_loop("addmm", out, in, 2);
    check(driver().binary(CT_CUDA_BINARY_MUL, code(out.dtype()), code(out.dtype()), code(DType::Float64),
                          code(table_compute(out.dtype())), 1.0, out.data(), out.data(), scale->data(), &loop, stream),
          "addmm");
    return;
  }
  gemm("addmm", a, f.tensor(2), alpha, beta, out, stream);
}

}  // namespace

void register_blas_kernels(Registry& r) {
  set_cuda_compute(r, "mm", product_cuda);
  set_cuda_compute(r, "bmm", product_cuda);
  set_cuda_compute(r, "addmm", addmm_cuda);
}

}  // namespace ct::cuda
