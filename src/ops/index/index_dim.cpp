// index_dim.cpp - operators indexing one dim with a 1-D index: index_select, index_add, index_copy,
// index_fill. Loops: see Note [Indexing loops].
#include <cstdlib>
#include <cstring>

#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/cpu/cast.h"
#include "ops/cpu/isa.h"
#include "ops/functions.h"
#include "ops/index/index_common.h"
#include "ops/op_common.h"

#if CT_HAVE_AVX2_KERNELS
#include <immintrin.h>
#endif

namespace ct::ops {

using indexing::LoopOperand;

namespace {

// Note [Gathering rows]
// index_select along a tensor's outermost dim of size > 1, with the rows (the elements after dim)
// dense in self and out - an embedding lookup, or picking samples from a batch - copies one row per
// index entry with memcpy. It moves bytes only, so one loop serves every dtype. Rows of a table
// larger than the L2 cache come from memory in random order; they are asked for kAhead entries
// early. Threads split the index entries (each output row is written once, by one thread, so the
// bytes do not depend on the thread count) in chunks of at least kGatherGrainBytes: a lookup of a
// few rows stays on the calling thread whatever the row count.
constexpr int64_t kGatherGrainBytes = int64_t(256) << 10;
constexpr int64_t kGatherPrefetchSpan = int64_t(2) << 20;
// Below this many bytes a row is not worth a memcpy call: the general loop copies elements.
constexpr int64_t kGatherMinRowBytes = 16;

#if CT_HAVE_AVX2_KERNELS
// Rows of whole 32-byte vectors from a table in cache, with no call per row: a 256-byte row takes
// about 5.5 ns against memcpy's 6 (2048 rows of 64 float32: 11.4 us against 12.4).
CT_TARGET_AVX2 void gather_rows_avx2(char* out, int64_t os, const char* self, int64_t ss, const int64_t* ix,
                                     int64_t j0, int64_t j1, int64_t row_bytes) {
  for (int64_t j = j0; j < j1; ++j) {
    const char* src = self + ix[j] * ss;
    char* dst = out + j * os;
    for (int64_t b = 0; b < row_bytes; b += 32)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + b), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + b)));
  }
}
#endif

bool gather_rows(const Tensor& out, const TensorImpl& self, int64_t dim, const Tensor& idx) {
  const int64_t nd = static_cast<int64_t>(self.dim());
  if (nd == 0 || out->dim() != self.dim()) return false;
  for (int64_t d = 0; d < dim; ++d)
    if (self.size(d) != 1) return false;
  const int64_t item = static_cast<int64_t>(itemsize(self.dtype()));
  int64_t row = 1;  // elements
  for (int64_t d = nd - 1; d > dim; --d) {
    if (self.size(d) != 1 && (self.stride(d) != row || out->stride(d) != row)) return false;
    row *= self.size(d);
  }
  const int64_t row_bytes = row * item;
  if (row_bytes < kGatherMinRowBytes) return false;
  char* const o = static_cast<char*>(out->data());
  const char* const s = static_cast<const char*>(self.data());
  const int64_t* const ix = idx->data_as<const int64_t>();
  const int64_t n = idx->numel(), os = out->stride(dim) * item, ss = self.stride(dim) * item;
  const bool prefetch = self.size(dim) * std::abs(ss) > kGatherPrefetchSpan;
  [[maybe_unused]] const bool avx2 = CT_HAVE_AVX2_KERNELS && !prefetch && row_bytes % 32 == 0 && cpu::has_avx2();
  auto run = [=](int64_t j0, int64_t j1) {
#if CT_HAVE_AVX2_KERNELS
    if (avx2) return gather_rows_avx2(o, os, s, ss, ix, j0, j1, row_bytes);
#endif
    constexpr int64_t kAhead = 8;
    char* dst = o + j0 * os;
    for (int64_t j = j0; j < j1; ++j, dst += os) {
      if (prefetch && j + kAhead < j1) {
        const char* next = s + ix[j + kAhead] * ss;
        for (int64_t b = 0; b < row_bytes; b += 64) __builtin_prefetch(next + b);
      }
      std::memcpy(dst, s + ix[j] * ss, static_cast<size_t>(row_bytes));
    }
  };
  if (n * row_bytes < 2 * kGatherGrainBytes || cpu::get_num_threads() == 1) run(0, n);
  else cpu::parallel_for(0, n, std::max<int64_t>(1, kGatherGrainBytes / row_bytes), run);
  return true;
}

}  // namespace

