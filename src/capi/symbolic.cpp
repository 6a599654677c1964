// symbolic.cpp - ct_shape_env, ct_symint, ct_symfloat, ct_symbool and the symbolic tensor
// functions through the C ABI.
//
// Every one of these handles is a SymHandle in a pool slot, so a released handle reads as dead
// (Note [Handle poisoning]); its tag says which of the four C types it is, so a handle passed as
// the wrong type is refused by name too. A handle holding a symbolic number owns one reference to
// the number's ShapeEnv, which keeps every node the number points to alive.
#include <atomic>
#include <vector>

#include "capi/handle.h"
#include "compile/trace.h"
#include "core/object_pool.h"
#include "core/tensor_impl.h"
#include "symbolic/shape_env.h"

using namespace ct;
using sym::ShapeEnv;

namespace {

enum class Kind : uint32_t {
  Env = 0x564e4553,    // "SENV"
  Int = 0x544e4953,    // "SINT"
  Float = 0x544c4653,  // "SFLT"
  Bool = 0x4c4f4253,   // "SBOL"
};

struct SymHandle {
  uint32_t tag;  // INVARIANT: first member; a Kind while live, 0 once released
  std::atomic<int32_t> refs{1};
  ShapeEnv* env = nullptr;  // one reference owned, or null for a plain number
  SymInt i{};
  SymFloat f;
  SymBool b;
};
using HandlePool = SlotPool<sizeof(SymHandle), alignof(SymHandle)>;

SymHandle* make(Kind kind, ShapeEnv* env) {
  SymHandle* h = new (HandlePool::allocate()) SymHandle;
  h->tag = static_cast<uint32_t>(kind);
  if (env) env->retain();
  h->env = env;
  return h;
}

void release(SymHandle* h) {
  if (h->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (h->env) h->env->release();
  h->~SymHandle();
  *reinterpret_cast<volatile uint32_t*>(static_cast<void*>(h)) = 0;
  HandlePool::deallocate(h);
}

// Whether p is a live handle of kind k (see Note [Handle poisoning]); false for NULL.
bool is_live(const void* p, Kind k) {
  if (!p) return false;
  uint32_t tag;
  std::memcpy(&tag, p, sizeof tag);
  return tag == static_cast<uint32_t>(k);
}

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Env: return "ct_shape_env";
    case Kind::Int: return "ct_symint";
    case Kind::Float: return "ct_symfloat";
    case Kind::Bool: return "ct_symbool";
  }
  return "handle";
}

// The live handle of kind k behind p; CT_ERROR_INVALID_ARGUMENT naming fn and arg otherwise.
SymHandle& arg(const void* p, Kind k, const char* fn, const char* name) {
  CT_CHECK(p, CT_ERROR_INVALID_ARGUMENT, fn, ": argument ", name, " is NULL. Pass a ", kind_name(k));
  uint32_t tag;
  std::memcpy(&tag, p, sizeof tag);  // see Note [Handle poisoning]
  CT_CHECK(tag == static_cast<uint32_t>(k), CT_ERROR_INVALID_ARGUMENT, fn, ": argument ", name,
           tag == 0 ? " is a released handle. Keep a reference (_retain) while using it"
                    : " is not a live " + std::string(kind_name(k)) + " handle");
  return *const_cast<SymHandle*>(static_cast<const SymHandle*>(p));
}

ShapeEnv& env_arg(const ct_shape_env* e, const char* fn) { return *arg(e, Kind::Env, fn, "env").env; }
SymInt int_arg(const ct_symint* s, const char* fn, const char* name = "a") { return arg(s, Kind::Int, fn, name).i; }
SymFloat float_arg(const ct_symfloat* s, const char* fn, const char* name = "a") {
  return arg(s, Kind::Float, fn, name).f;
}
SymBool bool_arg(const ct_symbool* s, const char* fn, const char* name = "a") { return arg(s, Kind::Bool, fn, name).b; }

