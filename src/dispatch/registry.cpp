#include "dispatch/registry.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>

#include "core/error.h"
#include "dispatch/dispatcher.h"

namespace ct {

const char* determinism_name(Determinism d) {
  switch (d) {
    case Determinism::Bitwise: return "bitwise";
    case Determinism::Deterministic: return "deterministic";
    case Determinism::Atomic: return "atomic";
  }
  return "?";
}

const char* differentiability_name(Differentiability d) {
  switch (d) {
    case Differentiability::Missing: return "missing";
    case Differentiability::Defined: return "defined";
    case Differentiability::Implicit: return "implicit";
    case Differentiability::None: return "none";
  }
  return "?";
}

const char* dispatch_key_name(DispatchKey k) {
  static constexpr const char* names[kNumDispatchKeys] = {"cpu",          "cuda",         "meta",
                                                          "privateuse1",  "privateuse2",  "privateuse3",
                                                          "privateuse4",  "autograd",     "profiler", "tracer",
                                                          "autocast"};
  const int i = static_cast<int>(k);
  // A plugin's key reads as its device's registered name ("counting"), as in the messages users see.
  const char* device = i < kNumBackendKeys ? device_type_name(static_cast<DeviceType>(i)) : nullptr;
  return device ? device : names[i];
}

LocalDispatchKeys& local_dispatch_keys() {
  thread_local LocalDispatchKeys keys;
  return keys;
}

namespace {
std::atomic<int64_t> g_build_time_us{0};
}

Registry& Registry::get() {
  static Registry* r = [] {
    const auto start = std::chrono::steady_clock::now();
    Registry* reg = new Registry;  // never destroyed: kernels may run during static destruction
    register_builtin_operators(*reg);
    g_build_time_us.store(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count(),
        std::memory_order_relaxed);
    return reg;
  }();
  return *r;
}

int64_t Registry::build_time_us() { return g_build_time_us.load(std::memory_order_relaxed); }

OpBuilder Registry::def(const std::string& schema_text, bool builtin) {
  Schema schema = parse_schema(schema_text);
  std::unique_lock<std::shared_mutex> g(mu_);
  std::string full = schema.full_name();
  CT_CHECK(!by_full_name_.count(full), CT_ERROR_INVALID_ARGUMENT, "define: operator ", full,
           " already exists. Give the new overload another name (name.overload)");
  auto op = std::make_unique<OperatorDef>();
  op->schema = std::move(schema);
  op->full_name = full;
  op->builtin = builtin;
  for (size_t i = 0; i < op->schema.args.size() && i < 64; ++i)
    if (op->schema.args[i].writes) op->written_args |= uint64_t{1} << i;
  OperatorDef* p = op.get();
  ops_.push_back(std::move(op));
  by_full_name_[full] = p;
  by_name_[p->schema.name].push_back(p);
  return OpBuilder(*this, *p);
}

OperatorDef* Registry::find(const std::string& full_name) const {
  std::shared_lock<std::shared_mutex> g(mu_);
  auto it = by_full_name_.find(full_name);
  return it == by_full_name_.end() ? nullptr : it->second;
}

std::vector<OperatorDef*> Registry::overloads(const std::string& name) const {
  std::shared_lock<std::shared_mutex> g(mu_);
  auto it = by_name_.find(name);
  return it == by_name_.end() ? std::vector<OperatorDef*>{} : it->second;
}

std::vector<OperatorDef*> Registry::all() const {
  std::shared_lock<std::shared_mutex> g(mu_);
  std::vector<OperatorDef*> out;
  for (auto& op : ops_) out.push_back(op.get());
  return out;
}

std::vector<std::string> Registry::similar_names(const std::string& name) const {
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      size_t diag = row[0];
      row[0] = i;
      for (size_t j = 1; j <= b.size(); ++j) {
        size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
        diag = up;
      }
    }
    return row[b.size()];
  };
  std::shared_lock<std::shared_mutex> g(mu_);
  std::vector<std::string> out;
  for (auto& kv : by_name_)
    if (distance(kv.first, name) <= 2) out.push_back(kv.first);
  std::sort(out.begin(), out.end());
  return out;
}

