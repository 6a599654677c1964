#include "capi/handle.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "core/error.h"
#include "core/fault_injection.h"

namespace ct::capi {
namespace {

// Reporting an error must not fail in turn, even with no memory left: a message that cannot be
// stored gives way to one of these, which need no allocation.
constexpr const char* kOutOfMemory = "allocation failed: out of memory. Free tensors or reduce sizes";
constexpr const char* kNoMemoryForMessage =
    "out of memory while reporting an error (the status says what failed). Free tensors or reduce sizes";
constexpr const char* kCallbackMessageLost =
    "the callback's message was lost: out of memory while copying it. Free tensors or reduce sizes";

struct ThreadErrors {
  std::string last;               // what ct_last_error() returns, unless fixed is set
  const char* fixed = nullptr;    // a static message that replaces last
  ct_status callback_status = CT_OK;  // set by ct_error_set inside a callback
  std::string callback_msg;
  const char* callback_fixed = nullptr;  // replaces callback_msg when copying it failed

  const char* message() const noexcept { return fixed ? fixed : last.c_str(); }
  void set_fixed(const char* msg) noexcept {
    last.clear();
    fixed = msg;
  }
  void set(const std::string& msg) noexcept {
    try {
      last = msg;
      fixed = nullptr;
    } catch (const std::bad_alloc&) {
      set_fixed(kNoMemoryForMessage);
      fault::failure_reported(true);
    }
  }
};
ThreadErrors& errors() {
  thread_local ThreadErrors e;
  return e;
}

// The message of the exception being handled (call only inside a catch block); may throw bad_alloc.
std::string internal_error_message() {
  try {
    throw;
  } catch (const std::exception& e) {
    return std::string("internal error: ") + e.what() + ". Please report it";
  } catch (...) {
    return "internal error: unknown exception. Please report it";
  }
}

}  // namespace

ct_status translate_exception() {
  ThreadErrors& errs = errors();
  const ct_status status = [&] {
    try {
      throw;
    } catch (const Error& e) {
      errs.set(e.message());
      return e.status();
    } catch (const std::bad_alloc&) {
      errs.set_fixed(kOutOfMemory);
      return CT_ERROR_OUT_OF_MEMORY;
    } catch (...) {
      try {
        errs.set(internal_error_message());
      } catch (const std::bad_alloc&) {
        errs.set_fixed(kNoMemoryForMessage);
      }
      return CT_ERROR_INTERNAL;
    }
  }();
  fault::failure_reported(status == CT_ERROR_OUT_OF_MEMORY || errs.fixed == kNoMemoryForMessage);
  return status;
}

void explain_answer(const std::string& why) { errors().set(why); }

void fail_bad_handle(const ct_tensor* t, const char* fn, const char* arg) {
  if (!t) fail(CT_ERROR_INVALID_ARGUMENT, str(fn, ": argument ", arg, " is NULL. Pass a tensor handle"));
  fail(CT_ERROR_INVALID_ARGUMENT, str(fn, ": argument ", arg,
                                      " is a released handle. Keep a reference (ct_tensor_retain) while using it"));
}

Scalar scalar_arg(const ct_scalar* s, const char* fn, const char* arg) {
  CT_CHECK(s, CT_ERROR_INVALID_ARGUMENT, fn, ": argument ", arg, " is NULL. Pass a ct_scalar");
  const int kind = raw_enum(s->kind);
  switch (kind) {
    case CT_SCALAR_BOOL: return Scalar(s->i != 0);
    case CT_SCALAR_INT: return Scalar(s->i);
    case CT_SCALAR_FLOAT: return Scalar(s->f);
  }
  fail(CT_ERROR_INVALID_ARGUMENT, str(fn, ": argument ", arg, " has unknown kind ", kind,
                                      ". Use CT_SCALAR_BOOL, CT_SCALAR_INT or CT_SCALAR_FLOAT"));
}

IntArrayRef sizes_arg(const int64_t* sizes, size_t ndim, const char* fn) {
  CT_CHECK(sizes || ndim == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": sizes is NULL but ndim is ", ndim,
           ". Pass an array of ndim sizes");
  CT_CHECK(ndim <= kMaxDims, CT_ERROR_INVALID_ARGUMENT, fn, ": ndim ", ndim, " exceeds ", kMaxDims);
  return IntArrayRef(sizes, ndim);
}

IntArrayRef int_list_arg(const int64_t* v, size_t n, const char* fn, const char* arg, size_t max) {
  CT_CHECK(v || n == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": ", arg, " is NULL but n is ", n,
           ". Pass an array of n values");
  CT_CHECK(n <= max, CT_ERROR_INVALID_ARGUMENT, fn, ": ", arg, " has more values than a tensor's dims allow (n = ", n,
           ", at most ", max, "). Pass the array's length as n");
  return IntArrayRef(v, n);
}

void require_out(const void* out, const char* fn, const char* arg) {
  CT_CHECK(out, CT_ERROR_INVALID_ARGUMENT, fn, ": out-parameter ", arg, " is NULL. Pass the address of a variable");
}

char* copy_string(const std::string& s) {
  char* p = static_cast<char*>(ct::fault::malloc(s.size() + 1));
  if (!p) throw std::bad_alloc();
  std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

std::vector<Tensor> tensor_list(const ct_tensor* const* ts, size_t n, const char* fn, const char* what,
                                bool nulls_allowed) {
  CT_CHECK(ts || n == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": ", what, " is NULL but its count is ", n);
  std::vector<Tensor> out(n);
  for (size_t i = 0; i < n; ++i) {
    if (nulls_allowed && !ts[i]) continue;
    out[i] = Tensor::borrow(&tensor_arg(ts[i], fn, what));
  }
  return out;
}

ArrayRef<const TensorImpl*> tensor_list_arg(const ct_tensor* const* ts, size_t n, const char* fn, const char* arg) {
  CT_CHECK(ts || n == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": ", arg, " is NULL but its count is ", n,
           ". Pass an array of that many handles");
  for (size_t i = 0; i < n; ++i) tensor_arg(ts[i], fn, arg);
  return ArrayRef<const TensorImpl*>(reinterpret_cast<const TensorImpl* const*>(ts), n);
}

const char* string_arg(const char* s, const char* fn, const char* arg) {
  CT_CHECK(s, CT_ERROR_INVALID_ARGUMENT, fn, ": argument ", arg, " is NULL. Pass a string");
  return s;
}

std::shared_ptr<void> hold(void* user_data, ct_destroy_fn destroy) {
  return std::shared_ptr<void>(user_data, [destroy](void* p) {
    if (destroy) destroy(p);
  });
}

namespace detail {

namespace {
thread_local int t_callback_depth = 0;
}

CallbackDepth::CallbackDepth(const char* what) {
  CT_CHECK(t_callback_depth < kMaxCallbackDepth, CT_ERROR_INVALID_ARGUMENT, what, ": callbacks nest ",
           kMaxCallbackDepth, " deep on this thread (a callback calls ctorch, which calls back again, without end?). "
           "Stop the recursion, e.g. a hook that runs backward through its own tensor");
  ++t_callback_depth;
}

CallbackDepth::~CallbackDepth() { --t_callback_depth; }

void forget_callback_report() {
  ThreadErrors& e = errors();
  e.callback_status = CT_OK;
  e.callback_msg.clear();
  e.callback_fixed = nullptr;
  e.last.clear();
  e.fixed = nullptr;
}

}  // namespace detail

// A callback that passes on the status of a ctorch call that failed inside it (without calling
// ct_error_set) passes on that call's message too: it is this thread's last error.
void fail_callback(int st, const std::string& context) {
  ThreadErrors& e = errors();
  const bool reported = e.callback_status != CT_OK;
  std::string msg = reported          ? (e.callback_fixed ? std::string(e.callback_fixed) : std::move(e.callback_msg))
                    : e.fixed          ? std::string(e.fixed)
                    : !e.last.empty() ? std::move(e.last)
                                      : (is_status(st) ? std::string(ct_status_name(static_cast<ct_status>(st)))
                                                       : str("status ", st)) +
                                            " (the callback gave no message; call ct_error_set)";
  detail::forget_callback_report();
  if (!is_status(st))  // see Note [Calling back into the host]
    fail(CT_ERROR_INVALID_ARGUMENT, str(context, ": the callback returned ", st, ", which is not a ct_status (",
                                        msg, "). Return CT_OK or a CT_ERROR_* value"));
  fail(static_cast<ct_status>(st), context + ": " + msg);
}

void adopt_callback_results(ct_tensor* const* raw, size_t n, Tensor* out, const std::string& context) {
  size_t bad = n;
  for (size_t i = 0; i < n; ++i) {
    out[i] = Tensor();
    if (!raw[i]) continue;
    uint32_t tag = 0;
    std::memcpy(&tag, raw[i], sizeof tag);  // see Note [Handle poisoning]
    if (tag == TensorImpl::kLiveTag) out[i] = Tensor::adopt(impl_of(raw[i]));
    else if (bad == n) bad = i;
  }
  CT_CHECK(bad == n, CT_ERROR_INVALID_ARGUMENT, context, ": output ", bad, " of the callback is not a live tensor "
           "handle (released, or another kind of handle). Write one new reference per output (ct_tensor_retain "
           "a tensor you pass on)");
}

void drop_callback_results(ct_tensor* const* raw, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    uint32_t tag = 0;
    if (raw[i]) std::memcpy(&tag, raw[i], sizeof tag);
    if (tag == TensorImpl::kLiveTag) impl_of(raw[i])->release();
  }
}

}  // namespace ct::capi

extern "C" {

const char* ct_last_error(void) { return ct::capi::errors().message(); }

void ct_error_set(ct_status status, const char* msg) {
  ct::capi::ThreadErrors& e = ct::capi::errors();
  // Any failure the callback reports counts, one outside ct_status included (fail_callback maps it).
  const int raw = ct::capi::raw_enum(status);
  e.callback_status = raw == CT_OK ? CT_OK : ct::capi::is_status(raw) ? status : CT_ERROR_INVALID_ARGUMENT;
  try {
    e.callback_msg = msg ? msg : "";
    e.callback_fixed = nullptr;
  } catch (const std::bad_alloc&) {  // the callback's status still travels, with a message saying why it has no text
    e.callback_msg.clear();
    e.callback_fixed = ct::capi::kCallbackMessageLost;
    ct::fault::failure_reported(true);
  }
  if (e.callback_fixed) {
    e.set_fixed(e.callback_fixed);
  } else {
    e.set(e.callback_msg);
  }
}

}  // extern "C"
