// products.cpp - dot, inner, outer (ger), addr, mv, addmv, baddbmm, addbmm, tensordot, kron,
// linalg_cross (cross), vander (and linalg.vander), linear and bilinear: composites over mm/bmm/matmul, views and
// pointwise operators, so their derivatives come from the operators they call.
#include <algorithm>

#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

using autograd::scaled;

Tensor arg_tensor(const Frame& f, size_t i) { return Tensor::borrow(&f.tensor(i)); }
Tensor opt_tensor(const Frame& f, size_t i) { return f.arg(i).is_none() ? Tensor() : arg_tensor(f, i); }

// PyTorch's BLAS-backed products take one dtype, not a promoted pair.
void same_dtype(const char* op, const TensorImpl& a, const TensorImpl& b) {
  CT_CHECK(a.dtype() == b.dtype(), CT_ERROR_DTYPE, op, ": expected both operands to have the same dtype, got ",
           a.dtype(), " and ", b.dtype(), ". Convert one with to()");
  CT_CHECK(a.dtype() != DType::Bool, CT_ERROR_DTYPE, op, ": bool operands are not supported. Convert them with to()");
}

// dot(Tensor self, Tensor tensor) -> Tensor
void dot_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  const TensorImpl& b = f.tensor(1);
  CT_CHECK(a.dim() == 1 && b.dim() == 1, CT_ERROR_SHAPE, "dot: expected two 1-D tensors, got sizes ", a.sym_sizes(),
           " and ", b.sym_sizes());
  CT_CHECK(a.sym_size(0) == b.sym_size(0), CT_ERROR_SHAPE, "dot: the vectors have ", a.sym_size(0), " and ", b.sym_size(0),
           " elements; they must have as many");
  same_dtype("dot", a, b);
  f.outs[0] = matmul(arg_tensor(f, 0), arg_tensor(f, 1));
}

// inner(Tensor self, Tensor other) -> Tensor: the products summed over the last dims (a 0-dim
// operand scales the other, promoting as mul does).
void inner_kernel(void*, Frame& f) {
  const Tensor a = arg_tensor(f, 0), b = arg_tensor(f, 1);
  if (a->dim() == 0 || b->dim() == 0) {
    f.outs[0] = mul(a, b);
    return;
  }
  CT_CHECK(a->sym_size(a->dim() - 1) == b->sym_size(b->dim() - 1), CT_ERROR_SHAPE, "inner: the last dims of self ",
           a->sym_sizes(), " and other ", b->sym_sizes(), " differ. They must match");
  f.outs[0] = tensordot(a, b, {-1}, {-1});
}

// outer(Tensor self, Tensor vec2) -> Tensor, and its alias ger
void outer_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  const TensorImpl& b = f.tensor(1);
  CT_CHECK(a.dim() == 1 && b.dim() == 1, CT_ERROR_SHAPE, f.op.schema.name, ": expected two 1-D tensors, got sizes ",
           a.sym_sizes(), " and ", b.sym_sizes());
  f.outs[0] = mul(unsqueeze(arg_tensor(f, 0), 1), arg_tensor(f, 1));
}

// addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> Tensor:
// beta self + alpha vec1 vec2^T, promoted over the three; self (NaN included) is ignored when beta
// is 0, and for bool tensors the sum is or and the products are and.
void addr_kernel(void*, Frame& f) {
  const Tensor self = arg_tensor(f, 0), v1 = arg_tensor(f, 1), v2 = arg_tensor(f, 2);
  const Scalar beta = f.arg(3).to_scalar(), alpha = f.arg(4).to_scalar();
  CT_CHECK(v1->dim() == 1 && v2->dim() == 1, CT_ERROR_SHAPE, "addr: vec1 ", v1->sym_sizes(), " and vec2 ", v2->sym_sizes(),
           " must be 1-D");
  const SymDimVector sizes{v1->sym_size(0), v2->sym_size(0)};
  CT_CHECK(broadcast_shapes("addr", self->sym_sizes(), sizes).ref().equals(sizes), CT_ERROR_SHAPE, "addr: self ",
           self->sym_sizes(), " does not broadcast to the outer product's sizes ", sizes);
  ResultType rt;
  rt.add(*self), rt.add(*v1), rt.add(*v2);
  const DType dt = rt.result();
  const Tensor product = mul(unsqueeze(to(v1, dt), 1), to(v2, dt));
  Tensor out;
  if (dt == DType::Bool) {
    const Tensor none = zeros({}, DType::Bool, self->device());
    out = logical_or(!beta.equals(0.0) ? to(self, dt) : none, !alpha.equals(0.0) ? product : none);
  } else {
    out = scaled(product, alpha);
    if (!beta.equals(0.0)) out = add(scaled(to(self, dt), beta), out);
  }
  f.outs[0] = contiguous(expand_symint(out, sizes));
}

// mv(Tensor self, Tensor vec) -> Tensor
Tensor checked_mv(const char* op, const Frame& f, size_t m, size_t v) {
  const TensorImpl& a = f.tensor(m);
  const TensorImpl& x = f.tensor(v);
  CT_CHECK(a.dim() == 2 && x.dim() == 1, CT_ERROR_SHAPE, op, ": expected a 2-D matrix and a 1-D vector, got sizes ",
           a.sym_sizes(), " and ", x.sym_sizes());
  CT_CHECK(a.sym_size(1) == x.sym_size(0), CT_ERROR_SHAPE, op, ": matrix ", a.sym_sizes(), " and vector ", x.sym_sizes(),
           " do not fit. Make matrix.size(1) equal vector.size(0)");
  same_dtype(op, a, x);
  return matmul(arg_tensor(f, m), arg_tensor(f, v));
}
void mv_kernel(void*, Frame& f) { f.outs[0] = checked_mv("mv", f, 0, 1); }

// beta * self + alpha * product, with self ignored (NaN included) when beta is 0, as in BLAS.
Tensor add_scaled(const char* op, const Tensor& self, const Tensor& product, const Scalar& beta, const Scalar& alpha) {
  CT_CHECK(broadcast_shapes(op, self->sym_sizes(), product->sym_sizes()).ref().equals(product->sym_sizes()),
           CT_ERROR_SHAPE, op,
           ": self ", self->sym_sizes(), " does not broadcast to the product's sizes ", product->sym_sizes());
  CT_CHECK(self->dtype() == product->dtype(), CT_ERROR_DTYPE, op, ": self (", self->dtype(),
           ") must have the operands' dtype (", product->dtype(), ")");
  const Tensor p = scaled(product, alpha);
  if (beta.equals(0.0)) return p;
  return add(scaled(self, beta), p);
}

// addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor
void addmv_kernel(void*, Frame& f) {
  f.outs[0] =
      add_scaled("addmv", arg_tensor(f, 0), checked_mv("addmv", f, 1, 2), f.arg(3).to_scalar(), f.arg(4).to_scalar());
}

// baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
void baddbmm_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(1);
  const TensorImpl& b = f.tensor(2);
  CT_CHECK(a.dim() == 3 && b.dim() == 3, CT_ERROR_SHAPE, "baddbmm: expected 3-D batches of matrices, got sizes ",
           a.sym_sizes(), " and ", b.sym_sizes());
  same_dtype("baddbmm", a, b);
  f.outs[0] = add_scaled("baddbmm", arg_tensor(f, 0), bmm(arg_tensor(f, 1), arg_tensor(f, 2)), f.arg(3).to_scalar(),
                         f.arg(4).to_scalar());
}

// addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor:
// beta self + alpha sum_b batch1[b] batch2[b], the sum as one product of the batches laid side by
// side, [batch1[0] ... batch1[B-1]] (n x Bm) times [batch2[0]; ...; batch2[B-1]] (Bm x p).
void addbmm_kernel(void*, Frame& f) {
  const Tensor a = arg_tensor(f, 1), b = arg_tensor(f, 2);
  CT_CHECK(a->dim() == 3 && b->dim() == 3, CT_ERROR_SHAPE, "addbmm: expected 3-D batches of matrices, got sizes ",
           a->sym_sizes(), " and ", b->sym_sizes());
  CT_CHECK(a->sym_size(0) == b->sym_size(0) && a->sym_size(2) == b->sym_size(1), CT_ERROR_SHAPE, "addbmm: batch1 ",
           a->sym_sizes(), " and batch2 ", b->sym_sizes(), " do not fit. They need the same batch size and batch1.size(2) "
           "equal to batch2.size(1)");
  same_dtype("addbmm", *a, *b);
  const SymInt k = a->sym_size(0) * a->sym_size(2);
  const Tensor product = mm(reshape_symint(permute(a, {1, 0, 2}), {a->sym_size(1), k}), reshape_symint(b, {k, b->sym_size(2)}));
  f.outs[0] = add_scaled("addbmm", arg_tensor(f, 0), product, f.arg(3).to_scalar(), f.arg(4).to_scalar());
}

// tensordot(Tensor self, Tensor other, int[] dims_self, int[] dims_other) -> Tensor: the contracted
// dims move last in self and first in other, and one mm does the rest.
void tensordot_kernel(void*, Frame& f) {
  const Tensor a = arg_tensor(f, 0), b = arg_tensor(f, 1);
  const IntArrayRef da = f.arg(2).int_list(), db = f.arg(3).int_list();
  CT_CHECK(da.size() == db.size(), CT_ERROR_INVALID_ARGUMENT, "tensordot: dims_self ", da, " and dims_other ", db,
           " must have the same length");
  same_dtype("tensordot", *a, *b);
  std::vector<bool> ca(a->dim(), false), cb(b->dim(), false);
  DimVector pa, pb;
  SymDimVector out;
  SymInt k = 1;
  for (size_t i = 0; i < da.size(); ++i) {
    const int64_t x = wrap_dim("tensordot", da[i], int64_t(a->dim())),
                  y = wrap_dim("tensordot", db[i], int64_t(b->dim()));
    // wrap_dim accepts dim 0 of a 0-dim tensor (as PyTorch does), but a scalar has no dim to contract.
    CT_CHECK(x < int64_t(a->dim()) && y < int64_t(b->dim()), CT_ERROR_INDEX, "tensordot: a 0-dim operand has no dim ",
             "to contract (self ", a->sym_sizes(), ", other ", b->sym_sizes(), "). Pass empty dims for a scalar");
    CT_CHECK(!ca[x] && !cb[y], CT_ERROR_INVALID_ARGUMENT, "tensordot: dim ", ca[x] ? x : y, " is contracted twice");
    CT_CHECK(a->sym_size(x) == b->sym_size(y), CT_ERROR_SHAPE, "tensordot: contracted dims differ in size: self dim ",
             x, " has ", a->sym_size(x), ", other dim ", y, " has ", b->sym_size(y));
    ca[x] = cb[y] = true;
    k = k * a->sym_size(x);
  }
  SymInt m = 1, n = 1;
  for (size_t d = 0; d < a->dim(); ++d)
    if (!ca[d]) pa.push_back(int64_t(d)), out.push_back(a->sym_size(d)), m = m * a->sym_size(d);
  for (size_t i = 0; i < da.size(); ++i) pa.push_back(wrap_dim("tensordot", da[i], int64_t(a->dim())));
  for (size_t i = 0; i < db.size(); ++i) pb.push_back(wrap_dim("tensordot", db[i], int64_t(b->dim())));
  for (size_t d = 0; d < b->dim(); ++d)
    if (!cb[d]) pb.push_back(int64_t(d)), out.push_back(b->sym_size(d)), n = n * b->sym_size(d);
  const Tensor r = mm(reshape_symint(permute(a, pa), {m, k}), reshape_symint(permute(b, pb), {k, n}));
  f.outs[0] = reshape_symint(r, out);
}

