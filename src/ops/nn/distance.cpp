// distance.cpp - distances between vectors: cosine_similarity, pairwise_distance, cdist and dist.
// Composites of the reductions and pointwise operators, with PyTorch's formulas (cdist's matrix-
// product form of the Euclidean distance included, which it picks for large inputs), so their
// derivatives are implicit. float16/bfloat16 inputs of cdist are computed in float32 and rounded
// once, as torch's kernel accumulates.
#include <algorithm>

#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/nn/nn.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

Tensor arg_tensor(const Frame& f, size_t i) { return Tensor::borrow(&f.tensor(i)); }

// cosine_similarity(Tensor x1, Tensor x2, int dim=1, float eps=1e-08): each input divided by its
// norm (at least eps) first, then summed products; the result stays within [-1, 1]. Integer
// inputs are converted to the (floating) promoted dtype.
void cosine_similarity_kernel(void*, Frame& f) {
  Tensor x1 = arg_tensor(f, 0), x2 = arg_tensor(f, 1);
  const DType d = promoted(x1, x2);
  CT_CHECK(is_floating(d), CT_ERROR_DTYPE, "cosine_similarity: x1 ", x1->dtype(), " ", x1->sym_sizes(), " and x2 ",
           x2->dtype(), " ", x2->sym_sizes(), " promote to ", d, ", which is not floating. Convert one with to(float32)");
  if (x1->dtype() != d) x1 = to(x1, d);
  if (x2->dtype() != d) x2 = to(x2, d);
  const SymDimVector shape = broadcast_shapes("cosine_similarity", x1->sym_sizes(), x2->sym_sizes());
  const int64_t dim = wrap_dim("cosine_similarity", f.arg(2).to_int(), static_cast<int64_t>(shape.size()));
  if (!x1->sym_sizes().equals(shape)) x1 = expand_symint(x1, shape);  // each is normalized in the common shape
  if (!x2->sym_sizes().equals(shape)) x2 = expand_symint(x2, shape);
  const double eps = f.arg(3).to_double();
  const std::vector<int64_t> dims{dim};
  const Tensor n1 = clamp_min(linalg_vector_norm(x1, 2, IntArrayRef(dims), true), eps);
  const Tensor n2 = clamp_min(linalg_vector_norm(x2, 2, IntArrayRef(dims), true), eps);
  f.outs[0] = sum(mul(div(x1, n1), div(x2, n2)), IntArrayRef(dims));
}

Tensor pairwise(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  const int64_t out_dim = static_cast<int64_t>(std::max(x1->dim(), x2->dim()));
  const std::vector<int64_t> dims{out_dim - 1};
  return norm(add(sub(x1, x2), Scalar(eps)), Scalar(p), IntArrayRef(dims), keepdim);
}

// pairwise_distance(Tensor x1, Tensor x2, float p=2, float eps=1e-06, bool keepdim=False): the
// p-norm of x1 - x2 + eps over the last dim of the broadcast inputs.
void pairwise_distance_kernel(void*, Frame& f) {
  f.outs[0] = pairwise(arg_tensor(f, 0), arg_tensor(f, 1), f.arg(2).to_double(), f.arg(3).to_double(), f.arg(4).to_bool());
}

// dist(Tensor self, Tensor other, Scalar p=2): the p-norm of self - other, over every element.
void dist_kernel(void*, Frame& f) {
  f.outs[0] = norm(sub(arg_tensor(f, 0), arg_tensor(f, 1)), f.arg(2).to_scalar());
}

// ||a||^2 - 2 a.b + ||b||^2 as one matrix product of [-2a, ||a||^2, 1] and [b, 1, ||b||^2],
// clamped at 0 before the square root: PyTorch's form for many rows.
Tensor euclidean_by_matmul(const Tensor& a, const Tensor& b) {
  const std::vector<int64_t> last{-1};
  const Tensor an = sum(mul(a, a), IntArrayRef(last), true), bn = sum(mul(b, b), IntArrayRef(last), true);
  const Tensor a_pad = ones(an->sizes(), an->dtype(), an->device()), b_pad = ones(bn->sizes(), bn->dtype(), bn->device());
  const Tensor a2 = mul(a, -2);
  const TensorImpl* lhs[] = {a2.impl(), an.impl(), a_pad.impl()};
  const Tensor left = cat(ArrayRef<const TensorImpl*>(lhs, 3), -1);
  const TensorImpl* rhs[] = {b.impl(), b_pad.impl(), bn.impl()};
  const Tensor right = cat(ArrayRef<const TensorImpl*>(rhs, 3), -1);
  return sqrt(clamp_min(matmul(left, transpose(right, -1, -2)), 0));
}

