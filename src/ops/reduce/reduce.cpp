// reduce.cpp - sum, nansum, mean, prod, amax, amin over a list of dims, and argmax, argmin over
// one dim. Meta functions fix the output sizes and dtype; the CPU compute lays the input out as
// rows of the reduced elements and runs the reduction engine (cpu/reduce.h). nanmean is a
// composite over nansum.
#include <cmath>
#include <limits>

#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/cpu/cast.h"
#include "ops/cpu/folds.h"
#include "ops/cpu/reduce.h"
#include "ops/functions.h"
#include "ops/op_common.h"
#include "ops/reduce/reduce_common.h"

namespace ct::ops {
namespace {

template <typename T> using M = opmath_t<T>;
template <typename T>
using sum_acc_t = std::conditional_t<std::is_floating_point<M<T>>::value, M<T>, int64_t>;

template <typename T>
bool is_nan(T x) {
  if constexpr (std::is_floating_point<T>::value) return std::isnan(x);
  else return false;
}

// Sum and the extrema fold as cpu/folds.h says (so do the compiler's fused reductions); these add
// the conversion of an element to the accumulator.
template <typename T> struct SumOp : cpu::SumFold<sum_acc_t<T>> {
  using acc_t = sum_acc_t<T>;
  static acc_t step(acc_t a, T x, int64_t) { return a + acc_t(M<T>(x)); }
};
template <typename T> struct NanSumOp {  // NaN counts as zero
  using acc_t = sum_acc_t<T>;
  static acc_t identity() { return acc_t(0); }
  // v == v is false for NaN only: a select, not a branch, so the engine's lanes vectorize.
  static acc_t step(acc_t a, T x, int64_t) {
    const acc_t v = acc_t(M<T>(x));
    return a + (v == v ? v : acc_t(0));
  }
  static acc_t merge(acc_t a, acc_t b) { return a + b; }
};
template <typename T> struct ProdOp {
  using acc_t = sum_acc_t<T>;
  static acc_t identity() { return acc_t(1); }
  static acc_t step(acc_t a, T x, int64_t) { return a * acc_t(M<T>(x)); }
  static acc_t merge(acc_t a, acc_t b) { return a * b; }
};
template <typename T, bool Max> struct ExtremumOp : cpu::ExtremumFold<M<T>, Max> {  // NaN wins
  using acc_t = M<T>;
  static acc_t step(acc_t a, T x, int64_t) { return cpu::ExtremumFold<M<T>, Max>::merge(a, acc_t(x)); }
};
template <typename T> using AmaxOp = ExtremumOp<T, true>;
template <typename T> using AminOp = ExtremumOp<T, false>;

template <typename T, bool Max> struct ArgOp {  // first index of the extremum; the first NaN wins
  struct acc_t {
    M<T> v;
    int64_t i;
  };
  static acc_t identity() { return {M<T>(0), -1}; }
  static acc_t merge(acc_t a, acc_t b) {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    const bool an = is_nan(a.v), bn = is_nan(b.v);
    if (an || bn) return an && bn ? (a.i < b.i ? a : b) : an ? a : b;
    if (a.v == b.v) return a.i < b.i ? a : b;
    return (Max ? b.v > a.v : b.v < a.v) ? b : a;
  }
  // x at index i joins a fold of lower indices (a lane runs upwards), so a tie keeps a and only
  // a NaN joining a NaN-free fold replaces it. Written as selects, not branches, so that the
  // engine's lanes vectorize; merge combines the lanes with the full rule.
  static acc_t step(acc_t a, T x, int64_t i) {
    const M<T> v = M<T>(x);
    const bool a_nan = a.v != a.v, x_nan = v != v;
    const bool take = (a.i < 0) | ((!a_nan) & (x_nan | (Max ? v > a.v : v < a.v)));
    return {take ? v : a.v, take ? i : a.i};
  }
};

// The first index in p[0, k) where hit holds. Tested 16 at a time, with the exit taken once per
// group, so the compares vectorize; the group is then searched in order.
template <typename T, typename Hit>
int64_t first_index(const T* p, int64_t k, Hit hit) {
  int64_t i = 0;
  for (; i + 16 <= k; i += 16) {
    int hits = 0;  // a count, not a bool: gcc vectorizes the sum of compares
    for (int j = 0; j < 16; ++j) hits += hit(p[i + j]);
    if (hits) break;
  }
  for (; i < k; ++i)
    if (hit(p[i])) return i;
  return k - 1;  // unreachable: the extremum is one of the elements
}

// The first index in p[0, k) holding e, the first NaN when e is NaN.
template <typename T>
int64_t first_index_of(const T* p, int64_t k, M<T> e) {
  if (is_nan(e)) return first_index(p, k, [](T x) { return is_nan(M<T>(x)); });
  return first_index(p, k, [e](T x) { return M<T>(x) == e; });
}

// Note [Argmax of rows]
// argmax/argmin along contiguous rows in two passes: the extremum by the engine's vectorized
// amax/amin fold (NaN wins there too), then the first element equal to it (the first NaN when it
// is NaN). That is the index ArgOp's fold names - the first extremum, the first NaN - but the
// passes vectorize where ArgOp's (value, index) lanes do not: argmax(-1) of 1024x1024 float32 on one
// thread 1.46 ms -> 0.47 ms. Threads split rows only, so the bits do not depend on their count.
// Reductions along strided columns keep ArgOp (Note [Column reductions]).
template <typename T, bool Max>
void arg_rows(const T* p, int64_t m, int64_t k, int64_t* dst) {
  const int64_t grain = std::max<int64_t>(1, cpu::kElementwiseGrain / std::max<int64_t>(k, 1));
  cpu::parallel_for(0, m, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      dst[r] = first_index_of(p + r * k, k, cpu::reduce_row<ExtremumOp<T, Max>>(p + r * k, k));
  });
}

enum class Kind { Sum, Mean, Prod, Amax, Amin, Argmax, Argmin, NanSum };

template <Kind K>
constexpr const char* kind_name() {
  constexpr const char* names[] = {"sum", "mean", "prod", "amax", "amin", "argmax", "argmin", "nansum"};
  return names[static_cast<int>(K)];
}

// <name>.dim_IntList(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor
// argmax/argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor
// nansum(Tensor self, int[]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
template <Kind K>
void reduce_meta(const Frame& f, MetaResult& m) {
  constexpr bool arg = K == Kind::Argmax || K == Kind::Argmin;
  const char* op = kind_name<K>();
  const TensorImpl& a = f.tensor(0);
  const int64_t nd = static_cast<int64_t>(a.dim());
  const bool keepdim = f.arg(2).to_bool();
  bool all = false;
  uint64_t mask;
  if (arg) {
    all = f.arg(1).is_none();
    mask = all ? (nd >= 64 ? ~uint64_t(0) : (uint64_t(1) << nd) - 1)
               : uint64_t(1) << wrap_dim(op, f.arg(1).to_int(), nd);
  } else {
    mask = reduced_mask(op, f.arg(1), nd, &all);
  }
  SymDimVector sizes;
  for (int64_t d = 0; d < nd; ++d) {
    if (!(mask >> d & 1)) sizes.push_back(a.sym_size(d));
    else if (keepdim) sizes.push_back(1);
  }
  if (K == Kind::Amax || K == Kind::Amin || arg) {
    SymInt k = 1;
    for (int64_t d = 0; d < nd; ++d)
      if (mask >> d & 1) k = k * a.sym_size(d);
    CT_SYM_CHECK(k > 0, CT_ERROR_SHAPE, op, ": cannot reduce over ", all ? "all dims" : "a dim",
                 " of size 0 (input ", a.sym_sizes(), "). Reduce over non-empty dims");
  }
  DType out = a.dtype();
  if (K == Kind::Sum || K == Kind::Prod || K == Kind::NanSum) out = is_integral(out, true) ? DType::Int64 : out;
  if (K == Kind::NanSum && !f.arg(3).is_none()) {
    out = f.arg(3).dtype();
    CT_CHECK(out != DType::Bool, CT_ERROR_DTYPE, "nansum: dtype bool cannot hold a sum (input ", a.sym_sizes(), " ",
             a.dtype(), "). Pass an integer or floating dtype");
  }
  if (K == Kind::Mean)
    CT_CHECK(is_floating(out) || is_complex(out), CT_ERROR_DTYPE, "mean: needs a floating or complex input, got ", out,
             " (", a.sym_sizes(), "). Convert with to(float32) first");
  if (arg) out = DType::Int64;
  m.compute = a.dtype();
  set_output(m, 0, sizes, out, a.device());
}

template <Kind K>
void reduce_cpu(const Frame& f, const MetaResult& m, Tensor* outs);

// nansum's dtype argument: the input converted to it first, as torch does, and the sum written
// through a temporary when the engine's result dtype (int64 for integers) is not it.
void nansum_with_dtype(const Frame& f, const MetaResult& m, Tensor* outs) {
  const Tensor x = to(Tensor::borrow(&f.tensor(0)), f.arg(3).dtype());
  const Value args[] = {Value(x), f.arg(1), f.arg(2), Value()};
  Frame g{f.op, args, 4, f.keys, nullptr, 0};
  const DType natural = is_integral(x->dtype(), true) ? DType::Int64 : x->dtype();
  if (natural == outs[0]->dtype()) return reduce_cpu<Kind::NanSum>(g, m, outs);
  Tensor tmp[1] = {Tensor::adopt(TensorImpl::empty(outs[0]->sizes(), natural, outs[0]->device()))};
  reduce_cpu<Kind::NanSum>(g, m, tmp);
  copy_(outs[0], tmp[0]);
}

// A complex sum or mean is that of the real parts and of the imaginary parts: each part, a strided
// real view, reduced over the same dims, so it gets a real tensor's arithmetic and bits. (Reducing
// view_as_real whole would make a full sum a column sum two wide: 1M complex64 took 3.7 ms, the
// parts 0.6 ms.)
template <Kind K>
void reduce_complex_by_parts(const Frame& f, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  const int64_t nd = static_cast<int64_t>(a.dim());
  bool all = false;
  const uint64_t mask = reduced_mask(kind_name<K>(), f.arg(1), nd, &all);
  DimVector dims;
  for (int64_t d = 0; d < nd; ++d)
    if (mask >> d & 1) dims.push_back(d);
  const Tensor parts = view_as_real(Tensor::borrow(&a));
  const Tensor out_parts = view_as_real(outs[0]);
  // No dim to reduce (a 0-dim input): each element is its own sum; an empty dim list would mean all.
  if (dims.empty()) {
    copy_(out_parts, parts);
    return;
  }
  const bool keepdim = f.arg(2).to_bool();
  for (int64_t p = 0; p < 2; ++p) {
    const Tensor part = select(parts, -1, p);
    copy_(select(out_parts, -1, p), K == Kind::Sum ? sum(part, dims.ref(), keepdim) : mean(part, dims.ref(), keepdim));
  }
}

// A complex product is the last running product (cumprod's: torch's textbook products, complex64
// accumulating in complex128) along the reduced dims moved last and flattened; an empty group's is 1.
void prod_complex(const Frame& f, Tensor* outs) {
  const Tensor a = Tensor::borrow(&f.tensor(0));
  const int64_t nd = static_cast<int64_t>(a->dim());
  bool all = false;
  const uint64_t mask = reduced_mask("prod", f.arg(1), nd, &all);
  DimVector order, kept_sizes;
  int64_t k = 1;
  for (int64_t d = 0; d < nd; ++d)
    if (!(mask >> d & 1)) order.push_back(d), kept_sizes.push_back(a->size(d));
  for (int64_t d = 0; d < nd; ++d)
    if (mask >> d & 1) order.push_back(d), k *= a->size(d);
  if (k == 0) {
    copy_(outs[0], ones({}, a->dtype(), a->device()));
    return;
  }
  kept_sizes.push_back(k);
  const Tensor running = cumprod(reshape(permute(a, order), kept_sizes), -1);
  copy_(outs[0], reshape(select(running, -1, k - 1), outs[0]->sizes()));
}

template <Kind K>
void reduce_cpu(const Frame& f, const MetaResult& m, Tensor* outs) {
  constexpr bool arg = K == Kind::Argmax || K == Kind::Argmin;
  if constexpr (K == Kind::Sum || K == Kind::Mean)
    if (is_complex(f.tensor(0).dtype())) return reduce_complex_by_parts<K>(f, outs);
  if constexpr (K == Kind::Prod)
    if (is_complex(f.tensor(0).dtype())) return prod_complex(f, outs);
  if constexpr (K == Kind::NanSum)
    if (!f.arg(3).is_none() && f.arg(3).dtype() != f.tensor(0).dtype()) return nansum_with_dtype(f, m, outs);
  const TensorImpl& a = f.tensor(0);
  const int64_t nd = static_cast<int64_t>(a.dim());
  bool all = false;
  const uint64_t mask = arg ? (f.arg(1).is_none() ? ~uint64_t(0) : uint64_t(1) << wrap_dim("arg", f.arg(1).to_int(), nd))
                            : reduced_mask(kind_name<K>(), f.arg(1), nd, &all);
  const ReduceLayout l = reduce_layout(a, mask);
  visit_dtype(a.dtype(), kind_name<K>(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto run = [&](auto op, auto* dst, auto finish) { run_reduction<decltype(op), T>(l, dst, finish); };
    if constexpr (K == Kind::Sum || K == Kind::Prod || K == Kind::NanSum) {
      using Op = std::conditional_t<K == Kind::Sum, SumOp<T>, std::conditional_t<K == Kind::Prod, ProdOp<T>, NanSumOp<T>>>;
      using O = std::conditional_t<std::is_floating_point<M<T>>::value, T, int64_t>;
      run(Op(), outs[0]->data_as<O>(), [](auto acc) { return cpu::cast_value<O>(acc); });
    } else if constexpr (K == Kind::Mean) {
      if constexpr (std::is_floating_point<M<T>>::value) {
        const M<T> n = M<T>(l.k);
        run(SumOp<T>(), outs[0]->data_as<T>(), [n](auto acc) { return T(acc / n); });
      }
    } else if constexpr (K == Kind::Amax || K == Kind::Amin) {
      using Op = std::conditional_t<K == Kind::Amax, AmaxOp<T>, AminOp<T>>;
      run(Op(), outs[0]->data_as<T>(), [](auto acc) { return cpu::cast_value<T>(acc); });
    } else if (l.inner == 1) {
      arg_rows<T, K == Kind::Argmax>(l.data->data_as<T>(), l.outer, l.k, outs[0]->data_as<int64_t>());
    } else {
      run(ArgOp<T, K == Kind::Argmax>(), outs[0]->data_as<int64_t>(), [](auto acc) { return acc.i; });
    }
  });
}

template <Kind K>
OpBuilder define_reduction(Registry& r, const std::string& schema) {
  OpBuilder b = r.def(schema);
  b.meta(reduce_meta<K>).compute(DispatchKey::CPU, reduce_cpu<K>, Determinism::Bitwise).tag(Tag::Reduction);
  return b;
}

// ---- Derivatives of sum, mean, prod, amax, amin (self, dim, keepdim).
using autograd::GradCtx;

// t (shaped like the result) broadcast back over the input's sizes.
Tensor expand_back(GradCtx& c, const char* op, const Tensor& t) {
  return expand_reduced(t, grad_reduced_dims(c, op), c.sizes("self"), c.arg("keepdim").to_bool());
}

// How many input elements each result element reduces.
int64_t group_size(GradCtx& c, const char* op) {
  int64_t n = 1;
  for (int64_t d : grad_reduced_dims(c, op)) n *= c.sizes("self")[static_cast<size_t>(d)];
  return n;
}

void sum_backward(GradCtx& c) { c.set("self", expand_back(c, "sum", c.grad())); }
// Scaled before it is expanded: one multiply per group instead of one per element (the same
// values), and a compiled backward then sees the expand where a broadcast can take its place.
void mean_backward(GradCtx& c) {
  c.set("self", expand_back(c, "mean", mul(c.grad(), Scalar(1.0 / static_cast<double>(group_size(c, "mean"))))));
}

// d prod / dx_i is the product of the other elements. Without zeros in a group that is
// result / x_i; with exactly one zero, the zero's entry is the product of the rest and the others
// get 0; with two or more, every entry is 0. Written without dividing by zero, so that it stays
// differentiable. Conjugated for complex x (Note [Complex tensors]).
void prod_backward(GradCtx& c) {
  const Tensor x = c.saved("self");
  const DimVector dims = grad_reduced_dims(c, "prod");
  const Tensor is_zero = eq(x, 0);
  const Tensor zeros_in_group = sum(is_zero, dims, true);
  const Tensor x_no_zero = where(is_zero, ones({}, x->dtype(), x->device()), x);
  const Tensor rest = prod(x_no_zero, dims, true);  // product of the non-zero elements
  const Tensor zero = zeros({}, x->dtype(), x->device());
  const Tensor none_zero = eq(zeros_in_group, 0);
  const Tensor lone_zero = mul(is_zero, eq(zeros_in_group, 1));
  const Tensor others = where(none_zero, div(rest, x_no_zero), where(lone_zero, expand(rest, x->sizes()), zero));
  c.set("self", mul(expand_back(c, "prod", c.grad()), conj_if_complex(others)));
}

// amax / amin: the gradient is shared evenly by the elements equal to the extremum.
template <Kind K>
void extremum_backward(GradCtx& c) {
  const char* op = kind_name<K>();
  const Tensor x = c.saved("self");
  const Tensor hit = to(eq(x, expand_back(c, op, c.result())), x->dtype());
  const Tensor share = div(hit, sum(hit, grad_reduced_dims(c, op), true));
  c.set("self", mul(expand_back(c, op, c.grad()), share));
}

// nansum: the gradient reaches the elements that are not NaN.
void nansum_backward(GradCtx& c) {
  const Tensor x = c.saved("self");
  c.set("self", mul(expand_back(c, "nansum", c.grad()), logical_not(isnan(x))));
}

// nanmean(Tensor self, int[]? dim=None, bool keepdim=False, *, ScalarType? dtype=None): nansum over
// how many elements are not NaN. As torch, the input itself must be floating (dtype picks the
// precision, not a conversion); the derivative is nansum's and div's.
void nanmean_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  CT_CHECK(is_floating(a.dtype()), CT_ERROR_DTYPE, "nanmean: needs a floating input, got ", a.dtype(), " (",
           a.sym_sizes(), "). Convert with to(float32) first");
  const Tensor x = Tensor::borrow(&a);
  const OptionalIntArrayRef dims = f.arg(1).is_none() ? OptionalIntArrayRef() : OptionalIntArrayRef(f.arg(1).int_list());
  const bool keepdim = f.arg(2).to_bool();
  const std::optional<DType> dtype = f.arg(3).is_none() ? std::nullopt : std::optional<DType>(f.arg(3).dtype());
  f.outs[0] = div(nansum(x, dims, keepdim, dtype), sum(logical_not(isnan(x)), dims, keepdim));
}

}  // namespace

