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
  // SymInt and SymIntList hold symbolic values (see Note [Symbolic values in frames]); a list with
  // no symbolic element is an IntList.
  enum class Kind : uint8_t {
    None, Tensor, Int, Double, Bool, IntList, TensorList, DType, Device, String, Generator, SymInt, SymIntList
  };

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
  Value(SymInt v) : kind_(v.is_symbolic() ? Kind::SymInt : Kind::Int) { u_.i = v.raw(); }
  Value(SymIntArrayRef v)
      : kind_(any_symbolic(v) ? Kind::SymIntList : Kind::IntList), len_(v.size()) {
    u_.ints = reinterpret_cast<const int64_t*>(v.data());
  }
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
  /// Note [Symbolic values in frames]
  /// An int or int list argument may be symbolic when a meta function runs for a tracer or a meta
  /// tensor with symbolic sizes. to_symint() and sym_int_list() read both forms. to_int() on a
  /// symbolic int specializes it (a guard `s == value`); int_list() on a symbolic list raises
  /// CT_ERROR_GUARD, so an operator that reads sizes as plain ints fails loudly, never with bits
  /// of a tagged pointer.
  int64_t to_int() const { return __builtin_expect(kind_ == Kind::SymInt, 0) ? SymInt::from_raw(u_.i).guard_int() : u_.i; }
  SymInt to_symint() const { return kind_ == Kind::SymInt ? SymInt::from_raw(u_.i) : SymInt(u_.i); }
  SymIntArrayRef sym_int_list() const {
    if (kind_ == Kind::IntList)
      for (size_t i = 0; i < len_; ++i) SymInt checked(u_.ints[i]);  // a plain value never reads as a node
    return SymIntArrayRef(reinterpret_cast<const SymInt*>(u_.ints), len_);
  }
  bool is_symbolic() const { return kind_ == Kind::SymInt || kind_ == Kind::SymIntList; }
  bool to_bool() const { return u_.i != 0; }
  double to_double() const { return kind_ == Kind::Double ? u_.d : static_cast<double>(u_.i); }
  Scalar to_scalar() const {
    if (kind_ == Kind::Double) return Scalar(u_.d);
    if (kind_ == Kind::Bool) return Scalar(u_.i != 0);
    return Scalar(u_.i);
  }
  IntArrayRef int_list() const {
    if (__builtin_expect(kind_ == Kind::SymIntList, 0)) symbolic_list();
    return IntArrayRef(u_.ints, len_);
  }
  ArrayRef<const TensorImpl*> tensor_list() const { return ArrayRef<const TensorImpl*>(u_.ts, len_); }
  DType dtype() const { return static_cast<DType>(u_.i); }
  Device device() const { return u_.dev; }
  const char* str() const { return u_.s; }
  runtime::Generator* generator() const { return kind_ == Kind::Generator ? u_.g : nullptr; }

 private:
  [[noreturn]] void symbolic_list() const;
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
