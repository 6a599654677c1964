#include "dispatch/dispatcher.h"

#include <vector>

#include "core/error.h"
#include "dispatch/profiler.h"
#include "runtime/autocast.h"
#include "runtime/defaults.h"
#include "runtime/determinism.h"
#include "runtime/log.h"

namespace ct {

bool can_cast(DType from, DType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating(from) && !is_floating(to) && !is_complex(to)) return false;
  if (from != DType::Bool && to == DType::Bool) return false;
  return true;
}

DispatchKeySet call_keys(const OperatorDef& op, const Value* args, size_t nargs) {
  DispatchKeySet ks;
  for (size_t i = 0; i < nargs; ++i) {
    const Value& v = args[i];
    if (v.is_tensor()) {
      ks = ks.add(backend_key(v.tensor().device()));
      if (v.tensor().requires_grad()) ks = ks.add(DispatchKey::Autograd);
    } else if (v.kind() == Value::Kind::TensorList) {
      for (const TensorImpl* t : v.tensor_list()) {
        ks = ks.add(backend_key(t->device()));
        if (t->requires_grad()) ks = ks.add(DispatchKey::Autograd);
      }
    }
  }
  if (op.device_arg >= 0) {
    const Value& d = args[op.device_arg];
    ks = ks.add(backend_key(d.kind() == Value::Kind::Device ? d.device() : runtime::current_device()));
  }
  if (ks.empty()) ks = DispatchKeySet(DispatchKey::CPU);
  return ks;
}

