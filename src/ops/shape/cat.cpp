// cat.cpp - cat (join along an existing dim) and stack (join along a new dim), the stacking
// functions over them (hstack, vstack, dstack, column_stack), and block_diag (matrices joined
// corner to corner).
#include <cstring>

#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/functions.h"
#include "ops/op_common.h"
#include "runtime/defaults.h"

namespace ct::ops {
namespace {

// PyTorch skips 1-D empty tensors in cat whatever the other inputs' rank (legacy behaviour).
bool skipped(const TensorImpl& t) { return t.dim() == 1 && t.sym_size(0) == 0; }

// cat(Tensor[] tensors, int dim=0) -> Tensor
void cat_meta(const Frame& f, MetaResult& m) {
  ArrayRef<const TensorImpl*> ts = f.arg(0).tensor_list();
  CT_CHECK(!ts.empty(), CT_ERROR_INVALID_ARGUMENT, "cat: expected a non-empty list of tensors");
  const Device dev = common_device(f);
  ResultType rt;
  const TensorImpl* ref = nullptr;
  size_t ref_index = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    rt.add(*ts[i]);
    if (!ref && !skipped(*ts[i])) {
      ref = ts[i];
      ref_index = i;
    }
  }
  m.compute = rt.result();
  if (!ref) {  // every input is 1-D and empty
    set_output(m, 0, {0}, m.compute, dev);
    return;
  }
  CT_CHECK(ref->dim() > 0, CT_ERROR_SHAPE, "cat: zero-dimensional tensor (at position ", ref_index,
           ") cannot be concatenated. Unsqueeze it to 1-D first");
  const int64_t d = wrap_dim("cat", f.arg(1).to_int(), ref->dim());
  SymDimVector sizes(ref->sym_sizes());
  SymDimVector parts;  // the sizes along d, summed as one node when symbolic
  for (size_t i = 0; i < ts.size(); ++i) {
    const TensorImpl& t = *ts[i];
    if (skipped(t)) continue;
    CT_CHECK(t.dim() == ref->dim(), CT_ERROR_SHAPE, "cat: tensors must have the same number of dims, got ",
             ref->sym_sizes(), " at position ", ref_index, " and ", t.sym_sizes(), " at position ", i,
             ". Reshape them to one rank");
    for (size_t k = 0; k < t.dim(); ++k) {
      const bool same = static_cast<int64_t>(k) == d || t.sym_size(k).raw() == ref->sym_size(k).raw();
      CT_CHECK(same || t.sym_size(k) == ref->sym_size(k), CT_ERROR_SHAPE, "cat: sizes must match except in dim ", d,
               ", got ", ref->sym_sizes(), " at position ", ref_index, " and ", t.sym_sizes(), " at position ", i,
               " (dim ", k, "). Make them equal");
    }
    parts.push_back(t.sym_size(d));
  }
  sizes[d] = sym_sum(parts);
  set_output(m, 0, sizes, m.compute, dev);
}

// A small result whose inputs have its dtype and lie dense in row-major order is copied as bytes:
// each input is `outer` runs of size(d) * inner elements. A view and a copy_ per input cost more
// than the copying (cat of two 4x4 tensors took twice a + b's time from Python); a large result
// keeps copy_'s threads.
bool cat_small_by_bytes(ArrayRef<const TensorImpl*> ts, const TensorImpl& out, int64_t d) {
  constexpr int64_t kSmallBytes = 64 * 1024;
  const int64_t item = static_cast<int64_t>(itemsize(out.dtype()));
  if (out.numel() * item > kSmallBytes || !out.is_contiguous()) return false;
  for (const TensorImpl* t : ts)
    if (!skipped(*t) && (t->dtype() != out.dtype() || !t->is_contiguous())) return false;
  int64_t outer = 1, inner = item;
  for (int64_t i = 0; i < static_cast<int64_t>(out.dim()); ++i) {
    if (i < d) outer *= out.size(i);
    else if (i > d) inner *= out.size(i);
  }
  const int64_t row = out.size(d) * inner;  // bytes of one outer run of the result
  char* dst = static_cast<char*>(out.data());
  int64_t offset = 0;
  for (const TensorImpl* t : ts) {
    if (skipped(*t)) continue;
    const int64_t run = t->size(d) * inner;
    const char* src = static_cast<const char*>(t->data());
    for (int64_t o = 0; o < outer && run > 0; ++o)
      std::memcpy(dst + o * row + offset, src + o * run, static_cast<size_t>(run));
    offset += run;
  }
  return true;
}

void cat_compute(const Frame& f, const MetaResult&, Tensor* outs) {
  ArrayRef<const TensorImpl*> ts = f.arg(0).tensor_list();
  if (outs[0]->dim() == 1 && outs[0]->size(0) == 0) return;
  const int64_t d = wrap_dim("cat", f.arg(1).to_int(), outs[0]->dim());
  if (cat_small_by_bytes(ts, *outs[0], d)) return;
  int64_t offset = 0;
  for (const TensorImpl* t : ts) {
    if (skipped(*t)) continue;
    copy_(narrow(outs[0], d, offset, t->size(d)), Tensor::borrow(t));
    offset += t->size(d);
  }
}

// stack(Tensor[] tensors, int dim=0) -> Tensor
void stack_kernel(void*, Frame& f) {
  ArrayRef<const TensorImpl*> ts = f.arg(0).tensor_list();
  CT_CHECK(!ts.empty(), CT_ERROR_INVALID_ARGUMENT, "stack: expected a non-empty list of tensors");
  const int64_t d = wrap_dim("stack", f.arg(1).to_int(), static_cast<int64_t>(ts[0]->dim()) + 1);
  std::vector<Tensor> parts;
  std::vector<const TensorImpl*> ptrs;
  for (size_t i = 0; i < ts.size(); ++i) {
    CT_CHECK(ts[i]->sym_sizes().equals(ts[0]->sym_sizes()), CT_ERROR_SHAPE,
             "stack: every tensor must have the same sizes, got ", ts[0]->sym_sizes(), " at position 0 and ",
             ts[i]->sym_sizes(), " at position ", i, ". Make them equal");
    parts.push_back(unsqueeze(Tensor::borrow(ts[i]), d));
    ptrs.push_back(parts.back().impl());
  }
  f.outs[0] = cat(ptrs, d);
}

// hstack / vstack / dstack / column_stack(Tensor[] tensors) -> Tensor: cat after bringing every
// tensor to the dims the stacking needs, as numpy's functions of those names.
enum class Stacking { H, V, D, Column };

Tensor stack_part(Stacking how, const Tensor& t) {
  switch (how) {
    case Stacking::H: return atleast_1d(t);
    case Stacking::V: return atleast_2d(t);
    case Stacking::D: return atleast_3d(t);
    case Stacking::Column: return t->dim() <= 1 ? unsqueeze(flatten(t), 1) : t;  // a column
  }
  return t;
}

template <Stacking How>
void stacking_kernel(void*, Frame& f) {
  static constexpr const char* kNames[] = {"hstack", "vstack", "dstack", "column_stack"};
  const char* op = kNames[static_cast<int>(How)];
  ArrayRef<const TensorImpl*> ts = f.arg(0).tensor_list();
  CT_CHECK(!ts.empty(), CT_ERROR_INVALID_ARGUMENT, op, ": expected a non-empty list of tensors");
  std::vector<Tensor> parts;
  std::vector<const TensorImpl*> ptrs;
  for (const TensorImpl* t : ts) {
    parts.push_back(stack_part(How, Tensor::borrow(t)));
    ptrs.push_back(parts.back().impl());
  }
  int64_t dim = How == Stacking::V ? 0 : How == Stacking::D ? 2 : 1;
  if (How == Stacking::H && parts[0]->dim() == 1) dim = 0;  // 1-D tensors are joined end to end
  f.outs[0] = cat(ptrs, dim);
}

// block_diag(Tensor[] tensors) -> Tensor: the blocks (a 0-dim tensor as 1 x 1, a 1-D one as a row)
// down the diagonal of a zero matrix, in the promoted dtype. Each block is padded with zeros to the
// full width and the rows are joined: pad and cat carry the gradients back.
void block_diag_kernel(void*, Frame& f) {
  ArrayRef<const TensorImpl*> ts = f.arg(0).tensor_list();
  if (ts.empty()) {
    f.outs[0] = empty({1, 0}, runtime::default_dtype(), runtime::current_device());
    return;
  }
  common_device(f);  // raises unless every block is on one device
  ResultType rt;
  std::vector<Tensor> blocks;
  SymInt width = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    CT_CHECK(ts[i]->dim() <= 2, CT_ERROR_SHAPE, "block_diag: tensor ", i, " has sizes ", ts[i]->sym_sizes(),
             "; blocks have at most 2 dims");
    rt.add(*ts[i]);
    const Tensor t = Tensor::borrow(ts[i]);
    blocks.push_back(t->dim() == 2 ? t : reshape_symint(t, {1, t->dim() == 0 ? SymInt(1) : t->sym_size(0)}));
    width = width + blocks.back()->sym_size(1);
  }
  const int64_t total = width.guard_int();
  std::vector<Tensor> rows;
  std::vector<const TensorImpl*> impls;
  int64_t left = 0;
  for (const Tensor& b : blocks) {
    const int64_t cols = b->sym_size(1).guard_int();
    rows.push_back(constant_pad_nd(to(b, rt.result()), {left, total - left - cols}));
    impls.push_back(rows.back().impl());
    left += cols;
  }
  f.outs[0] = cat(impls, 0);
}

