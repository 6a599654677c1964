// stats.cpp - var, std, var_mean, std_mean (with correction), all, any, count_nonzero and
// logsumexp: reductions run by the reduction engine (cpu/reduce.h) over a list of dims.
#include <cmath>
#include <cstring>
#include <limits>

#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/cpu/cast.h"
#include "ops/reduce/reduce_common.h"
#include "runtime/defaults.h"

namespace ct::ops {
namespace {

template <typename T> using M = opmath_t<T>;
using autograd::GradCtx;

// ---- var / std / var_mean / std_mean

// Welford's running (count, mean, sum of squared deviations), merged with Chan's formula. The
// engine's fixed combination tree (Note [Reproducible reductions]) keeps it bitwise reproducible;
// the one-pass update in double avoids the cancellation of sum(x^2) - n mean^2.
template <typename T> struct WelfordOp {
  struct acc_t {
    double mean, m2;
    int64_t n;
  };
  static acc_t identity() { return {0.0, 0.0, 0}; }
  static acc_t step(acc_t a, T x, int64_t) {
    const double v = static_cast<double>(M<T>(x));
    a.n += 1;
    const double d = v - a.mean;
    a.mean += d / static_cast<double>(a.n);
    a.m2 += d * (v - a.mean);
    return a;
  }
  static acc_t merge(acc_t a, acc_t b) {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const int64_t n = a.n + b.n;
    const double d = b.mean - a.mean, nb = static_cast<double>(b.n) / static_cast<double>(n);
    return {a.mean + d * nb, a.m2 + b.m2 + d * d * static_cast<double>(a.n) * nb, n};
  }
};

enum class Moment { Var, Std, VarMean, StdMean };
constexpr const char* moment_name(Moment k) {
  constexpr const char* names[] = {"var", "std", "var_mean", "std_mean"};
  return names[static_cast<int>(k)];
}

double correction_of(const Value& v) { return v.is_none() ? 1.0 : v.to_double(); }

// <name>.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False)
template <Moment K>
void moment_meta(const Frame& f, MetaResult& m) {
  const char* op = moment_name(K);
  const TensorImpl& a = f.tensor(0);
  CT_CHECK(is_floating(a.dtype()) || is_complex(a.dtype()), CT_ERROR_DTYPE, op,
           ": needs a floating or complex input, got ", a.dtype(), " (", a.sym_sizes(),
           "). Convert with to(float32) first");
  bool all = false;
  const uint64_t mask = reduced_mask(op, f.arg(1), static_cast<int64_t>(a.dim()), &all);
  const SymDimVector sizes = reduced_sizes(a.sym_sizes(), mask, f.arg(3).to_bool());
  m.compute = a.dtype();
  m.n = (K == Moment::VarMean || K == Moment::StdMean) ? 2 : 1;
  // The variance is real (of a complex input too); the mean has the input's dtype.
  for (size_t i = 0; i < m.n; ++i)
    set_output(m, i, sizes, i == 0 ? real_dtype(a.dtype()) : a.dtype(), a.device());
}

// A complex input's variance is the sum of its parts' (E|z - mean|^2 = var(x) + var(y)), as torch
// computes it; its mean is complex.
template <Moment K>
void complex_moment(const Frame& f, Tensor* outs) {
  const Tensor z = Tensor::borrow(&f.tensor(0));
  const OptionalIntArrayRef dims =
      f.arg(1).is_none() ? OptionalIntArrayRef() : OptionalIntArrayRef(f.arg(1).int_list());
  const std::optional<Scalar> corr =
      f.arg(2).is_none() ? std::nullopt : std::optional<Scalar>(f.arg(2).to_scalar());
  const bool keepdim = f.arg(3).to_bool();
  Tensor var = add(var_correction(real(z), dims, corr, keepdim), var_correction(imag(z), dims, corr, keepdim));
  if (K == Moment::Std || K == Moment::StdMean) var = sqrt(var);
  copy_(outs[0], var);
  if (K == Moment::VarMean || K == Moment::StdMean) copy_(outs[1], mean(z, dims, keepdim));
}

template <Moment K>
void moment_cpu(const Frame& f, const MetaResult& m, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  if (is_complex(a.dtype())) return complex_moment<K>(f, outs);
  bool all = false;
  const uint64_t mask = reduced_mask(moment_name(K), f.arg(1), static_cast<int64_t>(a.dim()), &all);
  const ReduceLayout l = reduce_layout(a, mask);
  const double corr = correction_of(f.arg(2));
  constexpr bool root = K == Moment::Std || K == Moment::StdMean;
  visit_dtype<kFloatingDTypes>(a.dtype(), moment_name(K), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = typename WelfordOp<T>::acc_t;
    // The reduction engine writes one value per result: the accumulators, finished below.
    std::vector<Acc> acc(static_cast<size_t>(l.outer * l.inner));
    run_reduction<WelfordOp<T>, T>(l, acc.data(), [](Acc x) { return x; });
    T* v = outs[0]->data_as<T>();
    T* mean = m.n > 1 ? outs[1]->data_as<T>() : nullptr;
    for (size_t i = 0; i < acc.size(); ++i) {
      // PyTorch divides by max(0, N - correction): no elements or too few give NaN or inf.
      const double var = acc[i].m2 / std::max(0.0, static_cast<double>(acc[i].n) - corr);
      v[i] = T(static_cast<M<T>>(root ? std::sqrt(var) : var));
      if (mean) mean[i] = T(static_cast<M<T>>(acc[i].n ? acc[i].mean : std::numeric_limits<double>::quiet_NaN()));
    }
  });
}

// d var / dx = 2 (x - mean) / (N - correction); d std / dx = (x - mean) / ((N - correction) std);
// the same for complex x (var is real: a real loss's gradient in torch's convention).
template <Moment K>
void moment_backward(GradCtx& c) {
  const char* op = moment_name(K);
  const Tensor x = c.saved("self");
  const DimVector dims = grad_reduced_dims(c, op);
  const bool keepdim = c.arg("keepdim").to_bool();
  int64_t n = 1;
  for (int64_t d : dims) n *= x->size(d);
  const double correction = correction_of(c.arg("correction"));
  const double denom = std::max(0.0, static_cast<double>(n) - correction);
  const Tensor centered = sub(x, mean(x, dims, true));
  const Tensor g = expand_reduced(c.grad(0), dims, x->sizes(), keepdim);
  Tensor gx;
  if (K == Moment::Var || K == Moment::VarMean) {
    gx = mul(mul(g, centered), Scalar(2.0 / denom));
  } else {
    const Tensor sd = std_correction(x, IntArrayRef(dims), Scalar(correction), true);
    gx = div(mul(g, centered), mul(expand(sd, x->sizes()), Scalar(denom)));
  }
  if (K == Moment::VarMean || K == Moment::StdMean)
    gx = add(gx, mul(expand_reduced(c.grad(1), dims, x->sizes(), keepdim), Scalar(1.0 / static_cast<double>(n))));
  c.set("self", gx);
}

// <name>.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) and
// <name>(Tensor self, bool unbiased=True): the correction form with correction = unbiased.
template <Moment K>
void moment_dim_kernel(void*, Frame& f) {
  const std::string target = std::string(moment_name(K)) + ".correction";
  const bool with_dim = f.nargs == 4;
  const Value dim = with_dim ? f.arg(1) : Value();
  const int64_t corr = f.arg(with_dim ? 2 : 1).to_bool() ? 1 : 0;
  const bool keepdim = with_dim && f.arg(3).to_bool();
  const Value args[] = {f.args[0], dim, Value(corr), Value(keepdim)};
  dispatch(builtin_op(target.c_str()), args, 4, f.outs, f.nouts);
}

template <Moment K>
void define_moment(Registry& r) {
  const std::string n = moment_name(K);
  const bool two = K == Moment::VarMean || K == Moment::StdMean;
  const std::string ret = two ? " -> (Tensor, Tensor)" : " -> Tensor";
  r.def(n + ".correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False)" + ret)
      .meta(moment_meta<K>)
      .takes_complex()
      .compute(DispatchKey::CPU, moment_cpu<K>, Determinism::Bitwise)
      .derivative(moment_backward<K>, save("self"));
  r.def(n + ".dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False)" + ret).composite(moment_dim_kernel<K>);
  r.def(n + "(Tensor self, bool unbiased=True)" + ret).composite(moment_dim_kernel<K>);
}

// ---- all / any / count_nonzero

template <typename T> bool nonzero(T x) {
  if constexpr (std::is_same<T, bool>::value) return x;
  else return M<T>(x) != M<T>(0);
}
template <typename T, bool All> struct LogicalOp {
  using acc_t = bool;
  static acc_t identity() { return All; }
  static acc_t step(acc_t a, T x, int64_t) { return All ? (a && nonzero(x)) : (a || nonzero(x)); }
  static acc_t merge(acc_t a, acc_t b) { return All ? (a && b) : (a || b); }
};
template <typename T> struct CountOp {
  using acc_t = int64_t;
  static acc_t identity() { return 0; }
  static acc_t step(acc_t a, T x, int64_t) { return a + (nonzero(x) ? 1 : 0); }
  static acc_t merge(acc_t a, acc_t b) { return a + b; }
};

enum class Logical { All, Any, Count };
constexpr const char* logical_name(Logical k) {
  constexpr const char* names[] = {"all", "any", "count_nonzero"};
  return names[static_cast<int>(k)];
}

// The reduced dims of all(self), all.dim(self, int dim, keepdim), count_nonzero(self, int? dim)
// and count_nonzero.dim_IntList(self, int[] dim): one int, an int list, or every dim.
uint64_t logical_mask(const Frame& f, const char* op) {
  const int64_t nd = static_cast<int64_t>(f.tensor(0).dim());
  bool all = false;
  if (f.nargs < 2 || f.arg(1).is_none()) return reduced_mask(op, Value(), nd, &all);
  if (f.arg(1).kind() == Value::Kind::Int) return uint64_t(1) << wrap_dim(op, f.arg(1).to_int(), nd);
  return reduced_mask(op, f.arg(1), nd, &all);
}

template <Logical K>
void logical_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  const uint64_t mask = logical_mask(f, logical_name(K));
  const bool keepdim = K != Logical::Count && f.nargs > 2 && f.arg(2).to_bool();
  // PyTorch keeps uint8 for all/any of uint8 (a legacy of masks before bool).
  const DType out = K == Logical::Count ? DType::Int64 : a.dtype() == DType::UInt8 ? DType::UInt8 : DType::Bool;
  m.compute = a.dtype();
  set_output(m, 0, reduced_sizes(a.sym_sizes(), mask, keepdim), out, a.device());
}