namespace {

[[noreturn]] void fail_no_kernel(const OperatorDef& op, DispatchKeySet ks) {
  DispatchKey k = ks.highest();
  std::string have;
  for (int i = 0; i < kNumDispatchKeys; ++i)
    if (op.kernel_keys().has(static_cast<DispatchKey>(i)))
      have += std::string(have.empty() ? "" : ", ") + dispatch_key_name(static_cast<DispatchKey>(i));
  ct_status st = k == DispatchKey::CPU || k == DispatchKey::Meta ? CT_ERROR_NOT_IMPLEMENTED : CT_ERROR_DEVICE;
  fail(st, str(op.full_name, ": no kernel for ", dispatch_key_name(k), " (kernels exist for: ",
               have.empty() ? "none" : have, "). Move the inputs to a device that has one",
               op.builtin ? "" : ", or register one with ct_library_impl"));
}

// Note [Deterministic mode]
// Each kernel declares how reproducible it is (OperatorDef::determinism). With deterministic
// algorithms on, a kernel declared Atomic is refused (or, in warn-only mode, runs after one warning
// per operator and backend). A kernel with a deterministic path of its own reads
// runtime::deterministic_mode() itself and declares the determinism of that path. Deterministic
// (same bits for a fixed thread count) is accepted: PyTorch's switch makes the same promise.
void check_determinism(const OperatorDef& op, DispatchKey k) {
  if (op.determinism[static_cast<int>(k)] != Determinism::Atomic) return;
  const std::string what = str(op.full_name, ": the ", dispatch_key_name(k),
                               " kernel is nondeterministic (it accumulates with atomic operations, so results "
                               "may differ run to run)");
  if (runtime::deterministic_mode() == runtime::DeterministicMode::Warn) {
    runtime::warn_once(str("nondeterministic:", op.full_name, ":", dispatch_key_name(k)),
                       what + ", and deterministic algorithms are on in warn-only mode");
    return;
  }
  fail(CT_ERROR_NONDETERMINISTIC,
       what + ", and deterministic algorithms are on. Turn them off with ct_use_deterministic_algorithms(0, 0), "
              "or allow this kernel with a warning with ct_use_deterministic_algorithms(1, 1)");
}

// Note [One device per call]
// A backend kernel reads every tensor argument as memory of its own device: a cpu kernel handed a
// meta index reads its null data, a cuda kernel handed cpu memory reads host addresses. So before
// any backend kernel runs, the dispatcher checks that the tensors of the call share one device,
// for every operator (built-in or registered from C), as PyTorch's "Expected all tensors to be on
// the same device". The exceptions are PyTorch's too: a 0-dim cpu tensor that the call only
// reads is a number and goes with tensors of any device (one it writes, an in-place self, is
// memory like any other), and the indices of advanced indexing may be on the cpu (an operator
// declares them with OpBuilder::index_arg, and moves or refuses them itself). The kernel that
// runs must then be the one of the other tensors' device: a call whose tensors are on meta
// beside a number cannot run the cpu kernel because meta has none. Operators that move data
// between devices (to) take a single tensor and a Device argument, so they pass.
// The check runs only when the call's key set holds more than one backend key, which a call on
// one device never does; two devices of one type (cuda:0 and cuda:1) share a key, and that
// backend's kernels compare device indices themselves.
[[gnu::cold]] void check_devices(const OperatorDef& op, DispatchKey k, const Value* args, size_t nargs) {
  const TensorImpl* first = nullptr;
  std::string first_name;
  auto visit = [&](const TensorImpl& t, const std::string& name, size_t arg) {
    if (op.is_number(t, arg) || (t.device().is_cpu() && op.takes_indices(arg))) return;
    if (!first) {
      first = &t;
      first_name = name;
    } else if (t.device() != first->device() && !(t.device().is_meta() && first->device().is_meta())) {
      fail(CT_ERROR_DEVICE, str(op.schema.name, ": expected all tensors on one device, got ", first->device(), " (",
                                first_name, " ", first->sym_sizes(), ") and ", t.device(), " (", name, " ",
                                t.sym_sizes(), "). Move them to one device with to(); only a 0-dim cpu tensor "
                                "goes with tensors of another device"));
    }
  };
  for (size_t i = 0; i < nargs; ++i) {
    const std::string& name = i < op.schema.args.size() ? op.schema.args[i].name : std::string("argument");
    if (args[i].is_tensor()) {
      visit(args[i].tensor(), name, i);
    } else if (args[i].kind() == Value::Kind::TensorList) {
      const ArrayRef<const TensorImpl*> list = args[i].tensor_list();
      for (size_t j = 0; j < list.size(); ++j) visit(*list[j], str(name, "[", j, "]"), i);
    }
  }
  // Here only numbers (0-dim cpu tensors) and cpu indices sat beside tensors of one device, which
  // the kernel about to run must be for.
  if (first && k < static_cast<DispatchKey>(kNumBackendKeys) && backend_key(first->device()) != k)
    fail(first->device().is_meta() ? CT_ERROR_NOT_IMPLEMENTED : CT_ERROR_DEVICE,
         str(op.full_name, ": ", first_name, " is on ", first->device(), " beside cpu numbers or indices, and ",
             first->device(), " has no kernel for it (only ", dispatch_key_name(k), " does). Move the tensors to "
             "one device with to()"));
}

inline bool one_backend(DispatchKeySet ks) {
  const uint64_t b = (ks & DispatchKeySet::backends()).bits();
  return (b & (b - 1)) == 0;
}

void run(const OperatorDef& op, DispatchKeySet ks, const Value* args, size_t nargs, Tensor* outs, size_t nouts) {
  const Registry& reg = Registry::get();
  DispatchKeySet avail = ks & (op.kernel_keys() | reg.fallback_keys());
  // See Note [One device per call].
  const bool mixed = __builtin_expect(!one_backend(ks), 0);
  if (avail.empty()) {
    if (mixed) check_devices(op, ks.highest(), args, nargs);
    fail_no_kernel(op, ks.empty() ? DispatchKeySet(DispatchKey::CPU) : ks);
  }
  DispatchKey k = avail.highest();
  if (mixed && static_cast<int>(k) < kNumBackendKeys) check_devices(op, k, args, nargs);
  if (__builtin_expect(runtime::deterministic_mode() != runtime::DeterministicMode::Off, 0)) check_determinism(op, k);
  const Kernel& own = op.kernels[static_cast<int>(k)];
  const Kernel& kern = own.fn ? own : reg.fallback(k);
  Frame f{op, args, nargs, ks.below(k), outs, nouts};
  kern.fn(kern.data, f);
}

// Results made in inference mode are inference tensors; an argument handed back (add_'s self,
// to() of the same dtype) keeps what it was, as in PyTorch.
void mark_inference(const Value* args, size_t nargs, Tensor* outs, size_t nouts) {
  for (size_t i = 0; i < nouts; ++i) {
    if (!outs[i].defined()) continue;
    bool is_arg = false;
    for (size_t j = 0; j < nargs; ++j) is_arg |= args[j].is_tensor() && args[j].tensor_ptr() == outs[i].impl();
    if (!is_arg) outs[i]->set_inference();
  }
}

inline void dispatch_unprofiled(const OperatorDef& op, const Value* args, size_t nargs, Tensor* outs, size_t nouts) {
  const LocalDispatchKeys& l = local_dispatch_keys();
  DispatchKeySet ks = call_keys(op, args, nargs) | l.included;
  if (__builtin_expect(runtime::autocast_state().any, 0)) ks = ks.add(DispatchKey::Autocast);
  ks = ks - l.excluded;
  run(op, ks, args, nargs, outs, nouts);
  if (__builtin_expect(l.inference, 0)) mark_inference(args, nargs, outs, nouts);
}

__attribute__((noinline, cold)) void dispatch_profiled(const OperatorDef& op, const Value* args, size_t nargs,
                                                       Tensor* outs, size_t nouts) {
  OpSpan span(op, args, nargs);
  dispatch_unprofiled(op, args, nargs, outs, nouts);
}

// Note [Writable arguments]
// Whether an operator may write a tensor is a property of the tensor, not of the kernel: memory
// the caller lent read-only (a read-only numpy array, a READ_ONLY DLPack capsule) and inference
// tensors outside inference mode (PyTorch's contract) must never be written. The schema says which
// arguments an operator writes ("Tensor(a!)"), so the dispatcher checks them once, before any key
// runs, for every operator: in-place variants, copy_, the random fills and operators defined from C.
// Writes that do not go through an operator (optimizer steps, zero_grad) call check_writable
// themselves.
void check_written_args(const OperatorDef& op, const Value* args, size_t nargs) {
  for (size_t i = 0; i < nargs && i < 64; ++i) {
    if (!op.writes(i)) continue;
    const char* name = op.schema.args[i].name.c_str();
    if (args[i].is_tensor()) {
      check_writable(args[i].tensor(), op.schema.name.c_str(), name);
    } else if (args[i].kind() == Value::Kind::TensorList) {
      for (const TensorImpl* t : args[i].tensor_list()) check_writable(*t, op.schema.name.c_str(), name);
    }
  }
}

}  // namespace

