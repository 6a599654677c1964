// pool.cpp - max_pool2d (with indices), avg_pool2d and adaptive_avg_pool2d over (N, C, H, W) or
// (C, H, W), and the backward operators their derivatives call. Planes (n, c) are independent, so
// every kernel runs them in parallel and is bitwise deterministic for any thread count.
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <limits>
#include <type_traits>
#include <vector>

#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/conv/conv_common.h"
#include "ops/cpu/int_div.h"
#include "ops/cpu/isa.h"
#include "ops/cpu/parallel.h"
#include "ops/cpu/reduce.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

using conv::Geometry;

struct Pool {
  int64_t planes = 0;  // these and g's planes are 0 for a symbolic input (meta): only out_sizes is read
  Geometry g;
  SymDimVector out_sizes;
};

// torch's pooling_output_shape: ceil_mode lets a last window start inside the input or its left
// padding, never wholly in the right padding.
SymInt pooled_size(SymInt in, int64_t k, int64_t p, int64_t s, int64_t d, bool ceil_mode) {
  const SymInt span = in + (2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0));
  SymInt out = span / s + 1;  // floor division
  if (ceil_mode && (out - 1) * s >= in + p) out = out - 1;
  return out;
}

void check_input(const char* op, const TensorImpl& x) {
  CT_CHECK(x.dim() == 3 || x.dim() == 4, CT_ERROR_SHAPE, op,
           ": expected a 3-D (C, H, W) or 4-D (N, C, H, W) input, got sizes ", x.sym_sizes());
  for (size_t d = x.dim() - 3; d < x.dim(); ++d)
    CT_SYM_CHECK(x.sym_size(d) > 0, CT_ERROR_SHAPE, op, ": expected non-empty channel and spatial dims, got sizes ",
                 x.sym_sizes());
}

Pool window_pool(const char* op, const TensorImpl& x, IntArrayRef kernel, IntArrayRef stride_in, IntArrayRef padding,
                 IntArrayRef dilation, bool ceil_mode) {
  check_input(op, x);
  const DimVector k = conv::pair_arg(op, "kernel_size", kernel);
  const DimVector s = stride_in.size() == 0 ? k : conv::pair_arg(op, "stride", stride_in);
  const DimVector p = conv::pair_arg(op, "padding", padding);
  const DimVector d = conv::pair_arg(op, "dilation", dilation);
  Pool r;
  const size_t nd = x.dim();
  const SymInt h = x.sym_size(nd - 2), w = x.sym_size(nd - 1);
  if (!x.is_symbolic()) r.g.h = h.raw(), r.g.w = w.raw(), r.planes = x.numel() / (r.g.h * r.g.w);
  for (int i = 0; i < 2; ++i) {
    CT_CHECK(k[i] > 0 && s[i] > 0 && d[i] > 0, CT_ERROR_INVALID_ARGUMENT, op, ": kernel_size ", k.ref(), ", stride ",
             s.ref(), " and dilation ", d.ref(), " must be positive");
    CT_CHECK(p[i] >= 0 && p[i] <= k[i] / 2, CT_ERROR_INVALID_ARGUMENT, op, ": padding ", p.ref(),
             " must be at least 0 and at most half of kernel_size ", k.ref());
  }
  Geometry& g = r.g;
  g.kh = k[0], g.kw = k[1], g.sh = s[0], g.sw = s[1], g.ph = p[0], g.pw = p[1], g.dh = d[0], g.dw = d[1];
  const SymInt oh = pooled_size(h, g.kh, g.ph, g.sh, g.dh, ceil_mode);
  const SymInt ow = pooled_size(w, g.kw, g.pw, g.sw, g.dw, ceil_mode);
  CT_SYM_CHECK(sym_all({oh >= 1, ow >= 1}), CT_ERROR_SHAPE, op, ": input of sizes ", x.sym_sizes(), " gives an output of (",
               oh, ", ", ow, "), which is too small. Use a smaller kernel or more padding");
  g.oh = oh.maybe_int().value_or(0), g.ow = ow.maybe_int().value_or(0);
  r.out_sizes = SymDimVector(x.sym_sizes());
  r.out_sizes[nd - 2] = oh, r.out_sizes[nd - 1] = ow;
  return r;
}