// kron(Tensor self, Tensor other) -> Tensor: the operands interleaved as (a0, 1, a1, 1, ...) and
// (1, b0, 1, b1, ...), multiplied, and each pair of dims merged.
void kron_kernel(void*, Frame& f) {
  const Tensor a = arg_tensor(f, 0), b = arg_tensor(f, 1);
  const size_t nd = std::max(a->dim(), b->dim());
  SymDimVector sa, sb, out;
  for (size_t d = 0; d < nd; ++d) {
    const SymInt x = d + a->dim() >= nd ? a->sym_size(d + a->dim() - nd) : SymInt(1);
    const SymInt y = d + b->dim() >= nd ? b->sym_size(d + b->dim() - nd) : SymInt(1);
    sa.push_back(x), sa.push_back(1);
    sb.push_back(1), sb.push_back(y);
    out.push_back(x * y);
  }
  f.outs[0] = reshape_symint(mul(reshape_symint(a, sa), reshape_symint(b, sb)), out);
}

// linalg_cross(Tensor self, Tensor other, *, int dim=-1) -> Tensor, and cross(Tensor self, Tensor
// other, int? dim=None) -> Tensor, whose dim defaults to self's first dim of size 3:
// c_i = a_{i+1} b_{i+2} - a_{i+2} b_{i+1} (indices mod 3), the other dims broadcast.
void cross_kernel(void*, Frame& f) {
  const char* op = f.op.schema.name.c_str();
  const Tensor a = arg_tensor(f, 0), b = arg_tensor(f, 1);
  CT_CHECK(a->dim() == b->dim(), CT_ERROR_SHAPE, op, ": self ", a->sym_sizes(), " and other ", b->sym_sizes(),
           " must have the same number of dims");
  const int64_t nd = static_cast<int64_t>(a->dim());
  int64_t dim = -1;
  if (f.arg(2).is_none()) {
    for (int64_t d = 0; d < nd && dim < 0; ++d)
      if (a->sym_size(d) == 3) dim = d;
    CT_CHECK(dim >= 0, CT_ERROR_SHAPE, op, ": self ", a->sym_sizes(), " has no dim of size 3. Pass dim");
  } else {
    dim = wrap_dim(op, f.arg(2).to_int(), nd);
  }
  CT_CHECK(nd > 0 && a->sym_size(dim) == 3 && b->sym_size(dim) == 3, CT_ERROR_SHAPE, op, ": dim ", dim, " of self ",
           a->sym_sizes(), " and other ", b->sym_sizes(), " must have size 3");
  CT_CHECK(a->dtype() == b->dtype(), CT_ERROR_DTYPE, op, ": self is ", a->dtype(), " and other ", b->dtype(),
           ". Convert one with to()");
  CT_CHECK(a->dtype() != DType::Bool, CT_ERROR_DTYPE, op, ": bool vectors have no cross product. Convert them with to()");
  // roll(v, -1)[i] = v[i+1], roll(v, -2)[i] = v[i+2]
  const auto shifted = [dim](const Tensor& v, int64_t by) { return roll(v, {-by}, {dim}); };
  f.outs[0] = sub(mul(shifted(a, 1), shifted(b, 2)), mul(shifted(a, 2), shifted(b, 1)));
}

