// index.cpp - CUDA compute for the indexing family: index_select, embedding, gather, take (gathers),
// index_copy, index_fill, scatter.src/.value, put (scatters), index_add, scatter_add,
// scatter_reduce.two, put with accumulate (accumulating scatters), masked_fill, masked_scatter.
// Every call is one table `index` over a loop of restrided views (see Note [Indexed kernels] in
// ct_cuda_driver.h): the indexed tensor's view has stride 0 along dim, the index's view stride 0
// everywhere but dim.
//
// Note [CUDA index errors]
// An out-of-range index cannot raise from a kernel, and reading the indices on the host would copy
// them all. Instead the kernel records the first bad value in a 16-byte device flag, and the call
// copies that flag back once after the launch (one small device-to-host copy plus a stream
// synchronization per indexing call: the price of raising CT_ERROR_INDEX with the CPU's message).
//
// Note [CUDA scatter determinism]
// The accumulating scatters (and the plain scatters with repeated destinations) have a fast path
// with atomics and a deterministic path of their own (sort by destination, fold in index order;
// Note [Indexed kernels]). Following Note [Deterministic mode] in dispatcher.cpp, the kernels read
// runtime::deterministic_mode() themselves and take the sorted path whenever it is on (warn-only
// too: a deterministic path exists, so there is nothing to warn about, as in PyTorch, whose
// warn_only mode also selects the deterministic implementations); they are therefore declared
// Deterministic, the determinism of the path deterministic mode gets.
#include <cstring>

#include "core/error.h"
#include "cuda/kernel_util.h"
#include "cuda/kernels.h"
#include "cuda/loop_plan.h"
#include "ops/op_common.h"
#include "runtime/determinism.h"

