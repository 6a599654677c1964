#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "dispatch/dispatcher.h"
#include "dispatch/registry.h"
#include "ops/functions.h"

using ct::DispatchKey;
using ct::DispatchKeySet;
using ct::DType;
using ct::Tensor;

namespace {

struct ProfilerLog {
  std::vector<std::string> names;
  size_t nargs = 0;
  const ct::TensorImpl* arg0 = nullptr;
  const ct::TensorImpl* arg1 = nullptr;
  double alpha = 0;
  bool keys_below_profiler = false;
  bool had_output_after = false;
};

void profiler_fallback(void* data, ct::Frame& f) {
  auto* log = static_cast<ProfilerLog*>(data);
  log->names.push_back(f.name());
  if (log->names.size() == 1) {
    log->nargs = f.nargs;
    if (f.nargs > 0 && f.arg(0).is_tensor()) log->arg0 = f.arg(0).tensor_ptr();
    if (f.nargs > 1 && f.arg(1).is_tensor()) log->arg1 = f.arg(1).tensor_ptr();
    if (f.nargs > 2) log->alpha = f.arg(2).to_double();
    log->keys_below_profiler = !f.keys.has(DispatchKey::Profiler) && f.keys.has(DispatchKey::CPU);
  }
  ct::redispatch(f);
  if (log->names.size() == 1) log->had_output_after = f.nouts > 0 && f.outs[0].defined();
}

// Installs the fallback for one test and always removes it, so other tests see no Profiler kernel.
class ProfilerFallback {
 public:
  explicit ProfilerFallback(ProfilerLog* log) {
    ct::Registry::get().set_fallback(DispatchKey::Profiler, ct::Kernel{profiler_fallback, log, nullptr});
  }
  ~ProfilerFallback() { ct::Registry::get().set_fallback(DispatchKey::Profiler, ct::Kernel{}); }
};

Tensor range(int64_t n, DType d = DType::Float32) { return ct::ops::arange(0, static_cast<double>(n), 1, d, ct::kCPU); }

}  // namespace

TEST(Dispatcher, ProfilerFallbackSeesTheCallAndRedispatchesToCpu) {
  Tensor a = range(6), b = ct::ops::full({6}, ct::Scalar(10.0), DType::Float32, ct::kCPU);
  ProfilerLog log;
  Tensor out;
  {
    ProfilerFallback install(&log);
    EXPECT_TRUE(ct::Registry::get().fallback_keys().has(DispatchKey::Profiler));
    ct::DispatchKeyGuard g{DispatchKeySet(DispatchKey::Profiler), DispatchKeySet()};
    out = ct::ops::add(a, b, ct::Scalar(2));
  }
  EXPECT_FALSE(ct::Registry::get().fallback_keys().has(DispatchKey::Profiler));
  ASSERT_FALSE(log.names.empty());
  EXPECT_EQ(log.names[0], "add.Tensor");
  EXPECT_EQ(log.nargs, 3u);
  EXPECT_EQ(log.arg0, a.impl());
  EXPECT_EQ(log.arg1, b.impl());
  EXPECT_EQ(log.alpha, 2.0);
  EXPECT_TRUE(log.keys_below_profiler);
  EXPECT_TRUE(log.had_output_after);
  ASSERT_TRUE(out.defined());
  EXPECT_TRUE(out->device().is_cpu());
  EXPECT_EQ(out->dtype(), DType::Float32);
  ASSERT_TRUE(out->sizes().equals({6}));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out->data_as<float>()[i], static_cast<float>(i) + 2.0f * 10.0f) << i;
}

TEST(Dispatcher, ProfilerFallbackWorksThroughTheBoxedCallHelper) {
  const ct::OperatorDef& mul = ct::builtin_op("mul.Tensor");
  Tensor a = range(4), b = range(4);
  ProfilerLog log;
  Tensor out;
  {
    ProfilerFallback install(&log);
    ct::DispatchKeyGuard g{DispatchKeySet(DispatchKey::Profiler), DispatchKeySet()};
    out = ct::call(mul, {a, b});
  }
  ASSERT_EQ(log.names.size(), 1u);
  EXPECT_EQ(log.names[0], "mul.Tensor");
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out->data_as<float>()[i], float(i * i));
}

TEST(Dispatcher, ExcludedProfilerKeySkipsTheFallback) {
  Tensor a = range(3), b = range(3);
  ProfilerLog log;
  Tensor out;
  {
    ProfilerFallback install(&log);
    ct::DispatchKeyGuard g{DispatchKeySet(DispatchKey::Profiler), DispatchKeySet(DispatchKey::Profiler)};
    out = ct::ops::add(a, b);
  }
  EXPECT_TRUE(log.names.empty());
  EXPECT_EQ(out->data_as<float>()[2], 4.0f);
}

