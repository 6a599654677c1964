// conv.cpp - CUDA compute for conv2d and conv_transpose2d.input (im2col / col2im and the table's
// cuBLAS gemm_strided_batched) and for the 2-D pools and their backward operators (the table's
// pool2d). The arguments were checked by the operators' meta functions; the geometry is read again
// here from the arguments and the output's sizes.
//
// Note [CUDA convolution as batched GEMMs]
// The table's im2col takes [channels, h, w] planes, so one call unrolls a whole chunk of samples
// (channels = samples x in_channels) into one column buffer in which sample n, group g is the
// k x L block number n * groups + g (k = in_channels / groups x kh x kw taps, L output positions).
// The output block (n, g) sits at the same block number in the NCHW output, so the products of a
// chunk are min(groups, samples) strided batched GEMMs: per group over the samples (weights with
// batch stride 0) or per sample over the groups, whichever launches fewer. cuBLAS is column-major:
// the row-major out_ng = W_g col_ng is computed as out^T = col^T W_g^T, which is each operand's
// row-major memory read column-major (no transpose flags). The bias is copied into the output
// first and the GEMM adds to it (beta = 1), so float16/bfloat16 outputs are rounded once, from the
// float32 accumulator. The transposed convolution runs the same blocks backwards: cols = W_g^T x_ng
// per block, then one col2im over the chunk (a gather, as in conv.cu: no atomics), computed in
// float32 for the 16-bit dtypes and rounded once, as on the cpu. The column buffer comes from the
// caching allocator; a chunk holds as many samples as fit in kColumnBytes (at least one).
// cuBLAS runs with its fixed workspace (see gemm_strided_batched), so every result is the same
// bits run to run for one shape on one GPU model, and TF32 follows ct_matmul_precision as mm does.
#include <algorithm>

#include "core/error.h"
#include "cuda/kernel_util.h"
#include "cuda/kernels.h"
#include "cuda/loop_plan.h"
#include "ops/conv/conv_common.h"
#include "runtime/defaults.h"