// Each input gets its own stretch of the gradient along dim.
void cat_backward(autograd::GradCtx& c) {
  const Tensor& g = c.grad();
  const int64_t d = wrap_dim("cat", c.arg("dim").to_int(), g->dim());
  int64_t offset = 0;
  for (size_t j = 0; j < c.list_size("tensors"); ++j) {
    const IntArrayRef sizes = c.sizes("tensors", j);
    if (sizes.size() == 1 && sizes[0] == 0 && g->dim() != 1) continue;  // skipped() in the forward
    if (c.needs("tensors", j)) c.set("tensors", j, narrow(g, d, offset, sizes[d]));
    offset += sizes[d];
  }
}

}  // namespace

void define_cat(Registry& r) {
  r.def("cat(Tensor[] tensors, int dim=0) -> Tensor")
      .meta(cat_meta)
      .compute(DispatchKey::CPU, cat_compute, Determinism::Bitwise)
      .takes_complex()  // bytes moved, whatever they hold
      .derivative(cat_backward);
  r.def("stack(Tensor[] tensors, int dim=0) -> Tensor").composite(stack_kernel);
  r.def("hstack(Tensor[] tensors) -> Tensor").composite(stacking_kernel<Stacking::H>);
  r.def("vstack(Tensor[] tensors) -> Tensor").composite(stacking_kernel<Stacking::V>);
  r.def("dstack(Tensor[] tensors) -> Tensor").composite(stacking_kernel<Stacking::D>);
  r.def("column_stack(Tensor[] tensors) -> Tensor").composite(stacking_kernel<Stacking::Column>);
  r.def("block_diag(Tensor[] tensors) -> Tensor").composite(block_diag_kernel);
}

}  // namespace ct::ops
