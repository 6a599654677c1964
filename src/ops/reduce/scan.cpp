// scan.cpp - cumsum, cumprod, cummax, cummin and logcumsumexp: running folds along one dim; and
// diff, their inverse, the n-th forward difference.
//
// The input is laid out contiguous as [outer, n, inner]; each (outer, inner) line is folded in
// order along n, lines in parallel, so the bits never depend on the thread count. Sums and products
// accumulate as PyTorch's CPU kernels do (float32 in double, float16/bfloat16 in float32, integers
// in int64) and round each output once.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/cpu/cast.h"
#include "ops/cpu/complex_math.h"
#include "ops/cpu/parallel.h"
#include "ops/functions.h"
#include "ops/op_common.h"
#include "ops/reduce/reduce_common.h"

namespace ct::ops {
namespace {

template <typename T> using M = opmath_t<T>;
using autograd::GradCtx;

// A complex<float> sum accumulates in complex<double>, as torch's does.
template <typename T>
using scan_acc_t = std::conditional_t<
    std::is_same<T, float>::value, double,
    std::conditional_t<std::is_floating_point<M<T>>::value, M<T>,
                       std::conditional_t<cpu::is_complex_t<T>::value, std::complex<double>, int64_t>>>;

// ---- cumsum / cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor

template <bool Prod>
void cum_meta(const Frame& f, MetaResult& m) {
  const char* op = Prod ? "cumprod" : "cumsum";
  const TensorImpl& a = f.tensor(0);
  wrap_dim(op, f.arg(1).to_int(), static_cast<int64_t>(a.dim()));
  const DType out = !f.arg(2).is_none() ? f.arg(2).dtype() : is_integral(a.dtype(), true) ? DType::Int64 : a.dtype();
  CT_CHECK(out != DType::Bool, CT_ERROR_DTYPE, op, ": dtype bool cannot hold a running ", Prod ? "product" : "sum",
           ". Pass an integer or floating dtype");
  m.compute = out;
  set_output(m, 0, a.sym_sizes(), out, a.device());
}

template <bool Prod>
void cum_cpu(const Frame& f, const MetaResult& m, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  const int64_t dim = wrap_dim("cum", f.arg(1).to_int(), static_cast<int64_t>(a.dim()));
  // The input keeps its dtype and is converted to the compute dtype as it is read (Note [Casting in
  // the loop]), about 4096 elements at a time: several steps along dim per conversion when each
  // step is short (a 1-D scan's is one element), so that conversions run long.
  const Tensor in = expect_contiguous(Tensor::borrow(&a));
  const cpu::CastLine cast = cpu::cast_line(a.dtype(), m.compute);
  const int64_t item = static_cast<int64_t>(itemsize(a.dtype()));
  const Lines l = lines_of(a.sizes(), dim);
  const int64_t lines_per_chunk = std::max<int64_t>(1, 4096 / std::max<int64_t>(l.inner, 1));
  visit_dtype<kNumericDTypes | kComplexDTypes>(m.compute, Prod ? "cumprod" : "cumsum", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = scan_acc_t<T>;
    // One step of the fold; complex products are torch's textbook ones.
    const auto step = [](A s, A v) {
      if constexpr (!Prod) return s + v;
      else if constexpr (cpu::is_complex_t<A>::value) return cpu::textbook_product(s, v);
      else return s * v;
    };
    const char* src = static_cast<const char*>(in->data());
    T* o = outs[0]->data_as<T>();
    const int64_t grain = std::max<int64_t>(1, cpu::kElementwiseGrain / std::max<int64_t>(l.n * l.inner, 1));
    cpu::parallel_for(0, l.outer, grain, [&](int64_t o0, int64_t o1) {
      std::vector<A> acc(static_cast<size_t>(l.inner));
      std::vector<T> chunk(cast ? static_cast<size_t>(lines_per_chunk * l.inner) : 0);
      for (int64_t b = o0; b < o1; ++b) {
        std::fill(acc.begin(), acc.end(), A(Prod ? 1 : 0));
        for (int64_t i0 = 0; i0 < l.n; i0 += lines_per_chunk) {
          const int64_t lines = std::min(lines_per_chunk, l.n - i0), base = (b * l.n + i0) * l.inner;
          const T* x = chunk.data();
          if (cast) cast(src + base * item, item, reinterpret_cast<char*>(chunk.data()), lines * l.inner);
          else x = reinterpret_cast<const T*>(src) + base;
          if (l.inner == 1) {
            // A scan along the last dim: the running value is kept in a register, not in acc, whose
            // store and reload sat on every step's dependency chain (cumsum(-1) of 1024x1024
            // float32 on one thread: 2524 -> 597 us). Same steps in the same order.
            A s = acc[0];
            for (int64_t r = 0; r < lines; ++r) {
              const A v = A(M<T>(x[r]));
              s = step(s, v);
              o[base + r] = cpu::cast_value<T>(s);
            }
            acc[0] = s;
            continue;
          }
          for (int64_t r = 0; r < lines; ++r) {
            const T* xr = x + r * l.inner;
            T* orow = o + base + r * l.inner;
            for (int64_t j = 0; j < l.inner; ++j) {
              const A v = A(M<T>(xr[j]));
              A& s = acc[static_cast<size_t>(j)];
              s = step(s, v);
              orow[j] = cpu::cast_value<T>(s);
            }
          }
        }
      }
    });
  });
}

// sum over j >= i of g_j: the total minus the running sum before i.
Tensor reverse_cumsum(const Tensor& g, int64_t dim) {
  const Tensor running = cumsum(g, dim);
  return add(sub(expand(sum(g, IntArrayRef(&dim, 1), true), g->sizes()), running), g);
}

int64_t grad_dim(GradCtx& c) { return wrap_dim("cum", c.arg("dim").to_int(), static_cast<int64_t>(c.sizes("self").size())); }

void cumsum_backward(GradCtx& c) { c.set("self", reverse_cumsum(c.grad(), grad_dim(c))); }

// d y_j / d x_i is the product of x_0..x_j without x_i, for j >= i. Before a line's first zero that
// is y_j / x_i, so the gradient is reverse_cumsum(g y) / x. At the first zero it is
// reverse_cumsum(g y') there, y' the running product with that zero replaced by 1; after it every
// product holds the zero: 0. All of it with operators, so it is differentiable again. For complex x
// y, y' and x enter conjugated (Note [Complex tensors]).
void cumprod_backward(GradCtx& c) {
  const Tensor y = conj_if_complex(c.result());
  const Tensor x = conj_if_complex(to(c.saved("self"), y->dtype()));
  const int64_t dim = grad_dim(c);
  const Tensor g = c.grad();
  const Tensor one = ones({}, x->dtype(), x->device()), zero = zeros({}, x->dtype(), x->device());
  const Tensor is_zero = eq(x, 0);
  const Tensor zeros_so_far = cumsum(is_zero, dim);
  const Tensor before = eq(zeros_so_far, 0);
  const Tensor first_zero = mul(is_zero, eq(zeros_so_far, 1));
  const Tensor a = div(reverse_cumsum(mul(g, y), dim), where(before, x, one));
  const Tensor y1 = cumprod(where(first_zero, one, x), dim);  // conj(y') from conj(x)
  const Tensor b = reverse_cumsum(mul(g, y1), dim);
  c.set("self", where(before, a, where(first_zero, b, zero)));
}

// ---- cummax / cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)

template <bool Max>
void cumext_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  wrap_dim(Max ? "cummax" : "cummin", f.arg(1).to_int(), static_cast<int64_t>(a.dim()));
  m.compute = a.dtype();
  m.n = 2;
  set_output(m, 0, a.sym_sizes(), a.dtype(), a.device());
  set_output(m, 1, a.sym_sizes(), DType::Int64, a.device());
}