void indexing::index_select_into(const Tensor& out, const TensorImpl& self, int64_t dim, const Tensor& idx) {
  if (out->numel() == 0) return;
  if (gather_rows(out, self, dim, idx)) return;
  const DimVector shape = sizes_1d(*out);
  DimVector ss = strides_1d(self);
  const int64_t self_dim_stride = ss[dim];
  ss[dim] = 0;
  DimVector is;
  is.resize(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) is[d] = static_cast<int64_t>(d) == dim ? 1 : 0;
  const LoopOperand ops[3] = {{static_cast<char*>(out->data()), strides_1d(*out)},
                              {static_cast<char*>(self.data()), ss},
                              {static_cast<char*>(idx->data()), is}};
  const indexing::DimLoop L = indexing::make_dim_loop(shape, dim, ops, 3);
  visit_dtype<kAllDTypesAndComplex>(self.dtype(), "index_select", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = reinterpret_cast<T*>(L.base[0]);
    const T* s = reinterpret_cast<const T*>(L.base[1]);
    const int64_t* ix = reinterpret_cast<const int64_t*>(L.base[2]);
    indexing::run_dim_loop(L, true, [&](const int64_t* off, int64_t len, const int64_t* st) {
      if (st[2] != 0) {  // along dim: a new index entry per element
        for (int64_t e = 0; e < len; ++e)
          o[off[0] + e * st[0]] = s[off[1] + e * st[1] + ix[off[2] + e * st[2]] * self_dim_stride];
        return;
      }
      const T* src = s + off[1] + ix[off[2]] * self_dim_stride;
      T* dst = o + off[0];
      if (st[0] == 1 && st[1] == 1) std::memcpy(static_cast<void*>(dst), src, static_cast<size_t>(len) * sizeof(T));
      else for (int64_t e = 0; e < len; ++e) dst[e * st[0]] = src[e * st[1]];
    });
  });
}

namespace {

using indexing::check_index_dtype;
using indexing::checked_index;
using indexing::sizes_1d;
using indexing::sym_sizes_1d;
using indexing::strides_1d;

int64_t dim_arg(const char* op, const Frame& f, size_t i, const TensorImpl& self) {
  return wrap_dim(op, f.arg(i).to_int(), std::max<int64_t>(1, static_cast<int64_t>(self.dim())));
}

void check_index_vector(const char* op, const TensorImpl& index) {
  CT_CHECK(index.dim() <= 1, CT_ERROR_SHAPE, op, ": index must be 0-D or 1-D, got ", index.sym_sizes(),
           ". Flatten it, or use gather for an index per element");
}

// index_select(Tensor self, int dim, Tensor index) -> Tensor
void index_select_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& self = f.tensor(0);
  const TensorImpl& index = f.tensor(2);
  const int64_t dim = dim_arg("index_select", f, 1, self);
  check_index_dtype("index_select", index, true);
  check_index_vector("index_select", index);
  m.compute = self.dtype();
  SymDimVector s(self.sym_sizes());
  if (self.dim() > 0) s[dim] = index.sym_numel();
  set_output(m, 0, s, self.dtype(), common_device(f));
}

void index_select_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& self = f.tensor(0);
  const int64_t dim = dim_arg("index_select", f, 1, self);
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  const Tensor idx = checked_index("index_select", f.tensor(2), size, dim, false);
  if (self.dim() == 0) {  // torch keeps the 0-dim shape whatever the index's length
    indexing::copy_into(outs[0], self);
    return;
  }
  indexing::index_select_into(outs[0], self, dim, idx);
}

