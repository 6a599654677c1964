// autograd.cpp - the autograd part of the C ABI: requires_grad, grad, backward, grad modes, hooks
// and custom functions, over src/autograd.
#include <memory>

#include "autograd/engine.h"
#include "autograd/function.h"
#include "autograd/meta.h"
#include "capi/handle.h"
#include "capi/tagged_handle.h"
#include "core/error.h"
#include "dispatch/grad_mode.h"

using namespace ct;
using capi::hold;
using capi::tensor_list;
using capi::tensor_arg;

// On the stack of the call running a custom function's callback, for the callback's duration. The
// tag lets a handle of another kind be refused (Note [Handle poisoning]) instead of being used as one.
struct ct_autograd_ctx {
  uint32_t tag;  // INVARIANT: first member
  autograd::FunctionCtx* ctx;
};

namespace {

constexpr uint32_t kCtxTag = 0x58544341u;  // "ACTX"

autograd::FunctionCtx& ctx_arg(ct_autograd_ctx* ctx, const char* fn) {
  return *capi::live_tagged(ctx, kCtxTag, fn, "ctx").ctx;
}

autograd::BackwardOptions options(int flags, const char* fn) {
  CT_CHECK((flags & ~(CT_GRAD_RETAIN_GRAPH | CT_GRAD_CREATE_GRAPH | CT_GRAD_ALLOW_UNUSED)) == 0,
           CT_ERROR_INVALID_ARGUMENT, fn, ": unknown flags ", flags,
           ". Combine CT_GRAD_RETAIN_GRAPH, CT_GRAD_CREATE_GRAPH and CT_GRAD_ALLOW_UNUSED");
  autograd::BackwardOptions o;
  o.create_graph = flags & CT_GRAD_CREATE_GRAPH;
  o.retain_graph = (flags & CT_GRAD_RETAIN_GRAPH) || o.create_graph;
  o.allow_unused = flags & CT_GRAD_ALLOW_UNUSED;
  return o;
}

}  // namespace

extern "C" {

ct_status ct_tensor_set_requires_grad(ct_tensor* t, int requires_grad) {
  return capi::guard([&] {
    autograd::set_requires_grad(tensor_arg(t, "ct_tensor_set_requires_grad", "t"), requires_grad != 0,
                                "ct_tensor_set_requires_grad");
  });
}

ct_status ct_tensor_requires_grad(const ct_tensor* t, int* out) {
  return capi::guard([&] {
    const TensorImpl& x = tensor_arg(t, "ct_tensor_requires_grad", "t");
    capi::require_out(out, "ct_tensor_requires_grad", "out");
    *out = x.requires_grad();
  });
}

ct_status ct_tensor_is_leaf(const ct_tensor* t, int* out) {
  return capi::guard([&] {
    const TensorImpl& x = tensor_arg(t, "ct_tensor_is_leaf", "t");
    capi::require_out(out, "ct_tensor_is_leaf", "out");
    *out = autograd::is_leaf(x);
  });
}

ct_status ct_tensor_retains_grad(const ct_tensor* t, int* out) {
  return capi::guard([&] {
    const TensorImpl& x = tensor_arg(t, "ct_tensor_retains_grad", "t");
    capi::require_out(out, "ct_tensor_retains_grad", "out");
    *out = autograd::retains_grad(x);
  });
}

ct_status ct_tensor_output_nr(const ct_tensor* t, int64_t* out) {
  return capi::guard([&] {
    const TensorImpl& x = tensor_arg(t, "ct_tensor_output_nr", "t");
    capi::require_out(out, "ct_tensor_output_nr", "out");
    *out = autograd::output_nr(x);
  });
}

ct_status ct_tensor_is_inference(const ct_tensor* t, int* out) {
  return capi::guard([&] {
    const TensorImpl& x = tensor_arg(t, "ct_tensor_is_inference", "t");
    capi::require_out(out, "ct_tensor_is_inference", "out");
    *out = x.is_inference();
  });
}

ct_status ct_tensor_grad(const ct_tensor* t, ct_tensor** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    const TensorImpl& x = tensor_arg(t, "ct_tensor_grad", "t");
    capi::require_out(out, "ct_tensor_grad", "out");
    Tensor g = autograd::grad_of(x);
    if (g.defined()) *out = capi::to_handle(std::move(g));
  });
}

