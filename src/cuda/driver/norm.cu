// norm.cu - softmax / log_softmax and layer_norm forward and backward over the last dim of a
// contiguous [rows, cols] view: one block per row, each row statistic by the fixed tree of
// block_reduce.h, so results depend on the shape only (no atomics).
#include <cmath>
#include <cstdint>

#include "block_reduce.h"
#include "device_math.h"
#include "dtype.h"
#include "status.h"

namespace ct::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kChunkRows = 64;  // layer_norm_backward's first stage: see the header

template <typename V>
struct Pair {
  V a, b;
};

template <typename V>
__device__ V row_sum(V v, V* sh) {
  return tree_reduce(v, sh, 0, threadIdx.x, 1, kThreads, [](V x, V y) { return x + y; });
}

template <typename V>
__global__ void __launch_bounds__(kThreads) softmax_kernel(const char* in, int dt_in, char* out, int dt_out,
                                                           int64_t cols, bool log) {
  V* sh = shared_as<V>();
  const int isz_in = itemsize(dt_in), isz_out = itemsize(dt_out);
  const char* x = in + static_cast<int64_t>(blockIdx.x) * cols * isz_in;
  char* y = out + static_cast<int64_t>(blockIdx.x) * cols * isz_out;
  V m = -INFINITY;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) {
    const V v = load<V>(x + c * isz_in, dt_in);
    m = dm::is_nan(m) || m > v ? m : v;  // NaN propagates
  }
  m = tree_reduce(m, sh, 0, threadIdx.x, 1, kThreads, [](V p, V q) { return dm::is_nan(p) || p > q ? p : q; });
  V s = 0;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) s += dm::exp(load<V>(x + c * isz_in, dt_in) - m);
  s = row_sum(s, sh);
  const V log_s = dm::log(s);
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) {
    const V d = load<V>(x + c * isz_in, dt_in) - m;
    store<V>(y + c * isz_out, dt_out, log ? d - log_s : dm::exp(d) / s);
  }
}

template <typename V>
__global__ void __launch_bounds__(kThreads) layer_norm_kernel(const char* x, int dt, char* y, V* mean_out,
                                                              V* rstd_out, const char* w, const char* b,
                                                              int64_t cols, V eps) {
  V* sh = shared_as<V>();
  const int isz = itemsize(dt);
  const int64_t row = blockIdx.x;
  const char* xr = x + row * cols * isz;
  char* yr = y + row * cols * isz;
  V s = 0;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) s += load<V>(xr + c * isz, dt);
  const V mean = row_sum(s, sh) / static_cast<V>(cols);
  V q = 0;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) {
    const V d = load<V>(xr + c * isz, dt) - mean;
    q += d * d;
  }
  const V var = row_sum(q, sh) / static_cast<V>(cols);
  const V rstd = V(1) / dm::sqrt(var + eps);
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) {
    V v = (load<V>(xr + c * isz, dt) - mean) * rstd;
    if (w) v = v * load<V>(w + c * isz, dt);
    if (b) v = v + load<V>(b + c * isz, dt);
    store<V>(yr + c * isz, dt, v);
  }
  if (threadIdx.x == 0) {
    if (mean_out) mean_out[row] = mean;
    if (rstd_out) rstd_out[row] = rstd;
  }
}

// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dy * weight, xhat = (x - mean) * rstd.
template <typename V>
__global__ void __launch_bounds__(kThreads) layer_norm_dx_kernel(const char* dy, const char* x, const V* mean,
                                                                 const V* rstd, const char* w, char* dx, int dt,
                                                                 int64_t cols) {
  Pair<V>* sh = shared_as<Pair<V>>();
  const int isz = itemsize(dt);
  const int64_t row = blockIdx.x, base = row * cols * isz;
  const V mu = mean[row], rs = rstd[row];
  Pair<V> acc{0, 0};
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) {
    V g = load<V>(dy + base + c * isz, dt);
    if (w) g = g * load<V>(w + c * isz, dt);
    acc.a += g;
    acc.b += g * (load<V>(x + base + c * isz, dt) - mu) * rs;
  }
  acc = tree_reduce(acc, sh, 0, threadIdx.x, 1, kThreads,
                    [](Pair<V> p, Pair<V> q) { return Pair<V>{p.a + q.a, p.b + q.b}; });
  const V n = static_cast<V>(cols), mean_g = acc.a / n, mean_gx = acc.b / n;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) {
    V g = load<V>(dy + base + c * isz, dt);
    if (w) g = g * load<V>(w + c * isz, dt);
    const V xhat = (load<V>(x + base + c * isz, dt) - mu) * rs;
    store<V>(dx + base + c * isz, dt, rs * (g - mean_g - xhat * mean_gx));
  }
}