template <typename F>
void each_plane(int64_t planes, int64_t work, F f) {
  cpu::parallel_for(0, planes, std::max<int64_t>(1, 16384 / std::max<int64_t>(work, 1)), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) f(p);
  });
}

// ---- max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
//        int[2] dilation=1, bool ceil_mode=False) -> (Tensor values, Tensor indices)

Pool max_args(const Frame& f, size_t first = 0) {
  const TensorImpl& x = f.tensor(first);
  CT_CHECK(is_floating(x.dtype()), CT_ERROR_DTYPE, "max_pool2d: input must be floating, got ", x.dtype());
  return window_pool("max_pool2d", x, f.arg(first + 1).int_list(), f.arg(first + 2).int_list(),
                     f.arg(first + 3).int_list(), f.arg(first + 4).int_list(), f.arg(first + 5).to_bool());
}

void max_pool_meta(const Frame& f, MetaResult& m) {
  const Pool p = max_args(f);
  m.n = 2;
  m.compute = f.tensor(0).dtype();
  set_output(m, 0, p.out_sizes.ref(), f.tensor(0).dtype(), f.tensor(0).device());
  set_output(m, 1, p.out_sizes.ref(), DType::Int64, f.tensor(0).device());
}

// Indices are flat positions in the input plane. The winner is the first maximum in row-major
// order over the window, and the first NaN there wins and stays.
//
// Separable: per output row, a vertical pass takes each column's best over the window's rows
// (branch-free selects over contiguous columns, so the compiler vectorizes it), then each output
// takes the best of its window's columns, ties going to the smaller row, which is row-major order
// again. 64x128x32x32, 3x3 windows, stride 2, one thread: 52 ms visiting the 9 taps of each window,
// 25 ms so (the horizontal pass keeps its branch: as selects it measured slower).

// Scratch of one thread: one input row's column bests (vertical pass) and, per tap kj, the
// column each output reads.
template <typename A, typename R>
struct PoolRow {
  std::vector<A> col;          // per input column: its best over the window's rows
  std::vector<R> col_row;      // the row of that best
  std::vector<R> tap_col;      // [kw][ow]: the column tap kj of output ow reads
  explicit PoolRow(const Geometry& g) : col(size_t(g.w)), col_row(size_t(g.w)), tap_col(size_t(g.kw * g.ow)) {
    // A tap outside the input reads the window's first column again: an equal value from the same
    // row never wins, so it changes nothing.
    for (int64_t ow = 0; ow < g.ow; ++ow) {
      int64_t w0 = ow * g.sw - g.pw;
      while (w0 < 0) w0 += g.dw;
      for (int64_t kj = 0; kj < g.kw; ++kj) {
        const int64_t iw = ow * g.sw - g.pw + kj * g.dw;
        tap_col[size_t(kj * g.ow + ow)] = R(iw >= 0 && iw < g.w ? iw : w0);
      }
    }
  }
};

// R: a row or column index, as wide as A so that the vertical pass's selects on values and rows
// vectorize together (AVX2 blends).
template <typename T, typename R = std::conditional_t<sizeof(opmath_t<T>) == 4, int32_t, int64_t>>
[[gnu::always_inline]] inline void max_pool_plane_body(const T* src, const Geometry& g, PoolRow<opmath_t<T>, R>& s,
                                                       T* out, int64_t* idx) {
  using A = opmath_t<T>;
  A* col = s.col.data();
  R* col_row = s.col_row.data();
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    // Vertical: each column's best over the window's rows, the first in row order.
    int64_t h0 = oh * g.sh - g.ph;
    const int64_t h1 = std::min(h0 + (g.kh - 1) * g.dh + 1, g.h);
    while (h0 < 0) h0 += g.dh;
    for (int64_t iw = 0; iw < g.w; ++iw) {
      col[iw] = A(src[h0 * g.w + iw]);
      col_row[iw] = R(h0);
    }
    for (int64_t ih = h0 + g.dh; ih < h1; ih += g.dh) {
      const T* line = src + ih * g.w;
      const R r = R(ih);
      for (int64_t iw = 0; iw < g.w; ++iw) {
        const A v = A(line[iw]), b = col[iw];
        const bool take = (v > b) | ((v != v) & (b == b));
        col[iw] = take ? v : b;
        col_row[iw] = take ? r : col_row[iw];
      }
    }
    // Horizontal: each output's best over its window's columns; a larger value, or a first NaN,
    // or an equal value (or NaN) from an earlier row wins.
    for (int64_t ow = 0; ow < g.ow; ++ow) {
      const R* taps = s.tap_col.data() + ow;
      R c = taps[0];
      A best = col[c];
      R row = col_row[c], at = c;
      for (int64_t kj = 1; kj < g.kw; ++kj) {
        c = taps[kj * g.ow];
        const A v = col[c];
        const R r = col_row[c];
        if (v > best || (v != v && best == best) || ((v == best || (v != v && best != best)) && r < row)) {
          best = v;
          row = r;
          at = c;
        }
      }
      out[oh * g.ow + ow] = T(best);
      idx[oh * g.ow + ow] = int64_t(row) * g.w + at;
    }
  }
}

