// conv.cpp - conv2d and conv_transpose2d (NCHW, stride, padding, dilation, groups) as im2col / col2im
// plus one GEMM per sample and group; conv_forms.cpp composes the other ranks and forms from them.
//
// Note [Convolution derivatives]
// Both derivatives are written with the two convolutions themselves, so they are differentiable
// again: the input gradient of one is the other (with the output_padding that restores the input's
// sizes), and the weight gradient is a convolution of the input with the output gradient in which
// batch and channels trade places (stride and dilation swap), cut to the kernel's size.
#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "dispatch/grad_mode.h"
#include "ops/conv/conv_common.h"
#include "ops/conv/sgemm_avx512.h"
#include "ops/cpu/copy_tiled.h"
#include "ops/cpu/gemm.h"
#include "ops/cpu/parallel.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

using conv::Geometry;

// Row r = (c, ki, kj) of one sample's im2col matrix: the input values that tap reads, one per
// output position.
template <typename T>
void im2col_row(const T* x, int64_t r, const Geometry& g, T* dst) {
  const int64_t kk = g.kh * g.kw;
  const int64_t c = r / kk, ki = (r % kk) / g.kw, kj = r % g.kw;
  const T* plane = x + c * g.h * g.w;
  for (int64_t oh = 0; oh < g.oh; ++oh, dst += g.ow) {
    const int64_t ih = oh * g.sh - g.ph + ki * g.dh;
    if (ih < 0 || ih >= g.h) {
      std::fill(dst, dst + g.ow, T(0));
      continue;
    }
    const T* src = plane + ih * g.w;
    const int64_t off = kj * g.dw - g.pw;
    if (g.sw == 1) {  // one contiguous run between zeros
      const int64_t lo = std::min(g.ow, std::max<int64_t>(0, -off)), hi = std::max(lo, std::min(g.ow, g.w - off));
      std::fill(dst, dst + lo, T(0));
      std::copy(src + off + lo, src + off + hi, dst + lo);
      std::fill(dst + hi, dst + g.ow, T(0));
      continue;
    }
    for (int64_t ow = 0; ow < g.ow; ++ow) {
      const int64_t iw = ow * g.sw + off;
      dst[ow] = iw >= 0 && iw < g.w ? src[iw] : T(0);
    }
  }
}

// Rows (c, ki, kj) x columns (oh, ow) of the input patches one sample's output reads.
template <typename T>
void im2col(const T* x, int64_t channels, const Geometry& g, T* cols) {
  const int64_t kk = g.kh * g.kw, l = g.oh * g.ow;
  cpu::parallel_for(0, channels * kk, std::max<int64_t>(1, 16384 / std::max<int64_t>(l, 1)),
                    [&](int64_t r0, int64_t r1) {
                      for (int64_t r = r0; r < r1; ++r) im2col_row(x, r, g, cols + r * l);
                    });
}

// The adjoint of im2col: sums each column entry into the input position it was read from. Channels
// in parallel (each owns its plane), so the sums are the same for any thread count.
template <typename T>
void col2im(const T* cols, int64_t channels, const Geometry& g, T* x) {
  const int64_t kk = g.kh * g.kw, l = g.oh * g.ow;
  cpu::parallel_for(0, channels, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      T* plane = x + c * g.h * g.w;
      for (int64_t k = 0; k < kk; ++k) {
        const int64_t ki = k / g.kw, kj = k % g.kw;
        const T* src = cols + (c * kk + k) * l;
        for (int64_t oh = 0; oh < g.oh; ++oh, src += g.ow) {
          const int64_t ih = oh * g.sh - g.ph + ki * g.dh;
          if (ih < 0 || ih >= g.h) continue;
          T* row = plane + ih * g.w;
          const int64_t off = kj * g.dw - g.pw;
          for (int64_t ow = 0; ow < g.ow; ++ow) {
            const int64_t iw = ow * g.sw + off;
            if (iw >= 0 && iw < g.w) row[iw] += src[ow];
          }
        }
      }
    }
  });
}

// The im2col rows (c, ki, kj) x columns [j0, j0 + nr) of one sample, written as a GEMM panel of
// kPanel floats per row (columns past nr zero): what im2col + packing would give, without the k x L buffer.
// Columns [j0, j0 + nr) of the im2col matrix as runs within one output row.
struct Segment {
  int64_t dst, oh, ow, len;
};
int panel_segments(const Geometry& g, int64_t j0, int64_t nr, Segment* segs) {
  int nseg = 0;
  for (int64_t j = j0; j < j0 + nr;) {
    const int64_t oh = j / g.ow, ow = j % g.ow, len = std::min(g.ow - ow, j0 + nr - j);
    segs[nseg++] = {j - j0, oh, ow, len};
    j += len;
  }
  return nseg;
}

