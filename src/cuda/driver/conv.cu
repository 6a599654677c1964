// conv.cu - im2col/col2im for convolutions (the products run through gemm_strided_batched) and
// 2-D pooling forward and backward. Every backward is a gather: one thread per input element
// visits the windows that contain it in a fixed order (kernel row, then column), so nothing is
// accumulated with atomics and the sums are the same bits on every run.
#include <cmath>
#include <cstdint>

#include "device_math.h"
#include "dtype.h"
#include "grid.h"
#include "members.h"
#include "status.h"

namespace ct::cuda {
namespace {


// col[(c * kh + i) * kw + j, oy * ow + ox] = im[c, oy * sh - ph + i * dh, ox * sw - pw + j * dw] (0 outside).
template <typename T>
__global__ void im2col_kernel(ct_cuda_window2d g, const T* im, T* col) {
  const int64_t n = g.channels * g.kh * g.kw * g.oh * g.ow;
  CT_GRID_LOOP(p, n) {
    const int64_t ox = p % g.ow, oy = (p / g.ow) % g.oh, r = p / (g.ow * g.oh);
    const int64_t j = r % g.kw, i = (r / g.kw) % g.kh, c = r / (g.kw * g.kh);
    const int64_t y = oy * g.sh - g.ph + i * g.dh, x = ox * g.sw - g.pw + j * g.dw;
    col[p] = y >= 0 && y < g.h && x >= 0 && x < g.w ? im[(c * g.h + y) * g.w + x] : T(0);
  }
}

// The windows (oy, ox) and kernel taps (i, j) that read input (y, x), in a fixed order.
template <typename F>
__device__ __forceinline__ void for_each_window(const ct_cuda_window2d& g, int64_t y, int64_t x, const F& f) {
  for (int64_t i = 0; i < g.kh; ++i) {
    const int64_t ny = y + g.ph - i * g.dh;
    if (ny < 0 || ny % g.sh != 0) continue;
    const int64_t oy = ny / g.sh;
    if (oy >= g.oh) continue;
    for (int64_t j = 0; j < g.kw; ++j) {
      const int64_t nx = x + g.pw - j * g.dw;
      if (nx < 0 || nx % g.sw != 0) continue;
      const int64_t ox = nx / g.sw;
      if (ox >= g.ow) continue;
      f(oy, ox, i, j);
    }
  }
}

// im[c, y, x] = sum of the col entries im2col would have read it into.
template <typename T>
__global__ void col2im_kernel(ct_cuda_window2d g, const T* col, T* im) {
  using A = typename AccOf<T>::type;
  const int64_t n = g.channels * g.h * g.w;
  CT_GRID_LOOP(p, n) {
    const int64_t x = p % g.w, y = (p / g.w) % g.h, c = p / (g.w * g.h);
    A acc = A(0);
    for_each_window(g, y, x, [&](int64_t oy, int64_t ox, int64_t i, int64_t j) {
      acc += A(col[(((c * g.kh + i) * g.kw + j) * g.oh + oy) * g.ow + ox]);
    });
    im[p] = T(acc);
  }
}

template <typename T>
__device__ __forceinline__ bool nan_of(T v) {
  using A = typename AccOf<T>::type;
  return dm::is_nan(A(v));
}

// The max of each window (the first NaN wins, else the first maximum), and its index y * w + x.
template <typename T>
__global__ void max_pool_kernel(ct_cuda_window2d g, const T* in, T* out, int64_t* indices) {
  using A = typename AccOf<T>::type;
  const int64_t n = g.channels * g.oh * g.ow;
  CT_GRID_LOOP(p, n) {
    const int64_t ox = p % g.ow, oy = (p / g.ow) % g.oh, c = p / (g.ow * g.oh);
    const T* plane = in + c * g.h * g.w;
    int64_t y0 = oy * g.sh - g.ph, x0 = ox * g.sw - g.pw;
    const int64_t y1 = min(y0 + (g.kh - 1) * g.dh + 1, g.h), x1 = min(x0 + (g.kw - 1) * g.dw + 1, g.w);
    while (y0 < 0) y0 += g.dh;
    while (x0 < 0) x0 += g.dw;
    A best = A(-INFINITY);
    int64_t at = y0 * g.w + x0;
    bool done = false;
    for (int64_t y = y0; y < y1 && !done; y += g.dh)
      for (int64_t x = x0; x < x1; x += g.dw) {
        const A v = A(plane[y * g.w + x]);
        if (v > best || dm::is_nan(v)) {
          best = v;
          at = y * g.w + x;
          if (dm::is_nan(v)) {
            done = true;
            break;
          }
        }
      }
    out[p] = T(best);
    indices[p] = at;
  }
}

template <typename T>
__global__ void max_pool_backward_kernel(ct_cuda_window2d g, const T* gout, const int64_t* indices, T* gin) {
  using A = typename AccOf<T>::type;
  const int64_t n = g.channels * g.h * g.w;
  CT_GRID_LOOP(p, n) {
    const int64_t x = p % g.w, y = (p / g.w) % g.h, c = p / (g.w * g.h);
    const int64_t me = y * g.w + x, base = c * g.oh * g.ow;
    A acc = A(0);
    for_each_window(g, y, x, [&](int64_t oy, int64_t ox, int64_t, int64_t) {
      const int64_t o = base + oy * g.ow + ox;
      if (indices[o] == me) acc += A(gout[o]);
    });
    gin[p] = T(acc);
  }
}

struct AvgWindow {
  int64_t y0, y1, x0, x1, divisor;
};

__device__ __forceinline__ AvgWindow avg_window(const ct_cuda_window2d& g, int64_t oy, int64_t ox,
                                                int count_include_pad, int64_t divisor_override) {
  int64_t y0 = oy * g.sh - g.ph, x0 = ox * g.sw - g.pw;
  int64_t y1 = min(y0 + g.kh, g.h + g.ph), x1 = min(x0 + g.kw, g.w + g.pw);
  const int64_t padded = (y1 - y0) * (x1 - x0);
  y0 = max(y0, int64_t(0)), x0 = max(x0, int64_t(0));
  y1 = min(y1, g.h), x1 = min(x1, g.w);
  const int64_t divisor = divisor_override ? divisor_override : count_include_pad ? padded : (y1 - y0) * (x1 - x0);
  return {y0, y1, x0, x1, divisor};
}

template <typename T>
__global__ void avg_pool_kernel(ct_cuda_window2d g, int count_include_pad, int64_t divisor_override, const T* in,
                                T* out) {
  using A = typename AccOf<T>::type;
  const int64_t n = g.channels * g.oh * g.ow;
  CT_GRID_LOOP(p, n) {
    const int64_t ox = p % g.ow, oy = (p / g.ow) % g.oh, c = p / (g.ow * g.oh);
    const T* plane = in + c * g.h * g.w;
    const AvgWindow w = avg_window(g, oy, ox, count_include_pad, divisor_override);
    A sum = A(0);
    for (int64_t y = w.y0; y < w.y1; ++y)
      for (int64_t x = w.x0; x < w.x1; ++x) sum += A(plane[y * g.w + x]);
    out[p] = w.y0 >= w.y1 || w.x0 >= w.x1 ? T(0) : T(sum / A(w.divisor));
  }
}

template <typename T>
__global__ void avg_pool_backward_kernel(ct_cuda_window2d g, int count_include_pad, int64_t divisor_override,
                                         const T* gout, T* gin) {
  using A = typename AccOf<T>::type;
  const int64_t n = g.channels * g.h * g.w;
  CT_GRID_LOOP(p, n) {
    const int64_t x = p % g.w, y = (p / g.w) % g.h, c = p / (g.w * g.h);
    A acc = A(0);
    for_each_window(g, y, x, [&](int64_t oy, int64_t ox, int64_t, int64_t) {
      const AvgWindow w = avg_window(g, oy, ox, count_include_pad, divisor_override);
      if (y >= w.y0 && y < w.y1 && x >= w.x0 && x < w.x1)
        acc += A(gout[(c * g.oh + oy) * g.ow + ox]) / A(w.divisor);
    });
    gin[p] = T(acc);
  }
}

__device__ __forceinline__ int64_t start_of(int64_t o, int64_t out, int64_t in) { return (o * in) / out; }
__device__ __forceinline__ int64_t end_of(int64_t o, int64_t out, int64_t in) { return ((o + 1) * in + out - 1) / out; }

template <typename T>
__global__ void adaptive_kernel(ct_cuda_window2d g, const T* in, T* out) {
  using A = typename AccOf<T>::type;
  const int64_t n = g.channels * g.oh * g.ow;
  CT_GRID_LOOP(p, n) {
    const int64_t ox = p % g.ow, oy = (p / g.ow) % g.oh, c = p / (g.ow * g.oh);
    const T* plane = in + c * g.h * g.w;
    const int64_t y0 = start_of(oy, g.oh, g.h), y1 = end_of(oy, g.oh, g.h);
    const int64_t x0 = start_of(ox, g.ow, g.w), x1 = end_of(ox, g.ow, g.w);
    A sum = A(0);
    for (int64_t y = y0; y < y1; ++y)
      for (int64_t x = x0; x < x1; ++x) sum += A(plane[y * g.w + x]);
    out[p] = T(sum / A((y1 - y0) * (x1 - x0)));
  }
}

template <typename T>
__global__ void adaptive_backward_kernel(ct_cuda_window2d g, const T* gout, T* gin) {
  using A = typename AccOf<T>::type;
  const int64_t n = g.channels * g.h * g.w;
  CT_GRID_LOOP(p, n) {
    const int64_t x = p % g.w, y = (p / g.w) % g.h, c = p / (g.w * g.h);
    A acc = A(0);
    // Windows containing y: o from floor(y * oh / h) while start_of(o) <= y.
    for (int64_t oy = (y * g.oh) / g.h; oy < g.oh && start_of(oy, g.oh, g.h) <= y; ++oy) {
      const int64_t y0 = start_of(oy, g.oh, g.h), y1 = end_of(oy, g.oh, g.h);
      if (y < y0 || y >= y1) continue;
      for (int64_t ox = (x * g.ow) / g.w; ox < g.ow && start_of(ox, g.ow, g.w) <= x; ++ox) {
        const int64_t x0 = start_of(ox, g.ow, g.w), x1 = end_of(ox, g.ow, g.w);
        if (x < x0 || x >= x1) continue;
        acc += A(gout[(c * g.oh + oy) * g.ow + ox]) / A((y1 - y0) * (x1 - x0));
      }
    }
    gin[p] = T(acc);
  }
}

bool valid_window(const ct_cuda_window2d* g) {
  return g && g->channels >= 0 && g->h >= 0 && g->w >= 0 && g->oh >= 0 && g->ow >= 0 && g->kh > 0 && g->kw > 0 &&
         g->sh > 0 && g->sw > 0 && g->ph >= 0 && g->pw >= 0 && g->dh > 0 && g->dw > 0;
}

template <typename F>
int by_float(int dtype, const char* what, const F& f) {
  switch (dtype) {
    case kF16: return f(__half());
    case kBF16: return f(__nv_bfloat16());
    case kF32: return f(float());
    case kF64: return f(double());
    default: return fail(CT_CUDA_ERR_UNSUPPORTED, "%s: no kernel for %s (floating dtypes only)", what,
                         dtype_name(dtype));
  }
}

}  // namespace

int im2col(int dtype, void* col, const void* im, const ct_cuda_window2d* g, void* stream) {
  CT_CUDA_ARG(valid_window(g) && col && im, "im2col: bad argument");
  const int64_t n = g->channels * g->kh * g->kw * g->oh * g->ow;
  if (n == 0) return CT_CUDA_OK;
  return by_float(dtype, "im2col", [&](auto tag) {
    using T = decltype(tag);
    im2col_kernel<T><<<grid_for(n), kThreads, 0, as_stream(stream)>>>(*g, static_cast<const T*>(im),
                                                                       static_cast<T*>(col));
    return check_launch("im2col kernel");
  });
}

int col2im(int dtype, void* im, const void* col, const ct_cuda_window2d* g, void* stream) {
  CT_CUDA_ARG(valid_window(g) && col && im, "col2im: bad argument");
  const int64_t n = g->channels * g->h * g->w;
  if (n == 0) return CT_CUDA_OK;
  return by_float(dtype, "col2im", [&](auto tag) {
    using T = decltype(tag);
    col2im_kernel<T><<<grid_for(n), kThreads, 0, as_stream(stream)>>>(*g, static_cast<const T*>(col),
                                                                       static_cast<T*>(im));
    return check_launch("col2im kernel");
  });
}

int pool2d(int op, int dtype, void* out, int64_t* indices, const void* in, const ct_cuda_window2d* g,
           int count_include_pad, int64_t divisor_override, void* stream) {
  CT_CUDA_ARG(valid_window(g) && out && in, "pool2d: bad argument");
  CT_CUDA_ARG(op >= CT_CUDA_POOL_MAX && op <= CT_CUDA_POOL_ADAPTIVE_AVG_BACKWARD, "pool2d: unknown op %d", op);
  CT_CUDA_ARG(indices || (op != CT_CUDA_POOL_MAX && op != CT_CUDA_POOL_MAX_BACKWARD), "pool2d: indices is NULL");
  const bool backward = op == CT_CUDA_POOL_MAX_BACKWARD || op == CT_CUDA_POOL_AVG_BACKWARD ||
                        op == CT_CUDA_POOL_ADAPTIVE_AVG_BACKWARD;
  CT_CUDA_ARG(op < CT_CUDA_POOL_ADAPTIVE_AVG || (g->oh > 0 && g->ow > 0) || g->channels == 0,
              "pool2d: adaptive pooling needs a nonempty output plane");
  const int64_t n = g->channels * (backward ? g->h * g->w : g->oh * g->ow);
  if (n == 0) return CT_CUDA_OK;
  cudaStream_t s = as_stream(stream);
  const unsigned grid = grid_for(n);
  return by_float(dtype, "pool2d", [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(in);
    T* y = static_cast<T*>(out);
    switch (op) {
      case CT_CUDA_POOL_MAX: max_pool_kernel<T><<<grid, kThreads, 0, s>>>(*g, x, y, indices); break;
      case CT_CUDA_POOL_MAX_BACKWARD: max_pool_backward_kernel<T><<<grid, kThreads, 0, s>>>(*g, x, indices, y); break;
      case CT_CUDA_POOL_AVG:
        avg_pool_kernel<T><<<grid, kThreads, 0, s>>>(*g, count_include_pad, divisor_override, x, y);
        break;
      case CT_CUDA_POOL_AVG_BACKWARD:
        avg_pool_backward_kernel<T><<<grid, kThreads, 0, s>>>(*g, count_include_pad, divisor_override, x, y);
        break;
      case CT_CUDA_POOL_ADAPTIVE_AVG: adaptive_kernel<T><<<grid, kThreads, 0, s>>>(*g, x, y); break;
      default: adaptive_backward_kernel<T><<<grid, kThreads, 0, s>>>(*g, x, y); break;
    }
    return check_launch("pool2d kernel");
  });
}

}  // namespace ct::cuda
