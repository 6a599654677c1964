// philox.h - Philox4x32-10 and the maps from its 32-bit words to numbers of each distribution.
//
// Everything here is plain IEEE arithmetic (+, -, *, /, sqrt, conversions, bit operations) with
// no libm calls, so the same source gives the same bits in the baseline and AVX2 builds (the
// library is compiled with -ffp-contract=off) and, compiled the same way, on a GPU.
// See Note [Counter-based random numbers] in runtime/generator.h.
#pragma once

#include <cstdint>
#include <cstring>

// The CUDA backend compiles this file for the device too (src/cuda/driver/random.cu), so its
// generator gives the CPU's bits; elsewhere the macro is empty.
#ifndef CT_HOST_DEVICE
#if defined(__CUDACC__)
#define CT_HOST_DEVICE __host__ __device__
#else
#define CT_HOST_DEVICE
#endif
#endif

namespace ct::ops::random {

/// Philox4x32 with 10 rounds (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11):
/// block number `block` of the stream keyed by seed, as four 32-bit words.
struct Words {
  uint32_t w[4];
};
CT_HOST_DEVICE inline Words philox(uint64_t seed, uint64_t block) {
  uint32_t c0 = static_cast<uint32_t>(block), c1 = static_cast<uint32_t>(block >> 32), c2 = 0, c3 = 0;
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * c0;
    const uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * c2;
    const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
    const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    c1 = static_cast<uint32_t>(p1);
    c3 = static_cast<uint32_t>(p0);
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;  // the key schedule (Weyl sequence); bumping after the last round is harmless
    k1 += 0xBB67AE85u;
  }
  return Words{{c0, c1, c2, c3}};
}

template <typename To, typename From>
CT_HOST_DEVICE inline To bit_cast(From f) {
  static_assert(sizeof(To) == sizeof(From));
  To t;
  __builtin_memcpy(&t, &f, sizeof t);  // std::memcpy is not callable from device code
  return t;
}

/// Uniform on [0, 1) with `bits` random bits (24 for float, 11 for half, 8 for bfloat16, so every
/// value is exact in the target type and 1 is never reached after rounding).
CT_HOST_DEVICE inline float uniform_float(uint32_t w, int bits) {
  return static_cast<float>(w >> (32 - bits)) * (1.0f / static_cast<float>(1u << bits));
}
/// Uniform on [0, 1) with 53 random bits from two words.
CT_HOST_DEVICE inline double uniform_double(uint32_t lo, uint32_t hi) {
  const uint64_t x = (static_cast<uint64_t>(hi) << 32 | lo) >> 11;
  return static_cast<double>(x) * (1.0 / 9007199254740992.0);
}

// Natural log of x > 0 (normal numbers): x = 2^k * m with m in [sqrt(1/2), sqrt(2)), then
// log(m) = 2 atanh(s) with s = (m - 1) / (m + 1), a short odd series in s (fdlibm's reduction).
CT_HOST_DEVICE inline float log_f32(float x) {
  uint32_t ix = bit_cast<uint32_t>(x) + (0x3f800000u - 0x3f3504f3u);
  const int k = static_cast<int>(ix >> 23) - 0x7f;
  const float m = bit_cast<float>((ix & 0x007fffffu) + 0x3f3504f3u);
  const float f = m - 1.0f, s = f / (2.0f + f), z = s * s, w = z * z;
  const float r = z * (0.66666662693f + w * 0.28498786688f) + w * (0.40000972152f + w * 0.24279078841f);
  const float hfsq = 0.5f * f * f, dk = static_cast<float>(k);
  return s * (hfsq + r) + dk * 9.0580006145e-06f - hfsq + f + dk * 6.9313812256e-01f;
}
CT_HOST_DEVICE inline double log_f64(double x) {
  uint64_t ix = bit_cast<uint64_t>(x) + (0x3ff0000000000000ull - 0x3fe6a09e667f3bcdull);
  const int k = static_cast<int>(ix >> 52) - 0x3ff;
  const double m = bit_cast<double>((ix & 0x000fffffffffffffull) + 0x3fe6a09e667f3bcdull);
  const double f = m - 1.0, s = f / (2.0 + f), z = s * s, w = z * z;
  const double t1 = w * (3.999999999940941908e-01 + w * (2.222219843214978396e-01 + w * 1.531383769920937332e-01));
  const double t2 = z * (6.666666666666735130e-01 +
                         w * (2.857142874366239149e-01 + w * (1.818357216161805012e-01 + w * 1.479819860511658591e-01)));
  const double hfsq = 0.5 * f * f, dk = static_cast<double>(k);
  return s * (hfsq + t1 + t2) + dk * 1.90821492927058770002e-10 - hfsq + f + dk * 6.93147180369123816490e-01;
}

