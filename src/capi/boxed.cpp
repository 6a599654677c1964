// boxed.cpp - ct_op_call and the registry through the C ABI: schemas, the JSON registry, and
// operators and kernels defined from C.
#include <algorithm>
#include <array>
#include <cstring>
#include <forward_list>
#include <memory>
#include <new>
#include <mutex>
#include <unordered_map>
#include <type_traits>
#include <vector>

#include "capi/handle.h"
#include "core/error.h"
#include "dispatch/dispatcher.h"
#include "ops/op_common.h"
#include "runtime/json.h"

using namespace ct;

namespace {

const char* kind_name(int k) {
  static constexpr const char* names[] = {"None", "Tensor", "int", "float", "bool", "int[]", "Tensor[]", "ScalarType",
                                          "Device", "str", "SymInt", "SymInt[]"};
  return k >= 0 && k <= CT_VALUE_SYMINTS ? names[k] : "unknown";
}

// Note [Boxed lists and outputs]
// C cannot tell the library how long an array really is, so the boxed ABI bounds what it touches.
// A list's len is checked before any element is read: at most CT_MAX_LIST_LEN, so an
// uninitialized or garbage len is refused instead of read past. (The N of int[N] does not bound
// it: in PyTorch's schemas it is the length one int expands to, and int[1] dim takes any list.)
// Outputs: ct_op_call writes only the slots of the operator's returns, never the rest of nouts.
void check_list_len(const ct_value& v, const Argument& a, const char* fn) {
  CT_CHECK(v.len <= CT_MAX_LIST_LEN, CT_ERROR_INVALID_ARGUMENT, fn, ": argument '", a.name, "' (", a.type_text,
           ") has len ", v.len, ", more than a list may hold (CT_MAX_LIST_LEN, ", CT_MAX_LIST_LEN,
           "). Set len to the number of elements in the array");
}

// Symbolic int lists read from C values; each must outlive the call (see Note [Symbolic values in
// frames]), so elements never move, and an empty one allocates nothing (most calls have none).
using SymLists = std::forward_list<SymDimVector>;

// Converts one C value to an argument of schema type `a`; false (with why) when the kind does not fit.
// fn names the entry point in messages about a handle (ct_op_call, ct_op_call_op).
bool convert(const char* fn, const ct_value& v, const Argument& a, Value* out, SymLists& lists, std::string* why) {
  const int kind = capi::raw_enum(v.kind);
  if (kind == CT_VALUE_NONE) {
    if (a.has_default) *out = a.default_value.as_value();
    else if (a.optional) *out = Value();
    else return *why = "argument '" + a.name + "' is required", false;
    return true;
  }
  auto mismatch = [&] {
    *why = "argument '" + a.name + "' expects " + a.type_text + ", got " + kind_name(kind);
    return false;
  };
  switch (a.type) {
    case ArgType::Tensor:
      if (kind != CT_VALUE_TENSOR) return mismatch();
      *out = Value(&capi::tensor_arg(v.tensor, fn, a.name.c_str()));
      return true;
    case ArgType::TensorList:
      if (kind == CT_VALUE_INTS && v.len == 0) {  // an empty list has no element type to tell it by
        *out = Value(ArrayRef<const TensorImpl*>());
        return true;
      }
      if (kind != CT_VALUE_TENSORS) return mismatch();
      check_list_len(v, a, fn);
      CT_CHECK(v.tensors || v.len == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": argument '", a.name, "' has NULL tensors");
      for (size_t i = 0; i < v.len; ++i) capi::tensor_arg(v.tensors[i], fn, a.name.c_str());
      *out = Value(ArrayRef<const TensorImpl*>(reinterpret_cast<const TensorImpl* const*>(v.tensors), v.len));
      return true;
    case ArgType::Int:
      if (kind == CT_VALUE_SYMINT) {
        *out = Value(capi::symint_arg(v.tensor, fn, a.name.c_str()));
        return true;
      }
      if (kind != CT_VALUE_INT) return mismatch();
      *out = Value(v.i);
      return true;
    case ArgType::IntList:
      if (kind == CT_VALUE_INT) {  // PyTorch accepts one int for int[]
        *out = Value(IntArrayRef(&v.i, 1));
        return true;
      }
      if (kind == CT_VALUE_SYMINT || kind == CT_VALUE_SYMINTS) {
        const bool one = kind == CT_VALUE_SYMINT;
        if (!one) check_list_len(v, a, fn);
        CT_CHECK(one || v.tensors || v.len == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": argument '", a.name,
                 "' has NULL symints");
        SymDimVector& list = lists.emplace_front();
        for (size_t i = 0; i < (one ? 1 : v.len); ++i)
          list.push_back(capi::symint_arg(one ? v.tensor : v.tensors[i], fn, a.name.c_str()));
        *out = Value(list.ref());
        return true;
      }
      if (kind != CT_VALUE_INTS) return mismatch();
      check_list_len(v, a, fn);
      CT_CHECK(v.ints || v.len == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": argument '", a.name, "' has NULL ints");
      *out = Value(IntArrayRef(v.ints, v.len));
      return true;
    case ArgType::Float:
      if (kind != CT_VALUE_FLOAT && kind != CT_VALUE_INT) return mismatch();
      *out = Value(kind == CT_VALUE_FLOAT ? v.f : static_cast<double>(v.i));
      return true;
    case ArgType::Bool:
      if (kind != CT_VALUE_BOOL) return mismatch();
      *out = Value(v.i != 0);
      return true;
    case ArgType::Scalar:
      if (kind == CT_VALUE_FLOAT) *out = Value(v.f);
      else if (kind == CT_VALUE_INT) *out = Value(v.i);
      else if (kind == CT_VALUE_BOOL) *out = Value(v.i != 0);
      else return mismatch();
      return true;
    case ArgType::ScalarType:
      if (kind != CT_VALUE_DTYPE) return mismatch();
      *out = Value(dtype_from_c(static_cast<int>(v.i)));
      return true;
    case ArgType::Device:
      if (kind != CT_VALUE_DEVICE && kind != CT_VALUE_STRING) return mismatch();
      *out = Value(parse_device(v.str));
      return true;
    case ArgType::String:
      if (kind != CT_VALUE_STRING || !v.str) return mismatch();
      *out = Value(v.str);
      return true;
    case ArgType::Generator:  // boxed calls use the default generator: see ct_op_call
      return mismatch();
  }
  return mismatch();
}

// The bound arguments of one call: on the stack for any ordinary schema, so a call allocates
// nothing. The slots start uninitialized (zeroing sixteen values was a tenth of what ct_op_call
// added to a small operator): bind assigns every one it hands out.
class BoundArgs {
 public:
  BoundArgs() {}
  void resize(size_t n) {
    if (n > kInline) heap_.resize(n);
    data_ = n > kInline ? heap_.data() : inline_.values;
    size_ = n;
  }
  Value& operator[](size_t i) { return data_[i]; }
  const Value* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  static constexpr size_t kInline = 16;
  union Inline {
    Inline() {}
    Value values[kInline];
  } inline_;
  std::vector<Value> heap_;
  Value* data_ = nullptr;
  size_t size_ = 0;
};
static_assert(std::is_trivially_destructible<Value>::value, "BoundArgs never destroys its inline values");

// Binds C values to op's schema (defaults filled); false with the reason when they do not fit.
bool bind(const char* fn, const OperatorDef& op, const ct_value* args, size_t nargs, BoundArgs& out, SymLists& lists,
          std::string* why, const Value* absent = nullptr) {
  const std::vector<Argument>& params = op.schema.args;
  if (nargs > params.size()) {
    *why = str(nargs, " arguments given, at most ", params.size(), " accepted");
    return false;
  }
  const size_t n = params.size();
  out.resize(n);
  for (size_t i = 0; i < n; ++i) {
    if (i < nargs) {
      // A tensor where the schema takes one, the most common argument by far, skips convert's switch.
      if (params[i].type == ArgType::Tensor && capi::raw_enum(args[i].kind) == CT_VALUE_TENSOR) {
        out[i] = Value(&capi::tensor_arg(args[i].tensor, fn, params[i].name.c_str()));
        continue;
      }
      if (!convert(fn, args[i], params[i], &out[i], lists, why)) return false;
    } else if (absent && (params[i].has_default || params[i].optional)) {
      out[i] = absent[i];
    } else if (params[i].has_default) {
      new (&out[i]) Value(params[i].default_value.as_value());  // built in place: no copy through the stack
    } else if (params[i].optional) {
      out[i] = Value();
    } else {
      *why = "argument '" + params[i].name + "' is missing";
      return false;
    }
  }
  return true;
}

// The overloads a name may mean. Inline: the bindings' generated methods name one overload in
// full ("add.Tensor"), and then a call looks it up without a heap allocation.
using Overloads = SmallVector<OperatorDef*, 4>;

// Note [Overload lookup cache]
// Callers that name an overload in full on every call (programs in C, the bindings' call-by-name
// functions; their generated methods hold a ct_op_find handle instead) paid the registry's lookup
// (a string, a shared lock, a hash and a compare) on each: a third of what ct_op_call added to a
// small operator. A full name means one operator forever (definitions are
// never removed or replaced), so each thread remembers the operators it found, by the name's
// content: a hit costs one pass over the name, with no lock, no allocation and no invalidation.
// Base names are not cached: a library may add overloads to them.
struct CachedOverload {
  char name[48];
  size_t len;
  OperatorDef* op;
};

Overloads candidates(const char* name) {
  // One pass: the length, the hash, and whether a '.' follows the last "::" (a full name such as
  // "add.Tensor" or "myext::scale.out", as against the base name "add").
  uint32_t hash = 2166136261u;  // FNV-1a
  bool dot = false;
  size_t len = 0;
  for (; name[len]; ++len) {
    const char c = name[len];
    if (c == ':' && name[len + 1] == ':') dot = false;
    else if (c == '.') dot = true;
    hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  }
  Overloads out;
  const Registry& r = Registry::get();
  if (!dot) {
    const std::vector<OperatorDef*> all = r.overloads(name);
    out.assign(all.data(), all.size());
    return out;
  }
  thread_local CachedOverload cache[64] = {};
  CachedOverload& e = cache[hash % 64];
  if (e.op && e.len == len) {
    size_t i = 0;
    while (i < len && e.name[i] == name[i]) ++i;
    if (i == len) {
      out.push_back(e.op);
      return out;
    }
  }
  if (OperatorDef* op = r.find(name)) {
    if (len < sizeof(e.name)) std::memcpy(e.name, name, len), e.len = len, e.op = op;
    out.push_back(op);
  }
  return out;
}

}  // namespace

