#include "cuda/kernel_util.h"

#include <cmath>
#include <type_traits>

#include "core/error.h"
#include "cuda/loop_plan.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::cuda {

DType table_compute(DType d) {
  switch (d) {
    case DType::Bool: return DType::Bool;
    case DType::Float16:
    case DType::BFloat16:
    case DType::Float32: return DType::Float32;
    case DType::Float64: return DType::Float64;
    default: return DType::Int64;
  }
}

unsigned class_of(DType compute) {
  const DType c = table_compute(compute);
  return c == DType::Bool ? kB : is_floating(c) ? kF : kI;
}

void no_complex_kernels(DType d) {
  fail(CT_ERROR_NOT_IMPLEMENTED,
       str("cuda: no kernel for ", d, " tensors: on cuda, complex tensors only move, copy, add, sum and go ",
           "through torch.fft's transforms in this build. Compute the rest on the cpu: move them with to(\"cpu\")"));
}

void unsupported(const char* op, DType d, const char* what) {
  fail(CT_ERROR_NOT_IMPLEMENTED, str(op, ": not implemented for ", d, " tensors on cuda", *what ? " (" : "", what,
                                     *what ? ")" : "", ". Convert with to() first, or compute it on the cpu"));
}

void* stream_for(const TensorImpl& t) {
  const int index = t.device().index;
  set_device(index);
  return current_stream(index);
}

Tensor empty_on(IntArrayRef sizes, DType dtype, Device device) {
  return Tensor::adopt(TensorImpl::empty(sizes, dtype, device));
}

Scalar host_scalar(const TensorImpl& t) {
  Scalar s;
  visit_dtype(t.dtype(), "cuda", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = *t.data_as<T>();
    if constexpr (std::is_same_v<T, bool>) s = Scalar(v);
    else if constexpr (std::is_integral_v<T>) s = Scalar(static_cast<int64_t>(v));
    else s = Scalar(static_cast<double>(static_cast<opmath_t<T>>(v)));
  });
  return s;
}

static bool narrow_integer(DType d) { return !is_floating(d) && d != DType::Bool && table_compute(d) != d; }

const TensorImpl* in_compute_dtype(const TensorImpl& t, DType compute, Tensor& holder) {
  return narrow_integer(compute) ? ops::as_dtype(t, compute, holder) : &t;
}

double as_compute(const Scalar& v, DType compute) {
  double r = v.to_double();
  if (narrow_integer(compute))
    visit_dtype(compute, "cuda", [&](auto tag) {  // Scalar::to, as the cpu kernels read it
      using T = typename decltype(tag)::type;
      if constexpr (std::is_integral_v<T>) r = static_cast<double>(v.template to<T>());
    });
  return r;
}

const TensorImpl* on_device(const char* op, const TensorImpl& t, Device device, void* stream, Tensor& holder) {
  if (t.device() == device) return &t;
  CT_CHECK(t.device().is_cpu() && t.numel() == 1, CT_ERROR_DEVICE, op, ": an input is on ", t.device(), " (sizes ",
           t.sizes(), ") but the call runs on ", device, ". Move it with to()");
  holder = empty_on({}, t.dtype(), device);
  fill_from_host(op, *holder, t, stream);
  return holder.impl();
}

Tensor pairs_of(const TensorImpl& t, int part) {
  SymDimVector sizes, strides;
  for (int64_t s : t.sizes()) sizes.push_back(SymInt(s));
  for (int64_t s : t.strides()) strides.push_back(SymInt(2 * s));
  int64_t offset = 2 * t.storage_offset();
  if (part < 0) {
    sizes.push_back(SymInt(2));
    strides.push_back(SymInt(1));
  } else {
    offset += part;
  }
  return Tensor::adopt(TensorImpl::view_of(t, sizes.ref(), strides.ref(), SymInt(offset), real_dtype(t.dtype())));
}

