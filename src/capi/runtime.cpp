// runtime.cpp - the ct_* functions over the runtime's settings (src/runtime/, src/dispatch/profiler.h):
// the default dtype and device, device contexts, the float32 matmul precision, deterministic
// algorithms, the log sink and level, and the profiler. Each checks its arguments, names itself in
// its errors, and calls the C++ setting it wraps.
#include <cstring>

#include "capi/handle.h"
#include "core/error.h"
#include "dispatch/profiler.h"
#include "ops/cpu/denormals.h"
#include "runtime/autocast.h"
#include "runtime/defaults.h"
#include "runtime/determinism.h"
#include "runtime/log.h"

using namespace ct;
using runtime::DeterministicMode;

namespace {

// A device argument from C, resolved by the same parser every other function uses.
Device device_from_c(const char* s, const char* fn) {
  CT_CHECK(s, CT_ERROR_INVALID_ARGUMENT, fn, ": device is NULL. Pass \"cpu\", \"meta\" or \"cuda:N\"");
  return parse_device(s);
}

}  // namespace

extern "C" {

// ---- Defaults

ct_status ct_set_default_dtype(ct_dtype dtype) {
  return capi::guard([&] {
    const DType d = capi::dtype_arg(dtype, "ct_set_default_dtype");
    CT_CHECK(d == DType::Float32 || d == DType::Float64, CT_ERROR_DTYPE, "ct_set_default_dtype: the default must be "
             "float32 or float64, got ", d, ". Pass CT_FLOAT32 or CT_FLOAT64");
    runtime::set_default_dtype(d);
  });
}

ct_dtype ct_get_default_dtype(void) { return static_cast<ct_dtype>(runtime::default_dtype()); }

// ---- Printing

namespace {

void check_print_struct(const ct_print_options* o, const char* fn, const char* name) {
  CT_CHECK(o, CT_ERROR_INVALID_ARGUMENT, fn, ": ", name, " is NULL");
  CT_CHECK(o->struct_size == sizeof(ct_print_options), CT_ERROR_INVALID_ARGUMENT, fn, ": ", name, "->struct_size is ",
           o->struct_size, " but this library's struct has ", sizeof(ct_print_options),
           " bytes. Set it to sizeof (ct_print_options_default does)");
}

void fill_print(const runtime::PrintOptions& p, ct_print_options* o) {
  o->precision = p.precision;
  o->threshold = p.threshold;
  o->edgeitems = p.edgeitems;
  o->linewidth = p.linewidth;
  o->sci_mode = p.sci_mode;
}

}  // namespace

ct_status ct_print_options_default(ct_print_options* out) {
  return capi::guard([&] {
    capi::require_out(out, "ct_print_options_default", "out");
    std::memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    fill_print(runtime::PrintOptions{}, out);
  });
}

ct_status ct_get_print_options(ct_print_options* out) {
  return capi::guard([&] {
    check_print_struct(out, "ct_get_print_options", "out");
    fill_print(runtime::print_options(), out);
  });
}

ct_status ct_set_print_options(const ct_print_options* o) {
  return capi::guard([&] {
    const char* fn = "ct_set_print_options";
    check_print_struct(o, fn, "options");
    CT_CHECK(o->precision >= 0 && o->precision <= 30, CT_ERROR_INVALID_ARGUMENT, fn, ": precision is ", o->precision,
             ". Pass digits in [0, 30]");
    CT_CHECK(o->threshold >= 0, CT_ERROR_INVALID_ARGUMENT, fn, ": threshold is ", o->threshold,
             ". Pass an element count >= 0 (INT64_MAX never summarizes)");
    CT_CHECK(o->edgeitems >= 0 && o->edgeitems <= (int64_t{1} << 40), CT_ERROR_INVALID_ARGUMENT, fn, ": edgeitems is ",
             o->edgeitems, ". Pass a count >= 0");
    CT_CHECK(o->linewidth >= 1 && o->linewidth <= (int64_t{1} << 20), CT_ERROR_INVALID_ARGUMENT, fn, ": linewidth is ",
             o->linewidth, ". Pass a width in [1, 2^20]");
    CT_CHECK(o->sci_mode >= -1 && o->sci_mode <= 1, CT_ERROR_INVALID_ARGUMENT, fn, ": sci_mode is ", o->sci_mode,
             ". Pass -1 (chosen from the values), 0 (never) or 1 (always)");
    runtime::set_print_options(runtime::PrintOptions{o->precision, o->threshold, o->edgeitems, o->linewidth, o->sci_mode});
  });
}

ct_status ct_set_default_device(const char* device) {
  return capi::guard([&] { runtime::set_default_device(device ? parse_device(device) : kCPU); });
}

ct_status ct_get_default_device(ct_device_type* type, int32_t* index) {
  return capi::guard([&] {
    capi::require_out(type, "ct_get_default_device", "type");
    capi::require_out(index, "ct_get_default_device", "index");
    const Device d = runtime::current_device();
    *type = static_cast<ct_device_type>(d.type);
    *index = d.index;
  });
}

ct_status ct_device_push(const char* device) {
  return capi::guard([&] { runtime::push_device(device_from_c(device, "ct_device_push")); });
}

ct_status ct_device_pop(void) {
  return capi::guard([&] {
    CT_CHECK(runtime::pop_device(), CT_ERROR_INVALID_ARGUMENT,
             "ct_device_pop: this thread has no device context to pop. Pair every ct_device_pop with a "
             "ct_device_push on the same thread");
  });
}

ct_status ct_set_float32_matmul_precision(const char* precision) {
  return capi::guard([&] {
    CT_CHECK(precision, CT_ERROR_INVALID_ARGUMENT, "ct_set_float32_matmul_precision: precision is NULL. Pass "
             "\"highest\", \"high\" or \"medium\"");
    CT_CHECK(runtime::set_matmul_precision(precision), CT_ERROR_INVALID_ARGUMENT,
             "ct_set_float32_matmul_precision: unknown precision '", precision,
             "'. Pass \"highest\", \"high\" or \"medium\"");
  });
}

const char* ct_get_float32_matmul_precision(void) { return runtime::matmul_precision_name(); }

// ---- Deterministic algorithms

ct_status ct_use_deterministic_algorithms(int mode, int warn_only) {
  return capi::guard([&] {
    runtime::set_deterministic_mode(!mode ? DeterministicMode::Off
                                    : warn_only ? DeterministicMode::Warn
                                                : DeterministicMode::Error);
  });
}

int ct_are_deterministic_algorithms_enabled(void) {
  return runtime::deterministic_mode() != DeterministicMode::Off;
}

int ct_is_deterministic_algorithms_warn_only_enabled(void) {
  return runtime::deterministic_mode() == DeterministicMode::Warn;
}

int32_t ct_get_deterministic_debug_mode(void) { return static_cast<int32_t>(runtime::deterministic_mode()); }

ct_status ct_set_deterministic_debug_mode(int32_t mode) {
  return capi::guard([&] {
    CT_CHECK(mode >= 0 && mode <= 2, CT_ERROR_INVALID_ARGUMENT, "ct_set_deterministic_debug_mode: mode ", mode,
             " is not a debug mode. Pass 0 (off), 1 (warn) or 2 (error)");
    runtime::set_deterministic_mode(static_cast<DeterministicMode>(mode));
  });
}

// ---- Automatic mixed precision

namespace {
DeviceType autocast_type(const ct_device_type& type, const char* fn) {  // by reference: see raw_enum
  const int t = capi::raw_enum(type);
  CT_CHECK(t >= 0 && t < kNumDeviceTypes && t != static_cast<int>(DeviceType::Meta), CT_ERROR_INVALID_ARGUMENT, fn,
           ": device type ", t, " has no autocast. Pass CT_DEVICE_CPU, CT_DEVICE_CUDA or a plugin type");
  return static_cast<DeviceType>(t);
}
}  // namespace

ct_status ct_autocast_set_enabled(ct_device_type type, int enabled) {
  return capi::guard([&] { runtime::set_autocast_enabled(autocast_type(type, "ct_autocast_set_enabled"), enabled != 0); });
}

ct_status ct_autocast_is_enabled(ct_device_type type, int* out) {
  return capi::guard([&] {
    const DeviceType t = autocast_type(type, "ct_autocast_is_enabled");
    CT_CHECK(out, CT_ERROR_INVALID_ARGUMENT, "ct_autocast_is_enabled: out is NULL. Pass an int to fill");
    *out = runtime::autocast_state().enabled[static_cast<int>(t)];
  });
}

ct_status ct_autocast_set_dtype(ct_device_type type, ct_dtype dtype) {
  return capi::guard([&] {
    const DeviceType t = autocast_type(type, "ct_autocast_set_dtype");
    const DType d = capi::dtype_arg(dtype, "ct_autocast_set_dtype");
    CT_CHECK(d == DType::Float16 || d == DType::BFloat16, CT_ERROR_DTYPE, "ct_autocast_set_dtype: autocast computes "
             "in float16 or bfloat16, not ", d, ". Pass CT_FLOAT16 or CT_BFLOAT16");
    runtime::autocast_state().dtype[static_cast<int>(t)] = d;
  });
}

ct_status ct_autocast_get_dtype(ct_device_type type, ct_dtype* out) {
  return capi::guard([&] {
    const DeviceType t = autocast_type(type, "ct_autocast_get_dtype");
    CT_CHECK(out, CT_ERROR_INVALID_ARGUMENT, "ct_autocast_get_dtype: out is NULL. Pass a ct_dtype to fill");
    *out = static_cast<ct_dtype>(runtime::autocast_state().dtype[static_cast<int>(t)]);
  });
}

// ---- Logging

ct_status ct_set_log_handler(ct_log_fn fn, void* user_data, ct_destroy_fn destroy) {
  return capi::guard([&] { runtime::set_log_handler(fn, user_data, destroy); });
}

ct_status ct_set_log_level(ct_log_level level) {
  return capi::guard([&] {
    const int l = capi::raw_enum(level);
    CT_CHECK(l >= CT_LOG_DEBUG && l <= CT_LOG_ERROR, CT_ERROR_INVALID_ARGUMENT, "ct_set_log_level: level ", l,
             " is not a ct_log_level. Pass CT_LOG_DEBUG (0) to CT_LOG_ERROR (3)");
    runtime::set_log_threshold(static_cast<runtime::LogLevel>(l));
  });
}

ct_log_level ct_get_log_level(void) { return static_cast<ct_log_level>(runtime::log_threshold()); }

void ct_set_warn_always(int on) { runtime::set_warn_always(on != 0); }

ct_status ct_set_flush_denormal(int on, int* out) {
  return capi::guard([&] {
    const bool ok = cpu::set_flush_denormal(on != 0);
    if (out) *out = ok ? 1 : 0;
  });
}

int ct_is_warn_always_enabled(void) { return runtime::warn_always() ? 1 : 0; }

// ---- Profiler

ct_status ct_profiler_start(void) {
  return capi::guard([&] { profiler_start(); });
}

ct_status ct_profiler_stop_to_file(const char* path) {
  return capi::guard([&] {
    CT_CHECK(path, CT_ERROR_INVALID_ARGUMENT, "ct_profiler_stop_to_file: path is NULL. Pass the trace file's name");
    profiler_stop_to_file(path);
  });
}

ct_status ct_profiler_stop_to_string(char** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    capi::require_out(out, "ct_profiler_stop_to_string", "out");
    *out = capi::copy_string(profiler_stop());
  });
}

int ct_profiler_is_running(void) { return profiler_enabled() ? 1 : 0; }

}  // extern "C"