namespace ct::cuda {
namespace {

constexpr int64_t kColumnBytes = int64_t(256) << 20;

bool allow_tf32() { return runtime::matmul_precision() != runtime::MatmulPrecision::Highest; }

const char* at(const void* base, int64_t elements, DType d) {
  return static_cast<const char*>(base) + elements * static_cast<int64_t>(itemsize(d));
}
char* at(void* base, int64_t elements, DType d) {
  return static_cast<char*>(base) + elements * static_cast<int64_t>(itemsize(d));
}

// Samples per chunk: as many whole samples' column blocks (per_sample elements) as kColumnBytes holds.
int64_t chunk_samples(int64_t batch, int64_t per_sample, DType d) {
  const int64_t bytes = std::max<int64_t>(1, per_sample * static_cast<int64_t>(itemsize(d)));
  return std::max<int64_t>(1, std::min(batch, kColumnBytes / bytes));
}

// The bias as a [channels, 1, 1] view, broadcasting against an (N, C, H, W) or (C, H, W) output.
Tensor bias_view(const TensorImpl& bias) {
  const int64_t sizes[3] = {bias.size(0), 1, 1}, strides[3] = {bias.stride(0), 1, 1};
  return Tensor::adopt(
      TensorImpl::view_of(bias, IntArrayRef(sizes, 3), IntArrayRef(strides, 3), bias.storage_offset()));
}

void check_floating(const char* op, DType d) {
  if (!is_floating(d)) unsupported(op, d, "floating dtypes only");
}

// The per-block GEMMs of a chunk of nb samples (Note [CUDA convolution as batched GEMMs]): block
// (n, g) is C_ng = op(A_ng) op(B_g) with A_ng = a + n * a_sample + g * a_group, B_g = b + g * b_group
// and C_ng = c + n * c_sample + g * c_group (elements), column-major m x n_cols, inner size k.
struct Blocks {
  DType dtype;
  int transb;
  int64_t m, n_cols, k, lda, ldb, ldc;
  const void* a;
  int64_t a_sample, a_group;
  const void* b;
  int64_t b_group;
  void* c;
  int64_t c_sample, c_group;
  double beta;
};

void run_blocks(const char* op, const Blocks& p, int64_t nb, int64_t groups, void* stream) {
  const ct_cuda_driver& d = driver();
  const int tf32 = allow_tf32() ? 1 : 0;
  if (groups <= nb) {  // per group, batched over the samples
    for (int64_t g = 0; g < groups; ++g)
      check(d.gemm_strided_batched(code(p.dtype), 0, p.transb, p.m, p.n_cols, p.k, 1.0, at(p.a, g * p.a_group, p.dtype),
                                   p.lda, p.a_sample, at(p.b, g * p.b_group, p.dtype), p.ldb, 0, p.beta,
                                   at(p.c, g * p.c_group, p.dtype), p.ldc, p.c_sample, nb, tf32, stream),
            op);
    return;
  }
  for (int64_t n = 0; n < nb; ++n)  // per sample, batched over the groups
    check(d.gemm_strided_batched(code(p.dtype), 0, p.transb, p.m, p.n_cols, p.k, 1.0, at(p.a, n * p.a_sample, p.dtype),
                                 p.lda, p.a_group, p.b, p.ldb, p.b_group, p.beta, at(p.c, n * p.c_sample, p.dtype),
                                 p.ldc, p.c_group, groups, tf32, stream),
          op);
}

ct_cuda_window2d window_of(int64_t channels, const ops::conv::Geometry& g) {
  return ct_cuda_window2d{channels, g.h, g.w, g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw};
}

// conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0,
//        int[2] dilation=1, int groups=1)
void conv2d_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  if (out.numel() == 0) return;
  const ops::conv::Args a = ops::conv::parse("conv2d", f, false);
  const ops::conv::Geometry& g = a.geo;
  const DType dt = a.dtype;
  check_floating("conv2d", dt);
  void* stream = stream_for(out);
  if (a.has_bias) {
    const Tensor b = contiguous_as(f.tensor(2), dt);
    copy_into("conv2d", out, *bias_view(*b), stream);
  }
  const int64_t cg = a.in_channels / a.groups, og = a.out_channels / a.groups;
  const int64_t k = cg * g.kh * g.kw, l = g.oh * g.ow;
  if (k == 0) {  // no input channels: the bias, or zeros
    if (!a.has_bias) fill("conv2d", out, Scalar(0), stream);
    return;
  }
  const Tensor x = contiguous_as(f.tensor(0), dt), w = contiguous_as(f.tensor(1), dt);
  const bool pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0;
  const int64_t per_sample = a.in_channels * g.kh * g.kw * l;  // = groups * k * l
  const int64_t nb = pointwise ? a.batch : chunk_samples(a.batch, per_sample, dt);
  const Tensor cols = pointwise ? Tensor() : empty_on({nb * per_sample}, dt, out.device());
  for (int64_t n0 = 0; n0 < a.batch; n0 += nb) {
    const int64_t cnt = std::min(nb, a.batch - n0);
    const void* src = at(x->data(), n0 * a.in_channels * g.h * g.w, dt);
    if (!pointwise) {
      const ct_cuda_window2d win = window_of(cnt * a.in_channels, g);
      check(driver().im2col(code(dt), cols->data(), src, &win, stream), "conv2d");
      src = cols->data();
    }
    // out_ng^T (l x og) = col_ng^T (l x k) W_g^T (k x og)
    const Blocks p{dt, 0, l, og, k, l, k, l, src, per_sample, k * l, w->data(), og * k,
                   at(out.data(), n0 * a.out_channels * l, dt), a.out_channels * l, og * l, a.has_bias ? 1.0 : 0.0};
    run_blocks("conv2d", p, cnt, a.groups, stream);
  }
}

// conv_transpose2d.input(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0,
//                        int[2] output_padding=0, int groups=1, int[2] dilation=1)
void conv_transpose2d_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  if (out.numel() == 0) return;
  const ops::conv::Args a = ops::conv::parse("conv_transpose2d", f, true);
  const ops::conv::Geometry& g = a.geo;  // h, w: the output's plane; oh, ow: the input's
  check_floating("conv_transpose2d", a.dtype);
  // float16/bfloat16: columns, sums and bias in float32, rounded once into out.
  const DType dt = a.dtype == DType::Float64 ? DType::Float64 : DType::Float32;
  void* stream = stream_for(out);
  const Tensor y = dt == out.dtype() ? Tensor::borrow(&out) : empty_on(out.sizes(), dt, out.device());
  const int64_t cg = a.in_channels / a.groups, og = a.out_channels / a.groups;
  const int64_t k = og * g.kh * g.kw, l = g.oh * g.ow, plane = g.h * g.w;
  if (cg == 0) {
    fill("conv_transpose2d", *y, Scalar(0), stream);
  } else {
    const Tensor x = contiguous_as(f.tensor(0), dt), w = contiguous_as(f.tensor(1), dt);
    const int64_t per_sample = a.out_channels * g.kh * g.kw * l;  // = groups * k * l
    const int64_t nb = chunk_samples(a.batch, per_sample, dt);
    const Tensor cols = empty_on({nb * per_sample}, dt, out.device());
    for (int64_t n0 = 0; n0 < a.batch; n0 += nb) {
      const int64_t cnt = std::min(nb, a.batch - n0);
      // cols_ng^T (l x k) = x_ng^T (l x cg) W_g (cg x k): W_g's row-major memory read column-major
      // is W_g^T (k x cg), hence the transpose flag.
      const Blocks p{dt, 1, l, k, cg, l, k, l, at(x->data(), n0 * a.in_channels * l, dt), a.in_channels * l, cg * l,
                     w->data(), cg * k, cols->data(), per_sample, k * l, 0.0};
      run_blocks("conv_transpose2d", p, cnt, a.groups, stream);
      const ct_cuda_window2d win = window_of(cnt * a.out_channels, g);
      check(driver().col2im(code(dt), at(y->data(), n0 * a.out_channels * plane, dt), cols->data(), &win, stream),
            "conv_transpose2d");
    }
  }
  if (a.has_bias) {
    const Tensor b = contiguous_as(f.tensor(2), dt);
    const Tensor bv = bias_view(*b);
    const TensorImpl* in[2] = {y.impl(), bv.impl()};
    const ct_cuda_loop loop = plan_loop("conv_transpose2d", *y, in, 2);
    check(driver().binary(CT_CUDA_BINARY_ADD, code(dt), code(dt), code(dt), code(dt), 1.0, y->data(), y->data(),
                          bv->data(), &loop, stream),
          "conv_transpose2d");
  }
  if (y.impl() != &out) copy_into("conv_transpose2d", out, *y, stream);
}