// sin and cos of 2*pi*t for t in [0, 1): t is split exactly into quarter turns q and a remainder
// r in [-1/8, 1/8], whose angle a = 2*pi*r lies in [-pi/4, pi/4], where Taylor series converge fast.
template <typename T>
CT_HOST_DEVICE inline void sincos_turns(T t, T& s, T& c) {
  constexpr T kTwoPi = static_cast<T>(6.283185307179586476925286766559);
  const T q = static_cast<T>(static_cast<int>(t * T(4) + T(0.5)));  // 0..4
  const T a = (t - q * T(0.25)) * kTwoPi;
  const T a2 = a * a;
  T ps, pc;
  if constexpr (sizeof(T) == 4) {
    ps = a * (T(1) + a2 * (T(-1.0 / 6) + a2 * (T(1.0 / 120) + a2 * (T(-1.0 / 5040) + a2 * T(1.0 / 362880)))));
    pc = T(1) + a2 * (T(-0.5) + a2 * (T(1.0 / 24) + a2 * (T(-1.0 / 720) + a2 * T(1.0 / 40320))));
  } else {
    ps = a * (T(1) + a2 * (T(-1.0 / 6) + a2 * (T(1.0 / 120) + a2 * (T(-1.0 / 5040) + a2 * (T(1.0 / 362880) +
         a2 * (T(-1.0 / 39916800) + a2 * (T(1.0 / 6227020800) + a2 * T(-1.0 / 1307674368000))))))));
    pc = T(1) + a2 * (T(-0.5) + a2 * (T(1.0 / 24) + a2 * (T(-1.0 / 720) + a2 * (T(1.0 / 40320) +
         a2 * (T(-1.0 / 3628800) + a2 * (T(1.0 / 479001600) + a2 * (T(-1.0 / 87178291200) +
         a2 * T(1.0 / 20922789888000))))))));
  }
  const int quadrant = static_cast<int>(q) & 3;  // rotate by quadrant quarter turns
  const T sq = quadrant == 0 ? ps : quadrant == 1 ? pc : quadrant == 2 ? -ps : -pc;
  const T cq = quadrant == 0 ? pc : quadrant == 1 ? -ps : quadrant == 2 ? -pc : ps;
  s = sq;
  c = cq;
}

/// Two standard normals from two uniforms (Box-Muller): u1 in (0, 1], u2 in [0, 1).
template <typename T>
CT_HOST_DEVICE inline void box_muller(T u1, T u2, T& z0, T& z1) {
  T lg;
  if constexpr (sizeof(T) == 4) lg = log_f32(u1);
  else lg = log_f64(u1);
#if defined(__CUDA_ARCH__)
  // Correctly rounded like the host's (nvcc's default -prec-sqrt=true): the same bits.
  T r;
  if constexpr (sizeof(T) == 4) r = sqrtf(T(-2) * lg);
  else r = sqrt(T(-2) * lg);
#else
  const T r = __builtin_sqrt(T(-2) * lg);
#endif
  T s, c;
  sincos_turns(u2, s, c);
  z0 = r * c;
  z1 = r * s;
}

}  // namespace ct::ops::random
