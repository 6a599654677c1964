// The CUDA kernel glue without a GPU: which built-in operators have a CUDA kernel (and which do
// not, printed so the gap stays visible), and the elementwise loop planner on cpu tensors (it is a
// pure function of sizes and strides). Registration must not load CUDA: these tests run anywhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "core/error.h"
#include "cuda/kernel_util.h"
#include "cuda/loop_plan.h"
#include "dispatch/dispatcher.h"
#include "dispatch/registry.h"
#include "ops/functions.h"

using ct::DType;
using ct::DispatchKey;
using ct::Tensor;

namespace {

// Every operator register_cuda_kernels claims, in-place variants included.
const char* const kClaimed[] = {
    // pointwise.cpp
    "neg", "neg_", "abs", "abs_", "exp", "exp_", "log", "log_", "sqrt", "sqrt_", "rsqrt", "rsqrt_", "sin", "sin_",
    "cos", "cos_", "tanh", "tanh_", "sigmoid", "sigmoid_", "relu", "relu_", "gelu", "gelu_", "silu", "silu_",
    "reciprocal", "reciprocal_", "floor", "floor_", "ceil", "ceil_", "round", "round_", "trunc", "trunc_", "sign",
    "sign_", "erf", "erf_", "log1p", "log1p_", "expm1", "expm1_", "logical_not", "bitwise_not", "bitwise_not_",
    "add.Tensor", "add_.Tensor", "sub.Tensor", "sub_.Tensor", "mul.Tensor", "mul_.Tensor", "div.Tensor",
    "div_.Tensor", "floor_divide.Tensor", "floor_divide_.Tensor", "remainder.Tensor", "remainder_.Tensor",
    "pow.Tensor", "maximum.Tensor", "minimum.Tensor", "atan2.Tensor", "atan2_.Tensor", "eq.Tensor", "ne.Tensor",
    "lt.Tensor", "le.Tensor", "gt.Tensor", "ge.Tensor", "logical_and.Tensor", "logical_and_.Tensor",
    "logical_or.Tensor", "logical_or_.Tensor", "bitwise_and.Tensor", "bitwise_and_.Tensor", "bitwise_or.Tensor",
    "bitwise_or_.Tensor", "bitwise_xor.Tensor", "bitwise_xor_.Tensor", "where.self", "copy_", "empty", "zeros",
    "ones", "full",
    // reduce.cpp
    "sum.dim_IntList", "mean.dim_IntList", "prod.dim_IntList", "amax.dim_IntList", "amin.dim_IntList", "argmax",
    "argmin", "var.correction", "std.correction", "var_mean.correction", "std_mean.correction", "logsumexp",
    // nn.cpp
    "softmax.int", "log_softmax.int", "layer_norm",
    // blas.cpp
    "mm", "bmm", "addmm",
    // random.cpp
    "rand", "randn", "uniform_", "normal_",
    // sampling.cpp
    "bernoulli", "bernoulli.p", "bernoulli_.float", "randint.low", "randperm", "multinomial",
    // pointwise_params.cpp, factories.cpp, shape.cpp
    "tan", "tan_", "asin", "asin_", "acos", "acos_", "atan", "atan_", "sinh", "sinh_", "cosh", "cosh_", "asinh",
    "asinh_", "acosh", "acosh_", "atanh", "atanh_", "exp2", "exp2_", "log2", "log2_", "log10", "log10_", "erfc",
    "erfc_", "erfinv", "erfinv_", "frac", "frac_", "square", "square_", "isnan", "isinf", "isfinite", "nan_to_num",
    "nan_to_num_", "round.decimals", "round_.decimals", "elu", "elu_", "leaky_relu", "leaky_relu_", "hardtanh",
    "hardtanh_", "hardsigmoid", "hardsigmoid_", "hardswish", "hardswish_", "softplus", "softplus_", "mish", "mish_",
    "clamp", "hypot.Tensor", "hypot_.Tensor", "fmod.Tensor", "fmod_.Tensor", "logical_xor.Tensor",
    "logical_xor_.Tensor", "bitwise_left_shift.Tensor", "bitwise_left_shift_.Tensor", "bitwise_right_shift.Tensor",
    "bitwise_right_shift_.Tensor", "lerp.Scalar", "lerp_.Scalar", "lerp.Tensor", "lerp_.Tensor", "addcmul",
    "addcmul_", "addcdiv", "addcdiv_", "arange", "linspace", "eye", "cat", "flip",
    // scan.cpp, reduce.cpp
    "cumsum", "cumprod", "cummax", "cummin", "all", "all.dim", "any", "any.dim", "count_nonzero",
    "count_nonzero.dim_IntList", "linalg_vector_norm",
    // index.cpp (the scatters read deterministic_mode() themselves: declared Deterministic)
    "index_select", "embedding", "gather", "take", "scatter.src", "scatter_.src", "scatter.value", "scatter_.value",
    "scatter_add", "scatter_add_", "scatter_reduce.two", "scatter_reduce_.two", "index_add", "index_add_",
    "index_copy", "index_copy_", "index_fill.int_Scalar", "index_fill.int_Tensor", "put", "put_",
    "masked_fill.Scalar", "masked_fill.Tensor", "masked_scatter", "masked_scatter_",
    // sort.cpp
    "sort", "sort.stable", "topk", "kthvalue", "median", "median.dim", "mode",
    // conv.cpp
    "conv2d", "conv_transpose2d.input", "max_pool2d_with_indices", "max_pool2d_with_indices_backward", "avg_pool2d",
    "avg_pool2d_backward", "adaptive_avg_pool2d", "_adaptive_avg_pool2d_backward"};

ct::Error planner_error(const ct::TensorImpl& out, const ct::TensorImpl* const* in, int n) {
  try {
    ct::cuda::plan_loop("test_op", out, in, n);
  } catch (const ct::Error& e) {
    return e;
  }
  return ct::Error(CT_OK, "no error");
}

}  // namespace

