// registry.h - the operator registry: definitions by name, and the builder used to define them.
//
// Built-in operators are defined by explicit calls from builtins.cpp on first use (never
// by static initializers, which a linker may drop from libctorch.a). C callers add operators
// through ct_library_define / ct_library_impl.
#pragma once

#include <memory>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "dispatch/operator.h"

namespace ct {

class OpBuilder;

class Registry {
 public:
  /// The process-wide registry, with every built-in operator defined.
  static Registry& get();
  /// Microseconds the first get() took to build the registry with every built-in operator.
  static int64_t build_time_us();

  /// Defines an operator from its schema; raises CT_ERROR_INVALID_ARGUMENT if it exists.
  OpBuilder def(const std::string& schema, bool builtin = true);
  /// Defines `name` as another name of the operator `target` (torch's arccos for acos): one
  /// overload per overload of target, with its schema under the new name, whose kernel dispatches
  /// the target with the same arguments (so every backend, derivative and meta rule is the
  /// target's). Target must be defined already.
  void alias(const std::string& name, const std::string& target);
  /// "add.Tensor", or "add" for an operator without overload name; null when unknown.
  OperatorDef* find(const std::string& full_name) const;
  /// Every overload of a base name, in definition order.
  std::vector<OperatorDef*> overloads(const std::string& name) const;
  /// Known base names within edit distance 2 of name, for "did you mean" messages.
  std::vector<std::string> similar_names(const std::string& name) const;
  std::vector<OperatorDef*> all() const;

  /// Installs (or replaces) a kernel; the replaced kernel's destroy runs.
  void set_kernel(OperatorDef& op, DispatchKey key, Kernel k, Determinism d);
  /// A boxed fallback runs for key on every operator without its own kernel for key.
  void set_fallback(DispatchKey key, Kernel k);
  const Kernel& fallback(DispatchKey key) const { return fallbacks_[static_cast<int>(key)]; }
  DispatchKeySet fallback_keys() const {
    return DispatchKeySet::from_bits(fallback_bits_.load(std::memory_order_acquire));
  }

 private:
  Registry() = default;
  mutable std::shared_mutex mu_;
  std::vector<std::unique_ptr<OperatorDef>> ops_;
  std::unordered_map<std::string, OperatorDef*> by_full_name_;
  std::unordered_map<std::string, std::vector<OperatorDef*>> by_name_;
  Kernel fallbacks_[kNumDispatchKeys];
  std::atomic<uint64_t> fallback_bits_{0};
};

/// Fluent definition of one operator; see Note [Structured operators].
class OpBuilder {
 public:
  OpBuilder(Registry& reg, OperatorDef& op) : reg_(reg), op_(op) {}
  /// The meta function (validation, output sizes, dtypes, devices). Also registers the meta device.
  OpBuilder& meta(MetaFn fn);
  /// A structured compute function for a backend key.
  OpBuilder& compute(DispatchKey key, ComputeFn fn, Determinism d);
  /// A plain kernel for one key (operators whose outputs are not freshly allocated, like copy_).
  OpBuilder& kernel(DispatchKey key, KernelFn fn, Determinism d);
  /// A kernel for every backend that builds its outputs from other operators or from metadata.
  OpBuilder& composite(KernelFn fn);
  /// The same, and the output is a view of the first input.
  OpBuilder& view(KernelFn fn);
  /// Factories: the Device argument at index i picks the backend.
  OpBuilder& device_arg(int i);
  /// The tensors of argument `name` are indices, which may be on the cpu whatever device the others
  /// are on (PyTorch's rule for advanced indexing): the dispatcher's device check lets them pass,
  /// and the operator moves or refuses them (see Note [One device per call]).
  OpBuilder& index_arg(const char* name);
  /// The derivative (see Note [Derivatives beside operators]); saves names what backward reads.
  OpBuilder& derivative(BackwardFn fn, Saves saves = {});
  /// Results are indices or booleans: no gradient flows through this operator.
  OpBuilder& not_differentiable();
  /// Which elements of its other tensors an in-place kernel reads while writing self.
  enum class Reads { Elementwise, Anywhere };
  /// Defines the in-place variant ("add_.Tensor(Tensor(a!) self, ...) -> Tensor(a!)") that reuses this
  /// operator's meta and compute functions, writing into self. Call it after every compute().
  /// Anywhere: the kernel reads other tensors at elements other than the one it writes (an index).
  OpBuilder& inplace(const std::string& schema, Reads reads = Reads::Elementwise);
  /// Its meta and compute functions take complex tensors; without it the dispatcher refuses them
  /// before the meta function runs. Call it before inplace(), whose variant inherits it.
  OpBuilder& takes_complex();
  /// Declares what the operator is (Tag::Pointwise...).
  OpBuilder& tag(Tag t);
  /// The operator is pointwise, computing fn (ops/pointwise/element_fn.h), and fusible unless
  /// said otherwise (a result dtype other than the inputs'). Its form follows from the schema:
  /// (Tensor self) is unary, (Tensor self, Tensor other[, alpha]) binary, (Tensor self, Scalar
  /// other[, alpha]) binary with a number, computed f(other, self) when reversed.
  OpBuilder& elementwise(const ElementFn& fn, bool reversed = false, bool fusible = true);
  /// The graph compiler fuses the operator as reduction r over the last dim.
  OpBuilder& fused_reduction(FusedReduction r);
  OperatorDef& def() { return op_; }

 private:
  /// The index of the schema argument called name; CT_ERROR_INTERNAL when there is none.
  size_t arg_index(const char* name) const;

  Registry& reg_;
  OperatorDef& op_;
};

/// Defines every built-in operator (src/builtins.cpp, the composition root); run once by Registry::get().
void register_builtin_operators(Registry& r);

/// The registered definition of a built-in operator; CT_ERROR_INTERNAL if missing.
const OperatorDef& builtin_op(const char* full_name);

}  // namespace ct
