// pointwise_more.cpp - CUDA compute for the elementwise operators served by the table members
// appended for them (unary_params, binary_params, ternary, index_fill): more unary math, the
// parametrized activations, clamp, isnan/isinf/isfinite, nan_to_num, round.decimals, hypot, fmod,
// the shifts, logical_xor, lerp, addcmul, addcdiv, and the factories arange, linspace and eye;
// also cat and flip, which on CUDA are copies through the COPY kernel over strided loops. As in
// pointwise.cpp, the meta functions have decided sizes, dtypes and the compute dtype; each function
// here reads the operator's scalars the way its CPU kernel does and makes one table call.
#include <cfloat>
#include <cmath>

#include "core/error.h"
#include "cuda/appended.h"
#include "cuda/kernel_util.h"
#include "cuda/kernels.h"
#include "cuda/loop_plan.h"
#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::cuda {
namespace {

// The table's compute-dtype classes an op accepts (F, I, B in ct_cuda_driver.h).
constexpr unsigned kF = 1, kI = 2, kB = 4, kFI = kF | kI, kFIB = kF | kI | kB;
unsigned class_of(DType compute) {
  const DType c = table_compute(compute);
  return c == DType::Bool ? kB : is_floating(c) ? kF : kI;
}

struct Params {
  double v[3] = {0, 0, 0};
};

// How each operator's scalars become the table's params (see ct_cuda_unary_op).
using LoadFn = Params (*)(const Frame&, const MetaResult&);
Params none(const Frame&, const MetaResult&) { return {}; }
template <int N>
Params numbers(const Frame& f, const MetaResult&) {  // arguments 1..N as numbers
  Params p;
  for (int i = 0; i < N; ++i) p.v[i] = f.arg(static_cast<size_t>(i + 1)).to_double();
  return p;
}
// nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None): None is 0 for
// NaN and the dtype's largest / lowest finite value for the infinities.
Params nan_to_num_params(const Frame& f, const MetaResult& m) {
  double big = DBL_MAX;
  if (m.compute == DType::Float16) big = 65504.0;
  else if (m.compute == DType::BFloat16) big = static_cast<double>(3.38953139e38f);
  else if (m.compute == DType::Float32) big = FLT_MAX;
  Params p;
  p.v[0] = f.arg(1).is_none() ? 0.0 : f.arg(1).to_double();
  p.v[1] = f.arg(2).is_none() ? big : f.arg(2).to_double();
  p.v[2] = f.arg(3).is_none() ? -big : f.arg(3).to_double();
  return p;
}
// round.decimals(Tensor self, *, int decimals): 10^|decimals| and whether decimals < 0.
Params round_decimals_params(const Frame& f, const MetaResult&) {
  const int64_t d = f.arg(1).to_int();
  Params p;
  p.v[0] = std::pow(10.0, static_cast<double>(d < 0 ? -d : d));
  p.v[1] = d < 0 ? 1.0 : 0.0;
  return p;
}
// clamp(Tensor self, Scalar? min=None, Scalar? max=None): the bounds and which are present.
// The bounds as the compute dtype holds them (Note [Narrow integer compute]: -2 bounds uint8 as 254).
Params clamp_params(const Frame& f, const MetaResult& m) {
  Params p;
  const bool lo = !f.arg(1).is_none(), hi = !f.arg(2).is_none();
  p.v[0] = lo ? as_compute(f.arg(1).to_scalar(), m.compute) : 0.0;
  p.v[1] = hi ? as_compute(f.arg(2).to_scalar(), m.compute) : 0.0;
  p.v[2] = (lo ? 1 : 0) | (hi ? 2 : 0);
  return p;
}
// The shifts: the width of the dtype ctorch computes in, and whether it is unsigned.
Params shift_params(const Frame&, const MetaResult& m) {
  Params p;
  p.v[0] = static_cast<double>(8 * itemsize(m.compute));
  p.v[1] = m.compute == DType::UInt8 ? 1.0 : 0.0;
  return p;
}

template <int Op, unsigned Classes, LoadFn Load = none>
void unary_more_cuda(const Frame& f, const MetaResult& m, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  if (out.numel() == 0) return;
  if (!(Classes & class_of(m.compute))) unsupported(f.name(), m.compute);
  const Params p = Load(f, m);
  void* stream = stream_for(out);
  Tensor holder;
  const TensorImpl* in = on_device(f.name(), f.tensor(0), out.device(), stream, holder);
  const ct_cuda_loop loop = plan_loop(f.name(), out, &in, 1);
  check(appended_driver(f.name()).unary_params(Op, code(out.dtype()), code(in->dtype()), code(table_compute(m.compute)),
                                               p.v, out.data(), in->data(), &loop, stream),
        f.name());
}

template <int Op, unsigned Classes, LoadFn Load = none>
void binary_more_cuda(const Frame& f, const MetaResult& m, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  if (out.numel() == 0) return;
  if (!(Classes & class_of(m.compute))) unsupported(f.name(), m.compute);
  const Params p = Load(f, m);
  void* stream = stream_for(out);
  Tensor ca, cb, ha, hb;  // Note [Narrow integer compute]
  const TensorImpl* in[2] = {
      on_device(f.name(), *in_compute_dtype(f.tensor(0), m.compute, ca), out.device(), stream, ha),
      on_device(f.name(), *in_compute_dtype(f.tensor(1), m.compute, cb), out.device(), stream, hb)};
  const ct_cuda_loop loop = plan_loop(f.name(), out, in, 2);
  check(appended_driver(f.name()).binary_params(Op, code(out.dtype()), code(in[0]->dtype()), code(in[1]->dtype()),
                                                code(table_compute(m.compute)), p.v, out.data(), in[0]->data(),
                                                in[1]->data(), &loop, stream),
        f.name());
}

// lerp.Scalar(self, end, Scalar weight), lerp.Tensor(self, end, weight),
// addcmul / addcdiv(self, tensor1, tensor2, *, Scalar value=1).
template <int Op, int NIn, int ScalarArg, unsigned Classes>
void ternary_cuda(const Frame& f, const MetaResult& m, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  if (out.numel() == 0) return;
  if (!(Classes & class_of(m.compute))) unsupported(f.name(), m.compute);
  Params p;
  if (ScalarArg >= 0) p.v[0] = f.arg(ScalarArg).to_double();
  void* stream = stream_for(out);
  Tensor h[3];
  const TensorImpl* in[3] = {nullptr, nullptr, nullptr};
  for (int i = 0; i < NIn; ++i) in[i] = on_device(f.name(), f.tensor(static_cast<size_t>(i)), out.device(), stream, h[i]);
  const ct_cuda_loop loop = plan_loop(f.name(), out, in, NIn);
  const int dc = NIn > 2 ? code(in[2]->dtype()) : code(in[1]->dtype());
  check(appended_driver(f.name()).ternary(Op, code(out.dtype()), code(in[0]->dtype()), code(in[1]->dtype()), dc,
                                          code(table_compute(m.compute)), p.v, out.data(), in[0]->data(),
                                          in[1]->data(), NIn > 2 ? in[2]->data() : nullptr, &loop, stream),
        f.name());
}

// ---- Factories: the output is fresh and contiguous; the CPU refuses bool for arange/linspace.

template <int Op>
void index_fill_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  const char* name = Op == CT_CUDA_INDEX_FILL_ARANGE ? "arange" : Op == CT_CUDA_INDEX_FILL_LINSPACE ? "linspace" : "eye";
  if (Op != CT_CUDA_INDEX_FILL_EYE && out.dtype() == DType::Bool) unsupported(name, out.dtype());
  if (out.numel() == 0) return;
  double a = 0, b = 0;
  int64_t cols = 1;
  if (Op == CT_CUDA_INDEX_FILL_ARANGE) a = f.arg(0).to_double(), b = f.arg(2).to_double();
  else if (Op == CT_CUDA_INDEX_FILL_LINSPACE) a = f.arg(0).to_double(), b = f.arg(1).to_double();
  else cols = out.size(1);
  check(appended_driver(name).index_fill(Op, code(out.dtype()), a, b, cols, out.data(), out.numel(), stream_for(out)),
        name);
}