template <Logical K>
void logical_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  const ReduceLayout l = reduce_layout(a, logical_mask(f, logical_name(K)));
  visit_dtype(a.dtype(), logical_name(K), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (K == Logical::Count) {
      run_reduction<CountOp<T>, T>(l, outs[0]->data_as<int64_t>(), [](int64_t v) { return v; });
    } else {
      using Op = LogicalOp<T, K == Logical::All>;
      if (outs[0]->dtype() == DType::UInt8) run_reduction<Op, T>(l, outs[0]->data_as<uint8_t>(), [](bool v) { return uint8_t(v); });
      else run_reduction<Op, T>(l, outs[0]->data_as<bool>(), [](bool v) { return v; });
    }
  });
}

template <Logical K>
void define_logical(Registry& r, const std::string& schema) {
  r.def(schema).meta(logical_meta<K>).compute(DispatchKey::CPU, logical_cpu<K>, Determinism::Bitwise).not_differentiable();
}

// ---- logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor

void logsumexp_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  bool all = false;
  const uint64_t mask = reduced_mask("logsumexp", f.arg(1), static_cast<int64_t>(a.dim()), &all);
  const DType out = is_floating(a.dtype()) ? a.dtype() : runtime::default_dtype();
  m.compute = out;
  set_output(m, 0, reduced_sizes(a.sym_sizes(), mask, f.arg(2).to_bool()), out, a.device());
}

