// elementwise.cu - loop descriptor validation (shared by unary.cu and binary.cu), fill and where.
#include <cstdint>

#include "loop.h"

namespace ct::cuda {

const char* dtype_name(int dt) {
  static const char* const names[] = {"bool", "uint8", "int8", "int16", "int32",
                                      "int64", "float16", "bfloat16", "float32", "float64"};
  return valid_dtype(dt) ? names[dt] : "unknown";
}

int make_loop_args(const char* fn, const ct_cuda_loop* loop, int nops, void* const* ptrs, const int* dtypes,
                   LoopArgs* a) {
  CT_CUDA_ARG(loop, "%s: loop is NULL. Pass a ct_cuda_loop describing the operands", fn);
  CT_CUDA_ARG(loop->noperands == nops, "%s: loop.noperands is %d, the call has %d operands (output first)", fn,
              loop->noperands, nops);
  CT_CUDA_ARG(loop->ndim >= 0 && loop->ndim <= CT_CUDA_MAX_DIMS, "%s: loop.ndim %d is outside [0, %d]. Merge dims",
              fn, loop->ndim, CT_CUDA_MAX_DIMS);
  int64_t numel = 1;
  for (int d = 0; d < loop->ndim; ++d) {
    CT_CUDA_ARG(loop->sizes[d] >= 0, "%s: loop.sizes[%d] is %lld. Sizes must be >= 0", fn, d,
                static_cast<long long>(loop->sizes[d]));
    numel *= loop->sizes[d];
  }
  CT_CUDA_ARG(numel == loop->numel, "%s: loop.numel %lld is not the product of its sizes (%lld)", fn,
              static_cast<long long>(loop->numel), static_cast<long long>(numel));
  a->nops = nops;
  a->numel = numel;
  a->ndim = loop->ndim == 0 ? 1 : loop->ndim;
  bool unit = a->ndim == 1, aligned = true;
  for (int k = 0; k < nops; ++k) {
    CT_CUDA_ARG(valid_dtype(dtypes[k]), "%s: operand %d has dtype code %d. Pass a ct_dtype", fn, k, dtypes[k]);
    CT_CUDA_ARG(ptrs[k] || numel == 0, "%s: operand %d is NULL", fn, k);
    a->ptr[k] = static_cast<char*>(ptrs[k]);
    a->dtype[k] = dtypes[k];
    a->isz[k] = itemsize(dtypes[k]);
    for (int d = 0; d < a->ndim; ++d) a->strides[k][d] = loop->ndim == 0 ? 0 : loop->strides[k][d] * a->isz[k];
    unit = unit && a->strides[k][0] == a->isz[k];
    aligned = aligned && reinterpret_cast<uintptr_t>(ptrs[k]) % (4u * a->isz[k]) == 0;
  }
  for (int d = 0; d < a->ndim; ++d) a->sizes[d] = loop->ndim == 0 ? 1 : loop->sizes[d];
  a->contiguous = unit;
  a->vec4 = unit && aligned;
  return 0;
}

namespace {

template <typename C>
struct Constant {
  C value;
  __device__ C operator()() const { return value; }
};

struct Where {
  template <typename C>
  __device__ C operator()(C cond, C a, C b) const { return cond != C(0) ? a : b; }
};

// The compute type that holds every value of dt exactly, and calls launch with it.
template <typename Launch>
int with_exact_type(int dt, const Launch& launch) {
  if (dt == kBool) return launch(bool{});
  if (dt == kF64) return launch(double{});
  if (is_floating(dt)) return launch(float{});
  return launch(int64_t{});
}

}  // namespace

int fill(int dtype, double value, int64_t ivalue, void* out, const ct_cuda_loop* loop, void* stream) {
  LoopArgs a;
  if (const int s = make_loop_args("fill", loop, 1, &out, &dtype, &a)) return s;
  return with_exact_type(dtype, [&](auto c) {
    using C = decltype(c);
    C v;
    if constexpr (std::is_same_v<C, bool>) v = ivalue != 0;
    else if constexpr (std::is_integral_v<C>) v = ivalue;
    else v = static_cast<C>(value);
    return launch_elementwise<0, C>("fill kernel launch", a, Constant<C>{v}, stream);
  });
}

int where(int dtype_out, int dtype_cond, int dtype_a, int dtype_b, void* out, const void* cond, const void* a,
          const void* b, const ct_cuda_loop* loop, void* stream) {
  void* ptrs[4] = {out, const_cast<void*>(cond), const_cast<void*>(a), const_cast<void*>(b)};
  const int dtypes[4] = {dtype_out, dtype_cond, dtype_a, dtype_b};
  CT_CUDA_ARG(dtype_cond == kBool || dtype_cond == kU8, "where: cond is %s. Pass a bool (or uint8) condition",
              dtype_name(dtype_cond));
  LoopArgs la;
  if (const int s = make_loop_args("where", loop, 4, ptrs, dtypes, &la)) return s;
  return with_exact_type(dtype_out, [&](auto c) {
    return launch_elementwise<3, decltype(c)>("where kernel launch", la, Where{}, stream);
  });
}

}  // namespace ct::cuda
