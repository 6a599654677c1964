// scatter_back.cpp - the two index operators the derivatives of sort, topk, kthvalue, median, mode,
// cummax and cummin are written with, each the other's derivative (so those derivatives are twice
// differentiable):
//   value_selecting_reduction_backward(grad, dim, indices, sizes, keepdim): zeros of `sizes` with
//     grad summed in at indices along dim (PyTorch's operator of that name; ctorch adds duplicates,
//     which cummax's indices have);
//   _gather_along_dim(self, dim, index): self's elements at index along dim (torch.gather with an
//     index as large as self in every other dim).
// They are minimal on purpose: the indexing family's scatter_add / gather are the general ones.
#include "autograd/grad_ctx.h"
#include "dispatch/dispatcher.h"
#include "ops/sort/rows.h"

namespace ct::ops {
namespace {

using autograd::GradCtx;
using namespace sortrows;

// Every index of `index` (rows of m) lies in [0, n): checked before anything is written.
void check_indices(const char* op, const Rows& index, int64_t n) {
  const int64_t* ix = index.data->data_as<int64_t>();
  const int64_t total = index.rows * index.n;
  for (int64_t i = 0; i < total; ++i)
    CT_CHECK(ix[i] >= 0 && ix[i] < n, CT_ERROR_INDEX, op, ": index ", ix[i], " is out of range for a dim of size ", n);
}

// Sizes of `t` except dim equal those of `sizes` except dim.
void check_other_dims(const char* op, IntArrayRef t, IntArrayRef sizes, int64_t dim, const char* what) {
  bool ok = t.size() == sizes.size();
  for (size_t d = 0; ok && d < t.size(); ++d) ok = static_cast<int64_t>(d) == dim || t[d] == sizes[d];
  CT_CHECK(ok, CT_ERROR_SHAPE, op, ": ", what, " has sizes ", t, ", which must equal ", sizes, " except in dim ", dim);
}

// ---- value_selecting_reduction_backward(Tensor grad, int dim, Tensor indices, int[] sizes, bool keepdim)

constexpr const char* kScatter = "value_selecting_reduction_backward";

void scatter_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& g = f.tensor(0);
  const TensorImpl& idx = f.tensor(2);
  const IntArrayRef sizes = f.arg(3).int_list();
  const int64_t nd = static_cast<int64_t>(sizes.size());
  const int64_t dim = wrap_dim(kScatter, f.arg(1).to_int(), nd);
  CT_CHECK(idx.dtype() == DType::Int64, CT_ERROR_DTYPE, kScatter, ": indices must be int64, got ", idx.dtype());
  CT_CHECK(idx.sizes().equals(g.sizes()), CT_ERROR_SHAPE, kScatter, ": indices ", idx.sizes(), " and grad ", g.sizes(),
           " must have the same sizes");
  if (nd > 0) {
    DimVector want(g.sizes());
    if (!f.arg(4).to_bool()) want.insert(static_cast<size_t>(dim), sizes[static_cast<size_t>(dim)]);
    check_other_dims(kScatter, want, sizes, dim, "grad");
  }
  m.compute = g.dtype();
  set_output(m, 0, sizes, g.dtype(), g.device());
}

void scatter_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const int64_t nd = static_cast<int64_t>(outs[0]->dim());
  const int64_t dim = wrap_dim(kScatter, f.arg(1).to_int(), nd);
  Tensor g = Tensor::borrow(&f.tensor(0)), idx = Tensor::borrow(&f.tensor(2));
  if (!f.arg(4).to_bool() && nd > 0) g = unsqueeze(g, dim), idx = unsqueeze(idx, dim);
  const Rows rg = rows_along(*g, dim), ri = rows_along(*idx, dim);
  const int64_t n = nd == 0 ? 1 : outs[0]->size(dim);
  check_indices(kScatter, ri, n);
  Rows ro = rg;  // the output's rows: same permutation, n long
  ro.n = n;
  const Tensor ob = row_buffer(outs[0], ro);
  visit_dtype(g->dtype(), kScatter, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = opmath_t<T>;
    const T* gp = rg.data->data_as<T>();
    const int64_t* ip = ri.data->data_as<int64_t>();
    T* op = ob->data_as<T>();
    const int64_t m = rg.n;
    for_rows(rg.rows, m + n, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        T* row = op + r * n;
        std::fill(row, row + n, T(A(0)));
        for (int64_t j = 0; j < m; ++j) {
          T& dst = row[ip[r * m + j]];
          if constexpr (std::is_same<T, bool>::value) dst = dst || gp[r * m + j];
          else dst = T(A(dst) + A(gp[r * m + j]));
        }
      }
    });
  });
  write_back(outs[0], ob, ro);
}