// The handle ct_op_find gives: one per operator, made on first request and kept for the process
// (operators are never removed), so that callers hold it in a static. The magic tells a handle
// from a stray pointer, as a tensor's does.
struct ct_op {
  static constexpr uint32_t kMagic = 0x4f505452;  // "OPTR"
  uint32_t magic = kMagic;
  OperatorDef* def;
  // What each argument is when a call leaves it out (its default, or None), built once: the
  // values point into the schema, which lives as long as the operator.
  std::vector<Value> absent;
};

namespace {

const ct_op* op_handle(OperatorDef& def) {
  static std::mutex mu;
  static std::unordered_map<const OperatorDef*, std::unique_ptr<ct_op>>* handles =
      new std::unordered_map<const OperatorDef*, std::unique_ptr<ct_op>>();  // never destroyed: see above
  std::lock_guard<std::mutex> g(mu);
  std::unique_ptr<ct_op>& h = (*handles)[&def];
  if (!h) {
    h.reset(new ct_op{ct_op::kMagic, &def, {}});
    for (const Argument& a : def.schema.args) h->absent.push_back(a.has_default ? a.default_value.as_value() : Value());
  }
  return h.get();
}

// The one operator a ct_library_* call names; CT_ERROR_INVALID_ARGUMENT when none or several.
OperatorDef& one_operator(const char* name, const char* fn) {
  const Overloads ops = candidates(name);
  CT_CHECK(ops.size() == 1, CT_ERROR_INVALID_ARGUMENT, fn, ": ", ops.empty() ? "no operator named '" : "several overloads named '",
           name, ops.empty() ? "'. Define it first with ct_library_define" : "'. Name one as ns::op.overload");
  return *ops[0];
}

// The backend key of a device string; CT_ERROR_DEVICE when it does not parse.
DispatchKey backend_key_arg(const char* device, const char* fn) {
  try {
    return backend_key(parse_device(device));
  } catch (const Error& e) {
    fail(CT_ERROR_DEVICE, str(fn, ": ", e.message()));
  }
}

// A string default in a schema may hold any byte ('a<TAB>b'): every control character is escaped.
void json_string(std::string& out, const std::string& s) { runtime::append_json_string(out, s.c_str()); }

// ---- C kernels ----

struct CKernel {
  ct_kernel_fn fn;
  void* user_data;
  ct_destroy_fn destroy;
};

void destroy_c_kernel(void* data) {
  CKernel* k = static_cast<CKernel*>(data);
  if (k->destroy) k->destroy(k->user_data);
  delete k;
}

// Hands a frame to a C kernel as ct_values and takes back its outputs.
void run_c_kernel(void* data, Frame& f) {
  const CKernel& k = *static_cast<CKernel*>(data);
  std::vector<ct_value> args(f.nargs);
  std::vector<std::string> strings(f.nargs);
  for (size_t i = 0; i < f.nargs; ++i) {
    const Value& v = f.args[i];
    ct_value& c = args[i];
    c = ct_value{};
    switch (v.kind()) {
      case Value::Kind::None: c.kind = CT_VALUE_NONE; break;
      case Value::Kind::Tensor: c.kind = CT_VALUE_TENSOR, c.tensor = reinterpret_cast<const ct_tensor*>(v.tensor_ptr()); break;
      case Value::Kind::Int: c.kind = CT_VALUE_INT, c.i = v.to_int(); break;
      case Value::Kind::Double: c.kind = CT_VALUE_FLOAT, c.f = v.to_double(); break;
      case Value::Kind::Bool: c.kind = CT_VALUE_BOOL, c.i = v.to_bool(); break;
      case Value::Kind::IntList: c.kind = CT_VALUE_INTS, c.ints = v.int_list().data(), c.len = v.int_list().size(); break;
      case Value::Kind::TensorList:
        c.kind = CT_VALUE_TENSORS;
        c.tensors = reinterpret_cast<const ct_tensor* const*>(v.tensor_list().data());
        c.len = v.tensor_list().size();
        break;
      case Value::Kind::DType: c.kind = CT_VALUE_DTYPE, c.i = static_cast<int64_t>(v.dtype()); break;
      case Value::Kind::Device:
        strings[i] = device_string(v.device());
        c.kind = CT_VALUE_DEVICE, c.str = strings[i].c_str();
        break;
      case Value::Kind::String: c.kind = CT_VALUE_STRING, c.str = v.str(); break;
      case Value::Kind::Generator: c.kind = CT_VALUE_NONE; break;  // ct_value has no generator field
      // A C kernel computes on concrete values: a symbolic int is specialized (a guard), and a
      // symbolic list is refused with CT_ERROR_GUARD (see Note [Symbolic values in frames]).
      case Value::Kind::SymInt: c.kind = CT_VALUE_INT, c.i = v.to_int(); break;
      case Value::Kind::SymIntList: c.kind = CT_VALUE_INTS, c.ints = v.int_list().data(); break;
    }
  }
  // A built-in structured operator's outputs come from its shared meta function (see ct_kernel_fn):
  // f.outs hold them while the kernel runs, and outs hands the kernel its own references.
  std::vector<ct_tensor*> outs(f.nouts, nullptr);
  if (f.op.builtin && f.op.meta && !f.op.functional) {
    structured_outputs(f);
    for (size_t i = 0; i < f.nouts; ++i) outs[i] = capi::to_handle(f.outs[i]);
  }
  std::vector<ct_tensor*> given = outs;
  auto release_outs = [&] {
    for (size_t i = 0; i < f.nouts; ++i) {
      ct_tensor_release(outs[i]);
      if (given[i] != outs[i]) ct_tensor_release(given[i]);
    }
  };
  const std::string context = f.op.full_name + ": user kernel failed";
  const int st = capi::call_back(f.op.full_name.c_str(), [&] {
    return k.fn(k.user_data, args.data(), args.size(), outs.data(), outs.size());
  });
  if (st != CT_OK) {
    release_outs();
    capi::fail_callback(st, context);
  }
  // The kernel's handles are checked before ctorch takes them (Note [Calling back into the host]);
  // the ones ctorch handed it and it replaced are released either way.
  for (size_t i = 0; i < f.nouts; ++i)
    if (given[i] != outs[i]) ct_tensor_release(given[i]);
  capi::adopt_callback_results(outs.data(), outs.size(), f.outs, context);
  for (size_t i = 0; i < f.nouts; ++i)
    CT_CHECK(f.outs[i].defined(), CT_ERROR_INVALID_ARGUMENT, f.op.full_name,
             ": user kernel returned CT_OK but left output ", i, " NULL. Write one new tensor per return");
}

// " Did you mean: ...?" for an unknown operator name, or where to find the list.
std::string close_names(const char* name) {
  std::string close;
  for (const std::string& s : Registry::get().similar_names(name)) close += (close.empty() ? "" : ", ") + s;
  return close.empty() ? " See ct_op_registry_json for the list" : " Did you mean: " + close + "?";
}

// Dispatches op with its bound arguments and hands the caller one new reference per return.
void run_bound(const char* fn, const OperatorDef& op, const BoundArgs& bound, ct_tensor** outs, size_t nouts) {
  const size_t n = op.num_returns();
  CT_CHECK(outs || n == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": outs is NULL");
  CT_CHECK(nouts >= n, CT_ERROR_INVALID_ARGUMENT, fn, ": ", op.full_name, " returns ", n,
           " tensors but nouts is ", nouts, ". Pass room for every return");
  if (n == 1) {  // most operators: one result, nothing to set up
    Tensor result;
    dispatch(op, bound.data(), bound.size(), &result, 1);
    outs[0] = capi::to_handle(std::move(result));
    return;
  }
  // Up to four results live on the stack.
  std::array<Tensor, 4> inline_results;
  std::unique_ptr<Tensor[]> many_results;
  if (n > inline_results.size()) many_results.reset(new Tensor[n]);
  Tensor* results = many_results ? many_results.get() : inline_results.data();
  dispatch(op, bound.data(), bound.size(), results, n);
  for (size_t i = 0; i < n; ++i) outs[i] = capi::to_handle(std::move(results[i]));
}

// The slots a call may write (Note [Boxed lists and outputs]), cleared first so that every failure
// from here on leaves them NULL; then the args check every call makes.
void clear_outs(const char* fn, size_t returns, const ct_value* args, size_t nargs, ct_tensor** outs, size_t nouts) {
  if (outs)
    for (size_t i = 0; i < std::min(returns, nouts); ++i) outs[i] = nullptr;
  CT_CHECK(args || nargs == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": args is NULL but nargs is ", nargs);
}

// ct_op_call once its name has given the overloads: the first whose schema accepts the arguments
// runs. name (what the caller named) is for messages.
void call_overloads(const Overloads& ops, const char* name, const ct_value* args, size_t nargs, ct_tensor** outs,
                    size_t nouts) {
  const char* fn = "ct_op_call";
  size_t returns = 0;
  for (const OperatorDef* op : ops) returns = std::max(returns, op->num_returns());
  clear_outs(fn, returns, args, nargs, outs, nouts);
  BoundArgs bound;
  SymLists lists;
  std::string reasons;
  for (OperatorDef* op : ops) {
    std::string why;
    if (bind(fn, *op, args, nargs, bound, lists, &why)) return run_bound(fn, *op, bound, outs, nouts);
    reasons += "\n  " + op->schema.text + ": " + why;
  }
  fail(CT_ERROR_INVALID_ARGUMENT, str(fn, ": no overload of '", name, "' accepts these arguments:", reasons));
}

}  // namespace