TEST(CudaRegistration, ClaimedOperatorsHaveCudaKernels) {
  ct::Registry& r = ct::Registry::get();
  for (const char* name : kClaimed) {
    const ct::OperatorDef* op = r.find(name);
    ASSERT_NE(op, nullptr) << name << " is not a built-in operator";
    EXPECT_TRUE(op->kernel_keys().has(DispatchKey::CUDA)) << name << " has no CUDA kernel";
    // Structured operators run a compute function; every table kernel is deterministic.
    const ct::KernelFn fn = op->kernels[static_cast<int>(DispatchKey::CUDA)].fn;
    if (fn == ct::structured_kernel || fn == ct::inplace_kernel)
      EXPECT_NE(op->compute[static_cast<int>(DispatchKey::CUDA)], nullptr) << name << " has no CUDA compute";
    EXPECT_NE(op->determinism[static_cast<int>(DispatchKey::CUDA)], ct::Determinism::Atomic) << name;
  }
}

TEST(CudaRegistration, ListsBuiltinOperatorsWithoutCudaKernel) {
  std::vector<std::string> without;
  size_t with = 0, total = 0;
  for (const ct::OperatorDef* op : ct::Registry::get().all()) {
    if (!op->builtin) continue;
    ++total;
    if (op->kernel_keys().has(DispatchKey::CUDA)) ++with;
    else without.push_back(op->full_name);
  }
  std::sort(without.begin(), without.end());
  std::string list;
  for (const std::string& n : without) list += (list.empty() ? "" : " ") + n;
  std::printf("[cuda] %zu of %zu built-in operators have a CUDA kernel (own or composite); %zu do not:\n%s\n", with,
              total, without.size(), list.c_str());
  EXPECT_GT(with, sizeof(kClaimed) / sizeof(kClaimed[0]) / 2);
}