// A range of planes; col and col_row hold one input row. Built for the baseline ISA and for AVX2
// (Note [CPU capability dispatch]): the vertical pass is compares and blends either way.
template <typename T, typename R>
void max_pool_planes_baseline(const T* in, const Geometry& g, int64_t p0, int64_t p1, PoolRow<opmath_t<T>, R>& s,
                              T* out, int64_t* idx) {
  for (int64_t pl = p0; pl < p1; ++pl)
    max_pool_plane_body<T, R>(in + pl * g.h * g.w, g, s, out + pl * g.oh * g.ow, idx + pl * g.oh * g.ow);
}
#if CT_HAVE_AVX2_KERNELS
template <typename T, typename R>
CT_TARGET_AVX2 void max_pool_planes_avx2(const T* in, const Geometry& g, int64_t p0, int64_t p1,
                                         PoolRow<opmath_t<T>, R>& s, T* out, int64_t* idx) {
  for (int64_t pl = p0; pl < p1; ++pl)
    max_pool_plane_body<T, R>(in + pl * g.h * g.w, g, s, out + pl * g.oh * g.ow, idx + pl * g.oh * g.ow);
}
#endif

void max_pool_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const Pool p = max_args(f);
  const Geometry& g = p.g;
  const Tensor x = expect_contiguous(Tensor::borrow(&f.tensor(0)));
  visit_dtype<kFloatingDTypes>(x->dtype(), "max_pool2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = x->data_as<T>();
    T* out = outs[0]->data_as<T>();
    int64_t* idx = outs[1]->data_as<int64_t>();
    using R = std::conditional_t<sizeof(opmath_t<T>) == 4, int32_t, int64_t>;
    const int64_t work = g.oh * g.ow * g.kh * g.kw;
    cpu::parallel_for(0, p.planes, std::max<int64_t>(1, 16384 / std::max<int64_t>(work, 1)), [&](int64_t p0, int64_t p1) {
      PoolRow<opmath_t<T>, R> scratch(g);
#if CT_HAVE_AVX2_KERNELS
      if (cpu::has_avx2()) return max_pool_planes_avx2<T, R>(in, g, p0, p1, scratch, out, idx);
#endif
      max_pool_planes_baseline<T, R>(in, g, p0, p1, scratch, out, idx);
    });
  });
}

// ---- max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride,
//        int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor

void max_pool_backward_meta(const Frame& f, MetaResult& m) {
  const Pool p = max_args(f, 1);
  const TensorImpl& go = f.tensor(0);
  const TensorImpl& idx = f.tensor(7);
  CT_CHECK(go.sym_sizes().equals(p.out_sizes.ref()) && idx.sym_sizes().equals(p.out_sizes.ref()), CT_ERROR_SHAPE,
           "max_pool2d_with_indices_backward: grad_output ", go.sym_sizes(), " and indices ", idx.sym_sizes(),
           " must have the pooled sizes ", p.out_sizes.ref());
  CT_CHECK(idx.dtype() == DType::Int64, CT_ERROR_DTYPE, "max_pool2d_with_indices_backward: indices must be int64, got ",
           idx.dtype());
  CT_CHECK(go.dtype() == f.tensor(1).dtype(), CT_ERROR_DTYPE, "max_pool2d_with_indices_backward: grad_output (",
           go.dtype(), ") must have the input's dtype (", f.tensor(1).dtype(), ")");
  m.compute = go.dtype();
  set_output(m, 0, f.tensor(1).sym_sizes(), go.dtype(), common_device(f));
}