// ---- cat(Tensor[] tensors, int dim=0) and flip(Tensor self, int[] dims): copies, as the CPU's
// cat_compute and flip_compute (ops/shape/cat.cpp, repeat.cpp) but through copy_into directly.

// PyTorch skips 1-D empty tensors in cat whatever the other inputs' rank (legacy behaviour).
bool cat_skipped(const TensorImpl& t) { return t.dim() == 1 && t.size(0) == 0; }

void cat_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  ArrayRef<const TensorImpl*> ts = f.arg(0).tensor_list();
  if (outs[0]->numel() == 0) return;
  const int64_t d = ops::wrap_dim("cat", f.arg(1).to_int(), outs[0]->dim());
  void* stream = stream_for(*outs[0]);
  int64_t offset = 0;
  for (const TensorImpl* t : ts) {
    if (cat_skipped(*t)) continue;
    const int64_t len = t->size(static_cast<size_t>(d));
    if (len > 0 && t->numel() > 0) {
      const Tensor part = ops::narrow(outs[0], d, offset, len);
      copy_into("cat", *part, *t, stream);
    }
    offset += len;
  }
}

void flip_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  if (a.numel() == 0) return;
  DimVector strides(a.strides());
  int64_t offset = a.storage_offset();
  const int64_t nd = static_cast<int64_t>(a.dim());
  uint64_t seen = 0;
  for (int64_t d : f.arg(1).int_list()) {
    if (nd == 0) break;  // dims 0 and -1 name a 0-dim tensor itself: nothing to reverse
    const int64_t w = ops::wrap_dim("flip", d, nd);
    if (w < 64 && (seen >> w & 1)) continue;  // the meta function has refused repeats
    if (w < 64) seen |= uint64_t(1) << w;
    offset += (a.size(static_cast<size_t>(w)) - 1) * a.stride(static_cast<size_t>(w));
    strides[static_cast<size_t>(w)] = -a.stride(static_cast<size_t>(w));
  }
  // A view walking the flipped dims backwards (negative strides, never handed out).
  const Tensor reversed = Tensor::adopt(TensorImpl::view_of(a, a.sizes(), strides, offset));
  copy_into("flip", *outs[0], *reversed, stream_for(*outs[0]));
}