TEST(CudaLoopPlan, ContiguousIsOneDim) {
  const Tensor out = ct::ops::empty({2, 3, 4}, DType::Float32, ct::kCPU);
  const Tensor a = ct::ops::empty({2, 3, 4}, DType::Float16, ct::kCPU);
  const ct::TensorImpl* in[1] = {a.impl()};
  const ct_cuda_loop l = ct::cuda::plan_loop("t", *out, in, 1);
  EXPECT_EQ(l.noperands, 2);
  EXPECT_EQ(l.ndim, 1);
  EXPECT_EQ(l.numel, 24);
  EXPECT_EQ(l.sizes[0], 24);
  EXPECT_EQ(l.strides[0][0], 1);  // elements, not bytes
  EXPECT_EQ(l.strides[1][0], 1);
}

TEST(CudaLoopPlan, BroadcastingGivesStrideZero) {
  const Tensor out = ct::ops::empty({2, 3}, DType::Float32, ct::kCPU);
  const Tensor a = ct::ops::empty({2, 3}, DType::Float32, ct::kCPU);
  const Tensor row = ct::ops::empty({3}, DType::Float32, ct::kCPU);
  const Tensor col = ct::ops::empty({2, 1}, DType::Float32, ct::kCPU);
  const ct::TensorImpl* in[3] = {a.impl(), row.impl(), col.impl()};
  const ct_cuda_loop l = ct::cuda::plan_loop("t", *out, in, 3);
  ASSERT_EQ(l.ndim, 2);
  EXPECT_EQ(l.noperands, 4);
  EXPECT_EQ(l.sizes[0], 2);
  EXPECT_EQ(l.sizes[1], 3);
  EXPECT_EQ(l.strides[0][0], 3);
  EXPECT_EQ(l.strides[0][1], 1);
  EXPECT_EQ(l.strides[2][0], 0);  // the row repeats down dim 0
  EXPECT_EQ(l.strides[2][1], 1);
  EXPECT_EQ(l.strides[3][0], 1);  // the column repeats along dim 1
  EXPECT_EQ(l.strides[3][1], 0);
  // A one-element input broadcasts over the flat loop.
  const Tensor one = ct::ops::empty({}, DType::Float64, ct::kCPU);
  const ct::TensorImpl* in2[2] = {a.impl(), one.impl()};
  const ct_cuda_loop s = ct::cuda::plan_loop("t", *out, in2, 2);
  EXPECT_EQ(s.ndim, 1);
  EXPECT_EQ(s.sizes[0], 6);
  EXPECT_EQ(s.strides[1][0], 1);
  EXPECT_EQ(s.strides[2][0], 0);
}

TEST(CudaLoopPlan, MergesDimsContiguousInEveryOperand) {
  const Tensor out = ct::ops::empty({2, 3, 4}, DType::Float32, ct::kCPU);
  const Tensor wide = ct::ops::empty({2, 3, 8}, DType::Float32, ct::kCPU);
  const Tensor a = ct::ops::narrow(wide, 2, 0, 4);  // strides (24, 8, 1)
  const ct::TensorImpl* in[1] = {a.impl()};
  const ct_cuda_loop l = ct::cuda::plan_loop("t", *out, in, 1);
  ASSERT_EQ(l.ndim, 2);
  EXPECT_EQ(l.sizes[0], 6);  // dims 0 and 1 step as one in both operands
  EXPECT_EQ(l.sizes[1], 4);
  EXPECT_EQ(l.strides[0][0], 4);
  EXPECT_EQ(l.strides[0][1], 1);
  EXPECT_EQ(l.strides[1][0], 8);
  EXPECT_EQ(l.strides[1][1], 1);
}

TEST(CudaLoopPlan, TransposedInput) {
  const Tensor out = ct::ops::empty({3, 2}, DType::Float32, ct::kCPU);
  const Tensor base = ct::ops::empty({2, 3}, DType::Int64, ct::kCPU);
  const Tensor t = ct::ops::transpose(base, 0, 1);  // strides (1, 3)
  const ct::TensorImpl* in[1] = {t.impl()};
  const ct_cuda_loop l = ct::cuda::plan_loop("t", *out, in, 1);
  ASSERT_EQ(l.ndim, 2);
  EXPECT_EQ(l.sizes[0], 3);
  EXPECT_EQ(l.sizes[1], 2);
  EXPECT_EQ(l.strides[0][0], 2);
  EXPECT_EQ(l.strides[0][1], 1);
  EXPECT_EQ(l.strides[1][0], 1);
  EXPECT_EQ(l.strides[1][1], 3);
}

