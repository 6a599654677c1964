// blas.cu - strided batched GEMM and batched triangular solves on cuBLAS.
//
// Note [cuBLAS handles and determinism]: cuBLAS gives the same bits for the same call on one GPU
// model when the handle, its stream binding and its workspace are fixed; a handle whose workspace
// comes from cuBLAS's internal pool can change algorithm per stream. So each (thread, device) gets
// its own handle with a 32 MiB workspace of its own, created on first use and bound to the call's
// stream each time. Handles are never destroyed (destroying them at exit races the driver's
// teardown); a thread that ends returns its handles to a pool that the next thread reuses
// (handle_pool.h).
#include <cublas_v2.h>

#include "dtype.h"
#include "handle_pool.h"
#include "status.h"

namespace ct::cuda {
namespace {

constexpr size_t kWorkspaceBytes = size_t{32} << 20;

const char* cublas_name(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    default: return "unknown cublasStatus_t";
  }
}

int check_cublas(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return 0;
  cudaGetLastError();
  const int code = s == CUBLAS_STATUS_ALLOC_FAILED ? CT_CUDA_ERR_OOM : CT_CUDA_ERR_CUBLAS;
  return fail(code, "%s failed: %s (%d)", what, cublas_name(s), static_cast<int>(s));
}

#define CT_CUBLAS_TRY(call)                                       \
  do {                                                            \
    if (const int st_ = check_cublas((call), #call)) return st_; \
  } while (0)

// The calling thread's handle for the current device, with its own workspace.
int handle_for_current_device(cublasHandle_t* out) {
  return HandlePool<cublasHandle_t>::get(out, [](cublasHandle_t* made) {
    void* workspace = nullptr;
    CT_CUDA_TRY(cudaMalloc(&workspace, kWorkspaceBytes));
    cublasHandle_t h = nullptr;
    int st = check_cublas(cublasCreate(&h), "cublasCreate");
    if (!st) st = check_cublas(cublasSetWorkspace(h, workspace, kWorkspaceBytes), "cublasSetWorkspace");
    // fp32 accumulation for 16-bit inputs is promised: no reduced-precision split-K reductions.
    if (!st) st = check_cublas(cublasSetMathMode(h, CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION),
                               "cublasSetMathMode");
    if (st) {
      if (h) cublasDestroy(h);
      cudaFree(workspace);
      return st;
    }
    *made = h;
    return 0;
  });
}

}  // namespace

int gemm_strided_batched(int dtype, int transa, int transb, int64_t m, int64_t n, int64_t k, double alpha,
                         const void* A, int64_t lda, int64_t strideA, const void* B, int64_t ldb, int64_t strideB,
                         double beta, void* C, int64_t ldc, int64_t strideC, int64_t batch, int allow_tf32,
                         void* stream) {
  CT_CUDA_ARG(m >= 0 && n >= 0 && k >= 0 && batch >= 0, "gemm_strided_batched: negative size (m %lld, n %lld, "
              "k %lld, batch %lld)", (long long)m, (long long)n, (long long)k, (long long)batch);
  CT_CUDA_ARG(m <= INT32_MAX && n <= INT32_MAX && k <= INT32_MAX && batch <= INT32_MAX && lda <= INT32_MAX &&
              ldb <= INT32_MAX && ldc <= INT32_MAX, "gemm_strided_batched: a size or leading dimension exceeds "
              "2^31 - 1. Split the call");
  if (m == 0 || n == 0 || batch == 0) return 0;
  cudaDataType_t type;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  switch (dtype) {
    case kF32: type = CUDA_R_32F; compute = allow_tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F; break;
    case kF64: type = CUDA_R_64F; compute = CUBLAS_COMPUTE_64F; break;
    case kF16: type = CUDA_R_16F; break;
    case kBF16: type = CUDA_R_16BF; break;
    default:
      return fail(CT_CUDA_ERR_UNSUPPORTED, "gemm_strided_batched: no cuBLAS kernel for %s. Use float16, bfloat16, "
                  "float32 or float64", dtype_name(dtype));
  }
  cublasHandle_t h = nullptr;
  if (const int st = handle_for_current_device(&h)) return st;
  CT_CUBLAS_TRY(cublasSetStream(h, as_stream(stream)));
  // alpha and beta in the compute type, read from host memory.
  const float af = static_cast<float>(alpha), bf = static_cast<float>(beta);
  const void* pa = compute == CUBLAS_COMPUTE_64F ? static_cast<const void*>(&alpha) : &af;
  const void* pb = compute == CUBLAS_COMPUTE_64F ? static_cast<const void*>(&beta) : &bf;
  CT_CUBLAS_TRY(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  CT_CUBLAS_TRY(cublasGemmStridedBatchedEx(
      h, transa ? CUBLAS_OP_T : CUBLAS_OP_N, transb ? CUBLAS_OP_T : CUBLAS_OP_N, static_cast<int>(m),
      static_cast<int>(n), static_cast<int>(k), pa, A, type, static_cast<int>(lda), strideA, B, type,
      static_cast<int>(ldb), strideB, pb, C, type, static_cast<int>(ldc), strideC, static_cast<int>(batch), compute,
      CUBLAS_GEMM_DEFAULT));
  return 0;
}

namespace {
cublasStatus_t trsm_one(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t op,
                        cublasDiagType_t diag, int m, int n, const float* a, int lda, float* b, int ldb) {
  const float one = 1;
  return cublasStrsm(h, side, uplo, op, diag, m, n, &one, a, lda, b, ldb);
}
cublasStatus_t trsm_one(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t op,
                        cublasDiagType_t diag, int m, int n, const double* a, int lda, double* b, int ldb) {
  const double one = 1;
  return cublasDtrsm(h, side, uplo, op, diag, m, n, &one, a, lda, b, ldb);
}

template <typename T>
int trsm_batch(int left, int upper, int trans, int unit, int m, int n, const void* A, int64_t strideA, void* B,
               int64_t strideB, int64_t batch, void* stream) {
  cublasHandle_t h = nullptr;
  if (const int st = handle_for_current_device(&h)) return st;
  CT_CUBLAS_TRY(cublasSetStream(h, as_stream(stream)));
  CT_CUBLAS_TRY(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  const int na = left ? m : n;
  for (int64_t i = 0; i < batch; ++i)
    CT_CUBLAS_TRY(trsm_one(h, left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT, upper ? CUBLAS_FILL_MODE_UPPER
                           : CUBLAS_FILL_MODE_LOWER, trans ? CUBLAS_OP_T : CUBLAS_OP_N,
                           unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, m, n, static_cast<const T*>(A) + i * strideA,
                           na > 0 ? na : 1, static_cast<T*>(B) + i * strideB, m > 0 ? m : 1));
  return 0;
}
}  // namespace

int trsm(int dtype, int left, int upper, int trans, int unit, int64_t m, int64_t n, const void* A, int64_t strideA,
         void* B, int64_t strideB, int64_t batch, void* stream) {
  CT_CUDA_ARG(m >= 0 && n >= 0 && batch >= 0, "trsm: negative size (m %lld, n %lld, batch %lld)", (long long)m,
              (long long)n, (long long)batch);
  CT_CUDA_ARG(m <= INT32_MAX && n <= INT32_MAX, "trsm: a size exceeds 2^31 - 1 (m %lld, n %lld)", (long long)m,
              (long long)n);
  if (m == 0 || n == 0 || batch == 0) return 0;
  switch (dtype) {
    case kF32:
      return trsm_batch<float>(left, upper, trans, unit, int(m), int(n), A, strideA, B, strideB, batch, stream);
    case kF64:
      return trsm_batch<double>(left, upper, trans, unit, int(m), int(n), A, strideA, B, strideB, batch, stream);
    default:
      return fail(CT_CUDA_ERR_UNSUPPORTED, "trsm: no cuBLAS kernel for %s. Use float32 or float64", dtype_name(dtype));
  }
}

}  // namespace ct::cuda
