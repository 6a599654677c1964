// repeat.cpp - operators that copy a tensor's elements into a rearranged result: repeat, tile,
// repeat_interleave, roll, flip and flip's forms rot90, fliplr and flipud. repeat, tile,
// repeat_interleave and roll are composites of views, clone, index_select and cat, so their
// derivatives are implicit; flip copies through a reversed view of its input, and its forms are
// composites of it.
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

// repeat_interleave.Tensor(Tensor repeats, *, SymInt? output_size=None) -> Tensor
// The index i repeated repeats[i] times, read on the host (Note [Values read on the host]).
Tensor interleaved_indices(const char* op, const Tensor& repeats, const Value& output_size) {
  CT_CHECK(repeats->dim() <= 1 && is_integral(repeats->dtype(), false), CT_ERROR_SHAPE,
           op, ": repeats is ", repeats->dtype(), " ", repeats->sym_sizes(), "; it takes a 1-D tensor of integers");
  CT_CHECK(!repeats->device().is_meta(), CT_ERROR_NOT_IMPLEMENTED, op,
           ": the result's length is read from repeats, which a meta tensor lacks");
  const Tensor host = host_contiguous(to(reshape(repeats, DimVector{-1}), DType::Int64));
  const int64_t* r = host->data_as<int64_t>();
  int64_t total = 0;
  for (int64_t i = 0; i < host->numel(); ++i) {
    CT_CHECK(r[i] >= 0, CT_ERROR_INVALID_ARGUMENT, op, ": repeats[", i, "] is ", r[i], "; repeats must be >= 0");
    total += r[i];
  }
  CT_CHECK(output_size.is_none() || output_size.to_int() == total, CT_ERROR_INVALID_ARGUMENT, op,
           ": output_size is ", output_size.is_none() ? 0 : output_size.to_int(), " but repeats sum to ", total);
  Tensor out = empty({total}, DType::Int64, Device{});
  int64_t* o = out->data_as<int64_t>();
  for (int64_t i = 0; i < host->numel(); ++i) o = std::fill_n(o, r[i], i);
  return to(out, repeats->device());
}

void repeat_interleave_kernel(void*, Frame& f) {
  f.outs[0] = interleaved_indices("repeat_interleave", Tensor::borrow(&f.tensor(0)), f.arg(1));
}

