// The eager CUDA kernels derived from element functions (cuda/element.h), without a GPU: every
// elementwise operator gets a CUDA kernel, every derived kernel's source compiles with NVRTC (which
// needs no device), and one runs on the host with the CUDA keywords defined away, against eager cpu
// results. Running them on a GPU is scripts/gpu_suite.sh's part (test_devices.py's cases).
#include "cuda/element.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>

#include "cuda/context.h"
#include "dispatch/dispatcher.h"
#include "ops/functions.h"

namespace ct::cuda {
namespace {

TEST(CudaElement, EveryElementwiseOperatorHasACudaKernel) {
  size_t derived = 0;
  for (const OperatorDef* op : Registry::get().all()) {
    if (!op->element || (op->element_form != ElementForm::Unary && op->element_form != ElementForm::Binary)) continue;
    EXPECT_TRUE(op->kernel_keys().has(DispatchKey::CUDA)) << op->full_name;
    derived += op->compute[static_cast<int>(DispatchKey::CUDA)] != nullptr;
  }
  EXPECT_GE(derived, 20u);
}

TEST(CudaElement, EveryDerivedKernelCompilesWithNvrtc) {
  const ct_cuda_driver* d = library();
  if (!d) GTEST_SKIP() << "libctorch_cuda.so is not built here: " << unavailable_reason();
  for (const OperatorDef* op : Registry::get().all()) {
    if (!op->element || (op->element_form != ElementForm::Unary && op->element_form != ElementForm::Binary)) continue;
    for (const char* type : {"float", "double"}) {
      const std::string s = element_kernel_source(*op->element, type, op->element->has_alpha);
      char* image = nullptr;
      size_t size = 0;
      char* log = nullptr;
      EXPECT_EQ(d->nvrtc_compile(s.c_str(), "ct_element.cu", 8, 0, &image, &size, &log), CT_CUDA_OK)
          << op->full_name << " " << type << ": " << d->last_error();
      (void)d->buffer_free(image);
      (void)d->buffer_free(log);
    }
  }
}

// The derived kernel of logaddexp, built by the host compiler with the CUDA keywords defined away
// and run as 2 blocks of 256 threads one after the other (the kernel never synchronizes).
TEST(CudaElement, DerivedKernelRunsLikeEagerOnTheHost) {
  const std::string source = element_kernel_source(*builtin_op("logaddexp.Tensor").element, "float", false);
  const std::string prelude =
      "#include <math.h>\n#include <cstring>\nstruct ct_dim3 { unsigned x = 0; };\n"
      "static ct_dim3 threadIdx, blockIdx, gridDim{2};\n#define __global__\n#define __device__\n"
      "#define __forceinline__ inline\n#define __restrict__\n#define __launch_bounds__(n)\n"
      "static inline float __int_as_float(unsigned u) { float f; std::memcpy(&f, &u, 4); return f; }\n"
      "static inline double __longlong_as_double(long long u) { double d; std::memcpy(&d, &u, 8); return d; }\n"
      "static inline int __float_as_int(float f) { int u; std::memcpy(&u, &f, 4); return u; }\n"
      "static inline long long __double_as_longlong(double d) { long long u; std::memcpy(&u, &d, 8); return u; }\n";
  const std::string launcher =
      "extern \"C\" void ct_launch(float* o, const float* a, const float* b, long long n) {\n"
      "  for (unsigned k = 0; k < 2; ++k) for (unsigned t = 0; t < 256; ++t) {\n"
      "    blockIdx.x = k; threadIdx.x = t; ct_element(o, a, b, 0.0f, n);\n  }\n}\n";
  const std::string dir = ::testing::TempDir(), cpp = dir + "ct_element_host.cpp", so = dir + "ct_element_host.so";
  std::ofstream(cpp) << prelude << source << launcher;
  const std::string cmd = std::string(CTORCH_TEST_CXX) + " -std=c++17 -O1 -shared -fPIC -o " + so + " " + cpp;
  ASSERT_EQ(std::system(cmd.c_str()), 0) << source;
  void* h = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << dlerror();
  using Launch = void (*)(float*, const float*, const float*, long long);
  const Launch launch = reinterpret_cast<Launch>(dlsym(h, "ct_launch"));
  ASSERT_NE(launch, nullptr);
  const int64_t n = 700;  // more than the 512 threads: the grid-stride loop comes round
  Tensor a = ops::empty({n}, DType::Float32, kCPU), b = ops::empty({n}, DType::Float32, kCPU);
  for (int64_t i = 0; i < n; ++i) {
    a->data_as<float>()[i] = static_cast<float>(i % 37) * 0.75f - 12.0f;
    b->data_as<float>()[i] = static_cast<float>(i % 11) * -1.5f + 4.0f;
  }
  a->data_as<float>()[3] = b->data_as<float>()[3] = INFINITY;  // equal infinities stay
  const Tensor want = call(builtin_op("logaddexp.Tensor"), {Value(a), Value(b)});
  Tensor got = ops::empty({n}, DType::Float32, kCPU);
  launch(got->data_as<float>(), a->data_as<float>(), b->data_as<float>(), n);
  for (int64_t i = 0; i < n; ++i) {
    const float w = want->data_as<float>()[i], g = got->data_as<float>()[i];
    if (std::isinf(w)) EXPECT_EQ(g, w) << i;
    else EXPECT_NEAR(g, w, 1e-5f * (1 + std::fabs(w))) << i;
  }
  dlclose(h);
}

}  // namespace
}  // namespace ct::cuda
