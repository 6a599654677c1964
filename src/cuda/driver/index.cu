// index.cu - indexed gathers and scatters along one dim (index_select, gather, take, embedding,
// index_copy/fill, scatter, put, and the accumulating index_add, scatter_add, scatter_reduce, put
// with accumulate) and masked_scatter. See Note [Indexed kernels] in ct_cuda_driver.h.
//
// Note [Deterministic scatters]
// The fast path of an accumulating op updates dst with one atomic read-modify-write per
// contribution (a compare-and-swap loop on the aligned word holding the element, so every dtype
// and every op has one), so repeated destinations combine in whatever order the threads run.
// The deterministic path sorts (destination offset, loop position) pairs with CUB's stable radix
// sort: every destination's contributions then sit together, in loop position order (index order
// along dim, as the CPU's loop). One thread per destination folds them in that order and writes
// once; no atomics. COPY (a plain store) uses the same path to make the last write win, as the CPU.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "device_math.h"
#include "dtype.h"
#include "grid.h"
#include "loop.h"
#include "members.h"
#include "status.h"

namespace ct::cuda {
namespace {

struct Offsets {
  int32_t ndim;
  int64_t sizes[CT_CUDA_MAX_DIMS];
  int64_t strides[3][CT_CUDA_MAX_DIMS];  // elements: dst, src, index
};

__device__ __forceinline__ void offsets_of(const Offsets& L, int64_t p, int64_t (&off)[3]) {
  off[0] = off[1] = off[2] = 0;
  for (int d = L.ndim - 1; d >= 0; --d) {
    const int64_t i = p % L.sizes[d];
    p /= L.sizes[d];
    off[0] += i * L.strides[0][d];
    off[1] += i * L.strides[1][d];
    off[2] += i * L.strides[2][d];
  }
}

struct Params {
  int32_t op, dtype, index_dtype, indexed, wrap, include_self;
  int32_t isz;
  int64_t indexed_stride, size;
  double alpha;
};

// The index at off, wrapped; records the first bad value seen and returns false for it.
__device__ __forceinline__ bool read_index(const Params& P, const void* index, int64_t off, int64_t* error,
                                           int64_t* out) {
  int64_t v = P.index_dtype == kI32 ? static_cast<const int32_t*>(index)[off] : static_cast<const int64_t*>(index)[off];
  const int64_t lo = P.wrap ? -P.size : 0;
  if (v < lo || v >= P.size) {
    if (atomicCAS(reinterpret_cast<unsigned long long*>(error), 0ull, 1ull) == 0ull)
      reinterpret_cast<volatile int64_t*>(error)[1] = v;
    return false;
  }
  *out = v < 0 ? v + P.size : v;
  return true;
}

__device__ __forceinline__ void copy_bytes(char* d, const char* s, int isz) {
  switch (isz) {
    case 1: *d = *s; break;
    case 2: *reinterpret_cast<uint16_t*>(d) = *reinterpret_cast<const uint16_t*>(s); break;
    case 4: *reinterpret_cast<uint32_t*>(d) = *reinterpret_cast<const uint32_t*>(s); break;
    default: *reinterpret_cast<uint64_t*>(d) = *reinterpret_cast<const uint64_t*>(s); break;
  }
}

// op(a, b) in the compute type C (float, double or int64_t); bool dtypes compute in int64 and
// store != 0 (sum is or, prod is and).
template <typename C>
__device__ __forceinline__ C combine(int op, C a, C b) {
  switch (op) {
    case CT_CUDA_INDEX_PROD: return a * b;
    case CT_CUDA_INDEX_AMAX:
      if constexpr (!std::is_integral_v<C>) if (dm::is_nan(a) || dm::is_nan(b)) return dm::is_nan(a) ? a : b;
      return a > b ? a : b;
    case CT_CUDA_INDEX_AMIN:
      if constexpr (!std::is_integral_v<C>) if (dm::is_nan(a) || dm::is_nan(b)) return dm::is_nan(a) ? a : b;
      return a < b ? a : b;
    default: return a + b;  // ADD, MEAN
  }
}

template <typename C>
__device__ __forceinline__ C identity(int op, int dt) {
  switch (op) {
    case CT_CUDA_INDEX_PROD: return C(1);
    case CT_CUDA_INDEX_AMAX:
      if constexpr (std::is_integral_v<C>)
        return dt == kU8 || dt == kBool ? C(0)
               : dt == kI8              ? C(-128)
               : dt == kI16             ? C(-32768)
               : dt == kI32             ? C(INT_MIN)
                                        : C(LLONG_MIN);
      else return C(-INFINITY);
    case CT_CUDA_INDEX_AMIN:
      if constexpr (std::is_integral_v<C>)
        return dt == kBool ? C(1)
               : dt == kU8 ? C(255)
               : dt == kI8 ? C(127)
               : dt == kI16 ? C(32767)
               : dt == kI32 ? C(INT_MAX)
                            : C(LLONG_MAX);
      else return C(INFINITY);
    default: return C(0);
  }
}

// dst = op(dst, v) atomically: a compare-and-swap loop on the aligned 32- or 64-bit word holding
// the element (sub-word dtypes swap their bytes inside the word).
template <typename C>
__device__ void atomic_update(char* p, int dt, int isz, int op, C v) {
  if (isz == 8) {
    unsigned long long* w = reinterpret_cast<unsigned long long*>(p);
    unsigned long long old = *w, assumed;
    do {
      assumed = old;
      char bytes[8];
      memcpy(bytes, &assumed, 8);
      store<C>(bytes, dt, combine<C>(op, load<C>(bytes, dt), v));
      unsigned long long next;
      memcpy(&next, bytes, 8);
      old = atomicCAS(w, assumed, next);
    } while (old != assumed);
    return;
  }
  const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
  unsigned int* w = reinterpret_cast<unsigned int*>(addr & ~uintptr_t(3));
  const int shift = static_cast<int>(addr & 3);
  unsigned int old = *w, assumed;
  do {
    assumed = old;
    char bytes[4];
    memcpy(bytes, &assumed, 4);
    store<C>(bytes + shift, dt, combine<C>(op, load<C>(bytes + shift, dt), v));
    unsigned int next;
    memcpy(&next, bytes, 4);
    old = atomicCAS(w, assumed, next);
  } while (old != assumed);
}

// COPY: gather (indexed == 1) or plain scatter; FILL_IDENTITY: dst at each target = identity.
__global__ void copy_kernel(Params P, Offsets L, int64_t n, char* dst, const char* src, const void* index,
                            int64_t* error) {
  CT_GRID_LOOP(p, n) {
    int64_t off[3], i;
    offsets_of(L, p, off);
    if (!read_index(P, index, off[2], error, &i)) continue;
    if (P.indexed) off[1] += i * P.indexed_stride;
    else off[0] += i * P.indexed_stride;
    copy_bytes(dst + off[0] * P.isz, src + off[1] * P.isz, P.isz);
  }
}

template <typename C>
__global__ void identity_kernel(Params P, Offsets L, int64_t n, char* dst, const void* index, int64_t* error) {
  CT_GRID_LOOP(p, n) {
    int64_t off[3], i;
    offsets_of(L, p, off);
    if (!read_index(P, index, off[2], error, &i)) continue;
    store<C>(dst + (off[0] + i * P.indexed_stride) * P.isz, P.dtype, identity<C>(P.op, P.dtype));
  }
}

template <typename C>
__device__ __forceinline__ C scaled(const Params& P, C x) {
  if (P.op == CT_CUDA_INDEX_ADD && P.alpha != 1.0) return x * static_cast<C>(P.alpha);
  return x;
}

template <typename C>
__global__ void atomic_kernel(Params P, Offsets L, int64_t n, char* dst, const char* src, const void* index,
                              int64_t* count, int64_t* error) {
  CT_GRID_LOOP(p, n) {
    int64_t off[3], i;
    offsets_of(L, p, off);
    if (!read_index(P, index, off[2], error, &i)) continue;
    const int64_t d = off[0] + i * P.indexed_stride;
    atomic_update<C>(dst + d * P.isz, P.dtype, P.isz, P.op, scaled<C>(P, load<C>(src + off[1] * P.isz, P.dtype)));
    if (count) atomicAdd(reinterpret_cast<unsigned long long*>(count + d), 1ull);
  }
}

// The mean of each element with a nonzero count: floor division for integers (torch's
// div(rounding_mode='floor')), true division for floats.
template <typename C>
__device__ __forceinline__ C divide(C x, int64_t c) {
  if constexpr (std::is_integral_v<C>) {
    C q = x / c;
    if (x % c != 0 && (x < 0) != (c < 0)) --q;
    return q;
  } else {
    return x / static_cast<C>(c);
  }
}

template <typename C>
__global__ void mean_kernel(int dt, int isz, int64_t n, char* dst, const int64_t* count, int64_t self_count) {
  CT_GRID_LOOP(p, n) {
    const int64_t c = count[p] + self_count;
    if (c != 0) store<C>(dst + p * isz, dt, divide<C>(load<C>(dst + p * isz, dt), c));
  }
}

// Deterministic path, step 1: key = destination offset (dst_numel for a bad index: sorted last,
// skipped), value = loop position.
__global__ void key_kernel(Params P, Offsets L, int64_t n, int64_t dst_numel, const void* index, uint64_t* keys,
                           int64_t* pos, int64_t* error) {
  CT_GRID_LOOP(p, n) {
    int64_t off[3], i;
    offsets_of(L, p, off);
    keys[p] = read_index(P, index, off[2], error, &i) ? static_cast<uint64_t>(off[0] + i * P.indexed_stride)
                                                      : static_cast<uint64_t>(dst_numel);
    pos[p] = p;
  }
}

// Step 2: the first entry of each run of equal keys folds the run in position order.
template <typename C>
__global__ void fold_kernel(Params P, Offsets L, int64_t n, int64_t dst_numel, char* dst, const char* src,
                            const uint64_t* keys, const int64_t* pos) {
  CT_GRID_LOOP(k, n) {
    const uint64_t key = keys[k];
    if (key >= static_cast<uint64_t>(dst_numel) || (k > 0 && keys[k - 1] == key)) continue;
    char* d = dst + static_cast<int64_t>(key) * P.isz;
    int64_t e = k;
    if (P.op == CT_CUDA_INDEX_COPY) {
      while (e + 1 < n && keys[e + 1] == key) ++e;
      int64_t off[3];
      offsets_of(L, pos[e], off);
      copy_bytes(d, src + off[1] * P.isz, P.isz);
      continue;
    }
    C acc = P.include_self ? load<C>(d, P.dtype) : identity<C>(P.op, P.dtype);
    int64_t cnt = P.include_self ? 1 : 0;
    for (; e < n && keys[e] == key; ++e, ++cnt) {
      int64_t off[3];
      offsets_of(L, pos[e], off);
      acc = combine<C>(P.op, acc, scaled<C>(P, load<C>(src + off[1] * P.isz, P.dtype)));
    }
    if (P.op == CT_CUDA_INDEX_MEAN) acc = divide<C>(acc, cnt);
    store<C>(d, P.dtype, acc);
  }
}

int end_bit_for(int64_t limit) {  // bits of keys in [0, limit]
  int b = 1;
  while (b < 64 && (uint64_t(1) << b) <= static_cast<uint64_t>(limit)) ++b;
  return b;
}

size_t align_up(size_t x) { return (x + 255) & ~size_t(255); }

int sort_temp_bytes(int64_t n, int end_bit, size_t* bytes) {
  *bytes = 0;
  if (n == 0) return CT_CUDA_OK;
  CT_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, *bytes, static_cast<const uint64_t*>(nullptr),
                                              static_cast<uint64_t*>(nullptr), static_cast<const int64_t*>(nullptr),
                                              static_cast<int64_t*>(nullptr), static_cast<int>(n), 0, end_bit));
  return CT_CUDA_OK;
}