extern "C" {

ct_status ct_op_call(const char* name, const ct_value* args, size_t nargs, ct_tensor** outs, size_t nouts) {
  if (!name && outs && nouts > 0) outs[0] = nullptr;  // as for an unknown name
  return capi::guard([&] {
    CT_CHECK(name, CT_ERROR_INVALID_ARGUMENT, "ct_op_call: name is NULL. Pass an operator name such as \"add\"");
    const Overloads ops = candidates(name);
    if (ops.empty()) {
      if (outs && nouts > 0) outs[0] = nullptr;  // an unknown name still clears a caller's first slot
      fail(CT_ERROR_INVALID_ARGUMENT, str("ct_op_call: no operator named '", name, "'.", close_names(name)));
    }
    call_overloads(ops, name, args, nargs, outs, nouts);
  });
}

ct_status ct_op_find(const char* name, const ct_op** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    capi::require_out(out, "ct_op_find", "out");
    CT_CHECK(name, CT_ERROR_INVALID_ARGUMENT, "ct_op_find: name is NULL. Pass an overload name such as \"add.Tensor\"");
    // A full name, including that of an overload without overload name ("sort" beside "sort.stable").
    if (OperatorDef* exact = Registry::get().find(name)) {
      *out = op_handle(*exact);
      return;
    }
    const Overloads ops = candidates(name);
    CT_CHECK(!ops.empty(), CT_ERROR_INVALID_ARGUMENT, "ct_op_find: no operator named '", name, "'.", close_names(name));
    if (ops.size() > 1) {
      std::string names;
      for (const OperatorDef* op : ops) names += (names.empty() ? "" : ", ") + op->full_name;
      fail(CT_ERROR_INVALID_ARGUMENT, str("ct_op_find: '", name, "' has ", ops.size(), " overloads (", names,
                                          "). Name one of them in full"));
    }
    *out = op_handle(*ops[0]);
  });
}