// The profiler costs one relaxed load here while it is off: see Note [Profiler spans].
void dispatch(const OperatorDef& op, const Value* args, size_t nargs, Tensor* outs, size_t nouts) {
  try {
    if (__builtin_expect(op.written_args != 0, 0)) check_written_args(op, args, nargs);
    if (__builtin_expect(profiler_enabled(), 0)) return dispatch_profiled(op, args, nargs, outs, nouts);
    dispatch_unprofiled(op, args, nargs, outs, nouts);
  } catch (const UnattributedError& e) {  // the innermost operator is the one that read the argument
    fail(e.status(), str(op.schema.name, ": ", e.message()));
  }
}

void redispatch(Frame& f) { run(f.op, f.keys, f.args, f.nargs, f.outs, f.nouts); }

namespace {
// The ShapeEnv of the first tensor argument that has one: meta results join it, so item() on them
// gives that env's unbacked symbols (Note [Symbolic tensors]).
sym::ShapeEnv* frame_shape_env(const Frame& f) {
  for (size_t i = 0; i < f.nargs; ++i) {
    const Value& v = f.args[i];
    if (v.is_tensor() && v.tensor().shape_env()) return v.tensor().shape_env();
    if (v.kind() == Value::Kind::TensorList)
      for (const TensorImpl* t : v.tensor_list())
        if (t->shape_env()) return t->shape_env();
  }
  return nullptr;
}

// No element to read or write: a kernel would have nothing to do, and one that loops over rows
// would not finish for a (2^62, 0) tensor. Inputs count too, as their values may still be checked
// (an index into an empty tensor must be refused).
bool all_empty(const Frame& f, const MetaResult& m) {
  for (size_t i = 0; i < m.n; ++i)
    if (f.outs[i]->numel() != 0) return false;
  for (size_t i = 0; i < f.nargs; ++i) {
    const Value& v = f.args[i];
    if (v.is_tensor() && v.tensor().numel() != 0) return false;
    if (v.kind() == Value::Kind::TensorList)
      for (const TensorImpl* t : v.tensor_list())
        if (t->numel() != 0) return false;
  }
  return true;
}
}  // namespace

void structured_kernel(void*, Frame& f) {
  const MetaResult m = structured_outputs(f);
  // Outputs live on the inputs' device, so its backend names the compute to run (none for meta).
  const DispatchKey k = backend_key(m.outs[0].device);
  ComputeFn c = f.op.compute[static_cast<int>(k)];
  if (c && !all_empty(f, m)) c(f, m, f.outs);
}

namespace {

// A complex tensor reaching an operator whose functions do not take one: refused by name here, so
// that no meta function picks a real compute dtype for it and no kernel reads it as real numbers.
[[noreturn]] void refuse_complex(const Frame& f, const TensorImpl& t, size_t arg) {
  const std::string& name = arg < f.op.schema.args.size() ? f.op.schema.args[arg].name : f.op.schema.name;
  fail(CT_ERROR_DTYPE, str(f.op.schema.name, ": not supported for ", t.dtype(), " tensors (", name, ", sizes ",
                           t.sym_sizes(), "). Pass real tensors: view_as_real(t), t.real or t.abs() are real views "
                           "or values of a complex t"));
}
void check_complex_taken(const Frame& f) {
  for (size_t i = 0; i < f.nargs; ++i) {
    const Value& v = f.args[i];
    if (v.is_tensor() && is_complex(v.tensor().dtype())) refuse_complex(f, v.tensor(), i);
    if (v.kind() == Value::Kind::TensorList)
      for (const TensorImpl* t : v.tensor_list())
        if (t && is_complex(t->dtype())) refuse_complex(f, *t, i);
  }
}

}  // namespace