bool accumulates(int op) { return op >= CT_CUDA_INDEX_ADD && op <= CT_CUDA_INDEX_AMIN; }

// Workspace layout of the deterministic path: keys, sorted keys, positions, sorted positions
// (n each, 256-byte aligned), then CUB's temporary storage. MEAN's atomic path: dst_numel counts.
int workspace_bytes(const ct_cuda_index* a, int64_t n, size_t* bytes) {
  *bytes = 0;
  if (n == 0) return CT_CUDA_OK;
  if (a->deterministic && (accumulates(a->op) || a->op == CT_CUDA_INDEX_COPY) && a->indexed == 0) {
    size_t temp = 0;
    if (const int st = sort_temp_bytes(n, end_bit_for(a->dst_numel), &temp)) return st;
    *bytes = 4 * align_up(static_cast<size_t>(n) * 8) + temp;
  } else if (a->op == CT_CUDA_INDEX_MEAN) {
    *bytes = static_cast<size_t>(a->dst_numel) * 8;
  }
  return CT_CUDA_OK;
}

template <typename C>
int run_typed(const Params& P, const Offsets& L, int64_t n, const ct_cuda_index* a, char* dst, const char* src,
              const void* index, char* ws, int64_t* error, cudaStream_t s) {
  const unsigned g = grid_for(n);
  if (!a->deterministic) {
    if (!a->include_self) {
      identity_kernel<C><<<g, kThreads, 0, s>>>(P, L, n, dst, index, error);
      CT_CUDA_TRY(cudaGetLastError());
    }
    int64_t* count = nullptr;
    if (P.op == CT_CUDA_INDEX_MEAN) {
      count = reinterpret_cast<int64_t*>(ws);
      CT_CUDA_TRY(cudaMemsetAsync(count, 0, static_cast<size_t>(a->dst_numel) * 8, s));
    }
    atomic_kernel<C><<<g, kThreads, 0, s>>>(P, L, n, dst, src, index, count, error);
    CT_CUDA_TRY(cudaGetLastError());
    if (count) {
      mean_kernel<C><<<grid_for(a->dst_numel), kThreads, 0, s>>>(P.dtype, P.isz, a->dst_numel, dst, count,
                                                                 a->include_self ? 1 : 0);
      CT_CUDA_TRY(cudaGetLastError());
    }
    return CT_CUDA_OK;
  }
  fold_kernel<C><<<g, kThreads, 0, s>>>(P, L, n, a->dst_numel, dst, src,
                                        reinterpret_cast<const uint64_t*>(ws + align_up(static_cast<size_t>(n) * 8)),
                                        reinterpret_cast<const int64_t*>(ws + 3 * align_up(static_cast<size_t>(n) * 8)));
  CT_CUDA_TRY(cudaGetLastError());
  return CT_CUDA_OK;
}

