// order_key.h - elements as unsigned integer keys whose integer order is PyTorch's sort order.
//
// Note [Sort keys]
// Sorting and selection compare unsigned keys instead of values: signed integers flip their sign
// bit; floats flip every bit when negative and the sign bit otherwise; -0.0 maps to +0.0's key (the
// two compare equal) and every NaN to the largest key (PyTorch orders NaN above +inf). Descending
// order is the complemented key. Ties are broken by index, which a key packed with its index
// (packed_key) orders for free, so every result is the stable sort's, on any thread count.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/dtype.h"

namespace ct::ops::sortkey {

template <typename T> struct Key;
template <> struct Key<bool> {
  using U = uint8_t;
  static U of(bool x) { return x ? 1 : 0; }
};
template <> struct Key<uint8_t> {
  using U = uint8_t;
  static U of(uint8_t x) { return x; }
};
template <typename S, typename UU> struct SignedKey {
  using U = UU;
  static U of(S x) { return static_cast<U>(static_cast<U>(x) ^ (U(1) << (sizeof(U) * 8 - 1))); }
};
template <> struct Key<int8_t> : SignedKey<int8_t, uint8_t> {};
template <> struct Key<int16_t> : SignedKey<int16_t, uint16_t> {};
template <> struct Key<int32_t> : SignedKey<int32_t, uint32_t> {};
template <> struct Key<int64_t> : SignedKey<int64_t, uint64_t> {};

// IEEE bits u of width U: positive floats above every negative one, +0 and -0 one key, NaN above
// +inf. Masks, not branches: a loop of keys vectorizes, and scattered data (select_small_k in
// rows.h) does not mispredict.
template <typename U, U kInf>
inline U ieee_key(U u) {
  constexpr U sign = U(1) << (sizeof(U) * 8 - 1);
  const U mag = static_cast<U>(u & ~sign);
  const U flip = static_cast<U>(static_cast<U>(U(0) - static_cast<U>(u >> (sizeof(U) * 8 - 1))) | sign);  // negative: every bit
  U k = static_cast<U>(u ^ flip);
  k = static_cast<U>(k ^ ((k ^ sign) & static_cast<U>(U(0) - U(mag == 0))));  // -0 -> +0's key
  return static_cast<U>(k | static_cast<U>(U(0) - U(mag > kInf)));             // NaN -> the largest
}
template <> struct Key<float> {
  using U = uint32_t;
  static U of(float x) {
    U u;
    std::memcpy(&u, &x, sizeof u);
    return ieee_key<U, 0x7f800000u>(u);
  }
};
template <> struct Key<double> {
  using U = uint64_t;
  static U of(double x) {
    U u;
    std::memcpy(&u, &x, sizeof u);
    return ieee_key<U, 0x7ff0000000000000ull>(u);
  }
};
template <> struct Key<Half> {
  using U = uint16_t;
  static U of(Half x) { return ieee_key<U, 0x7c00>(x.x); }
};
template <> struct Key<BFloat16> {
  using U = uint16_t;
  static U of(BFloat16 x) { return ieee_key<U, 0x7f80>(x.x); }
};

/// The key of x, complemented for descending order.
template <typename T>
inline typename Key<T>::U key(T x, bool descending) {
  using U = typename Key<T>::U;
  const U k = Key<T>::of(x);
  return descending ? static_cast<U>(~k) : k;
}

/// Keys of up to 32 bits packed at the top of a uint64 above the element's index: one integer whose
/// order is (key, index), for rows of fewer than 2^32 elements.
template <typename T>
constexpr bool kPackable = sizeof(typename Key<T>::U) <= 4;
template <typename T>
constexpr int kKeyShift = 64 - 8 * static_cast<int>(sizeof(typename Key<T>::U));

template <typename T>
inline uint64_t packed_key(T x, bool descending, uint64_t index) {
  return uint64_t(key(x, descending)) << kKeyShift<T> | index;
}
template <typename T>
inline int64_t packed_index(uint64_t p) {
  return static_cast<int64_t>(p & ((uint64_t(1) << kKeyShift<T>) - 1));
}

}  // namespace ct::ops::sortkey
