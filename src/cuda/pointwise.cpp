// pointwise.cpp - CUDA compute for the elementwise operators the driver table has kernels for:
// unary math, binary arithmetic / comparison / logical / bitwise, where, copy_, and the fill
// factories (empty, zeros, ones, full). The meta functions (shared with every device) have already
// decided output sizes and dtypes and the dtype the computation runs in (MetaResult::compute); each
// function here plans the loop like the cpu (loop_plan.h) and makes one table call.
#include <cstring>
#include <limits>

#include "core/error.h"
#include "cuda/kernel_util.h"
#include "cuda/kernels.h"
#include "cuda/loop_plan.h"
#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"
#include "runtime/determinism.h"

namespace ct::cuda {
namespace {


// ---- Unary

template <int Op, unsigned Classes>
void unary_cuda(const Frame& f, const MetaResult& m, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  if (out.numel() == 0) return;
  int op = Op;
  DType compute = table_compute(m.compute);
  if (!(Classes & class_of(m.compute))) {
    // abs of bool is the identity (as on the cpu); anything else the table cannot compute.
    if (Op == CT_CUDA_UNARY_ABS && m.compute == DType::Bool) op = CT_CUDA_UNARY_COPY;
    else unsupported(f.name(), m.compute);
  }
  if (Op == CT_CUDA_UNARY_GELU && std::strcmp(f.arg(1).str(), "tanh") == 0) op = CT_CUDA_UNARY_GELU_TANH;
  void* stream = stream_for(out);
  Tensor holder;
  const TensorImpl* in = on_device(f.name(), f.tensor(0), out.device(), stream, holder);
  const ct_cuda_loop loop = plan_loop(f.name(), out, &in, 1);
  check(driver().unary(op, code(out.dtype()), code(in->dtype()), code(compute), out.data(), in->data(), &loop, stream),
        f.name());
}

// ---- Binary

// add and sub of complex tensors: a + alpha b part by part (alpha is real), each operand first made
// out's complex dtype (a real one gets zero imaginary parts), which is how the cpu computes it.
void add_complex(const Frame& f, const TensorImpl& out, int op, double alpha) {
  void* stream = stream_for(out);
  Tensor held[2], converted[2];
  const TensorImpl* in[2];
  for (int i = 0; i < 2; ++i) {
    in[i] = on_device(f.name(), f.tensor(static_cast<size_t>(i)), out.device(), stream, held[i]);
    if (in[i]->dtype() == out.dtype()) continue;
    converted[i] = empty_on(in[i]->sizes(), out.dtype(), out.device());
    copy_into(f.name(), *converted[i], *in[i], stream);
    in[i] = converted[i].impl();
  }
  const Tensor po = pairs_of(out), pa = pairs_of(*in[0]), pb = pairs_of(*in[1]);
  const TensorImpl* parts[2] = {pa.impl(), pb.impl()};
  const ct_cuda_loop loop = plan_loop(f.name(), *po, parts, 2);
  const int real = code(po->dtype());
  check(driver().binary(op, real, real, real, real, alpha, po->data(), pa->data(), pb->data(), &loop, stream),
        f.name());
}

template <int Op, unsigned Classes>
void binary_cuda(const Frame& f, const MetaResult& m, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  if (out.numel() == 0) return;
  if ((Op == CT_CUDA_BINARY_ADD || Op == CT_CUDA_BINARY_SUB) && is_complex(out.dtype())) {
    add_complex(f, out, Op, f.nargs > 2 ? f.arg(2).to_double() : 1.0);
    return;
  }
  DType compute = table_compute(m.compute);
  double alpha = f.nargs > 2 ? f.arg(2).to_double() : 1.0;
  if (!(Classes & class_of(m.compute))) {
    // add of bools is or (as the cpu's bool(a + alpha b) with a bool alpha): int64 a + alpha b,
    // stored as != 0, gives the same with alpha reduced to 0 or 1.
    if (Op == CT_CUDA_BINARY_ADD && m.compute == DType::Bool) {
      compute = DType::Int64;
      alpha = alpha != 0 ? 1.0 : 0.0;
    } else {
      unsupported(f.name(), m.compute);
    }
  }
  void* stream = stream_for(out);
  Tensor ca, cb, ha, hb;  // Note [Narrow integer compute]
  const TensorImpl* in[2] = {
      on_device(f.name(), *in_compute_dtype(f.tensor(0), m.compute, ca), out.device(), stream, ha),
      on_device(f.name(), *in_compute_dtype(f.tensor(1), m.compute, cb), out.device(), stream, hb)};
  const ct_cuda_loop loop = plan_loop(f.name(), out, in, 2);
  check(driver().binary(Op, code(out.dtype()), code(in[0]->dtype()), code(in[1]->dtype()), code(compute), alpha,
                        out.data(), in[0]->data(), in[1]->data(), &loop, stream),
        f.name());
}

// ---- where.self(Tensor condition, Tensor self, Tensor other)

void where_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  if (out.numel() == 0) return;
  void* stream = stream_for(out);
  Tensor h[3];
  const TensorImpl* in[3];
  for (int i = 0; i < 3; ++i) in[i] = on_device("where", f.tensor(static_cast<size_t>(i)), out.device(), stream, h[i]);
  const ct_cuda_loop loop = plan_loop("where", out, in, 3);
  check(driver().where(code(out.dtype()), code(in[0]->dtype()), code(in[1]->dtype()), code(in[2]->dtype()), out.data(),
                       in[0]->data(), in[1]->data(), in[2]->data(), &loop, stream),
        "where");
}

// ---- copy_(Tensor(a!) self, Tensor src): same device (or a 0-dim cpu src), broadcast, any dtypes.

void copy_cuda(void*, Frame& f) {
  const TensorImpl& self = f.tensor(0);
  const TensorImpl* src = f.args[1].tensor_ptr();
  CT_CHECK(self.device() == src->device() || (src->dim() == 0 && src->device().is_cpu()), CT_ERROR_DEVICE,
           "copy_: self is on ", self.device(), " and src on ", src->device(), ". Copy between devices with to()");
  const SymDimVector b = ops::broadcast_shapes("copy_", self.sym_sizes(), src->sym_sizes());
  CT_CHECK(b.ref().equals(self.sym_sizes()), CT_ERROR_SHAPE, "copy_: src ", src->sym_sizes(),
           " does not broadcast to self ", self.sym_sizes(), ". Give src self's sizes, or sizes of 1 where they differ");
  // See Note [In-place aliasing].
  CT_CHECK(!has_internal_overlap(self), CT_ERROR_INVALID_ARGUMENT, "copy_: several elements of self (sizes ",
           self.sym_sizes(), ", strides ", self.strides(), ") share one memory location. Clone self first");
  f.outs[0] = Tensor::borrow(&self);
  if (self.numel() == 0) return;
  void* stream = stream_for(self);
  if (src->device().is_cpu()) {
    fill_from_host("copy_", self, *src, stream);
  } else {
    Tensor src_copy;
    if (overlaps_differently(self, *src)) {
      src_copy = ops::clone(Tensor::borrow(src));
      src = src_copy.impl();
    }
    copy_into("copy_", self, *src, stream);
  }
  self.storage()->bump_version();
}

// ---- Factories

template <int Value>
void constant_cuda(const Frame&, const MetaResult&, Tensor* outs) {
  if (outs[0]->numel() == 0) return;
  fill(Value ? "ones" : "zeros", *outs[0], Scalar(Value), stream_for(*outs[0]));
}

void full_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  if (outs[0]->numel() == 0) return;
  fill("full", *outs[0], f.arg(1).to_scalar(), stream_for(*outs[0]));
}