// exp for x in [-inf, 0] in float, branch-free so that the row loop vectorizes (Cephes' expf:
// x = n ln2 + r, a degree-7 polynomial in r, times 2^n; within 2 ulp). Below -87.3 the result
// underflows toward 0; logsumexp_row never feeds it values above 0, where the max contributes
// exactly exp(0) = 1.
[[gnu::always_inline]] inline float exp_nonpositive(float x) {
  x = x < -87.3f ? -87.3f : x;
  const float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;  // round to nearest
  const float r = (x - n * 0.693359375f) - n * -2.12194440e-4f;
  float y = 1.9875691500e-4f;
  y = y * r + 1.3981999507e-3f;
  y = y * r + 8.3334519073e-3f;
  y = y * r + 4.1665795894e-2f;
  y = y * r + 1.6666665459e-1f;
  y = y * r + 5.0000001201e-1f;
  y = y * (r * r) + r + 1.0f;
  // A NaN x keeps y NaN; converting NaN to int would be undefined, so n's bits stand in as 0.
  const int32_t bits = (static_cast<int32_t>(n == n ? n : 0.0f) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return y * scale;
}
[[gnu::always_inline]] inline double exp_nonpositive(double x) { return std::exp(x); }

// One row: log(sum(exp(x - max))) + max, so no exp overflows; a row whose max is infinite is that
// infinity (all -inf, or empty: -inf); a NaN makes it NaN. kLanes interleaved partial maxima and
// sums, combined pairwise, make the order of operations depend on k alone (see Note [Reproducible
// reductions]) and let the compiler vectorize both passes.
template <typename T, typename A>
[[gnu::always_inline]] inline A logsumexp_row_body(const T* p, int64_t k) {
  constexpr int L = cpu::kLanes;
  A m[L];
  for (int j = 0; j < L; ++j) m[j] = -std::numeric_limits<A>::infinity();
  int64_t i = 0;
  for (; i + L <= k; i += L)
    for (int j = 0; j < L; ++j) {
      const A v = A(M<T>(p[i + j]));
      m[j] = v > m[j] ? v : m[j];
    }
  for (int j = 0; i < k; ++i, ++j) {
    const A v = A(M<T>(p[i]));
    m[j] = v > m[j] ? v : m[j];
  }
  A mx = m[0];
  for (int j = 1; j < L; ++j) mx = m[j] > mx ? m[j] : mx;
  // The max skips NaN; an infinite max is the answer unless a NaN is there too. A finite max
  // lets a NaN through exp into the sum.
  if (std::isinf(mx)) {
    for (i = 0; i < k; ++i)
      if (A(M<T>(p[i])) != A(M<T>(p[i]))) return A(M<T>(p[i]));
    return mx;
  }
  // exp over a block into a buffer (a plain map loop, which vectorizes), then summed by lanes.
  A lanes[L] = {};
  constexpr int64_t B = 256;
  A buf[B];
  for (int64_t b = 0; b < k; b += B) {
    const int64_t nb = std::min(B, k - b);
    for (int64_t t = 0; t < nb; ++t) buf[t] = exp_nonpositive(A(M<T>(p[b + t])) - mx);
    int64_t t = 0;
    for (; t + L <= nb; t += L)
      for (int j = 0; j < L; ++j) lanes[j] += buf[t + j];
    for (int j = 0; t < nb; ++t, ++j) lanes[j] += buf[t];
  }
  for (int w = L / 2; w >= 1; w /= 2)
    for (int j = 0; j < w; ++j) lanes[j] += lanes[j + w];
  return std::log(lanes[0]) + mx;
}

// Compiled twice; see Note [CPU capability dispatch].
template <typename T, typename A>
A logsumexp_row_baseline(const T* p, int64_t k) { return logsumexp_row_body<T, A>(p, k); }
#if CT_HAVE_AVX2_KERNELS
template <typename T, typename A>
CT_TARGET_AVX2 A logsumexp_row_avx2(const T* p, int64_t k) { return logsumexp_row_body<T, A>(p, k); }
#endif
template <typename T, typename A>
A logsumexp_row(const T* p, int64_t k) {
#if CT_HAVE_AVX2_KERNELS
  if (cpu::has_avx2()) return logsumexp_row_avx2<T, A>(p, k);
#endif
  return logsumexp_row_baseline<T, A>(p, k);
}

void logsumexp_cpu(const Frame& f, const MetaResult& m, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  bool all = false;
  const uint64_t mask = reduced_mask("logsumexp", f.arg(1), static_cast<int64_t>(a.dim()), &all);
  ReduceLayout l = reduce_layout(a, mask);
  if (l.inner != 1) {  // rows only: move the reduced dims last
    DimVector perm;
    for (int64_t d = 0; d < static_cast<int64_t>(a.dim()); ++d)
      if (!(mask >> d & 1)) perm.push_back(d);
    for (int64_t d = 0; d < static_cast<int64_t>(a.dim()); ++d)
      if (mask >> d & 1) perm.push_back(d);
    l.data = expect_contiguous(permute(Tensor::borrow(&a), perm));
    l.outer *= l.inner;
    l.inner = 1;
  }
  Tensor holder;
  const TensorImpl* in = as_dtype(*l.data, m.compute, holder);
  visit_dtype<kFloatingDTypes>(m.compute, "logsumexp", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = M<T>;
    const T* p = in->data_as<T>();
    T* out = outs[0]->data_as<T>();
    const int64_t k = l.k;
    const int64_t grain = std::max<int64_t>(1, cpu::kElementwiseGrain / std::max<int64_t>(k, 1));
    cpu::parallel_for(0, l.outer, grain, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) out[r] = T(logsumexp_row<T, A>(p + r * k, k));
    });
  });
}