// The adjoint of pack_panel: sums a k x kPanel panel of columns [j0, j0 + nr) into the image.
void col2im_panel(const float* panel, int64_t channels, const Geometry& g, int64_t j0, int64_t nr, float* x) {
  Segment segs[conv::kPanel];
  const int nseg = panel_segments(g, j0, nr, segs);
  const int64_t kk = g.kh * g.kw;
  for (int64_t p = 0; p < channels * kk; ++p) {
    const int64_t c = p / kk, ki = (p % kk) / g.kw, kj = p % g.kw;
    float* plane = x + c * g.h * g.w;
    const float* row = panel + p * conv::kPanel;
    for (int s = 0; s < nseg; ++s) {
      const Segment& sg = segs[s];
      const int64_t ih = sg.oh * g.sh - g.ph + ki * g.dh;
      if (ih < 0 || ih >= g.h) continue;
      float* dst = plane + ih * g.w;
      const float* src = row + sg.dst;
      const int64_t base = sg.ow * g.sw - g.pw + kj * g.dw;
      if (g.sw == 1) {
        const int64_t lo = std::min(sg.len, std::max<int64_t>(0, -base)),
                      hi = std::max(lo, std::min(sg.len, g.w - base));
        float* d = dst + base;
        for (int64_t t = lo; t < hi; ++t) d[t] += src[t];
        continue;
      }
      for (int64_t t = 0; t < sg.len; ++t) {
        const int64_t iw = base + t * g.sw;
        if (iw >= 0 && iw < g.w) dst[iw] += src[t];
      }
    }
  }
}

// Rows (c, ki, kj) in nested loops: no divisions per row, this runs once per GEMM panel row.
void pack_panel(const float* x, int64_t channels, const Geometry& g, int64_t j0, int64_t nr, float* panel) {
  Segment segs[conv::kPanel];
  const int nseg = panel_segments(g, j0, nr, segs);
  float* row = panel;
  for (int64_t c = 0; c < channels; ++c) {
    const float* plane = x + c * g.h * g.w;
    for (int64_t ki = 0; ki < g.kh; ++ki)
      for (int64_t kj = 0; kj < g.kw; ++kj, row += conv::kPanel) {
        for (int s = 0; s < nseg; ++s) {
          const Segment& sg = segs[s];
          float* d = row + sg.dst;
          const int64_t ih = sg.oh * g.sh - g.ph + ki * g.dh, base = sg.ow * g.sw - g.pw + kj * g.dw;
          if (ih < 0 || ih >= g.h) {
            std::fill(d, d + sg.len, 0.0f);
            continue;
          }
          const float* src = plane + ih * g.w;
          if (g.sw == 1) {  // one contiguous run between zeros
            const int64_t lo = std::min(sg.len, std::max<int64_t>(0, -base)),
                          hi = std::max(lo, std::min(sg.len, g.w - base));
            std::fill(d, d + lo, 0.0f);
            std::copy(src + base + lo, src + base + hi, d + lo);
            std::fill(d + hi, d + sg.len, 0.0f);
            continue;
          }
          for (int64_t t = 0; t < sg.len; ++t) {
            const int64_t iw = base + t * g.sw;
            d[t] = iw >= 0 && iw < g.w ? src[iw] : 0.0f;
          }
        }
        std::fill(row + nr, row + conv::kPanel, 0.0f);
      }
  }
}

// Stride 1 over the image zero-padded to hp x wp: output (oh, ow) reads tap (c, ki, kj) at flat
// position c * hp * wp + (oh + ki * dh) * wp + ow + kj * dw, so with the output columns indexed
// oh * wp + ow as well, every tap's GEMM row is the padded image at one offset and nothing is packed
// per panel (gemm_shifted). Columns with ow >= g.ow wrap into the next row: computed, then dropped,
// which costs wp / ow more multiplies, so this is only taken when the padding is narrow.
struct Shifted {
  int64_t hp = 0, wp = 0, flat = 0;  // flat: output columns in the padded indexing
  std::vector<int64_t> offsets;      // per tap (c, ki, kj)
  // The padded image plus kPanel floats: the last tile reads past the image.
  int64_t padded_size(int64_t channels) const { return channels * hp * wp + conv::kPanel; }
};
// Up to 4 MiB of padded image: each thread keeps its buffer (shifted_scratch), so this bounds it.
bool use_shifted(const Geometry& g, int64_t channels) {
  const int64_t wp = g.w + 2 * g.pw;  // > 0: conv::parse refuses an input plane without width
  return g.sh == 1 && g.sw == 1 && 4 * wp <= 5 * g.ow && channels * (g.h + 2 * g.ph) * wp <= (int64_t(1) << 20);
}

