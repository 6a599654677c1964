// pointwise_params.cpp - CUDA compute for the elementwise operators served by the table's
// unary_params, binary_params and ternary members (the operators with scalar parameters, and the
// math the first table did not have): tan .. erfinv, the parametrized activations, clamp,
// isnan/isinf/isfinite, nan_to_num, round.decimals, signbit, logit, polygamma, frexp, hypot, fmod,
// the shifts, gcd, lcm, logical_xor, lerp, addcmul, addcdiv. As in pointwise.cpp, the meta
// functions have decided sizes, dtypes and the compute dtype; each function here reads the
// operator's scalars the way its CPU kernel does and makes one table call per result.
#include <cfloat>
#include <cmath>

#include "core/error.h"
#include "cuda/driver_members.h"
#include "cuda/kernel_util.h"
#include "cuda/kernels.h"
#include "cuda/loop_plan.h"
#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::cuda {
namespace {


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
// logit(Tensor self, float? eps=None): eps, or -1 for None (no clamp).
Params logit_params(const Frame& f, const MetaResult&) {
  Params p;
  p.v[0] = f.arg(1).is_none() ? -1.0 : f.arg(1).to_double();
  return p;
}
// polygamma(int n, Tensor self): the order.
Params polygamma_params(const Frame& f, const MetaResult&) {
  Params p;
  p.v[0] = static_cast<double>(f.arg(0).to_int());
  return p;
}
// The shifts, gcd and lcm: the width of the dtype ctorch computes in, and whether it is unsigned.
Params shift_params(const Frame&, const MetaResult& m) {
  Params p;
  p.v[0] = static_cast<double>(8 * itemsize(m.compute));
  p.v[1] = m.compute == DType::UInt8 ? 1.0 : 0.0;
  return p;
}

// Self: the position of the tensor argument (polygamma's is 1).
template <int Op, unsigned Classes, LoadFn Load = none, size_t Self = 0>
void unary_params_cuda(const Frame& f, const MetaResult& m, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  if (out.numel() == 0) return;
  if (!(Classes & class_of(m.compute))) unsupported(f.name(), m.compute);
  const Params p = Load(f, m);
  void* stream = stream_for(out);
  Tensor holder;
  const TensorImpl* in = on_device(f.name(), f.tensor(Self), out.device(), stream, holder);
  const ct_cuda_loop loop = plan_loop(f.name(), out, &in, 1);
  const ct_cuda_driver& d = CT_CUDA_DRIVER_WITH(f.name(), unary_params);
  check(d.unary_params(Op, code(out.dtype()), code(in->dtype()), code(table_compute(m.compute)),
                       p.v, out.data(), in->data(), &loop, stream),
        f.name());
}

template <int Op, unsigned Classes, LoadFn Load = none>
void binary_params_cuda(const Frame& f, const MetaResult& m, Tensor* outs) {
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
  const ct_cuda_driver& d = CT_CUDA_DRIVER_WITH(f.name(), binary_params);
  check(d.binary_params(Op, code(out.dtype()), code(in[0]->dtype()), code(in[1]->dtype()),
                        code(table_compute(m.compute)), p.v, out.data(), in[0]->data(), in[1]->data(), &loop, stream),
        f.name());
}

// frexp.Tensor(Tensor self) -> (Tensor mantissa, Tensor exponent): one table pass per result.
void frexp_cuda(const Frame& f, const MetaResult& m, Tensor* outs) {
  unary_params_cuda<CT_CUDA_UNARY_FREXP_MANTISSA, kF>(f, m, outs);
  unary_params_cuda<CT_CUDA_UNARY_FREXP_EXPONENT, kF>(f, m, outs + 1);
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
  const ct_cuda_driver& d = CT_CUDA_DRIVER_WITH(f.name(), ternary);
  check(d.ternary(Op, code(out.dtype()), code(in[0]->dtype()), code(in[1]->dtype()), dc,
                  code(table_compute(m.compute)), p.v, out.data(), in[0]->data(),
                  in[1]->data(), NIn > 2 ? in[2]->data() : nullptr, &loop, stream),
        f.name());
}

struct Entry {
  const char* name;
  ComputeFn fn;
};

const Entry kEntries[] = {
    {"tan", unary_params_cuda<CT_CUDA_UNARY_TAN, kF>},
    {"asin", unary_params_cuda<CT_CUDA_UNARY_ASIN, kF>},
    {"acos", unary_params_cuda<CT_CUDA_UNARY_ACOS, kF>},
    {"atan", unary_params_cuda<CT_CUDA_UNARY_ATAN, kF>},
    {"sinh", unary_params_cuda<CT_CUDA_UNARY_SINH, kF>},
    {"cosh", unary_params_cuda<CT_CUDA_UNARY_COSH, kF>},
    {"asinh", unary_params_cuda<CT_CUDA_UNARY_ASINH, kF>},
    {"acosh", unary_params_cuda<CT_CUDA_UNARY_ACOSH, kF>},
    {"atanh", unary_params_cuda<CT_CUDA_UNARY_ATANH, kF>},
    {"exp2", unary_params_cuda<CT_CUDA_UNARY_EXP2, kF>},
    {"log2", unary_params_cuda<CT_CUDA_UNARY_LOG2, kF>},
    {"log10", unary_params_cuda<CT_CUDA_UNARY_LOG10, kF>},
    {"erfc", unary_params_cuda<CT_CUDA_UNARY_ERFC, kF>},
    {"erfinv", unary_params_cuda<CT_CUDA_UNARY_ERFINV, kF>},
    {"frac", unary_params_cuda<CT_CUDA_UNARY_FRAC, kF>},
    {"square", unary_params_cuda<CT_CUDA_UNARY_SQUARE, kFI>},
    {"isnan", unary_params_cuda<CT_CUDA_UNARY_ISNAN, kFIB>},
    {"isinf", unary_params_cuda<CT_CUDA_UNARY_ISINF, kFIB>},
    {"isfinite", unary_params_cuda<CT_CUDA_UNARY_ISFINITE, kFIB>},
    {"nan_to_num", unary_params_cuda<CT_CUDA_UNARY_NAN_TO_NUM, kFIB, nan_to_num_params>},
    {"round.decimals", unary_params_cuda<CT_CUDA_UNARY_ROUND_DECIMALS, kF, round_decimals_params>},
    {"elu", unary_params_cuda<CT_CUDA_UNARY_ELU, kF, numbers<3>>},
    {"leaky_relu", unary_params_cuda<CT_CUDA_UNARY_LEAKY_RELU, kF, numbers<1>>},
    {"hardtanh", unary_params_cuda<CT_CUDA_UNARY_HARDTANH, kFI, numbers<2>>},
    {"hardsigmoid", unary_params_cuda<CT_CUDA_UNARY_HARDSIGMOID, kF>},
    {"hardswish", unary_params_cuda<CT_CUDA_UNARY_HARDSWISH, kF>},
    {"softplus", unary_params_cuda<CT_CUDA_UNARY_SOFTPLUS, kF, numbers<2>>},
    {"mish", unary_params_cuda<CT_CUDA_UNARY_MISH, kF>},
    {"clamp", unary_params_cuda<CT_CUDA_UNARY_CLAMP, kFI, clamp_params>},
    {"signbit", unary_params_cuda<CT_CUDA_UNARY_SIGNBIT, kFIB>},
    {"logit", unary_params_cuda<CT_CUDA_UNARY_LOGIT, kF, logit_params>},
    {"polygamma", unary_params_cuda<CT_CUDA_UNARY_POLYGAMMA, kF, polygamma_params, 1>},
    {"frexp.Tensor", frexp_cuda},
    {"hypot.Tensor", binary_params_cuda<CT_CUDA_BINARY_HYPOT, kF>},
    {"fmod.Tensor", binary_params_cuda<CT_CUDA_BINARY_FMOD, kFI>},
    {"logical_xor.Tensor", binary_params_cuda<CT_CUDA_BINARY_LOGICAL_XOR, kFIB>},
    {"bitwise_left_shift.Tensor", binary_params_cuda<CT_CUDA_BINARY_LEFT_SHIFT, kI, shift_params>},
    {"bitwise_right_shift.Tensor", binary_params_cuda<CT_CUDA_BINARY_RIGHT_SHIFT, kI, shift_params>},
    {"gcd.Tensor", binary_params_cuda<CT_CUDA_BINARY_GCD, kI, shift_params>},
    {"lcm.Tensor", binary_params_cuda<CT_CUDA_BINARY_LCM, kI, shift_params>},
    {"lerp.Scalar", ternary_cuda<CT_CUDA_TERNARY_LERP_SCALAR, 2, 2, kF>},
    {"lerp.Tensor", ternary_cuda<CT_CUDA_TERNARY_LERP, 3, -1, kF>},
    {"addcmul", ternary_cuda<CT_CUDA_TERNARY_ADDCMUL, 3, 3, kFI>},
    {"addcdiv", ternary_cuda<CT_CUDA_TERNARY_ADDCDIV, 3, 3, kF>},
};

}  // namespace

void register_pointwise_params_kernels(Registry& r) {
  for (const Entry& e : kEntries) set_cuda_compute(r, e.name, e.fn);
}

}  // namespace ct::cuda