ct_status ct_tensor_set_grad(ct_tensor* t, const ct_tensor* grad) {
  return capi::guard([&] {
    const TensorImpl& x = tensor_arg(t, "ct_tensor_set_grad", "t");
    Tensor g = grad ? Tensor::borrow(&tensor_arg(grad, "ct_tensor_set_grad", "grad")) : Tensor();
    autograd::set_grad(x, g, "ct_tensor_set_grad");
  });
}

ct_status ct_tensor_retain_grad(ct_tensor* t) {
  return capi::guard([&] { autograd::retain_grad(tensor_arg(t, "ct_tensor_retain_grad", "t"), "ct_tensor_retain_grad"); });
}

ct_status ct_tensor_grad_fn_name(const ct_tensor* t, char** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    const TensorImpl& x = tensor_arg(t, "ct_tensor_grad_fn_name", "t");
    capi::require_out(out, "ct_tensor_grad_fn_name", "out");
    const autograd::AutogradMeta* m = autograd::meta_of(x);
    if (m && m->grad_fn) *out = capi::copy_string(m->grad_fn->name());
  });
}

ct_status ct_tensor_detach(const ct_tensor* t, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_detach", [&] { return autograd::detach(tensor_arg(t, "ct_tensor_detach", "t")); });
}

ct_status ct_tensor_backward(const ct_tensor* output, const ct_tensor* grad, int flags) {
  return ct_autograd_backward(&output, grad ? &grad : nullptr, 1, flags);
}

ct_status ct_autograd_backward(const ct_tensor* const* outputs, const ct_tensor* const* grads, size_t n, int flags) {
  return capi::guard([&] {
    const char* fn = "backward";
    const autograd::BackwardOptions o = options(flags, fn);
    CT_CHECK(!o.allow_unused, CT_ERROR_INVALID_ARGUMENT, fn, ": CT_GRAD_ALLOW_UNUSED applies to ct_autograd_grad only");
    std::vector<Tensor> roots = tensor_list(outputs, n, fn, "outputs", false);
    std::vector<Tensor> gs = grads ? tensor_list(grads, n, fn, "grads", true) : std::vector<Tensor>();
    autograd::backward(roots, std::move(gs), o, fn);
  });
}

ct_status ct_autograd_grad(const ct_tensor* const* outputs, const ct_tensor* const* grad_outputs, size_t n_outputs,
                           const ct_tensor* const* inputs, size_t n_inputs, int flags, ct_tensor** grads) {
  if (grads)
    for (size_t i = 0; i < n_inputs; ++i) grads[i] = nullptr;
  return capi::guard([&] {
    const char* fn = "ct_autograd_grad";
    CT_CHECK(grads || n_inputs == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": grads is NULL. Pass n_inputs slots");
    std::vector<Tensor> roots = tensor_list(outputs, n_outputs, fn, "outputs", false);
    std::vector<Tensor> gs = grad_outputs ? tensor_list(grad_outputs, n_outputs, fn, "grad_outputs", true)
                                          : std::vector<Tensor>();
    std::vector<Tensor> in = tensor_list(inputs, n_inputs, fn, "inputs", false);
    std::vector<Tensor> result = autograd::grad(roots, std::move(gs), in, options(flags, fn), fn);
    for (size_t i = 0; i < n_inputs; ++i)
      if (result[i].defined()) grads[i] = capi::to_handle(std::move(result[i]));
  });
}

void ct_set_anomaly_enabled(int enabled, int check_nan) { autograd::set_anomaly_mode(enabled != 0, check_nan != 0); }

int ct_is_anomaly_enabled(void) { return autograd::anomaly_enabled() ? 1 : 0; }

