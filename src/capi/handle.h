// handle.h - what every ct_* function shares: handle checks, out-parameters, error translation.
//
// Note [Errors cross the ABI as statuses]
// Internals throw ct::Error. Every ct_* function body runs inside capi::guard, which catches
// everything: ct::Error becomes its status, std::bad_alloc CT_ERROR_OUT_OF_MEMORY, anything else
// CT_ERROR_INTERNAL; the message goes to a thread-local buffer that ct_last_error() returns. No
// exception ever crosses into the caller, and out-parameters are NULL on every failure.
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/scalar.h"
#include "core/tensor.h"
#include "ctorch.h"
#include "runtime/defaults.h"

struct ct_tensor {};  // never defined for real: a ct_tensor* is a TensorImpl* (DESIGN §3)

namespace ct::runtime {
class Generator;
}

namespace ct::capi {

/// Translates the exception being handled (call only inside a catch block).
ct_status translate_exception();
/// Sets ct_last_error() for a call that succeeds with an answer the header says it explains
/// (ct_dist_is_backend_available's 0).
void explain_answer(const std::string& why);

/// Runs body; OK, or the translated failure.
template <typename F>
ct_status guard(F&& body) {
  try {
    body();
    return CT_OK;
  } catch (...) {
    return translate_exception();
  }
}

[[noreturn]] void fail_bad_handle(const ct_tensor* t, const char* fn, const char* arg);

/// The live tensor behind a handle; CT_ERROR_INVALID_ARGUMENT naming fn and arg when NULL or released.
inline const TensorImpl& tensor_arg(const ct_tensor* t, const char* fn, const char* arg) {
  uint32_t tag = 0;
  if (t) std::memcpy(&tag, t, sizeof tag);  // see Note [Handle poisoning]
  if (__builtin_expect(tag != TensorImpl::kLiveTag, 0)) fail_bad_handle(t, fn, arg);
  return *reinterpret_cast<const TensorImpl*>(t);
}
/// The integer a C enum argument holds. A C caller may pass any int in an enum parameter, and in
/// C++ reading an enum object outside its enumerators' range is undefined, so enums that come from
/// C are read as raw integers and validated as such.
template <typename E>
int raw_enum(const E& e) {
  static_assert(sizeof(E) == sizeof(int), "C enums are int-sized");
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}
/// The dtype a C argument holds; CT_ERROR_INVALID_ARGUMENT naming fn when it is not a ct_dtype.
inline DType dtype_arg(const ct_dtype& d, const char* fn) {
  const int v = raw_enum(d);
  CT_CHECK(v >= 0 && v < kNumDTypes, CT_ERROR_INVALID_ARGUMENT, fn, ": dtype ", v,
           " is not a ct_dtype. Use one of CT_BOOL .. CT_COMPLEX128");
  return static_cast<DType>(v);
}
/// A device string from C; NULL is this thread's current device (see runtime::current_device).
inline Device device_arg(const char* device) { return device ? parse_device(device) : runtime::current_device(); }

/// The number a ct_scalar holds; CT_ERROR_INVALID_ARGUMENT when NULL or of an unknown kind.
Scalar scalar_arg(const ct_scalar* s, const char* fn, const char* arg);
/// sizes[0, ndim) as a list; CT_ERROR_INVALID_ARGUMENT naming fn when NULL with ndim > 0 or too long.
IntArrayRef sizes_arg(const int64_t* sizes, size_t ndim, const char* fn);
/// The number behind a ct_symint handle (passed in a ct_value's tensor slot, see
/// ct_value_set_symint); CT_ERROR_INVALID_ARGUMENT naming fn and arg when NULL, released or not a
/// ct_symint.
SymInt symint_arg(const void* s, const char* fn, const char* arg);
/// v[0, n) as a list of dims, sizes or pads, at most max of them; CT_ERROR_INVALID_ARGUMENT naming fn
/// and arg when NULL with n > 0 or longer than max. The count is checked before any element is read,
/// so a wrong n cannot make the library read past the caller's array.
IntArrayRef int_list_arg(const int64_t* v, size_t n, const char* fn, const char* arg, size_t max = kMaxDims);
/// ts[0, n) as a Tensor[] argument, after checking each is a live handle (a ct_tensor* is a
/// TensorImpl*, so the caller's array is the list); CT_ERROR_INVALID_ARGUMENT naming fn and arg for
/// a NULL array with n > 0 or a NULL or released element.
ArrayRef<const TensorImpl*> tensor_list_arg(const ct_tensor* const* ts, size_t n, const char* fn, const char* arg);
/// Raises CT_ERROR_INVALID_ARGUMENT when an out pointer is NULL.
void require_out(const void* out, const char* fn, const char* arg);

/// A tensor over caller memory on device (ct_tensor_from_blob, DLPack import). strides in elements,
/// NULL for row-major; raises CT_ERROR_INVALID_ARGUMENT naming fn for NULL data with elements,
/// negative sizes or strides, data not aligned to the element size, an address range that wraps or
/// reaches past addressable memory, and bool bytes other than 0 and 1. deleter(data, user_data)
/// runs when the last tensor using the memory goes; on failure it is not called and nothing is
/// retained. read_only: every write to the tensor and its views is refused (Note [Writable arguments]).
Tensor blob_tensor(const char* fn, void* data, IntArrayRef sizes, const int64_t* strides, DType dtype,
                   BlobDeleter deleter, void* user_data, Device device = kCPU, bool read_only = false);
/// Raises CT_ERROR_INVALID_ARGUMENT naming fn when the bool tensor t holds a byte other than 0 and
/// 1 (see Note [Bool bytes at the boundary]); other dtypes pass.
void check_bool_bytes(const char* fn, const TensorImpl& t);

inline ct_tensor* to_handle(Tensor t) { return reinterpret_cast<ct_tensor*>(t.release_ownership()); }
inline TensorImpl* impl_of(const ct_tensor* t) { return reinterpret_cast<TensorImpl*>(const_cast<ct_tensor*>(t)); }

/// The common shape of a function returning one new tensor: checks out, clears it, runs body (which
/// returns the Tensor), hands ownership to the caller.
template <typename F>
ct_status tensor_result(ct_tensor** out, const char* fn, F&& body) {
  if (out) *out = nullptr;
  return guard([&] {
    require_out(out, fn, "out");
    *out = to_handle(body());
  });
}

/// Several new tensors through out pointers (an operator with several returns): every one cleared
/// first, each required, then body(Tensor* outs) fills outs[0, N); all are set, or none.
template <size_t N, typename F>
ct_status tensors_result(ct_tensor** const (&outs)[N], const char* fn, const char* const (&names)[N], F&& body) {
  for (ct_tensor** o : outs)
    if (o) *o = nullptr;
  return guard([&] {
    for (size_t i = 0; i < N; ++i) require_out(outs[i], fn, names[i]);
    Tensor results[N];
    body(results);
    for (size_t i = 0; i < N; ++i) *outs[i] = to_handle(std::move(results[i]));
  });
}

/// A string argument that has no default; CT_ERROR_INVALID_ARGUMENT naming fn and arg when NULL.
const char* string_arg(const char* s, const char* fn, const char* arg);

/// The live generator behind a handle (src/capi/random.cpp); NULL is allowed when optional (the
/// device's default generator), else CT_ERROR_INVALID_ARGUMENT naming fn, as for a released one.
runtime::Generator* generator_arg(const ct_generator* g, const char* fn, bool optional);

/// A built-in operator's definition, looked up once per call site.
#define CT_OPERATOR(var, full) static const OperatorDef& var = builtin_op(full)

/// A malloc'ed copy of s for the caller to free with ct_string_release.
char* copy_string(const std::string& s);

/// The tensors behind ts[0..n) (borrowed into new references); CT_ERROR_INVALID_ARGUMENT naming fn
/// and what for a NULL array with n > 0, or a NULL (unless nulls_allowed) or released handle.
std::vector<Tensor> tensor_list(const ct_tensor* const* ts, size_t n, const char* fn, const char* what,
                                bool nulls_allowed);
/// Owns a C callback's user_data: destroy runs exactly once, when the last holder goes, and at once
/// when hold throws std::bad_alloc. Call it inside guard.
std::shared_ptr<void> hold(void* user_data, ct_destroy_fn destroy);

// Note [Calling back into the host]
// Kernels, traced functions, custom autograd functions, hooks, backends and plugins are the
// host's code, called from inside a ctorch call. Three things are checked around every such call:
// - depth: a callback may call ctorch, which may call a callback again (a hook that runs backward
//   through its own tensor). Nesting is bounded (kMaxCallbackDepth per thread), so recursion
//   without end becomes a status instead of a stack overflow that kills the host;
// - status: a callback returns a ct_status, but C lets it return any int (and ct_error_set take
//   any); a value outside ct_status becomes CT_ERROR_INVALID_ARGUMENT naming the callback;
// - results: every handle a callback writes is checked like an argument (adopt_callback_result)
//   before ctorch takes it over.
constexpr int kMaxCallbackDepth = 32;

/// Calls the host's code: call() with this thread's callback depth raised by one, after forgetting
/// any ct_error_set report left on the thread (so that what the callback reports is its own).
/// Returns the status call() returned as a plain int: C lets a callback return any int, which read
/// as a ct_status would be undefined behaviour. Raises CT_ERROR_INVALID_ARGUMENT naming what when
/// callbacks already nest kMaxCallbackDepth deep.
template <typename F>
int call_back(const char* what, F&& call);
/// Whether st is one of ct_status's values (a callback may return any int).
/// INVARIANT: the upper bound is the last value of ct_status (ctorch.h); move it with each new status.
inline bool is_status(int st) { return st >= CT_OK && st <= CT_ERROR_DISTRIBUTED; }
/// Raises a callback's failure: the status it returned (one outside ct_status becomes
/// CT_ERROR_INVALID_ARGUMENT), and the message it gave ct_error_set nested under context
/// ("custom function square: <the callback's message>").
[[noreturn]] void fail_callback(int st, const std::string& context);
/// Adopts the handles a callback wrote into raw[0, n) (new references it hands over) into out[0, n)
/// (NULL gives an undefined Tensor); allocates nothing, so no handle is lost to a failed allocation.
/// CT_ERROR_INVALID_ARGUMENT naming context when one is not a live tensor (released, or another
/// kind of handle): that one is left alone, the others are adopted (their owner releases them).
void adopt_callback_results(ct_tensor* const* raw, size_t n, Tensor* out, const std::string& context);
/// Releases the live tensors among raw[0, n), what a failed callback wrote; other handles are left alone.
void drop_callback_results(ct_tensor* const* raw, size_t n);

namespace detail {
/// Raises the callback depth of this thread for one call (see call_back).
class CallbackDepth {
 public:
  explicit CallbackDepth(const char* what);
  ~CallbackDepth();
  CallbackDepth(const CallbackDepth&) = delete;
  CallbackDepth& operator=(const CallbackDepth&) = delete;
};
void forget_callback_report();
}  // namespace detail

template <typename F>
int call_back(const char* what, F&& call) {
  detail::CallbackDepth depth(what);
  detail::forget_callback_report();
  return raw_enum(call());
}

}  // namespace ct::capi