struct Entry {
  const char* name;
  ComputeFn fn;
};

const Entry kEntries[] = {
    {"tan", unary_more_cuda<CT_CUDA_UNARY_TAN, kF>},
    {"asin", unary_more_cuda<CT_CUDA_UNARY_ASIN, kF>},
    {"acos", unary_more_cuda<CT_CUDA_UNARY_ACOS, kF>},
    {"atan", unary_more_cuda<CT_CUDA_UNARY_ATAN, kF>},
    {"sinh", unary_more_cuda<CT_CUDA_UNARY_SINH, kF>},
    {"cosh", unary_more_cuda<CT_CUDA_UNARY_COSH, kF>},
    {"asinh", unary_more_cuda<CT_CUDA_UNARY_ASINH, kF>},
    {"acosh", unary_more_cuda<CT_CUDA_UNARY_ACOSH, kF>},
    {"atanh", unary_more_cuda<CT_CUDA_UNARY_ATANH, kF>},
    {"exp2", unary_more_cuda<CT_CUDA_UNARY_EXP2, kF>},
    {"log2", unary_more_cuda<CT_CUDA_UNARY_LOG2, kF>},
    {"log10", unary_more_cuda<CT_CUDA_UNARY_LOG10, kF>},
    {"erfc", unary_more_cuda<CT_CUDA_UNARY_ERFC, kF>},
    {"erfinv", unary_more_cuda<CT_CUDA_UNARY_ERFINV, kF>},
    {"frac", unary_more_cuda<CT_CUDA_UNARY_FRAC, kF>},
    {"square", unary_more_cuda<CT_CUDA_UNARY_SQUARE, kFI>},
    {"isnan", unary_more_cuda<CT_CUDA_UNARY_ISNAN, kFIB>},
    {"isinf", unary_more_cuda<CT_CUDA_UNARY_ISINF, kFIB>},
    {"isfinite", unary_more_cuda<CT_CUDA_UNARY_ISFINITE, kFIB>},
    {"nan_to_num", unary_more_cuda<CT_CUDA_UNARY_NAN_TO_NUM, kFIB, nan_to_num_params>},
    {"round.decimals", unary_more_cuda<CT_CUDA_UNARY_ROUND_DECIMALS, kF, round_decimals_params>},
    {"elu", unary_more_cuda<CT_CUDA_UNARY_ELU, kF, numbers<3>>},
    {"leaky_relu", unary_more_cuda<CT_CUDA_UNARY_LEAKY_RELU, kF, numbers<1>>},
    {"hardtanh", unary_more_cuda<CT_CUDA_UNARY_HARDTANH, kFI, numbers<2>>},
    {"hardsigmoid", unary_more_cuda<CT_CUDA_UNARY_HARDSIGMOID, kF>},
    {"hardswish", unary_more_cuda<CT_CUDA_UNARY_HARDSWISH, kF>},
    {"softplus", unary_more_cuda<CT_CUDA_UNARY_SOFTPLUS, kF, numbers<2>>},
    {"mish", unary_more_cuda<CT_CUDA_UNARY_MISH, kF>},
    {"clamp", unary_more_cuda<CT_CUDA_UNARY_CLAMP, kFI, clamp_params>},
    {"hypot.Tensor", binary_more_cuda<CT_CUDA_BINARY_HYPOT, kF>},
    {"fmod.Tensor", binary_more_cuda<CT_CUDA_BINARY_FMOD, kFI>},
    {"logical_xor.Tensor", binary_more_cuda<CT_CUDA_BINARY_LOGICAL_XOR, kFIB>},
    {"bitwise_left_shift.Tensor", binary_more_cuda<CT_CUDA_BINARY_LEFT_SHIFT, kI, shift_params>},
    {"bitwise_right_shift.Tensor", binary_more_cuda<CT_CUDA_BINARY_RIGHT_SHIFT, kI, shift_params>},
    {"lerp.Scalar", ternary_cuda<CT_CUDA_TERNARY_LERP_SCALAR, 2, 2, kF>},
    {"lerp.Tensor", ternary_cuda<CT_CUDA_TERNARY_LERP, 3, -1, kF>},
    {"addcmul", ternary_cuda<CT_CUDA_TERNARY_ADDCMUL, 3, 3, kFI>},
    {"addcdiv", ternary_cuda<CT_CUDA_TERNARY_ADDCDIV, 3, 3, kF>},
    {"arange", index_fill_cuda<CT_CUDA_INDEX_FILL_ARANGE>},
    {"linspace", index_fill_cuda<CT_CUDA_INDEX_FILL_LINSPACE>},
    {"eye", index_fill_cuda<CT_CUDA_INDEX_FILL_EYE>},
    {"cat", cat_cuda},
    {"flip", flip_cuda},
};

}  // namespace

void register_pointwise_more_kernels(Registry& r) {
  for (const Entry& e : kEntries) set_cuda_compute(r, e.name, e.fn);
}

}  // namespace ct::cuda
