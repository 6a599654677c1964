// Operators with a cpu kernel of their own and a composite for the other devices: the composite,
// run here on cpu tensors through the kernel a cuda tensor would take, gives the cpu kernel's bits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "dispatch/dispatcher.h"
#include "dispatch/registry.h"
#include "ops/functions.h"

using ct::DispatchKey;
using ct::DType;
using ct::Tensor;
using ct::Value;

namespace {

Tensor through_cuda_kernel(const char* name, Value* args, size_t nargs) {
  const ct::OperatorDef& op = ct::builtin_op(name);
  const ct::Kernel& k = op.kernels[static_cast<int>(DispatchKey::CUDA)];
  EXPECT_NE(k.fn, ct::structured_kernel) << name << ": expected the composite, not a compute function";
  Tensor out;
  ct::Frame f{op, args, nargs, ct::DispatchKeySet(), &out, 1};
  k.fn(k.data, f);
  return out;
}

Tensor filled(std::initializer_list<float> v, int64_t rows) {
  const int64_t cols = static_cast<int64_t>(v.size()) / rows;
  Tensor t = ct::ops::empty({rows, cols}, DType::Float32, ct::kCPU);
  std::memcpy(t->data(), v.begin(), v.size() * sizeof(float));
  return t;
}

}  // namespace

TEST(DeviceComposite, ThresholdBackwardMatchesTheCpuKernel) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor g = filled({inf, 1, -2, nan, 5, -0.0f, 3, -7}, 2);
  const Tensor x = ct::ops::to(filled({-1, 2, 0, nan, 0.25f, -0.5f, 0.5f, 1}, 2), DType::Float64);
  for (double threshold : {0.0, 0.25, 1.0}) {
    Value args[3] = {g, x, Value(threshold)};
    const Tensor want = ct::ops::threshold_backward(g, x, threshold);
    const Tensor got = through_cuda_kernel("threshold_backward", args, 3);
    ASSERT_EQ(got->dtype(), DType::Float64);
    ASSERT_TRUE(got->sizes().equals(want->sizes()));
    EXPECT_EQ(std::memcmp(got->data(), want->data(), static_cast<size_t>(want->numel()) * sizeof(double)), 0)
        << "threshold " << threshold;
  }
}