void Registry::set_kernel(OperatorDef& op, DispatchKey key, Kernel k, Determinism d) {
  std::unique_lock<std::shared_mutex> g(mu_);
  Kernel old = op.kernels[static_cast<int>(key)];
  op.kernels[static_cast<int>(key)] = k;
  op.determinism[static_cast<int>(key)] = d;
  op.kernel_bits.fetch_or(DispatchKeySet(key).bits(), std::memory_order_acq_rel);
  g.unlock();
  if (old.destroy) old.destroy(old.data);
}

void Registry::set_fallback(DispatchKey key, Kernel k) {
  std::unique_lock<std::shared_mutex> g(mu_);
  Kernel old = fallbacks_[static_cast<int>(key)];
  fallbacks_[static_cast<int>(key)] = k;
  if (k.fn)
    fallback_bits_.fetch_or(DispatchKeySet(key).bits(), std::memory_order_acq_rel);
  else
    fallback_bits_.fetch_and(~DispatchKeySet(key).bits(), std::memory_order_acq_rel);
  g.unlock();
  if (old.destroy) old.destroy(old.data);
}

// ---- OpBuilder ----

OpBuilder& OpBuilder::meta(MetaFn fn) {
  op_.meta = fn;
  reg_.set_kernel(op_, DispatchKey::Meta, Kernel{structured_kernel, nullptr, nullptr},
                                       Determinism::Bitwise);
  return *this;
}

OpBuilder& OpBuilder::compute(DispatchKey key, ComputeFn fn, Determinism d) {
  CT_CHECK(op_.meta, CT_ERROR_INTERNAL, op_.full_name, ": compute() before meta()");
  op_.compute[static_cast<int>(key)] = fn;
  reg_.set_kernel(op_, key, Kernel{structured_kernel, nullptr, nullptr}, d);
  return *this;
}

OpBuilder& OpBuilder::kernel(DispatchKey key, KernelFn fn, Determinism d) {
  reg_.set_kernel(op_, key, Kernel{fn, nullptr, nullptr}, d);
  return *this;
}

OpBuilder& OpBuilder::composite(KernelFn fn) {
  for (int k = 0; k < kNumBackendKeys; ++k)
    reg_.set_kernel(op_, static_cast<DispatchKey>(k), Kernel{fn, nullptr, nullptr},
                                         Determinism::Bitwise);
  if (op_.derivative.kind == Differentiability::Missing) op_.derivative.kind = Differentiability::Implicit;
  return *this;
}

namespace {

// An alias's kernel: the target operator, called with the alias's arguments and outputs.
void alias_kernel(void* target, Frame& f) {
  dispatch(*static_cast<const OperatorDef*>(target), f.args, f.nargs, f.outs, f.nouts);
}

}  // namespace

void Registry::alias(const std::string& name, const std::string& target) {
  const std::vector<OperatorDef*> targets = overloads(target);
  CT_CHECK(!targets.empty(), CT_ERROR_INTERNAL, "alias ", name, ": no operator ", target, " is defined yet");
  for (OperatorDef* t : targets) {
    const std::string& text = t->schema.text;  // "acos(Tensor self) -> Tensor", "div.Tensor(...)"
    CT_CHECK(text.compare(0, target.size(), target) == 0, CT_ERROR_INTERNAL, "alias ", name, ": ", text);
    OpBuilder b = def(name + text.substr(target.size()), t->builtin);
    OperatorDef& op = b.def();
    for (int k = 0; k < kNumBackendKeys; ++k) {
      const DispatchKey key = static_cast<DispatchKey>(k);
      if (t->kernel_keys().has(key)) set_kernel(op, key, Kernel{alias_kernel, t, nullptr}, t->determinism[k]);
    }
    op.alias_of = t;  // no tags or element function: the graph compiler sees the target it calls
    op.derivative.kind = Differentiability::Implicit;  // the target records its own derivative
  }
}

OpBuilder& OpBuilder::view(KernelFn fn) {
  composite(fn);
  // A view kernel builds its result from metadata, calling no operator that could record it.
  op_.is_view = true;
  if (op_.derivative.kind == Differentiability::Implicit) op_.derivative.kind = Differentiability::Missing;
  return *this;
}

OpBuilder& OpBuilder::takes_complex() {
  op_.takes_complex = true;
  return *this;
}

