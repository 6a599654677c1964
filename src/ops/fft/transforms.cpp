// transforms.cpp - the three discrete Fourier transforms every torch.fft function is made of, with
// PyTorch's names and arguments: _fft_c2c (complex to complex), _fft_r2c (real to the complex half
// spectrum, or the whole one) and _fft_c2r (a Hermitian half spectrum to real), each over a list of
// dims, unscaled or scaled by 1 / sqrt(n) or 1 / n (normalization 0, 1, 2; n the product of the
// transformed sizes). The public functions (functions.cpp) pad, trim, conjugate and choose the
// scale; these only transform.
//
// Each one-dimensional transform along a dim runs on one thread (plan.h), lines shared out across
// threads, so results are the same bits for any thread count. Derivatives are the adjoint
// transforms: a transform is linear, and torch's convention for complex gradients makes the
// gradient of a linear map its conjugate transpose, the transform the other way with the same
// scale.
#include <cmath>
#include <complex>
#include <memory>

#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/cpu/parallel.h"
#include "ops/fft/plan.h"
#include "ops/fft/transforms.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace fft {

DimVector transform_dims(const char* op, const TensorImpl& a, IntArrayRef dims, bool may_be_empty) {
  CT_CHECK(may_be_empty || !dims.empty(), CT_ERROR_INVALID_ARGUMENT, op,
           ": expected at least one dim to transform, but got none (input sizes ", a.sym_sizes(), ")");
  CT_CHECK(dims.empty() || a.dim() > 0, CT_ERROR_INVALID_ARGUMENT, op,
           ": a 0-dim tensor has no dim to transform. Pass a tensor with at least one dim");
  DimVector out;
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(op, d, static_cast<int64_t>(a.dim()));
    for (int64_t seen : out)
      CT_CHECK(seen != w, CT_ERROR_INVALID_ARGUMENT, op, ": FFT dims must be unique, but dim ", d,
               " appears twice in ", dims, " (input sizes ", a.sym_sizes(), ")");
    out.push_back(w);
  }
  return out;
}

int64_t normalization_of(const char* op, const Value& v) {
  const int64_t norm = v.to_int();
  CT_CHECK(norm >= 0 && norm <= 2, CT_ERROR_INVALID_ARGUMENT, op, ": normalization is ", norm,
           ". Pass 0 (none), 1 (by 1/sqrt(n)) or 2 (by 1/n)");
  return norm;
}

double scale_of(int64_t normalization, double n) {
  return normalization == 0 ? 1.0 : normalization == 1 ? 1.0 / std::sqrt(n) : 1.0 / n;
}

}  // namespace fft

namespace {

using autograd::GradCtx;
using fft::normalization_of;
using fft::scale_of;
using fft::transform_dims;

// f(float) for float32 and complex64, f(double) for float64 and complex128: the precision a
// transform runs in.
template <typename F>
void with_precision(DType d, F&& f) {
  if (d == DType::Float32 || d == DType::Complex64) f(float{});
  else f(double{});
}

// The one-dimensional lines of a tensor along dim: `count` lines of `n` elements `stride` apart,
// line l starting at offset(l) (elements from the tensor's first).
struct Lines {
  int64_t count = 1, n = 1, stride = 1;
  DimVector sizes, strides;  // of the other dims

