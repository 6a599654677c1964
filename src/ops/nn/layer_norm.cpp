// layer_norm.cpp - layer_norm over the trailing normalized_shape dims: one fused pass per row
// (the mean and variance, then the affine output), rows in parallel; its derivative
// with respect to input, weight and bias.
#include <cmath>
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

// Note [layer_norm's variance in one pass]
// A row of layer_norm is read from memory once, then normalized from cache. Two passes for the
// statistics (the mean, then the squares around it) keep the variance exact to rounding, but the
// second pass is arithmetic the memory stream does not hide (a quarter of the time of a 4096x1024
// layer_norm). So the first pass sums x and x^2 together, and m2 = sum x^2 - sum x * mean (one
// fma) stands for sum (x - mean)^2 when it cancels little: when 2 sum x^2 <= 3 m2, i.e. mean^2 <=
// var / 2, the subtraction scales the sums' own rounding error by at most 1.5, and the result stays
// within about 1e-6 of the two-pass one (measured against float64). Rows with a larger mean (or an
// infinity, or NaN: the test fails) take the second pass as before. Either way the order of every sum depends on n alone (kSumLanes lanes
// by index, combined pairwise), so the bits depend on neither the thread count nor the ISA.
constexpr int kSumLanes = 32;  // two sets of lanes: 8 AVX2 registers, the rest left for the loads

/// s = sum of x[0, n), q = sum of their squares, each in kSumLanes lanes combined pairwise.
template <typename C>
[[gnu::always_inline]] inline void sum_and_squares(const C* x, int64_t n, C& s, C& q) {
  C ls[kSumLanes], lq[kSumLanes];
  int64_t i = 0;
  // The first step peeled (0 + x keeps the sum's bits, -0 included): the lanes start in
  // registers, where arrays set to zero first cost two 128-byte `rep stos` per row.
  if (n >= kSumLanes) {
    for (int j = 0; j < kSumLanes; ++j) {
      ls[j] = C(0) + x[j];
      lq[j] = C(0) + x[j] * x[j];
    }
    i = kSumLanes;
  } else {
    for (int j = 0; j < kSumLanes; ++j) ls[j] = lq[j] = C(0);
  }
  for (; i + kSumLanes <= n; i += kSumLanes)
    for (int j = 0; j < kSumLanes; ++j) {
      ls[j] += x[i + j];
      lq[j] += x[i + j] * x[i + j];
    }
  for (int j = 0; i < n; ++i, ++j) {
    ls[j] += x[i];
    lq[j] += x[i] * x[i];
  }
  for (int w = kSumLanes / 2; w >= 1; w /= 2)
    for (int j = 0; j < w; ++j) {
      ls[j] += ls[j + w];
      lq[j] += lq[j + w];
    }
  s = ls[0];
  q = lq[0];
}

template <typename T>
[[gnu::always_inline]] inline void row_body(const T* x, T* y, int64_t n, const T* w, const T* b, opmath_t<T> eps,
                                            opmath_t<T>* buf) {
  using C = opmath_t<T>;
  const C* xs;
  if constexpr (std::is_same<T, C>::value) {
    xs = x;
  } else {
    for (int64_t i = 0; i < n; ++i) buf[i] = C(x[i]);
    xs = buf;
  }
  C sum, sq;
  sum_and_squares(xs, n, sum, sq);
  const C mean = sum / C(n);
  C var = std::fma(-sum, mean, sq);  // See Note [layer_norm's variance in one pass]
  if (!(std::isfinite(sq) && C(2) * sq <= C(3) * var))
    var = cpu::vm::lane_reduce<C>(n, C(0), [xs, mean](int64_t q) { return (xs[q] - mean) * (xs[q] - mean); },
                                  [](C a, C b) { return a + b; });
  const C rstd = C(1) / std::sqrt(var / C(n) + eps);
  // (x - mean) * rstd rather than PyTorch's x * rstd - mean * rstd, which cancels where x is near
  // the mean and loses up to |x| * rstd * eps there.
  // One loop per case: a test of w and b per element kept the loop from vectorizing (layer_norm
  // without an affine part took 2.4 times as long as with one).
  if (w && b) {
    for (int64_t q = 0; q < n; ++q) y[q] = T((xs[q] - mean) * rstd * C(w[q]) + C(b[q]));
  } else if (w) {
    for (int64_t q = 0; q < n; ++q) y[q] = T((xs[q] - mean) * rstd * C(w[q]));
  } else if (b) {
    for (int64_t q = 0; q < n; ++q) y[q] = T((xs[q] - mean) * rstd + C(b[q]));
  } else {
    for (int64_t q = 0; q < n; ++q) y[q] = T((xs[q] - mean) * rstd);
  }
}

template <typename T>
void rows_default(const T* x, T* y, int64_t r0, int64_t r1, int64_t n, const T* w, const T* b, opmath_t<T> eps,
                  opmath_t<T>* buf) {
  for (int64_t r = r0; r < r1; ++r) row_body<T>(x + r * n, y + r * n, n, w, b, eps, buf);
}
#if CT_HAVE_AVX2_KERNELS
template <typename T>
CT_TARGET_AVX2 void rows_avx2(const T* x, T* y, int64_t r0, int64_t r1, int64_t n, const T* w, const T* b,
                              opmath_t<T> eps, opmath_t<T>* buf) {
  for (int64_t r = r0; r < r1; ++r) row_body<T>(x + r * n, y + r * n, n, w, b, eps, buf);
}
#endif

// layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None,
//            float eps=1e-05, bool cudnn_enable=True)
void layer_norm_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& x = f.tensor(0);
  const SymIntArrayRef ns = f.arg(1).sym_int_list();
  CT_CHECK(!ns.empty(), CT_ERROR_SHAPE, "layer_norm: normalized_shape is empty (input ", x.sym_sizes(),
           "). Pass at least the last dim's size");
  bool fits = x.dim() >= ns.size();
  for (size_t i = 0; fits && i < ns.size(); ++i) fits = static_cast<bool>(x.sym_size(x.dim() - ns.size() + i) == ns[i]);
  CT_CHECK(fits, CT_ERROR_SHAPE, "layer_norm: normalized_shape ", ns, " is not the end of the input's sizes ",
           x.sym_sizes(), ". Pass the input's trailing sizes");
  CT_CHECK(is_floating(x.dtype()), CT_ERROR_DTYPE, "layer_norm: needs a floating input, got ", x.dtype(), " (",
           x.sym_sizes(), "). Convert with to(float32)");
  for (size_t a = 2; a <= 3; ++a) {
    if (f.arg(a).is_none()) continue;
    const TensorImpl& t = f.tensor(a);
    const char* what = a == 2 ? "weight" : "bias";
    CT_CHECK(t.sym_sizes().equals(ns), CT_ERROR_SHAPE, "layer_norm: ", what, " has sizes ", t.sym_sizes(),
             ", normalized_shape is ", ns, ". Make them equal");
    CT_CHECK(t.dtype() == x.dtype(), CT_ERROR_DTYPE, "layer_norm: ", what, " is ", t.dtype(), ", input is ", x.dtype(),
             ". Convert one of them");
  }
  m.compute = x.dtype();
  set_output(m, 0, x.sym_sizes(), x.dtype(), common_device(f));
}

void layer_norm_cpu(const Frame& f, const MetaResult& m, Tensor* outs) {
  const Tensor x = expect_contiguous(Tensor::borrow(&f.tensor(0)));
  int64_t n = 1;
  for (int64_t s : f.arg(1).int_list()) n *= s;
  if (x->numel() == 0 || n == 0) return;
  const int64_t rows = x->numel() / n;
  Tensor w, b;
  if (!f.arg(2).is_none()) w = expect_contiguous(Tensor::borrow(&f.tensor(2)));
  if (!f.arg(3).is_none()) b = expect_contiguous(Tensor::borrow(&f.tensor(3)));
  visit_dtype<kFloatingDTypes>(m.compute, "layer_norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = opmath_t<T>;
    const T* xp = x->data_as<T>();
    T* yp = outs[0]->data_as<T>();
    const T* wp = w.defined() ? w->data_as<T>() : nullptr;
    const T* bp = b.defined() ? b->data_as<T>() : nullptr;
    const C eps = C(f.arg(4).to_double());
    cpu::parallel_for(0, rows, std::max<int64_t>(1, 16384 / n), [&](int64_t r0, int64_t r1) {
      std::vector<C> buf(std::is_same<T, C>::value ? 0 : static_cast<size_t>(n));
#if CT_HAVE_AVX2_KERNELS
      if (cpu::has_avx2()) return rows_avx2<T>(xp, yp, r0, r1, n, wp, bp, eps, buf.data());
#endif
      rows_default<T>(xp, yp, r0, r1, n, wp, bp, eps, buf.data());
    });
  });
}

// With xhat = (x - mean) * rstd and gx = g * weight, all along the normalized dims:
// dx = rstd * (gx - mean(gx) - xhat * mean(gx * xhat)), dweight = g * xhat, dbias = g (summed over
// the leading dims by GradCtx::set).
void layer_norm_backward(autograd::GradCtx& c) {
  const Tensor x = c.saved("input");
  const size_t nd = x->dim(), nn = c.arg("normalized_shape").int_list().size();
  DimVector dims;
  for (size_t d = nd - nn; d < nd; ++d) dims.push_back(static_cast<int64_t>(d));
  const Tensor xc = sub(x, mean(x, dims, true));
  const Tensor var = mean(mul(xc, xc), dims, true);
  const Tensor rstd = rsqrt(add(var, Scalar(c.arg("eps").to_double())));
  const Tensor xhat = mul(xc, rstd);
  const Tensor& g = c.grad();
  if (given(c, "weight") && c.needs("weight")) c.set("weight", mul(g, xhat));
  if (given(c, "bias") && c.needs("bias")) c.set("bias", g);
  if (c.needs("input")) {
    const Tensor gx = given(c, "weight") ? mul(g, c.saved("weight")) : g;
    const Tensor t = sub(sub(gx, mean(gx, dims, true)), mul(xhat, mean(mul(gx, xhat), dims, true)));
    c.set("input", mul(t, rstd));
  }
}

}  // namespace

void define_layer_norm(Registry& r) {
  r.def("layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, "
        "bool cudnn_enable=True) -> Tensor")
      .meta(layer_norm_meta)
      .compute(DispatchKey::CPU, layer_norm_cpu, Determinism::Bitwise)
      .derivative(layer_norm_backward, save("input", "weight"));
}

}  // namespace ct::ops
