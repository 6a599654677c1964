// scalar.h - Scalar, a number argument that remembers whether it was a bool, an int or a float,
// because that decides type promotion (int tensor + 2 stays int; + 2.0 becomes float32).
#pragma once

#include <cmath>
#include <cstdint>
#include <ostream>

#include "core/dtype.h"

namespace ct {

class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Float };
  Scalar() : kind_(Kind::Int), i_(0) {}
  Scalar(double v) : kind_(Kind::Float), d_(v) {}
  Scalar(int64_t v) : kind_(Kind::Int), i_(v) {}
  Scalar(int v) : kind_(Kind::Int), i_(v) {}
  Scalar(bool v) : kind_(Kind::Bool), i_(v) {}
  // A pointer would otherwise become Scalar(bool): std::optional<Scalar> o = &s must not compile.
  template <typename T>
  Scalar(T*) = delete;

  Kind kind() const { return kind_; }
  bool is_floating() const { return kind_ == Kind::Float; }
  bool is_integral() const { return kind_ == Kind::Int; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  /// The dtype of the 0-dim tensor this scalar wraps: bool, int64 or float64 (see Note [Wrapped numbers]).
  DType dtype() const { return kind_ == Kind::Float ? DType::Float64 : kind_ == Kind::Int ? DType::Int64 : DType::Bool; }

  double to_double() const { return kind_ == Kind::Float ? d_ : static_cast<double>(i_); }
  int64_t to_int() const { return kind_ == Kind::Float ? float_to_integer<int64_t>(d_) : i_; }
  /// Converts to T with C++ conversion rules, float to integer as float_to_integer does.
  template <typename T>
  T to() const {
    if constexpr (std::is_same<T, bool>::value) return kind_ == Kind::Float ? d_ != 0.0 : i_ != 0;
    else if constexpr (std::is_integral<T>::value)
      return kind_ == Kind::Float ? float_to_integer<T>(d_) : static_cast<T>(i_);
    else if (kind_ == Kind::Float) return static_cast<T>(static_cast<opmath_t<T>>(d_));
    else return static_cast<T>(static_cast<opmath_t<T>>(i_));
  }
  bool equals(double v) const { return to_double() == v; }

 private:
  Kind kind_;
  union {
    double d_;
    int64_t i_;
  };
};

inline std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  if (s.is_floating()) return os << s.to_double();
  if (s.is_bool()) return os << (s.to_int() ? "True" : "False");
  return os << s.to_int();
}

}  // namespace ct