Shifted shifted_plan(const Geometry& g, int64_t channels) {
  Shifted s;
  s.hp = g.h + 2 * g.ph, s.wp = g.w + 2 * g.pw, s.flat = (g.oh - 1) * s.wp + g.ow;
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t ki = 0; ki < g.kh; ++ki)
      for (int64_t kj = 0; kj < g.kw; ++kj) s.offsets.push_back((c * s.hp + ki * g.dh) * s.wp + kj * g.dw);
  return s;
}

// The padded image (borders zero) and the output tile of one thread. Kept from call to call: freeing
// a buffer this size returns it to the system, and faulting it in again costs more than zeroing it.
float* shifted_scratch(const Shifted& s, int64_t channels, int64_t rows) {
  thread_local std::vector<float> buf;
  const size_t n = size_t(s.padded_size(channels) + rows * conv::kPanel);
  if (buf.size() < n) buf.resize(n);
  std::fill(buf.begin(), buf.begin() + s.padded_size(channels), 0.0f);
  return buf.data();
}

// dst[0..n) = src[0..n) for runs shorter than a tile row, inline: with a memmove call per run (two
// per tile row) the tile scatter took 7% of the convolution.
inline void copy_short(const float* src, int64_t n, float* dst) {
  int64_t t = 0;
  for (; t + 8 <= n; t += 8) std::memcpy(dst + t, src + t, 8 * sizeof(float));
  for (; t < n; ++t) dst[t] = src[t];
}

// One sample and group; padded and tile from shifted_scratch.
void conv_shifted(const conv::PackedA& w, const float* x, int64_t channels, const Geometry& g, const Shifted& s,
                  float* padded, float* tile, float* out) {
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t ih = 0; ih < g.h; ++ih)
      std::copy(x + (c * g.h + ih) * g.w, x + (c * g.h + ih + 1) * g.w,
                padded + (c * s.hp + ih + g.ph) * s.wp + g.pw);
  const int64_t l = g.oh * g.ow;
  for (int64_t j0 = 0; j0 < s.flat; j0 += conv::kPanel) {
    const int64_t nr = std::min(conv::kPanel, s.flat - j0);
    conv::gemm_shifted(w, padded + j0, s.offsets.data(), nr, tile, conv::kPanel);
    for (int64_t j = j0; j < j0 + nr;) {  // the tile's runs of real output columns
      const int64_t r = j / s.wp, col = j % s.wp;
      if (col >= g.ow) {
        j += s.wp - col;
        continue;
      }
      const int64_t len = std::min(g.ow - col, j0 + nr - j);
      for (int64_t i = 0; i < w.m; ++i)
        copy_short(tile + i * conv::kPanel + (j - j0), len, out + i * l + r * g.ow + col);
      j += len;
    }
  }
}

bool is_pointwise(const Geometry& g) {
  return g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0;
}

// Runs body(x, w, bias, out) on contiguous float32/float64 operands; float16/bfloat16 are computed in
// float32 and rounded once at the end, as PyTorch does.
template <typename Body>
void with_compute_operands(const Frame& f, bool has_bias, Tensor* outs, Body body) {
  const TensorImpl& out = *outs[0];
  const DType cd = out.dtype() == DType::Float64 ? DType::Float64 : DType::Float32;
  const Tensor x = expect_contiguous(to(Tensor::borrow(&f.tensor(0)), cd));
  const Tensor w = expect_contiguous(to(Tensor::borrow(&f.tensor(1)), cd));
  const Tensor b = has_bias ? expect_contiguous(to(Tensor::borrow(&f.tensor(2)), cd)) : Tensor();
  const Tensor o = out.dtype() == cd ? outs[0] : empty(out.sizes(), cd, out.device());
  if (cd == DType::Float32)
    body(x->data_as<float>(), w->data_as<float>(), has_bias ? b->data_as<float>() : nullptr, o->data_as<float>());
  else
    body(x->data_as<double>(), w->data_as<double>(), has_bias ? b->data_as<double>() : nullptr, o->data_as<double>());
  if (o.impl() != outs[0].impl()) copy_(outs[0], o);
}

