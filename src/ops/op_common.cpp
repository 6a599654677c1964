#include "ops/op_common.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/functions.h"
#include "runtime/defaults.h"

namespace ct::ops {

Device common_device(const Frame& f) {
  Device dev = kCPU;
  const TensorImpl* first = nullptr;
  auto visit = [&](const TensorImpl& t, size_t arg) {
    // Numbers, wrapped or not (a saved exponent minus one in pow's derivative), go with any device.
    if (f.op.is_number(t, arg)) return;
    if (!first) {
      first = &t;
      dev = t.device();
      return;
    }
    CT_CHECK(t.device() == dev, CT_ERROR_DEVICE, f.op.schema.name, ": expected all tensors on one device, got ",
             dev, " and ", t.device(), ". Move them to one device first");
  };
  for (size_t i = 0; i < f.nargs; ++i) {
    const Value& v = f.args[i];
    if (v.is_tensor()) visit(v.tensor(), i);
    else if (v.kind() == Value::Kind::TensorList)
      for (const TensorImpl* t : v.tensor_list()) visit(*t, i);
  }
  return dev;
}

void check_scalar_fits(const char* op, const char* what, const Scalar& v, DType dtype) {
  if (dtype == DType::Bool || v.is_bool()) return;
  bool fits = true;
  const DType parts = real_dtype(dtype);  // a complex dtype holds numbers its parts' type holds
  if (is_floating(parts)) {
    const double largest = parts == DType::Float16 ? 65504.0
                           : parts == DType::BFloat16 ? 3.3895313892515355e38
                           : parts == DType::Float32 ? static_cast<double>(std::numeric_limits<float>::max())
                                                     : std::numeric_limits<double>::max();
    const double d = v.to_double();
    fits = !std::isfinite(d) || std::fabs(d) <= largest;
  } else {
    int64_t lo = 0, hi = 0;  // T's range
    bool is_unsigned = false;
    visit_dtype(dtype, op, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_integral<T>::value) {
        lo = static_cast<int64_t>(std::numeric_limits<T>::min());
        hi = static_cast<int64_t>(std::numeric_limits<T>::max());
        is_unsigned = !std::is_signed<T>::value;
      }
    });
    if (v.is_floating()) {  // compared as doubles, as PyTorch does (2^63 itself is past int64)
      const double d = v.to_double();
      fits = d >= static_cast<double>(lo) && d <= static_cast<double>(hi) && d < 9.2233720368547758e18;
    } else {  // an unsigned dtype also takes -hi..-1, which wrap (PyTorch's non-strict unsigned check)
      const int64_t i = v.to_int();
      fits = i >= (is_unsigned ? -hi : lo) && i <= hi;
    }
  }
  CT_CHECK(fits, CT_ERROR_INVALID_ARGUMENT, op, ": ", what, " ", v, " cannot be converted to ", dtype,
           " without overflow. Pass a value ", dtype, " can hold, or use another dtype");
}

