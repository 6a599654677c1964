// factory.cu - index_fill: arange, linspace and eye, each element a function of its index computed
// in float64 and converted once, as ctorch's CPU factories (ops/creation/factories.cpp). Compiled
// with --fmad=false, so start + i * step rounds twice, as on the CPU.
#include <cstdint>

#include "dtype.h"
#include "members.h"
#include "status.h"

namespace ct::cuda {
namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) index_fill_kernel(int op, int dt, double a, double b, int64_t cols,
                                                              char* out, int64_t n) {
  const int isz = itemsize(dt);
  const double step = op == CT_CUDA_INDEX_FILL_LINSPACE && n > 1 ? (b - a) / static_cast<double>(n - 1) : 0.0;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    double v;
    if (op == CT_CUDA_INDEX_FILL_ARANGE) v = a + static_cast<double>(i) * b;
    else if (op == CT_CUDA_INDEX_FILL_LINSPACE)  // the second half counts back from the end: both ends exact
      v = n == 1 || i < n / 2 ? a + step * static_cast<double>(i) : b - step * static_cast<double>(n - 1 - i);
    else v = i / cols == i % cols ? 1.0 : 0.0;
    store<double>(out + i * isz, dt, v);
  }
}

}  // namespace

int index_fill(int op, int dtype, double a, double b, int64_t cols, void* out, int64_t numel, void* stream) {
  CT_CUDA_ARG(op >= CT_CUDA_INDEX_FILL_ARANGE && op <= CT_CUDA_INDEX_FILL_EYE,
              "index_fill: unknown op code %d. Pass a ct_cuda_index_fill_op", op);
  CT_CUDA_ARG(valid_dtype(dtype), "index_fill: dtype code %d. Pass a ct_dtype", dtype);
  CT_CUDA_ARG(numel >= 0, "index_fill: numel is %lld. Pass numel >= 0", static_cast<long long>(numel));
  if (numel == 0) return CT_CUDA_OK;
  CT_CUDA_ARG(out, "index_fill: out is NULL");
  CT_CUDA_ARG(op != CT_CUDA_INDEX_FILL_EYE || cols >= 1, "index_fill: eye needs cols >= 1, got %lld",
              static_cast<long long>(cols));
  const int64_t blocks = (numel + kThreads - 1) / kThreads;
  const unsigned grid = static_cast<unsigned>(blocks < (1 << 20) ? blocks : (1 << 20));
  index_fill_kernel<<<grid, kThreads, 0, as_stream(stream)>>>(op, dtype, a, b, cols, static_cast<char*>(out), numel);
  return check_launch("index_fill kernel launch");
}

}  // namespace ct::cuda