int ct_is_anomaly_check_nan_enabled(void) { return autograd::anomaly_check_nan() ? 1 : 0; }

ct_status ct_grad_mode_set(ct_grad_mode mode, ct_grad_mode* previous) {
  return capi::guard([&] {
    const int m = capi::raw_enum(mode);
    CT_CHECK(m >= 0 && m <= 2, CT_ERROR_INVALID_ARGUMENT, "ct_grad_mode_set: unknown mode ", m,
             ". Pass CT_GRAD_MODE_NO_GRAD, CT_GRAD_MODE_ENABLED or CT_GRAD_MODE_INFERENCE");
    if (previous) *previous = static_cast<ct_grad_mode>(autograd::grad_mode());
    autograd::set_grad_mode(static_cast<autograd::GradMode>(m));
  });
}

ct_grad_mode ct_grad_mode_get(void) { return static_cast<ct_grad_mode>(autograd::grad_mode()); }

ct_status ct_tensor_register_hook(ct_tensor* t, ct_hook_fn fn, void* user_data, ct_destroy_fn destroy, int64_t* id) {
  return capi::guard([&] {
    // First, so that destroy runs on every failure (hold itself runs it when it cannot allocate).
    std::shared_ptr<void> data = hold(user_data, destroy);
    const TensorImpl& x = tensor_arg(t, "ct_tensor_register_hook", "t");
    CT_CHECK(fn, CT_ERROR_INVALID_ARGUMENT, "ct_tensor_register_hook: fn is NULL. Pass a hook function");
    capi::require_out(id, "ct_tensor_register_hook", "id");
    *id = autograd::add_hook(
        x,
        [fn, data](const Tensor& grad) {
          ct_tensor* replacement = nullptr;
          const int st = capi::call_back("tensor hook", [&] {
            return fn(data.get(), reinterpret_cast<const ct_tensor*>(grad.impl()), &replacement);
          });
          if (st != CT_OK) {
            capi::drop_callback_results(&replacement, 1);
            capi::fail_callback(st, "tensor hook");
          }
          Tensor result;
          capi::adopt_callback_results(&replacement, 1, &result, "tensor hook");
          return result;
        },
        "ct_tensor_register_hook");
  });
}

ct_status ct_tensor_register_post_accumulate_grad_hook(ct_tensor* t, ct_post_accumulate_hook_fn fn, void* user_data,
                                                       ct_destroy_fn destroy, int64_t* id) {
  return capi::guard([&] {
    // First, so that destroy runs on every failure (hold itself runs it when it cannot allocate).
    std::shared_ptr<void> data = hold(user_data, destroy);
    const char* name = "ct_tensor_register_post_accumulate_grad_hook";
    const TensorImpl& x = tensor_arg(t, name, "t");
    CT_CHECK(fn, CT_ERROR_INVALID_ARGUMENT, name, ": fn is NULL. Pass a hook function");
    capi::require_out(id, name, "id");
    *id = autograd::add_post_accumulate_hook(
        x,
        [fn, data](const TensorImpl& leaf) {
          // The handle is the leaf itself (Note [Post-accumulate hooks see a whole leaf], meta.cpp).
          ct_tensor* handle = reinterpret_cast<ct_tensor*>(const_cast<TensorImpl*>(&leaf));
          const int st = capi::call_back("post-accumulate-grad hook", [&] { return fn(data.get(), handle); });
          if (st != CT_OK) capi::fail_callback(st, "post-accumulate-grad hook");
        },
        name);
  });
}

ct_status ct_tensor_remove_hook(ct_tensor* t, int64_t id) {
  return capi::guard([&] {
    const TensorImpl& x = tensor_arg(t, "ct_tensor_remove_hook", "t");
    CT_CHECK(autograd::remove_hook(x, id), CT_ERROR_INVALID_ARGUMENT, "ct_tensor_remove_hook: no hook ", id,
             " is registered on this tensor");
  });
}

