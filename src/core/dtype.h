// dtype.h - DType, its C++ types, PyTorch's promotion lattice, and the one dtype dispatch helper.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <ostream>
#include <type_traits>

#include "core/error.h"
#include "core/half.h"

namespace ct {

/// Element types; values equal ct_dtype's.
/// Complex64 and Complex128 are pairs (real, imaginary) of float32 and float64, std::complex's layout.
enum class DType : uint8_t {
  Bool, UInt8, Int8, Int16, Int32, Int64, Float16, BFloat16, Float32, Float64, Complex64, Complex128
};
constexpr int kNumDTypes = 12;

inline size_t itemsize(DType d) {
  constexpr unsigned char sizes[kNumDTypes] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16};
  return sizes[static_cast<int>(d)];
}
const char* dtype_name(DType d);
inline std::ostream& operator<<(std::ostream& os, DType d) { return os << dtype_name(d); }

/// Real floating dtypes only: complex ones are their own category (torch.is_floating_point).
inline bool is_floating(DType d) { return d >= DType::Float16 && d <= DType::Float64; }
inline bool is_complex(DType d) { return d == DType::Complex64 || d == DType::Complex128; }
/// Whether gradients flow through tensors of d (torch's isDifferentiableType): floating and complex.
inline bool is_differentiable(DType d) { return is_floating(d) || is_complex(d); }
/// The dtype of a complex dtype's parts (complex64 -> float32); any other dtype is returned as is.
inline DType real_dtype(DType d) {
  return d == DType::Complex64 ? DType::Float32 : d == DType::Complex128 ? DType::Float64 : d;
}
/// The complex dtype whose parts are d (float64 -> complex128; float32 and the 16-bit floats ->
/// complex64, as torch has no complex32 arithmetic); a complex d is returned as is.
inline DType complex_dtype(DType d) {
  return is_complex(d) ? d : d == DType::Float64 ? DType::Complex128 : DType::Complex64;
}
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
CT_DTYPE_OF(std::complex<float>, Complex64)
CT_DTYPE_OF(std::complex<double>, Complex128)
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
/// `Allowed` is a bitmask of dtypes (see dtype_mask) so kernels instantiate only what they accept;
/// the default, kAllDTypes, is the real dtypes: a kernel takes complex ones only where it says so.
template <unsigned Allowed = 0x3ffu, typename F>
decltype(auto) visit_dtype(DType d, const char* op, F&& f);

constexpr unsigned dtype_bit(DType d) { return 1u << static_cast<unsigned>(d); }
constexpr unsigned kAllDTypes = 0x3ffu;  // every real dtype, bool to float64
constexpr unsigned kFloatingDTypes = dtype_bit(DType::Float16) | dtype_bit(DType::BFloat16) |
                                     dtype_bit(DType::Float32) | dtype_bit(DType::Float64);
constexpr unsigned kNumericDTypes = kAllDTypes & ~dtype_bit(DType::Bool);
constexpr unsigned kComplexDTypes = dtype_bit(DType::Complex64) | dtype_bit(DType::Complex128);
constexpr unsigned kAllDTypesAndComplex = kAllDTypes | kComplexDTypes;
/// The widest element any dtype has (complex128), for buffers that hold a chunk of any dtype.
constexpr size_t kMaxItemsize = 16;

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
    CT_VISIT_CASE(Complex64, std::complex<float>)
    CT_VISIT_CASE(Complex128, std::complex<double>)
  }
#undef CT_VISIT_CASE
  fail_unsupported_dtype(op, d);
}

}  // namespace ct