template <typename T>
void add_bias(T* out, const T* bias, int64_t n, int64_t channels, int64_t plane) {
  if (!bias) return;
  cpu::parallel_for(0, n * channels, std::max<int64_t>(1, 32768 / std::max<int64_t>(plane, 1)),
                    [&](int64_t r0, int64_t r1) {
                      for (int64_t r = r0; r < r1; ++r) {
                        const T v = bias[r % channels];
                        T* p = out + r * plane;
                        for (int64_t i = 0; i < plane; ++i) p[i] += v;
                      }
                    });
}

// ---- conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0,
//             int[2] dilation=1, int groups=1) -> Tensor

void conv2d_meta(const Frame& f, MetaResult& m) {
  const conv::Args a = conv::parse("conv2d", f, false);
  m.compute = a.dtype;
  set_output(m, 0, a.out_sizes.ref(), a.dtype, common_device(f));
}

// Samples one after another: each one's GEMM (out channels x patches x taps per group) is large
// enough for BLAS's own threads, and im2col runs on the pool, so both cores and cache are used
// well without a batch-sized column buffer.
void conv2d_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const conv::Args a = conv::parse("conv2d", f, false);
  const Geometry& g = a.geo;
  if (outs[0]->numel() == 0) return;
  with_compute_operands(f, a.has_bias, outs, [&](auto* x, auto* w, auto* bias, auto* out) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(x)>>;
    const int64_t cg = a.in_channels / a.groups, og = a.out_channels / a.groups;
    const int64_t k = cg * g.kh * g.kw, l = g.oh * g.ow;
    const bool direct = is_pointwise(g);
    // float32 on AVX-512: the weight is packed once for all samples (see sgemm_avx512.h).
    constexpr bool is_float = std::is_same<T, float>::value;
    const bool packed = is_float && conv::has_avx512_sgemm();
    std::vector<conv::PackedA> wp;
    if constexpr (is_float)
      if (packed)
        for (int64_t grp = 0; grp < a.groups; ++grp) wp.push_back(conv::pack_a(w + grp * og * k, og, k, k, 1));
    std::optional<Shifted> shifted;
    if (packed && !direct && use_shifted(g, cg)) shifted = shifted_plan(g, cg);
    cpu::parallel_blas_calls(a.batch, [&](int64_t n0, int64_t n1) {
      std::vector<T> cols(direct || packed ? 0 : static_cast<size_t>(k * l));
      std::vector<float> panel(packed && !shifted ? static_cast<size_t>(k * conv::kPanel) : 0);
      float* padded = shifted ? shifted_scratch(*shifted, cg, og) : nullptr;
      for (int64_t n = n0; n < n1; ++n) {
        for (int64_t grp = 0; grp < a.groups; ++grp) {
          const T* xs = x + (n * a.in_channels + grp * cg) * g.h * g.w;
          if constexpr (is_float) {
            if (packed && !direct) {
              T* o = out + (n * a.out_channels + grp * og) * l;
              if (shifted) {
                conv_shifted(wp[size_t(grp)], xs, cg, g, *shifted, padded, padded + shifted->padded_size(cg), o);
                continue;
              }
              for (int64_t j0 = 0; j0 < l; j0 += conv::kPanel) {
                const int64_t nr = std::min<int64_t>(conv::kPanel, l - j0);
                pack_panel(xs, cg, g, j0, nr, panel.data());
                conv::gemm_panel(wp[size_t(grp)], panel.data(), nr, o + j0, l);
              }
              continue;
            }
          }
          if (!direct) im2col(xs, cg, g, cols.data());
          const T* src = direct ? xs : cols.data();
          if constexpr (is_float) {
            if (packed) {
              conv::sgemm_packed(wp[size_t(grp)], l, src, l, out + (n * a.out_channels + grp * og) * l, l,
                                 panel.data());
              continue;
            }
          }
          cpu::gemm(a.dtype == DType::Float64 ? DType::Float64 : DType::Float32, og, l, k, Scalar(1),
                    {w + grp * og * k, k, 1}, {src, l, 1}, Scalar(0), out + (n * a.out_channels + grp * og) * l, l);
        }
      }
    });
    add_bias(out, bias, a.batch, a.out_channels, l);
  });
}

// ---- conv_transpose2d.input(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1,
//        int[2] padding=0, int[2] output_padding=0, int groups=1, int[2] dilation=1) -> Tensor

void conv_transpose2d_meta(const Frame& f, MetaResult& m) {
  const conv::Args a = conv::parse("conv_transpose2d", f, true);
  m.compute = a.dtype;
  set_output(m, 0, a.out_sizes.ref(), a.dtype, common_device(f));
}