ct_status ct_op_call_op(const ct_op* op, const ct_value* args, size_t nargs, ct_tensor** outs, size_t nouts) {
  return capi::guard([&] {
    CT_CHECK(op && op->magic == ct_op::kMagic, CT_ERROR_INVALID_ARGUMENT, "ct_op_call_op: op is ",
             op ? "not an operator ct_op_find gave" : "NULL", ". Find the overload with ct_op_find first");
    const char* fn = "ct_op_call_op";
    const OperatorDef& def = *op->def;
    clear_outs(fn, def.num_returns(), args, nargs, outs, nouts);
    BoundArgs bound;
    SymLists lists;
    std::string why;
    CT_CHECK(bind(fn, def, args, nargs, bound, lists, &why, op->absent.data()), CT_ERROR_INVALID_ARGUMENT, fn, ": ", def.full_name,
             " does not accept these arguments: ", def.schema.text, ": ", why);
    run_bound(fn, def, bound, outs, nouts);
  });
}

ct_status ct_op_schema(const char* name, char** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    capi::require_out(out, "ct_op_schema", "out");
    CT_CHECK(name, CT_ERROR_INVALID_ARGUMENT, "ct_op_schema: name is NULL");
    const Overloads ops = candidates(name);
    CT_CHECK(!ops.empty(), CT_ERROR_INVALID_ARGUMENT, "ct_op_schema: no operator named '", name,
             "'. See ct_op_registry_json for the list");
    std::string s;
    for (OperatorDef* op : ops) s += (s.empty() ? "" : "\n") + op->schema.text;
    *out = capi::copy_string(s);
  });
}

