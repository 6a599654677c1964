// The CUDA source of fused plans: generated here for graphs on cuda:0 (their metas say so; nothing
// runs), checked for its structure and compiled with NVRTC, which needs no GPU. Running the kernels
// is the GPU suite's part (tests/capi/test_cuda.c, bindings/python/tests/test_devices.py).
#include "compile/fuse_cuda.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "compile/fuse.h"
#include "cuda/context.h"
#include "graph_builder.h"

namespace ct::compile {
namespace {

using namespace graph_testing;

Arg t(Ref r) { return tensor_arg(r); }

// Builds on the cpu (each call computes eagerly for its metas), then moves every meta to cuda:0.
void move_to_cuda(Graph& g) {
  for (Node& n : g.nodes)
    for (TensorMeta& m : n.outs) m.device = Device{DeviceType::CUDA, 0};
}

std::vector<std::string> fused_sources(GraphBuilder& b, const std::vector<Ref>& outs) {
  b.g.outputs = outs;
  move_to_cuda(b.g);
  fuse(b.g);
  std::vector<std::string> sources;
  for (const Node& n : b.g.nodes)
    if (n.kind == Node::Kind::Fused) sources.push_back(n.fused->device_source());
  return sources;
}

// NVRTC compiles s for sm_80 (an error fails with the compiler log).
void expect_compiles(const std::string& s) {
  const ct_cuda_driver* d = cuda::library();
  if (!d) GTEST_SKIP() << "libctorch_cuda.so is not built here: " << cuda::unavailable_reason();
  char* image = nullptr;
  size_t size = 0;
  char* log = nullptr;
  const int st = d->nvrtc_compile(s.c_str(), "ct_fused.cu", 8, 0, &image, &size, &log);
  EXPECT_EQ(st, CT_CUDA_OK) << d->last_error() << "\n" << s;
  EXPECT_GT(size, 0u);
  (void)d->buffer_free(image);
  (void)d->buffer_free(log);
}

TEST(FuseCuda, PointwiseChainIsOneGridStrideKernel) {
  for (DType dtype : {DType::Float32, DType::Float64}) {
    GraphBuilder b;
    const Ref x = b.input(filled({64, 33}, dtype)), y = b.input(filled({64, 33}, dtype, 2));
    const Ref s = b.call("sigmoid", {t(x)});
    const Ref out = b.call("add.Tensor", {t(b.call("mul.Tensor", {t(x), t(s)})), t(y), double_arg(0.5)});
    const std::vector<std::string> src = fused_sources(b, {out});
    ASSERT_EQ(src.size(), 1u);
    EXPECT_NE(src[0].find("extern \"C\" __global__"), std::string::npos);
    EXPECT_NE(src[0].find("ct::fn::Sigmoid{}(s"), std::string::npos);  // the eager kernels' functor
    EXPECT_EQ(src[0].find("__shared__"), std::string::npos);  // no rows: no block reduction
    // alpha 0.5 as its exact bits
    EXPECT_NE(src[0].find(dtype == DType::Float32 ? "__int_as_float(0x3f000000)" : "0x3fe0000000000000"),
              std::string::npos);
    expect_compiles(src[0]);
  }
}

TEST(FuseCuda, LayerNormRowsUseOneBlockPerRowAndATree) {
  GraphBuilder b;
  const Ref x = b.input(filled({8, 300})), w = b.input(filled({300}, DType::Float32, 3)),
            bias = b.input(filled({300}, DType::Float32, 4));
  auto mean = [&](Ref a) { return b.call("mean.dim_IntList", {t(a), list_arg({-1}), bool_arg(true)}); };
  const Ref y = b.call("sub.Tensor", {t(x), t(mean(x)), int_arg(1)});
  const Ref v = mean(b.call("mul.Tensor", {t(y), t(y)}));
  const Ref r = b.call("rsqrt", {t(b.call("add.Scalar", {t(v), double_arg(1e-5), int_arg(1)}))});
  const Ref n = b.call("mul.Tensor", {t(b.call("mul.Tensor", {t(y), t(r)})), t(w)});
  const Ref out = b.call("add.Tensor", {t(n), t(bias), int_arg(1)});
  const std::vector<std::string> src = fused_sources(b, {out});
  ASSERT_EQ(src.size(), 1u);
  EXPECT_NE(src[0].find("__shared__ T red[256]"), std::string::npos);
  EXPECT_NE(src[0].find("/ (T)C"), std::string::npos);  // mean
  expect_compiles(src[0]);
}

TEST(FuseCuda, ExtremaAndBroadcastOperandsCompile) {
  GraphBuilder b;
  const Ref x = b.input(filled({16, 40}, DType::Float64)), row = b.input(filled({16, 1}, DType::Float64, 5)),
            col = b.input(filled({40}, DType::Float64, 6));
  const Ref u = b.call("maximum.Tensor", {t(b.call("mul.Tensor", {t(x), t(col)})), t(row)});
  const Ref m = b.call("amax.dim_IntList", {t(b.call("exp", {t(u)})), list_arg({-1}), bool_arg(false)});
  const Ref k = b.call("relu", {t(b.call("sub.Tensor", {t(x), t(row), int_arg(2)}))});
  const std::vector<std::string> src = fused_sources(b, {m, b.call("mul.Scalar", {t(k), int_arg(3)})});
  ASSERT_GE(src.size(), 1u);
  for (const std::string& s : src) expect_compiles(s);
}

// Note [Running generated CUDA C on the host]
// Without a GPU the generated kernels still run: their source is plain C++ once the CUDA keywords
// are defined away, so it is compiled with the host compiler into a shared object, and every
// thread of a block runs as a std::thread meeting the others at __syncthreads (a std::barrier).
// Blocks run one after the other (so __shared__ can be a static), 2 of them, which exercises the
// grid-stride loops. This checks the generated code's logic (indexing, broadcasting, the order of
// its phases, the reduction tree) against eager results; what only a GPU checks is left.
const char* kEmulation = R"(#include <math.h>

#include <barrier>
#include <cstring>
#include <thread>
#include <vector>
struct ct_dim3 { unsigned x = 0, y = 0, z = 0; };
static thread_local ct_dim3 threadIdx, blockIdx;
static ct_dim3 gridDim{2, 1, 1};
static std::barrier<>* ct_block_barrier;
#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__
#define __launch_bounds__(n)
#define __shared__ static
static inline void __syncthreads() { ct_block_barrier->arrive_and_wait(); }
static inline float __int_as_float(unsigned u) { float f; std::memcpy(&f, &u, 4); return f; }
static inline double __longlong_as_double(long long u) { double d; std::memcpy(&d, &u, 8); return d; }
static inline int __float_as_int(float f) { int u; std::memcpy(&u, &f, 4); return u; }
static inline long long __double_as_longlong(double d) { long long u; std::memcpy(&u, &d, 8); return u; }
)";

// Compiles the kernel with its launcher into a shared object; the launcher's handle.
using Launcher = void (*)(void** pointers, long long rows, long long cols);
Launcher compile_on_host(const std::string& source, size_t npointers, const std::string& name) {
  std::string launcher = "extern \"C\" void ct_launch(void** p, long long R, long long C) {\n"
                         "  for (unsigned b = 0; b < gridDim.x; ++b) {\n"
                         "    std::barrier<> bar(256);\n    ct_block_barrier = &bar;\n"
                         "    std::vector<std::thread> threads;\n"
                         "    for (unsigned t = 0; t < 256; ++t) threads.emplace_back([&, t] {\n"
                         "      threadIdx.x = t; blockIdx.x = b;\n      ct_fused(";
  for (size_t i = 0; i < npointers; ++i) launcher += "(T*)p[" + std::to_string(i) + "], ";
  launcher += "R, C);\n    });\n    for (auto& th : threads) th.join();\n  }\n}\n";
  const std::string dir = ::testing::TempDir();
  const std::string cpp = dir + name + ".cpp", so = dir + name + ".so";
  std::ofstream(cpp) << kEmulation << source << launcher;
  const std::string cmd = std::string(CTORCH_TEST_CXX) + " -std=c++20 -O1 -shared -fPIC -pthread -o " + so + " " + cpp;
  if (std::system(cmd.c_str()) != 0) return nullptr;
  void* h = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  return h ? reinterpret_cast<Launcher>(dlsym(h, "ct_launch")) : nullptr;
}

// Fuses b's graph (one output) on "cuda", runs its one kernel on the host, and compares with eager.
void expect_emulated_kernel_matches_eager(GraphBuilder& b, Ref out, const std::string& name) {
  b.g.outputs = {out};
  const Tensor want = b.value(out);
  move_to_cuda(b.g);
  fuse(b.g);
  const Node* fused = nullptr;
  for (const Node& n : b.g.nodes)
    if (n.kind == Node::Kind::Fused) fused = &n;
  ASSERT_NE(fused, nullptr) << b.g.to_string();
  ASSERT_EQ(fused->outs.size(), 1u);
  const auto params = fused->fused->device_params();
  const Launcher launch = compile_on_host(fused->fused->device_source(), params.size(), name);
  ASSERT_NE(launch, nullptr) << fused->fused->device_source();
  Tensor got = ops::empty(want->sizes(), want->dtype(), kCPU);
  std::vector<Tensor> keep;
  std::vector<void*> pointers;
  for (const auto& [output, index] : params) {
    if (output) {
      pointers.push_back(got->data());
      continue;
    }
    const Node& input = b.g.nodes[fused->args[index].refs[0].node];
    ASSERT_EQ(input.kind, Node::Kind::Placeholder);
    keep.push_back(ops::contiguous(b.inputs[input.index]));
    pointers.push_back(keep.back()->data());
  }
  // [R, C] is the group's full shape: the largest input's, in these graphs.
  const Tensor* full = &keep[0];
  for (const Tensor& k : keep)
    if (k->numel() > (*full)->numel()) full = &k;
  const int64_t cols = (*full)->sizes().back();
  launch(pointers.data(), (*full)->numel() / cols, cols);
  const Tensor diff = ops::abs(ops::sub(ops::to(got, DType::Float64), ops::to(want, DType::Float64)));
  const Tensor scale = ops::abs(ops::to(want, DType::Float64));
  const double* dp = diff->data_as<double>();
  const double* sp = scale->data_as<double>();
  for (int64_t i = 0; i < diff->numel(); ++i)
    ASSERT_LE(dp[i], 1e-5 * (1 + sp[i])) << "element " << i << "\n" << fused->fused->device_source();
}

TEST(FuseCuda, GeneratedPointwiseKernelRunsLikeEagerOnAHostEmulation) {
  GraphBuilder b;
  const Ref x = b.input(filled({40, 33})), y = b.input(filled({33}, DType::Float32, 2));
  const Ref s = b.call("sigmoid", {t(x)});
  const Ref out = b.call("sub.Tensor", {t(b.call("mul.Tensor", {t(x), t(s)})), t(y), double_arg(0.5)});
  expect_emulated_kernel_matches_eager(b, out, "ct_fused_pointwise");
}

TEST(FuseCuda, GeneratedLayerNormKernelRunsLikeEagerOnAHostEmulation) {
  for (DType dtype : {DType::Float32, DType::Float64}) {
    GraphBuilder b;
    const Ref x = b.input(filled({5, 300}, dtype)), w = b.input(filled({300}, dtype, 3));
    auto mean = [&](Ref a) { return b.call("mean.dim_IntList", {t(a), list_arg({-1}), bool_arg(true)}); };
    const Ref y = b.call("sub.Tensor", {t(x), t(mean(x)), int_arg(1)});
    const Ref v = mean(b.call("mul.Tensor", {t(y), t(y)}));
    const Ref r = b.call("rsqrt", {t(b.call("add.Scalar", {t(v), double_arg(1e-5), int_arg(1)}))});
    const Ref out = b.call("mul.Tensor", {t(b.call("mul.Tensor", {t(y), t(r)})), t(w)});
    expect_emulated_kernel_matches_eager(b, out, dtype == DType::Float32 ? "ct_fused_ln32" : "ct_fused_ln64");
  }
}

TEST(FuseCuda, GeneratedExtremumKernelRunsLikeEagerOnAHostEmulation) {
  GraphBuilder b;
  const Ref x = b.input(filled({7, 600})), row = b.input(filled({7, 1}, DType::Float32, 5));
  const Ref u = b.call("maximum.Tensor", {t(b.call("exp", {t(x)})), t(row)});
  const Ref out = b.call("amax.dim_IntList", {t(u), list_arg({-1}), bool_arg(false)});
  expect_emulated_kernel_matches_eager(b, out, "ct_fused_amax");
}

// Every operator the registry tags Fusible, each form once, summed into one chain (one kernel).
// The inputs lie in [0.5, 2.5], where every element function is finite.
Ref every_fusible_chain(GraphBuilder& b, DType dtype, size_t& count) {
  auto positive = [&](uint32_t seed) {
    return ops::add(ops::abs(filled({6, 50}, dtype, seed)), Scalar(0.5));
  };
  const Ref x = b.input(positive(1)), y = b.input(positive(2));
  Ref acc = x;
  auto sum_in = [&](Ref r) { acc = b.call("add.Tensor", {t(acc), t(r), int_arg(1)}); };
  count = 0;
  for (const OperatorDef* op : Registry::get().all()) {
    if (!op->has(Tag::Fusible)) continue;
    ++count;
    const std::string& name = op->full_name;
    const bool alpha = op->element && op->element->has_alpha;
    switch (op->element_form) {
      case ElementForm::Unary: sum_in(b.call(name, {t(x)})); break;
      case ElementForm::Binary:  // every schema argument is given (alpha 1 is the plain form)
        sum_in(b.call(name, alpha ? std::vector<Arg>{t(x), t(y), int_arg(1)} : std::vector<Arg>{t(x), t(y)}));
        if (alpha) sum_in(b.call(name, {t(x), t(y), double_arg(0.5)}));
        break;
      case ElementForm::BinaryScalar:
      case ElementForm::ReverseScalar:
        sum_in(b.call(name, alpha ? std::vector<Arg>{t(x), double_arg(0.7), int_arg(1)}
                                  : std::vector<Arg>{t(x), double_arg(0.7)}));
        if (alpha) sum_in(b.call(name, {t(x), double_arg(0.7), int_arg(2)}));
        break;
      case ElementForm::None: sum_in(b.call(name, {t(x), list_arg({-1}), bool_arg(true)})); break;
    }
  }
  return acc;
}

// An operator added with an element function is covered here without editing the test: its fused
// CUDA source compiles with NVRTC and its emulation gives eager's values.
TEST(FuseCuda, EveryFusibleOperatorCompilesAndRunsLikeEager) {
  for (DType dtype : {DType::Float32, DType::Float64}) {
    size_t count = 0;
    GraphBuilder compiled;
    const std::vector<std::string> src = fused_sources(compiled, {every_fusible_chain(compiled, dtype, count)});
    EXPECT_GE(count, 25u);  // the registry's Fusible tag is not empty
    ASSERT_EQ(src.size(), 1u) << compiled.g.to_string();
    expect_compiles(src[0]);
    GraphBuilder emulated;
    const Ref out = every_fusible_chain(emulated, dtype, count);
    expect_emulated_kernel_matches_eager(emulated, out, dtype == DType::Float32 ? "ct_fused_every32" : "ct_fused_every64");
  }
}

TEST(FuseCuda, CpuPlansHaveNoDeviceSource) {
  GraphBuilder b;
  const Ref x = b.input(filled({4, 4}));
  b.g.outputs = {b.call("exp", {t(b.call("neg", {t(x)}))})};
  fuse(b.g);
  for (const Node& n : b.g.nodes)
    if (n.kind == Node::Kind::Fused) EXPECT_EQ(n.fused->device_source(), "");
}

}  // namespace
}  // namespace ct::compile
