// copy_tiled.cpp - the transposing copy behind copy_, contiguous and clone of permuted views.
//
// Note [Tiled transpose copy]
// Copying x.t() into a contiguous output element by element reads the input a whole row apart at
// every step: each read touches another cache line and, past a few KiB of row, another page, so a
// 2048x2048 float32 transpose ran at about 7 ns an element. Here the plan's two dims that matter -
// j, the output's innermost, and i, the dim the input steps across most closely - are cut into
// square tiles (kBlockBytes, below); both operands' lines and pages of one tile stay in L1 and the
// TLB while it is copied. Inside a tile, with elements dense along i in the input and along j in the output,
// 8x8 blocks (4x4 of 8-byte values) go through registers: a load per row, an in-register transpose
// (unpacks, shuffles, lane moves: no arithmetic, so every value, NaNs included, arrives unchanged),
// a store per row. 1- and 2-byte values use SSE2, which every x86-64 CPU has; 4- and 8-byte values
// use AVX2 where the CPU has it (Note [CPU capability dispatch]). Everything else, and the edges of
// sizes that are not multiples of 8, is copied element by element. Threads take whole strips of
// a tile's side of i; each output element is written once, by one thread, so the bytes cannot
// depend on the thread count.
#include "ops/cpu/copy_tiled.h"

#include <cstring>

#if CT_HAVE_AVX2_KERNELS
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ct::cpu {
namespace {

// A tile is side x side values, side = max(64, kBlockBytes / item): 64 x 64 float32 is 16 KiB
// per operand, both in L1 beside each other over 64 pages at most; 1- and 2-byte values take rows of
// 256 bytes too (256 x 256 uint8: 2048x2048 in 0.8 ms against 1.3 with 64 x 64).
constexpr int64_t kBlockBytes = 256;

struct Tile {
  char* out;
  const char* in;
  int64_t osi, osj, isi, isj;  // bytes
};

template <typename T>
[[gnu::always_inline]] inline void tile_scalar(const Tile& t, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
  for (int64_t i = i0; i < i1; ++i) {
    char* o = t.out + i * t.osi;
    const char* s = t.in + i * t.isi;
    for (int64_t j = j0; j < j1; ++j) std::memcpy(o + j * t.osj, s + j * t.isj, sizeof(T));
  }
}

// In-register transposes of M x M blocks: rows j of M values along i in, rows i of M values along j
// out. Unpacks, shuffles and lane moves only: every value, NaNs included, arrives bit for bit.
using Micro = void (*)(const char* in, int64_t isj, char* out, int64_t osi);

// Tiles [i0, i1) x [j0, j1) with micro where both operands are dense along their block rows.
template <typename T, int64_t M, Micro micro>
[[gnu::always_inline]] inline void tiles(const Tile& t, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
  constexpr int64_t item = sizeof(T);
  int64_t i = i0;
  if (t.isi == item && t.osj == item) {
    for (; i + M <= i1; i += M) {
      int64_t j = j0;
      for (; j + M <= j1; j += M) micro(t.in + i * t.isi + j * t.isj, t.isj, t.out + i * t.osi + j * t.osj, t.osi);
      tile_scalar<T>(t, i, i + M, j, j1);
    }
  }
  tile_scalar<T>(t, i, i1, j0, j1);
}

template <typename T>
void block_scalar(const Tile& t, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
  tile_scalar<T>(t, i0, i1, j0, j1);
}

#if defined(__SSE2__)
// 8 x 8 bytes (SSE2, every x86-64 CPU): bytes, then pairs, then quads interleaved.
inline void micro_8(const char* in, int64_t isj, char* out, int64_t osi) {
  __m128i r[8];
  for (int k = 0; k < 8; ++k) r[k] = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(in + k * isj));
  const __m128i a0 = _mm_unpacklo_epi8(r[0], r[1]), a1 = _mm_unpacklo_epi8(r[2], r[3]);
  const __m128i a2 = _mm_unpacklo_epi8(r[4], r[5]), a3 = _mm_unpacklo_epi8(r[6], r[7]);
  const __m128i b0 = _mm_unpacklo_epi16(a0, a1), b1 = _mm_unpackhi_epi16(a0, a1);
  const __m128i b2 = _mm_unpacklo_epi16(a2, a3), b3 = _mm_unpackhi_epi16(a2, a3);
  const __m128i c[4] = {_mm_unpacklo_epi32(b0, b2), _mm_unpackhi_epi32(b0, b2), _mm_unpacklo_epi32(b1, b3),
                        _mm_unpackhi_epi32(b1, b3)};
  for (int k = 0; k < 4; ++k) {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + 2 * k * osi), c[k]);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + (2 * k + 1) * osi), _mm_unpackhi_epi64(c[k], c[k]));
  }
}

