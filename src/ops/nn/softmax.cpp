// softmax.cpp - softmax and log_softmax along one dim, and their derivatives.
//
// One fused pass per row: the maximum, then exp(x - max) and its sum, then the scaling (softmax)
// or x - max - log(sum) (log_softmax). Rows run in parallel; within a row, sums use vm::kLanes
// interleaved lanes combined pairwise, so the bits do not depend on the thread count.
// float16/bfloat16 rows are computed in float32, as PyTorch does. exp is vec_math.h's, which vectorizes for float32 (see
// Note [Vectorizable float32 math]); double rows use libm.
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "dispatch/dispatcher.h"
#include "ops/cpu/isa.h"
#include "ops/cpu/parallel.h"
#include "ops/cpu/vec_math.h"
#include "ops/functions.h"
#include "ops/nn/nn.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

// sum over q < n of e(q), in vm::lane_reduce's order (kLanes lanes by q mod kLanes, combined
// pairwise), so the bits depend on n alone. e may store its value as it goes: the exponentials are
// summed in the pass that writes them.
template <typename C, typename E>
[[gnu::always_inline]] inline C lane_sum(int64_t n, E e) {
  C l[cpu::vm::kLanes] = {};
  int64_t q = 0;
  for (; q + cpu::vm::kLanes <= n; q += cpu::vm::kLanes)
    for (int j = 0; j < cpu::vm::kLanes; ++j) l[j] += e(q + j);
  for (int j = 0; q < n; ++q, ++j) l[j] += e(q);
  for (int w = cpu::vm::kLanes / 2; w >= 1; w /= 2)
    for (int j = 0; j < w; ++j) l[j] += l[j + w];
  return l[0];
}

// One row of k elements: y[0, n) = softmax(x[0, n)) or its log; y[n, k) = 0 (softmax only).
// buf holds 2k elements of C: the row converted to C (when T is not C), then its exponentials
// (when the output is not C itself). Three passes, each a plain loop that vectorizes (exp included):
// the maximum; exp(x - max) summed as it is written (softmax) or only summed (log_softmax); then
// the scaling or x - max - log(sum).
template <typename T, bool Log>
[[gnu::always_inline]] inline void row_body(const T* x, T* y, int64_t n, int64_t k, opmath_t<T>* buf) {
  using C = opmath_t<T>;
  const C* xs;
  if constexpr (std::is_same<T, C>::value) {
    xs = x;
  } else {
    for (int64_t i = 0; i < n; ++i) buf[i] = C(x[i]);
    xs = buf;
  }
  const C mx = cpu::vm::lane_reduce<C>(n, C(-INFINITY), [xs](int64_t q) { return xs[q]; },
                                      [](C a, C b) { return b > a ? b : a; });
  // mx skips NaNs, but exp(NaN - mx) is NaN, so a NaN still makes the sum, and so the row, NaN;
  // so does an infinity (inf - inf).
  if constexpr (Log) {
    const C sum = lane_sum<C>(n, [xs, mx](int64_t q) { return cpu::vm::exp(xs[q] - mx); });
    const C log_sum = std::log(sum);
    for (int64_t q = 0; q < n; ++q) y[q] = T(xs[q] - mx - log_sum);
  } else {
    // The exponentials go straight to y when y holds C (x may be y: each is read before written).
    C* e = std::is_same<T, C>::value ? reinterpret_cast<C*>(y) : buf + k;
    const C sum = lane_sum<C>(n, [xs, mx, e](int64_t q) { return e[q] = cpu::vm::exp(xs[q] - mx); });
    const C inv = C(1) / sum;
    for (int64_t q = 0; q < n; ++q) y[q] = T(e[q] * inv);
    for (int64_t q = n; q < k; ++q) y[q] = T(0);
  }
}

template <typename T, bool Log>
void rows_default(const T* x, T* y, int64_t r0, int64_t r1, int64_t k, bool causal, int64_t first,
                  opmath_t<T>* buf) {
  for (int64_t r = r0; r < r1; ++r)
    row_body<T, Log>(x + r * k, y + r * k, causal ? std::min(k, first + r + 1) : k, k, buf);
}
#if CT_HAVE_AVX2_KERNELS
template <typename T, bool Log>
CT_TARGET_AVX2 void rows_avx2(const T* x, T* y, int64_t r0, int64_t r1, int64_t k, bool causal, int64_t first,
                              opmath_t<T>* buf) {
  for (int64_t r = r0; r < r1; ++r)
    row_body<T, Log>(x + r * k, y + r * k, causal ? std::min(k, first + r + 1) : k, k, buf);
}
// The same body with 16 floats a vector: lane for lane what the AVX2 build computes (the sums' lane
// order is fixed by kLanes, not by the vector width), so the bits agree; see Note [CPU capability
// dispatch]. exp is most of the work, so the wider vectors pay here (not in layer_norm, which
// waits on memory and ran slower with them).
template <typename T, bool Log>
CT_TARGET_AVX512 void rows_avx512(const T* x, T* y, int64_t r0, int64_t r1, int64_t k, bool causal, int64_t first,
                                  opmath_t<T>* buf) {
  for (int64_t r = r0; r < r1; ++r)
    row_body<T, Log>(x + r * k, y + r * k, causal ? std::min(k, first + r + 1) : k, k, buf);
}
#endif

