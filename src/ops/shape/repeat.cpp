// repeat.cpp - operators that copy a tensor's elements into a rearranged result: repeat, tile,
// roll and flip. repeat, tile and roll are composites of views, clone and cat, so their
// derivatives are implicit; flip copies through a reversed view of its input.
#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

// repeat(Tensor self, SymInt[] repeats) -> Tensor
// Viewed as (1, s0, 1, s1, ...), expanded to (r0, s0, r1, s1, ...) and copied: one pass of the copy
// kernel whatever the dtype.
void repeat_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  const SymIntArrayRef reps = f.arg(1).sym_int_list();
  CT_CHECK(reps.size() >= a.dim(), CT_ERROR_SHAPE, "repeat: repeats ", reps, " has ", reps.size(),
           " entries but the input ", a.sym_sizes(), " has ", a.dim(), " dims. Give at least one per dim");
  for (SymInt r : reps)
    CT_SYM_CHECK(r >= 0, CT_ERROR_SHAPE, "repeat: repeats ", reps, " has a negative entry. Repeats must be >= 0");
  const size_t lead = reps.size() - a.dim();
  SymDimVector pairs, expanded, result;
  for (size_t i = 0; i < reps.size(); ++i) {
    const SymInt s = i < lead ? SymInt(1) : a.sym_size(i - lead);
    pairs.push_back(1);
    pairs.push_back(s);
    expanded.push_back(reps[i]);
    expanded.push_back(s);
    result.push_back(reps[i] * s);
  }
  // Checked here so that an overflow is reported as repeat's, not as the expand view's below.
  checked_numel(result, "repeat");
  const Tensor base = reshape_symint(Tensor::borrow(&a), pairs);
  f.outs[0] = view_symint(clone(expand_symint(base, expanded)), result);
}

// tile(Tensor self, int[] dims) -> Tensor: repeat, with missing leading repeats taken as 1.
void tile_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  IntArrayRef dims = f.arg(1).int_list();
  DimVector reps(dims);
  while (reps.size() < a.dim()) reps.insert(0, 1);
  f.outs[0] = repeat(Tensor::borrow(&a), reps);
}

// a rolled by shift along dim: the last `shift` elements come first.
Tensor roll_one(const Tensor& a, int64_t by, int64_t dim) {
  const SymInt n = a->sym_size(dim);
  if (n == 0) return clone(a);
  const SymInt shift = ((SymInt(by) % n) + n) % n;
  if (shift == 0) return clone(a);
  const Tensor tail = narrow_symint(a, dim, n - shift, shift), head = narrow_symint(a, dim, 0, n - shift);
  const TensorImpl* parts[2] = {tail.impl(), head.impl()};
  return cat(ArrayRef<const TensorImpl*>(parts, 2), dim);
}

// roll(Tensor self, int[1] shifts, int[1] dims=[]) -> Tensor
void roll_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  IntArrayRef shifts = f.arg(1).int_list(), dims = f.arg(2).int_list();
  const Tensor self = Tensor::borrow(&a);
  CT_CHECK(!shifts.empty(), CT_ERROR_INVALID_ARGUMENT, "roll: shifts is empty. Give one shift per dim");
  if (dims.empty()) {
    CT_CHECK(shifts.size() == 1, CT_ERROR_INVALID_ARGUMENT, "roll: shifts ", shifts,
             " has several entries but no dims are given. Give one dim per shift, or a single shift");
    f.outs[0] = view_symint(roll_one(reshape_symint(self, {a.sym_numel()}), shifts[0], 0), a.sym_sizes());
    return;
  }
  CT_CHECK(shifts.size() == dims.size(), CT_ERROR_INVALID_ARGUMENT, "roll: shifts ", shifts, " and dims ", dims,
           " have different lengths. Give one dim per shift");
  CT_CHECK(a.dim() > 0, CT_ERROR_INDEX, "roll: dims ", dims, " given for a 0-dim tensor, which has none. "
           "Leave dims empty to roll it");
  Tensor out = self;
  for (size_t i = 0; i < dims.size(); ++i) out = roll_one(out, shifts[i], wrap_dim("roll", dims[i], a.dim()));
  f.outs[0] = out;
}

// flip(Tensor self, int[] dims) -> Tensor
DimVector flip_dims(const TensorImpl& a, IntArrayRef dims) {
  DimVector wrapped;
  uint64_t seen[kMaxDims / 64 + 1] = {};
  for (int64_t d : dims) {
    const int64_t w = wrap_dim("flip", d, a.dim());
    CT_CHECK(!(seen[w / 64] >> (w % 64) & 1), CT_ERROR_INVALID_ARGUMENT, "flip: dim ", w, " appears twice in ", dims,
             ". List each dim once");
    seen[w / 64] |= uint64_t(1) << (w % 64);
    wrapped.push_back(w);
  }
  return wrapped;
}

void flip_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  flip_dims(a, f.arg(1).int_list());
  m.compute = a.dtype();
  set_output(m, 0, a.sym_sizes(), a.dtype(), a.device());
}

// A view of the input that walks the flipped dims backwards (negative strides, never handed out),
// copied into the output by the copy kernel.
void flip_compute(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  if (a.numel() == 0) return;
  DimVector strides(a.strides());
  int64_t offset = a.storage_offset();
  for (int64_t d : flip_dims(a, f.arg(1).int_list())) {
    if (a.dim() == 0) break;  // dims 0 and -1 name a 0-dim tensor itself: nothing to reverse
    offset += (a.size(d) - 1) * a.stride(d);
    strides[d] = -a.stride(d);
  }
  const Tensor reversed = Tensor::adopt(TensorImpl::view_of(a, a.sizes(), strides, offset));
  copy_(outs[0], reversed);
}

void flip_backward(autograd::GradCtx& c) { c.set("self", flip(c.grad(), c.arg("dims").int_list())); }

}  // namespace

void define_repeat(Registry& r) {
  r.def("repeat(Tensor self, SymInt[] repeats) -> Tensor").composite(repeat_kernel);
  r.def("tile(Tensor self, int[] dims) -> Tensor").composite(tile_kernel);
  r.def("roll(Tensor self, int[1] shifts, int[1] dims=[]) -> Tensor").composite(roll_kernel);
  r.def("flip(Tensor self, int[] dims) -> Tensor")
      .meta(flip_meta)
      .compute(DispatchKey::CPU, flip_compute, Determinism::Bitwise)
      .derivative(flip_backward);
}

}  // namespace ct::ops
