// sort.cpp - CUDA compute for sort, sort.stable, topk, kthvalue, median (.dim and of everything)
// and mode. The sorted dim is moved last and made contiguous ([rows, n]); the table's stable
// radix sort orders each row by Note [Sort keys] (NaN largest, ties by index, so sort and
// sort.stable give the CPU's stable result), and topk / kthvalue / median / mode read the sorted
// rows (sort_select).
#include <limits>

#include "core/error.h"
#include "cuda/kernel_util.h"
#include "cuda/kernels.h"
#include "ops/op_common.h"

namespace ct::cuda {
namespace {

struct RowsView {
  Tensor data;      // contiguous [rows, n] (dims permuted so that dim is last)
  DimVector perm;   // that permutation
  int64_t rows = 1, n = 1;
};

RowsView rows_of(const TensorImpl& a, int64_t dim) {
  RowsView r;
  const int64_t nd = static_cast<int64_t>(a.dim());
  if (nd == 0) {
    r.data = contiguous_as(a, a.dtype());
    return r;
  }
  for (int64_t d = 0; d < nd; ++d)
    if (d != dim) r.perm.push_back(d);
  r.perm.push_back(dim);
  r.data = contiguous_as(*permuted(a, r.perm), a.dtype());
  r.n = a.size(static_cast<size_t>(dim));
  r.rows = r.n == 0 ? 0 : a.numel() / r.n;
  return r;
}

// values / indices of every row, sorted ([rows, n], contiguous). values may be skipped.
void sort_rows(const char* op, const RowsView& r, bool descending, Tensor* values, Tensor& indices) {
  const TensorImpl& x = *r.data;
  indices = empty_on({r.rows, r.n}, DType::Int64, x.device());
  if (values) *values = empty_on({r.rows, r.n}, x.dtype(), x.device());
  if (r.rows * r.n == 0) return;
  CT_CHECK(r.rows * r.n <= INT32_MAX, CT_ERROR_NOT_IMPLEMENTED, op, ": on cuda at most 2^31 - 1 elements, got ",
           r.rows * r.n);
  void* stream = stream_for(x);
  const ct_cuda_driver& d = driver();
  size_t bytes = 0;
  check(d.sort_workspace(code(x.dtype()), r.rows, r.n, &bytes), op);
  const Tensor ws = empty_on({static_cast<int64_t>(bytes)}, DType::UInt8, x.device());
  check(d.sort(code(x.dtype()), descending ? 1 : 0, values ? (*values)->data() : nullptr, indices->data_as<int64_t>(),
               x.data(), r.rows, r.n, ws->data(), bytes, stream),
        op);
}

// Copies the contiguous [rows, k] buffer into out, whose dim (of the original layout) has size k.
void write_rows(const char* op, const TensorImpl& out, const Tensor& buf, const RowsView& r) {
  if (out.numel() == 0) return;
  const Tensor po = r.perm.empty() ? Tensor::borrow(&out) : permuted(out, r.perm);
  const Tensor view = Tensor::adopt(TensorImpl::view_of(*buf, po->sizes(), ct::contiguous_strides(po->sizes()), 0));
  copy_into(op, *po, *view, stream_for(out));
}

int64_t dim_of(const char* op, const Frame& f, size_t i) {
  const TensorImpl& a = f.tensor(0);
  return ops::wrap_dim(op, f.arg(i).to_int(), static_cast<int64_t>(a.dim()));
}

// sort(Tensor self, int dim=-1, bool descending=False), sort.stable(Tensor self, *, bool? stable,
// int dim=-1, bool descending=False)
template <size_t DimArg>
void sort_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  if (a.numel() == 0) return;
  const RowsView r = rows_of(a, dim_of("sort", f, DimArg));
  Tensor v, ix;
  sort_rows("sort", r, f.arg(DimArg + 1).to_bool(), &v, ix);
  write_rows("sort", *outs[0], v, r);
  write_rows("sort", *outs[1], ix, r);
}

// [rows, n] -> its first k columns as a contiguous [rows, k].
Tensor first_columns(const Tensor& t, int64_t k) {
  const Tensor view = Tensor::adopt(TensorImpl::view_of(*t, {t->size(0), k}, {t->size(1), 1}, t->storage_offset()));
  return contiguous_as(*view, t->dtype());
}

// topk(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True): the first k of the
// stable sort (descending when largest), always sorted.
void topk_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  const int64_t k = f.arg(1).to_int();
  if (k == 0 || a.numel() == 0) return;
  const RowsView r = rows_of(a, dim_of("topk", f, 2));
  Tensor v, ix;
  sort_rows("topk", r, f.arg(3).to_bool(), &v, ix);
  write_rows("topk", *outs[0], first_columns(v, k), r);
  write_rows("topk", *outs[1], first_columns(ix, k), r);
}