DimVector broadcast_shapes(const char* op, IntArrayRef a, IntArrayRef b) {
  const size_t n = a.size() > b.size() ? a.size() : b.size();
  DimVector out;
  out.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    CT_CHECK(da == db || da == 1 || db == 1, CT_ERROR_SHAPE, op, ": shapes ", a, " and ", b,
             " do not broadcast (dim ", i, ": ", da, " vs ", db, "). Make the sizes equal, or one of them 1");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

SymDimVector broadcast_shapes(const char* op, SymIntArrayRef a, SymIntArrayRef b) {
  if (!any_symbolic(a) && !any_symbolic(b)) return SymDimVector(as_sym(broadcast_shapes(op, as_ints(a), as_ints(b))));
  const size_t n = a.size() > b.size() ? a.size() : b.size();
  SymDimVector out;
  out.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const SymInt da = i < n - a.size() ? SymInt(1) : a[i - (n - a.size())];
    const SymInt db = i < n - b.size() ? SymInt(1) : b[i - (n - b.size())];
    if (da.raw() == db.raw() || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else {
      CT_SYM_CHECK(da == db, CT_ERROR_SHAPE, op, ": shapes ", a, " and ", b, " do not broadcast (dim ", i, ": ", da,
                   " vs ", db, "). Make the sizes equal, or one of them 1");
      out[i] = da;
    }
  }
  return out;
}

int ResultType::combine(int higher, int lower) {
  if (higher < 0) return lower;
  if (lower < 0) return higher;
  const DType h = static_cast<DType>(higher), l = static_cast<DType>(lower);
  if (is_complex(h)) return higher;
  // A complex lower group makes the result complex, with the higher group's float width when it
  // has one (float64 tensor + complex64 0-dim tensor is complex128).
  if (is_complex(l)) return static_cast<int>(is_floating(h) ? complex_dtype(h) : l);
  if (is_floating(h)) return higher;
  if (h == DType::Bool || is_floating(l)) return static_cast<int>(promote_types(h, l));
  return higher;
}

void ResultType::add(const TensorImpl& t) { add(t, t.dtype()); }

void ResultType::add(const TensorImpl& t, DType d) {
  auto promote = [](int acc, DType d) {
    return acc < 0 ? static_cast<int>(d) : static_cast<int>(promote_types(static_cast<DType>(acc), d));
  };
  if (t.is_wrapped_number()) {
    // A wrapped float counts as the default dtype, a wrapped complex as its complex counterpart.
    const DType as = is_floating(d) ? runtime::default_dtype() : is_complex(d) ? complex_dtype(runtime::default_dtype()) : d;
    wrapped_ = promote(wrapped_, as);
  } else if (t.dim() == 0) {
    zero_ = promote(zero_, d);
  } else {
    dim_ = promote(dim_, d);
  }
}

void ResultType::add(const Scalar& s) {
  const DType d = s.is_floating() ? runtime::default_dtype() : s.dtype();
  wrapped_ = wrapped_ < 0 ? static_cast<int>(d) : static_cast<int>(promote_types(static_cast<DType>(wrapped_), d));
}

DType ResultType::result() const {
  const int r = combine(dim_, combine(zero_, wrapped_));
  return r < 0 ? runtime::default_dtype() : static_cast<DType>(r);
}

const TensorImpl* as_dtype(const TensorImpl& t, DType d, Tensor& holder) {
  if (t.dtype() == d) return &t;
  holder = to(Tensor::borrow(&t), d);
  return holder.impl();
}

Tensor optional_tensor(const Frame& f, size_t i) {
  return f.arg(i).is_none() ? Tensor() : Tensor::borrow(&f.tensor(i));
}

Tensor host_contiguous(const Tensor& t) {
  return expect_contiguous(t->device().type == DeviceType::CPU ? t : to(t, kCPU, t->dtype()));
}

Tensor wrap_scalar(const Scalar& s) {
  Tensor t = Tensor::adopt(TensorImpl::empty({}, s.dtype(), kCPU));
  switch (s.kind()) {
    case Scalar::Kind::Float: *t->data_as<double>() = s.to_double(); break;
    case Scalar::Kind::Int: *t->data_as<int64_t>() = s.to_int(); break;
    case Scalar::Kind::Bool: *t->data_as<bool>() = s.to_int() != 0; break;
  }
  t->set_wrapped_number(true);
  return t;
}

int64_t wrap_dim(const char* op, int64_t dim, int64_t ndim) {
  const int64_t n = ndim > 0 ? ndim : 1;
  CT_CHECK(dim >= -n && dim < n, CT_ERROR_INDEX, op, ": dim ", dim, " is out of range for a tensor of ", ndim,
           " dims (expected in [", -n, ", ", n - 1, "]). Pass a dim in that range");
  return dim < 0 ? dim + n : dim;
}

}  // namespace ct::ops