void max_pool_backward_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const Pool p = max_args(f, 1);
  const Geometry& g = p.g;
  const Tensor go = expect_contiguous(Tensor::borrow(&f.tensor(0)));
  const Tensor idx = expect_contiguous(Tensor::borrow(&f.tensor(7)));
  visit_dtype<kFloatingDTypes>(go->dtype(), "max_pool2d_with_indices_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = opmath_t<T>;
    const T* gsrc = go->data_as<T>();
    const int64_t* isrc = idx->data_as<int64_t>();
    T* gi = outs[0]->data_as<T>();
    const int64_t plane = g.h * g.w, l = g.oh * g.ow;
    each_plane(p.planes, l, [&](int64_t pl) {
      T* dst = gi + pl * plane;
      std::fill(dst, dst + plane, T(0));
      for (int64_t o = 0; o < l; ++o) {
        const int64_t at = isrc[pl * l + o];
        CT_CHECK(at >= 0 && at < plane, CT_ERROR_INDEX, "max_pool2d_with_indices_backward: index ", at,
                 " is outside the input plane of ", plane, " elements");
        dst[at] = T(A(dst[at]) + A(gsrc[pl * l + o]));
      }
    });
  });
}

// ---- avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False,
//        bool count_include_pad=True, int? divisor_override=None) -> Tensor

struct AvgArgs {
  Pool p;
  bool count_include_pad;
  int64_t divisor;  // 0: none
};

AvgArgs avg_args(const Frame& f, size_t first = 0) {
  const TensorImpl& x = f.tensor(first);
  CT_CHECK(is_floating(x.dtype()) || x.dtype() == DType::Int64, CT_ERROR_DTYPE,
           "avg_pool2d: input must be floating or "
           "int64 (as in PyTorch), got ",
           x.dtype(), ". Convert it with to()");
  const int64_t one[1] = {1};
  AvgArgs a{window_pool("avg_pool2d", x, f.arg(first + 1).int_list(), f.arg(first + 2).int_list(),
                        f.arg(first + 3).int_list(), IntArrayRef(one, 1), f.arg(first + 4).to_bool()),
            f.arg(first + 5).to_bool(), f.arg(first + 6).is_none() ? 0 : f.arg(first + 6).to_int()};
  CT_CHECK(f.arg(first + 6).is_none() || a.divisor != 0, CT_ERROR_INVALID_ARGUMENT,
           "avg_pool2d: divisor_override must "
           "not be zero");
  return a;
}

// The window of output (oh, ow) clipped to the input, and the divisor PyTorch uses for it: at least
// 1 unless divisor_override says otherwise (never 0; -1 divides as Note [Integer division never
// traps] says). Window areas fit easily: see Note [Window geometry stays in range].
struct Window {
  int64_t h0, h1, w0, w1, divisor;
};
Window avg_window(const AvgArgs& a, int64_t oh, int64_t ow) {
  const Geometry& g = a.p.g;
  int64_t h0 = oh * g.sh - g.ph, w0 = ow * g.sw - g.pw;
  int64_t h1 = std::min(h0 + g.kh, g.h + g.ph), w1 = std::min(w0 + g.kw, g.w + g.pw);
  const int64_t padded = (h1 - h0) * (w1 - w0);
  h0 = std::max<int64_t>(h0, 0), w0 = std::max<int64_t>(w0, 0);
  h1 = std::min(h1, g.h), w1 = std::min(w1, g.w);
  const int64_t divisor = a.divisor ? a.divisor : a.count_include_pad ? padded : (h1 - h0) * (w1 - w0);
  return {h0, h1, w0, w1, divisor};
}

template <typename T>
using avg_acc_t = std::conditional_t<std::is_integral<T>::value, int64_t, opmath_t<T>>;

void avg_pool_meta(const Frame& f, MetaResult& m) {
  const AvgArgs a = avg_args(f);
  m.compute = f.tensor(0).dtype();
  set_output(m, 0, a.p.out_sizes.ref(), f.tensor(0).dtype(), f.tensor(0).device());
}

