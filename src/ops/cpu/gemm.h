// gemm.h - C = alpha * A @ B + beta * C on the CPU: OpenBLAS for float32/float64 and complex64/
// complex128, a blocked loop for every other dtype.
#pragma once

#include <cstdint>

#include "core/dtype.h"
#include "core/scalar.h"

namespace ct::cpu {

/// A matrix operand: base pointer and element strides of its two dims.
struct MatrixRef {
  const void* data;
  int64_t s0, s1;
};

/// True when BLAS can read a rows x cols matrix with these strides directly (row- or column-major
/// with a valid leading dimension); otherwise the caller passes a contiguous copy.
bool blas_readable(int64_t rows, int64_t cols, int64_t s0, int64_t s1);

/// C (m x n, row-major, leading dimension ldc) = alpha * A (m x k) @ B (k x n) + beta * C. When beta
/// is 0, C is not read. A and B must be blas_readable for float32/float64 and the complex dtypes.
void gemm(DType dtype, int64_t m, int64_t n, int64_t k, const Scalar& alpha, MatrixRef a, MatrixRef b,
          const Scalar& beta, void* c, int64_t ldc);

}  // namespace ct::cpu