TEST(Dispatcher, FallbackDoesNotRunWithoutTheKeyIncluded) {
  Tensor a = range(3);
  ProfilerLog log;
  {
    ProfilerFallback install(&log);
    Tensor out = ct::ops::add(a, a);
    EXPECT_EQ(out->data_as<float>()[1], 2.0f);
  }
  EXPECT_TRUE(log.names.empty());
}

TEST(Dispatcher, CallKeysComeFromTensorDevicesAndTheDeviceArgument) {
  const ct::OperatorDef& add = ct::builtin_op("add.Tensor");
  Tensor a = range(2);
  Tensor m = ct::ops::empty({2}, DType::Float32, ct::kMeta);
  ct::Value cpu_args[] = {a, a, ct::Value(int64_t(1))};
  EXPECT_EQ(ct::call_keys(add, cpu_args, 3).bits(), DispatchKeySet(DispatchKey::CPU).bits());
  ct::Value meta_args[] = {m, m, ct::Value(int64_t(1))};
  EXPECT_EQ(ct::call_keys(add, meta_args, 3).bits(), DispatchKeySet(DispatchKey::Meta).bits());
  Tensor out;
  ct::dispatch(add, meta_args, 3, &out, 1);
  EXPECT_TRUE(out->device().is_meta());
}

namespace {

const ct::OperatorDef& test_op(const char* schema, const char* full_name, bool cpu_kernel) {
  ct::Registry& r = ct::Registry::get();
  if (ct::OperatorDef* op = r.find(full_name)) return *op;
  ct::OpBuilder b = r.def(schema, /*builtin=*/false);
  if (cpu_kernel) {
    b.kernel(
        DispatchKey::CPU, [](void*, ct::Frame& f) { f.outs[0] = ct::ops::clone(Tensor::borrow(&f.tensor(0))); },
        ct::Determinism::Bitwise);
  }
  return b.def();
}

}  // namespace

TEST(Dispatcher, OperatorWithoutAnyKernelRaisesNamingTheOperator) {
  const ct::OperatorDef& op = test_op("cttest::no_kernel(Tensor self) -> Tensor", "cttest::no_kernel", false);
  Tensor a = range(2);
  try {
    ct::call(op, {a});
    FAIL() << "no error";
  } catch (const ct::Error& e) {
    EXPECT_EQ(e.status(), CT_ERROR_NOT_IMPLEMENTED);
    EXPECT_NE(e.message().find("cttest::no_kernel"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("cpu"), std::string::npos) << e.message();
  }
}

TEST(Dispatcher, OperatorWithoutKernelForTheTensorsKeyRaisesNamingOpAndKey) {
  const ct::OperatorDef& op = test_op("cttest::cpu_only(Tensor self) -> Tensor", "cttest::cpu_only", true);
  Tensor a = range(2);
  Tensor ok = ct::call(op, {a});
  EXPECT_EQ(ok->data_as<float>()[1], 1.0f);
  Tensor m = ct::ops::empty({2}, DType::Float32, ct::kMeta);
  try {
    ct::call(op, {m});
    FAIL() << "no error";
  } catch (const ct::Error& e) {
    EXPECT_EQ(e.status(), CT_ERROR_NOT_IMPLEMENTED);
    EXPECT_NE(e.message().find("cttest::cpu_only"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("meta"), std::string::npos) << e.message();
  }
}

TEST(Registry, DefiningAnExistingOperatorRaisesInvalidArgument) {
  try {
    ct::Registry::get().def("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
    FAIL() << "no error";
  } catch (const ct::Error& e) {
    EXPECT_EQ(e.status(), CT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(e.message().find("add.Tensor"), std::string::npos) << e.message();
  }
}

TEST(Registry, FindsOverloadsAndSuggestsSimilarNames) {
  ct::Registry& r = ct::Registry::get();
  EXPECT_NE(r.find("add.Tensor"), nullptr);
  EXPECT_NE(r.find("add.Scalar"), nullptr);
  EXPECT_EQ(r.find("add"), nullptr);
  EXPECT_EQ(r.find("no_such_op"), nullptr);
  EXPECT_GE(r.overloads("add").size(), 2u);
  std::vector<std::string> sim = r.similar_names("ad");
  EXPECT_NE(std::find(sim.begin(), sim.end(), "add"), sim.end());
  EXPECT_THROW(ct::builtin_op("no_such_op.Tensor"), ct::Error);
}

TEST(CanCast, ForbidsFloatingToIntegralAndNonBoolToBool) {
  EXPECT_TRUE(ct::can_cast(DType::Int32, DType::Float16));
  EXPECT_TRUE(ct::can_cast(DType::Bool, DType::Int8));
  EXPECT_TRUE(ct::can_cast(DType::Float64, DType::Float16));
  EXPECT_FALSE(ct::can_cast(DType::Float32, DType::Int64));
  EXPECT_FALSE(ct::can_cast(DType::Int32, DType::Bool));
  EXPECT_TRUE(ct::can_cast(DType::Bool, DType::Bool));
}