// ---- Pools: planes = every (n, c) of a contiguous input; the window from the arguments, the
// output plane from the pooled tensor's last two sizes.

ct_cuda_window2d pool_window(const TensorImpl& input, const TensorImpl& pooled, IntArrayRef kernel, IntArrayRef stride,
                             IntArrayRef padding, IntArrayRef dilation) {
  const size_t nd = input.dim();
  const DimVector kk = ops::conv::pair(kernel), s = stride.size() == 0 ? kk : ops::conv::pair(stride),
                  p = ops::conv::pair(padding), d = ops::conv::pair(dilation);
  const int64_t h = input.size(nd - 2), w = input.size(nd - 1);
  return ct_cuda_window2d{input.numel() / std::max<int64_t>(1, h * w), h, w, pooled.size(nd - 2), pooled.size(nd - 1),
                          kk[0], kk[1], s[0], s[1], p[0], p[1], d[0], d[1]};
}

const int64_t kOne[2] = {1, 1}, kZero[2] = {0, 0};

// The adaptive pools' window: the table derives each output's span from h, w, oh and ow alone.
ct_cuda_window2d adaptive_window(const TensorImpl& input, const TensorImpl& pooled) {
  const IntArrayRef one(kOne, 2), zero(kZero, 2);
  return pool_window(input, pooled, one, one, zero, one);
}

void run_pool(const char* op, int pool_op, const TensorImpl& out, int64_t* indices, const TensorImpl& in,
              const ct_cuda_window2d& win, int count_include_pad = 0, int64_t divisor = 0) {
  check_floating(op, in.dtype());
  void* stream = stream_for(out);
  const Tensor x = contiguous_as(in, in.dtype());
  check(driver().pool2d(pool_op, code(in.dtype()), out.data(), indices, x->data(), &win, count_include_pad, divisor,
                        stream),
        op);
}

// max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
//                         int[2] dilation=1, bool ceil_mode=False) -> (Tensor values, Tensor indices)
void max_pool_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  if (outs[0]->numel() == 0) return;
  const TensorImpl& x = f.tensor(0);
  const ct_cuda_window2d win =
      pool_window(x, *outs[0], f.arg(1).int_list(), f.arg(2).int_list(), f.arg(3).int_list(), f.arg(4).int_list());
  run_pool("max_pool2d_with_indices", CT_CUDA_POOL_MAX, *outs[0], outs[1]->data_as<int64_t>(), x, win);
}