// 8 x 8 2-byte values (SSE2): pairs, quads, then halves interleaved.
inline void micro_16(const char* in, int64_t isj, char* out, int64_t osi) {
  __m128i r[8], a[8], b[8];
  for (int k = 0; k < 8; ++k) r[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + k * isj));
  for (int k = 0; k < 8; k += 2) {
    a[k] = _mm_unpacklo_epi16(r[k], r[k + 1]);
    a[k + 1] = _mm_unpackhi_epi16(r[k], r[k + 1]);
  }
  for (int k = 0; k < 8; k += 4) {
    b[k] = _mm_unpacklo_epi32(a[k], a[k + 2]);
    b[k + 1] = _mm_unpackhi_epi32(a[k], a[k + 2]);
    b[k + 2] = _mm_unpacklo_epi32(a[k + 1], a[k + 3]);
    b[k + 3] = _mm_unpackhi_epi32(a[k + 1], a[k + 3]);
  }
  for (int k = 0; k < 4; ++k) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * k * osi), _mm_unpacklo_epi64(b[k], b[k + 4]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (2 * k + 1) * osi), _mm_unpackhi_epi64(b[k], b[k + 4]));
  }
}

void block_8(const Tile& t, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
  tiles<uint8_t, 8, micro_8>(t, i0, i1, j0, j1);
}
void block_16(const Tile& t, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
  tiles<uint16_t, 8, micro_16>(t, i0, i1, j0, j1);
}
#endif

