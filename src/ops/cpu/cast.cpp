#include "ops/cpu/cast.h"

#include "ops/cpu/isa.h"

namespace ct::cpu {
namespace {

template <typename D, typename S>
[[gnu::always_inline]] inline void cast_line_body(const char* src, int64_t stride, char* dst, int64_t n) {
  // src and dst never overlap: copy_ reads an overlapping src from a copy, loops use stack buffers
  D* __restrict out = reinterpret_cast<D*>(dst);
  if (stride == static_cast<int64_t>(sizeof(S))) {  // dense: a loop the compiler vectorizes
    const S* __restrict in = reinterpret_cast<const S*>(src);
    for (int64_t i = 0; i < n; ++i) out[i] = cast_value<D>(in[i]);
    return;
  }
  for (int64_t i = 0; i < n; ++i) out[i] = cast_value<D>(*reinterpret_cast<const S*>(src + i * stride));
}

// The body compiled twice, as the loop engine's (Note [CPU capability dispatch]): the dense
// conversions vectorize as wide as the CPU allows.
template <typename D, typename S>
void cast_line_baseline(const char* src, int64_t stride, char* dst, int64_t n) {
  cast_line_body<D, S>(src, stride, dst, n);
}
#if CT_HAVE_AVX2_KERNELS
template <typename D, typename S>
CT_TARGET_AVX2 void cast_line_avx2(const char* src, int64_t stride, char* dst, int64_t n) {
  cast_line_body<D, S>(src, stride, dst, n);
}
#endif

}  // namespace

CastLine cast_line(DType from, DType to) {
  if (from == to) return nullptr;
  return visit_dtype(to, "cast", [&](auto dt) {
    using D = typename decltype(dt)::type;
    return visit_dtype(from, "cast", [&](auto st) -> CastLine {
      using S = typename decltype(st)::type;
#if CT_HAVE_AVX2_KERNELS
      if (has_avx2()) return &cast_line_avx2<D, S>;
#endif
      return &cast_line_baseline<D, S>;
    });
  });
}

}  // namespace ct::cpu
