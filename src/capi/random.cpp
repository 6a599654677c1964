// random.cpp - generators and random operators through the C ABI.
#include "capi/handle.h"
#include "core/error.h"
#include "dispatch/dispatcher.h"
#include "runtime/generator.h"

using namespace ct;
using capi::sizes_arg;
using capi::tensor_arg;
using runtime::Generator;

struct ct_generator {};  // never defined for real: a ct_generator* is a Generator*

Generator* ct::capi::generator_arg(const ct_generator* g, const char* fn, bool optional) {
  if (!g && optional) return nullptr;
  uint32_t tag = 0;
  if (g) std::memcpy(&tag, g, sizeof tag);  // see Note [Handle poisoning]
  CT_CHECK(tag == Generator::kLiveTag, CT_ERROR_INVALID_ARGUMENT, fn, ": gen is ",
           g ? "not a live generator (released already?)" : "NULL", ". Pass a handle from ct_generator_create");
  return reinterpret_cast<Generator*>(const_cast<ct_generator*>(g));
}

using capi::generator_arg;

namespace {

ct_generator* to_handle(Generator* g) { return reinterpret_cast<ct_generator*>(g); }

// The generator of a device given by a C string, for the default-generator functions.
Generator& default_of(const char* device) {
  const Device d = device ? parse_device(device) : kCPU;
  CT_CHECK(!d.is_meta(), CT_ERROR_DEVICE, "the meta device draws no random numbers, so it has no generator. Use \"cpu\"");
  return Generator::default_for(d);
}

// Runs an in-place random operator on self.
ct_status in_place(const char* fn, const char* op_name, ct_tensor* self, double a, double b, ct_generator* gen) {
  return capi::guard([&] {
    const Value args[] = {Value(&tensor_arg(self, fn, "self")), Value(a), Value(b), Value(generator_arg(gen, fn, true))};
    Tensor out;
    dispatch(builtin_op(op_name), args, 4, &out, 1);
  });
}

}  // namespace

extern "C" {

ct_status ct_manual_seed(uint64_t seed) {
  return capi::guard([&] { Generator::manual_seed_all(seed); });
}

ct_status ct_initial_seed(uint64_t* out) {
  return capi::guard([&] {
    capi::require_out(out, "ct_initial_seed", "out");
    *out = Generator::default_for(kCPU).initial_seed();
  });
}

ct_status ct_generator_create(const char* device, ct_generator** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    capi::require_out(out, "ct_generator_create", "out");
    const Device d = default_of(device).device();  // checks that the device has random numbers
    *out = to_handle(Generator::create(d));
  });
}

ct_status ct_default_generator(const char* device, ct_generator** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    capi::require_out(out, "ct_default_generator", "out");
    Generator& g = default_of(device);
    g.retain();
    *out = to_handle(&g);
  });
}

void ct_generator_release(ct_generator* g) {
  if (!g) return;
  uint32_t tag = 0;
  std::memcpy(&tag, g, sizeof tag);
  if (tag == Generator::kLiveTag) reinterpret_cast<Generator*>(g)->release();
}

ct_status ct_generator_manual_seed(ct_generator* g, uint64_t seed) {
  return capi::guard([&] { generator_arg(g, "ct_generator_manual_seed", false)->manual_seed(seed); });
}

ct_status ct_generator_initial_seed(const ct_generator* g, uint64_t* out) {
  return capi::guard([&] {
    const Generator* x = generator_arg(g, "ct_generator_initial_seed", false);
    capi::require_out(out, "ct_generator_initial_seed", "out");
    *out = x->initial_seed();
  });
}

ct_status ct_generator_get_offset(const ct_generator* g, uint64_t* out) {
  return capi::guard([&] {
    const Generator* x = generator_arg(g, "ct_generator_get_offset", false);
    capi::require_out(out, "ct_generator_get_offset", "out");
    *out = x->offset();
  });
}

ct_status ct_generator_set_offset(ct_generator* g, uint64_t offset) {
  return capi::guard([&] { generator_arg(g, "ct_generator_set_offset", false)->set_offset(offset); });
}

ct_status ct_generator_get_state(const ct_generator* g, uint8_t* state, size_t n) {
  return capi::guard([&] {
    const char* fn = "ct_generator_get_state";
    const Generator* x = generator_arg(g, fn, false);
    capi::require_out(state, fn, "state");
    CT_CHECK(n == Generator::kStateSize, CT_ERROR_INVALID_ARGUMENT, fn, ": n is ", n,
             ". Pass a buffer of CT_GENERATOR_STATE_SIZE (", Generator::kStateSize, ") bytes");
    x->get_state(state);
  });
}