// self repeated along dim (flattened first when dim is None), each element `repeats` times.
// repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *, SymInt? output_size=None)
// repeat_interleave.self_Tensor(Tensor self, Tensor repeats, ...): one count per element along dim.
template <bool TensorRepeats>
void repeat_interleave_self_kernel(void*, Frame& f) {
  const char* op = "repeat_interleave";
  Tensor x = Tensor::borrow(&f.tensor(0));
  if (f.arg(2).is_none()) x = reshape(x, DimVector{-1});
  const int64_t d = f.arg(2).is_none() ? 0 : wrap_dim(op, f.arg(2).to_int(), std::max<int64_t>(x->dim(), 1));
  if (x->dim() == 0) x = reshape(x, DimVector{1});
  SymInt reps;
  if (TensorRepeats) {
    const Tensor repeats = Tensor::borrow(&f.tensor(1));
    if (repeats->numel() != 1) {
      CT_CHECK(repeats->dim() == 1 && repeats->sym_size(0) == x->sym_size(d), CT_ERROR_SHAPE, op, ": repeats ",
               repeats->sym_sizes(), " must hold one count per element of self ", x->sym_sizes(), " along dim ", d);
      f.outs[0] = index_select(x, d, interleaved_indices(op, repeats, f.arg(3)));
      return;
    }
    CT_CHECK(!repeats->device().is_meta(), CT_ERROR_NOT_IMPLEMENTED, op,
             ": the count is read from repeats, which a meta tensor lacks");
    reps = SymInt(*host_contiguous(to(repeats, DType::Int64))->data_as<int64_t>());
  } else {
    reps = f.arg(1).to_symint();
  }
  CT_SYM_CHECK(reps >= 0, CT_ERROR_INVALID_ARGUMENT, op, ": repeats is ", reps, "; it must be >= 0");
  CT_SYM_CHECK(f.arg(3).is_none() || f.arg(3).to_symint() == x->sym_size(d) * reps, CT_ERROR_INVALID_ARGUMENT, op,
               ": output_size does not match ", x->sym_size(d), " elements repeated ", reps, " times");
  // [..., n, ...] viewed as [..., n, 1, ...], expanded to [..., n, reps, ...] and flattened.
  SymDimVector expanded(x->sym_sizes()), result(x->sym_sizes());
  expanded.insert(static_cast<size_t>(d) + 1, reps);
  result[static_cast<size_t>(d)] = result[static_cast<size_t>(d)] * reps;
  f.outs[0] = reshape_symint(expand_symint(unsqueeze(x, d + 1), expanded), result);
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

// rot90(Tensor self, int k=1, int[] dims=[0,1]) -> Tensor: k quarter turns from dims[0] towards
// dims[1]; a turn is a flip of one dim and a swap of the two (PyTorch's result: a transposed view
// of the flipped copy).
void rot90_kernel(void*, Frame& f) {
  const Tensor self = Tensor::borrow(&f.tensor(0));
  const IntArrayRef dims = f.arg(2).int_list();
  const int64_t nd = static_cast<int64_t>(self->dim());
  CT_CHECK(dims.size() == 2, CT_ERROR_INVALID_ARGUMENT, "rot90: dims ", dims, " has ", dims.size(),
           " entries. Give the two dims of the plane to rotate in");
  CT_CHECK(nd >= 2, CT_ERROR_SHAPE, "rot90: self ", self->sym_sizes(), " has ", nd,
           " dims; rotating takes at least 2");
  const int64_t d0 = wrap_dim("rot90", dims[0], nd), d1 = wrap_dim("rot90", dims[1], nd);
  CT_CHECK(d0 != d1, CT_ERROR_INVALID_ARGUMENT, "rot90: dims ", dims, " name dim ", d0,
           " twice. Give two different dims");
  const int64_t k = ((f.arg(1).to_int() % 4) + 4) % 4;
  if (k == 0) f.outs[0] = clone(self);
  else if (k == 1) f.outs[0] = transpose(flip(self, {d1}), d0, d1);
  else if (k == 2) f.outs[0] = flip(self, {d0, d1});
  else f.outs[0] = transpose(flip(self, {d0}), d0, d1);
}

// fliplr(Tensor self) -> Tensor and flipud(Tensor self) -> Tensor: flip of dim 1 (at least 2-D)
// and of dim 0 (at least 1-D).
template <int Dim>
void flip_one_kernel(void*, Frame& f) {
  const Tensor self = Tensor::borrow(&f.tensor(0));
  CT_CHECK(self->dim() > Dim, CT_ERROR_SHAPE, Dim == 1 ? "fliplr" : "flipud", ": self ", self->sym_sizes(), " has ",
           self->dim(), " dims; it takes at least ", Dim + 1);
  f.outs[0] = flip(self, {Dim});
}

}  // namespace

void define_repeat(Registry& r) {
  r.def("repeat(Tensor self, SymInt[] repeats) -> Tensor").composite(repeat_kernel);
  r.def("tile(Tensor self, int[] dims) -> Tensor").composite(tile_kernel);
  r.def("repeat_interleave.self_Tensor(Tensor self, Tensor repeats, int? dim=None, *, SymInt? output_size=None) "
        "-> Tensor")
      .composite(repeat_interleave_self_kernel<true>);
  r.def("repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *, SymInt? output_size=None) "
        "-> Tensor")
      .composite(repeat_interleave_self_kernel<false>);
  // Last: boxed calls bind positionally, and (self, 2) must not read 2 as this one's output_size.
  r.def("repeat_interleave.Tensor(Tensor repeats, *, SymInt? output_size=None) -> Tensor")
      .composite(repeat_interleave_kernel)
      .not_differentiable();
  r.def("roll(Tensor self, int[1] shifts, int[1] dims=[]) -> Tensor").composite(roll_kernel);
  r.def("flip(Tensor self, int[] dims) -> Tensor")
      .meta(flip_meta)
      .compute(DispatchKey::CPU, flip_compute, Determinism::Bitwise)
      .takes_complex()  // a copy through a reversed view: the copy kernel moves complex elements
      .derivative(flip_backward);
  r.def("rot90(Tensor self, int k=1, int[] dims=[0,1]) -> Tensor").composite(rot90_kernel);
  r.def("fliplr(Tensor self) -> Tensor").composite(flip_one_kernel<1>);
  r.def("flipud(Tensor self) -> Tensor").composite(flip_one_kernel<0>);
}

}  // namespace ct::ops
