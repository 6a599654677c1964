// advanced.cpp - advanced indexing: index (x[i, j], x[mask]) and index_put / index_put_ (x[i] = v),
// with integer and boolean index tensors, as torch.
//
// Note [Advanced indexing schema]
// torch's schema is index.Tensor(Tensor self, Tensor?[] indices): a None entry leaves a dim
// unindexed. ctorch's tensor lists hold no None, so the schema takes the index tensors and, in
// `dims`, the dim each one starts at (increasing; empty means 0, 1, ... as torch's leading
// indices). A boolean mask covers as many dims as it has. The Python binding maps x[...] onto this,
// handling ints, slices, None and Ellipsis as views first.
//
// Both operators are composites: the indexed dims are brought together (moved to the front when
// they are not adjacent, where torch puts the result's indexed dims too), merged into one, and
// the index tensors combined into one linear index over the merged dim, so that reading is
// index_select and writing index_copy / index_add. Their derivatives are then the gradient:
// reading backward is an index_add (deterministic for any thread count), writing backward an
// index_select.
#include "dispatch/dispatcher.h"
#include "dispatch/grad_mode.h"
#include "ops/functions.h"
#include "ops/index/index_common.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

struct Advanced {
  Tensor merged;  // self, indexed dims together (permuted when needed) and merged into dim pos
  Tensor flat;    // int64 1-D positions within the merged dim
  int64_t pos = 0;
  DimVector perm;             // empty when no permutation was needed
  SymDimVector permuted;      // self's sizes after the permutation
  SymDimVector result;        // sizes of self[indices]
  SymDimVector values_shape;  // result with the broadcast index dims flattened into one
};

bool is_mask(const TensorImpl& t) { return t.dtype() == DType::Bool || t.dtype() == DType::UInt8; }