void avg_pool_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const AvgArgs a = avg_args(f);
  const Geometry& g = a.p.g;
  const Tensor x = expect_contiguous(Tensor::borrow(&f.tensor(0)));
  visit_dtype<kNumericDTypes>(x->dtype(), "avg_pool2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = avg_acc_t<T>;
    const T* in = x->data_as<T>();
    T* out = outs[0]->data_as<T>();
    // Outputs whose windows lie wholly inside the input share one divisor: a row of them is summed
    // one window offset at a time across the row, which vectorizes (the window of each output
    // clipped and summed alone took 1.5 ns per input element). Each output still adds its elements
    // in (ih, iw) order from 0, as the edge outputs do, so the bits are the same.
    const int64_t ow_lo = std::min(g.ow, (g.pw + g.sw - 1) / g.sw);
    const int64_t ow_hi = g.w + g.pw < g.kw ? ow_lo : std::clamp((g.w + g.pw - g.kw) / g.sw + 1, ow_lo, g.ow);
    const A inside_divisor = A(a.divisor ? a.divisor : g.kh * g.kw);
    each_plane(a.p.planes, g.oh * g.ow * g.kh * g.kw, [&](int64_t pl) {
      const T* src = in + pl * g.h * g.w;
      T* dst = out + pl * g.oh * g.ow;
      std::unique_ptr<A[]> acc(new A[static_cast<size_t>(std::max<int64_t>(ow_hi - ow_lo, 1))]);
      auto edge = [&](int64_t oh, int64_t ow) {
        const Window w = avg_window(a, oh, ow);
        A sum = A(0);
        for (int64_t ih = w.h0; ih < w.h1; ++ih)
          for (int64_t iw = w.w0; iw < w.w1; ++iw) sum += A(src[ih * g.w + iw]);
        dst[oh * g.ow + ow] = w.h0 >= w.h1 || w.w0 >= w.w1 ? T(0) : T(cpu::div_toward_zero(sum, A(w.divisor)));
      };
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        const int64_t h0 = oh * g.sh - g.ph;
        const bool rows_inside = h0 >= 0 && h0 + g.kh <= g.h;
        const int64_t lo = rows_inside ? ow_lo : g.ow, hi = rows_inside ? ow_hi : g.ow, n = hi - lo;
        for (int64_t ow = 0; ow < lo; ++ow) edge(oh, ow);
        if (n > 0) {
          A* s = acc.get();
          std::fill(s, s + n, A(0));
          for (int64_t i = 0; i < g.kh; ++i) {
            const T* r = src + (h0 + i) * g.w + lo * g.sw - g.pw;
            for (int64_t j = 0; j < g.kw; ++j)
              for (int64_t k = 0; k < n; ++k) s[k] += A(r[k * g.sw + j]);
          }
          for (int64_t k = 0; k < n; ++k) dst[oh * g.ow + lo + k] = T(cpu::div_toward_zero(s[k], inside_divisor));
        }
        for (int64_t ow = hi; ow < g.ow; ++ow) edge(oh, ow);
      }
    });
  });
}

// ---- avg_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding,
//        bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor

void avg_pool_backward_meta(const Frame& f, MetaResult& m) {
  const AvgArgs a = avg_args(f, 1);
  const TensorImpl& go = f.tensor(0);
  CT_CHECK(go.sym_sizes().equals(a.p.out_sizes.ref()), CT_ERROR_SHAPE, "avg_pool2d_backward: grad_output ", go.sym_sizes(),
           " must have the pooled sizes ", a.p.out_sizes.ref());
  CT_CHECK(go.dtype() == f.tensor(1).dtype(), CT_ERROR_DTYPE, "avg_pool2d_backward: grad_output (", go.dtype(),
           ") must have the input's dtype (", f.tensor(1).dtype(), ")");
  m.compute = go.dtype();
  set_output(m, 0, f.tensor(1).sym_sizes(), go.dtype(), common_device(f));
}

void avg_pool_backward_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const AvgArgs a = avg_args(f, 1);
  const Geometry& g = a.p.g;
  const Tensor go = expect_contiguous(Tensor::borrow(&f.tensor(0)));
  visit_dtype<kNumericDTypes>(go->dtype(), "avg_pool2d_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = avg_acc_t<T>;
    const T* gsrc = go->data_as<T>();
    T* gi = outs[0]->data_as<T>();
    each_plane(a.p.planes, g.oh * g.ow * g.kh * g.kw, [&](int64_t pl) {
      T* dst = gi + pl * g.h * g.w;
      std::fill(dst, dst + g.h * g.w, T(0));
      for (int64_t oh = 0; oh < g.oh; ++oh)
        for (int64_t ow = 0; ow < g.ow; ++ow) {
          const Window w = avg_window(a, oh, ow);
          const A v = cpu::div_toward_zero(A(gsrc[(pl * g.oh + oh) * g.ow + ow]), A(w.divisor));
          for (int64_t ih = w.h0; ih < w.h1; ++ih)
            for (int64_t iw = w.w0; iw < w.w1; ++iw) dst[ih * g.w + iw] = T(A(dst[ih * g.w + iw]) + v);
        }
    });
  });
}

