// solver.cu - LAPACK's factorizations on cuSOLVER's dense routines (ct_cuda_solver), one matrix of
// a batch after another on the call's stream.
//
// One cuSOLVER handle per (thread, device) (handle_pool.h), in CUSOLVER_DETERMINISTIC_RESULTS mode,
// bound to the call's stream each time. The workspace is the caller's (ctorch's caching allocator):
// solver_workspace sizes it for the largest need of one matrix, and the matrices reuse it in turn.
#include <cusolverDn.h>

#include <vector>

#include "dtype.h"
#include "handle_pool.h"
#include "status.h"

namespace ct::cuda {
namespace {

const char* cusolver_name(cusolverStatus_t s) {
  switch (s) {
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    case CUSOLVER_STATUS_INVALID_WORKSPACE: return "CUSOLVER_STATUS_INVALID_WORKSPACE";
    default: return "cusolverStatus_t";
  }
}

int check_cusolver(cusolverStatus_t s, const char* what) {
  if (s == CUSOLVER_STATUS_SUCCESS) return 0;
  cudaGetLastError();
  const int code = s == CUSOLVER_STATUS_ALLOC_FAILED ? CT_CUDA_ERR_OOM : CT_CUDA_ERR_CUSOLVER;
  return fail(code, "%s failed: %s (%d)", what, cusolver_name(s), static_cast<int>(s));
}

#define CT_CUSOLVER_TRY(call)                                       \
  do {                                                              \
    if (const int st_ = check_cusolver((call), #call)) return st_; \
  } while (0)

int handle_for_current_device(cusolverDnHandle_t* out) {
  return HandlePool<cusolverDnHandle_t>::get(out, [](cusolverDnHandle_t* made) {
    cusolverDnHandle_t h = nullptr;
    int st = check_cusolver(cusolverDnCreate(&h), "cusolverDnCreate");
    if (!st)
      st = check_cusolver(cusolverDnSetDeterministicMode(h, CUSOLVER_DETERMINISTIC_RESULTS),
                          "cusolverDnSetDeterministicMode");
    if (st) {
      if (h) cusolverDnDestroy(h);
      return st;
    }
    *made = h;
    return 0;
  });
}

// The routines in one spelling for float (S) and double (D). ld is each matrix's row count.
#define CT_SOLVER_ROUTINES(T, X)                                                                                   \
  cusolverStatus_t getrf_size(cusolverDnHandle_t h, int m, int n, T* a, int* lwork) {                             \
    return cusolverDn##X##getrf_bufferSize(h, m, n, a, m, lwork);                                                 \
  }                                                                                                               \
  cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, T* a, T* work, int* ipiv, int* info) {               \
    return cusolverDn##X##getrf(h, m, n, a, m, work, ipiv, info);                                                 \
  }                                                                                                               \
  cusolverStatus_t getrs(cusolverDnHandle_t h, bool trans, int n, int k, const T* a, const int* ipiv, T* b,       \
                         int* info) {                                                                             \
    return cusolverDn##X##getrs(h, trans ? CUBLAS_OP_T : CUBLAS_OP_N, n, k, a, n, ipiv, b, n, info);              \
  }                                                                                                               \
  cusolverStatus_t potrf_size(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, T* a, int* lwork) {             \
    return cusolverDn##X##potrf_bufferSize(h, uplo, n, a, n, lwork);                                              \
  }                                                                                                               \
  cusolverStatus_t potrf(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, T* a, T* work, int lwork,            \
                         int* info) {                                                                             \
    return cusolverDn##X##potrf(h, uplo, n, a, n, work, lwork, info);                                             \
  }                                                                                                               \
  cusolverStatus_t syevd_size(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, const T* a, const T* w,         \
                              int* lwork) {                                                                       \
    return cusolverDn##X##syevd_bufferSize(h, CUSOLVER_EIG_MODE_VECTOR, uplo, n, a, n, w, lwork);                 \
  }                                                                                                               \
  cusolverStatus_t syevd(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, T* a, T* w, T* work, int lwork,      \
                         int* info) {                                                                             \
    return cusolverDn##X##syevd(h, CUSOLVER_EIG_MODE_VECTOR, uplo, n, a, n, w, work, lwork, info);                \
  }                                                                                                               \
  cusolverStatus_t gesvd_size(cusolverDnHandle_t h, int m, int n, const T*, int* lwork) {                         \
    return cusolverDn##X##gesvd_bufferSize(h, m, n, lwork);                                                       \
  }                                                                                                               \
  cusolverStatus_t gesvd(cusolverDnHandle_t h, bool full, int m, int n, T* a, T* s, T* u, T* vt, T* work,         \
                         int lwork, T* rwork, int* info) {                                                        \
    return cusolverDn##X##gesvd(h, full ? 'A' : 'S', 'A', m, n, a, m, s, u, m, vt, n, work, lwork, rwork, info);  \
  }                                                                                                               \
  cusolverStatus_t geqrf_size(cusolverDnHandle_t h, int m, int n, T* a, int* lwork) {                             \
    return cusolverDn##X##geqrf_bufferSize(h, m, n, a, m, lwork);                                                 \
  }                                                                                                               \
  cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, T* a, T* tau, T* work, int lwork, int* info) {       \
    return cusolverDn##X##geqrf(h, m, n, a, m, tau, work, lwork, info);                                           \
  }                                                                                                               \
  cusolverStatus_t orgqr_size(cusolverDnHandle_t h, int m, int n, int k, const T* a, const T* tau, int* lwork) {  \
    return cusolverDn##X##orgqr_bufferSize(h, m, n, k, a, m, tau, lwork);                                         \
  }                                                                                                               \
  cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int n, int k, T* a, const T* tau, T* work, int lwork,       \
                         int* info) {                                                                             \
    return cusolverDn##X##orgqr(h, m, n, k, a, m, tau, work, lwork, info);                                        \
  }                                                                                                               \
  cusolverStatus_t sytrf_size(cusolverDnHandle_t h, int n, T* a, int* lwork) {                                    \
    return cusolverDn##X##sytrf_bufferSize(h, n, a, n, lwork);                                                    \
  }                                                                                                               \
  cusolverStatus_t sytrf(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, T* a, int* ipiv, T* work, int lwork, \
                         int* info) {                                                                             \
    return cusolverDn##X##sytrf(h, uplo, n, a, n, ipiv, work, lwork, info);                                       \
  }

CT_SOLVER_ROUTINES(float, S)
CT_SOLVER_ROUTINES(double, D)
#undef CT_SOLVER_ROUTINES

cublasFillMode_t fill_mode(const ct_cuda_solver& s) {
  return s.upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
}

// Note [SYTRS's pivots]
// cuSOLVER's sytrs exists only in its 64-bit form (Xsytrs), which reads int64 pivots, while sytrf
// writes int32 ones (LAPACK's). Each solve first widens its matrix's pivots into the front of the
// workspace; Xsytrs's own device buffer follows them.
template <typename T> constexpr cudaDataType data_type();
template <> constexpr cudaDataType data_type<float>() { return CUDA_R_32F; }
template <> constexpr cudaDataType data_type<double>() { return CUDA_R_64F; }

__global__ void widen_pivots(const int32_t* in, int64_t* out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

// The elements of T that `bytes` take at the front of the workspace, rounded up to 256 bytes, so
// that the cuSOLVER buffer after them starts as aligned as the workspace itself.
template <typename T>
int64_t prefix_elements(int64_t bytes) {
  return (bytes + 255) / 256 * 256 / static_cast<int64_t>(sizeof(T));
}

template <typename T> constexpr cudaDataType complex_data_type();
template <> constexpr cudaDataType complex_data_type<float>() { return CUDA_C_32F; }
template <> constexpr cudaDataType complex_data_type<double>() { return CUDA_C_64F; }

// Note [GEEV's eigenvectors]
// For a real matrix, Xgeev returns complex eigenvalues but real eigenvectors in LAPACK's packing: a
// conjugate pair of eigenvalues (the one with the positive imaginary part first) owns two columns,
// the real and the imaginary part of the first one's vector; the second one's is its conjugate.
// The real columns go to the workspace, and unpack_eigenvectors writes the complex vectors.
template <typename T>
__global__ void unpack_eigenvectors(const T* vr, const T* w, T* v, int64_t n) {
  const int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= n * n) return;
  const int64_t col = e / n, row = e % n;
  const T im = w[2 * col + 1];
  T re_part = vr[e], im_part = 0;
  if (im > 0 && col + 1 < n) {
    im_part = vr[row + (col + 1) * n];
  } else if (im < 0 && col > 0) {
    re_part = vr[row + (col - 1) * n];
    im_part = -vr[e];
  }
  v[2 * e] = re_part;
  v[2 * e + 1] = im_part;
}

// Xgeev's device and host buffer sizes for s, in bytes.
template <typename T>
int geev_buffers(cusolverDnHandle_t h, cusolverDnParams_t params, const ct_cuda_solver& s, size_t* device,
                 size_t* host) {
  const cusolverEigMode_t vectors = s.c ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  CT_CUSOLVER_TRY(cusolverDnXgeev_bufferSize(h, params, CUSOLVER_EIG_MODE_NOVECTOR, vectors, s.n, data_type<T>(), s.a,
                                             s.n, complex_data_type<T>(), s.w, data_type<T>(), nullptr, s.n,
                                             data_type<T>(), nullptr, s.n, data_type<T>(), device, host));
  return 0;
}

// The parameters object Xgeev takes (defaults), destroyed with the scope.
struct GeevParams {
  cusolverDnParams_t p = nullptr;
  int make() { return check_cusolver(cusolverDnCreateParams(&p), "cusolverDnCreateParams"); }
  ~GeevParams() {
    if (p) cusolverDnDestroyParams(p);
  }
};

// Xsytrs's device and host buffer sizes for s, in bytes.
template <typename T>
int sytrs_buffers(cusolverDnHandle_t h, const ct_cuda_solver& s, size_t* device, size_t* host) {
  CT_CUSOLVER_TRY(cusolverDnXsytrs_bufferSize(h, fill_mode(s), s.n, s.k, data_type<T>(), s.a, s.n, nullptr,
                                              data_type<T>(), s.b, s.n, device, host));
  return 0;
}

int check_args(const ct_cuda_solver& s) {
  CT_CUDA_ARG(s.m >= 0 && s.n >= 0 && s.k >= 0 && s.batch >= 0, "solver: negative size (m %lld, n %lld, k %lld, "
              "batch %lld)", (long long)s.m, (long long)s.n, (long long)s.k, (long long)s.batch);
  // cuSOLVER's dense routines take int sizes, and the largest matrix holds m n elements.
  CT_CUDA_ARG(s.m * s.n <= INT32_MAX && s.n * s.k <= INT32_MAX && s.m * s.m <= INT32_MAX, "solver: a matrix of the "
              "call (m %lld, n %lld, k %lld) has 2^31 elements or more, more than cuSOLVER's 32-bit routines index",
              (long long)s.m, (long long)s.n, (long long)s.k);
  CT_CUDA_ARG(s.op >= CT_CUDA_SOLVER_GETRF && s.op <= CT_CUDA_SOLVER_GEEV, "solver: unknown op %d", s.op);
  CT_CUDA_ARG((s.op != CT_CUDA_SOLVER_SYTRF && s.op != CT_CUDA_SOLVER_SYTRS && s.op != CT_CUDA_SOLVER_GEEV) ||
              s.m == s.n, "solver: SYTRF, SYTRS and GEEV take square matrices (m %lld, n %lld)", (long long)s.m,
              (long long)s.n);
  CT_CUDA_ARG(s.op != CT_CUDA_SOLVER_GESVD || s.m >= s.n, "solver: GESVD needs m >= n (m %lld, n %lld); factor the "
              "transpose", (long long)s.m, (long long)s.n);
  CT_CUDA_ARG(s.op != CT_CUDA_SOLVER_ORGQR || (s.m >= s.n && s.n >= s.k), "solver: ORGQR needs m >= n >= k (m %lld, "
              "n %lld, k %lld)", (long long)s.m, (long long)s.n, (long long)s.k);
  return 0;
}

// What one matrix of s needs: lwork elements of T (and, for GESVD, n more for rwork).
template <typename T>
int work_elements(cusolverDnHandle_t h, const ct_cuda_solver& s, int64_t* elements) {
  const int m = static_cast<int>(s.m), n = static_cast<int>(s.n), k = static_cast<int>(s.k);
  T* a = static_cast<T*>(s.a);
  T* w = static_cast<T*>(s.w);
  int lwork = 0;
  switch (s.op) {
    case CT_CUDA_SOLVER_GETRF: CT_CUSOLVER_TRY(getrf_size(h, m, n, a, &lwork)); break;
    case CT_CUDA_SOLVER_GETRS: break;
    case CT_CUDA_SOLVER_POTRF: CT_CUSOLVER_TRY(potrf_size(h, fill_mode(s), n, a, &lwork)); break;
    case CT_CUDA_SOLVER_SYEVD: CT_CUSOLVER_TRY(syevd_size(h, fill_mode(s), n, a, w, &lwork)); break;
    case CT_CUDA_SOLVER_GESVD: CT_CUSOLVER_TRY(gesvd_size(h, m, n, a, &lwork)); lwork += n; break;
    case CT_CUDA_SOLVER_GEQRF: CT_CUSOLVER_TRY(geqrf_size(h, m, n, a, &lwork)); break;
    case CT_CUDA_SOLVER_ORGQR: CT_CUSOLVER_TRY(orgqr_size(h, m, n, k, a, w, &lwork)); break;
    case CT_CUDA_SOLVER_SYTRF: CT_CUSOLVER_TRY(sytrf_size(h, n, a, &lwork)); break;
    case CT_CUDA_SOLVER_SYTRS: {  // Note [SYTRS's pivots]
      size_t device = 0, host = 0;
      if (const int st = sytrs_buffers<T>(h, s, &device, &host)) return st;
      *elements = prefix_elements<T>(s.n * 8) + static_cast<int64_t>((device + sizeof(T) - 1) / sizeof(T));
      return 0;
    }
    case CT_CUDA_SOLVER_GEEV: {  // Note [GEEV's eigenvectors]: the real columns, then Xgeev's buffer
      GeevParams params;
      if (const int st = params.make()) return st;
      size_t device = 0, host = 0;
      if (const int st = geev_buffers<T>(h, params.p, s, &device, &host)) return st;
      *elements = prefix_elements<T>(s.c ? s.n * s.n * static_cast<int64_t>(sizeof(T)) : 0) +
                  static_cast<int64_t>((device + sizeof(T) - 1) / sizeof(T));
      return 0;
    }
  }
  *elements = lwork;
  return 0;
}

// The eigenvalues, and the eigenvectors when s.c is set, of matrix i of s (Note [GEEV's
// eigenvectors]); the workspace holds work_elements' elements.
template <typename T>
int geev_one(cusolverDnHandle_t h, const ct_cuda_solver& s, int64_t i, void* workspace) {
  GeevParams params;
  if (const int st = params.make()) return st;
  size_t device = 0, host = 0;
  if (const int st = geev_buffers<T>(h, params.p, s, &device, &host)) return st;
  cudaStream_t stream = nullptr;
  CT_CUSOLVER_TRY(cusolverDnGetStream(h, &stream));
  const int64_t n = s.n;
  T* vr = s.c ? static_cast<T*>(workspace) : nullptr;
  const int64_t staged = prefix_elements<T>(s.c ? n * n * static_cast<int64_t>(sizeof(T)) : 0);
  char* buffer = static_cast<char*>(workspace) + staged * static_cast<int64_t>(sizeof(T));
  std::vector<char> on_host(host);
  T* a = static_cast<T*>(s.a) + i * n * n;
  T* w = static_cast<T*>(s.w) + i * 2 * n;
  const cusolverEigMode_t vectors = s.c ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  CT_CUSOLVER_TRY(cusolverDnXgeev(h, params.p, CUSOLVER_EIG_MODE_NOVECTOR, vectors, n, data_type<T>(), a, n,
                                  complex_data_type<T>(), w, data_type<T>(), nullptr, n, data_type<T>(), vr, n,
                                  data_type<T>(), device ? buffer : nullptr, device, host ? on_host.data() : nullptr,
                                  host, s.info + i));
  if (!s.c) return 0;
  const int blocks = static_cast<int>((n * n + 255) / 256);
  unpack_eigenvectors<T><<<blocks, 256, 0, stream>>>(vr, w, static_cast<T*>(s.c) + i * 2 * n * n, n);
  return check_launch("unpack_eigenvectors");
}

// Solves with matrix i of s (Note [SYTRS's pivots]); the workspace holds work_elements' elements.
template <typename T>
int sytrs_one(cusolverDnHandle_t h, const ct_cuda_solver& s, int64_t i, void* workspace) {
  size_t device = 0, host = 0;
  if (const int st = sytrs_buffers<T>(h, s, &device, &host)) return st;
  cudaStream_t stream = nullptr;
  CT_CUSOLVER_TRY(cusolverDnGetStream(h, &stream));
  int64_t* wide = static_cast<int64_t*>(workspace);
  const int blocks = static_cast<int>((s.n + 255) / 256);
  widen_pivots<<<blocks, 256, 0, stream>>>(s.ipiv + i * s.n, wide, s.n);
  if (const int st = check_launch("widen_pivots")) return st;
  char* buffer = static_cast<char*>(workspace) + prefix_elements<T>(s.n * 8) * static_cast<int64_t>(sizeof(T));
  std::vector<char> on_host(host);
  T* a = static_cast<T*>(s.a) + i * s.n * s.n;
  T* b = static_cast<T*>(s.b) + i * s.n * s.k;
  CT_CUSOLVER_TRY(cusolverDnXsytrs(h, fill_mode(s), s.n, s.k, data_type<T>(), a, s.n, wide, data_type<T>(), b, s.n,
                                   device ? buffer : nullptr, device, host ? on_host.data() : nullptr, host,
                                   s.info + i));
  return 0;
}

template <typename T>
int run(cusolverDnHandle_t h, const ct_cuda_solver& s, void* workspace, size_t workspace_bytes) {
  int64_t elements = 0;
  if (const int st = work_elements<T>(h, s, &elements)) return st;
  CT_CUDA_ARG(workspace_bytes >= static_cast<size_t>(elements) * sizeof(T), "solver: the workspace has %zu bytes, "
              "fewer than the %zu solver_workspace asked for", workspace_bytes,
              static_cast<size_t>(elements) * sizeof(T));
  const int m = static_cast<int>(s.m), n = static_cast<int>(s.n), k = static_cast<int>(s.k);
  const int mn = m < n ? m : n;
  T* work = static_cast<T*>(workspace);
  const int lwork = static_cast<int>(s.op == CT_CUDA_SOLVER_GESVD ? elements - n : elements);
  T* a = static_cast<T*>(s.a);
  T* b = static_cast<T*>(s.b);
  T* c = static_cast<T*>(s.c);
  T* w = static_cast<T*>(s.w);
  for (int64_t i = 0; i < s.batch; ++i) {
    int* info = s.info + i;
    switch (s.op) {
      case CT_CUDA_SOLVER_GETRF:
        CT_CUSOLVER_TRY(getrf(h, m, n, a + i * m * n, work, s.ipiv + i * mn, info));
        break;
      case CT_CUDA_SOLVER_GETRS:
        CT_CUSOLVER_TRY(getrs(h, s.trans != 0, n, k, a + i * n * n, s.ipiv + i * n, b + i * n * k, info));
        break;
      case CT_CUDA_SOLVER_POTRF:
        CT_CUSOLVER_TRY(potrf(h, fill_mode(s), n, a + i * n * n, work, lwork, info));
        break;
      case CT_CUDA_SOLVER_SYEVD:
        CT_CUSOLVER_TRY(syevd(h, fill_mode(s), n, a + i * n * n, w + i * n, work, lwork, info));
        break;
      case CT_CUDA_SOLVER_GESVD: {
        const int64_t ucols = s.full ? m : n;
        CT_CUSOLVER_TRY(gesvd(h, s.full != 0, m, n, a + i * m * n, w + i * n, b + i * m * ucols, c + i * n * n, work,
                              lwork, work + lwork, info));
        break;
      }
      case CT_CUDA_SOLVER_GEQRF:
        CT_CUSOLVER_TRY(geqrf(h, m, n, a + i * m * n, w + i * mn, work, lwork, info));
        break;
      case CT_CUDA_SOLVER_ORGQR:
        CT_CUSOLVER_TRY(orgqr(h, m, n, k, a + i * m * n, w + i * k, work, lwork, info));
        break;
      case CT_CUDA_SOLVER_SYTRF:
        CT_CUSOLVER_TRY(sytrf(h, fill_mode(s), n, a + i * n * n, s.ipiv + i * n, work, lwork, info));
        break;
      case CT_CUDA_SOLVER_SYTRS:
        if (const int st = sytrs_one<T>(h, s, i, workspace)) return st;
        break;
      case CT_CUDA_SOLVER_GEEV:
        if (const int st = geev_one<T>(h, s, i, workspace)) return st;
        break;
    }
  }
  return 0;
}

int bind(void* stream, cusolverDnHandle_t* h) {
  if (const int st = handle_for_current_device(h)) return st;
  return check_cusolver(cusolverDnSetStream(*h, as_stream(stream)), "cusolverDnSetStream");
}

// An empty batch, matrix or right-hand side: no routine runs.
bool nothing_to_do(const ct_cuda_solver& s) {
  const bool solve = s.op == CT_CUDA_SOLVER_GETRS || s.op == CT_CUDA_SOLVER_SYTRS;
  return s.batch == 0 || s.m == 0 || s.n == 0 || (solve && s.k == 0);
}

}  // namespace