void scatter_backward(GradCtx& c) {
  const int64_t dim = c.arg(1).to_int();
  const bool keepdim = c.arg(4).to_bool();
  const int64_t nd = static_cast<int64_t>(c.arg(3).int_list().size());
  const int64_t w = wrap_dim(kScatter, dim, nd);
  const Tensor gg = c.grad();
  if (nd == 0) {
    c.set(0, gg);
    return;
  }
  Tensor idx = c.saved(2);
  if (!keepdim) idx = unsqueeze(idx, w);
  Tensor r = call(builtin_op("_gather_along_dim"), {gg, w, idx});
  c.set(0, keepdim ? r : squeeze_dim(r, w));
}

// ---- _gather_along_dim(Tensor self, int dim, Tensor index) -> Tensor

constexpr const char* kGather = "_gather_along_dim";

void gather_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  const TensorImpl& idx = f.tensor(2);
  const int64_t dim = wrap_dim(kGather, f.arg(1).to_int(), static_cast<int64_t>(a.dim()));
  CT_CHECK(idx.dtype() == DType::Int64, CT_ERROR_DTYPE, kGather, ": index must be int64, got ", idx.dtype());
  check_other_dims(kGather, idx.sizes(), a.sizes(), dim, "index");
  m.compute = a.dtype();
  set_output(m, 0, idx.sizes(), a.dtype(), a.device());
}

void gather_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  const int64_t dim = wrap_dim(kGather, f.arg(1).to_int(), static_cast<int64_t>(a.dim()));
  const Rows ra = rows_along(a, dim), ri = rows_along(f.tensor(2), dim);
  check_indices(kGather, ri, ra.n);
  const Tensor ob = row_buffer(outs[0], ri);
  visit_dtype(a.dtype(), kGather, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* ap = ra.data->data_as<T>();
    const int64_t* ip = ri.data->data_as<int64_t>();
    T* op = ob->data_as<T>();
    const int64_t n = ra.n, m = ri.n;
    for_rows(ri.rows, m, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t j = 0; j < m; ++j) op[r * m + j] = ap[r * n + ip[r * m + j]];
    });
  });
  write_back(outs[0], ob, ri);
}

void gather_backward(GradCtx& c) {
  const int64_t dim = wrap_dim(kGather, c.arg(1).to_int(), static_cast<int64_t>(c.sizes(0).size()));
  c.set(0, call(builtin_op(kScatter), {c.grad(), dim, c.saved(2), c.sizes(0), true}));
}

}  // namespace

void define_scatter_back(Registry& r) {
  r.def("value_selecting_reduction_backward(Tensor grad, int dim, Tensor indices, int[] sizes, bool keepdim) -> Tensor")
      .meta(scatter_meta)
      .compute(DispatchKey::CPU, scatter_cpu, Determinism::Bitwise)
      .derivative(scatter_backward, save_args(2));
  r.def("_gather_along_dim(Tensor self, int dim, Tensor index) -> Tensor")
      .meta(gather_meta)
      .compute(DispatchKey::CPU, gather_cpu, Determinism::Bitwise)
      .derivative(gather_backward, save_args(2));
}

}  // namespace ct::ops