// The prefix sums of masked_scatter: the mask as int64 counts, then an exclusive scan in place.
__global__ void mask_count_kernel(int64_t n, const uint8_t* mask, int64_t* out) {
  CT_GRID_LOOP(p, n)
    out[p] = mask[p] != 0;
}

__global__ void masked_scatter_kernel(int isz, int64_t n, char* out, const uint8_t* mask, const char* source,
                                      int64_t source_numel, const int64_t* pos, int64_t* error) {
  CT_GRID_LOOP(p, n) {
    if (!mask[p]) continue;
    const int64_t k = pos[p];
    if (k >= source_numel) {
      // error[1]: the count of true elements, which the last of them (the largest k) records.
      atomicCAS(reinterpret_cast<unsigned long long*>(error), 0ull, 1ull);
      atomicMax(reinterpret_cast<unsigned long long*>(error + 1), static_cast<unsigned long long>(k + 1));
      continue;
    }
    copy_bytes(out + p * isz, source + k * isz, isz);
  }
}

int scan_temp_bytes(int64_t n, size_t* bytes) {
  *bytes = 0;
  if (n == 0) return CT_CUDA_OK;
  CT_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, *bytes, static_cast<int64_t*>(nullptr),
                                            static_cast<int64_t*>(nullptr), static_cast<int>(n)));
  return CT_CUDA_OK;
}

}  // namespace