MetaResult structured_outputs(Frame& f) {
  MetaResult m;
  if (!f.op.takes_complex) check_complex_taken(f);
  f.op.meta(f, m);
  sym::ShapeEnv* env = m.outs[0].device.is_meta() ? frame_shape_env(f) : nullptr;
  for (size_t i = 0; i < m.n; ++i) {
    try {
      f.outs[i] = Tensor::adopt(TensorImpl::empty_sym(m.outs[i].sizes, m.outs[i].dtype, m.outs[i].device, env));
    } catch (const Error& e) {  // name the operator and the output that did not fit (or has no device)
      if (e.status() != CT_ERROR_OUT_OF_MEMORY && e.status() != CT_ERROR_DEVICE) throw;
      fail(e.status(), str(f.op.schema.name, ": output ", m.outs[i].sizes.ref(), " of ", m.outs[i].dtype, " on ",
                           m.outs[i].device, ": ", e.message()));
    }
  }
  return m;
}

// See Note [Writable arguments].
void check_writable(const TensorImpl& t, const char* op, const char* what) {
  CT_CHECK(!t.is_inference() || local_dispatch_keys().inference, CT_ERROR_INVALID_ARGUMENT, op, ": ", what,
           " is an inference tensor (sizes ", t.sym_sizes(), "), which cannot be changed in place outside inference "
           "mode. Clone it first, or change it inside inference mode");
  CT_CHECK(!t.storage()->read_only(), CT_ERROR_INVALID_ARGUMENT, op, ": ", what, " (sizes ", t.sym_sizes(), ", ",
           t.dtype(), ") is read-only memory lent by the caller (a read-only array or a READ_ONLY DLPack capsule) "
           "and cannot be written. Clone it and write the clone, or lend writable memory");
}

// Note [In-place aliasing]
// self is written element by element while the other inputs are read. An input that shares self's
// memory with another layout (a.add_(a.t())) would be read after being overwritten, so it is
// copied first, giving the answer the out-of-place form gives. So is one with the same layout when
// the kernel reads it at other elements than the one it writes (x.scatter_add_(0, x, x): writing
// self would change the index being followed, past the bounds it was checked against). A self
// that maps several elements to one location (an expanded view) has no well-defined result and is
// refused, as in PyTorch.
void inplace_kernel(void*, Frame& f) {
  const TensorImpl& self = f.tensor(0);
  CT_CHECK(!has_internal_overlap(self), CT_ERROR_INVALID_ARGUMENT, f.op.schema.name,
           ": several elements of self (sizes ", self.sym_sizes(), ", strides ", self.sym_strides(),
           ") share one memory location, so writing it in place is ill-defined. Clone self first");
  auto must_copy = [&](const Value& v) {
    if (!v.is_tensor()) return false;
    const TensorImpl& t = v.tensor();
    if (!f.op.inplace_reads_anywhere) return overlaps_differently(self, t);
    if (t.storage() != self.storage()) return false;
    return self.is_symbolic() || t.is_symbolic() || (t.numel() != 0 && self.numel() != 0);
  };
  for (size_t i = 1; i < f.nargs; ++i) {
    if (!must_copy(f.args[i])) continue;
    std::vector<Value> args(f.args, f.args + f.nargs);
    std::vector<Tensor> copies;
    for (size_t j = 1; j < f.nargs; ++j) {
      if (!must_copy(args[j])) continue;
      copies.push_back(call(builtin_op("clone"), {args[j]}));
      args[j] = Value(copies.back());
    }
    Frame g{f.op, args.data(), args.size(), f.keys, f.outs, f.nouts};
    inplace_kernel(nullptr, g);
    return;
  }
  MetaResult m;
  f.op.meta(f, m);
  CT_CHECK(m.outs[0].sizes.ref().equals(self.sym_sizes()), CT_ERROR_SHAPE, f.op.schema.name, ": the result has sizes ",
           m.outs[0].sizes.ref(), " but self has ", self.sym_sizes(),
           "; an in-place operator cannot grow self. Use the out-of-place form");
  CT_CHECK(can_cast(m.outs[0].dtype, self.dtype()), CT_ERROR_DTYPE, f.op.schema.name, ": result dtype ",
           m.outs[0].dtype, " cannot be cast to self's dtype ", self.dtype(),
           " in place. Use the out-of-place form, or convert self with to() first");
  f.outs[0] = Tensor::borrow(&self);
  const DispatchKey k = backend_key(self.device());
  ComputeFn c = f.op.compute[static_cast<int>(k)];
  if (c && !all_empty(f, m)) c(f, m, f.outs);
  self.storage()->bump_version();
}

}  // namespace ct
