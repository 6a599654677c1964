// sort.cpp - sort (always stable), argsort, msort and topk along one dim, over sort keys (see Note [Sort
// keys]): NaN sorts above +inf, ties keep index order, and topk resolves ties toward the smaller
// index. Rows run in parallel; each row's result does not depend on the thread count.
#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/sort/rows.h"

namespace ct::ops {
namespace {

using autograd::GradCtx;
using namespace sortrows;

// sort(Tensor self, int dim=-1, bool descending=False) and
// sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False): where dim and
// descending are.
size_t sort_dim_arg(size_t nargs) { return nargs == 4 ? 2 : 1; }

void sort_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  wrap_dim("sort", f.arg(sort_dim_arg(f.nargs)).to_int(), static_cast<int64_t>(a.dim()));
  m.compute = a.dtype();
  m.n = 2;
  set_output(m, 0, a.sym_sizes(), a.dtype(), a.device());
  set_output(m, 1, a.sym_sizes(), DType::Int64, a.device());
}

void sort_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  const size_t da = sort_dim_arg(f.nargs);
  const int64_t dim = wrap_dim("sort", f.arg(da).to_int(), static_cast<int64_t>(a.dim()));
  const bool descending = f.arg(da + 1).to_bool();
  const Rows r = rows_along(a, dim);
  const Tensor vb = row_buffer(outs[0], r), ib = row_buffer(outs[1], r);
  visit_dtype(a.dtype(), "sort", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = r.data->data_as<T>();
    T* v = vb->data_as<T>();
    int64_t* ix = ib->data_as<int64_t>();
    for_rows(r.rows, r.n, [&](int64_t r0, int64_t r1) {
      Scratch<T> s;
      for (int64_t i = r0; i < r1; ++i) sort_row(p + i * r.n, r.n, descending, v + i * r.n, ix + i * r.n, s);
    });
  });
  write_back(outs[0], vb, r);
  write_back(outs[1], ib, r);
}

// The values' gradient goes back to where each value came from. The indices are computed again
// from the saved input (the same kernel gives the same indices), so the autograd node keeps one
// tensor, the input, rather than both outputs.
int64_t grad_dim(GradCtx& c, const char* op) {
  return wrap_dim(op, c.arg("dim").to_int(), static_cast<int64_t>(c.sizes("self").size()));
}

template <bool Stable>
void sort_backward(GradCtx& c) {
  const int64_t dim = grad_dim(c, "sort");
  const Tensor self = c.saved("self");
  const bool descending = c.arg("descending").to_bool();
  Tensor idx;
  if constexpr (Stable) {
    const Value& stable = c.arg("stable");
    idx = sort(self, stable.is_none() ? std::nullopt : std::optional<bool>(stable.to_bool()), dim, descending)[1];
  } else {
    idx = sort(self, dim, descending)[1];
  }
  c.set("self", scatter_back(c.grad(0), dim, idx, c.sizes("self"), true));
}

// argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor
// argsort.stable(Tensor self, *, bool stable, int dim=-1, bool descending=False) -> Tensor
void argsort_kernel(void*, Frame& f) {
  const size_t da = sort_dim_arg(f.nargs);
  const Value args[] = {f.args[0], f.arg(da), f.arg(da + 1)};
  Tensor outs[2];
  dispatch(builtin_op("sort"), args, 3, outs, 2);
  f.outs[0] = outs[1];
}

// ---- topk(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True)

void topk_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  const SymInt k = f.arg(1).to_symint();
  const int64_t dim = wrap_dim("topk", f.arg(2).to_int(), static_cast<int64_t>(a.dim()));
  const SymInt n = a.dim() == 0 ? SymInt(1) : a.sym_size(dim);
  CT_CHECK(a.dtype() != DType::Bool, CT_ERROR_DTYPE, "topk: bool tensors have no order to select by (input ", a.sym_sizes(),
           "). Convert with to(uint8) first");
  CT_SYM_CHECK(sym_all({k >= 0, k <= n}), CT_ERROR_INDEX, "topk: k = ", k, " is out of range for dim ", dim, " of size ",
               n, " (input ", a.sym_sizes(), "). Pass 0 <= k <= ", n);
  SymDimVector sizes(a.sym_sizes());
  if (a.dim() > 0) sizes[static_cast<size_t>(dim)] = k;
  m.compute = a.dtype();
  m.n = 2;
  set_output(m, 0, sizes, a.dtype(), a.device());
  set_output(m, 1, sizes, DType::Int64, a.device());
}

void topk_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  const int64_t k = f.arg(1).to_int();
  const int64_t dim = wrap_dim("topk", f.arg(2).to_int(), static_cast<int64_t>(a.dim()));
  const bool largest = f.arg(3).to_bool();
  if (k == 0 || a.numel() == 0) return;
  const Rows r = rows_along(a, dim);
  const Tensor vb = row_buffer(outs[0], r), ib = row_buffer(outs[1], r);
  visit_dtype(a.dtype(), "topk", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = r.data->data_as<T>();
    T* v = vb->data_as<T>();
    int64_t* ix = ib->data_as<int64_t>();
    for_rows(r.rows, r.n, [&](int64_t r0, int64_t r1) {
      Scratch<T> s;
      for (int64_t i = r0; i < r1; ++i) {
        const T* row = p + i * r.n;
        // sorted=False may return any order (PyTorch's does not promise one): ctorch sorts anyway,
        // which costs k log k after the selection and makes the result reproducible.
        select_row(row, r.n, k, largest, true, s);
        for (int64_t j = 0; j < k; ++j) {
          const int64_t at = selected_index(s, r.n, j);
          ix[i * k + j] = at;
          v[i * k + j] = row[at];
        }
      }
    });
  });
  write_back(outs[0], vb, r);
  write_back(outs[1], ib, r);
}

void topk_backward(GradCtx& c) {
  const int64_t dim = grad_dim(c, "topk");
  const Tensor idx = topk(c.saved("self"), c.arg("k").to_int(), dim, c.arg("largest").to_bool(),
                          c.arg("sorted").to_bool())[1];
  c.set("self", scatter_back(c.grad(0), dim, idx, c.sizes("self"), true));
}

// msort(Tensor self) -> Tensor: the values of sort along dim 0.
void msort_kernel(void*, Frame& f) { f.outs[0] = sort(Tensor::borrow(&f.tensor(0)), 0, false)[0]; }

}  // namespace

void define_sort(Registry& r) {
  r.def("sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)")
      .meta(sort_meta)
      .compute(DispatchKey::CPU, sort_cpu, Determinism::Bitwise)
      .derivative(sort_backward<false>, save("self"));
  r.def("sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)")
      .meta(sort_meta)
      .compute(DispatchKey::CPU, sort_cpu, Determinism::Bitwise)
      .derivative(sort_backward<true>, save("self"));
  r.def("argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor").composite(argsort_kernel).not_differentiable();
  r.def("argsort.stable(Tensor self, *, bool stable, int dim=-1, bool descending=False) -> Tensor").composite(argsort_kernel).not_differentiable();
  r.def("msort(Tensor self) -> Tensor").composite(msort_kernel);
  r.def("topk(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)")
      .meta(topk_meta)
      .compute(DispatchKey::CPU, topk_cpu, Determinism::Bitwise)
      .derivative(topk_backward, save("self"));
}

}  // namespace ct::ops
