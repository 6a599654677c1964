// op_common.h - what meta functions share: devices, broadcasting, PyTorch's type promotion, dims.
#pragma once

#include "core/scalar.h"
#include "core/tensor.h"
#include "dispatch/operator.h"

namespace ct::ops {

/// The device every tensor argument shares; 0-dim cpu tensors (numbers) go with any device.
/// Raises CT_ERROR_DEVICE naming the operator and both devices.
Device common_device(const Frame& f);

/// Broadcasts a onto b (torch.broadcast_shapes); CT_ERROR_SHAPE names the dim that disagrees.
DimVector broadcast_shapes(const char* op, IntArrayRef a, IntArrayRef b);
/// The same for symbolic sizes: deciding whether a size is 1, or two sizes equal, records guards.
SymDimVector broadcast_shapes(const char* op, SymIntArrayRef a, SymIntArrayRef b);

/// Note [Type promotion]: torch.result_type. Inputs fall in three groups, dimensioned tensors,
/// 0-dim tensors and wrapped numbers (see Note [Wrapped numbers]); each group promotes within
/// itself, and a lower group only counts when its category (bool < integer < floating < complex) is
/// higher. A wrapped float counts as the default float dtype (float32), a wrapped complex as the
/// default complex dtype (complex64).
class ResultType {
 public:
  void add(const TensorImpl& t);
  /// t as if its dtype were d (its dims and wrapped-ness count as t's): ldexp's exponent, an
  /// integer tensor that takes part as the float tensor 2^other.
  void add(const TensorImpl& t, DType d);
  void add(const Scalar& s);
  DType result() const;

 private:
  static int combine(int higher, int lower);
  int dim_ = -1, zero_ = -1, wrapped_ = -1;  // -1: no input in the group yet
};

/// t itself when it already has dtype d (no reference taken), else a converted copy kept in holder.
const TensorImpl* as_dtype(const TensorImpl& t, DType d, Tensor& holder);

/// Raises CT_ERROR_INVALID_ARGUMENT naming op when the number v cannot be stored in dtype without
/// overflow, as PyTorch's fill-like operators refuse it (full, fill, masked_fill, index_fill,
/// scatter, clamp): an integer dtype takes integers in its range (uint8 also -255..-1, which wrap,
/// as in PyTorch) and finite floats within it, never NaN; a floating dtype takes any number but a
/// finite one past its largest; bool takes anything.
void check_scalar_fits(const char* op, const char* what, const Scalar& v, DType dtype);

/// Note [Values read on the host]: a composite kernel runs on whatever device its tensors are on,
/// and a tensor's data pointer is the host's to read only on the cpu. One that looks at values (an
/// index range check, a data-dependent size, a probability range) reads them through this: t
/// itself on the cpu, made contiguous, or a contiguous copy brought to the cpu from another device
/// (which waits for it, as PyTorch's item() and nonzero do). Never on meta: callers check first.
Tensor host_contiguous(const Tensor& t);

/// Argument i of a kernel's frame: its tensor, or an undefined Tensor for None (a "Tensor?").
Tensor optional_tensor(const Frame& f, size_t i);

/// A 0-dim cpu tensor holding s, flagged as a wrapped number.
Tensor wrap_scalar(const Scalar& s);

/// dim in [-ndim, ndim) mapped to [0, ndim); CT_ERROR_INDEX otherwise. A 0-dim tensor accepts
/// -1 and 0, as PyTorch does.
int64_t wrap_dim(const char* op, int64_t dim, int64_t ndim);

/// One output of the given sizes and dtype on device.
inline void set_output(MetaResult& m, size_t i, SymIntArrayRef sizes, DType dtype, Device device) {
  m.outs[i].sizes = sizes;
  m.outs[i].dtype = dtype;
  m.outs[i].device = device;
}
inline void set_output(MetaResult& m, size_t i, IntArrayRef sizes, DType dtype, Device device) {
  m.outs[i].sizes.resize(sizes.size());
  for (size_t d = 0; d < sizes.size(); ++d) m.outs[i].sizes[d] = SymInt(sizes[d]);  // checked: never a node
  m.outs[i].dtype = dtype;
  m.outs[i].device = device;
}
inline void set_output(MetaResult& m, size_t i, std::initializer_list<SymInt> sizes, DType dtype, Device device) {
  set_output(m, i, SymIntArrayRef(sizes), dtype, device);
}

}  // namespace ct::ops