// Stage 1: partial[chunk][col] = sums over the chunk's rows, in row order.
template <typename V>
__global__ void __launch_bounds__(kThreads) layer_norm_dwb_partial(const char* dy, const char* x, const V* mean,
                                                                   const V* rstd, int dt, int64_t rows,
                                                                   int64_t cols, V* pw, V* pb) {
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x, chunk = blockIdx.y;
  if (col >= cols) return;
  const int isz = itemsize(dt);
  const int64_t r1 = min(rows, (chunk + 1) * kChunkRows);
  V sw = 0, sb = 0;
  for (int64_t r = chunk * kChunkRows; r < r1; ++r) {
    const V g = load<V>(dy + (r * cols + col) * isz, dt);
    sw += g * (load<V>(x + (r * cols + col) * isz, dt) - mean[r]) * rstd[r];
    sb += g;
  }
  pw[chunk * cols + col] = sw;
  pb[chunk * cols + col] = sb;
}

// Stage 2: the chunk sums of each column, in chunk order.
template <typename V>
__global__ void __launch_bounds__(kThreads) layer_norm_dwb_final(const V* pw, const V* pb, int64_t chunks,
                                                                 int64_t cols, char* dw, char* db, int dt) {
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (col >= cols) return;
  V sw = 0, sb = 0;
  for (int64_t k = 0; k < chunks; ++k) {
    sw += pw[k * cols + col];
    sb += pb[k * cols + col];
  }
  const int isz = itemsize(dt);
  if (dw) store<V>(dw + col * isz, dt, sw);
  if (db) store<V>(db + col * isz, dt, sb);
}

int check_float(const char* fn, int dt) {
  if (valid_dtype(dt) && is_floating(dt)) return 0;
  return fail(CT_CUDA_ERR_UNSUPPORTED, "%s: needs a floating dtype, got %s (code %d)", fn, dtype_name(dt), dt);
}

// Calls f(V{}) with the accumulation type of floating dtype dt.
template <typename F>
int with_acc(int dt, const F& f) {
  return dt == kF64 ? f(double{}) : f(float{});
}

int64_t chunk_count(int64_t rows) { return (rows + kChunkRows - 1) / kChunkRows; }

unsigned col_blocks(int64_t cols) { return static_cast<unsigned>((cols + kThreads - 1) / kThreads); }

}  // namespace

int softmax(int log, int dtype_out, int dtype_in, void* out, const void* in, int64_t rows, int64_t cols,
            void* stream) {
  if (int s = check_float("softmax", dtype_in)) return s;
  if (int s = check_float("softmax", dtype_out)) return s;
  CT_CUDA_ARG(rows >= 0 && cols >= 0 && rows <= INT32_MAX, "softmax: bad view [%lld, %lld]",
              static_cast<long long>(rows), static_cast<long long>(cols));
  if (rows == 0 || cols == 0) return 0;
  CT_CUDA_ARG(in && out, "softmax: NULL input or output");
  return with_acc(dtype_in, [&](auto v) {
    using V = decltype(v);
    softmax_kernel<V><<<static_cast<unsigned>(rows), kThreads, kThreads * sizeof(V), as_stream(stream)>>>(
        static_cast<const char*>(in), dtype_in, static_cast<char*>(out), dtype_out, cols, log != 0);
    return check_launch("softmax kernel launch");
  });
}