// As empty_cpu: uninitialized unless deterministic algorithms are on, then NaN or the largest
// integer, so a read of it is visible and reproducible.
void empty_cuda(const Frame&, const MetaResult&, Tensor* outs) {
  if (runtime::deterministic_mode() == runtime::DeterministicMode::Off || outs[0]->numel() == 0) return;
  const TensorImpl& out = *outs[0];
  Scalar v(std::numeric_limits<double>::quiet_NaN());
  visit_dtype(out.dtype(), "empty", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) v = Scalar(static_cast<int64_t>(std::numeric_limits<T>::max()));
  });
  fill("empty", out, v, stream_for(out));
}

struct Entry {
  const char* name;
  ComputeFn fn;
};

// Every built-in unary and binary operator the table computes. Float-only table ops with integer
// inputs work because those operators' meta functions already chose a float compute dtype.
constexpr unsigned kIB = kI | kB;
const Entry kPointwise[] = {
    {"neg", unary_cuda<CT_CUDA_UNARY_NEG, kFI>},
    {"abs", unary_cuda<CT_CUDA_UNARY_ABS, kFI>},
    {"exp", unary_cuda<CT_CUDA_UNARY_EXP, kF>},
    {"log", unary_cuda<CT_CUDA_UNARY_LOG, kF>},
    {"sqrt", unary_cuda<CT_CUDA_UNARY_SQRT, kF>},
    {"rsqrt", unary_cuda<CT_CUDA_UNARY_RSQRT, kF>},
    {"sin", unary_cuda<CT_CUDA_UNARY_SIN, kF>},
    {"cos", unary_cuda<CT_CUDA_UNARY_COS, kF>},
    {"tanh", unary_cuda<CT_CUDA_UNARY_TANH, kF>},
    {"sigmoid", unary_cuda<CT_CUDA_UNARY_SIGMOID, kF>},
    {"relu", unary_cuda<CT_CUDA_UNARY_RELU, kFI>},
    {"gelu", unary_cuda<CT_CUDA_UNARY_GELU, kF>},
    {"silu", unary_cuda<CT_CUDA_UNARY_SILU, kF>},
    {"reciprocal", unary_cuda<CT_CUDA_UNARY_RECIPROCAL, kF>},
    {"floor", unary_cuda<CT_CUDA_UNARY_FLOOR, kFI>},
    {"ceil", unary_cuda<CT_CUDA_UNARY_CEIL, kFI>},
    {"round", unary_cuda<CT_CUDA_UNARY_ROUND, kFI>},
    {"trunc", unary_cuda<CT_CUDA_UNARY_TRUNC, kFI>},
    {"sign", unary_cuda<CT_CUDA_UNARY_SIGN, kFIB>},
    {"erf", unary_cuda<CT_CUDA_UNARY_ERF, kF>},
    {"log1p", unary_cuda<CT_CUDA_UNARY_LOG1P, kF>},
    {"expm1", unary_cuda<CT_CUDA_UNARY_EXPM1, kF>},
    {"logical_not", unary_cuda<CT_CUDA_UNARY_LOGICAL_NOT, kFIB>},
    {"bitwise_not", unary_cuda<CT_CUDA_UNARY_BITWISE_NOT, kIB>},
    {"add.Tensor", binary_cuda<CT_CUDA_BINARY_ADD, kFI>},
    {"sub.Tensor", binary_cuda<CT_CUDA_BINARY_SUB, kFI>},
    {"mul.Tensor", binary_cuda<CT_CUDA_BINARY_MUL, kFIB>},
    {"div.Tensor", binary_cuda<CT_CUDA_BINARY_DIV, kF>},
    {"floor_divide.Tensor", binary_cuda<CT_CUDA_BINARY_FLOOR_DIVIDE, kFI>},
    {"remainder.Tensor", binary_cuda<CT_CUDA_BINARY_REMAINDER, kFI>},
    {"pow.Tensor", binary_cuda<CT_CUDA_BINARY_POW, kFI>},
    {"maximum.Tensor", binary_cuda<CT_CUDA_BINARY_MAXIMUM, kFIB>},
    {"minimum.Tensor", binary_cuda<CT_CUDA_BINARY_MINIMUM, kFIB>},
    {"atan2.Tensor", binary_cuda<CT_CUDA_BINARY_ATAN2, kF>},
    {"eq.Tensor", binary_cuda<CT_CUDA_BINARY_EQ, kFIB>},
    {"ne.Tensor", binary_cuda<CT_CUDA_BINARY_NE, kFIB>},
    {"lt.Tensor", binary_cuda<CT_CUDA_BINARY_LT, kFIB>},
    {"le.Tensor", binary_cuda<CT_CUDA_BINARY_LE, kFIB>},
    {"gt.Tensor", binary_cuda<CT_CUDA_BINARY_GT, kFIB>},
    {"ge.Tensor", binary_cuda<CT_CUDA_BINARY_GE, kFIB>},
    {"logical_and.Tensor", binary_cuda<CT_CUDA_BINARY_LOGICAL_AND, kFIB>},
    {"logical_or.Tensor", binary_cuda<CT_CUDA_BINARY_LOGICAL_OR, kFIB>},
    {"bitwise_and.Tensor", binary_cuda<CT_CUDA_BINARY_BITWISE_AND, kIB>},
    {"bitwise_or.Tensor", binary_cuda<CT_CUDA_BINARY_BITWISE_OR, kIB>},
    {"bitwise_xor.Tensor", binary_cuda<CT_CUDA_BINARY_BITWISE_XOR, kIB>},
    {"where.self", where_cuda},
    {"empty", empty_cuda},
    {"zeros", constant_cuda<0>},
    {"ones", constant_cuda<1>},
    {"full", full_cuda},
};

}  // namespace

void register_pointwise_kernels(Registry& r) {
  for (const Entry& e : kPointwise) set_cuda_compute(r, e.name, e.fn);
  set_cuda_kernel(r, "copy_", copy_cuda);
}

}  // namespace ct::cuda
