// loop.h - the one loop engine behind every elementwise kernel.
//
// A LoopPlan lays an output and up to three inputs over one broadcast shape: byte strides per
// operand (0 where an input broadcasts), dims merged wherever every operand is contiguous across
// them, so a contiguous add is a single 1-D loop. run_elementwise then walks the plan in linear
// chunks on the thread pool and calls an inner loop on each contiguous-in-the-last-dim segment.
// The inner loop has fast paths (all operands dense; a binary op with one side broadcast) that the
// compiler vectorizes, and a strided path for everything else.
//
// Note [Casting in the loop]
// An input whose dtype is not the one the kernel computes in (int32 + float32 computes in float32)
// is converted as the loop reads it, a chunk of elements at a time into a buffer on the stack, as
// PyTorch's TensorIterator does, not copied whole beforehand: one pass over memory instead of two,
// and no temporary the size of the input. The kernel sees dense operands of its own dtype, so the
// same typed inner loop serves every mix of input dtypes (LoopCasts, elementwise()).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>

#include "core/tensor.h"
#include "ops/cpu/cast.h"
#include "ops/cpu/isa.h"
#include "ops/cpu/parallel.h"

namespace ct::cpu {

constexpr int kMaxOperands = 4;

// Plain arrays, left uninitialized past ndim: building a plan must cost next to nothing for the
// small tensors where per-call overhead dominates.
struct LoopPlan {
  int nops;
  int ndim;  // after merging; at least 1
  int64_t numel;
  int64_t shape[kMaxDims];                  // innermost last
  int64_t strides[kMaxOperands][kMaxDims];  // bytes, per operand per dim
  char* base[kMaxOperands];
};

/// Plans a loop writing out (sizes equal the broadcast shape) from inputs that broadcast to it.
LoopPlan make_plan(const TensorImpl& out, const TensorImpl* const* inputs, int ninputs);

/// Calls inner(ptrs, strides, n) on every segment of the plan; ptrs[0] is the output.
template <typename Inner>
void for_each_segment(const LoopPlan& p, int64_t begin, int64_t end, Inner& inner) {
  const int nd = p.ndim, last = nd - 1;
  if (nd == 1) {  // one segment: no index arithmetic
    char* ptr[kMaxOperands];
    int64_t inner_strides[kMaxOperands];
    for (int o = 0; o < p.nops; ++o) {
      inner_strides[o] = p.strides[o][0];
      ptr[o] = p.base[o] + begin * inner_strides[o];
    }
    inner(ptr, inner_strides, end - begin);
    return;
  }
  int64_t idx[kMaxDims];
  int64_t rem = begin;
  for (int d = last; d >= 0; --d) {
    idx[d] = rem % p.shape[d];
    rem /= p.shape[d];
  }
  char* ptr[kMaxOperands];
  int64_t inner_strides[kMaxOperands];
  for (int o = 0; o < p.nops; ++o) {
    int64_t off = 0;
    for (int d = 0; d < nd; ++d) off += idx[d] * p.strides[o][d];
    ptr[o] = p.base[o] + off;
    inner_strides[o] = p.strides[o][last];
  }
  for (;;) {
    int64_t n = p.shape[last] - idx[last];
    if (n > end - begin) n = end - begin;
    inner(ptr, inner_strides, n);
    begin += n;
    if (begin >= end) return;
    // The row is finished: step every pointer to the next row, carrying into outer dims.
    for (int o = 0; o < p.nops; ++o) ptr[o] += n * inner_strides[o];
    idx[last] += n;
    for (int d = last; d > 0 && idx[d] == p.shape[d]; --d) {
      idx[d] = 0;
      ++idx[d - 1];
      for (int o = 0; o < p.nops; ++o) ptr[o] += p.strides[o][d - 1] - p.shape[d] * p.strides[o][d];
    }
  }
}

/// The inputs a loop converts as it reads them (Note [Casting in the loop]): line[i] converts input
/// i to `compute`, nullptr where input i already has that dtype.
struct LoopCasts {
  CastLine line[kMaxOperands - 1] = {};
  DType compute = DType::Float32;
  bool any = false;
};

/// The casts for inputs of the given dtypes into compute.
inline LoopCasts loop_casts(const TensorImpl* const* inputs, int ninputs, DType compute) {
  LoopCasts c;
  c.compute = compute;
  for (int i = 0; i < ninputs; ++i) {
    c.line[i] = cast_line(inputs[i]->dtype(), compute);
    c.any = c.any || c.line[i] != nullptr;
  }
  return c;
}

/// A segment loop behind a type-erased call: fn(ctx, ptrs, strides, n).
using SegmentFn = void (*)(const void* ctx, char** ptrs, const int64_t* strides, int64_t n);
/// Runs fn over the plan as run_plan does, each segment cut into chunks whose converted inputs are
/// dense buffers of the compute dtype (loop.cpp). Not a template: the chunking is compiled once,
/// and each kernel adds only the thunk that calls its typed inner loop.
void run_plan_casting(const LoopPlan& p, const LoopCasts& casts, SegmentFn fn, const void* ctx);

/// Runs inner over the whole plan, in parallel when it is large.
template <typename Inner>
void run_plan(const LoopPlan& p, Inner inner) {
  if (p.numel == 0) return;
  if (p.numel < kElementwiseGrain || get_num_threads() == 1) {  // skip the thread pool's setup
    for_each_segment(p, 0, p.numel, inner);
    return;
  }
  parallel_for(0, p.numel, kElementwiseGrain, [&](int64_t b, int64_t e) {
    Inner local = inner;
    for_each_segment(p, b, e, local);
  });
}

namespace detail {

/// in[i], read as loaded_t<T> (cast.h: a bool as its byte, so the loop vectorizes).
template <typename T>
[[gnu::always_inline]] inline T load(const T* in, int64_t i) {
  return static_cast<T>(reinterpret_cast<const loaded_t<T>*>(in)[i]);
}

template <typename Out, typename... In, typename F, size_t... I>
[[gnu::always_inline]] inline void elementwise_body(char** ptrs, const int64_t* strides, int64_t n, const F& f,
                                                    std::index_sequence<I...>) {
  constexpr size_t N = sizeof...(In);
  Out* out = reinterpret_cast<Out*>(ptrs[0]);
  const bool dense = strides[0] == static_cast<int64_t>(sizeof(Out)) &&
                     ((strides[I + 1] == static_cast<int64_t>(sizeof(In))) && ...);
  if (dense) {
    std::tuple<const In*...> in{reinterpret_cast<const In*>(ptrs[I + 1])...};
    for (int64_t i = 0; i < n; ++i) out[i] = f(load(std::get<I>(in), i)...);
    return;
  }
  if constexpr (N == 2) {
    // One side broadcast (tensor-scalar): hoist the scalar so the loop vectorizes.
    using A = std::tuple_element_t<0, std::tuple<In...>>;
    using B = std::tuple_element_t<1, std::tuple<In...>>;
    if (strides[0] == static_cast<int64_t>(sizeof(Out))) {
      if (strides[1] == static_cast<int64_t>(sizeof(A)) && strides[2] == 0) {
        const A* a = reinterpret_cast<const A*>(ptrs[1]);
        const B b = *reinterpret_cast<const B*>(ptrs[2]);
        for (int64_t i = 0; i < n; ++i) out[i] = f(load(a, i), b);
        return;
      }
      if (strides[1] == 0 && strides[2] == static_cast<int64_t>(sizeof(B))) {
        const A a = *reinterpret_cast<const A*>(ptrs[1]);
        const B* b = reinterpret_cast<const B*>(ptrs[2]);
        for (int64_t i = 0; i < n; ++i) out[i] = f(a, load(b, i));
        return;
      }
    }
  }
  if constexpr (N == 3) {
    // One of the last two broadcast (where(c, x, 0), relu's gradient): hoisted, as above.
    using A = std::tuple_element_t<0, std::tuple<In...>>;
    using B = std::tuple_element_t<1, std::tuple<In...>>;
    using C = std::tuple_element_t<2, std::tuple<In...>>;
    if (strides[0] == static_cast<int64_t>(sizeof(Out)) && strides[1] == static_cast<int64_t>(sizeof(A))) {
      const A* a = reinterpret_cast<const A*>(ptrs[1]);
      if (strides[2] == 0 && strides[3] == static_cast<int64_t>(sizeof(C))) {
        const B b = *reinterpret_cast<const B*>(ptrs[2]);
        const C* c = reinterpret_cast<const C*>(ptrs[3]);
        for (int64_t i = 0; i < n; ++i) out[i] = f(load(a, i), b, load(c, i));
        return;
      }
      if (strides[2] == static_cast<int64_t>(sizeof(B)) && strides[3] == 0) {
        const B* b = reinterpret_cast<const B*>(ptrs[2]);
        const C c = *reinterpret_cast<const C*>(ptrs[3]);
        for (int64_t i = 0; i < n; ++i) out[i] = f(load(a, i), load(b, i), c);
        return;
      }
    }
  }
  char* o = ptrs[0];
  [[maybe_unused]] char* in[N ? N : 1] = {ptrs[I + 1]...};
  for (int64_t i = 0; i < n; ++i) {
    *reinterpret_cast<Out*>(o) = f(*reinterpret_cast<const In*>(in[I])...);
    o += strides[0];
    ((in[I] += strides[I + 1]), ...);
  }
}

// The body compiled twice; see Note [CPU capability dispatch]. Not inlined: the casting thunk of
// elementwise(p, f, casts) calls it rather than carrying a second copy of the loop.
template <typename Out, typename... In, typename F>
[[gnu::noinline]] void elementwise_baseline(char** ptrs, const int64_t* strides, int64_t n, const F& f) {
  elementwise_body<Out, In...>(ptrs, strides, n, f, std::index_sequence_for<In...>{});
}
#if CT_HAVE_AVX2_KERNELS
template <typename Out, typename... In, typename F>
CT_TARGET_AVX2 void elementwise_avx2(char** ptrs, const int64_t* strides, int64_t n, const F& f) {
  elementwise_body<Out, In...>(ptrs, strides, n, f, std::index_sequence_for<In...>{});
}
template <typename Out, typename... In, typename F>
CT_TARGET_AVX512 void elementwise_avx512(char** ptrs, const int64_t* strides, int64_t n, const F& f) {
  elementwise_body<Out, In...>(ptrs, strides, n, f, std::index_sequence_for<In...>{});
}
#endif

/// float32 functions of one float32 input (exp, erf, gelu...) get a third build, for AVX-512: their
/// vec_math.h bodies are arithmetic-bound and run in half the instructions there (gelu 1.7x
/// faster). Lane for lane it computes what the AVX2 build does, so the bits agree (Note [CPU
/// capability dispatch]); other loops wait on memory and keep two builds.
template <typename Out, typename... In>
constexpr bool kAvx512Loop = sizeof...(In) == 1 && std::is_same<Out, float>::value && (std::is_same<In, float>::value && ...);

}  // namespace detail

/// x where c, else y, without a branch: a mask blends the bits. `c ? x : y` compiled to a branch
/// per element, which a random condition (ReLU's gradient mask) mispredicts half the time: 4 ns
/// per element against 0.1 for the blend, which vectorizes (elementwise reads bools as bytes).
template <typename T>
[[gnu::always_inline]] inline T select(bool c, T x, T y) {
  using U = std::conditional_t<sizeof(T) == 1, uint8_t, std::conditional_t<sizeof(T) == 2, uint16_t,
            std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
  if constexpr (sizeof(T) == sizeof(U) && std::is_trivially_copyable_v<T>) {
    U a, b;
    std::memcpy(&a, &x, sizeof a);
    std::memcpy(&b, &y, sizeof b);
    const U mask = static_cast<U>(U(0) - static_cast<U>(c));
    const U r = static_cast<U>((a & mask) | (b & static_cast<U>(~mask)));
    T out;
    std::memcpy(static_cast<void*>(&out), &r, sizeof out);
    return out;
  } else {
    return c ? x : y;
  }
}

/// out = f(in...) elementwise over a plan whose operands have exactly the types Out, In....
template <typename Out, typename... In, typename F>
void elementwise(const LoopPlan& p, const F& f) {
#if CT_HAVE_AVX2_KERNELS
  if constexpr (detail::kAvx512Loop<Out, In...>) {
    if (has_avx512()) {
      run_plan(p, [&f](char** ptrs, const int64_t* strides, int64_t n) {
        detail::elementwise_avx512<Out, In...>(ptrs, strides, n, f);
      });
      return;
    }
  }
  if (has_avx2()) {
    run_plan(p, [&f](char** ptrs, const int64_t* strides, int64_t n) {
      detail::elementwise_avx2<Out, In...>(ptrs, strides, n, f);
    });
    return;
  }
#endif
  run_plan(p, [&f](char** ptrs, const int64_t* strides, int64_t n) {
    detail::elementwise_baseline<Out, In...>(ptrs, strides, n, f);
  });
}

/// The same over inputs that casts converts to In... as they are read (Note [Casting in the loop]).
template <typename Out, typename... In, typename F>
void elementwise(const LoopPlan& p, const F& f, const LoopCasts& casts) {
  if (!casts.any) return elementwise<Out, In...>(p, f);
#if CT_HAVE_AVX2_KERNELS
  if constexpr (detail::kAvx512Loop<Out, In...>) {
    if (has_avx512()) {
      run_plan_casting(p, casts, [](const void* ctx, char** ptrs, const int64_t* strides, int64_t n) {
        detail::elementwise_avx512<Out, In...>(ptrs, strides, n, *static_cast<const F*>(ctx));
      }, &f);
      return;
    }
  }
  if (has_avx2()) {
    run_plan_casting(p, casts, [](const void* ctx, char** ptrs, const int64_t* strides, int64_t n) {
      detail::elementwise_avx2<Out, In...>(ptrs, strides, n, *static_cast<const F*>(ctx));
    }, &f);
    return;
  }
#endif
  run_plan_casting(p, casts, [](const void* ctx, char** ptrs, const int64_t* strides, int64_t n) {
    detail::elementwise_baseline<Out, In...>(ptrs, strides, n, *static_cast<const F*>(ctx));
  }, &f);
}

}  // namespace ct::cpu