#if CT_HAVE_AVX2_KERNELS
// 8 x 8 4-byte values (AVX2).
CT_TARGET_AVX2 inline void micro_32(const char* in, int64_t isj, char* out, int64_t osi) {
  __m256 r[8], u[8], s[8];
  for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(reinterpret_cast<const float*>(in + k * isj));
  for (int k = 0; k < 8; k += 2) {
    u[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
    u[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
  }
  for (int k = 0; k < 8; k += 4) {
    s[k] = _mm256_shuffle_ps(u[k], u[k + 2], _MM_SHUFFLE(1, 0, 1, 0));
    s[k + 1] = _mm256_shuffle_ps(u[k], u[k + 2], _MM_SHUFFLE(3, 2, 3, 2));
    s[k + 2] = _mm256_shuffle_ps(u[k + 1], u[k + 3], _MM_SHUFFLE(1, 0, 1, 0));
    s[k + 3] = _mm256_shuffle_ps(u[k + 1], u[k + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int k = 0; k < 4; ++k) {
    _mm256_storeu_ps(reinterpret_cast<float*>(out + k * osi), _mm256_permute2f128_ps(s[k], s[k + 4], 0x20));
    _mm256_storeu_ps(reinterpret_cast<float*>(out + (k + 4) * osi), _mm256_permute2f128_ps(s[k], s[k + 4], 0x31));
  }
}

// 4 x 4 8-byte values (AVX2).
CT_TARGET_AVX2 inline void micro_64(const char* in, int64_t isj, char* out, int64_t osi) {
  __m256d r[4];
  for (int k = 0; k < 4; ++k) r[k] = _mm256_loadu_pd(reinterpret_cast<const double*>(in + k * isj));
  const __m256d u0 = _mm256_unpacklo_pd(r[0], r[1]), u1 = _mm256_unpackhi_pd(r[0], r[1]);
  const __m256d u2 = _mm256_unpacklo_pd(r[2], r[3]), u3 = _mm256_unpackhi_pd(r[2], r[3]);
  _mm256_storeu_pd(reinterpret_cast<double*>(out), _mm256_permute2f128_pd(u0, u2, 0x20));
  _mm256_storeu_pd(reinterpret_cast<double*>(out + osi), _mm256_permute2f128_pd(u1, u3, 0x20));
  _mm256_storeu_pd(reinterpret_cast<double*>(out + 2 * osi), _mm256_permute2f128_pd(u0, u2, 0x31));
  _mm256_storeu_pd(reinterpret_cast<double*>(out + 3 * osi), _mm256_permute2f128_pd(u1, u3, 0x31));
}

CT_TARGET_AVX2 void block_32(const Tile& t, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
  tiles<uint32_t, 8, micro_32>(t, i0, i1, j0, j1);
}
CT_TARGET_AVX2 void block_64(const Tile& t, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
  tiles<uint64_t, 4, micro_64>(t, i0, i1, j0, j1);
}
#endif

using BlockFn = void (*)(const Tile&, int64_t, int64_t, int64_t, int64_t);

BlockFn block_fn(int64_t item) {
  switch (item) {
#if defined(__SSE2__)
    case 1: return block_8;
    case 2: return block_16;
#else
    case 1: return block_scalar<uint8_t>;
    case 2: return block_scalar<uint16_t>;
#endif
#if CT_HAVE_AVX2_KERNELS
    case 4: return has_avx2() ? block_32 : block_scalar<uint32_t>;
    case 8: return has_avx2() ? block_64 : block_scalar<uint64_t>;
#else
    case 4: return block_scalar<uint32_t>;
    case 8: return block_scalar<uint64_t>;
#endif
    default: return nullptr;
  }
}

int64_t abs64(int64_t x) { return x < 0 ? -x : x; }

}  // namespace

bool copy_tiled(const LoopPlan& p, int64_t item) {
  if (p.nops != 2 || p.ndim < 2 || p.numel == 0) return false;
  const int L = p.ndim - 1;
  const int64_t* os = p.strides[0];
  const int64_t* is = p.strides[1];
  if (is[L] == 0 || abs64(is[L]) == item) return false;  // the input is already read along its rows
  int k = -1;  // the dim the input steps across most closely
  for (int d = 0; d < L; ++d)
    if (is[d] != 0 && abs64(is[d]) < abs64(is[L]) && (k < 0 || abs64(is[d]) < abs64(is[k]))) k = d;
  if (k < 0) return false;
  const BlockFn block = block_fn(item);
  if (!block) return false;

  // The other dims, walked outside the tiles.
  int od[kMaxDims];
  int nod = 0;
  int64_t outer = 1;
  for (int d = 0; d < L; ++d)
    if (d != k) {
      od[nod++] = d;
      outer *= p.shape[d];
    }
  const int64_t ni = p.shape[k], nj = p.shape[L];
  const int64_t side = std::max<int64_t>(64, kBlockBytes / item);
  const int64_t strips = (ni + side - 1) / side;
  auto run = [&, side](int64_t u0, int64_t u1) {
    for (int64_t u = u0; u < u1; ++u) {
      int64_t rest = u / strips, o_off = 0, i_off = 0;
      for (int x = nod - 1; x >= 0; --x) {
        const int d = od[x];
        const int64_t idx = rest % p.shape[d];
        rest /= p.shape[d];
        o_off += idx * os[d];
        i_off += idx * is[d];
      }
      const Tile t{p.base[0] + o_off, p.base[1] + i_off, os[k], os[L], is[k], is[L]};
      const int64_t i0 = (u % strips) * side, i1 = std::min(ni, i0 + side);
      for (int64_t j0 = 0; j0 < nj; j0 += side) block(t, i0, i1, j0, std::min(nj, j0 + side));
    }
  };
  const int64_t units = outer * strips;
  const int64_t per_unit = std::min(ni, side) * nj;
  if (p.numel < kElementwiseGrain || get_num_threads() == 1) run(0, units);
  else parallel_for(0, units, std::max<int64_t>(1, kElementwiseGrain / per_unit), run);
  return true;
}

void transpose_8xn_f32(const float* in, int64_t ld_in, int64_t n, float* out, int64_t ld_out) {
  constexpr int64_t item = sizeof(float);
  const Tile t{reinterpret_cast<char*>(out), reinterpret_cast<const char*>(in), ld_out * item, item, item,
               ld_in * item};
#if CT_HAVE_AVX2_KERNELS
  if (has_avx2()) return block_32(t, 0, n, 0, 8);
#endif
  tile_scalar<uint32_t>(t, 0, n, 0, 8);
}

}  // namespace ct::cpu
