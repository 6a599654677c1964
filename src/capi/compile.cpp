// compile.cpp - ct_compile, ct_compiled_*, ct_export and ct_program_* through the C ABI.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "capi/handle.h"
#include "compile/compiled.h"
#include "compile/export.h"
#include "compile/fuse_cpp.h"
#include "capi/tagged_handle.h"
#include "core/fault_injection.h"
#include "io/file.h"

using namespace ct;
using compile::CompiledFunction;
using compile::Program;

// Handles: each is a tagged struct owning its object, in a pool slot whose memory is never
// returned to the system, so the tag of a released handle stays readable and NULL and released
// handles are refused on entry (Note [Handle poisoning]).
struct ct_compile_options {
  uint32_t tag;
  compile::CompileOptions options;
};
struct ct_compiled {
  uint32_t tag;
  std::atomic<int32_t> refs{1};
  std::unique_ptr<CompiledFunction> fn;
};
struct ct_dynamic_shapes {
  uint32_t tag;
  std::vector<compile::DimDecl> dims;
};
struct ct_program {
  uint32_t tag;
  std::atomic<int32_t> refs{1};
  std::unique_ptr<Program> program;
};

namespace {

constexpr uint32_t kOptionsTag = 0x4354434fu;   // "CTCO"
constexpr uint32_t kCompiledTag = 0x43544346u;  // "CTCF"
constexpr uint32_t kShapesTag = 0x43544453u;    // "CTDS"
constexpr uint32_t kProgramTag = 0x43545047u;   // "CTPG"

compile::CompileOptions& options_arg(ct_compile_options* o, const char* fn) {
  return capi::live_tagged(o, kOptionsTag, fn, "options").options;
}
CompiledFunction& compiled_arg(const ct_compiled* c, const char* fn) {
  return *capi::live_tagged(const_cast<ct_compiled*>(c), kCompiledTag, fn, "compiled").fn;
}

const Program& program_arg(const ct_program* p, const char* fn) {
  return *capi::live_tagged(const_cast<ct_program*>(p), kProgramTag, fn, "program").program;
}
ct_program* program_handle(std::unique_ptr<Program> p) {
  ct_program* h = capi::new_tagged<ct_program>(kProgramTag);
  h->program = std::move(p);
  return h;
}

const char* string_arg(const char* s, const char* fn, const char* what) {
  CT_CHECK(s, CT_ERROR_INVALID_ARGUMENT, fn, ": ", what, " is NULL");
  return s;
}

// fn as the tracer calls it: C handles in, Tensors out, its failure raised with its message.
compile::TraceFn trace_fn(ct_traced_fn fn, std::shared_ptr<void> data, const char* context) {
  std::string what = context;
  return [fn, data, what](const TensorImpl* const* inputs, size_t n, Tensor* outs, size_t nouts) {
    std::vector<ct_tensor*> raw(nouts, nullptr);
    const int st = capi::call_back(what.c_str(), [&] {
      return fn(data.get(), reinterpret_cast<const ct_tensor* const*>(inputs), n, raw.data(), nouts);
    });
    if (st != CT_OK) {
      capi::drop_callback_results(raw.data(), nouts);
      capi::fail_callback(st, what);
    }
    capi::adopt_callback_results(raw.data(), nouts, outs, what);
    for (size_t i = 0; i < nouts; ++i)
      CT_CHECK(outs[i].defined(), CT_ERROR_INVALID_ARGUMENT, what, ": the function returned CT_OK but left output ", i,
               " NULL");
  };
}

std::vector<const TensorImpl*> inputs_arg(const ct_tensor* const* ts, size_t n, const char* fn) {
  CT_CHECK(ts || n == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": inputs is NULL but n_inputs is ", n);
  std::vector<const TensorImpl*> out;
  for (size_t i = 0; i < n; ++i) out.push_back(&capi::tensor_arg(ts[i], fn, "inputs"));
  return out;
}

// Writes results to outputs (cleared first, so a failure leaves them all NULL).
template <typename F>
ct_status with_outputs(ct_tensor** outputs, size_t n, const char* fn, F&& body) {
  if (outputs)
    for (size_t i = 0; i < n; ++i) outputs[i] = nullptr;
  return capi::guard([&] {
    CT_CHECK(outputs || n == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": outputs is NULL but n_outputs is ", n);
    std::vector<Tensor> outs;
    body(outs);
    CT_CHECK(outs.size() == n, CT_ERROR_INVALID_ARGUMENT, fn, ": ", outs.size(), " outputs, but n_outputs is ", n);
    for (size_t i = 0; i < n; ++i) outputs[i] = capi::to_handle(std::move(outs[i]));
  });
}

template <typename F>
ct_status set_option(ct_compile_options* o, const char* fn, F&& body) {
  return capi::guard([&] {
    compile::CompileOptions& opts = options_arg(o, fn);
    compile::CompileOptions next = opts;
    body(next);
    next.validate(false);
    opts = std::move(next);
  });
}

}  // namespace