void fill_from_host(const char* op, const TensorImpl& out, const TensorImpl& v, void* stream) {
  if (!is_complex(v.dtype())) return fill(op, out, host_scalar(v), stream);
  const Scalar re = host_scalar(*pairs_of(v, 0)), im = host_scalar(*pairs_of(v, 1));
  if (is_complex(out.dtype())) {
    fill(op, *pairs_of(out, 0), re, stream);
    fill(op, *pairs_of(out, 1), im, stream);
  } else if (out.dtype() == DType::Bool) {  // torch's cast: either part nonzero
    fill(op, out, Scalar(re.to_double() != 0 || im.to_double() != 0), stream);
  } else {  // torch's cast keeps the real part
    fill(op, out, re, stream);
  }
}

void fill(const char* op, const TensorImpl& out, const Scalar& v, void* stream) {
  if (out.numel() == 0) return;
  if (is_complex(out.dtype())) {
    fill(op, *pairs_of(out, 0), v, stream);
    fill(op, *pairs_of(out, 1), Scalar(0.0), stream);
    return;
  }
  const ct_cuda_loop loop = plan_loop(op, out, nullptr, 0);
  // The integer value for integer and bool dtypes: a float truncates toward zero (out of range
  // or NaN gives 0 rather than undefined behaviour); bool tests != 0.
  int64_t iv = 0;
  if (out.dtype() == DType::Bool) {
    iv = v.to_double() != 0 || (!v.is_floating() && v.to_int() != 0);
  } else if (!is_floating(out.dtype())) {
    const double d = v.to_double();
    iv = !v.is_floating() ? v.to_int() : (std::isfinite(d) && std::fabs(d) < 9.2e18 ? static_cast<int64_t>(d) : 0);
  }
  check(driver().fill(code(out.dtype()), v.to_double(), iv, out.data(), &loop, stream), op);
}

// cast_value's rules (ops/cpu/cast.h) through the table's in -> compute -> out conversion: floats
// keep their precision until the store, integers pass through int64, bool tests != 0.
static DType copy_compute(DType dst, DType src) {
  if (dst == DType::Bool) return DType::Bool;
  if (dst == DType::Float64 || src == DType::Float64) return DType::Float64;
  if (is_floating(dst) || is_floating(src)) return DType::Float32;
  return DType::Int64;
}

void copy_into(const char* op, const TensorImpl& dst, const TensorImpl& src, void* stream) {
  if (dst.numel() == 0) return;
  if (is_complex(dst.dtype()) && is_complex(src.dtype())) {
    copy_into(op, *pairs_of(dst), *pairs_of(src), stream);
    return;
  }
  if (is_complex(dst.dtype())) {
    copy_into(op, *pairs_of(dst, 0), src, stream);
    fill(op, *pairs_of(dst, 1), Scalar(0.0), stream);
    return;
  }
  if (is_complex(src.dtype()) && dst.dtype() != DType::Bool) {
    copy_into(op, dst, *pairs_of(src, 0), stream);
    return;
  }
  const TensorImpl* in = &src;
  const ct_cuda_loop loop = plan_loop(op, dst, &in, 1);
  check(driver().unary(CT_CUDA_UNARY_COPY, code(dst.dtype()), code(src.dtype()),
                       code(copy_compute(dst.dtype(), src.dtype())), dst.data(), src.data(), &loop, stream),
        op);
}

Tensor contiguous_as(const TensorImpl& t, DType d) {
  if (t.is_contiguous() && t.dtype() == d) return Tensor::borrow(&t);
  Tensor out = empty_on(t.sizes(), d, t.device());
  copy_into("contiguous", *out, t, stream_for(t));
  return out;
}

Tensor permuted(const TensorImpl& t, IntArrayRef perm) {
  DimVector sizes, strides;
  for (int64_t d : perm) {
    sizes.push_back(t.size(static_cast<size_t>(d)));
    strides.push_back(t.stride(static_cast<size_t>(d)));
  }
  return Tensor::adopt(TensorImpl::view_of(t, sizes, strides, t.storage_offset()));
}

}  // namespace ct::cuda
