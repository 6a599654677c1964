// functions.cpp - torch.fft: fft, ifft, rfft, irfft, hfft and ihfft, their 2-D and n-D forms,
// fftfreq, rfftfreq, fftshift and ifftshift, with PyTorch's names, arguments and checks. Each is a
// composite: it promotes the input (integers to the default float dtype, real to complex where the
// transform is complex), pads with zeros or trims each transformed dim to the requested size, and
// calls the transforms of transforms.cpp, whose derivatives make theirs.
//
// norm names where the scale goes: "backward" (the default) leaves the forward transform unscaled
// and divides the inverse by n, "forward" the opposite, "ortho" divides both by sqrt(n). hfft is a
// forward transform (of a Hermitian signal, to a real spectrum) and ihfft its inverse:
//   hfft(x, n) = irfft(conj(x), n) with the scales swapped, ihfft(x) = conj(rfft(x)) likewise.
#include <string>
#include <string_view>

#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"
#include "runtime/defaults.h"

namespace ct::ops {
namespace {

// The normalization argument of the transforms (0 none, 1 by 1/sqrt(n), 2 by 1/n) for norm.
int64_t normalization_for(const char* fn, const Value& norm, bool forward) {
  const std::string_view s = norm.is_none() ? "backward" : std::string_view(norm.str());
  if (s == "backward") return forward ? 0 : 2;
  if (s == "forward") return forward ? 2 : 0;
  CT_CHECK(s == "ortho", CT_ERROR_INVALID_ARGUMENT, fn, ": Invalid normalization mode: \"", s,
           "\". Pass \"backward\", \"forward\" or \"ortho\"");
  return 1;
}

// x in the dtype the transform computes in: integers and bool as the default float dtype, real as
// complex when the transform takes complex input. float16 and bfloat16 are refused, as torch's cpu
// transforms refuse them.
Tensor promoted(const char* fn, const Tensor& x, bool to_complex) {
  DType d = x->dtype();
  if (!is_floating(d) && !is_complex(d)) d = runtime::default_dtype();
  CT_CHECK(d != DType::Float16 && d != DType::BFloat16, CT_ERROR_DTYPE, fn, ": Unsupported dtype ", d,
           " (input sizes ", x->sym_sizes(), "). Convert the input to float32 or float64 first");
  if (to_complex && !is_complex(d)) d = complex_dtype(d);
  return d == x->dtype() ? x : to(x, d);
}

void check_points(const char* fn, int64_t n) {
  CT_CHECK(n >= 1, CT_ERROR_INVALID_ARGUMENT, fn, ": Invalid number of data points (", n,
           ") specified. Pass a length of at least 1");
}

// x padded with zeros, or trimmed, at the end of each dims[i] to sizes[i].
Tensor resized(const Tensor& x, IntArrayRef dims, IntArrayRef sizes) {
  const size_t nd = x->dim();
  DimVector pad(2 * nd, 0);
  bool must_pad = false;
  Tensor y = x;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = dims[i], have = x->sym_size(d).guard_int();
    if (have > sizes[i]) y = narrow(y, d, 0, sizes[i]);
    if (have < sizes[i]) {
      pad[2 * (nd - 1 - static_cast<size_t>(d)) + 1] = sizes[i] - have;
      must_pad = true;
    }
  }
  return must_pad ? constant_pad_nd(y, pad.ref()) : y;
}

// Sizes are read with guard_int: a traced function is specialized to the transform's lengths.

// The dims and sizes an n-D transform covers, as torch reads s and dim: both given (the same
// length), dim alone (the input's sizes there), s alone (the last len(s) dims) or neither (every
// dim). An entry -1 of s keeps the input's size.
struct Shape {
  DimVector dims, sizes;
};
Shape fft_shape(const char* fn, const TensorImpl& x, const Value& s_arg, const Value& dim_arg) {
  const int64_t nd = static_cast<int64_t>(x.dim());
  Shape out;
  if (!dim_arg.is_none()) {
    for (int64_t d : dim_arg.int_list()) {
      const int64_t w = wrap_dim(fn, d, nd);
      for (int64_t seen : out.dims)
        CT_CHECK(seen != w, CT_ERROR_INVALID_ARGUMENT, fn, ": FFT dims must be unique, but got dim ",
                 dim_arg.int_list(), " for an input of sizes ", x.sym_sizes());
      out.dims.push_back(w);
    }
  }
  if (!s_arg.is_none()) {
    const IntArrayRef s = s_arg.int_list();
    if (!dim_arg.is_none()) {
      CT_CHECK(s.size() == out.dims.size(), CT_ERROR_INVALID_ARGUMENT, fn,
               ": When given, dim and shape arguments must have the same length, but got s ", s, " and dim ",
               dim_arg.int_list());
    } else {
      CT_CHECK(static_cast<int64_t>(s.size()) <= nd, CT_ERROR_INVALID_ARGUMENT, fn, ": Got shape with ", s.size(),
               " values but input tensor only has ", nd, " dimensions (sizes ", x.sym_sizes(), ")");
      for (int64_t d = nd - static_cast<int64_t>(s.size()); d < nd; ++d) out.dims.push_back(d);
    }
    for (size_t i = 0; i < s.size(); ++i) {
      const int64_t n = s[i] == -1 ? x.sym_size(out.dims[i]).guard_int() : s[i];
      check_points(fn, n);
      out.sizes.push_back(n);
    }
    return out;
  }
  if (dim_arg.is_none())
    for (int64_t d = 0; d < nd; ++d) out.dims.push_back(d);
  for (int64_t d : out.dims) out.sizes.push_back(x.sym_size(d).guard_int());
  return out;
}

// The one-dim transforms: (Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor.
enum class Kind { Fft, Ifft, Rfft, Irfft, Hfft, Ihfft };
constexpr const char* kind_name(Kind k) {
  constexpr const char* names[] = {"fft_fft", "fft_ifft", "fft_rfft", "fft_irfft", "fft_hfft", "fft_ihfft"};
  return names[static_cast<int>(k)];
}
constexpr bool is_forward(Kind k) { return k == Kind::Fft || k == Kind::Rfft || k == Kind::Hfft; }

// The transform of kind K over shape.dims (sizes shape.sizes; for irfft and hfft, the last size is
// the real output's), the input already promoted.
template <Kind K>
Tensor transform(const char* fn, const Tensor& input, const Shape& shape, const Value& norm_arg) {
  const int64_t norm = normalization_for(fn, norm_arg, is_forward(K));
  const IntArrayRef dims = shape.dims.ref();
  if constexpr (K == Kind::Fft || K == Kind::Ifft) {
    const Tensor x = resized(promoted(fn, input, true), dims, shape.sizes.ref());
    return _fft_c2c(x, dims, norm, K == Kind::Fft);
  } else if constexpr (K == Kind::Rfft || K == Kind::Ihfft) {
    CT_CHECK(!is_complex(input->dtype()), CT_ERROR_DTYPE, fn, ": expects a real input tensor, but got ",
             input->dtype(), " of sizes ", input->sym_sizes(), ". Use torch.fft.fft for complex input");
    CT_CHECK(!dims.empty(), CT_ERROR_INVALID_ARGUMENT, fn, ": must transform at least one axis");
    const Tensor x = resized(promoted(fn, input, false), dims, shape.sizes.ref());
    if (K == Kind::Rfft) return _fft_r2c(x, dims, norm, true);
    // ihfft: the conjugate of the real transform of the last dim, then the inverse of the others.
    const Tensor half = conj_physical(_fft_r2c(x, IntArrayRef(&dims.back(), 1), norm, true));
    return dims.size() == 1 ? half : _fft_c2c(half, IntArrayRef(dims.data(), dims.size() - 1), norm, false);
  } else {
    CT_CHECK(!dims.empty(), CT_ERROR_INVALID_ARGUMENT, fn, ": must transform at least one axis");
    const int64_t n = shape.sizes[shape.sizes.size() - 1];
    DimVector in_sizes(shape.sizes);
    in_sizes.back() = n / 2 + 1;
    Tensor x = resized(promoted(fn, input, true), dims, in_sizes.ref());
    if (K == Kind::Hfft) {
      // The forward transform of the other dims, then that of the Hermitian last dim, which is the
      // inverse real transform of the conjugate.
      if (dims.size() > 1) x = _fft_c2c(x, IntArrayRef(dims.data(), dims.size() - 1), norm, true);
      return _fft_c2r(conj_physical(x), IntArrayRef(&dims.back(), 1), norm, n);
    }
    return _fft_c2r(x, dims, norm, n);
  }
}

// The last size of irfft and hfft: n, or 2 (m - 1) for m input points.
int64_t real_output_points(const char* fn, const TensorImpl& x, int64_t dim) {
  const int64_t n = 2 * (x.sym_size(dim).guard_int() - 1);
  check_points(fn, n);
  return n;
}

// fft_<kind>(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor
template <Kind K>
void one_dim_kernel(void*, Frame& f) {
  const char* fn = kind_name(K);
  const Tensor x = Tensor::borrow(&f.tensor(0));
  CT_CHECK(x->dim() > 0, CT_ERROR_INVALID_ARGUMENT, fn,
           ": Invalid number of data points (0) specified: a 0-dim tensor has no dim to transform");
  Shape shape;
  shape.dims.push_back(wrap_dim(fn, f.arg(2).to_int(), static_cast<int64_t>(x->dim())));
  const int64_t d = shape.dims[0];
  int64_t n = 0;
  if (!f.arg(1).is_none()) n = f.arg(1).to_int();
  else n = K == Kind::Irfft || K == Kind::Hfft ? real_output_points(fn, *x, d) : x->sym_size(d).guard_int();
  check_points(fn, n);
  shape.sizes.push_back(n);
  f.outs[0] = transform<K>(fn, x, shape, f.arg(3));
}

// fft_<kind>2(Tensor self, SymInt[1]? s=None, int[1] dim=[-2,-1], str? norm=None) -> Tensor and
// fft_<kind>n(Tensor self, SymInt[1]? s=None, int[1]? dim=None, str? norm=None) -> Tensor
template <Kind K, bool TwoD>
void n_dim_kernel(void*, Frame& f) {
  constexpr const char* names2[] = {"fft_fft2", "fft_ifft2", "fft_rfft2", "fft_irfft2", "fft_hfft2", "fft_ihfft2"};
  constexpr const char* namesn[] = {"fft_fftn", "fft_ifftn", "fft_rfftn", "fft_irfftn", "fft_hfftn", "fft_ihfftn"};
  const char* fn = (TwoD ? names2 : namesn)[static_cast<int>(K)];
  const Tensor x = Tensor::borrow(&f.tensor(0));
  Shape shape = fft_shape(fn, *x, f.arg(1), f.arg(2));
  if ((K == Kind::Irfft || K == Kind::Hfft) && !shape.dims.empty() && f.arg(1).is_none())
    shape.sizes.back() = real_output_points(fn, *x, shape.dims.back());
  f.outs[0] = transform<K>(fn, x, shape, f.arg(3));
}

// fft_fftfreq(int n, float d=1.0, *, ScalarType? dtype=None, Device? device=None) -> Tensor: the
// sample frequencies [0, 1, ..., (n - 1) / 2, -(n / 2), ..., -1] / (d n) of a length-n transform;
// fft_rfftfreq the first n / 2 + 1 of them, all non-negative.
template <bool Onesided>
void freq_kernel(void*, Frame& f) {
  const char* fn = Onesided ? "fft_rfftfreq" : "fft_fftfreq";
  const int64_t n = f.arg(0).to_int();
  const double d = f.arg(1).to_double();
  // torch checks neither: rfftfreq(-1) is [-0.] (n / 2 + 1 = 1 point), fftfreq(-1) fails in arange.
  const DType dtype = f.arg(2).is_none() ? runtime::default_dtype() : f.arg(2).dtype();
  const Device device = f.arg(3).is_none() ? runtime::current_device() : f.arg(3).device();
  CT_CHECK(is_floating(dtype) || is_complex(dtype), CT_ERROR_DTYPE, fn, ": dtype ", dtype,
           " is not a floating or complex dtype. Pass float32 or float64");
  const int64_t count = Onesided ? n / 2 + 1 : n;
  Tensor k = arange(Scalar(0), Scalar(count), Scalar(1), dtype, device);
  if (!Onesided && n > 0) {  // the upper half is the negative frequencies
    const int64_t positive = (n + 1) / 2;
    k = cat({narrow(k, 0, 0, positive).impl(), sub(narrow(k, 0, positive, n - positive), Scalar(n)).impl()}, 0);
  }
  f.outs[0] = mul(k, Scalar(1.0 / (static_cast<double>(n) * d)));
}

// fft_fftshift(Tensor self, int[1]? dim=None) -> Tensor: each dim (every dim when None) rolled by
// half its size, so that frequency 0 is in the middle; ifftshift rolls back, by (size + 1) / 2.
template <bool Inverse>
void shift_kernel(void*, Frame& f) {
  const char* fn = Inverse ? "fft_ifftshift" : "fft_fftshift";
  const Tensor x = Tensor::borrow(&f.tensor(0));
  const int64_t nd = static_cast<int64_t>(x->dim());
  DimVector dims, shifts;
  if (f.arg(1).is_none()) {
    for (int64_t d = 0; d < nd; ++d) dims.push_back(d);
  } else {
    for (int64_t d : f.arg(1).int_list()) dims.push_back(wrap_dim(fn, d, nd));
  }
  CT_CHECK(!dims.empty(), CT_ERROR_INVALID_ARGUMENT, fn, ": `shifts` required: there is no dim to shift (input sizes ",
           x->sym_sizes(), ")");
  for (int64_t d : dims) {
    const int64_t size = x->sym_size(d).guard_int();
    shifts.push_back(Inverse ? (size + 1) / 2 : size / 2);
  }
  f.outs[0] = roll(x, shifts.ref(), dims.ref());
}

}  // namespace

