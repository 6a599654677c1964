// scan.cu - cumsum, cumprod, cummax and cummin along the middle dim of a contiguous
// [outer, n, inner] input. One thread folds one (outer, inner) line in index order: the CPU's
// sequential fold (ops/reduce/scan.cpp), with its accumulation types, so the bits match it and
// never depend on the launch. Neighbouring threads take neighbouring inner positions, so the
// loads coalesce when inner > 1; a scan along the last dim (inner == 1) is one thread per row.
#include <cstdint>

#include "dtype.h"
#include "members.h"
#include "status.h"

namespace ct::cuda {
namespace {

constexpr int kThreads = 128;

template <typename C>
__device__ __forceinline__ bool is_nan(C x) {
  if constexpr (std::is_floating_point_v<C>) return x != x;
  else return false;
}

// A is the accumulation type: float64 for float32 and float64, float32 for the 16-bit floats,
// int64 (wrapping) for integers and bool.
template <typename A>
__global__ void __launch_bounds__(kThreads) cum_kernel(bool prod, const char* in, int dt_in, char* out, int dt_out,
                                                       int64_t n, int64_t inner, int64_t lines) {
  const int64_t u = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (u >= lines) return;
  const int64_t base = (u / inner) * n * inner + u % inner;
  const int isz_in = itemsize(dt_in), isz_out = itemsize(dt_out);
  A acc = prod ? A(1) : A(0);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t e = base + i * inner;
    A v;
    if constexpr (std::is_integral_v<A>) {
      v = load<A>(in + e * isz_in, dt_in);
      acc = static_cast<A>(prod ? static_cast<uint64_t>(acc) * static_cast<uint64_t>(v)
                                : static_cast<uint64_t>(acc) + static_cast<uint64_t>(v));
    } else {
      // The input's value in its own precision first (float32 stays float32 until widened).
      const bool narrow = dt_in == kF32 || dt_in == kF16 || dt_in == kBF16;
      v = narrow ? static_cast<A>(load<float>(in + e * isz_in, dt_in)) : static_cast<A>(load<double>(in + e * isz_in, dt_in));
      acc = prod ? acc * v : acc + v;
    }
    store<A>(out + e * isz_out, dt_out, acc);
  }
}

// V holds every value of the dtype exactly (float64, float32, int64).
template <typename V>
__global__ void __launch_bounds__(kThreads) cumext_kernel(bool max, const char* in, int dt, char* out,
                                                          int64_t* out_index, int64_t n, int64_t inner,
                                                          int64_t lines) {
  const int64_t u = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (u >= lines) return;
  const int64_t base = (u / inner) * n * inner + u % inner;
  const int isz = itemsize(dt);
  V best = V(0);
  int64_t at = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t e = base + i * inner;
    const V x = load<V>(in + e * isz, dt);
    bool take = i == 0;
    if (!take) take = is_nan(best) ? is_nan(x) : is_nan(x) || (max ? x >= best : x <= best);
    if (take) best = x, at = i;
    store<V>(out + e * isz, dt, best);
    out_index[e] = at;
  }
}

}  // namespace

int scan(int op, int dtype_out, int dtype_in, void* out, void* out_index, const void* in, int64_t outer, int64_t n,
         int64_t inner, void* stream) {
  CT_CUDA_ARG(op >= CT_CUDA_SCAN_CUMSUM && op <= CT_CUDA_SCAN_CUMMIN, "scan: unknown op code %d. Pass a ct_cuda_scan_op",
              op);
  static const char* const names[] = {"cumsum", "cumprod", "cummax", "cummin"};
  const char* name = names[op];
  CT_CUDA_ARG(valid_dtype(dtype_in) && valid_dtype(dtype_out), "scan: %s got dtype codes %d (in) and %d (out). Pass "
              "ct_dtype values", name, dtype_in, dtype_out);
  CT_CUDA_ARG(outer >= 0 && n >= 0 && inner >= 0, "scan: %s got the view [%lld, %lld, %lld]. Sizes must be >= 0",
              name, static_cast<long long>(outer), static_cast<long long>(n), static_cast<long long>(inner));
  const int64_t lines = outer * inner;
  if (lines == 0 || n == 0) return CT_CUDA_OK;
  CT_CUDA_ARG(in && out, "scan: %s got a NULL input or output", name);
  const unsigned grid = static_cast<unsigned>((lines + kThreads - 1) / kThreads);
  CT_CUDA_ARG((lines + kThreads - 1) / kThreads <= INT32_MAX, "scan: %s has too many lines (%lld). Split the call",
              name, static_cast<long long>(lines));
  const char* src = static_cast<const char*>(in);
  char* dst = static_cast<char*>(out);
  if (op == CT_CUDA_SCAN_CUMSUM || op == CT_CUDA_SCAN_CUMPROD) {
    CT_CUDA_ARG(dtype_out != kBool, "scan: %s cannot write bool. Pass an integer or floating dtype_out", name);
    const bool prod = op == CT_CUDA_SCAN_CUMPROD;
    if (dtype_out == kF32 || dtype_out == kF64)
      cum_kernel<double><<<grid, kThreads, 0, as_stream(stream)>>>(prod, src, dtype_in, dst, dtype_out, n, inner, lines);
    else if (is_floating(dtype_out))
      cum_kernel<float><<<grid, kThreads, 0, as_stream(stream)>>>(prod, src, dtype_in, dst, dtype_out, n, inner, lines);
    else
      cum_kernel<int64_t><<<grid, kThreads, 0, as_stream(stream)>>>(prod, src, dtype_in, dst, dtype_out, n, inner, lines);
    return check_launch("scan kernel launch");
  }
  CT_CUDA_ARG(dtype_out == dtype_in, "scan: %s writes the input's dtype, got %s in and %s out", name,
              dtype_name(dtype_in), dtype_name(dtype_out));
  CT_CUDA_ARG(out_index, "scan: %s needs out_index (int64 indices)", name);
  int64_t* idx = static_cast<int64_t*>(out_index);
  const bool max = op == CT_CUDA_SCAN_CUMMAX;
  if (dtype_in == kF64)
    cumext_kernel<double><<<grid, kThreads, 0, as_stream(stream)>>>(max, src, dtype_in, dst, idx, n, inner, lines);
  else if (is_floating(dtype_in))
    cumext_kernel<float><<<grid, kThreads, 0, as_stream(stream)>>>(max, src, dtype_in, dst, idx, n, inner, lines);
  else
    cumext_kernel<int64_t><<<grid, kThreads, 0, as_stream(stream)>>>(max, src, dtype_in, dst, idx, n, inner, lines);
  return check_launch("scan kernel launch");
}

}  // namespace ct::cuda