int index_workspace(const ct_cuda_index* a, const ct_cuda_loop* loop, size_t* bytes) {
  CT_CUDA_ARG(a && loop && bytes, "index_workspace: NULL argument");
  CT_CUDA_ARG(loop->numel <= INT_MAX, "index_workspace: %lld elements exceed CUB's int range",
              static_cast<long long>(loop->numel));
  return workspace_bytes(a, loop->numel, bytes);
}

int index_op(const ct_cuda_index* a, void* dst, const void* src, const void* index, const ct_cuda_loop* loop,
             void* workspace, size_t workspace_bytes_given, int64_t* error, void* stream) {
  CT_CUDA_ARG(a && loop && error, "index: NULL argument");
  CT_CUDA_ARG(valid_dtype(a->dtype), "index: unknown dtype %d", a->dtype);
  CT_CUDA_ARG(a->index_dtype == kI64 || a->index_dtype == kI32, "index: index dtype %d is not int32 or int64",
              a->index_dtype);
  CT_CUDA_ARG(a->op >= CT_CUDA_INDEX_COPY && a->op <= CT_CUDA_INDEX_AMIN, "index: unknown op %d", a->op);
  CT_CUDA_ARG(a->indexed == 0 || a->op == CT_CUDA_INDEX_COPY, "index: op %d must index dst (indexed 0)", a->op);
  CT_CUDA_ARG(loop->noperands == 3 && loop->ndim >= 0 && loop->ndim <= CT_CUDA_MAX_DIMS,
              "index: the loop must have 3 operands (dst, src, index)");
  const int64_t n = loop->numel;
  if (n == 0) return CT_CUDA_OK;
  size_t need = 0;
  if (const int st = workspace_bytes(a, n, &need)) return st;
  CT_CUDA_ARG(workspace_bytes_given >= need && (need == 0 || workspace),
              "index: the workspace has %zu bytes, %zu needed (index_workspace)", workspace_bytes_given, need);
  Params P{a->op, a->dtype, a->index_dtype, a->indexed, a->wrap, a->include_self, itemsize(a->dtype),
           a->indexed_stride, a->size, a->alpha};
  Offsets L{};
  L.ndim = loop->ndim == 0 ? 1 : loop->ndim;
  for (int d = 0; d < L.ndim; ++d) {
    L.sizes[d] = loop->ndim == 0 ? 1 : loop->sizes[d];
    for (int k = 0; k < 3; ++k) L.strides[k][d] = loop->ndim == 0 ? 0 : loop->strides[k][d];
  }
  cudaStream_t s = as_stream(stream);
  char* d = static_cast<char*>(dst);
  const char* sp = static_cast<const char*>(src);
  char* ws = static_cast<char*>(workspace);
  const bool sorted = a->deterministic && a->indexed == 0 && (accumulates(a->op) || a->op == CT_CUDA_INDEX_COPY);
  if (sorted) {
    const size_t span = align_up(static_cast<size_t>(n) * 8);
    uint64_t* keys = reinterpret_cast<uint64_t*>(ws);
    uint64_t* keys_out = reinterpret_cast<uint64_t*>(ws + span);
    int64_t* pos = reinterpret_cast<int64_t*>(ws + 2 * span);
    int64_t* pos_out = reinterpret_cast<int64_t*>(ws + 3 * span);
    key_kernel<<<grid_for(n), kThreads, 0, s>>>(P, L, n, a->dst_numel, index, keys, pos, error);
    CT_CUDA_TRY(cudaGetLastError());
    size_t temp = need - 4 * span;
    CT_CUDA_TRY(cub::DeviceRadixSort::SortPairs(ws + 4 * span, temp, keys, keys_out, pos, pos_out,
                                                static_cast<int>(n), 0, end_bit_for(a->dst_numel), s));
    if (a->op == CT_CUDA_INDEX_COPY) return run_typed<int64_t>(P, L, n, a, d, sp, index, ws, error, s);
  } else if (a->op == CT_CUDA_INDEX_COPY) {
    copy_kernel<<<grid_for(n), kThreads, 0, s>>>(P, L, n, d, sp, index, error);
    return check_launch("index copy kernel");
  }
  const int dt = a->dtype;
  if (dt == kF64) return run_typed<double>(P, L, n, a, d, sp, index, ws, error, s);
  if (is_floating(dt)) return run_typed<float>(P, L, n, a, d, sp, index, ws, error, s);
  return run_typed<int64_t>(P, L, n, a, d, sp, index, ws, error, s);
}