ct_symint* to_handle(SymInt v) {
  SymHandle* h = make(Kind::Int, v.env());
  h->i = v;
  return reinterpret_cast<ct_symint*>(h);
}
ct_symfloat* to_handle(SymFloat v) {
  SymHandle* h = make(Kind::Float, v.is_symbolic() ? v.node()->env : nullptr);
  h->f = v;
  return reinterpret_cast<ct_symfloat*>(h);
}
ct_symbool* to_handle(SymBool v) {
  SymHandle* h = make(Kind::Bool, v.is_symbolic() ? v.node()->env : nullptr);
  h->b = v;
  return reinterpret_cast<ct_symbool*>(h);
}

// Runs body, which computes the new handle for *out; out is NULL on failure.
template <typename Out, typename F>
ct_status produce(Out** out, const char* fn, F&& body) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    capi::require_out(out, fn, "out");
    *out = to_handle(body());
  });
}

// Values under the handles' binding: one per symbol of env (see ct_symint_evaluate).
std::vector<sym::BoundValue> binding_arg(const ShapeEnv& env, const int64_t* values, size_t n, const char* fn) {
  const std::vector<sym::Type> types = env.symbol_types();
  CT_CHECK(n == types.size(), CT_ERROR_INVALID_ARGUMENT, fn, ": the binding has ", n, " values but the env has ",
           types.size(), " symbols. Pass one value per symbol, in creation order (ct_shape_env_num_symbols)");
  CT_CHECK(values || n == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": values is NULL");
  std::vector<sym::BoundValue> b(n);
  for (size_t k = 0; k < n; ++k) {
    if (types[k] == sym::Type::Float) b[k].f = static_cast<double>(values[k]);
    else b[k].i = values[k];
  }
  return b;
}

// The handles behind xs[0, n) as SymInts.
std::vector<SymInt> int_list_arg(const ct_symint* const* xs, size_t n, const char* fn) {
  CT_CHECK(xs || n == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": xs is NULL");
  std::vector<SymInt> v;
  CT_CHECK(n <= v.max_size(), CT_ERROR_INVALID_ARGUMENT, fn, ": n (", n,
           ") is more handles than a list can hold. Pass the array's length as n");
  v.reserve(n);
  for (size_t k = 0; k < n; ++k) v.push_back(int_arg(xs[k], fn, "xs[k]"));
  return v;
}

}  // namespace

SymInt capi::symint_arg(const void* s, const char* fn, const char* name) { return arg(s, Kind::Int, fn, name).i; }

struct ct_shape_env {};
struct ct_symint {};
struct ct_symfloat {};
struct ct_symbool {};

// ---- the ShapeEnv ----

ct_status ct_shape_env_create(ct_shape_env** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    capi::require_out(out, "ct_shape_env_create", "out");
    ShapeEnv* env = ShapeEnv::create();
    SymHandle* h = nullptr;
    try {
      h = make(Kind::Env, env);
    } catch (...) {
      env->release();
      throw;
    }
    env->release();  // the handle holds the one reference
    *out = reinterpret_cast<ct_shape_env*>(h);
  });
}

ct_status ct_shape_env_retain(ct_shape_env* env) {
  return capi::guard([&] { arg(env, Kind::Env, "ct_shape_env_retain", "env").refs.fetch_add(1); });
}
void ct_shape_env_release(ct_shape_env* env) {
  if (is_live(env, Kind::Env)) release(reinterpret_cast<SymHandle*>(env));
}

ct_status ct_shape_env_create_symbol(ct_shape_env* env, const char* name, int64_t hint, int64_t min, int64_t max,
                                     ct_symint** out) {
  return produce(out, "ct_shape_env_create_symbol", [&] {
    return SymInt(env_arg(env, "ct_shape_env_create_symbol").create_symbol(hint, min, max, name ? name : ""));
  });
}

ct_status ct_shape_env_create_unbacked(ct_shape_env* env, ct_symint** out) {
  return produce(out, "ct_shape_env_create_unbacked", [&] {
    return SymInt(env_arg(env, "ct_shape_env_create_unbacked").create_unbacked(sym::Type::Int));
  });
}