// rows x k, contiguous; x and y may be the same buffer.
template <typename T, bool Log>
void softmax_rows(const T* x, T* y, int64_t rows, int64_t k, bool causal, int64_t first) {
  cpu::parallel_for(0, rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(k, 1)), [&](int64_t r0, int64_t r1) {
    std::vector<opmath_t<T>> buf(2 * static_cast<size_t>(k));
#if CT_HAVE_AVX2_KERNELS
    if (cpu::has_avx512()) return rows_avx512<T, Log>(x, y, r0, r1, k, causal, first, buf.data());
    if (cpu::has_avx2()) return rows_avx2<T, Log>(x, y, r0, r1, k, causal, first, buf.data());
#endif
    rows_default<T, Log>(x, y, r0, r1, k, causal, first, buf.data());
  });
}

// [outer, k, inner] with inner > 1: each outer slice runs over k rows of `inner` columns at once.
template <typename T, bool Log>
void softmax_columns(const T* x, T* y, int64_t outer, int64_t k, int64_t inner) {
  using C = opmath_t<T>;
  cpu::parallel_for(0, outer, std::max<int64_t>(1, 16384 / std::max<int64_t>(k * inner, 1)), [&](int64_t o0, int64_t o1) {
    std::vector<C> mx(static_cast<size_t>(inner)), sum(static_cast<size_t>(inner));
    for (int64_t o = o0; o < o1; ++o) {
      const T* xo = x + o * k * inner;
      T* yo = y + o * k * inner;
      std::fill(mx.begin(), mx.end(), C(-INFINITY));
      std::fill(sum.begin(), sum.end(), C(0));
      for (int64_t j = 0; j < k; ++j)
        for (int64_t i = 0; i < inner; ++i) {
          const C v = C(xo[j * inner + i]);
          mx[i] = v > mx[i] || v != v ? v : mx[i];
        }
      for (int64_t j = 0; j < k; ++j)
        for (int64_t i = 0; i < inner; ++i) sum[i] += cpu::vm::exp(C(xo[j * inner + i]) - mx[i]);
      for (int64_t i = 0; i < inner; ++i) sum[i] = Log ? std::log(sum[i]) : C(1) / sum[i];
      for (int64_t j = 0; j < k; ++j)
        for (int64_t i = 0; i < inner; ++i) {
          const C v = C(xo[j * inner + i]) - mx[i];
          yo[j * inner + i] = Log ? T(v - sum[i]) : T(cpu::vm::exp(v) * sum[i]);
        }
    }
  });
}

template <bool Log>
constexpr const char* op_name() { return Log ? "log_softmax" : "softmax"; }

// softmax.int(Tensor self, int dim, ScalarType? dtype=None): the input is first converted to dtype.
template <bool Log>
void softmax_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  wrap_dim(op_name<Log>(), f.arg(1).to_int(), static_cast<int64_t>(a.dim()));
  const DType d = f.arg(2).is_none() ? a.dtype() : f.arg(2).dtype();
  CT_CHECK(is_floating(d), CT_ERROR_DTYPE, op_name<Log>(), ": needs a floating dtype, got ", d, " (input ", a.sym_sizes(),
           "). Pass dtype=float32 or convert the input");
  m.compute = d;
  set_output(m, 0, a.sym_sizes(), d, a.device());
}

template <bool Log>
void softmax_cpu(const Frame& f, const MetaResult& m, Tensor* outs) {
  Tensor holder;
  const Tensor src = expect_contiguous(Tensor::borrow(as_dtype(f.tensor(0), m.compute, holder)));
  if (src->numel() == 0) return;
  const int64_t nd = static_cast<int64_t>(src->dim());
  const int64_t dim = wrap_dim(op_name<Log>(), f.arg(1).to_int(), nd);
  int64_t outer = 1, k = nd ? src->size(dim) : 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= src->size(d);
  for (int64_t d = dim + 1; d < nd; ++d) inner *= src->size(d);
  visit_dtype<kFloatingDTypes>(m.compute, op_name<Log>(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = src->data_as<T>();
    T* y = outs[0]->data_as<T>();
    if (inner == 1) softmax_rows<T, Log>(x, y, outer, k, false, 0);
    else softmax_columns<T, Log>(x, y, outer, k, inner);
  });
}

using autograd::GradCtx;

Tensor sum_keep(const Tensor& t, int64_t dim) {
  const int64_t dims[1] = {dim};
  return sum(t, IntArrayRef(dims, 1), true);
}
int64_t grad_dim(GradCtx& c, const char* op) {
  return wrap_dim(op, c.arg("dim").to_int(), static_cast<int64_t>(c.sizes("self").size()));
}

// dx = y * (g - sum(g * y)) along dim.
void softmax_backward(GradCtx& c) {
  const Tensor y = c.result();
  const Tensor gy = mul(c.grad(), y);
  c.set("self", sub(gy, mul(y, sum_keep(gy, grad_dim(c, "softmax")))));
}
// dx = g - exp(y) * sum(g) along dim.
void log_softmax_backward(GradCtx& c) {
  const Tensor y = c.result();
  c.set("self", sub(c.grad(), mul(exp(y), sum_keep(c.grad(), grad_dim(c, "log_softmax")))));
}

}  // namespace


void softmax_rows_f32(float* x, int64_t rows, int64_t k, bool causal, int64_t first_row) {
  softmax_rows<float, false>(x, x, rows, k, causal, first_row);
}

void define_softmax(Registry& r) {
  r.def("softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor")
      .meta(softmax_meta<false>)
      .compute(DispatchKey::CPU, softmax_cpu<false>, Determinism::Bitwise)
      .derivative(softmax_backward, save_result());
  r.def("log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor")
      .meta(softmax_meta<true>)
      .compute(DispatchKey::CPU, softmax_cpu<true>, Determinism::Bitwise)
      .derivative(log_softmax_backward, save_result());
}

}  // namespace ct::ops