// Shared checks of index_add and index_copy: source has self's sizes except along dim, where it
// has one slice per index entry.
void check_source(const char* op, const TensorImpl& self, const TensorImpl& index, const TensorImpl& source,
                  int64_t dim) {
  CT_CHECK(source.dtype() == self.dtype(), CT_ERROR_DTYPE, op, ": self (", self.dtype(), ") and source (",
           source.dtype(), ") must have the same dtype. Convert source with to()");
  const SymDimVector ss = sym_sizes_1d(self), rs = sym_sizes_1d(source);
  bool ok = ss.size() == rs.size() || (self.dim() <= 1 && source.dim() <= 1);
  for (size_t d = 0; ok && d < ss.size(); ++d)
    ok = static_cast<bool>(static_cast<int64_t>(d) == dim ? rs[d] == index.sym_numel() : rs[d] == ss[d]);
  CT_CHECK(ok, CT_ERROR_SHAPE, op, ": source ", source.sym_sizes(), " must have self's sizes ", self.sym_sizes(),
           " except in dim ", dim, ", where it needs one slice per index entry (", index.sym_numel(), "). Fix the shapes");
}

void along_meta(const char* op, bool int32_ok, const Frame& f, MetaResult& m) {
  const TensorImpl& self = f.tensor(0);
  const TensorImpl& index = f.tensor(2);
  const int64_t dim = dim_arg(op, f, 1, self);
  check_index_dtype(op, index, int32_ok);
  check_index_vector(op, index);
  check_source(op, self, index, f.tensor(3), dim);
  m.compute = self.dtype();
  set_output(m, 0, self.sym_sizes(), self.dtype(), common_device(f));
}

// index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor
void index_add_meta(const Frame& f, MetaResult& m) { along_meta("index_add", true, f, m); }
// index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor
void index_copy_meta(const Frame& f, MetaResult& m) { along_meta("index_copy", false, f, m); }

// Walks source; the destination element is out at the index entry's position along dim.
template <typename F>
void along_source(const char* op, const Frame& f, const Tensor& out, const F& body) {
  const TensorImpl& self = f.tensor(0);
  const TensorImpl& source = f.tensor(3);
  const int64_t dim = dim_arg(op, f, 1, self);
  const Tensor idx = checked_index(op, f.tensor(2), sizes_1d(self)[dim], dim, false);
  indexing::copy_into(out, self);
  if (source.numel() == 0) return;
  const DimVector shape = sizes_1d(source);
  DimVector os = strides_1d(*out);
  const int64_t out_dim_stride = os[dim];
  os[dim] = 0;
  DimVector is;
  is.resize(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) is[d] = static_cast<int64_t>(d) == dim ? 1 : 0;
  const LoopOperand ops[3] = {{static_cast<char*>(out->data()), os},
                              {static_cast<char*>(source.data()), strides_1d(source)},
                              {static_cast<char*>(idx->data()), is}};
  const indexing::DimLoop L = indexing::make_dim_loop(shape, dim, ops, 3);
  body(L, out_dim_stride);
}

