// sgemm_avx512.h - a float32 GEMM for the convolutions' shape (few rows, many columns), with an
// AVX-512 micro-kernel: the weight (A) is packed once per call and reused for every sample, each
// 32-column panel of B is packed once and swept by all row blocks while it sits in L2.
#pragma once

#include <cstdint>
#include <vector>

namespace ct::ops::conv {

/// True when the CPU has AVX-512F, this build has the kernel, and CTORCH_CPU_CAPABILITY is not
/// "default".
bool has_avx512_sgemm();

/// A (m x k, row-major) in blocks of 8 rows, k-major inside a block, zero-padded to whole blocks.
struct PackedA {
  std::vector<float> data;
  int64_t m = 0, k = 0;
};
PackedA pack_a(const float* a, int64_t m, int64_t k, int64_t lda);

/// C (m x n, row-major, ldc) = A @ B, B (k x n, row-major, ldb). bpanel holds k * 32 floats
/// (one per thread). Requires has_avx512_sgemm().
void sgemm_packed(const PackedA& a, int64_t n, const float* b, int64_t ldb, float* c, int64_t ldc, float* bpanel);

}  // namespace ct::ops::conv