int layer_norm(int dtype, void* y, void* mean, void* rstd, const void* x, const void* weight, const void* bias,
               int64_t rows, int64_t cols, double eps, void* stream) {
  if (int s = check_float("layer_norm", dtype)) return s;
  CT_CUDA_ARG(rows >= 0 && cols >= 0 && rows <= INT32_MAX, "layer_norm: bad view [%lld, %lld]",
              static_cast<long long>(rows), static_cast<long long>(cols));
  if (rows == 0) return 0;
  CT_CUDA_ARG(x && y, "layer_norm: NULL x or y");
  return with_acc(dtype, [&](auto v) {
    using V = decltype(v);
    layer_norm_kernel<V><<<static_cast<unsigned>(rows), kThreads, kThreads * sizeof(V), as_stream(stream)>>>(
        static_cast<const char*>(x), dtype, static_cast<char*>(y), static_cast<V*>(mean), static_cast<V*>(rstd),
        static_cast<const char*>(weight), static_cast<const char*>(bias), cols, static_cast<V>(eps));
    return check_launch("layer_norm kernel launch");
  });
}

int layer_norm_backward_workspace(int dtype, int64_t rows, int64_t cols, size_t* bytes) {
  if (int s = check_float("layer_norm_backward_workspace", dtype)) return s;
  CT_CUDA_ARG(bytes && rows >= 0 && cols >= 0, "layer_norm_backward_workspace: NULL bytes or negative sizes");
  *bytes = 2 * static_cast<size_t>(chunk_count(rows)) * static_cast<size_t>(cols) * (dtype == kF64 ? 8 : 4);
  return 0;
}

int layer_norm_backward(int dtype, void* dx, void* dweight, void* dbias, const void* dy, const void* x,
                        const void* mean, const void* rstd, const void* weight, int64_t rows, int64_t cols,
                        void* workspace, size_t workspace_bytes, void* stream) {
  size_t need = 0;
  if (int s = layer_norm_backward_workspace(dtype, rows, cols, &need)) return s;
  CT_CUDA_ARG(rows <= INT32_MAX && chunk_count(rows) <= 65535, "layer_norm_backward: %lld rows exceed the grid "
              "limit. Split the call", static_cast<long long>(rows));
  CT_CUDA_ARG(dy && x && mean && rstd, "layer_norm_backward: NULL dy, x, mean or rstd");
  const bool params = (dweight || dbias) && rows > 0 && cols > 0;
  CT_CUDA_ARG(!params || (workspace && workspace_bytes >= need), "layer_norm_backward: the workspace has %zu "
              "bytes, [%lld, %lld] needs %zu. Ask layer_norm_backward_workspace", workspace_bytes,
              static_cast<long long>(rows), static_cast<long long>(cols), need);
  if (cols == 0) return 0;
  return with_acc(dtype, [&](auto v) {
    using V = decltype(v);
    const cudaStream_t s = as_stream(stream);
    const V* mu = static_cast<const V*>(mean);
    const V* rs = static_cast<const V*>(rstd);
    if (dx && rows > 0) {
      layer_norm_dx_kernel<V><<<static_cast<unsigned>(rows), kThreads, kThreads * sizeof(Pair<V>), s>>>(
          static_cast<const char*>(dy), static_cast<const char*>(x), mu, rs, static_cast<const char*>(weight),
          static_cast<char*>(dx), dtype, cols);
      if (int st = check_launch("layer_norm_backward dx kernel launch")) return st;
    }
    if (!dweight && !dbias) return 0;
    const int64_t chunks = chunk_count(rows);
    V* pw = static_cast<V*>(workspace);
    V* pb = pw + chunks * cols;
    if (chunks > 0) {
      layer_norm_dwb_partial<V><<<dim3(col_blocks(cols), static_cast<unsigned>(chunks)), kThreads, 0, s>>>(
          static_cast<const char*>(dy), static_cast<const char*>(x), mu, rs, dtype, rows, cols, pw, pb);
      if (int st = check_launch("layer_norm_backward partial kernel launch")) return st;
    }
    layer_norm_dwb_final<V><<<col_blocks(cols), kThreads, 0, s>>>(pw, pb, chunks, cols, static_cast<char*>(dweight),
                                                                  static_cast<char*>(dbias), dtype);
    return check_launch("layer_norm_backward final kernel launch");
  });
}

}  // namespace ct::cuda
