// sampling.cu - bernoulli, randint, the sort keys of randperm and multinomial, and multinomial with
// replacement, giving exactly the CPU's draws (src/ops/random/random.cpp and sampling.cpp).
//
// Each kernel thread owns one Philox block and writes the elements the CPU maps from it (4 per
// block for bernoulli and narrow randint, 2 for wide randint and the 53-bit uniforms). The maps are
// integer arithmetic, float64 comparisons and philox.h's log_f64, compiled with --fmad=false as
// random.cu is. The sequential parts of the CPU (the running totals of a multinomial row) run one
// thread per row in the CPU's order; the sorts are the table's stable sort (sort.cu).
#include <climits>
#include <cstdint>

#include "dtype.h"
#include "grid.h"
#include "members.h"
#include "ops/random/philox.h"
#include "status.h"

namespace ct::cuda {
namespace {

namespace pr = ct::ops::random;

// ---- Checks (before any block is reserved, as the CPU raises before drawing)

__global__ void __launch_bounds__(kThreads) check_bernoulli_kernel(const double* p, int64_t n,
                                                                   unsigned long long* error) {
  CT_GRID_LOOP(i, n) {
    const double x = p[i];
    if (!(x >= 0 && x <= 1)) atomicMin(error, static_cast<unsigned long long>(i));
  }
}

// The CPU's row checks of multinomial_cpu, in its order: finite and >= 0, a positive total, and
// at least k positive weights.
__global__ void __launch_bounds__(kThreads) check_multinomial_kernel(const double* p, int64_t rows, int64_t cols,
                                                                     int64_t k, unsigned long long* error) {
  CT_GRID_LOOP(r, rows) {
    const double* row = p + r * cols;
    double total = 0;
    int64_t positive = 0;
    bool bad = false;
    for (int64_t j = 0; j < cols && !bad; ++j) {
      const double x = row[j];
      bad = !(isfinite(x) && x >= 0);
      total += x;
      positive += x > 0;
    }
    if (bad || !(total > 0) || positive < k) atomicMin(error, static_cast<unsigned long long>(r));
  }
}

// ---- Draws

// fill_bernoulli: 4 elements per block, u = w * 2^-32 in float64 compared with p.
__global__ void __launch_bounds__(kThreads) bernoulli_kernel(int dt, int isz, char* out, int64_t numel,
                                                             uint64_t seed, uint64_t first, const double* p,
                                                             double p_scalar) {
  constexpr double k = 1.0 / 4294967296.0;
  CT_GRID_LOOP(blk, (numel + 3) / 4) {
    const pr::Words x = pr::philox(seed, first + static_cast<uint64_t>(blk));
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int64_t i = blk * 4 + j;
      if (i < numel) {
        const double pi = p ? p[i] : p_scalar;
        store<int64_t>(out + i * isz, dt, static_cast<double>(x.w[j]) * k < pi ? 1 : 0);
      }
    }
  }
}

// fill_randint, narrow (range <= 2^32): low + w % range, 4 per block.
__global__ void __launch_bounds__(kThreads) randint_narrow_kernel(int dt, int isz, char* out, int64_t numel,
                                                                  uint64_t seed, uint64_t first, uint64_t low,
                                                                  uint64_t range) {
  CT_GRID_LOOP(blk, (numel + 3) / 4) {
    const pr::Words x = pr::philox(seed, first + static_cast<uint64_t>(blk));
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int64_t i = blk * 4 + j;
      // The same residue as the CPU's 64-bit w % range; 32-bit division when the range allows.
      const uint64_t m = range < (uint64_t(1) << 32) ? uint64_t(x.w[j] % static_cast<uint32_t>(range)) : x.w[j];
      if (i < numel) store<int64_t>(out + i * isz, dt, static_cast<int64_t>(low + m));
    }
  }
}

// fill_randint, wide: low + (hi << 32 | lo) % range, 2 per block.
__global__ void __launch_bounds__(kThreads) randint_wide_kernel(int dt, int isz, char* out, int64_t numel,
                                                                uint64_t seed, uint64_t first, uint64_t low,
                                                                uint64_t range) {
  CT_GRID_LOOP(blk, (numel + 1) / 2) {
    const pr::Words x = pr::philox(seed, first + static_cast<uint64_t>(blk));
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int64_t i = blk * 2 + j;
      const uint64_t w = uint64_t{x.w[2 * j + 1]} << 32 | x.w[2 * j];
      if (i < numel) store<int64_t>(out + i * isz, dt, static_cast<int64_t>(low + w % range));
    }
  }
}

