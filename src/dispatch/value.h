// value.h - Value, one boxed operator argument. Values borrow: a Value never owns a tensor or a
// list, so a call frame of Values lives on the stack and costs no allocation.
#pragma once

#include <cstdint>

#include "core/array_ref.h"
#include "core/device.h"
#include "core/dtype.h"
#include "core/scalar.h"
#include "core/tensor.h"

namespace ct {

namespace runtime {
class Generator;  // runtime/generator.h
}

class Value {
 public:
  enum class Kind : uint8_t { None, Tensor, Int, Double, Bool, IntList, TensorList, DType, Device, String, Generator };

  Value() = default;
  Value(const Tensor& t) : kind_(Kind::Tensor) { u_.t = t.impl(); }
  Value(const TensorImpl* t) : kind_(Kind::Tensor) { u_.t = t; }
  Value(int64_t v) : kind_(Kind::Int) { u_.i = v; }
  Value(int v) : kind_(Kind::Int) { u_.i = v; }
  Value(double v) : kind_(Kind::Double) { u_.d = v; }
  Value(bool v) : kind_(Kind::Bool) { u_.i = v; }
  Value(const Scalar& s) {
    if (s.is_floating()) {
      kind_ = Kind::Double;
      u_.d = s.to_double();
    } else {
      kind_ = s.is_bool() ? Kind::Bool : Kind::Int;
      u_.i = s.to_int();
    }
  }
  Value(IntArrayRef v) : kind_(Kind::IntList), len_(v.size()) { u_.ints = v.data(); }
  Value(ArrayRef<const TensorImpl*> v) : kind_(Kind::TensorList), len_(v.size()) { u_.ts = v.data(); }
  Value(DType d) : kind_(Kind::DType) { u_.i = static_cast<int64_t>(d); }
  Value(Device d) : kind_(Kind::Device) { u_.dev = d; }
  Value(const char* s) : kind_(Kind::String) { u_.s = s; }
  /// A generator argument; null is None (the device's default generator).
  Value(runtime::Generator* g) : kind_(g ? Kind::Generator : Kind::None) { u_.g = g; }

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::None; }
  bool is_tensor() const { return kind_ == Kind::Tensor; }
  const TensorImpl& tensor() const { return *u_.t; }
  const TensorImpl* tensor_ptr() const { return u_.t; }
  int64_t to_int() const { return u_.i; }
  bool to_bool() const { return u_.i != 0; }
  double to_double() const { return kind_ == Kind::Double ? u_.d : static_cast<double>(u_.i); }
  Scalar to_scalar() const {
    if (kind_ == Kind::Double) return Scalar(u_.d);
    if (kind_ == Kind::Bool) return Scalar(u_.i != 0);
    return Scalar(u_.i);
  }
  IntArrayRef int_list() const { return IntArrayRef(u_.ints, len_); }
  ArrayRef<const TensorImpl*> tensor_list() const { return ArrayRef<const TensorImpl*>(u_.ts, len_); }
  DType dtype() const { return static_cast<DType>(u_.i); }
  Device device() const { return u_.dev; }
  const char* str() const { return u_.s; }
  runtime::Generator* generator() const { return kind_ == Kind::Generator ? u_.g : nullptr; }

 private:
  Kind kind_ = Kind::None;
  size_t len_ = 0;
  union {
    const TensorImpl* t;
    int64_t i;
    double d;
    const int64_t* ints;
    const TensorImpl* const* ts;
    Device dev;
    const char* s;
    runtime::Generator* g;
  } u_{};
};

}  // namespace ct