ct_status ct_autograd_function_apply(const char* name, ct_function_forward_fn forward, ct_function_backward_fn backward,
                                     void* user_data, ct_destroy_fn destroy, const ct_tensor* const* inputs,
                                     size_t n_inputs, ct_tensor** outputs, size_t n_outputs) {
  if (outputs)
    for (size_t i = 0; i < n_outputs; ++i) outputs[i] = nullptr;
  return capi::guard([&] {
    // First, so that destroy runs on every failure (hold itself runs it when it cannot allocate).
    std::shared_ptr<void> data = hold(user_data, destroy);
    const char* fn = "ct_autograd_function_apply";
    CT_CHECK(name && forward && backward, CT_ERROR_INVALID_ARGUMENT, fn,
             ": name, forward and backward must not be NULL");
    CT_CHECK(outputs || n_outputs == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": outputs is NULL but n_outputs is ",
             n_outputs);
    std::vector<Tensor> in = tensor_list(inputs, n_inputs, fn, "inputs", false);
    const std::string fname = name;
    auto run_forward = [&](autograd::FunctionCtx& ctx) {
      std::vector<ct_tensor*> outs(n_outputs, nullptr);
      std::vector<Tensor> result(n_outputs);  // before the call: taking its outputs allocates nothing
      ct_autograd_ctx handle{kCtxTag, &ctx};
      const std::string what = fname + " (forward)";
      const int st = capi::call_back(what.c_str(), [&] {
        return forward(data.get(), &handle, inputs, n_inputs, outs.data(), n_outputs);
      });
      if (st != CT_OK) {
        capi::drop_callback_results(outs.data(), outs.size());
        capi::fail_callback(st, what);
      }
      capi::adopt_callback_results(outs.data(), outs.size(), result.data(), what);
      return result;
    };
    auto run_backward = [fname, backward, data, n_inputs](autograd::FunctionCtx& ctx, std::vector<Tensor>& grads) {
      std::vector<const ct_tensor*> gs;
      for (const Tensor& g : grads) gs.push_back(reinterpret_cast<const ct_tensor*>(g.impl()));
      std::vector<ct_tensor*> outs(n_inputs, nullptr);
      std::vector<Tensor> result(n_inputs);  // before the call: taking its outputs allocates nothing
      ct_autograd_ctx handle{kCtxTag, &ctx};
      const std::string what = fname + "Backward";
      const int st = capi::call_back(what.c_str(), [&] {
        return backward(data.get(), &handle, gs.data(), gs.size(), outs.data(), n_inputs);
      });
      if (st != CT_OK) {
        capi::drop_callback_results(outs.data(), outs.size());
        capi::fail_callback(st, what);
      }
      capi::adopt_callback_results(outs.data(), outs.size(), result.data(), what);
      return result;
    };
    std::vector<Tensor> result = autograd::apply_function(fname, in, run_forward, run_backward, data);
    data.reset();
    for (size_t i = 0; i < n_outputs; ++i) outputs[i] = capi::to_handle(std::move(result[i]));
  });
}

ct_status ct_autograd_ctx_save(ct_autograd_ctx* ctx, const ct_tensor* t) {
  return capi::guard([&] {
    autograd::FunctionCtx& c = ctx_arg(ctx, "ct_autograd_ctx_save");
    c.save(Tensor::borrow(&tensor_arg(t, "ct_autograd_ctx_save", "t")));
  });
}

ct_status ct_autograd_ctx_saved(ct_autograd_ctx* ctx, size_t i, ct_tensor** out) {
  return capi::tensor_result(out, "ct_autograd_ctx_saved", [&] { return ctx_arg(ctx, "ct_autograd_ctx_saved").saved(i); });
}

ct_status ct_autograd_ctx_saved_count(ct_autograd_ctx* ctx, size_t* out) {
  return capi::guard([&] {
    autograd::FunctionCtx& c = ctx_arg(ctx, "ct_autograd_ctx_saved_count");
    capi::require_out(out, "ct_autograd_ctx_saved_count", "out");
    *out = c.saved_count();
  });
}

}  // extern "C"