extern "C" {

// ---- options ----

ct_status ct_compile_options_create(ct_compile_options** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    capi::require_out(out, "ct_compile_options_create", "out");
    *out = capi::new_tagged<ct_compile_options>(kOptionsTag);
  });
}

void ct_compile_options_release(ct_compile_options* o) { capi::release_single_tagged(o, kOptionsTag); }

ct_status ct_compile_options_set_backend(ct_compile_options* o, const char* backend) {
  return set_option(o, "ct_compile_options_set_backend",
                    [&](auto& x) { x.backend = string_arg(backend, "ct_compile_options_set_backend", "backend"); });
}
ct_status ct_compile_options_set_mode(ct_compile_options* o, const char* mode) {
  return set_option(o, "ct_compile_options_set_mode",
                    [&](auto& x) { x.mode = string_arg(mode, "ct_compile_options_set_mode", "mode"); });
}
ct_status ct_compile_options_set_option(ct_compile_options* o, const char* key, const char* value) {
  const char* fn = "ct_compile_options_set_option";
  return set_option(o, fn, [&](auto& x) {
    x.options.emplace_back(string_arg(key, fn, "key"), string_arg(value, fn, "value"));
  });
}
ct_status ct_compile_options_set_dynamic(ct_compile_options* o, ct_dynamic dynamic) {
  return set_option(o, "ct_compile_options_set_dynamic", [&](auto& x) {
    const int d = capi::raw_enum(dynamic);
    CT_CHECK(d >= 0 && d <= 2, CT_ERROR_INVALID_ARGUMENT, "ct_compile_options_set_dynamic: ", d,
             " is not a ct_dynamic. Use CT_DYNAMIC_OFF, CT_DYNAMIC_ON or CT_DYNAMIC_AUTOMATIC");
    x.dynamic = static_cast<compile::Dynamic>(d);
  });
}
ct_status ct_compile_options_set_fullgraph(ct_compile_options* o, int fullgraph) {
  return set_option(o, "ct_compile_options_set_fullgraph", [&](auto& x) { x.fullgraph = fullgraph != 0; });
}
ct_status ct_compile_options_set_recompile_limit(ct_compile_options* o, int64_t limit) {
  return set_option(o, "ct_compile_options_set_recompile_limit", [&](auto& x) { x.recompile_limit = limit; });
}
ct_status ct_compile_options_set_name(ct_compile_options* o, const char* name) {
  return set_option(o, "ct_compile_options_set_name",
                    [&](auto& x) { x.name = string_arg(name, "ct_compile_options_set_name", "name"); });
}
ct_status ct_compile_options_set_disable(ct_compile_options* o, int disable) {
  return set_option(o, "ct_compile_options_set_disable", [&](auto& x) { x.disable = disable != 0; });
}

// ---- compiled functions ----

ct_status ct_compile(ct_traced_fn fn, void* user_data, ct_destroy_fn destroy, const ct_compile_options* options,
                     ct_compiled** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    // First, so that destroy runs on every failure (hold itself runs it when it cannot allocate).
    std::shared_ptr<void> data = capi::hold(user_data, destroy);
    const char* name = "ct_compile";
    capi::require_out(out, name, "out");
    CT_CHECK(fn, CT_ERROR_INVALID_ARGUMENT, name, ": fn is NULL. Pass the function to compile");
    compile::CompileOptions opts =
        options ? options_arg(const_cast<ct_compile_options*>(options), name) : compile::CompileOptions();
    const std::string context = opts.name.empty() ? "compiled function" : "compiled function " + opts.name;
    auto f = std::make_unique<CompiledFunction>(trace_fn(fn, std::move(data), context.c_str()), std::move(opts));
    ct_compiled* c = capi::new_tagged<ct_compiled>(kCompiledTag);
    c->fn = std::move(f);
    *out = c;
  });
}