// Per sample and group: columns = W_g^T x_g (one GEMM), then col2im sums them into the output.
void conv_transpose2d_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const conv::Args a = conv::parse("conv_transpose2d", f, true);
  const Geometry& g = a.geo;  // h, w: the output's; oh, ow: the input's
  if (outs[0]->numel() == 0) return;
  with_compute_operands(f, a.has_bias, outs, [&](auto* x, auto* w, auto* bias, auto* out) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(x)>>;
    const int64_t cg = a.in_channels / a.groups, og = a.out_channels / a.groups;
    const int64_t k = og * g.kh * g.kw, l = g.oh * g.ow, plane = g.h * g.w;
    std::fill(out, out + a.batch * a.out_channels * plane, T(0));
    constexpr bool is_float = std::is_same<T, float>::value;
    const bool packed = is_float && conv::has_avx512_sgemm();
    std::vector<conv::PackedA> wp;  // W_g^T, packed once for all samples
    if constexpr (is_float)
      if (packed)
        for (int64_t grp = 0; grp < a.groups; ++grp) wp.push_back(conv::pack_a(w + grp * cg * k, k, cg, 1, k));
    cpu::parallel_blas_calls(a.batch, [&](int64_t n0, int64_t n1) {
      std::vector<T> cols(packed ? 0 : static_cast<size_t>(k * l));
      std::vector<float> panel(packed ? static_cast<size_t>(cg * conv::kPanel) : 0),
          cpanel(packed ? static_cast<size_t>(k * conv::kPanel) : 0);
      for (int64_t n = n0; n < n1; ++n) {
        for (int64_t grp = 0; grp < a.groups; ++grp) {
          const T* xs = x + (n * a.in_channels + grp * cg) * l;
          if constexpr (is_float) {
            if (packed) {  // per kPanel input positions: columns = W_g^T x panel, summed into the output
              T* o = out + (n * a.out_channels + grp * og) * plane;
              for (int64_t j0 = 0; j0 < l; j0 += conv::kPanel) {
                const int64_t nr = std::min<int64_t>(conv::kPanel, l - j0);
                for (int64_t q = 0; q < cg; ++q) {
                  float* d = panel.data() + q * conv::kPanel;
                  std::copy(xs + q * l + j0, xs + q * l + j0 + nr, d);
                  std::fill(d + nr, d + conv::kPanel, 0.0f);
                }
                conv::gemm_panel(wp[size_t(grp)], panel.data(), nr, cpanel.data(), conv::kPanel);
                col2im_panel(cpanel.data(), og, g, j0, nr, o);
              }
              continue;
            }
          }
          cpu::gemm(a.dtype == DType::Float64 ? DType::Float64 : DType::Float32, k, l, cg, Scalar(1),
                    {w + grp * cg * k, 1, k}, {xs, l, 1}, Scalar(0), cols.data(), l);
          col2im(cols.data(), og, g, out + (n * a.out_channels + grp * og) * plane);
        }
      }
    });
    add_bias(out, bias, a.batch, a.out_channels, plane);
  });
}

// ---- Derivatives (Note [Convolution derivatives])
using autograd::GradCtx;

Tensor batched(const Tensor& t, bool unbatched) { return unbatched ? unsqueeze(t, 0) : t; }

// The weight gradient of y = conv2d(x, w) (transposed = false) or y = conv_transpose2d(x, w): a
// convolution whose batch is the channels of one operand and whose channels are the samples.
Tensor weight_grad(const Tensor& x, const Tensor& gy, IntArrayRef wsizes, IntArrayRef stride, IntArrayRef padding,
                   IntArrayRef dilation, int64_t groups, bool transposed) {
  const Tensor& img = transposed ? gy : x;   // the operand slid over
  const Tensor& filt = transposed ? x : gy;  // the operand acting as kernel
  const int64_t n = img->size(0), ci = img->size(1), cf = filt->size(1);
  // img: (N, G, ci/G, H, W) -> (ci/G, G*N, H, W); filt: (N, G, cf/G, h, w) -> (cf, N, h, w).
  const Tensor a = reshape(permute(view(img, {n, groups, ci / groups, img->size(2), img->size(3)}), {2, 1, 0, 3, 4}),
                           {ci / groups, groups * n, img->size(2), img->size(3)});
  const Tensor b = reshape(permute(view(filt, {n, groups, cf / groups, filt->size(2), filt->size(3)}), {1, 2, 0, 3, 4}),
                           {cf, n, filt->size(2), filt->size(3)});
  Tensor r = conv2d(a, b, Tensor(), dilation, padding, stride, groups);  // (ci/G, cf, kh', kw')
  r = narrow(narrow(r, 2, 0, wsizes[2]), 3, 0, wsizes[3]);
  return transpose(r, 0, 1);
}