// vander(Tensor x, int? N=None, bool increasing=False) -> Tensor: columns x^(N-1), ..., x, 1 (or
// the reverse), as running products; integers and bool count in int64, as cumprod does.
void vander_kernel(void*, Frame& f) {
  const Tensor x = arg_tensor(f, 0);
  CT_CHECK(x->dim() == 1, CT_ERROR_SHAPE, "vander: x ", x->sym_sizes(), " must be 1-D");
  const int64_t n = f.arg(1).is_none() ? x->sym_size(0).guard_int() : f.arg(1).to_int();
  CT_CHECK(n >= 0, CT_ERROR_INVALID_ARGUMENT, "vander: N is ", n, ". Pass N >= 0");
  const DType dt = is_floating(x->dtype()) ? x->dtype() : DType::Int64;
  const SymInt rows = x->sym_size(0);
  Tensor out = full_symint({rows, SymInt(n > 0 ? 1 : 0)}, Scalar(1), dt, x->device());
  if (n > 1) {
    const Tensor powers = cumprod(expand_symint(unsqueeze(to(x, dt), 1), {rows, SymInt(n - 1)}), 1);
    out = cat({out.impl(), powers.impl()}, 1);
  }
  f.outs[0] = f.arg(2).to_bool() ? out : flip(out, {1});
}

// linalg_vander(Tensor x, *, int? N=None) -> Tensor: x^0 ... x^(N-1) of each element along a new
// last dim (N = x.size(-1) by default), any batch: the running product of [1, x, x, ...], as torch.
void linalg_vander_kernel(void*, Frame& f) {
  const char* op = "linalg.vander";
  const Tensor x = arg_tensor(f, 0);
  CT_CHECK(x->dim() >= 1, CT_ERROR_SHAPE, op, ": x must have at least one dimension, got a 0-dim tensor");
  CT_CHECK(x->dtype() != DType::Bool, CT_ERROR_DTYPE, op, ": x must be a number tensor, got bool. Convert it with to()");
  const int64_t n = f.arg(1).is_none() ? x->sym_size(x->dim() - 1).guard_int() : f.arg(1).to_int();
  CT_CHECK(n > 1, CT_ERROR_INVALID_ARGUMENT, op, ": N must be greater than 1, got ", n);
  SymDimVector sizes(x->sym_sizes());
  sizes.push_back(SymInt(1));
  const Tensor ones = full_symint(sizes.ref(), Scalar(1), x->dtype(), x->device());
  sizes.back() = SymInt(n - 1);
  const Tensor repeated = expand_symint(unsqueeze(x, -1), sizes.ref());
  f.outs[0] = cumprod(cat({ones.impl(), repeated.impl()}, -1), -1);
}

// linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor: input @ weight^T + bias.
void linear_kernel(void*, Frame& f) {
  const Tensor x = arg_tensor(f, 0), w = arg_tensor(f, 1), b = opt_tensor(f, 2);
  CT_CHECK(w->dim() == 1 || w->dim() == 2, CT_ERROR_SHAPE, "linear: weight must be 1-D or 2-D (out, in), got sizes ",
           w->sym_sizes());
  CT_CHECK(x->dim() >= 1, CT_ERROR_SHAPE, "linear: input must have at least 1 dim, got a 0-dim tensor");
  same_dtype("linear", *x, *w);
  if (b.defined()) same_dtype("linear", *x, *b);
  const Tensor wt = w->dim() == 2 ? transpose(w, 0, 1) : w;
  if (x->dim() == 2 && w->dim() == 2 && b.defined()) {
    f.outs[0] = addmm(b, x, wt);
    return;
  }
  Tensor y = matmul(x, wt);
  f.outs[0] = b.defined() ? add(y, b) : y;
}

// bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None) -> Tensor:
// y[..., o] = x1[..., i] W[o, i, j] x2[..., j] + b[o], as x1 W (one mm) then a batch of dots with x2.
void bilinear_kernel(void*, Frame& f) {
  const Tensor x1 = arg_tensor(f, 0), x2 = arg_tensor(f, 1), w = arg_tensor(f, 2), b = opt_tensor(f, 3);
  CT_CHECK(w->dim() == 3, CT_ERROR_SHAPE, "bilinear: weight must be 3-D (out, in1, in2), got sizes ", w->sym_sizes());
  CT_CHECK(x1->dim() >= 1 && x1->dim() == x2->dim(), CT_ERROR_SHAPE, "bilinear: input1 ", x1->sym_sizes(), " and input2 ",
           x2->sym_sizes(), " must have the same number of dims (at least 1)");
  for (size_t d = 0; d + 1 < x1->dim(); ++d)
    CT_CHECK(x1->sym_size(d) == x2->sym_size(d), CT_ERROR_SHAPE, "bilinear: input1 ", x1->sym_sizes(), " and input2 ", x2->sym_sizes(),
             " must agree in every dim but the last");
  // The weight decides the feature sizes: specialized (a guard) when symbolic; the batch may stay symbolic.
  const int64_t o = w->sym_size(0).guard_int(), i = w->sym_size(1).guard_int(), j = w->sym_size(2).guard_int();
  CT_CHECK(x1->sym_size(x1->dim() - 1) == i && x2->sym_size(x2->dim() - 1) == j, CT_ERROR_SHAPE, "bilinear: input1 ",
           x1->sym_sizes(), " and input2 ", x2->sym_sizes(), " do not fit weight ", w->sym_sizes());
  same_dtype("bilinear", *x1, *w);
  same_dtype("bilinear", *x2, *w);
  if (b.defined()) {
    same_dtype("bilinear", *b, *w);
    CT_CHECK(b->dim() == 1 && b->sym_size(0) == o, CT_ERROR_SHAPE, "bilinear: bias must have sizes (", o, "), got ",
             b->sym_sizes());
  }
  SymInt batch = 1;
  SymDimVector out;
  for (size_t d = 0; d + 1 < x1->dim(); ++d) batch = batch * x1->sym_size(d), out.push_back(x1->sym_size(d));
  out.push_back(o);
  const Tensor t = mm(reshape_symint(x1, {batch, i}), reshape(permute(w, {1, 0, 2}), {i, o * j}));  // (B, o*j)
  Tensor y = bmm(reshape_symint(t, {batch, o, j}), reshape_symint(x2, {batch, j, 1}));              // (B, o, 1)
  y = reshape_symint(y, out);
  f.outs[0] = b.defined() ? add(y, b) : y;
}

}  // namespace

void define_linalg_products(Registry& r) {
  r.def("dot(Tensor self, Tensor tensor) -> Tensor").composite(dot_kernel);
  r.def("inner(Tensor self, Tensor other) -> Tensor").composite(inner_kernel);
  r.def("outer(Tensor self, Tensor vec2) -> Tensor").composite(outer_kernel);
  r.def("ger(Tensor self, Tensor vec2) -> Tensor").composite(outer_kernel);
  r.def("addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> Tensor").composite(addr_kernel);
  r.def("mv(Tensor self, Tensor vec) -> Tensor").composite(mv_kernel);
  r.def("addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor")
      .composite(addmv_kernel);
  r.def("baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor")
      .composite(baddbmm_kernel);
  r.def("addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor")
      .composite(addbmm_kernel);
  r.def("tensordot(Tensor self, Tensor other, int[] dims_self, int[] dims_other) -> Tensor")
      .composite(tensordot_kernel);
  r.def("kron(Tensor self, Tensor other) -> Tensor").composite(kron_kernel);
  r.def("linalg_cross(Tensor self, Tensor other, *, int dim=-1) -> Tensor").composite(cross_kernel);
  r.def("cross(Tensor self, Tensor other, int? dim=None) -> Tensor").composite(cross_kernel);
  r.def("vander(Tensor x, int? N=None, bool increasing=False) -> Tensor").composite(vander_kernel);
  r.def("linalg_vander(Tensor x, *, int? N=None) -> Tensor").composite(linalg_vander_kernel);
  r.def("linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor").composite(linear_kernel);
  r.def("bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None) -> Tensor")
      .composite(bilinear_kernel);
}

}  // namespace ct::ops