int masked_scatter_workspace(int64_t n, size_t* bytes) {
  CT_CUDA_ARG(bytes && n >= 0 && n <= INT_MAX, "masked_scatter_workspace: bad argument");
  size_t temp = 0;
  if (const int st = scan_temp_bytes(n, &temp)) return st;
  *bytes = n == 0 ? 0 : align_up(static_cast<size_t>(n) * 8) + temp;
  return CT_CUDA_OK;
}

int masked_scatter(int dtype, void* out, const void* mask, const void* source, int64_t n, int64_t source_numel,
                   void* workspace, size_t workspace_bytes_given, int64_t* error, void* stream) {
  CT_CUDA_ARG(valid_dtype(dtype) && error && n >= 0 && n <= INT_MAX, "masked_scatter: bad argument");
  if (n == 0) return CT_CUDA_OK;
  size_t need = 0;
  if (const int st = masked_scatter_workspace(n, &need)) return st;
  CT_CUDA_ARG(workspace && workspace_bytes_given >= need,
              "masked_scatter: the workspace has %zu bytes, %zu needed", workspace_bytes_given, need);
  cudaStream_t s = as_stream(stream);
  int64_t* pos = static_cast<int64_t*>(workspace);
  const size_t span = align_up(static_cast<size_t>(n) * 8);
  mask_count_kernel<<<grid_for(n), kThreads, 0, s>>>(n, static_cast<const uint8_t*>(mask), pos);
  CT_CUDA_TRY(cudaGetLastError());
  size_t temp = need - span;
  CT_CUDA_TRY(cub::DeviceScan::ExclusiveSum(static_cast<char*>(workspace) + span, temp, pos, pos,
                                            static_cast<int>(n), s));
  masked_scatter_kernel<<<grid_for(n), kThreads, 0, s>>>(itemsize(dtype), n, static_cast<char*>(out),
                                                          static_cast<const uint8_t*>(mask),
                                                          static_cast<const char*>(source), source_numel, pos, error);
  return check_launch("masked_scatter kernel");
}

}  // namespace ct::cuda
