// sort.cu - sorting rows with CUB's radix sorts (stable), and kthvalue/median/mode picked from the
// sorted rows. See Note [Sort keys] in src/ops/sort/order_key.h: the keys here are the same.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>

#include <climits>
#include <cstdint>

#include "dtype.h"
#include "grid.h"
#include "members.h"
#include "status.h"

namespace ct::cuda {
namespace {

size_t align_up(size_t x) { return (x + 255) & ~size_t(255); }

// The unsigned key of the element at p (order_key.h's rules), complemented for descending order,
// in the low itemsize * 8 bits.
__device__ __forceinline__ uint64_t key_of(const char* p, int dt, bool descending) {
  uint64_t k;
  int bits;
  switch (dt) {
    case kBool: k = *p != 0; bits = 8; break;
    case kU8: k = *reinterpret_cast<const uint8_t*>(p); bits = 8; break;
    case kI8: k = static_cast<uint8_t>(*p) ^ 0x80u; bits = 8; break;
    case kI16: k = *reinterpret_cast<const uint16_t*>(p) ^ 0x8000u; bits = 16; break;
    case kI32: k = *reinterpret_cast<const uint32_t*>(p) ^ 0x80000000u; bits = 32; break;
    case kI64: k = *reinterpret_cast<const uint64_t*>(p) ^ (uint64_t(1) << 63); bits = 64; break;
    case kF16:
    case kBF16: {
      const uint32_t u = *reinterpret_cast<const uint16_t*>(p);
      const uint32_t inf = dt == kF16 ? 0x7c00u : 0x7f80u;
      bits = 16;
      if ((u & 0x7fffu) > inf) k = 0xffffu;
      else if ((u & 0x7fffu) == 0) k = 0x8000u;
      else k = (u & 0x8000u) ? (~u & 0xffffu) : (u | 0x8000u);
      break;
    }
    case kF32: {
      const uint32_t u = *reinterpret_cast<const uint32_t*>(p);
      bits = 32;
      if ((u & 0x7fffffffu) > 0x7f800000u) k = 0xffffffffu;
      else if ((u & 0x7fffffffu) == 0) k = 0x80000000u;
      else k = (u & 0x80000000u) ? static_cast<uint32_t>(~u) : (u | 0x80000000u);
      break;
    }
    default: {
      const uint64_t u = *reinterpret_cast<const uint64_t*>(p);
      const uint64_t sign = uint64_t(1) << 63;
      bits = 64;
      if ((u & ~sign) > 0x7ff0000000000000ull) k = ~uint64_t(0);
      else if ((u & ~sign) == 0) k = sign;
      else k = (u & sign) ? ~u : (u | sign);
      break;
    }
  }
  if (descending) k = ~k;
  return bits == 64 ? k : (k & ((uint64_t(1) << bits) - 1));
}

__global__ void keys_kernel(int dt, int isz, bool descending, int64_t n, int64_t cols, const char* in, uint64_t* keys,
                            int64_t* idx) {
  CT_GRID_LOOP(p, n) {
    keys[p] = key_of(in + p * isz, dt, descending);
    idx[p] = p % cols;
  }
}

// values[r, j] = in[r, indices[r, j]]
__global__ void take_rows_kernel(int isz, int64_t n, int64_t cols, const char* in, const int64_t* indices,
                                 char* values) {
  CT_GRID_LOOP(p, n) {
    const char* s = in + ((p / cols) * cols + indices[p]) * isz;
    char* d = values + p * isz;
    for (int b = 0; b < isz; ++b) d[b] = s[b];
  }
}

__global__ void offsets_kernel(int64_t rows, int64_t cols, int* offsets) {
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r <= rows; r += int64_t(gridDim.x) * blockDim.x)
    offsets[r] = static_cast<int>(r * cols);
}

struct Layout {
  size_t keys, keys_out, idx_scratch, offsets, temp, total;
};

int layout_of(int dt, int64_t rows, int64_t cols, Layout* l) {
  const int64_t n = rows * cols;
  const size_t span = align_up(static_cast<size_t>(n) * 8);
  l->keys = 0;
  l->keys_out = span;
  l->idx_scratch = 2 * span;
  l->offsets = 3 * span;
  const size_t off_bytes = rows > 1 ? align_up(static_cast<size_t>(rows + 1) * sizeof(int)) : 0;
  l->temp = 3 * span + off_bytes;
  size_t temp = 0;
  const int end_bit = itemsize(dt) * 8;
  if (rows == 1) {
    CT_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, temp, static_cast<const uint64_t*>(nullptr),
                                                static_cast<uint64_t*>(nullptr), static_cast<const int64_t*>(nullptr),
                                                static_cast<int64_t*>(nullptr), static_cast<int>(n), 0, end_bit));
  } else {
    CT_CUDA_TRY(cub::DeviceSegmentedRadixSort::SortPairs(
        nullptr, temp, static_cast<const uint64_t*>(nullptr), static_cast<uint64_t*>(nullptr),
        static_cast<const int64_t*>(nullptr), static_cast<int64_t*>(nullptr), static_cast<int>(n),
        static_cast<int>(rows), static_cast<const int*>(nullptr), static_cast<const int*>(nullptr), 0, end_bit));
  }
  l->total = l->temp + temp;
  return CT_CUDA_OK;
}