void index_add_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  along_source("index_add", f, outs[0], [&](const indexing::DimLoop& L, int64_t ods) {
    visit_dtype<kAllDTypesAndComplex>(f.tensor(0).dtype(), "index_add", [&](auto tag) {
      using T = typename decltype(tag)::type;
      using M = opmath_t<T>;
      const M alpha = f.arg(4).to_scalar().template to<M>();
      T* o = reinterpret_cast<T*>(L.base[0]);
      const T* s = reinterpret_cast<const T*>(L.base[1]);
      const int64_t* ix = reinterpret_cast<const int64_t*>(L.base[2]);
      // Units own whole destination elements; see Note [Indexing loops].
      auto add = [alpha](T& d, T x) {
        if constexpr (std::is_same<T, bool>::value) d = d || (alpha && x);
        else d = T(M(d) + alpha * M(x));
      };
      const int64_t rows = indexing::sizes_1d(*outs[0])[wrap_dim("index_add", f.arg(1).to_int(),
                                                                std::max<int64_t>(1, outs[0]->dim()))];
      const int64_t n = L.n, len = L.inner, st0 = L.inner_stride[0], st1 = L.inner_stride[1];
      if (L.outer == 1 && !L.dim_innermost && n * len >= cpu::kElementwiseGrain && rows > 1) {
        // Whole rows per index entry (the common [rows, features] case): each thread owns a range of
        // destination rows and walks the whole index in order, adding the entries that land in its
        // range. Every row is still summed in index order by one thread (bitwise for any thread
        // count), and each source row is read by one thread only.
        cpu::parallel_for(0, rows, 1, [&](int64_t r0, int64_t r1) {
          const int64_t ist = L.dim_stride[2];
          constexpr int64_t kAhead = 8;  // destination rows are random: ask for them early
          for (int64_t j = 0; j < n; ++j) {
            if (j + kAhead < n) {
              const int64_t tn = ix[(j + kAhead) * ist];
              if (tn >= r0 && tn < r1) {
                // This thread skips the other threads' entries, so its source reads are not a
                // stream the hardware detects: ask for those rows too.
                const T* next = o + L.offsets[0] + tn * ods;
                const T* next_src = s + L.offsets[1] + (j + kAhead) * L.dim_stride[1];
                for (int64_t e = 0; e < len * st0; e += 64 / static_cast<int64_t>(sizeof(T)))
                  __builtin_prefetch(next + e, 1);
                for (int64_t e = 0; e < len * st1; e += 64 / static_cast<int64_t>(sizeof(T)))
                  __builtin_prefetch(next_src + e);
              }
            }
            const int64_t t = ix[j * ist];
            if (t < r0 || t >= r1) continue;
            T* __restrict__ dst = o + L.offsets[0] + t * ods;
            const T* __restrict__ src = s + L.offsets[1] + j * L.dim_stride[1];
            if (st0 == 1 && st1 == 1) for (int64_t e = 0; e < len; ++e) add(dst[e], src[e]);
            else for (int64_t e = 0; e < len; ++e) add(dst[e * st0], src[e * st1]);
          }
        });
        return;
      }
      indexing::run_dim_loop(L, false, [&](const int64_t* off, int64_t len, const int64_t* st) {
        if (st[2] != 0) {
          for (int64_t e = 0; e < len; ++e)
            add(o[off[0] + e * st[0] + ix[off[2] + e * st[2]] * ods], s[off[1] + e * st[1]]);
          return;
        }
        T* __restrict__ dst = o + off[0] + ix[off[2]] * ods;
        const T* __restrict__ src = s + off[1];
        if (st[0] == 1 && st[1] == 1) for (int64_t e = 0; e < len; ++e) add(dst[e], src[e]);
        else for (int64_t e = 0; e < len; ++e) add(dst[e * st[0]], src[e * st[1]]);
      });
    });
  });
}

void index_copy_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  along_source("index_copy", f, outs[0], [&](const indexing::DimLoop& L, int64_t ods) {
    visit_dtype<kAllDTypesAndComplex>(f.tensor(0).dtype(), "index_copy", [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* o = reinterpret_cast<T*>(L.base[0]);
      const T* s = reinterpret_cast<const T*>(L.base[1]);
      const int64_t* ix = reinterpret_cast<const int64_t*>(L.base[2]);
      // A repeated index keeps the last entry's slice, the same on every run.
      indexing::run_dim_loop(L, false, indexing::each([&](const int64_t* off) { o[off[0] + ix[off[2]] * ods] = s[off[1]]; }));
    });
  });
}

// index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor
// index_fill.int_Tensor(Tensor self, int dim, Tensor index, Tensor value) -> Tensor
void index_fill_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& self = f.tensor(0);
  const TensorImpl& index = f.tensor(2);
  dim_arg("index_fill", f, 1, self);
  check_index_dtype("index_fill", index, false);
  check_index_vector("index_fill", index);
  indexing::check_fill_value("index_fill", f, 3, self);
  m.compute = self.dtype();
  set_output(m, 0, self.sym_sizes(), self.dtype(), self.device());
}

void index_fill_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& self = f.tensor(0);
  const int64_t dim = dim_arg("index_fill", f, 1, self);
  const DimVector ss = sizes_1d(self);
  const Tensor idx = checked_index("index_fill", f.tensor(2), ss[dim], dim, true);
  indexing::copy_into(outs[0], self);
  DimVector shape(ss);
  shape[dim] = idx->numel();
  DimVector os = strides_1d(*outs[0]);
  const int64_t ods = os[dim];
  os[dim] = 0;
  DimVector is;
  is.resize(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) is[d] = static_cast<int64_t>(d) == dim ? 1 : 0;
  const LoopOperand ops[2] = {{static_cast<char*>(outs[0]->data()), os}, {static_cast<char*>(idx->data()), is}};
  const indexing::DimLoop L = indexing::make_dim_loop(shape, dim, ops, 2);
  visit_dtype<kAllDTypesAndComplex>(self.dtype(), "index_fill", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = indexing::fill_value<T>(f, 3);
    T* o = reinterpret_cast<T*>(L.base[0]);
    const int64_t* ix = reinterpret_cast<const int64_t*>(L.base[1]);
    indexing::run_dim_loop(L, false, indexing::each([&](const int64_t* off) { o[off[0] + ix[off[1]] * ods] = v; }));
  });
}

