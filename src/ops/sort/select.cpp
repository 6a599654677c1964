// select.cpp - kthvalue, median, nanmedian and mode along one dim (and median and nanmedian of
// everything), over sort keys (see Note [Sort keys]): the k-th element of the stable sort order, so
// ties resolve by index. NaN sorts last: median answers NaN for a row holding one, nanmedian the
// lower median of the row's other elements (NaN when there are none).
#include <cmath>
#include <limits>
#include <memory>

#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/sort/rows.h"

namespace ct::ops {
namespace {

using autograd::GradCtx;
using namespace sortrows;

template <typename T>
bool isnan_of(T x) {
  if constexpr (std::is_floating_point<opmath_t<T>>::value) return std::isnan(static_cast<opmath_t<T>>(x));
  else return false;
}

enum class Pick { Kth, Median, NanMedian, Mode };
constexpr const char* pick_name(Pick p) {
  constexpr const char* names[] = {"kthvalue", "median", "nanmedian", "mode"};
  return names[static_cast<int>(p)];
}

// kthvalue(Tensor self, int k, int dim=-1, bool keepdim=False), median.dim(Tensor self, int dim,
// bool keepdim=False), mode(Tensor self, int dim=-1, bool keepdim=False): where dim is.
template <Pick P> constexpr size_t dim_arg() { return P == Pick::Kth ? 2 : 1; }

template <Pick P>
void pick_meta(const Frame& f, MetaResult& m) {
  const char* op = pick_name(P);
  const TensorImpl& a = f.tensor(0);
  const int64_t nd = static_cast<int64_t>(a.dim());
  const int64_t dim = wrap_dim(op, f.arg(dim_arg<P>()).to_int(), nd);
  const SymInt n = nd == 0 ? SymInt(1) : a.sym_size(dim);
  CT_CHECK(P == Pick::Mode || a.dtype() != DType::Bool, CT_ERROR_DTYPE, op, ": bool tensors have no order to select by (input ",
           a.sym_sizes(), "). Convert with to(uint8) first");
  CT_SYM_CHECK(n > 0, CT_ERROR_INDEX, op, ": expected reduction dim ", dim, " to have non-zero size (input ",
               a.sym_sizes(), ")");
  if (P == Pick::Kth) {
    const int64_t k = f.arg(1).to_int();
    CT_SYM_CHECK(sym_all({n >= k, k >= 1}), CT_ERROR_INDEX, "kthvalue: k = ", k, " is out of range for dim ", dim, " of size ", n,
             " (input ", a.sym_sizes(), "). Pass 1 <= k <= ", n);
  }
  SymDimVector sizes;
  for (int64_t d = 0; d < nd; ++d) {
    if (d != dim) sizes.push_back(a.sym_size(d));
    else if (f.arg(dim_arg<P>() + 1).to_bool()) sizes.push_back(1);
  }
  m.compute = a.dtype();
  m.n = 2;
  set_output(m, 0, sizes, a.dtype(), a.device());
  set_output(m, 1, sizes, DType::Int64, a.device());
}

// Mode: the most frequent value, the smallest of equally frequent ones, at its last index (as
// PyTorch's CPU kernel answers).
template <typename T>
int64_t mode_row(const T* row, int64_t n, Scratch<T>& s) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::unique_ptr<T[]> sorted(new T[static_cast<size_t>(n)]);  // not vector: T may be bool
  sort_row(row, n, false, sorted.get(), order.data(), s);
  int64_t best = 0, best_len = 0;
  for (int64_t i = 0; i < n;) {
    int64_t j = i + 1;
    const auto key = sortkey::key(row[order[i]], false);
    while (j < n && sortkey::key(row[order[j]], false) == key) ++j;
    if (j - i > best_len) best_len = j - i, best = order[j - 1];
    i = j;
  }
  return best;
}

template <Pick P>
void pick_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  const int64_t dim = wrap_dim(pick_name(P), f.arg(dim_arg<P>()).to_int(), static_cast<int64_t>(a.dim()));
  if (a.numel() == 0) return;
  const Rows r = rows_along(a, dim);
  const int64_t k = P == Pick::Kth ? f.arg(1).to_int() : (r.n - 1) / 2 + 1;  // the median is the lower one
  visit_dtype(a.dtype(), pick_name(P), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = r.data->data_as<T>();
    T* v = outs[0]->data_as<T>();  // one value per row, in row order: the outputs' own layout
    int64_t* ix = outs[1]->data_as<int64_t>();
    for_rows(r.rows, r.n, [&](int64_t r0, int64_t r1) {
      Scratch<T> s;
      for (int64_t i = r0; i < r1; ++i) {
        const T* row = p + i * r.n;
        int64_t at = -1;
        if (P == Pick::Median)  // median propagates NaN: the first NaN is the answer
          for (int64_t j = 0; j < r.n && at < 0; ++j)
            if (isnan_of(row[j])) at = j;
        if (P == Pick::NanMedian) {  // the lower median of the numbers; NaNs sort after them
          int64_t nans = 0;
          for (int64_t j = 0; j < r.n; ++j) nans += isnan_of(row[j]);
          const int64_t kn = (r.n - nans - 1) / 2 + 1;  // an all-NaN row: its first NaN (C++ truncation)
          select_row(row, r.n, kn, false, false, s);
          at = selected_index(s, r.n, kn - 1);
        }
        if (at < 0) {
          if (P == Pick::Mode) {
            at = mode_row(row, r.n, s);
          } else {
            select_row(row, r.n, k, false, false, s);
            at = selected_index(s, r.n, k - 1);
          }
        }
        v[i] = row[at];
        ix[i] = at;
      }
    });
  });
}

