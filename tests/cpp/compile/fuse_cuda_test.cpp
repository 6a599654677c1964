// The CUDA source of fused plans: generated here for graphs on cuda:0 (their metas say so; nothing
// runs), checked for its structure and compiled with NVRTC, which needs no GPU. Running the kernels
// is the GPU suite's part (tests/capi/test_cuda.c, bindings/python/tests/test_devices.py).
#include "compile/fuse_cuda.h"

#include <gtest/gtest.h>

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
    EXPECT_NE(src[0].find(dtype == DType::Float32 ? "expf(" : "exp("), std::string::npos);
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