Advanced prepare(const char* op, const Tensor& self, ArrayRef<const TensorImpl*> ts, IntArrayRef dims_in) {
  CT_CHECK(!ts.empty(), CT_ERROR_INVALID_ARGUMENT, op, ": indices is empty. Pass at least one index tensor");
  CT_CHECK(dims_in.empty() || dims_in.size() == ts.size(), CT_ERROR_INVALID_ARGUMENT, op, ": ", ts.size(),
           " index tensors but dims ", dims_in, " has ", dims_in.size(), " entries. Give one dim per index tensor");
  const int64_t nd = static_cast<int64_t>(self->dim());
  std::vector<Tensor> idx;
  DimVector dims;
  int64_t next = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    const TensorImpl& t = *ts[i];
    const int64_t d = dims_in.empty() ? next : dims_in[i];
    const bool mask = is_mask(t);
    const int64_t span = mask ? static_cast<int64_t>(t.dim()) : 1;
    CT_CHECK(d >= next, CT_ERROR_INVALID_ARGUMENT, op, ": dims ", dims_in,
             " must increase, each past the dims of the previous index. Sort the indices by dim");
    CT_CHECK(d + span <= nd, CT_ERROR_INDEX, op, ": too many indices for a tensor of dimension ", nd, " (",
             self->sym_sizes(), "). Index at most ", nd, " dims");
    if (mask) {
      CT_CHECK(t.dim() > 0, CT_ERROR_INDEX, op, ": a 0-dim boolean index is not supported. Unsqueeze self first");
      for (int64_t c = 0; c < span; ++c)
        CT_CHECK(t.sym_size(c) == self->sym_size(d + c), CT_ERROR_INDEX, op, ": the mask ", t.sym_sizes(), " at index ", i,
                 " does not match the shape of the indexed tensor ", self->sym_sizes(), " at dim ", d + c,
                 ". Give the mask the indexed dims' sizes");
      if (!t.shape_env()) indexing::check_not_meta(op, t);  // of an env, its count is an unbacked symbol
      const Tensor nz = indexing::nonzero(Tensor::borrow(&t));
      for (int64_t c = 0; c < span; ++c) {
        idx.push_back(select(nz, 1, c));
        dims.push_back(d + c);
      }
    } else {
      CT_CHECK(t.dtype() == DType::Int64, CT_ERROR_INDEX, op, ": tensors used as indices must be int64 or bool, got ",
               t.dtype(), " (", t.sym_sizes(), "). Convert the index with to(int64)");
      // An index with values is checked against the dim's size, which a symbolic self must then
      // have concretely (a guard); a meta index has no values to check.
      const int64_t size = t.device().is_meta() ? 0 : self->sym_size(d).guard_int();
      idx.push_back(indexing::checked_index(op, t, size, d, true));
      dims.push_back(d);
    }
    next = d + span;
  }
  // Index tensors may live on the cpu while self is elsewhere (x[[0, 2]] makes a cpu tensor), as in
  // PyTorch: checked above, they move to self's device; on meta only their sizes matter.
  for (Tensor& t : idx) {
    if (t->device() == self->device()) continue;
    CT_CHECK(self->device().is_meta() || t->device().type == DeviceType::CPU, CT_ERROR_DEVICE, op, ": an index is on ",
             t->device(), " but self on ", self->device(), ". Move the index to ", self->device());
    t = self->device().is_meta() ? empty(t->sizes(), DType::Int64, self->device())
                                 : to(t, self->device(), DType::Int64);
  }
  SymDimVector b(idx[0]->sym_sizes());
  for (size_t i = 1; i < idx.size(); ++i) b = broadcast_shapes(op, b.ref(), idx[i]->sym_sizes());
  const size_t k = idx.size();
  Advanced a;
  Tensor p = self;
  if (dims.back() - dims[0] != static_cast<int64_t>(k) - 1) {  // not adjacent: to the front, as torch
    for (int64_t d : dims) a.perm.push_back(d);
    for (int64_t d = 0; d < nd; ++d)
      if (std::find(dims.begin(), dims.end(), d) == dims.end()) a.perm.push_back(d);
    p = permute(self, a.perm);
    a.pos = 0;
  } else {
    a.pos = dims[0];
  }
  a.permuted = SymDimVector(p->sym_sizes());
  const size_t pos = static_cast<size_t>(a.pos);
  SymDimVector merged;
  SymInt m = 1, nb = 1;
  for (size_t d = pos; d < pos + k; ++d) m = m * a.permuted[d];
  for (SymInt s : b) nb = nb * s;
  for (size_t d = 0; d < pos; ++d) {
    merged.push_back(a.permuted[d]);
    a.result.push_back(a.permuted[d]);
    a.values_shape.push_back(a.permuted[d]);
  }
  merged.push_back(m);
  for (SymInt s : b) a.result.push_back(s);
  a.values_shape.push_back(nb);
  for (size_t d = pos + k; d < a.permuted.size(); ++d) {
    merged.push_back(a.permuted[d]);
    a.result.push_back(a.permuted[d]);
    a.values_shape.push_back(a.permuted[d]);
  }
  a.merged = reshape_symint(p, merged);
  Tensor lin = idx[0];
  // Row-major positions within the merged dim. Meta indices hold no values, so a symbolic dim's
  // factor only has to give the right dtype: its hint stands in.
  for (size_t i = 1; i < k; ++i) lin = add(mul(lin, Scalar(size_hint(a.permuted[pos + i]))), idx[i]);
  if (!identical(lin->sym_sizes(), b.ref())) lin = expand_symint(lin, b);
  a.flat = reshape_symint(lin, {nb});
  return a;
}

// index.Tensor(Tensor self, Tensor[] indices, int[] dims=[]) -> Tensor
void index_kernel(void*, Frame& f) {
  const Tensor self = Tensor::borrow(&f.tensor(0));
  const Advanced a = prepare("index", self, f.arg(1).tensor_list(), f.arg(2).int_list());
  f.outs[0] = reshape_symint(indexing::index_select(a.merged, a.pos, a.flat), a.result);
}