// d/dx logsumexp = exp(x - result), the softmax of the group.
void logsumexp_backward(GradCtx& c) {
  const Tensor x = c.saved("self");
  const DimVector dims = grad_reduced_dims(c, "logsumexp");
  const bool keepdim = c.arg("keepdim").to_bool();
  const Tensor y = expand_reduced(c.result(), dims, x->sizes(), keepdim);
  c.set("self", mul(expand_reduced(c.grad(), dims, x->sizes(), keepdim), exp(sub(x, y))));
}

}  // namespace

void define_stats(Registry& r) {
  define_moment<Moment::Var>(r);
  define_moment<Moment::Std>(r);
  define_moment<Moment::VarMean>(r);
  define_moment<Moment::StdMean>(r);
  define_logical<Logical::All>(r, "all(Tensor self) -> Tensor");
  define_logical<Logical::All>(r, "all.dim(Tensor self, int dim, bool keepdim=False) -> Tensor");
  define_logical<Logical::Any>(r, "any(Tensor self) -> Tensor");
  define_logical<Logical::Any>(r, "any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor");
  define_logical<Logical::Count>(r, "count_nonzero.dim_IntList(Tensor self, int[] dim) -> Tensor");
  define_logical<Logical::Count>(r, "count_nonzero(Tensor self, int? dim=None) -> Tensor");
  r.def("logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor")
      .meta(logsumexp_meta)
      .compute(DispatchKey::CPU, logsumexp_cpu, Determinism::Bitwise)
      .derivative(logsumexp_backward, save_result(save("self")));
}

}  // namespace ct::ops
