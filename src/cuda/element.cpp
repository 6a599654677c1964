// element.cpp - see element.h. The operands are brought to the kernel's dtype and the output's
// shape as the cpu's loop sees them (the meta function's compute dtype first, so narrow integers and
// float16 take the cpu's values; then float for float16 and bfloat16, int64 for the integers, as
// the table computes), made contiguous, and the result is copied into the output when it is not
// that contiguous tensor already. The copies cost bandwidth; the table's kernels are the fast path.
#include "cuda/element.h"

#include <map>
#include <mutex>
#include <tuple>

#include "core/error.h"
#include "cuda/context.h"
#include "cuda/kernel_util.h"
#include "cuda/kernels.h"
#include "cuda/nvrtc_kernels.h"
#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/pointwise/element_preamble.h"

namespace ct::cuda {
namespace {

constexpr int kThreads = 256;

// The kernel's element type for a compute dtype.
DType kernel_dtype(DType compute) {
  if (compute == DType::Float64) return DType::Float64;
  if (compute == DType::Bool) return DType::Bool;
  return is_floating(compute) ? DType::Float32 : DType::Int64;
}
const char* c_type(DType d) {
  switch (d) {
    case DType::Float64: return "double";
    case DType::Bool: return "bool";
    case DType::Int64: return "long long";
    default: return "float";
  }
}

// The compiled kernel of fn for one kernel dtype and form, per device: the source is built and looked
// up once, not on every call.
void* compiled(const ElementFn& fn, DType kernel, bool scaled, int device, const char* what) {
  static std::mutex mu;
  static auto* caches = new std::map<std::tuple<const ElementFn*, DType, bool>, KernelCache>;
  KernelCache* cache;
  {
    std::lock_guard<std::mutex> g(mu);
    cache = &(*caches)[{&fn, kernel, scaled}];  // map nodes never move
  }
  return cache->get(device, [&] { return element_kernel_source(fn, c_type(kernel), scaled); }, "ct_element", what);
}

// t on out's device, in the compute dtype, then the kernel's, broadcast to sizes and contiguous.
Tensor operand(const char* op, const TensorImpl& t, const TensorImpl& out, DType compute, DType kernel, void* stream) {
  Tensor holder;
  const TensorImpl* on = on_device(op, t, out.device(), stream, holder);
  Tensor x = ops::to(ops::to(Tensor::borrow(on), compute), kernel);
  return ops::expect_contiguous(ops::expand(x, out.sizes()));
}

void element_cuda(const Frame& f, const MetaResult& m, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  if (out.numel() == 0) return;
  const OperatorDef& def = f.op.functional ? *f.op.functional : f.op;
  const ElementFn& fn = *def.element;
  const DType kernel = kernel_dtype(m.compute);
  void* stream = stream_for(out);
  const Tensor a = operand(f.name(), f.tensor(0), out, m.compute, kernel, stream);
  const Tensor b = fn.arity == 2 ? operand(f.name(), f.tensor(1), out, m.compute, kernel, stream) : a;
  const bool scaled = fn.has_alpha && f.nargs > 2 && !f.arg(2).to_scalar().equals(1.0);
  const Tensor result = out.is_contiguous() && out.dtype() == kernel ? Tensor::borrow(&out)
                                                                     : empty_on(out.sizes(), kernel, out.device());
  void* k = compiled(fn, kernel, scaled, out.device().index, f.name());
  // alpha as the kernel's T, in a buffer wide enough for any of them.
  alignas(8) unsigned char alpha[8] = {};
  const Scalar s = scaled ? f.arg(2).to_scalar() : Scalar(1);
  if (kernel == DType::Float64) *reinterpret_cast<double*>(alpha) = s.to<double>();
  else if (kernel == DType::Float32) *reinterpret_cast<float*>(alpha) = s.to<float>();
  else if (kernel == DType::Int64) *reinterpret_cast<int64_t*>(alpha) = s.to<int64_t>();
  else *reinterpret_cast<bool*>(alpha) = s.to<bool>();
  void* po = result->data();
  const void* pa = a->data();
  const void* pb = b->data();
  long long n = out.numel();
  void* args[] = {&po, &pa, &pb, alpha, &n};
  const int64_t blocks = std::min<int64_t>((n + kThreads - 1) / kThreads, 65535);
  check(driver().launch(k, static_cast<uint32_t>(blocks), 1, 1, kThreads, 1, 1, 0, stream, args), f.name());
  if (result.impl() != &out) ops::copy_(outs[0], result);
}

}  // namespace

std::string element_kernel_source(const ElementFn& fn, const char* type, bool scaled) {
  std::string s = kElementPreamble;
  s += str("\n// ---- the kernel\ntypedef ", type, " T;\n",
           "extern \"C\" __global__ void __launch_bounds__(", kThreads, ") ct_element(T* __restrict__ o, ",
           "const T* __restrict__ a, const T* __restrict__ b, T alpha, long long n) {\n",
           "  for (long long i = (long long)blockIdx.x * ", kThreads, " + threadIdx.x; i < n; i += (long long)gridDim.x * ",
           kThreads, ")\n    o[i] = ct::fn::", fn.functor, "{}(a[i]", fn.arity == 2 ? ", b[i]" : "",
           scaled ? ", alpha" : "", ");\n}\n");
  return s;
}

void register_element_kernels(Registry& r) {
  constexpr int k = static_cast<int>(DispatchKey::CUDA);
  for (OperatorDef* op : r.all()) {
    const bool direct = op->element_form == ElementForm::Unary || op->element_form == ElementForm::Binary;
    if (op->element && direct && op->meta && !op->kernels[k].fn) set_cuda_compute(r, op->full_name.c_str(), element_cuda);
  }
}

}  // namespace ct::cuda
