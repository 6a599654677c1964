// norm.cpp - norm, linalg_vector_norm and linalg_norm: composites of abs, pow and the reductions,
// so their derivatives and meta behaviour come from the operators they call.
#include <cmath>
#include <cstring>
#include <limits>

#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/reduce/reduce_common.h"

namespace ct::ops {
namespace {

constexpr const char* kVectorNorm = "linalg_vector_norm";

// The dims a norm reduces, ascending; None or empty means all.
DimVector norm_dims(const char* op, const Value& dims, int64_t ndim) {
  bool all = false;
  const uint64_t mask = reduced_mask(op, dims, ndim, &all);
  DimVector out;
  for (int64_t d = 0; d < ndim; ++d)
    if (mask >> d & 1) out.push_back(d);
  return out;
}

// The vector p-norm of x over dims. float16/bfloat16 are computed in float32 and rounded once at
// the end, as PyTorch accumulates them.
Tensor vector_norm(const char* op, const Tensor& in, double p, IntArrayRef dims, bool keepdim) {
  CT_CHECK(is_floating(in->dtype()), CT_ERROR_DTYPE, op, ": needs a floating input, got ", in->dtype(), " (",
           in->sym_sizes(), "). Convert with to(float32) first");
  const DType out = in->dtype();
  const Tensor x = (out == DType::Float16 || out == DType::BFloat16) ? to(in, DType::Float32) : in;
  Tensor r;
  if (p == 2.0) {
    r = sqrt(sum(mul(x, x), dims, keepdim));
  } else if (p == 1.0) {
    r = sum(abs(x), dims, keepdim);
  } else if (std::isinf(p)) {
    r = p > 0 ? amax(abs(x), dims, keepdim) : amin(abs(x), dims, keepdim);
  } else if (p == 0.0) {  // the number of non-zero elements
    r = sum(to(ne(x, 0), x->dtype()), dims, keepdim);
  } else {
    r = pow(sum(pow(abs(x), p), dims, keepdim), 1.0 / p);
  }
  return r->dtype() == out ? r : to(r, out);
}

Tensor self_in(const Frame& f) { return Tensor::borrow(f.args[0].tensor_ptr()); }
Tensor with_dtype(const Tensor& x, const Value& dtype) { return dtype.is_none() ? x : to(x, dtype.dtype()); }

// The structured vector norm, through the dispatcher so that autograd records it.
Tensor call_vector_norm(const Tensor& x, const Value& p, const Value& dims, bool keepdim) {
  return call(builtin_op(kVectorNorm), {x, p, dims, keepdim, Value()});
}

// norm.Scalar(Tensor self, Scalar p=2) -> Tensor
void norm_scalar_kernel(void*, Frame& f) { f.outs[0] = call_vector_norm(self_in(f), f.arg(1), Value(), false); }

// norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor
void norm_dim_kernel(void*, Frame& f) {
  const Value p = f.arg(1).is_none() ? Value(2.0) : f.arg(1);
  f.outs[0] = call_vector_norm(self_in(f), p, f.arg(2), f.arg(3).to_bool());
}

// ---- linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *,
// ScalarType? dtype=None): structured, so that its derivative can define the gradient at an all-zero
// group (0, as PyTorch), where the composite's sqrt would give 0 * inf = NaN.

void vector_norm_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  CT_CHECK(is_floating(a.dtype()) || is_complex(a.dtype()), CT_ERROR_DTYPE, kVectorNorm,
           ": needs a floating or complex input, got ", a.dtype(), " (", a.sym_sizes(),
           "). Convert with to(float32) first");
  const DType given = f.arg(4).is_none() ? a.dtype() : f.arg(4).dtype();
  CT_CHECK(is_complex(given) == is_complex(a.dtype()) && (is_floating(given) || is_complex(given)), CT_ERROR_DTYPE,
           kVectorNorm, ": dtype must be ", is_complex(a.dtype()) ? "complex for a complex input" : "floating",
           ", got ", given);
  // A complex input's norm is real: the norm of its elements' moduli.
  const DType d = real_dtype(given);
  bool all = false;
  const uint64_t mask = reduced_mask(kVectorNorm, f.arg(2), static_cast<int64_t>(a.dim()), &all);
  SymInt n = 1;
  for (int64_t d2 = 0; d2 < static_cast<int64_t>(a.dim()); ++d2)
    if (mask >> d2 & 1) n = n * a.sym_size(d2);
  CT_CHECK(!std::isinf(f.arg(1).to_double()) || n > 0, CT_ERROR_SHAPE, kVectorNorm, ": the ", f.arg(1).to_double(),
           "-norm of an empty group is undefined (input ", a.sym_sizes(), "). Reduce over non-empty dims");
  m.compute = d;
  set_output(m, 0, reduced_sizes(a.sym_sizes(), mask, f.arg(3).to_bool()), d, a.device());
}

// x * x summed by the engine in x's own type: the fold sum(mul(x, x)) computes, without the squares
// written out and read back.
template <typename T> struct SumSquaresOp {
  using acc_t = T;
  static T identity() { return T(0); }
  static T step(T a, T x, int64_t) { return a + x * x; }
  static T merge(T a, T b) { return a + b; }
};

// The 2-norm of a float32 or float64 input is one pass of the reduction engine and a sqrt per
// result, written into the output, where the composite wrote the squares, read them back and copied
// the result (norm(dim=-1) of 1024x1024 float32 on one thread: 569 -> 143 us); the other orders and
// dtypes are vector_norm's composite.
void vector_norm_cpu(const Frame& f, const MetaResult& m, Tensor* outs) {
  const Tensor x = with_dtype(self_in(f), f.arg(4));
  const double p = f.arg(1).to_double();
  if (p == 2.0 && (x->dtype() == DType::Float32 || x->dtype() == DType::Float64)) {
    bool all = false;
    const ReduceLayout l = reduce_layout(*x, reduced_mask(kVectorNorm, f.arg(2), static_cast<int64_t>(x->dim()), &all));
    auto run = [&](auto zero) {
      using T = decltype(zero);
      run_reduction<SumSquaresOp<T>, T>(l, outs[0]->data_as<T>(), [](T acc) { return std::sqrt(acc); });
    };
    if (x->dtype() == DType::Float32) run(0.0f);
    else run(0.0);
    return;
  }
  const DimVector dims = norm_dims(kVectorNorm, f.arg(2), static_cast<int64_t>(x->dim()));
  copy_(outs[0], vector_norm(kVectorNorm, is_complex(x->dtype()) ? abs(x) : x, p, dims, f.arg(3).to_bool()));
}

// As PyTorch's norm_backward: p = 0 has no gradient; p = 1 is sign(x) (sgn for complex x); +-inf
// shares the gradient among the elements whose |x| is the norm; otherwise sign(x) |x|^(p-1) /
// norm^(p-1), 0 where the norm is 0.
void vector_norm_backward(autograd::GradCtx& c) {
  const Tensor x = with_dtype(c.saved("self"), c.arg("dtype"));
  const double p = c.arg("ord").to_double();
  const DimVector dims = grad_reduced_dims(c, kVectorNorm);
  const bool keepdim = c.arg("keepdim").to_bool();
  const Tensor g = expand_reduced(c.grad(), dims, x->sizes(), keepdim);
  const Tensor y = expand_reduced(c.result(), dims, x->sizes(), keepdim);
  const Tensor zero = zeros({}, x->dtype(), x->device());
  // sign(x), and for complex x its sgn, x / |x|: d|x| = Re(conj(sgn x) dx).
  const Tensor sign = is_complex(x->dtype()) ? sgn(x) : sub(to(gt(x, 0), x->dtype()), to(lt(x, 0), x->dtype()));
  Tensor gx;
  if (p == 0.0) {
    gx = mul(x, Scalar(0.0));
  } else if (p == 1.0) {
    gx = mul(g, sign);
  } else if (std::isinf(p)) {
    const Tensor hit = to(eq(abs(x), y), x->dtype());
    gx = mul(mul(g, sign), div(hit, expand(sum(hit, dims, true), x->sizes())));
  } else {
    const Tensor ratio = p == 2.0 ? div(x, y) : mul(sign, pow(div(abs(x), y), p - 1.0));
    gx = mul(g, where(eq(y, 0), zero, ratio));
  }
  c.set("self", gx);
}

// A matrix norm over dims (d0, d1): 'fro', 'nuc' (the sum of the singular values), ord +-2 (the
// largest or smallest singular value), or the induced 1 / inf norms (max column / row sum) and their
// minimum counterparts.
Tensor matrix_norm(const Tensor& x, const char* ord, double p, int64_t d0, int64_t d1, bool keepdim) {
  const char* op = "linalg_norm";
  CT_CHECK(is_floating(x->dtype()) || is_complex(x->dtype()), CT_ERROR_DTYPE, op,
           ": needs a floating or complex input, got ", x->dtype(), ". Convert with to(float32) first");
  // A complex matrix's norms are real: those of its elements' moduli, or of its singular values.
  const bool nuc = ord && std::strcmp(ord, "nuc") == 0;
  if (ord && !nuc) {
    CT_CHECK(std::strcmp(ord, "fro") == 0, CT_ERROR_INVALID_ARGUMENT, op, ": ord='", ord,
             "' is not a matrix norm (ctorch supports 'fro', 'nuc', 2, -2, 1, -1, inf and -inf for matrices)");
    const int64_t dims[2] = {std::min(d0, d1), std::max(d0, d1)};
    return vector_norm(op, is_complex(x->dtype()) ? abs(x) : x, 2.0, IntArrayRef(dims, 2), keepdim);
  }
  if (nuc || p == 2 || p == -2) {  // from the singular values of the matrices moved to the last two dims
    const int64_t from[2] = {d0, d1}, to_dims[2] = {-2, -1};
    const Tensor s = linalg_svdvals(movedim(x, IntArrayRef(from, 2), IntArrayRef(to_dims, 2)));
    Tensor r = nuc ? sum(s, IntArrayRef{-1}) : p > 0 ? amax(s, IntArrayRef{-1}) : amin(s, IntArrayRef{-1});
    if (keepdim) r = unsqueeze(unsqueeze(r, std::min(d0, d1)), std::max(d0, d1));
    return r;
  }
  CT_CHECK(p == 1 || p == -1 || std::isinf(p), CT_ERROR_INVALID_ARGUMENT, op, ": matrix ord=", p,
           " is not a matrix norm (ctorch supports 'fro', 'nuc', 2, -2, 1, -1, inf and -inf for matrices)");
  // ord 1 sums over the rows (d0) and takes the extreme over columns; ord inf the other way round.
  const int64_t sum_dim = std::isinf(p) ? d1 : d0, pick_dim = std::isinf(p) ? d0 : d1;
  const DType out = real_dtype(x->dtype());
  const Tensor xf = (out == DType::Float16 || out == DType::BFloat16) ? to(x, DType::Float32) : x;
  Tensor r = sum(abs(xf), IntArrayRef(&sum_dim, 1), true);
  r = p > 0 ? amax(r, IntArrayRef(&pick_dim, 1), true) : amin(r, IntArrayRef(&pick_dim, 1), true);
  if (!keepdim) r = squeeze(squeeze(r, std::max(d0, d1)), std::min(d0, d1));
  return r->dtype() == out ? r : to(r, out);
}

// linalg_norm(Tensor self, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None)
// linalg_norm.ord_str(Tensor self, str ord, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None)
// As torch.linalg.norm: a vector norm over one dim (or a 1-D input), a matrix norm over two dims
// (or a 2-D input); with neither ord nor dim, the 2-norm of the flattened input.
void linalg_norm_kernel(void*, Frame& f) {
  const char* op = "linalg_norm";
  const Tensor x = with_dtype(self_in(f), f.arg(4));
  const int64_t nd = static_cast<int64_t>(x->dim());
  const bool keepdim = f.arg(3).to_bool();
  const Value& ordv = f.arg(1);
  const char* ord = ordv.kind() == Value::Kind::String ? ordv.str() : nullptr;
  if (f.arg(2).is_none()) {
    if (ordv.is_none()) {
      f.outs[0] = call_vector_norm(x, Value(2.0), Value(), keepdim);
      return;
    }
    CT_CHECK(nd == 1 || nd == 2, CT_ERROR_SHAPE, op, ": with ord and no dim the input must be 1-D or 2-D, got sizes ",
             x->sym_sizes(), ". Pass dim");
    if (nd == 2) {
      f.outs[0] = matrix_norm(x, ord, ord ? 0.0 : ordv.to_double(), 0, 1, keepdim);
      return;
    }
  }
  const DimVector dims = f.arg(2).is_none() ? DimVector{0} : norm_dims(op, f.arg(2), nd);
  CT_CHECK(dims.size() == 1 || dims.size() == 2, CT_ERROR_SHAPE, op, ": dim must name 1 (vector norm) or 2 (matrix norm) dims, got ",
           f.arg(2).int_list(), ". Use linalg_vector_norm for more");
  if (dims.size() == 2) {
    const IntArrayRef given = f.arg(2).int_list();
    f.outs[0] = ordv.is_none() ? call_vector_norm(x, Value(2.0), Value(dims.ref()), keepdim)
                               : matrix_norm(x, ord, ord ? 0.0 : ordv.to_double(), wrap_dim(op, given[0], nd),
                                             wrap_dim(op, given[1], nd), keepdim);
    return;
  }
  CT_CHECK(!ord, CT_ERROR_INVALID_ARGUMENT, op, ": ord='", ord ? ord : "", "' is a matrix norm but one dim was given. Pass two dims");
  f.outs[0] = call_vector_norm(x, ordv.is_none() ? Value(2.0) : ordv, Value(dims.ref()), keepdim);
}

// nuclear_norm(Tensor self, bool keepdim=False) -> Tensor; nuclear_norm.dim(Tensor self, int[2] dim, bool keepdim=False)
// The older spelling of linalg.matrix_norm(ord='nuc'): a 2-D input, or the two dims given.
void nuclear_norm_kernel(void*, Frame& f) {
  const char* op = "nuclear_norm";
  const Tensor x = Tensor::borrow(&f.tensor(0));
  const int64_t nd = static_cast<int64_t>(x->dim());
  const bool has_dims = f.nargs == 3;
  if (!has_dims)
    CT_CHECK(nd == 2, CT_ERROR_SHAPE, op, ": expected a tensor with 2 dimensions, but got a tensor with ", nd,
             " dimensions instead. Pass dim to pick two");
  const IntArrayRef dims = has_dims ? f.arg(1).int_list() : IntArrayRef();
  CT_CHECK(!has_dims || dims.size() == 2, CT_ERROR_SHAPE, op, ": dim must name 2 dims, got ", dims);
  const int64_t d0 = has_dims ? wrap_dim(op, dims[0], nd) : 0, d1 = has_dims ? wrap_dim(op, dims[1], nd) : 1;
  CT_CHECK(d0 != d1, CT_ERROR_INVALID_ARGUMENT, op, ": dim must name two different dims, got ", dims);
  f.outs[0] = matrix_norm(x, "nuc", 0.0, d0, d1, f.arg(has_dims ? 2 : 1).to_bool());
}

}  // namespace

void define_norms(Registry& r) {
  r.def("norm.Scalar(Tensor self, Scalar p=2) -> Tensor").composite(norm_scalar_kernel);
  r.def("norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor").composite(norm_dim_kernel);
  r.def("linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor")
      .meta(vector_norm_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, vector_norm_cpu, Determinism::Bitwise)
      .derivative(vector_norm_backward, save_result(save("self")));
  r.def("linalg_norm(Tensor self, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor")
      .composite(linalg_norm_kernel);
  r.def("linalg_norm.ord_str(Tensor self, str ord, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor")
      .composite(linalg_norm_kernel);
  r.def("nuclear_norm(Tensor self, bool keepdim=False) -> Tensor").composite(nuclear_norm_kernel);
  r.def("nuclear_norm.dim(Tensor self, int[2] dim, bool keepdim=False) -> Tensor").composite(nuclear_norm_kernel);
}

}  // namespace ct::ops
