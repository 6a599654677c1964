// parallel.h - the CPU thread pool and parallel_for.
//
// Kernels split work with parallel_for; the split never decides a floating-point result (reductions
// fix their summation order by sizes alone, see reduce.h), so results do not depend on the thread
// count.
#pragma once

#include <cstdint>
#include <functional>

namespace ct::cpu {

/// Threads kernels may use (process-wide, default: the number of cores). Also sets OpenBLAS's.
void set_num_threads(int n);
int get_num_threads();

/// Runs f(begin_i, end_i) over disjoint, nearly equal chunks covering [begin, end), each but the
/// last at least grain long, one per thread on up to get_num_threads() threads; inline when the
/// range holds fewer than two grains or when already inside a parallel region. Rethrows the first
/// exception a chunk raised.
void parallel_for(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& f);

/// Runs f(begin_i, end_i) over [0, count) like parallel_for (grain 1), with OpenBLAS on one thread
/// meanwhile: many independent small BLAS or LAPACK calls (a GEMM per sample, a factorization per
/// matrix) scale better one per thread than each split across BLAS's threads. BLAS's thread count
/// is process-wide, so a BLAS call elsewhere during the region runs on one thread too.
void parallel_blas_calls(int64_t count, const std::function<void(int64_t, int64_t)>& f);

/// OpenBLAS on one thread while it lives, then as it was: for BLAS and LAPACK calls whose bits must
/// not depend on the thread count (OpenBLAS's threaded symv and its parallel Cholesky split sums).
/// BLAS's thread count is process-wide, so a BLAS call elsewhere meanwhile runs on one thread too.
class SingleThreadedBlas {
 public:
  SingleThreadedBlas();
  ~SingleThreadedBlas();
  SingleThreadedBlas(const SingleThreadedBlas&) = delete;
  SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;

 private:
  int saved_;
};

/// Elements below which elementwise kernels stay on one thread.
constexpr int64_t kElementwiseGrain = 32768;

}  // namespace ct::cpu