ct_status ct_generator_set_state(ct_generator* g, const uint8_t* state, size_t n) {
  return capi::guard([&] {
    const char* fn = "ct_generator_set_state";
    Generator* x = generator_arg(g, fn, false);
    CT_CHECK(state, CT_ERROR_INVALID_ARGUMENT, fn, ": state is NULL");
    CT_CHECK(n == Generator::kStateSize, CT_ERROR_INVALID_ARGUMENT, fn, ": n is ", n,
             ". Pass the CT_GENERATOR_STATE_SIZE (", Generator::kStateSize, ") bytes ct_generator_get_state wrote");
    x->set_state(state);
  });
}

ct_status ct_tensor_rand(const int64_t* sizes, size_t ndim, ct_dtype dtype, const char* device, ct_generator* gen,
                         ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_rand", [&] {
    CT_OPERATOR(op, "rand");
    return call(op, {sizes_arg(sizes, ndim, "ct_tensor_rand"), generator_arg(gen, "ct_tensor_rand", true),
                     capi::dtype_arg(dtype, "ct_tensor_rand"), capi::device_arg(device)});
  });
}

ct_status ct_tensor_randn(const int64_t* sizes, size_t ndim, ct_dtype dtype, const char* device, ct_generator* gen,
                          ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_randn", [&] {
    CT_OPERATOR(op, "randn");
    return call(op, {sizes_arg(sizes, ndim, "ct_tensor_randn"), generator_arg(gen, "ct_tensor_randn", true),
                     capi::dtype_arg(dtype, "ct_tensor_randn"), capi::device_arg(device)});
  });
}

ct_status ct_tensor_randint(int64_t low, int64_t high, const int64_t* sizes, size_t ndim, ct_dtype dtype,
                            const char* device, ct_generator* gen, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_randint", [&] {
    CT_OPERATOR(op, "randint.low");
    return call(op, {low, high, sizes_arg(sizes, ndim, "ct_tensor_randint"), generator_arg(gen, "ct_tensor_randint", true),
                     capi::dtype_arg(dtype, "ct_tensor_randint"), capi::device_arg(device)});
  });
}

ct_status ct_tensor_randperm(int64_t n, ct_dtype dtype, const char* device, ct_generator* gen, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_randperm", [&] {
    CT_OPERATOR(op, "randperm");
    return call(op, {n, generator_arg(gen, "ct_tensor_randperm", true), capi::dtype_arg(dtype, "ct_tensor_randperm"), capi::device_arg(device)});
  });
}

ct_status ct_tensor_uniform_(ct_tensor* self, double from, double to, ct_generator* gen) {
  return in_place("ct_tensor_uniform_", "uniform_", self, from, to, gen);
}

ct_status ct_tensor_normal_(ct_tensor* self, double mean, double std, ct_generator* gen) {
  return in_place("ct_tensor_normal_", "normal_", self, mean, std, gen);
}

ct_status ct_tensor_bernoulli_(ct_tensor* self, double p, ct_generator* gen) {
  return capi::guard([&] {
    const char* fn = "ct_tensor_bernoulli_";
    CT_OPERATOR(op, "bernoulli_.float");
    call(op, {&tensor_arg(self, fn, "self"), p, generator_arg(gen, fn, true)});
  });
}

ct_status ct_tensor_bernoulli(const ct_tensor* p, ct_generator* gen, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_bernoulli", [&] {
    CT_OPERATOR(op, "bernoulli");
    return call(op, {&tensor_arg(p, "ct_tensor_bernoulli", "p"), generator_arg(gen, "ct_tensor_bernoulli", true)});
  });
}

ct_status ct_tensor_multinomial(const ct_tensor* probs, int64_t num_samples, int replacement, ct_generator* gen,
                                ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_multinomial", [&] {
    const char* fn = "ct_tensor_multinomial";
    CT_OPERATOR(op, "multinomial");
    return call(op, {&tensor_arg(probs, fn, "probs"), num_samples, replacement != 0, generator_arg(gen, fn, true)});
  });
}

ct_status ct_tensor_dropout(const ct_tensor* input, double p, int train, ct_generator* gen, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_dropout", [&] {
    const char* fn = "ct_tensor_dropout";
    CT_OPERATOR(op, "dropout");
    return call(op, {&tensor_arg(input, fn, "input"), p, train != 0, generator_arg(gen, fn, true)});
  });
}

}  // extern "C"
