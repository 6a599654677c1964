#include "ops/conv/sgemm_avx512.h"

#include "ops/cpu/copy_tiled.h"

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

constexpr int64_t kMR = 8, kNR = kPanel, kNV = kNR / 16;
constexpr int64_t kKC = 288;  // 288 x 48 floats of B: measured faster than 128 and 192 on Zen 5 (48 KiB L1, 1 MiB L2)

#if CT_HAVE_AVX512_SGEMM
// The lane masks of a panel nr columns wide, one per vector.
struct Masks {
  __mmask16 m[kNV];
};
Masks masks_for(int64_t nr) {
  Masks r;
  for (int64_t v = 0; v < kNV; ++v) {
    const int64_t left = std::max<int64_t>(0, std::min<int64_t>(16, nr - 16 * v));
    r.m[v] = left == 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
  }
  return r;
}

// The micro-kernel's B, row p at row(p) (kNR readable floats): a packed panel, or rows read in
// place at per-row offsets (gemm_shifted).
struct PanelRows {
  const float* b;
  const float* row(int64_t p) const { return b + p * kNR; }
  PanelRows from(int64_t p) const { return {b + p * kNR}; }
};
struct OffsetRows {
  const float* b;
  const int64_t* off;
  const float* row(int64_t p) const { return b + off[p]; }
  OffsetRows from(int64_t p) const { return {b, off + p}; }
};

// C[0..mr) x [0..kNR) (masked to the panel's width) = A block (k x 8) times B (k x kNR).
template <typename Rows>
__attribute__((target("avx512f"))) void micro_kernel(int64_t k, const float* ap, Rows rows, float* c, int64_t ldc,
                                                     int64_t mr, const Masks& mk, bool accumulate) {
  __m512 acc[kMR][kNV];
  for (int i = 0; i < kMR; ++i)
    for (int v = 0; v < kNV; ++v) acc[i][v] = _mm512_setzero_ps();
  for (int64_t p = 0; p < k; ++p) {
    __m512 b[kNV];
    const float* bp = rows.row(p);
    for (int v = 0; v < kNV; ++v) b[v] = _mm512_loadu_ps(bp + 16 * v);
    const float* a = ap + p * kMR;
    for (int i = 0; i < kMR; ++i) {
      const __m512 x = _mm512_set1_ps(a[i]);
      for (int v = 0; v < kNV; ++v) acc[i][v] = _mm512_fmadd_ps(x, b[v], acc[i][v]);
    }
  }
  for (int64_t i = 0; i < mr; ++i)
    for (int v = 0; v < kNV; ++v) {
      float* cp = c + i * ldc + 16 * v;
      if (accumulate) acc[i][v] = _mm512_add_ps(acc[i][v], _mm512_maskz_loadu_ps(mk.m[v], cp));
      _mm512_mask_storeu_ps(cp, mk.m[v], acc[i][v]);
    }
}

// C = A @ B (+ C when accumulate), nr columns, k in chunks whose slice of B stays in L1 while every
// row block passes over it.
template <typename Rows>
void gemm_rows(const PackedA& a, Rows rows, int64_t nr, float* c, int64_t ldc, bool accumulate) {
  const int64_t blocks = (a.m + kMR - 1) / kMR;
  const Masks mk = masks_for(nr);
  for (int64_t k0 = 0; k0 < a.k || k0 == 0; k0 += kKC) {
    const int64_t kc = std::min(kKC, a.k - k0);
    for (int64_t ib = 0; ib < blocks; ++ib)
      micro_kernel(kc, a.data.data() + ib * a.k * kMR + k0 * kMR, rows.from(k0), c + ib * kMR * ldc, ldc,
                   std::min(kMR, a.m - ib * kMR), mk, accumulate || k0 > 0);
    if (a.k == 0) break;
  }
}

__attribute__((target("avx512f"))) void pack_b(const float* b, int64_t ldb, int64_t k, const Masks& mk, float* bp) {
  for (int64_t p = 0; p < k; ++p)
    for (int v = 0; v < kNV; ++v)
      _mm512_storeu_ps(bp + p * kNR + 16 * v, _mm512_maskz_loadu_ps(mk.m[v], b + p * ldb + 16 * v));
}

#endif

}  // namespace

void interleave8(const float* rows, int64_t l, int64_t count, float* panel) {
  if (count == 8) return cpu::transpose_8xn_f32(rows, l, l, panel, kPanel);
  for (int64_t p = 0; p < l; ++p)
    for (int64_t i = 0; i < 8; ++i) panel[p * kPanel + i] = i < count ? rows[i * l + p] : 0.0f;
}

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
  for (int64_t j0 = 0; j0 < n; j0 += kNR) {
    const Masks mk = masks_for(std::min(kNR, n - j0));
    pack_b(b + j0, ldb, a.k, mk, bpanel);
    gemm_panel(a, bpanel, std::min(kNR, n - j0), c + j0, ldc, false);
  }
#else
  (void)a, (void)n, (void)b, (void)ldb, (void)c, (void)ldc, (void)bpanel;
#endif
}

void gemm_panel(const PackedA& a, const float* panel, int64_t nr, float* c, int64_t ldc, bool accumulate) {
#if CT_HAVE_AVX512_SGEMM
  gemm_rows(a, PanelRows{panel}, nr, c, ldc, accumulate);
#else
  (void)a, (void)panel, (void)nr, (void)c, (void)ldc, (void)accumulate;
#endif
}

void gemm_shifted(const PackedA& a, const float* b, const int64_t* offsets, int64_t nr, float* c, int64_t ldc,
                  bool accumulate) {
#if CT_HAVE_AVX512_SGEMM
  gemm_rows(a, OffsetRows{b, offsets}, nr, c, ldc, accumulate);
#else
  (void)a, (void)b, (void)offsets, (void)nr, (void)c, (void)ldc, (void)accumulate;
#endif
}

}  // namespace ct::ops::conv
