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

/// Elements below which elementwise kernels stay on one thread.
constexpr int64_t kElementwiseGrain = 32768;

}  // namespace ct::cpu