int solver_workspace(const ct_cuda_solver* args, size_t* bytes) {
  CT_CUDA_ARG(args && bytes, "solver_workspace: NULL args or bytes");
  if (const int st = check_args(*args)) return st;
  if (nothing_to_do(*args)) return *bytes = 0, 0;
  cusolverDnHandle_t h = nullptr;
  if (const int st = handle_for_current_device(&h)) return st;
  int64_t elements = 0;
  switch (args->dtype) {
    case kF32:
      if (const int st = work_elements<float>(h, *args, &elements)) return st;
      *bytes = static_cast<size_t>(elements) * sizeof(float);
      return 0;
    case kF64:
      if (const int st = work_elements<double>(h, *args, &elements)) return st;
      *bytes = static_cast<size_t>(elements) * sizeof(double);
      return 0;
    default:
      return fail(CT_CUDA_ERR_UNSUPPORTED, "solver: no cuSOLVER routine for %s. Use float32 or float64",
                  dtype_name(args->dtype));
  }
}

int solver(const ct_cuda_solver* args, void* workspace, size_t workspace_bytes, void* stream) {
  CT_CUDA_ARG(args, "solver: NULL args");
  if (const int st = check_args(*args)) return st;
  if (nothing_to_do(*args)) return 0;
  cusolverDnHandle_t h = nullptr;
  switch (args->dtype) {
    case kF32:
      if (const int st = bind(stream, &h)) return st;
      return run<float>(h, *args, workspace, workspace_bytes);
    case kF64:
      if (const int st = bind(stream, &h)) return st;
      return run<double>(h, *args, workspace, workspace_bytes);
    default:
      return fail(CT_CUDA_ERR_UNSUPPORTED, "solver: no cuSOLVER routine for %s. Use float32 or float64",
                  dtype_name(args->dtype));
  }
}

}  // namespace ct::cuda
