// fft.cpp - CUDA compute for the three transforms every torch.fft function is made of (_fft_c2c,
// _fft_r2c, _fft_c2r), on cuFFT (the table's fft member), and for conj_physical, which hfft and
// ihfft call. The meta functions and derivatives are the operators' own
// (src/ops/fft/transforms.cpp, src/ops/pointwise/complex.cpp); the public functions of torch.fft
// (src/ops/fft/functions.cpp) are composites over these and run on cuda through them.
//
// cuFFT transforms the innermost 1 to 3 dims of contiguous signals, so each kernel takes the dims
// to transform in groups of up to three, last group first: it copies the tensor with the group's
// dims moved last (one contiguous copy, which also takes any strides), transforms them, and reads
// the result back in the input's dim order. Normalization multiplies the output's parts by the
// scale at the end, as cuFFT's transforms are unnormalized. Complex values move and scale as their
// parts (kernel_util.h: pairs_of).
#include <algorithm>

#include "core/error.h"
#include "cuda/driver_members.h"
#include "cuda/kernel_util.h"
#include "cuda/kernels.h"
#include "cuda/loop_plan.h"
#include "ops/fft/transforms.h"
#include "ops/op_common.h"

namespace ct::cuda {
namespace {

using ops::fft::normalization_of;
using ops::fft::scale_of;
using ops::fft::transform_dims;

// The dims a call transforms (its second argument, wrapped) and how many points they hold in its
// input.
DimVector dims_of(const char* fn, const Frame& f, bool may_be_empty, double* points) {
  const TensorImpl& a = f.tensor(0);
  const DimVector dims = transform_dims(fn, a, f.arg(1).int_list(), may_be_empty);
  *points = 1;
  for (int64_t d : dims) *points *= static_cast<double>(a.size(static_cast<size_t>(d)));
  return dims;
}

// The order that puts `last` (dims of t) after every other dim of t, keeping both in their order;
// and its inverse.
DimVector order_with_last(size_t ndim, IntArrayRef last) {
  DimVector perm;
  for (int64_t d = 0; d < static_cast<int64_t>(ndim); ++d)
    if (std::find(last.begin(), last.end(), d) == last.end()) perm.push_back(d);
  for (int64_t d : last) perm.push_back(d);
  return perm;
}
DimVector inverse_of(IntArrayRef perm) {
  DimVector inv(perm.size(), 0);
  for (size_t i = 0; i < perm.size(); ++i) inv[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return inv;
}

// t with its dims in the order perm, as a new contiguous tensor of dtype d.
Tensor copied_in_order(const char* fn, const TensorImpl& t, IntArrayRef perm, DType d, void* stream) {
  const Tensor view = permuted(t, perm);
  Tensor out = empty_on(view->sizes(), d, t.device());
  copy_into(fn, *out, *view, stream);
  return out;
}

// One cuFFT call over the innermost `rank` dims of the contiguous `in` (signal sizes n: the complex
// or real sizes as ct_cuda_fft says), with a workspace from the caching allocator.
void run_fft(const char* fn, int kind, bool inverse, const Tensor& in, const Tensor& out, IntArrayRef n, void* stream) {
  ct_cuda_fft a{};
  a.kind = kind;
  a.dtype = code(real_dtype(in->dtype()));
  a.inverse = inverse ? 1 : 0;
  a.rank = static_cast<int32_t>(n.size());
  int64_t points = 1;
  for (size_t i = 0; i < n.size(); ++i) a.n[i] = n[i], points *= n[i];
  const Tensor& real_side = kind == CT_CUDA_FFT_C2R ? out : in;  // whose element count is batch * points
  a.batch = kind == CT_CUDA_FFT_C2C ? in->numel() / points : real_side->numel() / points;
  a.in = in->data();
  a.out = out->data();
  const ct_cuda_driver& d = CT_CUDA_DRIVER_WITH(fn, fft);
  size_t bytes = 0;
  check(d.fft_workspace(&a, &bytes), fn);
  const Tensor work = empty_on({static_cast<int64_t>(bytes)}, DType::UInt8, in->device());
  check(d.fft(&a, bytes ? work->data() : nullptr, bytes, stream), fn);
}

// The sizes of t along dims.
DimVector sizes_along(const TensorImpl& t, IntArrayRef dims) {
  DimVector n;
  for (int64_t d : dims) n.push_back(t.size(static_cast<size_t>(d)));
  return n;
}

// The complex transforms of t (complex) over dims, up to three per cuFFT call, the last three first:
// the result in t's dim order (a view of a new tensor).
Tensor c2c_over(const char* fn, Tensor t, IntArrayRef dims, bool inverse, void* stream) {
  DimVector left(dims);
  while (!left.empty()) {
    const size_t take = std::min<size_t>(3, left.size());
    const DimVector group(IntArrayRef(left.data() + left.size() - take, take));
    left.resize(left.size() - take);
    const DimVector perm = order_with_last(t->dim(), group.ref());
    const Tensor work = copied_in_order(fn, *t, perm.ref(), t->dtype(), stream);
    run_fft(fn, CT_CUDA_FFT_C2C, inverse, work, work, sizes_along(*t, group.ref()).ref(), stream);
    t = permuted(*work, inverse_of(perm.ref()).ref());
  }
  return t;
}

// out = t, times scale unless it is 1 (the real and imaginary parts alike).
void store_scaled(const char* fn, const TensorImpl& out, const TensorImpl& t, double scale, void* stream) {
  copy_into(fn, out, t, stream);
  if (scale == 1.0) return;
  const Tensor parts = is_complex(out.dtype()) ? pairs_of(out) : Tensor::borrow(&out);
  const DType real = parts->dtype();
  const Tensor factor = empty_on({}, real, out.device());
  fill(fn, *factor, Scalar(scale), stream);
  const TensorImpl* in[2] = {parts.impl(), factor.impl()};
  const ct_cuda_loop loop = plan_loop(fn, *parts, in, 2);
  check(driver().binary(CT_CUDA_BINARY_MUL, code(real), code(real), code(real), code(real), 1.0, parts->data(),
                        parts->data(), factor->data(), &loop, stream),
        fn);
}

// _fft_c2c(Tensor self, int[] dim, int normalization, bool forward) -> Tensor
void c2c_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = "_fft_c2c";
  const TensorImpl& a = f.tensor(0);
  const TensorImpl& out = *outs[0];
  if (out.numel() == 0) return;
  void* stream = stream_for(out);
  double points = 1;
  const DimVector dims = dims_of(fn, f, true, &points);
  const Tensor result = c2c_over(fn, Tensor::borrow(&a), dims.ref(), !f.arg(3).to_bool(), stream);
  store_scaled(fn, out, *result, scale_of(normalization_of(fn, f.arg(2)), points), stream);
}

// _fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) -> Tensor: the last dim listed
// is the real transform. The whole spectrum (onesided false) is the complex transform of the
// input made complex.
void r2c_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = "_fft_r2c";
  const TensorImpl& a = f.tensor(0);
  const TensorImpl& out = *outs[0];
  if (out.numel() == 0) return;
  void* stream = stream_for(out);
  double points = 1;
  const DimVector dims = dims_of(fn, f, false, &points);
  const double scale = scale_of(normalization_of(fn, f.arg(2)), points);
  if (!f.arg(3).to_bool()) {
    const Tensor z = empty_on(a.sizes(), out.dtype(), a.device());
    copy_into(fn, *z, a, stream);
    store_scaled(fn, out, *c2c_over(fn, z, dims.ref(), false, stream), scale, stream);
    return;
  }
  // The real transform over the last group (up to three dims, the real one innermost), then the
  // complex transforms of the dims before it.
  const size_t take = std::min<size_t>(3, dims.size());
  const DimVector group(IntArrayRef(dims.data() + dims.size() - take, take));
  const DimVector rest(IntArrayRef(dims.data(), dims.size() - take));
  const DimVector perm = order_with_last(a.dim(), group.ref());
  const Tensor real_in = copied_in_order(fn, a, perm.ref(), a.dtype(), stream);
  DimVector half_sizes(real_in->sizes());
  half_sizes.back() = half_sizes.back() / 2 + 1;
  const Tensor half = empty_on(half_sizes.ref(), out.dtype(), a.device());
  run_fft(fn, CT_CUDA_FFT_R2C, false, real_in, half, sizes_along(a, group.ref()).ref(), stream);
  const Tensor result = c2c_over(fn, permuted(*half, inverse_of(perm.ref()).ref()), rest.ref(), false, stream);
  store_scaled(fn, out, *result, scale, stream);
}

// _fft_c2r(Tensor self, int[] dim, int normalization, int last_dim_size) -> Tensor: the complex
// inverse transforms of the other dims first, then the real inverse transform of the last one alone,
// on a copy, which cuFFT overwrites. One dim at a time, as the cpu: the imaginary parts a real
// transform ignores (at frequencies 0 and n / 2) are then those of the same numbers on both
// devices, even for a spectrum that is not Hermitian.
void c2r_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* fn = "_fft_c2r";
  const TensorImpl& a = f.tensor(0);
  const TensorImpl& out = *outs[0];
  if (out.numel() == 0) return;
  void* stream = stream_for(out);
  const DimVector dims = transform_dims(fn, a, f.arg(1).int_list(), false);
  const int64_t n = f.arg(3).to_int(), last = dims[dims.size() - 1];
  double points = static_cast<double>(n);
  for (size_t i = 0; i + 1 < dims.size(); ++i) points *= static_cast<double>(a.size(static_cast<size_t>(dims[i])));
  const DimVector group{last};
  const DimVector rest(IntArrayRef(dims.data(), dims.size() - 1));
  // The first n / 2 + 1 points of the Hermitian dim are the ones the transform reads.
  DimVector sizes(a.sizes());
  sizes[static_cast<size_t>(last)] = n / 2 + 1;
  const Tensor spectrum = Tensor::adopt(TensorImpl::view_of(a, sizes.ref(), a.strides(), a.storage_offset()));
  const Tensor mixed = c2c_over(fn, spectrum, rest.ref(), true, stream);
  const DimVector perm = order_with_last(a.dim(), group.ref());
  const Tensor complex_in = copied_in_order(fn, *mixed, perm.ref(), a.dtype(), stream);
  DimVector real_sizes(complex_in->sizes());
  real_sizes.back() = n;
  const Tensor real_out = empty_on(real_sizes.ref(), out.dtype(), a.device());
  run_fft(fn, CT_CUDA_FFT_C2R, true, complex_in, real_out, {n}, stream);
  store_scaled(fn, out, *permuted(*real_out, inverse_of(perm.ref()).ref()),
               scale_of(normalization_of(fn, f.arg(2)), points), stream);
}

