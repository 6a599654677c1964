// half.h - Half (IEEE binary16) and BFloat16 storage types. Arithmetic happens in float.
#pragma once

#include <cstdint>
#include <cstring>

namespace ct {

namespace detail {
inline uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
}  // namespace detail

/// IEEE 754 binary16. Conversions round to nearest even; overflow gives inf; NaN stays NaN.
struct Half {
  uint16_t x = 0;
  Half() = default;
  Half(float f) : x(from_float(f)) {}
  operator float() const { return to_float(x); }

  static uint16_t from_float(float f) {
    uint32_t u = detail::bits_of(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t abs = u & 0x7fffffffu;
    if (abs >= 0x7f800000u) return static_cast<uint16_t>(sign | (abs > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (abs >= 0x47800000u) return static_cast<uint16_t>(sign | 0x7c00u);  // 65536 and up
    if (abs < 0x38800000u) {  // subnormal or zero in half: let float addition do the rounding
      float magic = detail::float_of(0x3f000000u);  // 0.5: aligns the half subnormal ulp (2^-24)
      float r = detail::float_of(abs) + magic;
      return static_cast<uint16_t>(sign | (detail::bits_of(r) - 0x3f000000u));
    }
    uint32_t mant_odd = (abs >> 13) & 1u;
    abs += 0xc8000fffu + mant_odd;  // rebias exponent (127 -> 15) and round to nearest even
    return static_cast<uint16_t>(sign | (abs >> 13));
  }
  // Every case is computed and one picked with masks, not branches (a ?: chain stays control flow
  // for gcc), so that a loop converting an array vectorizes: to() and the loop engine's
  // mixed-dtype reads call it per element.
  static float to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu;
    const uint32_t mant = h & 0x3ffu;
    const uint32_t normal = ((exp + 112u) << 23) | (mant << 13);
    const uint32_t inf_nan = 0x7f800000u | (mant << 13);
    // zero or subnormal: mant * 2^-24, exact in float
    const float tiny = static_cast<float>(static_cast<int32_t>(mant)) * detail::float_of(0x33800000u);
    const uint32_t small = detail::bits_of(tiny);
    const uint32_t is_inf_nan = 0u - static_cast<uint32_t>(exp == 0x1fu);
    const uint32_t is_small = 0u - static_cast<uint32_t>(exp == 0);
    return detail::float_of(sign | (inf_nan & is_inf_nan) | (small & is_small) | (normal & ~(is_inf_nan | is_small)));
  }
};

/// bfloat16: the top 16 bits of a float32. Conversions round to nearest even; NaN stays NaN.
struct BFloat16 {
  uint16_t x = 0;
  BFloat16() = default;
  BFloat16(float f) : x(from_float(f)) {}
  operator float() const { return detail::float_of(static_cast<uint32_t>(x) << 16); }

  static uint16_t from_float(float f) {
    uint32_t u = detail::bits_of(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return static_cast<uint16_t>(u >> 16);
  }
};

}  // namespace ct