ct_status ct_op_registry_json(char** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    capi::require_out(out, "ct_op_registry_json", "out");
    std::string j = "{\"version\": 1, \"operators\": [";
    bool first_op = true;
    for (const OperatorDef* op : Registry::get().all()) {
      j += first_op ? "\n" : ",\n";
      first_op = false;
      j += "{\"name\": ";
      json_string(j, op->schema.name);
      j += ", \"overload\": ";
      json_string(j, op->schema.overload);
      j += ", \"schema\": ";
      json_string(j, op->schema.text);
      j += ", \"arguments\": [";
      for (size_t i = 0; i < op->schema.args.size(); ++i) {
        const Argument& a = op->schema.args[i];
        j += i ? ", {\"name\": " : "{\"name\": ";
        json_string(j, a.name);
        j += ", \"type\": ";
        json_string(j, a.type_text);
        j += str(", \"kwarg_only\": ", a.kwarg_only ? "true" : "false", ", \"default\": ");
        if (a.has_default) json_string(j, a.default_value.to_string());
        else j += "null";
        j += "}";
      }
      j += "], \"returns\": [";
      for (size_t i = 0; i < op->schema.returns.size(); ++i) {
        j += i ? ", {\"type\": " : "{\"type\": ";
        json_string(j, op->schema.returns[i].type_text);
        j += ", \"name\": ";
        if (op->schema.returns[i].name.empty()) j += "null";
        else json_string(j, op->schema.returns[i].name);
        j += "}";
      }
      j += str("], \"inplace\": ", op->schema.mutates() ? "true" : "false", ", \"view\": ", op->is_view ? "true" : "false",
               ", \"builtin\": ", op->builtin ? "true" : "false", ", \"alias_of\": ");
      if (op->alias_of) json_string(j, op->alias_of->full_name);
      else j += "null";
      j += ", \"backends\": {";
      bool first_key = true;
      for (int k = 0; k < kNumBackendKeys; ++k) {
        if (!op->kernel_keys().has(static_cast<DispatchKey>(k))) continue;
        j += str(first_key ? "" : ", ", "\"", dispatch_key_name(static_cast<DispatchKey>(k)), "\": {\"determinism\": \"",
                 determinism_name(op->determinism[k]), "\"}");
        first_key = false;
      }
      const Derivative& d = op->functional ? op->functional->derivative : op->derivative;
      j += str("}, \"derivative\": \"", differentiability_name(d.kind), "\"}");
    }
    j += "\n]}";
    *out = capi::copy_string(j);
  });
}