// ---- adaptive_avg_pool2d(Tensor self, int[2] output_size) -> Tensor: window o covers
// [floor(o * in / out), ceil((o + 1) * in / out)).

int64_t start_of(int64_t o, int64_t out, int64_t in) { return (o * in) / out; }
int64_t end_of(int64_t o, int64_t out, int64_t in) { return ((o + 1) * in + out - 1) / out; }

Pool adaptive_args(const char* op, const TensorImpl& x, IntArrayRef size) {
  check_input(op, x);
  CT_CHECK(is_floating(x.dtype()), CT_ERROR_DTYPE, op, ": input must be floating, got ", x.dtype());
  const DimVector o = conv::pair_arg(op, "output_size", size);
  CT_CHECK(o[0] >= 0 && o[1] >= 0, CT_ERROR_INVALID_ARGUMENT, op, ": output_size must not be negative, got ", o.ref());
  Pool p;
  const size_t nd = x.dim();
  p.g.oh = o[0], p.g.ow = o[1];
  if (!x.is_symbolic()) p.g.h = x.size(nd - 2), p.g.w = x.size(nd - 1), p.planes = x.numel() / (p.g.h * p.g.w);
  p.out_sizes = SymDimVector(x.sym_sizes());
  p.out_sizes[nd - 2] = o[0], p.out_sizes[nd - 1] = o[1];
  return p;
}

void adaptive_meta(const Frame& f, MetaResult& m) {
  const Pool p = adaptive_args("adaptive_avg_pool2d", f.tensor(0), f.arg(1).int_list());
  m.compute = f.tensor(0).dtype();
  set_output(m, 0, p.out_sizes.ref(), f.tensor(0).dtype(), f.tensor(0).device());
}

// A window's sum in the engine's lanes (cpu/reduce.h) when its elements are contiguous.
template <typename T, typename A> struct WindowSumOp {
  using acc_t = A;
  static A identity() { return A(0); }
  static A step(A a, T x, int64_t) { return a + A(x); }
  static A merge(A a, A b) { return a + b; }
};

void adaptive_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const Pool p = adaptive_args("adaptive_avg_pool2d", f.tensor(0), f.arg(1).int_list());
  const Geometry& g = p.g;
  const Tensor x = expect_contiguous(Tensor::borrow(&f.tensor(0)));
  visit_dtype<kFloatingDTypes>(x->dtype(), "adaptive_avg_pool2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = opmath_t<T>;
    const T* in = x->data_as<T>();
    T* out = outs[0]->data_as<T>();
    each_plane(p.planes, g.h * g.w, [&](int64_t pl) {
      const T* src = in + pl * g.h * g.w;
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        const int64_t h0 = start_of(oh, g.oh, g.h), h1 = end_of(oh, g.oh, g.h);
        for (int64_t ow = 0; ow < g.ow; ++ow) {
          const int64_t w0 = start_of(ow, g.ow, g.w), w1 = end_of(ow, g.ow, g.w);
          A sum = A(0);
          // A window of whole rows (every window of output width 1, global pooling among them) is
          // contiguous: the engine's vectorized pairwise sum, not one serial chain of adds
          // (adaptive_avg_pool2d(x, 1) of 16x64x32x32 float32 on one thread: 574 -> 145 us).
          if (w0 == 0 && w1 == g.w)
            sum = cpu::reduce_row<WindowSumOp<T, A>>(src + h0 * g.w, (h1 - h0) * g.w);
          else
            for (int64_t ih = h0; ih < h1; ++ih)
              for (int64_t iw = w0; iw < w1; ++iw) sum += A(src[ih * g.w + iw]);
          out[(pl * g.oh + oh) * g.ow + ow] = T(sum / A((h1 - h0) * (w1 - w0)));
        }
      }
    });
  });
}

// ---- _adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self) -> Tensor

