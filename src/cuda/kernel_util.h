// kernel_util.h - what the CUDA compute functions share: dtype codes, the table's compute dtype,
// the device and stream of a call, operands brought onto the device, fills and copies.
//
// Everything here calls the driver table only when a kernel runs (never at registration); device
// memory reaches the host only through read_back.
#pragma once

#include <vector>

#include "core/scalar.h"
#include "core/tensor.h"
#include "cuda/context.h"

namespace ct::cuda {

[[noreturn]] void no_complex_kernels(DType d);
/// The ct_dtype code the table takes (DType's value). The table has no complex kernels: a complex
/// dtype raises CT_ERROR_NOT_IMPLEMENTED here, before any call. What moves complex values without
/// arithmetic (fill, copy_into, the transforms) goes through their parts (pairs_of).
inline int code(DType d) {
  if (is_complex(d)) no_complex_kernels(d);
  return static_cast<int>(d);
}

/// The dtype the table computes in for a computation ctorch runs in d: float32 for the 16-bit
/// floats and float32, float64, int64 for the integers, bool.
DType table_compute(DType d);

/// The table's compute-dtype classes an op accepts (F, I, B in ct_cuda_driver.h), and the class of
/// a compute dtype.
constexpr unsigned kF = 1, kI = 2, kB = 4, kFI = kF | kI, kFIB = kF | kI | kB;
unsigned class_of(DType compute);

/// Raises CT_ERROR_NOT_IMPLEMENTED: "<op>: not implemented for <dtype> tensors on cuda...".
[[noreturn]] void unsupported(const char* op, DType d, const char* what = "");

/// Makes t's device current on this thread and returns the stream its work runs on.
void* stream_for(const TensorImpl& t);

/// A fresh contiguous device tensor (no fill, even in deterministic mode: the caller writes it).
Tensor empty_on(IntArrayRef sizes, DType dtype, Device device);

/// The value of a 0-dim (or one-element) cpu tensor, read on the host.
Scalar host_scalar(const TensorImpl& t);

/// t when it is on device; a one-element cpu tensor (a wrapped number, or a 0-dim cpu tensor that
/// common_device lets through) becomes a 0-dim device tensor of its dtype, kept in holder, filled on
/// stream. Anything else is CT_ERROR_DEVICE.
const TensorImpl* on_device(const char* op, const TensorImpl& t, Device device, void* stream, Tensor& holder);

/// Note [Narrow integer compute]: the table computes every integer dtype in int64, which gives the
/// cpu's results for arithmetic (wrapped on the store) but not where an operand's value changes
/// when it is converted to the compute dtype first, as on the cpu: uint8 compares with -1 as with
/// 255, the minimum of uint8 and an int8 -2 is taken against 254. So an operand of another dtype
/// than a narrow integer compute dtype is converted to it (in holder) before the call, and scalar
/// parameters go through as_compute.
const TensorImpl* in_compute_dtype(const TensorImpl& t, DType compute, Tensor& holder);
/// v as the compute dtype holds it, as the cpu kernels read a scalar operand (see the Note above).
double as_compute(const Scalar& v, DType compute);

/// A complex tensor's (real, imaginary) pairs as a real one, view_as_real's layout (sizes + [2]);
/// with part 0 or 1, only the real or the imaginary parts (t's sizes). Metadata only.
Tensor pairs_of(const TensorImpl& t, int part = -1);

/// Writes v (converted to out's dtype) to every element of out, whatever its strides. A complex
/// out gets v as its real parts and zeros as its imaginary ones.
void fill(const char* op, const TensorImpl& out, const Scalar& v, void* stream);
/// The same with the value of v, a one-element cpu tensor, which may be complex (a Scalar cannot):
/// a complex v fills a complex out part by part, and is cast to a real out as torch casts it.
void fill_from_host(const char* op, const TensorImpl& out, const TensorImpl& v, void* stream);

/// dst = src converted to dst's dtype, src broadcast to dst's sizes; both on dst's device, no
/// partial overlap (the caller clones an overlapping src first). Complex values copy as their
/// parts: a real src gives zero imaginary parts, and a real dst (not bool) takes the real parts, as
/// torch's cast does.
void copy_into(const char* op, const TensorImpl& dst, const TensorImpl& src, void* stream);

/// t as a contiguous device tensor of dtype d (t itself when it already is one).
Tensor contiguous_as(const TensorImpl& t, DType d);

/// A view of t with its dims in the order perm (metadata only; no dispatch, no device work).
Tensor permuted(const TensorImpl& t, IntArrayRef perm);

/// n values of T copied from device memory on stream, which is synchronized: how a kernel's error
/// flag (a bad index, a bad probability) reaches the host, once per call.
template <typename T>
std::vector<T> read_back(const char* op, const void* src, int64_t n, void* stream) {
  std::vector<T> host(static_cast<size_t>(n));
  if (n == 0) return host;
  const ct_cuda_driver& d = driver();
  check(d.memcpy_async(host.data(), src, sizeof(T) * static_cast<size_t>(n), CT_CUDA_MEMCPY_D2H, stream), op);
  check(d.stream_synchronize(stream), op);
  return host;
}

}  // namespace ct::cuda