// ---- Derivatives
using autograd::GradCtx;

int64_t grad_dim(GradCtx& c, const char* op) {
  return wrap_dim(op, c.arg("dim").to_int(), std::max<int64_t>(1, static_cast<int64_t>(c.sizes("self").size())));
}

// Each selected slice's gradient goes back to where it came from, repeated entries adding up.
void index_select_backward(GradCtx& c) {
  const Tensor& g = c.grad();
  if (c.sizes("self").empty()) {
    c.set("self", g);
    return;
  }
  const Tensor z = zeros(c.sizes("self"), g->dtype(), g->device());
  c.set("self", indexing::index_add(z, grad_dim(c, "index_select"), c.saved("index"), g, Scalar(1)));
}

void index_add_backward(GradCtx& c) {
  const Tensor& g = c.grad();
  if (c.needs("self")) c.set("self", g);
  if (c.needs("source")) {
    const Tensor s = indexing::index_select(g, grad_dim(c, "index_add"), c.saved("index"));
    c.set("source", reshape(autograd::scaled(s, c.arg("alpha").to_scalar()), c.sizes("source")));
  }
}

// Overwritten slices get no gradient; source's slices get theirs.
void index_copy_backward(GradCtx& c) {
  const Tensor& g = c.grad();
  const int64_t dim = grad_dim(c, "index_copy");
  if (c.needs("self")) c.set("self", indexing::index_fill(g, dim, c.saved("index"), Scalar(0)));
  if (c.needs("source")) c.set("source", reshape(indexing::index_select(g, dim, c.saved("index")), c.sizes("source")));
}

// value's gradient sums the filled positions once each, whatever repeats the index holds.
void index_fill_backward(GradCtx& c) {
  c.set("self", indexing::index_fill(c.grad(), grad_dim(c, "index_fill"), c.saved("index"), Scalar(0)));
}
void index_fill_tensor_backward(GradCtx& c) {
  const Tensor& g = c.grad();
  const Tensor kept = indexing::index_fill(g, grad_dim(c, "index_fill"), c.saved("index"), Scalar(0));
  if (c.needs("self")) c.set("self", kept);
  if (c.needs("value")) c.set("value", sum(sub(g, kept), {}, false));
}

}  // namespace

void define_index_dim(Registry& r) {
  r.def("index_select(Tensor self, int dim, Tensor index) -> Tensor")
      .meta(index_select_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, index_select_cpu, Determinism::Bitwise)
      .derivative(index_select_backward, save("index"));
  r.def("index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor")
      .meta(index_add_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, index_add_cpu, Determinism::Bitwise)
      .derivative(index_add_backward, save("index"))
      .inplace("index_add_(Tensor(a!) self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor(a!)",
               OpBuilder::Reads::Anywhere);
  r.def("index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor")
      .meta(index_copy_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, index_copy_cpu, Determinism::Bitwise)
      .derivative(index_copy_backward, save("index"))
      .inplace("index_copy_(Tensor(a!) self, int dim, Tensor index, Tensor source) -> Tensor(a!)",
               OpBuilder::Reads::Anywhere);
  r.def("index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor")
      .meta(index_fill_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, index_fill_cpu, Determinism::Bitwise)
      .derivative(index_fill_backward, save("index"))
      .inplace("index_fill_.int_Scalar(Tensor(a!) self, int dim, Tensor index, Scalar value) -> Tensor(a!)",
               OpBuilder::Reads::Anywhere);
  r.def("index_fill.int_Tensor(Tensor self, int dim, Tensor index, Tensor value) -> Tensor")
      .meta(index_fill_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, index_fill_cpu, Determinism::Bitwise)
      .derivative(index_fill_tensor_backward, save("index"))
      .inplace("index_fill_.int_Tensor(Tensor(a!) self, int dim, Tensor index, Tensor value) -> Tensor(a!)",
               OpBuilder::Reads::Anywhere);
}

}  // namespace ct::ops