namespace ct::cuda {
namespace {

bool deterministic() { return runtime::deterministic_mode() != runtime::DeterministicMode::Off; }

DimVector sizes1(const TensorImpl& t) { return t.dim() == 0 ? DimVector{int64_t(1)} : DimVector(t.sizes()); }
DimVector strides1(const TensorImpl& t) { return t.dim() == 0 ? DimVector{int64_t(1)} : DimVector(t.strides()); }

// A view of t with the given sizes and strides (same data).
Tensor restrided(const TensorImpl& t, IntArrayRef sizes, IntArrayRef strides) {
  return Tensor::adopt(TensorImpl::view_of(t, sizes, strides, t.storage_offset()));
}

// t's strides over `shape` with dim's stride 0 (the indexed view); t has shape's rank.
Tensor indexed_view(const TensorImpl& t, IntArrayRef shape, int64_t dim) {
  DimVector st = strides1(t);
  st[static_cast<size_t>(dim)] = 0;
  return restrided(t, shape, st);
}

// A 1-D index (0-dim counts as 1-D) seen over `shape`: its stride along dim, 0 elsewhere.
Tensor index_along(const TensorImpl& index, IntArrayRef shape, int64_t dim) {
  DimVector st(shape.size(), 0);
  st[static_cast<size_t>(dim)] = index.dim() == 0 ? 1 : index.stride(0);
  return restrided(index, shape, st);
}

// Runs one table `index` call and raises for a bad index (Note [CUDA index errors]). dim < 0:
// the message counts the elements of a flattened tensor.
void run_index(const char* op, ct_cuda_index a, const TensorImpl& dst, const TensorImpl& src, const TensorImpl& index,
               int64_t dim) {
  const int64_t n = dst.numel();
  if (n == 0) return;
  CT_CHECK(n <= INT32_MAX, CT_ERROR_NOT_IMPLEMENTED, op, ": on cuda at most 2^31 - 1 positions per call, got ", n);
  void* stream = stream_for(dst);
  const TensorImpl* in[2] = {&src, &index};
  const ct_cuda_loop loop = plan_loop(op, dst, in, 2);
  a.index_dtype = code(index.dtype());
  const ct_cuda_driver& d = driver();
  size_t bytes = 0;
  check(d.index_workspace(&a, &loop, &bytes), op);
  Tensor ws;
  if (bytes) ws = empty_on({static_cast<int64_t>(bytes)}, DType::UInt8, dst.device());
  Tensor err = empty_on({2}, DType::Int64, dst.device());
  check(d.memset_async(err->data(), 0, 16, stream), op);
  check(d.index(&a, dst.data(), src.data(), index.data(), &loop, ws.defined() ? ws->data() : nullptr, bytes,
                err->data_as<int64_t>(), stream),
        op);
  const std::vector<int64_t> host = read_back<int64_t>(op, err->data(), 2, stream);
  if (!host[0]) return;
  const int64_t size = a.size, lo = a.wrap ? -size : 0;
  if (dim < 0)
    fail(CT_ERROR_INDEX, str(op, ": index ", host[1], " is out of range for a tensor of ", size,
                             " elements. Pass indices in [", lo, ", ", size - 1, "]"));
  fail(CT_ERROR_INDEX, str(op, ": index ", host[1], " is out of range for dim ", dim, " of size ", size,
                           ". Pass indices in [", lo, ", ", size - 1, "]"));
}

ct_cuda_index args_for(int op, DType dtype, int indexed, int64_t stride, int64_t size, bool wrap) {
  ct_cuda_index a{};
  a.op = op;
  a.dtype = code(dtype);
  a.indexed = indexed;
  a.indexed_stride = stride;
  a.size = size;
  a.wrap = wrap ? 1 : 0;
  a.include_self = 1;
  a.alpha = 1.0;
  return a;
}

// The working destination of a scatter: out itself when contiguous (after self is copied in), else
// a contiguous copy written back by finish().
struct Dest {
  Tensor out, work;
  void finish() {
    if (work.impl() != out.impl()) copy_into("scatter", *out, *work, stream_for(*out));
  }
};
Dest dest_for(const TensorImpl& self, const Tensor& out) {
  void* stream = stream_for(*out);
  if (out.impl() != &self) copy_into("scatter", *out, self, stream);
  Dest d{out, out};
  if (!out->is_contiguous()) {
    d.work = empty_on(out->sizes(), out->dtype(), out->device());
    copy_into("scatter", *d.work, *out, stream);
  }
  return d;
}

// A 0-dim device tensor of dtype d holding v.
Tensor value_tensor(const Scalar& v, DType d, Device dev) {
  Tensor t = empty_on({}, d, dev);
  fill("index", *t, v, stream_for(*t));
  return t;
}
Scalar scalar_of(const Frame& f, size_t i) {
  if (!f.arg(i).is_tensor()) return f.arg(i).to_scalar();
  // A value tensor on the device is read back: a wait, as PyTorch's masked_fill with one does.
  return host_scalar(*ops::host_contiguous(Tensor::borrow(&f.tensor(i))));
}

int64_t wrap1(const char* op, int64_t dim, const TensorImpl& t) {
  return ops::wrap_dim(op, dim, std::max<int64_t>(1, static_cast<int64_t>(t.dim())));
}

// ---- Gathers

// index_select(Tensor self, int dim, Tensor index)
void select_into(const char* op, const TensorImpl& out, const TensorImpl& self, int64_t dim, const TensorImpl& index) {
  const DimVector shape = sizes1(out);
  const Tensor o = restrided(out, shape, strides1(out));
  run_index(op, args_for(CT_CUDA_INDEX_COPY, self.dtype(), 1, strides1(self)[dim], sizes1(self)[dim], false), *o,
            *indexed_view(self, shape, dim), *index_along(index, shape, dim), dim);
}
void index_select_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& self = f.tensor(0);
  select_into("index_select", *outs[0], self, wrap1("index_select", f.arg(1).to_int(), self), f.tensor(2));
}

// embedding(Tensor weight, Tensor indices, ...): rows of weight, out [indices..., features].
void embedding_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& w = f.tensor(0);
  const TensorImpl& idx = f.tensor(1);
  const Tensor flat = contiguous_as(idx, idx.dtype());
  const Tensor flat1 = restrided(*flat, {idx.numel()}, {1});
  const Tensor out = restrided(*outs[0], {idx.numel(), w.size(1)}, {w.size(1), 1});
  select_into("embedding", *out, w, 0, *flat1);
}

// gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False)
void gather_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& self = f.tensor(0);
  const TensorImpl& index = f.tensor(2);
  const int64_t dim = wrap1("gather", f.arg(1).to_int(), self);
  const DimVector shape = sizes1(index);
  run_index("gather", args_for(CT_CUDA_INDEX_COPY, self.dtype(), 1, strides1(self)[dim], sizes1(self)[dim], false),
            *restrided(*outs[0], shape, strides1(*outs[0])), *indexed_view(self, shape, dim),
            *restrided(index, shape, strides1(index)), dim);
}

// take(Tensor self, Tensor index): self flattened (row-major), negative indices wrap.
void take_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& self = f.tensor(0);
  const TensorImpl& index = f.tensor(1);
  const Tensor flat = contiguous_as(self, self.dtype());
  const DimVector shape = sizes1(index);
  const DimVector zero(shape.size(), 0);
  run_index("take", args_for(CT_CUDA_INDEX_COPY, self.dtype(), 1, 1, self.numel(), true),
            *restrided(*outs[0], shape, strides1(*outs[0])), *restrided(*flat, shape, zero),
            *restrided(index, shape, strides1(index)), -1);
}

// ---- Scatters along dim: the loop runs over `shape` (index's, or source's for index_add/copy).

// scatter.src / scatter.value / scatter_add / scatter_reduce.two (Tensor self, int dim, Tensor
// index, src-or-value, ...)
void scatter_common(const char* op, const Frame& f, Tensor* outs, int iop, bool include_self) {
  const TensorImpl& self = f.tensor(0);
  const TensorImpl& index = f.tensor(2);
  const int64_t dim = wrap1(op, f.arg(1).to_int(), self);
  Dest d = dest_for(self, outs[0]);
  const DimVector shape = sizes1(index);
  ct_cuda_index a = args_for(iop, self.dtype(), 0, strides1(*d.work)[dim], sizes1(*d.work)[dim], false);
  a.include_self = include_self ? 1 : 0;
  a.dst_numel = d.work->numel();
  Tensor src;
  if (f.arg(3).is_tensor()) {
    src = restrided(f.tensor(3), shape, strides1(f.tensor(3)));
    a.deterministic = deterministic() ? 1 : 0;
  } else {
    const Tensor v = value_tensor(f.arg(3).to_scalar(), self.dtype(), self.device());
    src = restrided(*v, shape, DimVector(shape.size(), 0));
  }
  run_index(op, a, *indexed_view(*d.work, shape, dim), *src, *restrided(index, shape, strides1(index)), dim);
  d.finish();
}
void scatter_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  scatter_common("scatter", f, outs, CT_CUDA_INDEX_COPY, true);
}
void scatter_add_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  scatter_common("scatter_add", f, outs, CT_CUDA_INDEX_ADD, true);
}
// scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True)
void scatter_reduce_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const std::string r = f.arg(4).str();
  const int op = r == "sum" ? CT_CUDA_INDEX_ADD : r == "prod" ? CT_CUDA_INDEX_PROD : r == "mean" ? CT_CUDA_INDEX_MEAN
               : r == "amax" ? CT_CUDA_INDEX_AMAX : CT_CUDA_INDEX_AMIN;  // the meta checked the name and dtype
  scatter_common("scatter_reduce", f, outs, op, f.arg(5).to_bool());
}

