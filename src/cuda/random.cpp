// random.cpp - CUDA compute for rand, randn, uniform_ and normal_. The numbers are the cpu's: the
// blocks are reserved from the Generator exactly as ops/random/fill.h does (ceil(n / 4) blocks, or
// ceil(n / 2) for float64), and the table's philox_uniform / philox_normal mirror fill_uniform /
// fill_normal, so one seed gives the same bits on both devices. A non-contiguous target is filled
// through a contiguous temporary, as fill_self does on the cpu, so element i gets value i.
#include <cmath>

#include "core/error.h"
#include "cuda/kernel_util.h"
#include "cuda/kernels.h"
#include "dispatch/dispatcher.h"
#include "ops/random/random_common.h"

namespace ct::cuda {
namespace {

enum class Dist { Uniform, Normal };

// Fills the contiguous out with n values from g.
void draw(const char* op, Dist dist, const TensorImpl& out, runtime::Generator& g, double a, double b) {
  if (!is_floating(out.dtype())) unsupported(op, out.dtype(), "it draws floating-point numbers");
  const int64_t n = out.numel();
  const int64_t per_block = out.dtype() == DType::Float64 ? 2 : 4;
  const runtime::PhiloxRange r = g.reserve(static_cast<uint64_t>((n + per_block - 1) / per_block));
  if (n == 0) return;
  void* stream = stream_for(out);
  const int status = dist == Dist::Uniform
                         ? driver().philox_uniform(code(out.dtype()), out.data(), n, r.seed, r.first, a, b, stream)
                         : driver().philox_normal(code(out.dtype()), out.data(), n, r.seed, r.first, a, b, stream);
  check(status, op);
}

// rand / randn (int[] size, *, Generator? generator=None, ScalarType? dtype=None, Device? device=None)
template <Dist D>
void sized_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  draw(f.name(), D, out, ops::random_generator(f.arg(1), out.device()), 0.0, 1.0);
}

// uniform_(Tensor(a!) self, float from=0, float to=1, *, Generator? generator=None),
// normal_(Tensor(a!) self, float mean=0, float std=1, *, Generator? generator=None).
template <Dist D>
void in_place_cuda(void*, Frame& f) {
  const TensorImpl& self = f.tensor(0);
  const char* name = f.op.schema.name.c_str();
  const double a = f.arg(1).to_double(), b = f.arg(2).to_double();
  CT_CHECK(is_floating(self.dtype()), CT_ERROR_DTYPE, name, ": self is ", self.dtype(), " (sizes ", self.sym_sizes(),
           "), but it draws floating-point numbers. Use a floating tensor, or randint for integers");
  if (D == Dist::Uniform)
    CT_CHECK(std::isfinite(a) && std::isfinite(b) && a <= b, CT_ERROR_INVALID_ARGUMENT, name, ": [from, to) is [", a,
             ", ", b, "). Pass finite bounds with from <= to");
  else
    CT_CHECK(std::isfinite(a) && std::isfinite(b) && b >= 0, CT_ERROR_INVALID_ARGUMENT, name, ": mean ", a,
             " and std ", b, ". Pass a finite mean and a finite std >= 0");
  runtime::Generator& g = ops::random_generator(f.arg(f.nargs - 1), self.device());  // generator comes last
  if (self.is_contiguous()) {
    draw(name, D, self, g, a, b);
  } else {
    const Tensor tmp = empty_on(self.sizes(), self.dtype(), self.device());
    draw(name, D, *tmp, g, a, b);
    copy_into(name, self, *tmp, stream_for(self));
  }
  self.storage()->bump_version();
  f.outs[0] = Tensor::borrow(&self);
}

}  // namespace

void register_random_kernels(Registry& r) {
  set_cuda_compute(r, "rand", sized_cuda<Dist::Uniform>);
  set_cuda_compute(r, "randn", sized_cuda<Dist::Normal>);
  set_cuda_kernel(r, "uniform_", in_place_cuda<Dist::Uniform>);
  set_cuda_kernel(r, "normal_", in_place_cuda<Dist::Normal>);
}

}  // namespace ct::cuda