// The input gradient of a stride-1 conv2d as a conv2d itself: the output gradient convolved with
// the kernel flipped in space, its in/out channels swapped within each group, padded by
// dilation * (k - 1) - padding (so at least 0: padding no wider than the kernel's reach). That runs
// the forward's packed GEMM over shifted rows, where conv_transpose2d's route scatters every
// column back through col2im (twice the time at 8x32x32x32, 3x3). Undefined when it does not apply.
Tensor stride_one_input_grad(const Tensor& gy, const Tensor& w, IntArrayRef padding, IntArrayRef dilation,
                             int64_t groups) {
  const int64_t cout = w->size(0), cg = w->size(1), kh = w->size(2), kw = w->size(3);
  DimVector pad = {dilation[0] * (kh - 1) - padding[0], dilation[1] * (kw - 1) - padding[1]};
  if (pad[0] < 0 || pad[1] < 0 || !gy->device().is_cpu()) return Tensor();
  // (G, cout/G, cg, kh, kw) -> (G, cg, cout/G, kh, kw) -> (G * cg, cout/G, kh, kw), flipped.
  const Tensor wt = reshape(transpose(view(w, {groups, cout / groups, cg, kh, kw}), 1, 2),
                            {groups * cg, cout / groups, kh, kw});
  const DimVector one = {1, 1};
  return conv2d(gy, flip(wt, {2, 3}), Tensor(), one, pad, dilation, groups);
}

// Note [Weight gradient over a channels-last image]
// The weight gradient's GEMM reads, for output position p and column (c, ki, kj), the input at
// (c, p's row + ki * dh, p's column + kj). With the image zero-padded and stored channels-last
// (position-major, its cg channels adjacent), the kw taps of one ki at one position are kw * cg
// adjacent floats when dw is 1: B's row p, for the columns (ki, kj, c), is the image read in place
// at offset(p) + ki * dh * wp * cg (gemm_shifted), with no im2col rows and no transposed panels,
// which took half of the gradient at 8x16x32x32, 3x3. Every output element folds the same products
// in the same order as through the panels (its own column of the same GEMM), so the bits are the
// same; only the columns' order differs, and the sum into the result puts them back in place.
struct ChannelsLast {
  int64_t cg, hp, wp, run;        // run: one ki's columns, kw * cg
  bool usable;                    // dw 1 and an image of at most 4 MiB
  std::vector<int64_t> offsets;   // per output position: where its row of B starts, ki = 0
  const Geometry& g;
  ChannelsLast(const Geometry& geo, int64_t channels)
      : cg(channels), hp(geo.h + 2 * geo.ph), wp(geo.w + 2 * geo.pw), run(geo.kw * channels),
        usable(geo.dw == 1 && channels * hp * wp <= (int64_t(1) << 20)), g(geo) {
    if (!usable) return;
    for (int64_t oh = 0; oh < g.oh; ++oh)
      for (int64_t ow = 0; ow < g.ow; ++ow) offsets.push_back((oh * g.sh * wp + ow * g.sw) * cg);
  }
  // The padded image plus kPanel floats: a panel of the last position reads past it.
  int64_t size() const { return cg * hp * wp + conv::kPanel; }
  // The interior of image (borders left as they are: zero) from x's cg channels (NCHW).
  void fill(const float* x, float* image) const {
    for (int64_t y = 0; y < g.h; ++y) {
      float* dst = image + ((y + g.ph) * wp + g.pw) * cg;
      int64_t c = 0;
      for (; c + 8 <= cg; c += 8) cpu::transpose_8xn_f32(x + (c * g.h + y) * g.w, g.h * g.w, g.w, dst + c, cg);
      for (; c < cg; ++c)
        for (int64_t xw = 0; xw < g.w; ++xw) dst[xw * cg + c] = x[(c * g.h + y) * g.w + xw];
    }
  }
};