// max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride,
//                                  int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices):
// each input element gathers the gradients of the windows containing it whose index names it, so
// indices must come from the forward with these arguments (an index outside its window, which
// the cpu would still honour or reject as outside the plane, is ignored here).
void max_pool_backward_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& gin = *outs[0];
  if (gin.numel() == 0) return;
  const TensorImpl& go = f.tensor(0);
  if (go.numel() == 0) return fill("max_pool2d_with_indices_backward", gin, Scalar(0), stream_for(gin));
  const ct_cuda_window2d win =
      pool_window(f.tensor(1), go, f.arg(2).int_list(), f.arg(3).int_list(), f.arg(4).int_list(), f.arg(5).int_list());
  const Tensor idx = contiguous_as(f.tensor(7), DType::Int64);
  run_pool("max_pool2d_with_indices_backward", CT_CUDA_POOL_MAX_BACKWARD, gin, idx->data_as<int64_t>(), go, win);
}

// avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False,
//            bool count_include_pad=True, int? divisor_override=None); First = 1 for avg_pool2d_backward
// (grad_output first, then the same arguments).
template <size_t First>
void avg_pool_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* op = First ? "avg_pool2d_backward" : "avg_pool2d";
  const TensorImpl& out = *outs[0];
  if (out.numel() == 0) return;
  const TensorImpl& x = f.tensor(First);
  if (!is_floating(x.dtype())) unsupported(op, x.dtype(), "the int64 average pool runs on the cpu only");
  const TensorImpl& pooled = First ? f.tensor(0) : out;
  if (First && pooled.numel() == 0) return fill(op, out, Scalar(0), stream_for(out));
  const ct_cuda_window2d win = pool_window(x, pooled, f.arg(First + 1).int_list(), f.arg(First + 2).int_list(),
                                           f.arg(First + 3).int_list(), IntArrayRef(kOne, 2));
  const int64_t divisor = f.arg(First + 6).is_none() ? 0 : f.arg(First + 6).to_int();
  run_pool(op, First ? CT_CUDA_POOL_AVG_BACKWARD : CT_CUDA_POOL_AVG, out, nullptr, First ? pooled : x, win,
           f.arg(First + 5).to_bool() ? 1 : 0, divisor);
}

// adaptive_avg_pool2d(Tensor self, int[2] output_size), _adaptive_avg_pool2d_backward(Tensor grad_output,
// Tensor self): window o of in covers [floor(o in / out), ceil((o + 1) in / out)).
void adaptive_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  if (out.numel() == 0) return;
  const TensorImpl& x = f.tensor(0);
  run_pool("adaptive_avg_pool2d", CT_CUDA_POOL_ADAPTIVE_AVG, out, nullptr, x, adaptive_window(x, out));
}

void adaptive_backward_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* op = "_adaptive_avg_pool2d_backward";
  const TensorImpl& gin = *outs[0];
  if (gin.numel() == 0) return;
  const TensorImpl& go = f.tensor(0);
  if (go.numel() == 0) return fill(op, gin, Scalar(0), stream_for(gin));  // an empty output plane
  run_pool(op, CT_CUDA_POOL_ADAPTIVE_AVG_BACKWARD, gin, nullptr, go, adaptive_window(f.tensor(1), go));
}

}  // namespace

void register_conv_kernels(Registry& r) {
  set_cuda_compute(r, "conv2d", conv2d_cuda);
  set_cuda_compute(r, "conv_transpose2d.input", conv_transpose2d_cuda);
  set_cuda_compute(r, "max_pool2d_with_indices", max_pool_cuda);
  set_cuda_compute(r, "max_pool2d_with_indices_backward", max_pool_backward_cuda);
  set_cuda_compute(r, "avg_pool2d", avg_pool_cuda<0>);
  set_cuda_compute(r, "avg_pool2d_backward", avg_pool_cuda<1>);
  set_cuda_compute(r, "adaptive_avg_pool2d", adaptive_cuda);
  set_cuda_compute(r, "_adaptive_avg_pool2d_backward", adaptive_backward_cuda);
}

}  // namespace ct::cuda