ct_status ct_library_define(const char* schema) {
  return capi::guard([&] {
    CT_CHECK(schema, CT_ERROR_INVALID_ARGUMENT, "ct_library_define: schema is NULL");
    Schema parsed = parse_schema(schema);
    CT_CHECK(!parsed.ns.empty(), CT_ERROR_INVALID_ARGUMENT, "ct_library_define: '", parsed.name,
             "' has no namespace. Name it \"myext::", parsed.name, "\" so it cannot collide with built-ins");
    Registry::get().def(schema, false);
  });
}

ct_status ct_library_impl(const char* name, const char* device, ct_kernel_fn fn, void* user_data, ct_destroy_fn destroy) {
  return capi::guard([&] {
    const char* f = "ct_library_impl";
    CT_CHECK(name && device && fn, CT_ERROR_INVALID_ARGUMENT, f, ": name, device and fn must not be NULL");
    OperatorDef& op = one_operator(name, f);
    const DispatchKey key = backend_key_arg(device, f);
    CT_CHECK(!op.builtin || !op.kernel_keys().has(key), CT_ERROR_INVALID_ARGUMENT, f, ": ", op.full_name,
             " already has a built-in ", dispatch_key_name(key),
             " kernel, which C kernels do not replace. Register for a device without one, or define a new operator");
    Registry::get().set_kernel(op, key, Kernel{run_c_kernel, new CKernel{fn, user_data, destroy}, destroy_c_kernel},
                               Determinism::Deterministic);
  });
}