ct_status ct_shape_env_num_symbols(const ct_shape_env* env, size_t* out) {
  return capi::guard([&] {
    const ShapeEnv& e = env_arg(env, "ct_shape_env_num_symbols");
    capi::require_out(out, "ct_shape_env_num_symbols", "out");
    *out = e.num_symbols();
  });
}

ct_status ct_shape_env_num_guards(const ct_shape_env* env, size_t* out) {
  return capi::guard([&] {
    const ShapeEnv& e = env_arg(env, "ct_shape_env_num_guards");
    capi::require_out(out, "ct_shape_env_num_guards", "out");
    *out = e.num_guards();
  });
}

ct_status ct_shape_env_guard_requests(const ct_shape_env* env, uint64_t* out) {
  return capi::guard([&] {
    const ShapeEnv& e = env_arg(env, "ct_shape_env_guard_requests");
    capi::require_out(out, "ct_shape_env_guard_requests", "out");
    *out = e.guard_requests();
  });
}

ct_status ct_shape_env_guards_json(const ct_shape_env* env, char** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    const ShapeEnv& e = env_arg(env, "ct_shape_env_guards_json");
    capi::require_out(out, "ct_shape_env_guards_json", "out");
    *out = capi::copy_string(e.to_json());
  });
}

ct_status ct_shape_env_check_guards(const ct_shape_env* env, const int64_t* values, size_t n, int64_t* failing) {
  return capi::guard([&] {
    const ShapeEnv& e = env_arg(env, "ct_shape_env_check_guards");
    capi::require_out(failing, "ct_shape_env_check_guards", "failing");
    *failing = e.first_failing_guard(binding_arg(e, values, n, "ct_shape_env_check_guards"));
  });
}

// ---- numbers: lifecycle and inspection ----

ct_status ct_symint_from_int(int64_t value, ct_symint** out) {
  return produce(out, "ct_symint_from_int", [&] { return SymInt(value); });
}
ct_status ct_symfloat_from_double(double value, ct_symfloat** out) {
  return produce(out, "ct_symfloat_from_double", [&] { return SymFloat(value); });
}
ct_status ct_symbool_from_bool(int value, ct_symbool** out) {
  return produce(out, "ct_symbool_from_bool", [&] { return SymBool(value != 0); });
}