// The values' gradient goes back to the selected elements; their indices are computed again from
// the saved input (see sort.cpp).
template <Pick P>
void pick_backward(GradCtx& c) {
  const Tensor x = c.saved("self");
  const int64_t dim = wrap_dim(pick_name(P), c.arg("dim").to_int(), static_cast<int64_t>(x->dim()));
  const bool keepdim = c.arg("keepdim").to_bool();
  const Tensor indices = P == Pick::Kth      ? kthvalue(x, c.arg("k").to_int(), dim, keepdim)[1]
                         : P == Pick::Median ? median(x, dim, keepdim)[1]
                         : P == Pick::NanMedian ? nanmedian(x, dim, keepdim)[1]
                                             : mode(x, dim, keepdim)[1];
  c.set("self", scatter_back(c.grad(0), dim, indices, x->sizes(), keepdim));
}

// ---- median(Tensor self) -> Tensor: the lower median of every element, NaN if any is NaN;
// nanmedian(Tensor self) -> Tensor: the lower median of the elements that are not NaN.

template <Pick P>
void median_all_meta(const Frame& f, MetaResult& m) {
  const char* op = pick_name(P);
  const TensorImpl& a = f.tensor(0);
  CT_CHECK(a.dtype() != DType::Bool, CT_ERROR_DTYPE, op, ": bool tensors have no order to select by (input ", a.sym_sizes(),
           "). Convert with to(uint8) first");
  CT_CHECK(is_floating(a.dtype()) || a.sym_numel() > 0, CT_ERROR_INDEX, op, ": the input is empty (sizes ", a.sym_sizes(),
           ") and ", a.dtype(), " has no NaN to answer with");
  m.compute = a.dtype();
  set_output(m, 0, {}, a.dtype(), a.device());
}

template <Pick P>
void median_all_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  const Tensor flat = reshape(Tensor::borrow(&a), {a.numel()});
  if (a.numel() == 0) {
    visit_dtype<kFloatingDTypes>(a.dtype(), pick_name(P), [&](auto tag) {
      using T = typename decltype(tag)::type;
      outs[0]->data_as<T>()[0] = T(std::numeric_limits<opmath_t<T>>::quiet_NaN());
    });
    return;
  }
  copy_(outs[0], (P == Pick::Median ? median(flat, 0, false) : nanmedian(flat, 0, false))[0]);
}

// As PyTorch: the gradient is shared evenly by the elements equal to the median (by the NaNs, when
// the median is NaN).
void median_all_backward(GradCtx& c) {
  const Tensor x = c.saved("self");
  const Tensor m = expand(c.result(), x->sizes());
  const Tensor hit = to(where(isnan(m), isnan(x), eq(x, m)), c.grad()->dtype());
  c.set("self", mul(expand(c.grad(), x->sizes()), div(hit, sum(hit, {}, false))));
}

}  // namespace

void define_select(Registry& r) {
  r.def("kthvalue(Tensor self, int k, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)")
      .meta(pick_meta<Pick::Kth>)
      .compute(DispatchKey::CPU, pick_cpu<Pick::Kth>, Determinism::Bitwise)
      .derivative(pick_backward<Pick::Kth>, save("self"));
  r.def("median(Tensor self) -> Tensor")
      .meta(median_all_meta<Pick::Median>)
      .compute(DispatchKey::CPU, median_all_cpu<Pick::Median>, Determinism::Bitwise)
      .derivative(median_all_backward, save_result(save("self")));
  r.def("median.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)")
      .meta(pick_meta<Pick::Median>)
      .compute(DispatchKey::CPU, pick_cpu<Pick::Median>, Determinism::Bitwise)
      .derivative(pick_backward<Pick::Median>, save("self"));
  r.def("nanmedian(Tensor self) -> Tensor")
      .meta(median_all_meta<Pick::NanMedian>)
      .compute(DispatchKey::CPU, median_all_cpu<Pick::NanMedian>, Determinism::Bitwise)
      .derivative(median_all_backward, save_result(save("self")));
  r.def("nanmedian.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)")
      .meta(pick_meta<Pick::NanMedian>)
      .compute(DispatchKey::CPU, pick_cpu<Pick::NanMedian>, Determinism::Bitwise)
      .derivative(pick_backward<Pick::NanMedian>, save("self"));
  r.def("mode(Tensor self, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)")
      .meta(pick_meta<Pick::Mode>)
      .compute(DispatchKey::CPU, pick_cpu<Pick::Mode>, Determinism::Bitwise)
      .derivative(pick_backward<Pick::Mode>, save("self"));
}

}  // namespace ct::ops