ct_status ct_compiled_retain(ct_compiled* c) {
  return capi::guard([&] {
    compiled_arg(c, "ct_compiled_retain");
    c->refs.fetch_add(1, std::memory_order_relaxed);
  });
}

void ct_compiled_release(ct_compiled* c) { capi::release_tagged(c, kCompiledTag); }

ct_status ct_compiled_call(ct_compiled* c, const ct_tensor* const* inputs, size_t n_inputs, ct_tensor** outputs,
                           size_t n_outputs) {
  const char* fn = "ct_compiled_call";
  return with_outputs(outputs, n_outputs, fn, [&](std::vector<Tensor>& outs) {
    CompiledFunction& f = compiled_arg(c, fn);
    f.call(inputs_arg(inputs, n_inputs, fn), n_outputs, outs);
  });
}

ct_status ct_compiled_graph(const ct_compiled* c, size_t entry, char** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    const CompiledFunction& f = compiled_arg(c, "ct_compiled_graph");
    capi::require_out(out, "ct_compiled_graph", "out");
    *out = capi::copy_string(f.graph_string(entry));
  });
}

ct_status ct_compiled_num_entries(const ct_compiled* c, size_t* out) {
  return capi::guard([&] {
    const CompiledFunction& f = compiled_arg(c, "ct_compiled_num_entries");
    capi::require_out(out, "ct_compiled_num_entries", "out");
    *out = f.num_entries();
  });
}

ct_status ct_compiled_metrics_json(const ct_compiled* c, char** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    const CompiledFunction& f = compiled_arg(c, "ct_compiled_metrics_json");
    capi::require_out(out, "ct_compiled_metrics_json", "out");
    *out = capi::copy_string(f.metrics().to_json());
  });
}

void ct_compile_wait_kernels(void) { compile::wait_for_background_builds(); }

// ---- export ----

ct_status ct_dynamic_shapes_create(ct_dynamic_shapes** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    capi::require_out(out, "ct_dynamic_shapes_create", "out");
    *out = capi::new_tagged<ct_dynamic_shapes>(kShapesTag);
  });
}

void ct_dynamic_shapes_release(ct_dynamic_shapes* s) { capi::release_single_tagged(s, kShapesTag); }

ct_status ct_dynamic_shapes_set_dim(ct_dynamic_shapes* s, size_t input, int64_t dim, const char* name, int64_t min,
                                    int64_t max) {
  return capi::guard([&] {
    const char* fn = "ct_dynamic_shapes_set_dim";
    ct_dynamic_shapes& shapes = capi::live_tagged(s, kShapesTag, fn, "shapes");
    CT_CHECK(string_arg(name, fn, "name")[0], CT_ERROR_INVALID_ARGUMENT, fn, ": name is empty. Name the dim");
    CT_CHECK(0 <= min && min <= max, CT_ERROR_INVALID_ARGUMENT, fn, ": dim \"", name, "\" has range [", min, ", ",
             max, "]; need 0 <= min <= max");
    shapes.dims.push_back(compile::DimDecl{input, dim, name, min, max});
  });
}

ct_status ct_export(ct_traced_fn fn, void* user_data, const ct_tensor* const* example_inputs, size_t n_inputs,
                    size_t n_outputs, const ct_dynamic_shapes* dynamic_shapes, ct_program** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    const char* name = "ct_export";
    capi::require_out(out, name, "out");
    CT_CHECK(fn, CT_ERROR_INVALID_ARGUMENT, name, ": fn is NULL. Pass the function to export");
    std::vector<compile::DimDecl> dims;
    if (dynamic_shapes) dims = capi::live_tagged(const_cast<ct_dynamic_shapes*>(dynamic_shapes), kShapesTag, name, "dynamic_shapes").dims;
    std::vector<const TensorImpl*> examples = inputs_arg(example_inputs, n_inputs, name);
    // fn is not kept past this call, so user_data is borrowed.
    std::shared_ptr<void> data(user_data, [](void*) {});
    *out = program_handle(compile::export_program(trace_fn(fn, data, "exported function"), examples, dims, n_outputs));
  });
}

ct_status ct_program_retain(ct_program* p) {
  return capi::guard([&] {
    program_arg(p, "ct_program_retain");
    p->refs.fetch_add(1, std::memory_order_relaxed);
  });
}

void ct_program_release(ct_program* p) { capi::release_tagged(p, kProgramTag); }