void adaptive_backward_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& go = f.tensor(0);
  const TensorImpl& x = f.tensor(1);
  CT_CHECK(go.dim() == x.dim() && go.dim() >= 3, CT_ERROR_SHAPE, "_adaptive_avg_pool2d_backward: grad_output ",
           go.sym_sizes(), " and self ", x.sym_sizes(), " must have the same number of dims (3 or 4)");
  const int64_t osz[2] = {go.size(go.dim() - 2), go.size(go.dim() - 1)};
  const Pool p = adaptive_args("_adaptive_avg_pool2d_backward", x, IntArrayRef(osz, 2));
  CT_CHECK(go.sym_sizes().equals(p.out_sizes.ref()) && go.dtype() == x.dtype(), CT_ERROR_SHAPE,
           "_adaptive_avg_pool2d_backward: grad_output ", go.sym_sizes(), " (", go.dtype(), ") does not fit self ",
           x.sym_sizes(), " (", x.dtype(), ")");
  m.compute = go.dtype();
  set_output(m, 0, x.sym_sizes(), go.dtype(), common_device(f));
}

void adaptive_backward_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& x = f.tensor(1);
  const Tensor go = expect_contiguous(Tensor::borrow(&f.tensor(0)));
  const int64_t osz[2] = {go->size(go->dim() - 2), go->size(go->dim() - 1)};
  const Pool p = adaptive_args("_adaptive_avg_pool2d_backward", x, IntArrayRef(osz, 2));
  const Geometry& g = p.g;
  visit_dtype<kFloatingDTypes>(go->dtype(), "_adaptive_avg_pool2d_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = opmath_t<T>;
    const T* gsrc = go->data_as<T>();
    T* gi = outs[0]->data_as<T>();
    each_plane(p.planes, g.h * g.w, [&](int64_t pl) {
      T* dst = gi + pl * g.h * g.w;
      std::fill(dst, dst + g.h * g.w, T(0));
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        const int64_t h0 = start_of(oh, g.oh, g.h), h1 = end_of(oh, g.oh, g.h);
        for (int64_t ow = 0; ow < g.ow; ++ow) {
          const int64_t w0 = start_of(ow, g.ow, g.w), w1 = end_of(ow, g.ow, g.w);
          const A v = A(gsrc[(pl * g.oh + oh) * g.ow + ow]) / A((h1 - h0) * (w1 - w0));
          for (int64_t ih = h0; ih < h1; ++ih)
            for (int64_t iw = w0; iw < w1; ++iw) dst[ih * g.w + iw] = T(A(dst[ih * g.w + iw]) + v);
        }
      }
    });
  });
}

// ---- Derivatives: each pooling's gradient is its backward operator; the backward operators of the
// average pools are linear in grad_output, so their own derivative is the forward pool again.
using autograd::GradCtx;

// The pooling window's arguments of a call, read by name: every pool and its backward name them alike.
struct WindowArgs {
  IntArrayRef kernel_size, stride, padding;
  explicit WindowArgs(const GradCtx& c)
      : kernel_size(c.arg("kernel_size").int_list()), stride(c.arg("stride").int_list()),
        padding(c.arg("padding").int_list()) {}
};
std::optional<int64_t> divisor_override(const GradCtx& c) {
  const Value& v = c.arg("divisor_override");
  return v.is_none() ? std::nullopt : std::optional<int64_t>(v.to_int());
}

void max_pool_backward(GradCtx& c) {
  if (!c.needs("self")) return;
  const Tensor x = c.saved("self");
  const WindowArgs w(c);
  const IntArrayRef dilation = c.arg("dilation").int_list();
  const bool ceil_mode = c.arg("ceil_mode").to_bool();
  // Only the first result can be saved, so the indices are found again from the saved input.
  const Tensor indices = max_pool2d_with_indices(x, w.kernel_size, w.stride, w.padding, dilation, ceil_mode)[1];
  c.set("self", max_pool2d_with_indices_backward(c.grad(0), x, w.kernel_size, w.stride, w.padding, dilation,
                                                 ceil_mode, indices));
}