// cdist(Tensor x1, Tensor x2, float p=2, int? compute_mode=None): the p-norm distance of every row
// of x1 [..., P, M] to every row of x2 [..., R, M], batch dims broadcast. compute_mode 0 (None)
// uses the matrix product for p = 2 when P or R exceeds 25, 1 always for p = 2, 2 never.
void cdist_kernel(void*, Frame& f) {
  Tensor x1 = arg_tensor(f, 0), x2 = arg_tensor(f, 1);
  const double p = f.arg(2).to_double();
  const int64_t mode = f.arg(3).is_none() ? 0 : f.arg(3).to_int();
  CT_CHECK(x1->dim() >= 2 && x2->dim() >= 2, CT_ERROR_SHAPE, "cdist: x1 ", x1->sym_sizes(), " and x2 ", x2->sym_sizes(),
           " must each have at least 2 dims (rows, columns)");
  const size_t n1 = x1->dim(), n2 = x2->dim();
  CT_CHECK(x1->sym_size(n1 - 1) == x2->sym_size(n2 - 1), CT_ERROR_SHAPE, "cdist: x1 ", x1->sym_sizes(), " and x2 ",
           x2->sym_sizes(), " must have the same number of columns (last dim)");
  CT_CHECK(is_floating(x1->dtype()) && is_floating(x2->dtype()), CT_ERROR_DTYPE, "cdist: needs floating inputs, got ",
           x1->dtype(), " and ", x2->dtype(), ". Convert with to(float32)");
  CT_CHECK(p >= 0, CT_ERROR_INVALID_ARGUMENT, "cdist: p is ", p, ". Pass p >= 0");
  CT_CHECK(mode >= 0 && mode <= 2, CT_ERROR_INVALID_ARGUMENT, "cdist: compute_mode is ", mode,
           ". Pass 0 (matrix product when rows > 25), 1 (always) or 2 (never)");
  const DType d = promoted(x1, x2);
  const DType work = d == DType::Float16 || d == DType::BFloat16 ? DType::Float32 : d;
  if (x1->dtype() != work) x1 = to(x1, work);
  if (x2->dtype() != work) x2 = to(x2, work);
  const int64_t r1 = x1->sym_size(n1 - 2).guard_int(), r2 = x2->sym_size(n2 - 2).guard_int();
  Tensor out;
  if (p == 2 && (mode == 1 || (mode == 0 && (r1 > 25 || r2 > 25)))) {
    // Batch dims broadcast for the product as for the pairwise form.
    const SymIntArrayRef s1_all = x1->sym_sizes(), s2_all = x2->sym_sizes();
    const SymDimVector batch = broadcast_shapes("cdist", SymIntArrayRef(s1_all.data(), s1_all.size() - 2),
                                                SymIntArrayRef(s2_all.data(), s2_all.size() - 2));
    DimVector s1, s2;
    for (const SymInt& s : batch) s1.push_back(s.guard_int());
    s2 = s1;
    s1.push_back(r1), s1.push_back(x1->sym_size(n1 - 1).guard_int());
    s2.push_back(r2), s2.push_back(x2->sym_size(n2 - 1).guard_int());
    out = euclidean_by_matmul(expand(x1, s1), expand(x2, s2));
  } else {
    const std::vector<int64_t> last{-1};
    out = linalg_vector_norm(sub(unsqueeze(x1, -2), unsqueeze(x2, -3)), Scalar(p), IntArrayRef(last));
  }
  f.outs[0] = out->dtype() == d ? out : to(out, d);
}

}  // namespace

void define_distances(Registry& r) {
  r.def("cosine_similarity(Tensor x1, Tensor x2, int dim=1, float eps=1e-08) -> Tensor").composite(cosine_similarity_kernel);
  r.def("pairwise_distance(Tensor x1, Tensor x2, float p=2, float eps=1e-06, bool keepdim=False) -> Tensor")
      .composite(pairwise_distance_kernel);
  r.def("cdist(Tensor x1, Tensor x2, float p=2, int? compute_mode=None) -> Tensor").composite(cdist_kernel);
  r.def("dist(Tensor self, Tensor other, Scalar p=2) -> Tensor").composite(dist_kernel);
}

}  // namespace ct::ops