// conj_physical(Tensor self) -> Tensor: the real parts copied, the imaginary ones negated; a real
// tensor copied.
void conj_physical_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  const TensorImpl& out = *outs[0];
  if (out.numel() == 0) return;
  void* stream = stream_for(out);
  if (!is_complex(a.dtype())) {
    copy_into("conj_physical", out, a, stream);
    return;
  }
  copy_into("conj_physical", *pairs_of(out, 0), *pairs_of(a, 0), stream);
  const Tensor im_out = pairs_of(out, 1), im_in = pairs_of(a, 1);
  const TensorImpl* in = im_in.impl();
  const ct_cuda_loop loop = plan_loop("conj_physical", *im_out, &in, 1);
  const int real = code(im_out->dtype());
  check(driver().unary(CT_CUDA_UNARY_NEG, real, real, real, im_out->data(), im_in->data(), &loop, stream),
        "conj_physical");
}

}  // namespace

void register_fft_kernels(Registry& r) {
  set_cuda_compute(r, "_fft_c2c", c2c_cuda);
  set_cuda_compute(r, "_fft_r2c", r2c_cuda);
  set_cuda_compute(r, "_fft_c2r", c2r_cuda);
  set_cuda_compute(r, "conj_physical", conj_physical_cuda);
}

}  // namespace ct::cuda