// kthvalue(Tensor self, int k, int dim=-1, bool keepdim=False), median.dim(Tensor self, int dim,
// bool keepdim=False), mode(Tensor self, int dim=-1, bool keepdim=False).
void pick(const char* op, int mode, const TensorImpl& a, int64_t dim, int64_t k, const TensorImpl& value,
          const TensorImpl* index) {
  const RowsView r = rows_of(a, dim);
  Tensor ix;
  sort_rows(op, r, false, nullptr, ix);
  const DType dt = a.dtype();
  Tensor v = empty_on({r.rows}, dt, a.device()), i = empty_on({r.rows}, DType::Int64, a.device());
  void* stream = stream_for(a);
  check(driver().sort_select(mode, code(dt), v->data(), i->data_as<int64_t>(), r.data->data(), ix->data_as<int64_t>(),
                             r.rows, r.n, k, stream),
        op);
  // One value per row in row order: the outputs' own row-major layout.
  auto store = [&](const TensorImpl& out, const Tensor& buf) {
    const Tensor view = Tensor::adopt(TensorImpl::view_of(*buf, out.sizes(), ct::contiguous_strides(out.sizes()), 0));
    copy_into(op, out, *view, stream);
  };
  store(value, v);
  if (index) store(*index, i);
}

void kthvalue_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  if (a.numel() == 0) return;
  pick("kthvalue", CT_CUDA_SELECT_KTH, a, a.dim() == 0 ? 0 : dim_of("kthvalue", f, 2), f.arg(1).to_int() - 1, *outs[0],
       outs[1].impl());
}
void median_dim_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  if (a.numel() == 0) return;
  const int64_t dim = a.dim() == 0 ? 0 : dim_of("median", f, 1);
  const int64_t n = a.dim() == 0 ? 1 : a.size(static_cast<size_t>(dim));
  pick("median", CT_CUDA_SELECT_MEDIAN, a, dim, (n - 1) / 2, *outs[0], outs[1].impl());
}
void mode_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  if (a.numel() == 0) return;
  pick("mode", CT_CUDA_SELECT_MODE, a, a.dim() == 0 ? 0 : dim_of("mode", f, 1), 0, *outs[0], outs[1].impl());
}

// median(Tensor self): the lower median of every element; NaN for an empty floating input.
void median_all_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  if (a.numel() == 0) return fill("median", *outs[0], Scalar(std::numeric_limits<double>::quiet_NaN()), stream_for(*outs[0]));
  const Tensor flat = contiguous_as(a, a.dtype());
  const Tensor flat1 = Tensor::adopt(TensorImpl::view_of(*flat, {a.numel()}, {1}, flat->storage_offset()));
  pick("median", CT_CUDA_SELECT_MEDIAN, *flat1, 0, (a.numel() - 1) / 2, *outs[0], nullptr);
}

}  // namespace

void register_sort_kernels(Registry& r) {
  set_cuda_compute(r, "sort", sort_cuda<1>);
  set_cuda_compute(r, "sort.stable", sort_cuda<2>);
  set_cuda_compute(r, "topk", topk_cuda);
  set_cuda_compute(r, "kthvalue", kthvalue_cuda);
  set_cuda_compute(r, "median.dim", median_dim_cuda);
  set_cuda_compute(r, "median", median_all_cuda);
  set_cuda_compute(r, "mode", mode_cuda);
}

}  // namespace ct::cuda