// index_add / index_copy (Tensor self, int dim, Tensor index, Tensor source[, alpha]): the loop
// runs over source, dst moved along dim by index[j].
void along_common(const char* op, const Frame& f, Tensor* outs, int iop) {
  const TensorImpl& self = f.tensor(0);
  const TensorImpl& index = f.tensor(2);
  const TensorImpl& source = f.tensor(3);
  const int64_t dim = wrap1(op, f.arg(1).to_int(), self);
  Dest d = dest_for(self, outs[0]);
  const DimVector shape = sizes1(source);
  ct_cuda_index a = args_for(iop, self.dtype(), 0, strides1(*d.work)[dim], sizes1(*d.work)[dim], false);
  a.dst_numel = d.work->numel();
  a.deterministic = deterministic() ? 1 : 0;
  if (iop == CT_CUDA_INDEX_ADD) a.alpha = f.arg(4).to_double();
  const Tensor src = source.dtype() == self.dtype() ? Tensor::borrow(&source) : contiguous_as(source, self.dtype());
  run_index(op, a, *indexed_view(*d.work, shape, dim), *restrided(*src, shape, strides1(*src)),
            *index_along(index, shape, dim), dim);
  d.finish();
}
void index_add_cuda(const Frame& f, const MetaResult&, Tensor* outs) { along_common("index_add", f, outs, CT_CUDA_INDEX_ADD); }
void index_copy_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  along_common("index_copy", f, outs, CT_CUDA_INDEX_COPY);
}

// index_fill.int_Scalar / .int_Tensor (Tensor self, int dim, Tensor index, value): negative
// indices wrap, as on the cpu.
void index_fill_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& self = f.tensor(0);
  const TensorImpl& index = f.tensor(2);
  const int64_t dim = wrap1("index_fill", f.arg(1).to_int(), self);
  Dest d = dest_for(self, outs[0]);
  DimVector shape = sizes1(self);
  shape[static_cast<size_t>(dim)] = index.numel();
  const Tensor v = value_tensor(scalar_of(f, 3), self.dtype(), self.device());
  ct_cuda_index a = args_for(CT_CUDA_INDEX_COPY, self.dtype(), 0, strides1(*d.work)[dim], sizes1(*d.work)[dim], true);
  a.dst_numel = d.work->numel();
  const Tensor idx = contiguous_as(index, index.dtype());
  run_index("index_fill", a, *indexed_view(*d.work, shape, dim), *restrided(*v, shape, DimVector(shape.size(), 0)),
            *index_along(*restrided(*idx, {index.numel()}, {1}), shape, dim), dim);
  d.finish();
}

// put(Tensor self, Tensor index, Tensor source, bool accumulate=False): self flattened.
void put_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& self = f.tensor(0);
  const TensorImpl& index = f.tensor(1);
  const bool accumulate = f.arg(3).to_bool();
  Dest d = dest_for(self, outs[0]);
  const DimVector shape = sizes1(index);
  const Tensor src = contiguous_as(f.tensor(2), self.dtype());
  ct_cuda_index a = args_for(accumulate ? CT_CUDA_INDEX_ADD : CT_CUDA_INDEX_COPY, self.dtype(), 0, 1,
                             d.work->numel(), true);
  a.dst_numel = d.work->numel();
  a.deterministic = deterministic() ? 1 : 0;
  run_index("put", a, *restrided(*d.work, shape, DimVector(shape.size(), 0)),
            *restrided(*src, shape, ct::contiguous_strides(shape)), *restrided(index, shape, strides1(index)), -1);
  d.finish();
}

// ---- Masks

