// sgemm_avx512.h - a float32 GEMM for the convolutions' shape (few rows, many columns), with an
// AVX-512 micro-kernel: the weight (A) is packed once per call and reused for every sample, each
// kPanel-column panel of B is packed once and swept by all row blocks while it sits in L2.
#pragma once

#include <cstdint>
#include <vector>

namespace ct::ops::conv {

/// Columns per packed B panel (three AVX-512 vectors); the micro-kernel computes 8 x kPanel.
constexpr int64_t kPanel = 48;

/// True when the CPU has AVX-512F, this build has the kernel, and CTORCH_CPU_CAPABILITY is not
/// "default".
bool has_avx512_sgemm();

/// A (m x k, element (i, q) at a[i * s0 + q * s1]) in blocks of 8 rows, k-major inside a block,
/// zero-padded to whole blocks.
struct PackedA {
  std::vector<float> data;
  int64_t m = 0, k = 0;
};
PackedA pack_a(const float* a, int64_t m, int64_t k, int64_t s0, int64_t s1);

/// C (m x n, row-major, ldc) = A @ B, B (k x n, row-major, ldb). bpanel holds k * kPanel floats
/// (one per thread). Requires has_avx512_sgemm().
void sgemm_packed(const PackedA& a, int64_t n, const float* b, int64_t ldb, float* c, int64_t ldc, float* bpanel);

/// C[:, 0..nr) (m x nr, ldc) = A @ panel, where panel holds k rows of kPanel floats (columns past nr
/// zero). The convolution packs panels straight from the image (no im2col buffer) and calls this.
/// accumulate: C += A @ panel instead.
void gemm_panel(const PackedA& a, const float* panel, int64_t nr, float* c, int64_t ldc, bool accumulate = false);

/// Rows [0, 8) of a panel column block, transposed: panel[p * kPanel + i] = rows[i * l + p] for
/// the first `count` rows (p < l), 0 for the others; the weight gradient's panels of im2col rows.
void interleave8(const float* rows, int64_t l, int64_t count, float* panel);

/// C[:, 0..nr) (m x nr, ldc) = A @ B, where row p of B is the kPanel floats at b + offsets[p] (all
/// readable; columns past nr are ignored). A stride-1 convolution over a padded image is this GEMM
/// with no packing at all: each tap's row is the image shifted by the tap's offset.
/// accumulate: C += A @ B instead.
void gemm_shifted(const PackedA& a, const float* b, const int64_t* offsets, int64_t nr, float* c, int64_t ldc,
                  bool accumulate = false);

}  // namespace ct::ops::conv