// randperm's keys (as ints ordered like the CPU's unsigned ones) or multinomial's log(1 - u) / p.
__global__ void __launch_bounds__(kThreads) sort_keys_kernel(int mode, void* keys, const double* p, int64_t numel,
                                                             uint64_t seed, uint64_t first) {
  CT_GRID_LOOP(blk, (numel + 1) / 2) {
    const pr::Words x = pr::philox(seed, first + static_cast<uint64_t>(blk));
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int64_t i = blk * 2 + j;
      if (i >= numel) break;
      const uint32_t lo = x.w[2 * j], hi = x.w[2 * j + 1];
      if (mode == CT_CUDA_SORT_KEYS_RANDPERM) {
        static_cast<int64_t*>(keys)[i] = static_cast<int64_t>((uint64_t{hi} << 32 | lo) ^ (uint64_t(1) << 63));
      } else {
        const double w = p[i];
        const double lg = pr::log_f64(1.0 - pr::uniform_double(lo, hi));  // 1 - u is in (0, 1]
        static_cast<double*>(keys)[i] = w > 0 ? lg / w : -INFINITY;
      }
    }
  }
}

// One thread per row: cdf = std::partial_sum of the row, last = its last category of positive weight.
__global__ void __launch_bounds__(kThreads) cdf_kernel(const double* p, int64_t rows, int64_t cols, double* cdf,
                                                       int64_t* last) {
  CT_GRID_LOOP(r, rows) {
    const double* row = p + r * cols;
    double* c = cdf + r * cols;
    double acc = row[0];
    c[0] = acc;
    for (int64_t j = 1; j < cols; ++j) c[j] = acc = acc + row[j];
    int64_t l = cols - 1;
    while (row[l] == 0) --l;  // some weight is positive (check_probabilities)
    last[r] = l;
  }
}

// Samples 2 blk and 2 blk + 1 of the flattened [rows, k]: std::upper_bound of u * total in the cdf.
__global__ void __launch_bounds__(kThreads) sample_kernel(int64_t* out, int64_t rows, int64_t cols, int64_t k,
                                                          uint64_t seed, uint64_t first, const double* cdf,
                                                          const int64_t* last) {
  const int64_t n = rows * k;
  CT_GRID_LOOP(blk, (n + 1) / 2) {
    const pr::Words x = pr::philox(seed, first + static_cast<uint64_t>(blk));
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int64_t i = blk * 2 + j;
      if (i >= n) break;
      const int64_t r = i / k;
      const double* c = cdf + r * cols;
      const double v = pr::uniform_double(x.w[2 * j], x.w[2 * j + 1]) * c[cols - 1];
      int64_t lo = 0, hi = cols;  // the first c[m] > v: the partition point upper_bound finds
      while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (v < c[mid]) hi = mid;
        else lo = mid + 1;
      }
      out[i] = lo < last[r] ? lo : last[r];
    }
  }
}

}  // namespace

int check_probabilities(int mode, const double* p, int64_t rows, int64_t cols, int64_t k, int64_t* error,
                        void* stream) {
  CT_CUDA_ARG(mode == CT_CUDA_CHECK_BERNOULLI || mode == CT_CUDA_CHECK_MULTINOMIAL,
              "check_probabilities: unknown mode %d", mode);
  CT_CUDA_ARG(rows >= 0 && cols >= 0 && error && (p || rows * cols == 0),
              "check_probabilities: rows %lld, cols %lld, p %p, error %p", static_cast<long long>(rows),
              static_cast<long long>(cols), static_cast<const void*>(p), static_cast<void*>(error));
  const cudaStream_t s = as_stream(stream);
  CT_CUDA_TRY(cudaMemsetAsync(error, 0xff, sizeof(int64_t), s));  // -1: nothing failed
  auto* e = reinterpret_cast<unsigned long long*>(error);      // as unsigned, -1 is the largest: atomicMin
  if (mode == CT_CUDA_CHECK_BERNOULLI) {
    const int64_t n = rows * cols;
    if (n == 0) return CT_CUDA_OK;
    check_bernoulli_kernel<<<grid_for(n), kThreads, 0, s>>>(p, n, e);
  } else {
    if (rows == 0 || cols == 0) return CT_CUDA_OK;
    check_multinomial_kernel<<<grid_for(rows), kThreads, 0, s>>>(p, rows, cols, k, e);
  }
  return check_launch("check_probabilities");
}