  Lines(IntArrayRef all_sizes, IntArrayRef all_strides, int64_t dim) {
    for (size_t d = 0; d < all_sizes.size(); ++d) {
      if (static_cast<int64_t>(d) == dim) {
        n = all_sizes[d];
        stride = all_strides[d];
        continue;
      }
      sizes.push_back(all_sizes[d]);
      strides.push_back(all_strides[d]);
      count *= all_sizes[d];
    }
  }
  int64_t offset(int64_t l) const {
    int64_t off = 0;
    for (size_t d = sizes.size(); d-- > 0;) {
      off += (l % sizes[d]) * strides[d];
      l /= sizes[d];
    }
    return off;
  }
};

// Runs body(l, buffer) for every line, lines shared out across threads in chunks worth about 2^16
// butterflies each; buffer holds `per_line` uninitialized T of work space for the calling thread.
template <typename T, typename F>
void for_each_line(const Lines& lines, int64_t per_line, const F& body) {
  const double work = static_cast<double>(lines.n) * std::log2(static_cast<double>(lines.n) + 1.0) + 1.0;
  const int64_t grain = std::max<int64_t>(1, static_cast<int64_t>(65536.0 / work));
  cpu::parallel_for(0, lines.count, grain, [&](int64_t l0, int64_t l1) {
    const std::unique_ptr<T[]> buffer(new T[static_cast<size_t>(per_line)]);
    for (int64_t l = l0; l < l1; ++l) body(l, buffer.get());
  });
}

// The complex transforms of the lines `in` of src into the lines `to` of dst (the same lines of
// another layout, or of the same memory), scaled. A contiguous line is read, or written, in place.
template <typename T>
void c2c_lines(const std::complex<T>* src, const Lines& in, std::complex<T>* dst, const Lines& to, bool inverse,
               T scale) {
  using C = std::complex<T>;
  const int64_t n = in.n;
  for_each_line<T>(in, 4 * n, [&](int64_t l, T* raw) {
    C* buf = reinterpret_cast<C*>(raw);
    const C* x = src + in.offset(l);
    C* y = dst + to.offset(l);
    const C* from = x;
    if (in.stride != 1 || x == y) {
      for (int64_t j = 0; j < n; ++j) buf[j] = x[j * in.stride];
      from = buf;
    }
    if (to.stride == 1) {
      fft::transform<T>(n, inverse, from, y);
      if (scale != T(1))
        for (int64_t k = 0; k < n; ++k) y[k] *= scale;
      return;
    }
    fft::transform<T>(n, inverse, from, buf + n);
    for (int64_t k = 0; k < n; ++k) y[k * to.stride] = buf[n + k] * scale;
  });
}

// The complex transforms over dims (in that order) of a contiguous complex tensor, in place; the
// last one applies the scale.
void c2c_over(const Tensor& t, IntArrayRef dims, bool inverse, double scale) {
  if (t->numel() == 0) return;
  const IntArrayRef sizes = t->sizes();
  const DimVector strides = contiguous_strides(sizes);
  with_precision(t->dtype(), [&](auto tag) {
    using T = decltype(tag);
    auto* data = t->data_as<std::complex<T>>();
    for (size_t i = 0; i < dims.size(); ++i) {
      const Lines lines(sizes, strides.ref(), dims[i]);
      c2c_lines<T>(data, lines, data, lines, inverse, static_cast<T>(i + 1 == dims.size() ? scale : 1.0));
    }
  });
}

// _fft_c2c(Tensor self, int[] dim, int normalization, bool forward) -> Tensor
void c2c_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  CT_CHECK(is_complex(a.dtype()), CT_ERROR_DTYPE, "_fft_c2c: expects a complex input tensor, but got ", a.dtype(),
           " of sizes ", a.sym_sizes(), ". Convert it with to(complex64) or call torch.fft.fft, which does");
  transform_dims("_fft_c2c", a, f.arg(1).int_list(), true);
  normalization_of("_fft_c2c", f.arg(2));
  m.compute = a.dtype();
  set_output(m, 0, a.sym_sizes(), a.dtype(), a.device());
}
void c2c_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  const DimVector dims = transform_dims("_fft_c2c", a, f.arg(1).int_list(), true);
  const Tensor& out = outs[0];
  if (dims.empty()) {
    copy_(out, Tensor::borrow(&a));
    return;
  }
  if (out->numel() == 0) return;
  double points = 1;
  for (int64_t d : dims) points *= static_cast<double>(a.size(d));
  const double scale = scale_of(normalization_of("_fft_c2c", f.arg(2)), points);
  const bool inverse = !f.arg(3).to_bool();
  // The first dim reads the input where it lies; the others transform the output in place.
  with_precision(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = std::complex<T>;
    const DimVector out_strides = contiguous_strides(out->sizes());
    c2c_lines<T>(a.data_as<C>(), Lines(a.sizes(), a.strides(), dims[0]), out->data_as<C>(),
                 Lines(out->sizes(), out_strides.ref(), dims[0]), inverse, static_cast<T>(dims.size() == 1 ? scale : 1.0));
  });
  c2c_over(out, IntArrayRef(dims.data() + 1, dims.size() - 1), inverse, scale);
}
void c2c_backward(GradCtx& c) {
  c.set("self", _fft_c2c(c.grad(), c.arg("dim").int_list(), c.arg("normalization").to_int(), !c.arg("forward").to_bool()));
}