TEST(CudaLoopPlan, ZeroDimIsOneElement) {
  const Tensor out = ct::ops::empty({}, DType::Float32, ct::kCPU);
  const Tensor a = ct::ops::empty({}, DType::Float32, ct::kCPU);
  const ct::TensorImpl* in[1] = {a.impl()};
  const ct_cuda_loop l = ct::cuda::plan_loop("t", *out, in, 1);
  EXPECT_EQ(l.ndim, 1);
  EXPECT_EQ(l.numel, 1);
  EXPECT_EQ(l.sizes[0], 1);
  EXPECT_EQ(l.strides[1][0], 0);
  // A fill (no inputs) of a strided, all-ones view is one element too.
  const Tensor big = ct::ops::empty({4, 4}, DType::Float32, ct::kCPU);
  const Tensor corner = ct::ops::narrow(ct::ops::narrow(big, 0, 1, 1), 1, 2, 1);
  const ct_cuda_loop f = ct::cuda::plan_loop("t", *corner, nullptr, 0);
  EXPECT_EQ(f.noperands, 1);
  EXPECT_EQ(f.numel, 1);
  EXPECT_EQ(f.ndim, 1);
}

TEST(CudaLoopPlan, RefusesMoreThanEightDimsAfterMerging) {
  const std::vector<int64_t> sizes(9, 2);
  const Tensor out = ct::ops::empty(sizes, DType::Float32, ct::kCPU);
  // Every dim of a contiguous 9-dim tensor merges into one.
  const Tensor same = ct::ops::empty(sizes, DType::Float32, ct::kCPU);
  const ct::TensorImpl* in[1] = {same.impl()};
  EXPECT_EQ(ct::cuda::plan_loop("t", *out, in, 1).ndim, 1);
  // Its reversed dims merge nowhere: 9 dims remain, one more than the table takes.
  const Tensor reversed = ct::ops::permute(ct::ops::empty(sizes, DType::Float32, ct::kCPU), {8, 7, 6, 5, 4, 3, 2, 1, 0});
  const ct::TensorImpl* rin[1] = {reversed.impl()};
  const ct::Error e = planner_error(*out, rin, 1);
  EXPECT_EQ(e.status(), CT_ERROR_NOT_IMPLEMENTED);
  EXPECT_NE(std::string(e.message()).find("test_op"), std::string::npos) << e.message();
  // Exactly 8 remaining dims are accepted.
  const std::vector<int64_t> eight(8, 2);
  const Tensor out8 = ct::ops::empty(eight, DType::Float32, ct::kCPU);
  const Tensor rev8 = ct::ops::permute(ct::ops::empty(eight, DType::Float32, ct::kCPU), {7, 6, 5, 4, 3, 2, 1, 0});
  const ct::TensorImpl* in8[1] = {rev8.impl()};
  EXPECT_EQ(ct::cuda::plan_loop("t", *out8, in8, 1).ndim, 8);
}

TEST(CudaKernelUtil, TableComputeDtype) {
  EXPECT_EQ(ct::cuda::table_compute(DType::Float16), DType::Float32);
  EXPECT_EQ(ct::cuda::table_compute(DType::BFloat16), DType::Float32);
  EXPECT_EQ(ct::cuda::table_compute(DType::Float64), DType::Float64);
  EXPECT_EQ(ct::cuda::table_compute(DType::UInt8), DType::Int64);
  EXPECT_EQ(ct::cuda::table_compute(DType::Int32), DType::Int64);
  EXPECT_EQ(ct::cuda::table_compute(DType::Bool), DType::Bool);
  EXPECT_EQ(ct::cuda::code(DType::Float32), 8);  // ct_dtype's numbering
}