template <typename T> bool isnan_of(T x) {
  if constexpr (std::is_floating_point<M<T>>::value) return std::isnan(M<T>(x));
  else return false;
}

// The running extremum takes a new element on ties too (its index is the latest), and a NaN sticks,
// each later NaN taking its place, as in PyTorch.
template <bool Max>
void cumext_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  const int64_t dim = wrap_dim("cum", f.arg(1).to_int(), static_cast<int64_t>(a.dim()));
  const Tensor in = expect_contiguous(Tensor::borrow(&a));
  const Lines l = lines_of(a.sizes(), dim);
  visit_dtype(a.dtype(), Max ? "cummax" : "cummin", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = in->data_as<T>();
    T* vo = outs[0]->data_as<T>();
    int64_t* io = outs[1]->data_as<int64_t>();
    const int64_t grain = std::max<int64_t>(1, cpu::kElementwiseGrain / std::max<int64_t>(l.n * l.inner, 1));
    cpu::parallel_for(0, l.outer * l.inner, grain, [&](int64_t u0, int64_t u1) {
      for (int64_t u = u0; u < u1; ++u) {
        const int64_t b = u / l.inner, j = u % l.inner;
        T best{};
        int64_t at = 0;
        for (int64_t i = 0; i < l.n; ++i) {
          const int64_t e = (b * l.n + i) * l.inner + j;
          const T x = p[e];
          bool take = i == 0;
          if (!take) {
            if (isnan_of(best)) take = isnan_of(x);
            else take = isnan_of(x) || (Max ? M<T>(x) >= M<T>(best) : M<T>(x) <= M<T>(best));
          }
          if (take) best = x, at = i;
          vo[e] = best;
          io[e] = at;
        }
      }
    });
  });
}