// _fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) -> Tensor: the last dim listed
// is the real transform; the half spectrum (n / 2 + 1 points) when onesided, else the whole.
void r2c_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  CT_CHECK(a.dtype() == DType::Float32 || a.dtype() == DType::Float64, CT_ERROR_DTYPE,
           "_fft_r2c: expects a float32 or float64 input tensor, but got ", a.dtype(), " of sizes ", a.sym_sizes(),
           ". Convert it with to() or call torch.fft.rfft, which does");
  const DimVector dims = transform_dims("_fft_r2c", a, f.arg(1).int_list(), false);
  normalization_of("_fft_r2c", f.arg(2));
  for (int64_t d : dims)
    CT_CHECK(a.sym_size(d).guard_int() >= 1, CT_ERROR_INVALID_ARGUMENT,
             "_fft_r2c: Invalid number of data points (0) specified along dim ", d, " of an input of sizes ",
             a.sym_sizes());
  SymDimVector sizes(a.sym_sizes());
  if (f.arg(3).to_bool()) sizes[dims[dims.size() - 1]] = sizes[dims[dims.size() - 1]] / SymInt(2) + SymInt(1);
  m.compute = a.dtype();
  set_output(m, 0, sizes.ref(), complex_dtype(a.dtype()), a.device());
}
void r2c_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  const DimVector dims = transform_dims("_fft_r2c", a, f.arg(1).int_list(), false);
  const bool onesided = f.arg(3).to_bool();
  const Tensor& out = outs[0];
  if (out->numel() == 0) return;
  double points = 1;
  for (int64_t d : dims) points *= static_cast<double>(a.size(d));
  const double scale = scale_of(normalization_of("_fft_r2c", f.arg(2)), points);
  const int64_t last = dims[dims.size() - 1];
  DimVector rest(dims.ref());
  rest.resize(rest.size() - 1);
  with_precision(out->dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = std::complex<T>;
    const Lines in(a.sizes(), a.strides(), last);
    const DimVector out_strides = contiguous_strides(out->sizes());
    const Lines to(out->sizes(), out_strides.ref(), last);
    const int64_t n = in.n, half = n / 2 + 1;
    const T s = static_cast<T>(rest.empty() ? scale : 1.0);
    const T* src = a.data_as<T>();
    C* dst = out->data_as<C>();
    for_each_line<T>(in, n + 1 + 2 * half, [&](int64_t l, T* raw) {
      const T* x = src + in.offset(l);
      if (in.stride != 1) {
        for (int64_t j = 0; j < n; ++j) raw[j] = x[j * in.stride];
        x = raw;
      }
      C* o = dst + to.offset(l);
      if (to.stride == 1 && onesided) {
        fft::transform_real<T>(n, x, o);
        if (s != T(1))
          for (int64_t k = 0; k < half; ++k) o[k] *= s;
        return;
      }
      C* y = reinterpret_cast<C*>(raw + n + (n & 1));  // aligned for complex elements
      fft::transform_real<T>(n, x, y);
      for (int64_t k = 0; k < half; ++k) o[k * to.stride] = y[k] * s;
      if (!onesided)
        for (int64_t k = half; k < n; ++k) o[k * to.stride] = std::conj(y[n - k]) * s;
    });
  });
  c2c_over(out, rest.ref(), false, scale);
}
// g padded with zeros at the end of dim to `size` points.
Tensor zero_padded(const Tensor& g, int64_t dim, int64_t size) {
  DimVector pad(2 * g->dim(), 0);
  pad[2 * (g->dim() - 1 - static_cast<size_t>(dim)) + 1] = size - g->size(dim);
  return constant_pad_nd(g, pad.ref());
}

// The gradient of a half spectrum is that of the whole one with zeros where the half left off.
void r2c_backward(GradCtx& c) {
  const IntArrayRef dim = c.arg("dim").int_list();
  const int64_t ndim = static_cast<int64_t>(c.sizes("self").size());
  const int64_t last = wrap_dim("_fft_r2c", dim.back(), ndim);
  const int64_t n = c.sizes("self")[last];
  const Tensor& g = c.grad();
  c.set("self", real(_fft_c2c(g->size(last) < n ? zero_padded(g, last, n) : g, dim,
                              c.arg("normalization").to_int(), false)));
}