// The gradient of max_pool2d_with_indices_backward for grad_output gathers the incoming gradient at
// the indices, written as a one-hot product so that it is differentiable again; it materializes
// (planes, pooled, plane) elements, which only double backward pays.
void max_pool_backward_backward(GradCtx& c) {
  if (!c.needs("grad_output")) return;
  const Tensor gg = c.grad(), idx = c.saved("indices");
  const int64_t nd = int64_t(gg->dim());
  const int64_t plane = gg->size(nd - 1) * gg->size(nd - 2);
  const Tensor g = unsqueeze(flatten(gg, nd - 2, nd - 1), -2);   // (..., 1, plane)
  const Tensor i = unsqueeze(flatten(idx, nd - 2, nd - 1), -1);  // (..., pooled, 1)
  const Tensor pos = arange(0, double(plane), 1, DType::Int64, gg->device());
  const Tensor onehot = to(eq(i, pos), gg->dtype());
  c.set("grad_output", reshape(sum(mul(onehot, g), {-1}, false), idx->sizes()));
}

void avg_pool_backward(GradCtx& c) {
  if (!c.needs("self")) return;
  const WindowArgs w(c);
  c.set("self", avg_pool2d_backward(c.grad(), c.saved("self"), w.kernel_size, w.stride, w.padding,
                                    c.arg("ceil_mode").to_bool(), c.arg("count_include_pad").to_bool(),
                                    divisor_override(c)));
}
void avg_pool_backward_backward(GradCtx& c) {
  if (!c.needs("grad_output")) return;
  const WindowArgs w(c);
  c.set("grad_output", avg_pool2d(c.grad(), w.kernel_size, w.stride, w.padding, c.arg("ceil_mode").to_bool(),
                                  c.arg("count_include_pad").to_bool(), divisor_override(c)));
}

void adaptive_backward(GradCtx& c) {
  if (c.needs("self")) c.set("self", _adaptive_avg_pool2d_backward(c.grad(), c.saved("self")));
}
void adaptive_backward_backward(GradCtx& c) {
  if (!c.needs("grad_output")) return;
  const IntArrayRef s = c.sizes("grad_output");
  const int64_t osz[2] = {s[s.size() - 2], s[s.size() - 1]};
  c.set("grad_output", adaptive_avg_pool2d(c.grad(), IntArrayRef(osz, 2)));
}

// max_pool2d(...) -> Tensor: the values of max_pool2d_with_indices.
void max_pool2d_kernel(void*, Frame& f) {
  static const OperatorDef& op = builtin_op("max_pool2d_with_indices");
  Tensor outs[2];
  dispatch(op, f.args, f.nargs, outs, 2);
  f.outs[0] = outs[0];
}

}  // namespace

void define_pool(Registry& r) {
  const char* window =
      "int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False";
  r.def(std::string("max_pool2d_with_indices(Tensor self, ") + window + ") -> (Tensor values, Tensor indices)")
      .meta(max_pool_meta)
      .compute(DispatchKey::CPU, max_pool_cpu, Determinism::Bitwise)
      .derivative(max_pool_backward, save("self"));
  r.def(std::string("max_pool2d(Tensor self, ") + window + ") -> Tensor").composite(max_pool2d_kernel);
  r.def(
       "max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, "
       "int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor")
      .meta(max_pool_backward_meta)
      .compute(DispatchKey::CPU, max_pool_backward_cpu, Determinism::Bitwise)
      .derivative(max_pool_backward_backward, save("indices"));
  r.def(
       "avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, "
       "bool count_include_pad=True, int? divisor_override=None) -> Tensor")
      .meta(avg_pool_meta)
      .compute(DispatchKey::CPU, avg_pool_cpu, Determinism::Bitwise)
      .derivative(avg_pool_backward, save("self"));
  r.def(
       "avg_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, "
       "bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor")
      .meta(avg_pool_backward_meta)
      .compute(DispatchKey::CPU, avg_pool_backward_cpu, Determinism::Bitwise)
      .derivative(avg_pool_backward_backward, save());
  r.def("adaptive_avg_pool2d(Tensor self, int[2] output_size) -> Tensor")
      .meta(adaptive_meta)
      .compute(DispatchKey::CPU, adaptive_cpu, Determinism::Bitwise)
      .derivative(adaptive_backward, save("self"));
  r.def("_adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self) -> Tensor")
      .meta(adaptive_backward_meta)
      .compute(DispatchKey::CPU, adaptive_backward_cpu, Determinism::Bitwise)
      .derivative(adaptive_backward_backward, save());
}

}  // namespace ct::ops