#define CT_SYM_LIFECYCLE(ctype, kind)                                                                 \
  ct_status ctype##_retain(ctype* s) {                                                                \
    return capi::guard([&] { arg(s, Kind::kind, #ctype "_retain", "s").refs.fetch_add(1); });         \
  }                                                                                                   \
  void ctype##_release(ctype* s) {                                                                    \
    if (is_live(s, Kind::kind)) release(reinterpret_cast<SymHandle*>(s));                             \
  }                                                                                                   \
  ct_status ctype##_is_symbolic(const ctype* s, int* out) {                                           \
    return capi::guard([&] {                                                                          \
      const SymHandle& h = arg(s, Kind::kind, #ctype "_is_symbolic", "s");                            \
      capi::require_out(out, #ctype "_is_symbolic", "out");                                           \
      *out = h.env != nullptr;                                                                        \
    });                                                                                               \
  }
CT_SYM_LIFECYCLE(ct_symint, Int)
CT_SYM_LIFECYCLE(ct_symfloat, Float)
CT_SYM_LIFECYCLE(ct_symbool, Bool)
#undef CT_SYM_LIFECYCLE

ct_status ct_symint_maybe_int(const ct_symint* s, int64_t* value, int* is_concrete) {
  return capi::guard([&] {
    const SymInt v = int_arg(s, "ct_symint_maybe_int", "s");
    capi::require_out(value, "ct_symint_maybe_int", "value");
    capi::require_out(is_concrete, "ct_symint_maybe_int", "is_concrete");
    *is_concrete = !v.is_symbolic();
    if (*is_concrete) *value = v.raw();
  });
}
ct_status ct_symfloat_maybe_double(const ct_symfloat* s, double* value, int* is_concrete) {
  return capi::guard([&] {
    const SymFloat v = float_arg(s, "ct_symfloat_maybe_double", "s");
    capi::require_out(value, "ct_symfloat_maybe_double", "value");
    capi::require_out(is_concrete, "ct_symfloat_maybe_double", "is_concrete");
    *is_concrete = !v.is_symbolic();
    if (*is_concrete) *value = *v.maybe_float();
  });
}
ct_status ct_symbool_maybe_bool(const ct_symbool* s, int* value, int* is_concrete) {
  return capi::guard([&] {
    const SymBool v = bool_arg(s, "ct_symbool_maybe_bool", "s");
    capi::require_out(value, "ct_symbool_maybe_bool", "value");
    capi::require_out(is_concrete, "ct_symbool_maybe_bool", "is_concrete");
    *is_concrete = !v.is_symbolic();
    if (*is_concrete) *value = *v.maybe_bool();
  });
}

ct_status ct_symint_guard_int(const ct_symint* s, int64_t* out) {
  return capi::guard([&] {
    const SymInt v = int_arg(s, "ct_symint_guard_int", "s");
    capi::require_out(out, "ct_symint_guard_int", "out");
    *out = v.guard_int();
  });
}
ct_status ct_symfloat_guard_float(const ct_symfloat* s, double* out) {
  return capi::guard([&] {
    const SymFloat v = float_arg(s, "ct_symfloat_guard_float", "s");
    capi::require_out(out, "ct_symfloat_guard_float", "out");
    *out = v.guard_float();
  });
}
ct_status ct_symbool_guard_bool(const ct_symbool* s, int* out) {
  return capi::guard([&] {
    const SymBool v = bool_arg(s, "ct_symbool_guard_bool", "s");
    capi::require_out(out, "ct_symbool_guard_bool", "out");
    *out = v.guard_bool();
  });
}

namespace {
template <typename V>
ct_status to_string(const V& v, char** out, const char* fn) {
  capi::require_out(out, fn, "out");
  *out = capi::copy_string(str(v));
  return CT_OK;
}
}  // namespace

ct_status ct_symint_to_string(const ct_symint* s, char** out) {
  if (out) *out = nullptr;
  return capi::guard([&] { to_string(int_arg(s, "ct_symint_to_string", "s"), out, "ct_symint_to_string"); });
}
ct_status ct_symfloat_to_string(const ct_symfloat* s, char** out) {
  if (out) *out = nullptr;
  return capi::guard([&] { to_string(float_arg(s, "ct_symfloat_to_string", "s"), out, "ct_symfloat_to_string"); });
}
ct_status ct_symbool_to_string(const ct_symbool* s, char** out) {
  if (out) *out = nullptr;
  return capi::guard([&] { to_string(bool_arg(s, "ct_symbool_to_string", "s"), out, "ct_symbool_to_string"); });
}

ct_status ct_symint_evaluate(const ct_symint* s, const int64_t* values, size_t n, int64_t* out) {
  return capi::guard([&] {
    const SymHandle& h = arg(s, Kind::Int, "ct_symint_evaluate", "s");
    capi::require_out(out, "ct_symint_evaluate", "out");
    *out = h.env ? h.env->eval_int(h.i.node(), binding_arg(*h.env, values, n, "ct_symint_evaluate")) : h.i.raw();
  });
}
ct_status ct_symfloat_evaluate(const ct_symfloat* s, const int64_t* values, size_t n, double* out) {
  return capi::guard([&] {
    const SymHandle& h = arg(s, Kind::Float, "ct_symfloat_evaluate", "s");
    capi::require_out(out, "ct_symfloat_evaluate", "out");
    *out = h.env ? h.env->eval_float(h.f.node(), binding_arg(*h.env, values, n, "ct_symfloat_evaluate"))
                 : *h.f.maybe_float();
  });
}
ct_status ct_symbool_evaluate(const ct_symbool* s, const int64_t* values, size_t n, int* out) {
  return capi::guard([&] {
    const SymHandle& h = arg(s, Kind::Bool, "ct_symbool_evaluate", "s");
    capi::require_out(out, "ct_symbool_evaluate", "out");
    *out = h.env ? h.env->eval_bool(h.b.node(), binding_arg(*h.env, values, n, "ct_symbool_evaluate"))
                 : *h.b.maybe_bool();
  });
}

// ---- arithmetic and comparisons ----

#define CT_SYM_BINARY(fn, in_t, out_t, read, expr)                                          \
  ct_status fn(const in_t* a, const in_t* b, out_t** out) {                                 \
    return produce(out, #fn, [&] {                                                          \
      const auto x = read(a, #fn, "a");                                                     \
      const auto y = read(b, #fn, "b");                                                     \
      return expr;                                                                          \
    });                                                                                     \
  }
CT_SYM_BINARY(ct_symint_add, ct_symint, ct_symint, int_arg, x + y)
CT_SYM_BINARY(ct_symint_sub, ct_symint, ct_symint, int_arg, x - y)
CT_SYM_BINARY(ct_symint_mul, ct_symint, ct_symint, int_arg, x * y)
CT_SYM_BINARY(ct_symint_floordiv, ct_symint, ct_symint, int_arg, x / y)
CT_SYM_BINARY(ct_symint_mod, ct_symint, ct_symint, int_arg, x % y)
CT_SYM_BINARY(ct_symint_pow, ct_symint, ct_symint, int_arg, sym_pow(x, y))
CT_SYM_BINARY(ct_symint_min, ct_symint, ct_symint, int_arg, sym_min(x, y))
CT_SYM_BINARY(ct_symint_max, ct_symint, ct_symint, int_arg, sym_max(x, y))
CT_SYM_BINARY(ct_symint_truediv, ct_symint, ct_symfloat, int_arg, sym_truediv(x, y))
CT_SYM_BINARY(ct_symint_eq, ct_symint, ct_symbool, int_arg, x == y)
CT_SYM_BINARY(ct_symint_ne, ct_symint, ct_symbool, int_arg, x != y)
CT_SYM_BINARY(ct_symint_lt, ct_symint, ct_symbool, int_arg, x < y)
CT_SYM_BINARY(ct_symint_le, ct_symint, ct_symbool, int_arg, x <= y)
CT_SYM_BINARY(ct_symint_gt, ct_symint, ct_symbool, int_arg, x > y)
CT_SYM_BINARY(ct_symint_ge, ct_symint, ct_symbool, int_arg, x >= y)
CT_SYM_BINARY(ct_symfloat_add, ct_symfloat, ct_symfloat, float_arg, x + y)
CT_SYM_BINARY(ct_symfloat_sub, ct_symfloat, ct_symfloat, float_arg, x - y)
CT_SYM_BINARY(ct_symfloat_mul, ct_symfloat, ct_symfloat, float_arg, x * y)
CT_SYM_BINARY(ct_symfloat_truediv, ct_symfloat, ct_symfloat, float_arg, x / y)
CT_SYM_BINARY(ct_symfloat_floordiv, ct_symfloat, ct_symfloat, float_arg,
              SymFloat::binary(SymFloat::BinOp::FloorDiv, x, y))
CT_SYM_BINARY(ct_symfloat_mod, ct_symfloat, ct_symfloat, float_arg, SymFloat::binary(SymFloat::BinOp::Mod, x, y))
CT_SYM_BINARY(ct_symfloat_pow, ct_symfloat, ct_symfloat, float_arg, SymFloat::binary(SymFloat::BinOp::Pow, x, y))
CT_SYM_BINARY(ct_symfloat_min, ct_symfloat, ct_symfloat, float_arg, SymFloat::binary(SymFloat::BinOp::Min, x, y))
CT_SYM_BINARY(ct_symfloat_max, ct_symfloat, ct_symfloat, float_arg, SymFloat::binary(SymFloat::BinOp::Max, x, y))
CT_SYM_BINARY(ct_symfloat_eq, ct_symfloat, ct_symbool, float_arg, SymFloat::relation(SymInt::RelOp::Eq, x, y))
CT_SYM_BINARY(ct_symfloat_ne, ct_symfloat, ct_symbool, float_arg, SymFloat::relation(SymInt::RelOp::Ne, x, y))
CT_SYM_BINARY(ct_symfloat_lt, ct_symfloat, ct_symbool, float_arg, SymFloat::relation(SymInt::RelOp::Lt, x, y))
CT_SYM_BINARY(ct_symfloat_le, ct_symfloat, ct_symbool, float_arg, SymFloat::relation(SymInt::RelOp::Le, x, y))
CT_SYM_BINARY(ct_symfloat_gt, ct_symfloat, ct_symbool, float_arg, SymFloat::relation(SymInt::RelOp::Gt, x, y))
CT_SYM_BINARY(ct_symfloat_ge, ct_symfloat, ct_symbool, float_arg, SymFloat::relation(SymInt::RelOp::Ge, x, y))
CT_SYM_BINARY(ct_symbool_and, ct_symbool, ct_symbool, bool_arg, x & y)
CT_SYM_BINARY(ct_symbool_or, ct_symbool, ct_symbool, bool_arg, x | y)
#undef CT_SYM_BINARY

ct_status ct_symint_neg(const ct_symint* a, ct_symint** out) {
  return produce(out, "ct_symint_neg", [&] { return -int_arg(a, "ct_symint_neg"); });
}

// ---- builders that never guard ----

ct_status ct_sym_max(const ct_symint* const* xs, size_t n, ct_symint** out) {
  return produce(out, "ct_sym_max", [&] { return sym_max(int_list_arg(xs, n, "ct_sym_max")); });
}
ct_status ct_sym_min(const ct_symint* const* xs, size_t n, ct_symint** out) {
  return produce(out, "ct_sym_min", [&] { return sym_min(int_list_arg(xs, n, "ct_sym_min")); });
}
ct_status ct_sym_sum(const ct_symint* const* xs, size_t n, ct_symint** out) {
  return produce(out, "ct_sym_sum", [&] { return sym_sum(int_list_arg(xs, n, "ct_sym_sum")); });
}
ct_status ct_sym_ite(const ct_symbool* c, const ct_symint* a, const ct_symint* b, ct_symint** out) {
  return produce(out, "ct_sym_ite", [&] {
    return sym_ite(bool_arg(c, "ct_sym_ite", "c"), int_arg(a, "ct_sym_ite", "a"), int_arg(b, "ct_sym_ite", "b"));
  });
}
ct_status ct_sym_ite_float(const ct_symbool* c, const ct_symfloat* a, const ct_symfloat* b, ct_symfloat** out) {
  return produce(out, "ct_sym_ite_float", [&] {
    return sym_ite(bool_arg(c, "ct_sym_ite_float", "c"), float_arg(a, "ct_sym_ite_float", "a"),
                   float_arg(b, "ct_sym_ite_float", "b"));
  });
}
ct_status ct_sym_not(const ct_symbool* b, ct_symbool** out) {
  return produce(out, "ct_sym_not", [&] { return sym_not(bool_arg(b, "ct_sym_not", "b")); });
}
ct_status ct_sym_float(const ct_symint* a, ct_symfloat** out) {
  return produce(out, "ct_sym_float", [&] { return sym_float(int_arg(a, "ct_sym_float")); });
}
ct_status ct_sym_int(const ct_symfloat* a, ct_symint** out) {
  return produce(out, "ct_sym_int", [&] { return sym_int(float_arg(a, "ct_sym_int")); });
}

// ---- tensors ----

ct_status ct_tensor_empty_symbolic(const ct_symint* const* sizes, size_t ndim, ct_dtype dtype, ct_tensor** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    const char* fn = "ct_tensor_empty_symbolic";
    capi::require_out(out, fn, "out");
    CT_CHECK(sizes || ndim == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": sizes is NULL with ndim ", ndim);
    CT_CHECK(ndim <= kMaxDims, CT_ERROR_INVALID_ARGUMENT, fn, ": ", ndim, " dims is more than the ", kMaxDims,
             " supported");
    SymDimVector dims;
    for (size_t d = 0; d < ndim; ++d) dims.push_back(int_arg(sizes[d], fn, "sizes[d]"));
    for (SymInt s : dims)
      CT_CHECK(s.is_symbolic() || s.raw() >= 0, CT_ERROR_INVALID_ARGUMENT, fn, ": negative size in ", dims.ref(),
               ". Sizes must be >= 0");
    *out = capi::to_handle(Tensor::adopt(TensorImpl::empty_sym(dims, capi::dtype_arg(dtype, fn), kMeta)));
  });
}

ct_status ct_tensor_is_symbolic(const ct_tensor* t, int* out) {
  return capi::guard([&] {
    const TensorImpl& x = capi::tensor_arg(t, "ct_tensor_is_symbolic", "t");
    capi::require_out(out, "ct_tensor_is_symbolic", "out");
    *out = x.is_symbolic();
  });
}

namespace {
ct_status sym_dim(const ct_tensor* t, int64_t dim, ct_symint** out, const char* fn, bool stride) {
  return produce(out, fn, [&] {
    const TensorImpl& x = capi::tensor_arg(t, fn, "t");
    const int64_t n = static_cast<int64_t>(x.dim());
    CT_CHECK(dim >= -n && dim < n, CT_ERROR_INDEX, fn, ": dim ", dim, " is out of range for a tensor of ", n,
             " dims ", x.sym_sizes(), ". Pass a dim in [", -n, ", ", n - 1, "]");
    const size_t d = static_cast<size_t>(dim < 0 ? dim + n : dim);
    return stride ? x.sym_stride(d) : x.sym_size(d);
  });
}
}  // namespace

ct_status ct_tensor_sym_size(const ct_tensor* t, int64_t dim, ct_symint** out) {
  return sym_dim(t, dim, out, "ct_tensor_sym_size", false);
}
ct_status ct_tensor_sym_stride(const ct_tensor* t, int64_t dim, ct_symint** out) {
  return sym_dim(t, dim, out, "ct_tensor_sym_stride", true);
}
ct_status ct_tensor_sym_numel(const ct_tensor* t, ct_symint** out) {
  return produce(out, "ct_tensor_sym_numel", [&] { return capi::tensor_arg(t, "ct_tensor_sym_numel", "t").sym_numel(); });
}

ct_status ct_tensor_sym_item(const ct_tensor* t, ct_symint** out) {
  return produce(out, "ct_tensor_sym_item", [&] {
    const char* fn = "ct_tensor_sym_item";
    const TensorImpl& x = capi::tensor_arg(t, fn, "t");
    CT_CHECK(x.device().is_meta() && x.shape_env(), CT_ERROR_DEVICE, fn, ": t (", x.sym_sizes(), ", ", x.dtype(),
             ", ", x.device(), ") is not a meta tensor of a ShapeEnv, so its value is not a symbol. Read data "
             "with ct_tensor_item");
    CT_CHECK(is_integral(x.dtype(), true), CT_ERROR_DTYPE, fn, ": t is ", x.dtype(),
             "; a symbolic size or count comes from an integer or bool tensor");
    CT_CHECK(x.sym_numel().maybe_int() == 1, CT_ERROR_INVALID_ARGUMENT, fn, ": t has ", x.sym_numel(),
             " elements (sizes ", x.sym_sizes(), "); item() needs exactly one");
    const SymInt u(x.shape_env()->create_unbacked(sym::Type::Int));
    compile::record_item(x, u);  // while tracing: an item node binds u when the graph runs
    return u;
  });
}