// The gradient of each output goes to the input it copied: summed into zeros at the indices.
template <bool Max>
void cumext_backward(GradCtx& c) {
  const Tensor x = c.saved("self");
  const int64_t dim = grad_dim(c);
  const Tensor indices = (Max ? cummax(x, dim) : cummin(x, dim))[1];
  c.set("self", scatter_back(c.grad(0), dim, indices, x->sizes(), true));
}

// ---- logcumsumexp(Tensor self, int dim) -> Tensor

void logcumsumexp_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  wrap_dim("logcumsumexp", f.arg(1).to_int(), static_cast<int64_t>(a.dim()));
  CT_CHECK(is_floating(a.dtype()), CT_ERROR_DTYPE, "logcumsumexp: self is ", a.dtype(), " ", a.sym_sizes(),
           "; it needs a floating dtype. Convert it with to(float32)");
  m.compute = a.dtype();
  set_output(m, 0, a.sym_sizes(), a.dtype(), a.device());
}

// log(exp(x) + exp(acc)) as PyTorch's CPU scan folds it: max + log1p(exp(min - max)), a NaN
// propagating, and two equal infinities giving x. Each step rounds to T, as there.
template <typename T> T log_add_exp_step(T x, T acc) {
  const M<T> a = M<T>(x), b = M<T>(acc);
  const M<T> lo = std::isnan(b) ? b : std::min(a, b), hi = std::isnan(b) ? b : std::max(a, b);
  if (lo != hi || std::isfinite(lo)) return T(std::log1p(std::exp(lo - hi)) + hi);
  return x;
}

void logcumsumexp_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  const int64_t dim = wrap_dim("logcumsumexp", f.arg(1).to_int(), static_cast<int64_t>(a.dim()));
  const Tensor in = expect_contiguous(Tensor::borrow(&a));
  const Lines l = lines_of(a.sizes(), dim);
  visit_dtype<kFloatingDTypes>(a.dtype(), "logcumsumexp", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = in->data_as<T>();
    T* o = outs[0]->data_as<T>();
    const int64_t grain = std::max<int64_t>(1, cpu::kElementwiseGrain / std::max<int64_t>(l.n * l.inner, 1));
    cpu::parallel_for(0, l.outer * l.inner, grain, [&](int64_t u0, int64_t u1) {
      for (int64_t u = u0; u < u1; ++u) {
        const int64_t b = u / l.inner, j = u % l.inner;
        T acc = T(-std::numeric_limits<M<T>>::infinity());
        for (int64_t i = 0; i < l.n; ++i) {
          const int64_t e = (b * l.n + i) * l.inner + j;
          acc = log_add_exp_step(p[e], acc);
          o[e] = acc;
        }
      }
    });
  });
}

// d/dx_j = sum over i >= j of g_i exp(x_j - y_i), with the positive and negative parts of g summed
// in log space (a reversed logcumsumexp) so that nothing overflows.
void logcumsumexp_backward(GradCtx& c) {
  const Tensor x = c.saved("self"), y = c.result(), g = c.grad();
  if (g->dim() == 0 || g->numel() == 0) {
    c.set("self", g);
    return;
  }
  const int64_t dim = grad_dim(c);
  const std::vector<int64_t> dims{dim};
  const auto reversed = [&](const Tensor& t) { return flip(logcumsumexp(flip(t, dims), dim), dims); };
  const Tensor lowest = full({}, Scalar(-std::numeric_limits<double>::max()), g->dtype(), g->device());
  const Tensor log_abs = log(abs(g));
  const Tensor pos = exp(add(reversed(sub(where(gt(g, 0), log_abs, lowest), y)), x));
  const Tensor negative = exp(add(reversed(sub(where(lt(g, 0), log_abs, lowest), y)), x));
  c.set("self", sub(pos, negative));
}

