#include "ops/conv/sgemm_avx512.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define CT_HAVE_AVX512_SGEMM 1
#else
#define CT_HAVE_AVX512_SGEMM 0
#endif

namespace ct::ops::conv {
namespace {

constexpr int64_t kMR = 8, kNR = 32;

#if CT_HAVE_AVX512_SGEMM
// C[0..mr) x [0..32) (masked to the panel's width) = A block (k x 8) times B panel (k x 32).
__attribute__((target("avx512f"))) void micro_kernel(int64_t k, const float* ap, const float* bp, float* c, int64_t ldc,
                                                     int64_t mr, __mmask16 lo, __mmask16 hi, bool accumulate) {
  __m512 acc[kMR][2];
  for (int i = 0; i < kMR; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  for (int64_t p = 0; p < k; ++p) {
    const __m512 b0 = _mm512_loadu_ps(bp + p * kNR), b1 = _mm512_loadu_ps(bp + p * kNR + 16);
    const float* a = ap + p * kMR;
    for (int i = 0; i < kMR; ++i) {
      const __m512 x = _mm512_set1_ps(a[i]);
      acc[i][0] = _mm512_fmadd_ps(x, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(x, b1, acc[i][1]);
    }
  }
  for (int64_t i = 0; i < mr; ++i) {
    if (accumulate) {
      acc[i][0] = _mm512_add_ps(acc[i][0], _mm512_maskz_loadu_ps(lo, c + i * ldc));
      acc[i][1] = _mm512_add_ps(acc[i][1], _mm512_maskz_loadu_ps(hi, c + i * ldc + 16));
    }
    _mm512_mask_storeu_ps(c + i * ldc, lo, acc[i][0]);
    _mm512_mask_storeu_ps(c + i * ldc + 16, hi, acc[i][1]);
  }
}

__attribute__((target("avx512f"))) void pack_b(const float* b, int64_t ldb, int64_t k, int64_t nr, __mmask16 lo,
                                               __mmask16 hi, float* bp) {
  if (nr == kNR) {
    for (int64_t p = 0; p < k; ++p) {
      _mm512_storeu_ps(bp + p * kNR, _mm512_loadu_ps(b + p * ldb));
      _mm512_storeu_ps(bp + p * kNR + 16, _mm512_loadu_ps(b + p * ldb + 16));
    }
    return;
  }
  for (int64_t p = 0; p < k; ++p) {
    _mm512_storeu_ps(bp + p * kNR, _mm512_maskz_loadu_ps(lo, b + p * ldb));
    _mm512_storeu_ps(bp + p * kNR + 16, _mm512_maskz_loadu_ps(hi, b + p * ldb + 16));
  }
}
#endif

}  // namespace

bool has_avx512_sgemm() {
#if CT_HAVE_AVX512_SGEMM
  static const bool ok = [] {
    const char* cap = std::getenv("CTORCH_CPU_CAPABILITY");
    if (cap && std::strcmp(cap, "default") == 0) return false;
    __builtin_cpu_init();
    return bool(__builtin_cpu_supports("avx512f"));
  }();
  return ok;
#else
  return false;
#endif
}

PackedA pack_a(const float* a, int64_t m, int64_t k, int64_t s0, int64_t s1) {
  PackedA p;
  p.m = m, p.k = k;
  const int64_t blocks = (m + kMR - 1) / kMR;
  p.data.assign(static_cast<size_t>(blocks * k * kMR), 0.0f);
  for (int64_t ib = 0; ib < blocks; ++ib)
    for (int64_t i = 0; i < kMR && ib * kMR + i < m; ++i)
      for (int64_t q = 0; q < k; ++q) p.data[size_t((ib * k + q) * kMR + i)] = a[(ib * kMR + i) * s0 + q * s1];
  return p;
}

void sgemm_packed(const PackedA& a, int64_t n, const float* b, int64_t ldb, float* c, int64_t ldc, float* bpanel) {
#if CT_HAVE_AVX512_SGEMM
  const int64_t blocks = (a.m + kMR - 1) / kMR;
  for (int64_t j0 = 0; j0 < n; j0 += kNR) {
    const int64_t nr = std::min(kNR, n - j0);
    const __mmask16 lo = nr >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << nr) - 1);
    const __mmask16 hi = nr <= 16 ? __mmask16(0) : nr >= 32 ? __mmask16(0xFFFF) : __mmask16((1u << (nr - 16)) - 1);
    pack_b(b + j0, ldb, a.k, nr, lo, hi, bpanel);
    for (int64_t ib = 0; ib < blocks; ++ib)
      micro_kernel(a.k, a.data.data() + ib * a.k * kMR, bpanel, c + ib * kMR * ldc + j0, ldc,
                   std::min(kMR, a.m - ib * kMR), lo, hi, false);
  }
#else
  (void)a, (void)n, (void)b, (void)ldb, (void)c, (void)ldc, (void)bpanel;
#endif
}

void gemm_panel(const PackedA& a, const float* panel, int64_t nr, float* c, int64_t ldc, bool accumulate) {
#if CT_HAVE_AVX512_SGEMM
  const int64_t blocks = (a.m + kMR - 1) / kMR;
  const __mmask16 lo = nr >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << nr) - 1);
  const __mmask16 hi = nr <= 16 ? __mmask16(0) : nr >= 32 ? __mmask16(0xFFFF) : __mmask16((1u << (nr - 16)) - 1);
  for (int64_t ib = 0; ib < blocks; ++ib)
    micro_kernel(a.k, a.data.data() + ib * a.k * kMR, panel, c + ib * kMR * ldc, ldc, std::min(kMR, a.m - ib * kMR), lo,
                 hi, accumulate);
#else
  (void)a, (void)panel, (void)nr, (void)c, (void)ldc, (void)accumulate;
#endif
}

}  // namespace ct::ops::conv