// One thread per row over the ascending sorted row: kthvalue (k-th, 0-based), median (the lower
// one, or the first NaN: NaN keys sort last, and the stable sort keeps NaNs in index order), mode
// (the longest run of equal keys, the first (smallest) on ties, at its last index).
__global__ void select_kernel(int mode, int dt, int isz, int64_t rows, int64_t cols, int64_t k, const char* in,
                              const int64_t* order, char* value, int64_t* index) {
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < rows; r += int64_t(gridDim.x) * blockDim.x) {
    const char* row = in + r * cols * isz;
    const int64_t* o = order + r * cols;
    int64_t at;
    if (mode == CT_CUDA_SELECT_MODE) {
      int64_t best = o[0], best_len = 0;
      for (int64_t i = 0; i < cols;) {
        const uint64_t key = key_of(row + o[i] * isz, dt, false);
        int64_t j = i + 1;
        while (j < cols && key_of(row + o[j] * isz, dt, false) == key) ++j;
        if (j - i > best_len) best_len = j - i, best = o[j - 1];
        i = j;
      }
      at = best;
    } else {
      at = o[k];
      if (mode == CT_CUDA_SELECT_MEDIAN && dt >= kF16) {
        const uint64_t nan_key = itemsize(dt) == 8 ? ~uint64_t(0) : (uint64_t(1) << (itemsize(dt) * 8)) - 1;
        if (key_of(row + o[cols - 1] * isz, dt, false) == nan_key) {
          int64_t j = cols - 1;
          while (j > 0 && key_of(row + o[j - 1] * isz, dt, false) == nan_key) --j;
          at = o[j];
        }
      }
    }
    const char* s = row + at * isz;
    for (int b = 0; b < isz; ++b) value[r * isz + b] = s[b];
    index[r] = at;
  }
}

}  // namespace

int sort_workspace(int dtype, int64_t rows, int64_t cols, size_t* bytes) {
  CT_CUDA_ARG(bytes && valid_dtype(dtype) && rows >= 0 && cols >= 0, "sort_workspace: bad argument");
  CT_CUDA_ARG(rows * cols <= INT_MAX, "sort_workspace: %lld elements exceed CUB's int range",
              static_cast<long long>(rows * cols));
  *bytes = 0;
  if (rows * cols == 0) return CT_CUDA_OK;
  Layout l;
  if (const int st = layout_of(dtype, rows, cols, &l)) return st;
  *bytes = l.total;
  return CT_CUDA_OK;
}

int sort(int dtype, int descending, void* values, int64_t* indices, const void* in, int64_t rows, int64_t cols,
         void* workspace, size_t workspace_bytes, void* stream) {
  CT_CUDA_ARG(valid_dtype(dtype) && indices && rows >= 0 && cols >= 0, "sort: bad argument");
  const int64_t n = rows * cols;
  if (n == 0) return CT_CUDA_OK;
  size_t need = 0;
  if (const int st = sort_workspace(dtype, rows, cols, &need)) return st;
  CT_CUDA_ARG(workspace && workspace_bytes >= need, "sort: the workspace has %zu bytes, %zu needed",
              workspace_bytes, need);
  Layout l;
  if (const int st = layout_of(dtype, rows, cols, &l)) return st;
  cudaStream_t s = as_stream(stream);
  char* ws = static_cast<char*>(workspace);
  uint64_t* keys = reinterpret_cast<uint64_t*>(ws + l.keys);
  uint64_t* keys_out = reinterpret_cast<uint64_t*>(ws + l.keys_out);
  int64_t* idx = reinterpret_cast<int64_t*>(ws + l.idx_scratch);
  const int isz = itemsize(dtype);
  keys_kernel<<<grid_for(n), kThreads, 0, s>>>(dtype, isz, descending != 0, n, cols, static_cast<const char*>(in),
                                               keys, idx);
  CT_CUDA_TRY(cudaGetLastError());
  size_t temp = l.total - l.temp;
  const int end_bit = isz * 8;
  if (rows == 1) {
    CT_CUDA_TRY(cub::DeviceRadixSort::SortPairs(ws + l.temp, temp, keys, keys_out, idx, indices,
                                                static_cast<int>(n), 0, end_bit, s));
  } else {
    int* offsets = reinterpret_cast<int*>(ws + l.offsets);
    offsets_kernel<<<grid_for(rows + 1), kThreads, 0, s>>>(rows, cols, offsets);
    CT_CUDA_TRY(cudaGetLastError());
    CT_CUDA_TRY(cub::DeviceSegmentedRadixSort::SortPairs(ws + l.temp, temp, keys, keys_out, idx, indices,
                                                         static_cast<int>(n), static_cast<int>(rows), offsets,
                                                         offsets + 1, 0, end_bit, s));
  }
  if (values) {
    take_rows_kernel<<<grid_for(n), kThreads, 0, s>>>(isz, n, cols, static_cast<const char*>(in), indices,
                                                      static_cast<char*>(values));
    CT_CUDA_TRY(cudaGetLastError());
  }
  return CT_CUDA_OK;
}

int sort_select(int mode, int dtype, void* value, int64_t* index, const void* in, const int64_t* order, int64_t rows,
                int64_t cols, int64_t k, void* stream) {
  CT_CUDA_ARG(valid_dtype(dtype) && value && index && order && rows >= 0 && cols > 0,
              "sort_select: bad argument");
  CT_CUDA_ARG(mode >= CT_CUDA_SELECT_KTH && mode <= CT_CUDA_SELECT_MODE, "sort_select: unknown mode %d", mode);
  CT_CUDA_ARG(mode == CT_CUDA_SELECT_MODE || (k >= 0 && k < cols), "sort_select: k = %lld outside [0, %lld)",
              static_cast<long long>(k), static_cast<long long>(cols));
  if (rows == 0) return CT_CUDA_OK;
  select_kernel<<<grid_for(rows), kThreads, 0, as_stream(stream)>>>(mode, dtype, itemsize(dtype), rows, cols, k,
                                                                    static_cast<const char*>(in), order,
                                                                    static_cast<char*>(value), index);
  return check_launch("sort_select kernel");
}

}  // namespace ct::cuda
