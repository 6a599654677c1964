// random_common.h - what the random operators share beyond the fill loop.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/dtype.h"
#include "core/error.h"
#include "core/half.h"
#include "dispatch/value.h"
#include "runtime/generator.h"

namespace ct::ops {

/// multinomial's check of row r's n weights, on every device: each finite and >= 0, some positive,
/// and without replacement at least k positive. CT_ERROR_INVALID_ARGUMENT naming the row.
inline void check_multinomial_row(const double* w, int64_t n, int64_t r, int64_t k, bool replacement) {
  double total = 0;
  int64_t positive = 0;
  for (int64_t j = 0; j < n; ++j) {
    const double x = w[j];
    CT_CHECK(std::isfinite(x) && x >= 0, CT_ERROR_INVALID_ARGUMENT, "multinomial: probability ", x, " in row ", r,
             " (category ", j, ") is negative or not finite. Pass finite weights >= 0");
    total += x;
    positive += x > 0;
  }
  CT_CHECK(total > 0, CT_ERROR_INVALID_ARGUMENT, "multinomial: row ", r, " has no positive weight");
  CT_CHECK(replacement || positive >= k, CT_ERROR_INVALID_ARGUMENT, "multinomial: row ", r, " has ", positive,
           " categories of positive weight, fewer than the ", k, " samples asked for without replacement");
}

/// The generator a random operator draws from: its Generator argument, or the default generator of
/// the output's device. CT_ERROR_DEVICE when a given generator belongs to another device.
inline runtime::Generator& random_generator(const Value& v, Device d) {
  runtime::Generator* g = v.generator();
  if (!g) return runtime::Generator::default_for(d);
  CT_CHECK(g->device().type == d.type, CT_ERROR_DEVICE, "random: the generator is for ", device_string(g->device()),
           " but the tensor is on ", device_string(d), ". Pass a generator created for ", device_string(d));
  return *g;
}

/// Significand bits of a floating type, the 16-bit ones included (numeric_limits knows neither).
/// One definition: clang 14 emits explicit specializations of an inline variable
/// template as strong symbols, which collide at link time.
template <typename T>
inline constexpr int kMantissaDigits = std::is_same_v<T, Half>       ? 11
                                       : std::is_same_v<T, BFloat16> ? 8
                                                                     : std::numeric_limits<T>::digits;

/// The closed range of integers d holds exactly, every one between included.
struct ExactIntegers {
  int64_t lo = 0, hi = 0;
};
inline ExactIntegers exact_integers(DType d, const char* op) {
  ExactIntegers r;
  visit_dtype(d, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      r = {static_cast<int64_t>(std::numeric_limits<T>::min()), static_cast<int64_t>(std::numeric_limits<T>::max())};
    } else {
      r.hi = int64_t{1} << kMantissaDigits<T>;
      r.lo = -r.hi;
    }
  });
  return r;
}

}  // namespace ct::ops