OpBuilder& OpBuilder::derivative(BackwardFn fn, Saves saves) {
  Derivative d{fn, 0, saves.result, Differentiability::Defined};
  for (const char* name : saves.names) {
    if (!name) continue;
    const size_t i = arg_index(name);
    const Argument& a = op_.schema.args[i];
    CT_CHECK(i < 32 && (a.type == ArgType::Tensor || a.type == ArgType::TensorList), CT_ERROR_INTERNAL, "registry: ",
             op_.full_name, "'s derivative saves '", name, "', which is not a tensor argument");
    d.saved_args |= 1u << i;
  }
  op_.derivative = d;
  return *this;
}

OpBuilder& OpBuilder::not_differentiable() {
  op_.derivative = Derivative{nullptr, 0, false, Differentiability::None};
  return *this;
}

size_t OpBuilder::arg_index(const char* name) const {
  const std::vector<Argument>& args = op_.schema.args;
  size_t i = 0;
  while (i < args.size() && args[i].name != name) ++i;
  CT_CHECK(i < args.size() && i < 64, CT_ERROR_INTERNAL, "registry: ", op_.full_name, " has no argument '", name, "'");
  return i;
}

OpBuilder& OpBuilder::index_arg(const char* name) {
  op_.index_args |= uint64_t{1} << arg_index(name);
  return *this;
}

OpBuilder& OpBuilder::device_arg(int i) {
  op_.device_arg = i;
  return *this;
}

OpBuilder& OpBuilder::inplace(const std::string& schema, Reads reads) {
  OpBuilder b = reg_.def(schema, op_.builtin);
  OperatorDef& ip = b.def();
  ip.functional = &op_;
  ip.meta = op_.meta;
  ip.inplace_reads_anywhere = reads == Reads::Anywhere;
  ip.takes_complex = op_.takes_complex;
  for (int k = 0; k < kNumDispatchKeys; ++k) {
    if (!op_.kernels[k].fn) continue;
    ip.compute[k] = op_.compute[k];
    reg_.set_kernel(ip, static_cast<DispatchKey>(k), Kernel{inplace_kernel, nullptr, nullptr},
                                         op_.determinism[k]);
  }
  return *this;
}

OpBuilder& OpBuilder::tag(Tag t) {
  op_.tags |= static_cast<uint32_t>(t);
  return *this;
}

OpBuilder& OpBuilder::elementwise(const ElementFn& fn, bool reversed, bool fusible) {
  const std::vector<Argument>& a = op_.schema.args;
  const bool self = !a.empty() && a[0].type == ArgType::Tensor && !a[0].optional;
  const bool other = a.size() > 1 && !a[1].kwarg_only;
  const bool alpha = a.size() > 2 && a[2].name == "alpha";
  ElementForm form = ElementForm::None;
  if (self && fn.arity == 1 && a.size() == 1) form = ElementForm::Unary;
  else if (self && fn.arity == 2 && other && a[1].type == ArgType::Tensor && !reversed) form = ElementForm::Binary;
  else if (self && fn.arity == 2 && other && a[1].type == ArgType::Scalar)
    form = reversed ? ElementForm::ReverseScalar : ElementForm::BinaryScalar;
  CT_CHECK(form != ElementForm::None && (a.size() <= 2 || (alpha && fn.has_alpha && a.size() == 3)), CT_ERROR_INTERNAL,
           "registry: ", op_.full_name, " (", op_.schema.text, ") cannot compute element function ", fn.functor,
           " of arity ", fn.arity, ": the schema must read (Tensor self[, Tensor or Scalar other[, Scalar alpha]])");
  op_.element = &fn;
  op_.element_form = form;
  tag(Tag::Pointwise);
  return fusible ? tag(Tag::Fusible) : *this;
}

OpBuilder& OpBuilder::fused_reduction(FusedReduction r) {
  op_.fused_reduction = r;
  return tag(Tag::Reduction).tag(Tag::Fusible);
}

const OperatorDef& builtin_op(const char* full_name) {
  OperatorDef* op = Registry::get().find(full_name);
  CT_CHECK(op, CT_ERROR_INTERNAL, "registry: built-in operator ", full_name, " is not defined");
  return *op;
}

}  // namespace ct