// conv2d's weight gradient computed directly when the backward is not recorded: per sample and
// group, dW_g += dY_g (og x L) @ cols^T (L x k). The samples are cut into `parts` runs, a number set
// by the sizes alone, never by the thread count; each run is summed in sample order into its own
// buffer and the buffers are added in order, so the bits are the same on any number of threads.
// float16/bfloat16 (and a recorded backward) take the differentiable path in weight_grad.
Tensor conv2d_weight_grad_direct(const Tensor& x_in, const Tensor& gy_in, IntArrayRef wsizes, IntArrayRef stride,
                                 IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  const DType dt = x_in->dtype();
  const Tensor x = expect_contiguous(x_in), gy = expect_contiguous(to(gy_in, dt));
  Geometry g;
  g.h = x->size(2), g.w = x->size(3), g.oh = gy->size(2), g.ow = gy->size(3);
  g.kh = wsizes[2], g.kw = wsizes[3], g.sh = stride[0], g.sw = stride[1], g.ph = padding[0], g.pw = padding[1];
  g.dh = dilation[0], g.dw = dilation[1];
  const int64_t batch = x->size(0), cin = x->size(1), cout = gy->size(1);
  const int64_t cg = cin / groups, og = cout / groups, k = cg * g.kh * g.kw, l = g.oh * g.ow;
  const int64_t wnumel = cout * k;
  // Up to 8 runs (enough for the threads of a CPU this runs on), fewer when their buffers would
  // take more than 64 MB.
  const int64_t parts = std::max<int64_t>(
      1, std::min<int64_t>({batch, 8, (int64_t(64) << 20) / std::max<int64_t>(1, wnumel * int64_t(itemsize(dt)))}));
  Tensor result = zeros(wsizes, dt, x->device());
  if (dt == DType::Float32 && conv::has_avx512_sgemm()) {
    // dW_g (og x k) += dY_g (og x L) @ cols^T (L x k), dY_g packed as the GEMM's A. B is the image
    // in channels-last order where it can be (Note [Weight gradient over a channels-last image]),
    // else panels of kPanel im2col rows built straight from the image (8 rows at a time,
    // interleaved). Each run accumulates its samples, and the runs' sums are added in order.
    constexpr int64_t kP = conv::kPanel;
    const ChannelsLast cl(g, cg);
    std::vector<std::vector<float>> partial(static_cast<size_t>(parts));
    const int64_t per = (batch + parts - 1) / parts;
    cpu::parallel_blas_calls(parts, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        std::vector<float>& acc = partial[size_t(t)];
        acc.assign(size_t(wnumel), 0.0f);
        std::vector<float> image(cl.usable ? size_t(cl.size()) : 0, 0.0f);  // its borders stay zero
        // Uninitialized: every element is written before it is read (interleave8 zero-fills the
        // panel's columns past nr), and zeroing them took 5% of the gradient.
        std::unique_ptr<float[]> rows(cl.usable ? nullptr : new float[size_t(8 * l)]),
            panel(cl.usable ? nullptr : new float[size_t(l * kP)]);
        for (int64_t n = t * per; n < std::min(batch, (t + 1) * per); ++n)
          for (int64_t grp = 0; grp < groups; ++grp) {
            const float* xs = x->data_as<float>() + (n * cin + grp * cg) * g.h * g.w;
            const conv::PackedA ga = conv::pack_a(gy->data_as<float>() + (n * cout + grp * og) * l, og, l, l, 1);
            float* c = acc.data() + grp * og * k;
            if (cl.usable) {
              cl.fill(xs, image.data());
              for (int64_t ki = 0; ki < g.kh; ++ki)
                for (int64_t j0 = 0; j0 < cl.run; j0 += kP)
                  conv::gemm_shifted(ga, image.data() + ki * g.dh * cl.wp * cg + j0, cl.offsets.data(),
                                     std::min(kP, cl.run - j0), c + ki * cl.run + j0, k, true);
              continue;
            }
            for (int64_t q0 = 0; q0 < k; q0 += kP) {
              const int64_t nr = std::min(kP, k - q0);
              for (int64_t i0 = 0; i0 < kP; i0 += 8) {
                const int64_t qn = std::max<int64_t>(0, std::min<int64_t>(8, nr - i0));
                for (int64_t i = 0; i < qn; ++i) im2col_row(xs, q0 + i0 + i, g, rows.get() + i * l);
                conv::interleave8(rows.get(), l, qn, panel.get() + i0);
              }
              conv::gemm_panel(ga, panel.get(), nr, c + q0, k, true);
            }
          }
      }
    });
    // acc is (groups * og, k); channels-last columns are (ki, kj, c), the weight's (c, ki, kj).
    float* out = result->data_as<float>();
    const int64_t taps = g.kh * g.kw;
    for (const auto& acc : partial) {
      if (!cl.usable) {
        for (int64_t i = 0; i < wnumel; ++i) out[i] += acc[size_t(i)];
        continue;
      }
      for (int64_t row = 0; row < wnumel / k; ++row)
        for (int64_t tap = 0; tap < taps; ++tap)
          for (int64_t c = 0; c < cg; ++c) out[row * k + c * taps + tap] += acc[size_t(row * k + tap * cg + c)];
    }
    return result;
  }
  visit_dtype<dtype_bit(DType::Float32) | dtype_bit(DType::Float64)>(dt, "conv2d_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::vector<std::vector<T>> partial(static_cast<size_t>(parts));
    const int64_t per = (batch + parts - 1) / parts;
    cpu::parallel_blas_calls(parts, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        std::vector<T>& acc = partial[size_t(t)];
        acc.assign(size_t(wnumel), T(0));
        std::vector<T> cols(static_cast<size_t>(k * l));
        for (int64_t n = t * per; n < std::min(batch, (t + 1) * per); ++n)
          for (int64_t grp = 0; grp < groups; ++grp) {
            im2col(x->data_as<T>() + (n * cin + grp * cg) * g.h * g.w, cg, g, cols.data());
            cpu::gemm(dt, og, k, l, Scalar(1), {gy->data_as<T>() + (n * cout + grp * og) * l, l, 1},
                      {cols.data(), 1, l}, Scalar(1), acc.data() + grp * og * k, k);
          }
      }
    });
    T* out = result->data_as<T>();
    for (const auto& acc : partial)
      for (int64_t i = 0; i < wnumel; ++i) out[i] += acc[size_t(i)];
  });
  return result;
}