// _fft_c2r(Tensor self, int[] dim, int normalization, int last_dim_size) -> Tensor: the last dim
// listed holds the first last_dim_size / 2 + 1 points of a Hermitian spectrum (the imaginary parts
// of its first point, and of point n / 2 for an even n, are ignored), the rest follow by symmetry.
void c2r_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  CT_CHECK(is_complex(a.dtype()), CT_ERROR_DTYPE, "_fft_c2r: expects a complex input tensor, but got ", a.dtype(),
           " of sizes ", a.sym_sizes(), ". Call torch.fft.irfft, which converts it");
  const DimVector dims = transform_dims("_fft_c2r", a, f.arg(1).int_list(), false);
  normalization_of("_fft_c2r", f.arg(2));
  const int64_t n = f.arg(3).to_int();
  CT_CHECK(n >= 1, CT_ERROR_INVALID_ARGUMENT, "_fft_c2r: Invalid number of data points (", n,
           ") specified. Pass last_dim_size >= 1");
  const int64_t have = a.sym_size(dims[dims.size() - 1]).guard_int();
  CT_CHECK(have >= n / 2 + 1, CT_ERROR_SHAPE, "_fft_c2r: an output of ", n, " points along dim ", dims[dims.size() - 1],
           " needs ", n / 2 + 1, " input points there, but the input (sizes ", a.sym_sizes(), ") has ", have,
           ". Pad the input or call torch.fft.irfft, which does");
  SymDimVector sizes(a.sym_sizes());
  sizes[dims[dims.size() - 1]] = SymInt(n);
  m.compute = a.dtype();
  set_output(m, 0, sizes.ref(), real_dtype(a.dtype()), a.device());
}
void c2r_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const Tensor a = Tensor::borrow(&f.tensor(0));
  const DimVector dims = transform_dims("_fft_c2r", *a, f.arg(1).int_list(), false);
  const int64_t n = f.arg(3).to_int(), half = n / 2 + 1, last = dims[dims.size() - 1];
  const Tensor& out = outs[0];
  if (out->numel() == 0) return;
  double points = static_cast<double>(n);
  for (size_t i = 0; i + 1 < dims.size(); ++i) points *= static_cast<double>(a->size(dims[i]));
  const double scale = scale_of(normalization_of("_fft_c2r", f.arg(2)), points);
  // The other dims first, on a copy of the half spectrum; the last dim reads its input in place.
  Tensor spectrum = a;
  if (dims.size() > 1) {
    DimVector half_sizes(a->sizes());
    half_sizes[last] = half;
    spectrum = empty(half_sizes.ref(), a->dtype(), a->device());
    copy_(spectrum, narrow(a, last, 0, half));
    c2c_over(spectrum, IntArrayRef(dims.data(), dims.size() - 1), true, 1.0);
  }
  with_precision(a->dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = std::complex<T>;
    const Lines in(spectrum->sizes(), spectrum->strides(), last);
    const DimVector out_strides = contiguous_strides(out->sizes());
    const Lines to(out->sizes(), out_strides.ref(), last);
    const T s = static_cast<T>(scale);
    const C* src = spectrum->data_as<C>();
    T* dst = out->data_as<T>();
    for_each_line<T>(in, 2 * half + n, [&](int64_t l, T* raw) {
      C* spectrum_line = reinterpret_cast<C*>(raw);
      const C* line = src + in.offset(l);
      if (in.stride != 1) {
        for (int64_t k = 0; k < half; ++k) spectrum_line[k] = line[k * in.stride];
        line = spectrum_line;
      }
      T* o = dst + to.offset(l);
      T* y = to.stride == 1 ? o : raw + 2 * half;
      fft::transform_hermitian<T>(n, line, y);
      if (to.stride == 1) {
        if (s != T(1))
          for (int64_t j = 0; j < n; ++j) o[j] *= s;
        return;
      }
      for (int64_t j = 0; j < n; ++j) o[j * to.stride] = y[j] * s;
    });
  });
}
// The half spectrum's points 1 .. n - half appear twice in the whole one (as themselves and as their
// conjugates), so their gradient is twice the real transform's; input points past the half are
// ignored, so theirs is 0.
void c2r_backward(GradCtx& c) {
  const IntArrayRef dim = c.arg("dim").int_list();
  const IntArrayRef self_sizes = c.sizes("self");
  const int64_t last = wrap_dim("_fft_c2r", dim.back(), static_cast<int64_t>(self_sizes.size()));
  const int64_t n = c.arg("last_dim_size").to_int(), half = n / 2 + 1, twice = n - half;
  Tensor g = _fft_r2c(c.grad(), dim, c.arg("normalization").to_int(), true);
  if (twice > 0) {
    // Doubled through the parts, a real multiplication, which cuda computes too.
    const Tensor first = narrow(g, last, 0, 1),
                 doubled = view_as_complex(mul(view_as_real(narrow(g, last, 1, twice)), Scalar(2))),
                 rest = narrow(g, last, 1 + twice, half - 1 - twice);
    g = cat({first.impl(), doubled.impl(), rest.impl()}, last);
  }
  c.set("self", self_sizes[last] > half ? zero_padded(g, last, self_sizes[last]) : g);
}

}  // namespace

void define_fft_transforms(Registry& r) {
  r.def("_fft_c2c(Tensor self, int[] dim, int normalization, bool forward) -> Tensor")
      .meta(c2c_meta)
      .compute(DispatchKey::CPU, c2c_cpu, Determinism::Bitwise)
      .takes_complex()
      .derivative(c2c_backward);
  r.def("_fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) -> Tensor")
      .meta(r2c_meta)
      .compute(DispatchKey::CPU, r2c_cpu, Determinism::Bitwise)
      .derivative(r2c_backward);
  r.def("_fft_c2r(Tensor self, int[] dim, int normalization, int last_dim_size) -> Tensor")
      .meta(c2r_meta)
      .compute(DispatchKey::CPU, c2r_cpu, Determinism::Bitwise)
      .takes_complex()
      .derivative(c2r_backward);
}

}  // namespace ct::ops