// values, checked against self and laid out as the merged dim's slices.
Tensor values_for(const char* op, const Advanced& a, const TensorImpl& self, const TensorImpl& values) {
  CT_CHECK(values.dtype() == self.dtype(), CT_ERROR_DTYPE, op, ": values (", values.dtype(), ") and self (",
           self.dtype(), ") must have the same dtype. Convert values with to()");
  const SymDimVector b = broadcast_shapes(op, values.sym_sizes(), a.result.ref());
  CT_CHECK(b.ref().equals(a.result), CT_ERROR_SHAPE, op, ": values ", values.sym_sizes(),
           " cannot be broadcast to the indexing result ", a.result.ref(), ". Give values sizes that broadcast to it");
  return reshape_symint(expand_symint(Tensor::borrow(&values), a.result), a.values_shape);
}

// index_put(Tensor self, Tensor[] indices, Tensor values, bool accumulate=False, int[] dims=[]) -> Tensor
void index_put_kernel(void*, Frame& f) {
  const Tensor self = Tensor::borrow(&f.tensor(0));
  const Advanced a = prepare("index_put", self, f.arg(1).tensor_list(), f.arg(4).int_list());
  const Tensor v = values_for("index_put", a, *self, f.tensor(2));
  Tensor r = f.arg(3).to_bool() ? indexing::index_add(a.merged, a.pos, a.flat, v, Scalar(1))
                                : indexing::index_copy(a.merged, a.pos, a.flat, v);
  r = reshape_symint(r, a.permuted);
  if (!a.perm.empty()) {
    DimVector inverse;
    inverse.resize(a.perm.size());
    for (size_t i = 0; i < a.perm.size(); ++i) inverse[static_cast<size_t>(a.perm[i])] = static_cast<int64_t>(i);
    r = permute(r, inverse);
  }
  f.outs[0] = r;
}

// index_put_(Tensor(a!) self, Tensor[] indices, Tensor values, bool accumulate=False, int[] dims=[]) -> Tensor(a!)
// Writes straight into self through a merged view when nothing records gradients; otherwise
// self.copy_(index_put(...)), so autograd sees operators it can differentiate.
void index_put_inplace_kernel(void*, Frame& f) {
  const Tensor self = Tensor::borrow(&f.tensor(0));
  const TensorImpl& values = f.tensor(2);
  const bool accumulate = f.arg(3).to_bool();
  const bool recording = autograd::grad_mode() == autograd::GradMode::Enabled &&
                         (self->requires_grad() || values.requires_grad());
  if (!recording) {
    const Advanced a = prepare("index_put_", self, f.arg(1).tensor_list(), f.arg(4).int_list());
    if (a.merged->storage() == self->storage()) {
      const Tensor v = values_for("index_put_", a, *self, values);
      if (accumulate) index_add_(a.merged, a.pos, a.flat, v);
      else index_copy_(a.merged, a.pos, a.flat, v);
      f.outs[0] = self;
      return;
    }
  }
  const Tensor r = index_put(self, f.arg(1).tensor_list(), Tensor::borrow(&values), accumulate, f.arg(4).int_list());
  copy_(self, r);
  f.outs[0] = self;
}

}  // namespace

void define_advanced_index(Registry& r) {
  // Indices on the cpu go with a meta self (x[[0, 2]] makes a cpu tensor); prepare() checks them.
  r.def("index.Tensor(Tensor self, Tensor[] indices, int[] dims=[]) -> Tensor")
      .composite(index_kernel)
      .index_arg("indices");
  r.def("index_put(Tensor self, Tensor[] indices, Tensor values, bool accumulate=False, int[] dims=[]) -> Tensor")
      .composite(index_put_kernel)
      .index_arg("indices");
  r.def("index_put_(Tensor(a!) self, Tensor[] indices, Tensor values, bool accumulate=False, int[] dims=[]) "
        "-> Tensor(a!)")
      .composite(index_put_inplace_kernel)
      .index_arg("indices");
}

}  // namespace ct::ops