void define_fft_functions(Registry& r) {
  const std::string one = "(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor";
  const std::string two = "2(Tensor self, SymInt[1]? s=None, int[1] dim=[-2,-1], str? norm=None) -> Tensor";
  const std::string many = "n(Tensor self, SymInt[1]? s=None, int[1]? dim=None, str? norm=None) -> Tensor";
  auto def = [&](const char* name, KernelFn one_dim, KernelFn two_dim, KernelFn n_dim) {
    r.def(name + one).composite(one_dim);
    r.def(name + two).composite(two_dim);
    r.def(name + many).composite(n_dim);
  };
  def("fft_fft", one_dim_kernel<Kind::Fft>, n_dim_kernel<Kind::Fft, true>, n_dim_kernel<Kind::Fft, false>);
  def("fft_ifft", one_dim_kernel<Kind::Ifft>, n_dim_kernel<Kind::Ifft, true>, n_dim_kernel<Kind::Ifft, false>);
  def("fft_rfft", one_dim_kernel<Kind::Rfft>, n_dim_kernel<Kind::Rfft, true>, n_dim_kernel<Kind::Rfft, false>);
  def("fft_irfft", one_dim_kernel<Kind::Irfft>, n_dim_kernel<Kind::Irfft, true>, n_dim_kernel<Kind::Irfft, false>);
  def("fft_hfft", one_dim_kernel<Kind::Hfft>, n_dim_kernel<Kind::Hfft, true>, n_dim_kernel<Kind::Hfft, false>);
  def("fft_ihfft", one_dim_kernel<Kind::Ihfft>, n_dim_kernel<Kind::Ihfft, true>, n_dim_kernel<Kind::Ihfft, false>);
  const std::string freq = "(int n, float d=1.0, *, ScalarType? dtype=None, Device? device=None) -> Tensor";
  r.def("fft_fftfreq" + freq).composite(freq_kernel<false>).device_arg(3).not_differentiable();
  r.def("fft_rfftfreq" + freq).composite(freq_kernel<true>).device_arg(3).not_differentiable();
  r.def("fft_fftshift(Tensor self, int[1]? dim=None) -> Tensor").composite(shift_kernel<false>);
  r.def("fft_ifftshift(Tensor self, int[1]? dim=None) -> Tensor").composite(shift_kernel<true>);
}

}  // namespace ct::ops
