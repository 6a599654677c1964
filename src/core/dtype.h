// dtype.h - DType, its C++ types, PyTorch's promotion lattice, and the one dtype dispatch helper.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <ostream>
#include <type_traits>

#include "core/error.h"
#include "core/half.h"

namespace ct {

/// Element types; values equal ct_dtype's.
enum class DType : uint8_t { Bool, UInt8, Int8, Int16, Int32, Int64, Float16, BFloat16, Float32, Float64 };
constexpr int kNumDTypes = 10;

inline size_t itemsize(DType d) {
  constexpr unsigned char sizes[kNumDTypes] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
  return sizes[static_cast<int>(d)];
}
const char* dtype_name(DType d);
inline std::ostream& operator<<(std::ostream& os, DType d) { return os << dtype_name(d); }

inline bool is_floating(DType d) { return d >= DType::Float16; }
inline bool is_integral(DType d, bool include_bool) {
  return d == DType::Bool ? include_bool : d <= DType::Int64;
}
/// A dtype from a C value, or CT_ERROR_INVALID_ARGUMENT naming what was passed.
DType dtype_from_c(int value);

/// torch.promote_types: the smallest dtype both a and b convert to without losing category.
DType promote_types(DType a, DType b);

template <typename T> struct DTypeOf;
#define CT_DTYPE_OF(T, D) template <> struct DTypeOf<T> { static constexpr DType value = DType::D; };
CT_DTYPE_OF(bool, Bool)
CT_DTYPE_OF(uint8_t, UInt8)
CT_DTYPE_OF(int8_t, Int8)
CT_DTYPE_OF(int16_t, Int16)
CT_DTYPE_OF(int32_t, Int32)
CT_DTYPE_OF(int64_t, Int64)
CT_DTYPE_OF(Half, Float16)
CT_DTYPE_OF(BFloat16, BFloat16)
CT_DTYPE_OF(float, Float32)
CT_DTYPE_OF(double, Float64)
#undef CT_DTYPE_OF

/// The type arithmetic on T happens in: float for the 16-bit floats, T otherwise.
template <typename T> struct OpMath { using type = T; };
template <> struct OpMath<Half> { using type = float; };
template <> struct OpMath<BFloat16> { using type = float; };
template <typename T> using opmath_t = typename OpMath<T>::type;

/// A floating value converted to the integer type I as the x86 conversion instructions do (what
/// PyTorch gives there): truncated toward zero into int32 (int64 for 64-bit I) and then wrapped
/// into I, with NaN and values out of that range becoming its minimum. A plain static_cast is
/// undefined for them.
template <typename I, typename F>
inline I float_to_integer(F x) {
  using Wide = std::conditional_t<sizeof(I) == 8, int64_t, int32_t>;
  constexpr double lo = -static_cast<double>(uint64_t{1} << (8 * sizeof(Wide) - 1));
  const double v = static_cast<double>(x);
  const Wide w = v >= lo && v < -lo ? static_cast<Wide>(v) : std::numeric_limits<Wide>::min();
  return static_cast<I>(w);
}

template <typename T> struct TypeTag { using type = T; };

/// Calls f(TypeTag<T>{}) with T the C++ type of d. This is the only dtype switch kernels use;
/// `Allowed` is a bitmask of dtypes (see dtype_mask) so kernels instantiate only what they accept.
template <unsigned Allowed = 0x3ffu, typename F>
decltype(auto) visit_dtype(DType d, const char* op, F&& f);

constexpr unsigned dtype_bit(DType d) { return 1u << static_cast<unsigned>(d); }
constexpr unsigned kAllDTypes = 0x3ffu;
constexpr unsigned kFloatingDTypes = dtype_bit(DType::Float16) | dtype_bit(DType::BFloat16) |
                                     dtype_bit(DType::Float32) | dtype_bit(DType::Float64);
constexpr unsigned kNumericDTypes = kAllDTypes & ~dtype_bit(DType::Bool);

[[noreturn]] void fail_unsupported_dtype(const char* op, DType d);

template <unsigned Allowed, typename F>
decltype(auto) visit_dtype(DType d, const char* op, F&& f) {
#define CT_VISIT_CASE(D, T)                                              \
  case DType::D:                                                         \
    if constexpr ((Allowed & dtype_bit(DType::D)) != 0) return f(TypeTag<T>{}); \
    break;
  switch (d) {
    CT_VISIT_CASE(Bool, bool)
    CT_VISIT_CASE(UInt8, uint8_t)
    CT_VISIT_CASE(Int8, int8_t)
    CT_VISIT_CASE(Int16, int16_t)
    CT_VISIT_CASE(Int32, int32_t)
    CT_VISIT_CASE(Int64, int64_t)
    CT_VISIT_CASE(Float16, Half)
    CT_VISIT_CASE(BFloat16, BFloat16)
    CT_VISIT_CASE(Float32, float)
    CT_VISIT_CASE(Float64, double)
  }
#undef CT_VISIT_CASE
  fail_unsupported_dtype(op, d);
}

}  // namespace ct