int philox_bernoulli(int dtype, void* out, int64_t numel, uint64_t seed, uint64_t offset_block, const double* p,
                     double p_scalar, void* stream) {
  CT_CUDA_ARG(valid_dtype(dtype), "philox_bernoulli: unknown dtype %d", dtype);
  CT_CUDA_ARG(numel >= 0 && (out || numel == 0), "philox_bernoulli: numel %lld with out %p",
              static_cast<long long>(numel), out);
  if (numel == 0) return CT_CUDA_OK;
  bernoulli_kernel<<<grid_for((numel + 3) / 4), kThreads, 0, as_stream(stream)>>>(
      dtype, itemsize(dtype), static_cast<char*>(out), numel, seed, offset_block, p, p_scalar);
  return check_launch("philox_bernoulli");
}

int philox_randint(int dtype, void* out, int64_t numel, uint64_t seed, uint64_t offset_block, int64_t low,
                   int64_t high, void* stream) {
  CT_CUDA_ARG(valid_dtype(dtype), "philox_randint: unknown dtype %d", dtype);
  CT_CUDA_ARG(low < high, "philox_randint: the range [%lld, %lld) is empty", static_cast<long long>(low),
              static_cast<long long>(high));
  CT_CUDA_ARG(numel >= 0 && (out || numel == 0), "philox_randint: numel %lld with out %p",
              static_cast<long long>(numel), out);
  if (numel == 0) return CT_CUDA_OK;
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  const cudaStream_t s = as_stream(stream);
  char* o = static_cast<char*>(out);
  if (range <= (uint64_t(1) << 32))
    randint_narrow_kernel<<<grid_for((numel + 3) / 4), kThreads, 0, s>>>(dtype, itemsize(dtype), o, numel, seed,
                                                                         offset_block, static_cast<uint64_t>(low),
                                                                         range);
  else
    randint_wide_kernel<<<grid_for((numel + 1) / 2), kThreads, 0, s>>>(dtype, itemsize(dtype), o, numel, seed,
                                                                       offset_block, static_cast<uint64_t>(low), range);
  return check_launch("philox_randint");
}

int philox_sort_keys(int mode, void* keys, const double* p, int64_t numel, uint64_t seed, uint64_t offset_block,
                     void* stream) {
  CT_CUDA_ARG(mode == CT_CUDA_SORT_KEYS_RANDPERM || mode == CT_CUDA_SORT_KEYS_MULTINOMIAL,
              "philox_sort_keys: unknown mode %d", mode);
  CT_CUDA_ARG(numel >= 0 && ((keys && (p || mode == CT_CUDA_SORT_KEYS_RANDPERM)) || numel == 0),
              "philox_sort_keys: numel %lld with keys %p, p %p", static_cast<long long>(numel), keys,
              static_cast<const void*>(p));
  if (numel == 0) return CT_CUDA_OK;
  sort_keys_kernel<<<grid_for((numel + 1) / 2), kThreads, 0, as_stream(stream)>>>(mode, keys, p, numel, seed,
                                                                                 offset_block);
  return check_launch("philox_sort_keys");
}

int multinomial_replacement(int64_t* out, const double* p, int64_t rows, int64_t cols, int64_t k, uint64_t seed,
                            uint64_t offset_block, void* workspace, void* stream) {
  CT_CUDA_ARG(rows >= 0 && cols > 0 && k > 0, "multinomial_replacement: rows %lld, cols %lld, k %lld",
              static_cast<long long>(rows), static_cast<long long>(cols), static_cast<long long>(k));
  if (rows == 0) return CT_CUDA_OK;
  CT_CUDA_ARG(out && p && workspace, "multinomial_replacement: out %p, p %p, workspace %p", static_cast<void*>(out),
              static_cast<const void*>(p), workspace);
  const cudaStream_t s = as_stream(stream);
  double* cdf = static_cast<double*>(workspace);
  int64_t* last = reinterpret_cast<int64_t*>(cdf + rows * cols);
  cdf_kernel<<<grid_for(rows), kThreads, 0, s>>>(p, rows, cols, cdf, last);
  if (const int st = check_launch("multinomial_replacement (totals)")) return st;
  sample_kernel<<<grid_for((rows * k + 1) / 2), kThreads, 0, s>>>(out, rows, cols, k, seed, offset_block, cdf, last);
  return check_launch("multinomial_replacement");
}

}  // namespace ct::cuda