void conv2d_backward(GradCtx& c) {
  const Tensor x = c.saved("input"), w = c.saved("weight");
  const bool unbatched = x->dim() == 3;
  const DimVector stride = conv::pair(c.arg("stride").int_list()), padding = conv::pair(c.arg("padding").int_list()),
                  dilation = conv::pair(c.arg("dilation").int_list());
  const int64_t groups = c.arg("groups").to_int();
  const Tensor gy = batched(c.grad(), unbatched), xb = batched(x, unbatched);
  if (c.needs("input")) {
    DimVector op = {0, 0};
    for (int i = 0; i < 2; ++i)
      op[i] =
          xb->size(2 + i) + 2 * padding[i] - dilation[i] * (w->size(2 + i) - 1) - 1 - (gy->size(2 + i) - 1) * stride[i];
    Tensor gx = stride[0] == 1 && stride[1] == 1 ? stride_one_input_grad(gy, w, padding, dilation, groups) : Tensor();
    if (!gx.defined()) gx = conv_transpose2d(gy, w, Tensor(), stride, padding, op, groups, dilation);
    c.set("input", unbatched ? squeeze(gx, 0) : gx);
  }
  if (c.needs("weight")) {
    // The direct path is a CPU loop: meta tensors (and other devices) take the operators' path.
    const bool direct = !autograd::grad_enabled() && x->device().is_cpu() &&
                        (x->dtype() == DType::Float32 || x->dtype() == DType::Float64);
    c.set("weight", direct ? conv2d_weight_grad_direct(xb, gy, w->sizes(), stride, padding, dilation, groups)
                    : weight_grad(xb, gy, w->sizes(), stride, padding, dilation, groups, false));
  }
  if (c.needs("bias")) c.set("bias", sum(gy, {0, 2, 3}, false));
}

void conv_transpose2d_backward(GradCtx& c) {
  const Tensor x = c.saved("input"), w = c.saved("weight");
  const bool unbatched = x->dim() == 3;
  const DimVector stride = conv::pair(c.arg("stride").int_list()), padding = conv::pair(c.arg("padding").int_list()),
                  dilation = conv::pair(c.arg("dilation").int_list());
  const int64_t groups = c.arg("groups").to_int();
  const Tensor gy = batched(c.grad(), unbatched), xb = batched(x, unbatched);
  if (c.needs("input")) {
    Tensor gx = conv2d(gy, w, Tensor(), stride, padding, dilation, groups);
    c.set("input", unbatched ? squeeze(gx, 0) : gx);
  }
  if (c.needs("weight")) c.set("weight", weight_grad(xb, gy, w->sizes(), stride, padding, dilation, groups, true));
  if (c.needs("bias")) c.set("bias", sum(gy, {0, 2, 3}, false));
}

}  // namespace

void define_conv(Registry& r) {
  r.def(
       "conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, int[2] dilation=1, "
       "int groups=1) -> Tensor")
      .meta(conv2d_meta)
      .compute(DispatchKey::CPU, conv2d_cpu, Determinism::Deterministic)
      .derivative(conv2d_backward, save("input", "weight"));
  r.def(
       "conv_transpose2d.input(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, "
       "int[2] output_padding=0, int groups=1, int[2] dilation=1) -> Tensor")
      .meta(conv_transpose2d_meta)
      .compute(DispatchKey::CPU, conv_transpose2d_cpu, Determinism::Deterministic)
      .derivative(conv_transpose2d_backward, save("input", "weight"));
}

}  // namespace ct::ops