ct_status ct_program_call(const ct_program* p, const ct_tensor* const* inputs, size_t n_inputs, ct_tensor** outputs,
                          size_t n_outputs) {
  const char* fn = "ct_program_call";
  return with_outputs(outputs, n_outputs, fn, [&](std::vector<Tensor>& outs) {
    const Program& prog = program_arg(p, fn);
    CT_CHECK(n_outputs == prog.num_outputs(), CT_ERROR_INVALID_ARGUMENT, fn, ": n_outputs is ", n_outputs,
             " but the program has ", prog.num_outputs(), " outputs");
    prog.call(inputs_arg(inputs, n_inputs, fn), outs);
  });
}

ct_status ct_program_num_inputs(const ct_program* p, size_t* out) {
  return capi::guard([&] {
    const Program& prog = program_arg(p, "ct_program_num_inputs");
    capi::require_out(out, "ct_program_num_inputs", "out");
    *out = prog.inputs().size();
  });
}

ct_status ct_program_num_outputs(const ct_program* p, size_t* out) {
  return capi::guard([&] {
    const Program& prog = program_arg(p, "ct_program_num_outputs");
    capi::require_out(out, "ct_program_num_outputs", "out");
    *out = prog.num_outputs();
  });
}

ct_status ct_program_graph(const ct_program* p, char** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    const Program& prog = program_arg(p, "ct_program_graph");
    capi::require_out(out, "ct_program_graph", "out");
    *out = capi::copy_string(prog.graph().to_string());
  });
}

ct_status ct_program_json(const ct_program* p, char** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    const Program& prog = program_arg(p, "ct_program_json");
    capi::require_out(out, "ct_program_json", "out");
    *out = capi::copy_string(prog.to_json());
  });
}

ct_status ct_program_save_buffer(const ct_program* p, char** data, size_t* size) {
  if (data) *data = nullptr;
  return capi::guard([&] {
    const Program& prog = program_arg(p, "ct_program_save_buffer");
    capi::require_out(data, "ct_program_save_buffer", "data");
    capi::require_out(size, "ct_program_save_buffer", "size");
    const std::string bytes = compile::save_program(prog);
    char* buf = static_cast<char*>(ct::fault::malloc(bytes.size() ? bytes.size() : 1));
    if (!buf) throw std::bad_alloc();
    std::memcpy(buf, bytes.data(), bytes.size());
    *data = buf;
    *size = bytes.size();
  });
}

ct_status ct_program_save(const ct_program* p, const char* path) {
  return capi::guard([&] {
    const char* fn = "ct_program_save";
    const Program& prog = program_arg(p, fn);
    string_arg(path, fn, "path");
    const std::string bytes = compile::save_program(prog);
    const std::string tmp = std::string(path) + ".tmp";
    {
      std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
      CT_CHECK(f, CT_ERROR_IO, fn, ": cannot open ", tmp, " for writing: ", std::strerror(errno));
      f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      f.flush();
      if (!f) {
        std::remove(tmp.c_str());
        fail(CT_ERROR_IO, str(fn, ": writing ", tmp, " failed: ", std::strerror(errno)));
      }
    }
    if (std::rename(tmp.c_str(), path) != 0) {
      const std::string why = std::strerror(errno);
      std::remove(tmp.c_str());
      fail(CT_ERROR_IO, str(fn, ": cannot rename ", tmp, " to ", path, ": ", why));
    }
  });
}

ct_status ct_program_load_buffer(const void* data, size_t size, ct_program** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    capi::require_out(out, "ct_program_load_buffer", "out");
    CT_CHECK(data || size == 0, CT_ERROR_INVALID_ARGUMENT, "ct_program_load_buffer: data is NULL");
    *out = program_handle(compile::load_program(data, size));
  });
}

ct_status ct_program_load(const char* path, ct_program** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    const char* fn = "ct_program_load";
    capi::require_out(out, fn, "out");
    // A regular file, whose header is checked before the rest is read (Note [Reading files from a path]).
    const io::InputFile file(string_arg(path, fn, "path"), fn);
    std::string bytes(std::min(file.size(), compile::program_header_size()), '\0');
    file.read_at(bytes.data(), bytes.size(), 0);
    compile::check_program_header(bytes.data(), bytes.size());
    bytes.resize(file.size());
    file.read_at(bytes.data() + compile::program_header_size(), file.size() - compile::program_header_size(),
                 compile::program_header_size());
    *out = program_handle(compile::load_program(bytes.data(), bytes.size()));
  });
}

}  // extern "C"