void define_reductions(Registry& r) {
  const std::string list = ".dim_IntList(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor";
  define_reduction<Kind::Sum>(r, "sum" + list)
      .derivative(sum_backward)
      .fused_reduction(FusedReduction::Sum)
      .takes_complex();  // by parts: reduce_complex_by_parts
  define_reduction<Kind::Mean>(r, "mean" + list)
      .derivative(mean_backward)
      .fused_reduction(FusedReduction::Mean)
      .takes_complex();
  define_reduction<Kind::Prod>(r, "prod" + list)
      .derivative(prod_backward, save("self"))
      .takes_complex();  // prod_complex
  define_reduction<Kind::Amax>(r, "amax" + list)
      .derivative(extremum_backward<Kind::Amax>, save_result(save("self")))
      .fused_reduction(FusedReduction::Amax);
  define_reduction<Kind::Amin>(r, "amin" + list)
      .derivative(extremum_backward<Kind::Amin>, save_result(save("self")))
      .fused_reduction(FusedReduction::Amin);
  define_reduction<Kind::Argmax>(r, "argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor")
      .not_differentiable();
  define_reduction<Kind::Argmin>(r, "argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor")
      .not_differentiable();
  const std::string nan_list = "(Tensor self, int[]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor";
  define_reduction<Kind::NanSum>(r, "nansum" + nan_list).derivative(nansum_backward, save("self"));
  r.def("nanmean" + nan_list).composite(nanmean_kernel);
}

}  // namespace ct::ops