// masked_fill.Scalar / .Tensor (Tensor self, Tensor mask, value): where(mask, value, self).
void masked_fill_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  if (out.numel() == 0) return;
  void* stream = stream_for(out);
  const TensorImpl& self = f.tensor(0);
  Tensor hm, hs;
  const TensorImpl* mask = on_device("masked_fill", f.tensor(1), out.device(), stream, hm);
  const TensorImpl* s = on_device("masked_fill", self, out.device(), stream, hs);
  // An in-place call (out is self) reads and writes the same elements: fine for the loop.
  const Tensor v = value_tensor(scalar_of(f, 2), out.dtype(), out.device());
  const TensorImpl* in[3] = {mask, v.impl(), s};
  const ct_cuda_loop loop = plan_loop("masked_fill", out, in, 3);
  check(driver().where(code(out.dtype()), code(mask->dtype()), code(out.dtype()), code(s->dtype()), out.data(),
                       mask->data(), v->data(), s->data(), &loop, stream),
        "masked_fill");
}

// masked_scatter(Tensor self, Tensor mask, Tensor source): source's elements in order, one per true
// element of the (broadcast) mask.
void masked_scatter_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& self = f.tensor(0);
  Dest d = dest_for(self, outs[0]);
  const int64_t n = d.work->numel();
  if (n == 0) return;
  void* stream = stream_for(*d.work);
  const TensorImpl& m = f.tensor(1);
  DimVector st(d.work->dim(), 0);
  const int64_t off = static_cast<int64_t>(d.work->dim()) - static_cast<int64_t>(m.dim());
  for (size_t k = 0; k < m.dim(); ++k)
    st[static_cast<size_t>(off) + k] = m.size(k) == 1 ? 0 : m.stride(k);
  const Tensor mask = contiguous_as(*restrided(m, d.work->sizes(), st), DType::Bool);
  const Tensor src = contiguous_as(f.tensor(2), self.dtype());
  const ct_cuda_driver& dr = driver();
  size_t bytes = 0;
  check(dr.masked_scatter_workspace(n, &bytes), "masked_scatter");
  const Tensor ws = empty_on({static_cast<int64_t>(bytes)}, DType::UInt8, d.work->device());
  Tensor err = empty_on({2}, DType::Int64, d.work->device());
  check(dr.memset_async(err->data(), 0, 16, stream), "masked_scatter");
  check(dr.masked_scatter(code(self.dtype()), d.work->data(), mask->data(), src->data(), n, src->numel(), ws->data(),
                          bytes, err->data_as<int64_t>(), stream),
        "masked_scatter");
  const std::vector<int64_t> host = read_back<int64_t>("masked_scatter", err->data(), 2, stream);
  CT_CHECK(!host[0], CT_ERROR_INDEX, "masked_scatter: the mask has ", host[1], " true elements but source ",
           f.tensor(2).sizes(), " has only ", src->numel(), ". Give source at least as many elements");
  d.finish();
}

}  // namespace

void register_index_kernels(Registry& r) {
  set_cuda_compute(r, "index_select", index_select_cuda);
  set_cuda_compute(r, "embedding", embedding_cuda);
  set_cuda_compute(r, "gather", gather_cuda);
  set_cuda_compute(r, "take", take_cuda);
  set_cuda_compute(r, "scatter.src", scatter_cuda);
  set_cuda_compute(r, "scatter.value", scatter_cuda);
  set_cuda_compute(r, "scatter_add", scatter_add_cuda);
  set_cuda_compute(r, "scatter_reduce.two", scatter_reduce_cuda);
  set_cuda_compute(r, "index_add", index_add_cuda);
  set_cuda_compute(r, "index_copy", index_copy_cuda);
  set_cuda_compute(r, "index_fill.int_Scalar", index_fill_cuda);
  set_cuda_compute(r, "index_fill.int_Tensor", index_fill_cuda);
  set_cuda_compute(r, "put", put_cuda);
  set_cuda_compute(r, "masked_fill.Scalar", masked_fill_cuda);
  set_cuda_compute(r, "masked_fill.Tensor", masked_fill_cuda);
  set_cuda_compute(r, "masked_scatter", masked_scatter_cuda);
}

}  // namespace ct::cuda