// ---- diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None) -> Tensor
// The n-th forward difference along dim of [prepend, self, append] (exclusive or for bool); n past
// the length gives an empty dim.
void diff_kernel(void*, Frame& f) {
  Tensor x = Tensor::borrow(&f.tensor(0));
  const int64_t n = f.arg(1).to_int();
  CT_CHECK(x->dim() >= 1, CT_ERROR_SHAPE, "diff: self is 0-dim; it needs at least one dim");
  CT_CHECK(n >= 0, CT_ERROR_INVALID_ARGUMENT, "diff: n is ", n, ". Pass n >= 0");
  const int64_t dim = wrap_dim("diff", f.arg(2).to_int(), static_cast<int64_t>(x->dim()));
  std::vector<Tensor> parts;
  for (size_t i : {size_t(3), size_t(0), size_t(4)}) {
    if (f.arg(i).is_none()) continue;
    const Tensor t = Tensor::borrow(&f.tensor(i));
    if (i != 0) {
      CT_CHECK(t->dim() == x->dim(), CT_ERROR_SHAPE, "diff: ", i == 3 ? "prepend " : "append ", t->sym_sizes(),
               " must have the dims of self ", x->sym_sizes());
      for (int64_t d = 0; d < static_cast<int64_t>(x->dim()); ++d)
        CT_CHECK(d == dim || t->sym_size(d) == x->sym_size(d), CT_ERROR_SHAPE, "diff: ", i == 3 ? "prepend " : "append ",
                 t->sym_sizes(), " must match self ", x->sym_sizes(), " in every dim but dim ", dim);
    }
    parts.push_back(t);
  }
  if (parts.size() > 1) {
    std::vector<const TensorImpl*> ptrs;
    for (const Tensor& t : parts) ptrs.push_back(t.impl());
    x = cat(ptrs, dim);
  }
  if (n == 0) {
    f.outs[0] = clone(x);
    return;
  }
  const SymInt len = x->sym_size(dim);
  const int64_t steps = std::min(n, len.guard_int());  // the number of subtractions must be known
  const bool is_bool = x->dtype() == DType::Bool;
  for (int64_t k = 0; k < steps; ++k) {
    const SymInt out_len = len - 1 - k;
    const Tensor later = narrow_symint(x, dim, 1, out_len), earlier = narrow_symint(x, dim, 0, out_len);
    x = is_bool ? logical_xor(later, earlier) : sub(later, earlier);
  }
  f.outs[0] = x;
}

}  // namespace

void define_scans(Registry& r) {
  r.def("cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor")
      .meta(cum_meta<false>)
      .takes_complex()
      .compute(DispatchKey::CPU, cum_cpu<false>, Determinism::Bitwise)
      .derivative(cumsum_backward);
  r.def("cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor")
      .meta(cum_meta<true>)
      .takes_complex()
      .compute(DispatchKey::CPU, cum_cpu<true>, Determinism::Bitwise)
      .derivative(cumprod_backward, save_result(save("self")));
  r.def("logcumsumexp(Tensor self, int dim) -> Tensor")
      .meta(logcumsumexp_meta)
      .compute(DispatchKey::CPU, logcumsumexp_cpu, Determinism::Bitwise)
      .derivative(logcumsumexp_backward, save_result(save("self")));
  r.def("diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None) -> Tensor")
      .composite(diff_kernel);
  r.def("cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)")
      .meta(cumext_meta<true>)
      .compute(DispatchKey::CPU, cumext_cpu<true>, Determinism::Bitwise)
      .derivative(cumext_backward<true>, save("self"));
  r.def("cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)")
      .meta(cumext_meta<false>)
      .compute(DispatchKey::CPU, cumext_cpu<false>, Determinism::Bitwise)
      .derivative(cumext_backward<false>, save("self"));
}

}  // namespace ct::ops