ct_status ct_library_set_determinism(const char* name, const char* device, ct_determinism determinism) {
  return capi::guard([&] {
    const char* f = "ct_library_set_determinism";
    CT_CHECK(name && device, CT_ERROR_INVALID_ARGUMENT, f, ": name and device must not be NULL");
    const int d = capi::raw_enum(determinism);
    CT_CHECK(d >= CT_DETERMINISM_BITWISE && d <= CT_DETERMINISM_ATOMIC, CT_ERROR_INVALID_ARGUMENT, f, ": ", d,
             " is not a ct_determinism. Pass CT_DETERMINISM_BITWISE, _DETERMINISTIC or _ATOMIC");
    OperatorDef& op = one_operator(name, f);
    const DispatchKey key = backend_key_arg(device, f);
    CT_CHECK(!op.builtin, CT_ERROR_INVALID_ARGUMENT, f, ": ", op.full_name,
             " is built in; its kernels declare their own determinism");
    CT_CHECK(op.kernel_keys().has(key), CT_ERROR_INVALID_ARGUMENT, f, ": ", op.full_name, " has no ",
             dispatch_key_name(key), " kernel. Register it with ct_library_impl first");
    op.determinism[static_cast<int>(key)] = static_cast<Determinism>(d);
  });
}

}  // extern "C"

ct_status ct_result_type(const ct_value* args, size_t n, ct_dtype* out) {
  return capi::guard([&] {
    const char* fn = "ct_result_type";
    CT_CHECK(args && n > 0, CT_ERROR_INVALID_ARGUMENT, fn, ": no arguments. Pass at least one tensor or number");
    CT_CHECK(out, CT_ERROR_INVALID_ARGUMENT, fn, ": out is NULL. Pass a ct_dtype to fill");
    ops::ResultType rt;
    for (size_t i = 0; i < n; ++i) {
      const int kind = capi::raw_enum(args[i].kind);
      if (kind == CT_VALUE_TENSOR) rt.add(capi::tensor_arg(args[i].tensor, fn, "args"));
      else if (kind == CT_VALUE_INT) rt.add(Scalar(args[i].i));
      else if (kind == CT_VALUE_FLOAT) rt.add(Scalar(args[i].f));
      else if (kind == CT_VALUE_BOOL) rt.add(Scalar(args[i].i != 0));
      else CT_CHECK(false, CT_ERROR_INVALID_ARGUMENT, fn, ": argument ", i, " is a ", kind_name(kind),
                    "; it takes tensors and numbers");
    }
    *out = static_cast<ct_dtype>(rt.result());
  });
}
