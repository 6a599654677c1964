// operator.h - OperatorDef: one operator overload's schema, meta function, kernels per dispatch
// key and determinism per backend; Frame, what a kernel receives.
//
// Note [Structured operators]
// Most operators are structured: a meta function validates the arguments and computes every
// output's sizes, dtype and device (MetaResult); the dispatcher then allocates the outputs on the
// running backend and calls that backend's compute function. The meta device, every backend and
// later the tracer share the one meta function, so shapes and error messages cannot disagree. The
// in-place variant (add_) reuses the functional operator's meta and compute with self as output.
// Views and operators that only call other operators register one composite kernel instead.
#pragma once

#include <atomic>
#include <string>

#include "core/tensor.h"
#include "dispatch/dispatch_key.h"
#include "dispatch/schema.h"
#include "dispatch/value.h"

namespace ct {

struct OperatorDef;

/// What a kernel sees: the operator, its arguments in schema order (defaults filled), the keys it
/// may redispatch to, and the output slots it must fill.
struct Frame {
  const OperatorDef& op;
  const Value* args;
  size_t nargs;
  DispatchKeySet keys;  // keys below the running kernel's key
  Tensor* outs;
  size_t nouts;

  const TensorImpl& tensor(size_t i) const { return args[i].tensor(); }
  const Value& arg(size_t i) const { return args[i]; }
  const char* name() const;
};

using KernelFn = void (*)(void* data, Frame& frame);
using DestroyFn = void (*)(void* data);

struct Kernel {
  KernelFn fn = nullptr;
  void* data = nullptr;
  DestroyFn destroy = nullptr;  // frees data when the kernel is replaced (C kernels)
};

/// How reproducible a backend's kernel is: Bitwise (same bits for any thread count), Deterministic
/// (same bits run to run on one configuration), Atomic (may differ run to run).
enum class Determinism : uint8_t { Bitwise, Deterministic, Atomic };
const char* determinism_name(Determinism d);

constexpr size_t kMaxOutputs = 4;

struct OutputMeta {
  SymDimVector sizes;  // symbolic when the inputs' sizes are (meta device and tracer only)
  DType dtype = DType::Float32;
  Device device;
};

/// The meta function's answer: the outputs, plus the dtype the computation runs in.
struct MetaResult {
  OutputMeta outs[kMaxOutputs];
  size_t n = 1;
  DType compute = DType::Float32;
};

using MetaFn = void (*)(const Frame& f, MetaResult& m);
using ComputeFn = void (*)(const Frame& f, const MetaResult& m, Tensor* outs);

namespace autograd {
class GradCtx;  // dispatch/grad_ctx.h
}
/// An operator's derivative: reads the output gradients from ctx, writes the inputs' gradients.
using BackwardFn = void (*)(autograd::GradCtx& ctx);

/// What an operator's backward reads: tensor arguments by their schema names, save("self", "other"),
/// and its result, save_result(). Only those stay alive after the forward call, and only those are
/// checked for later in-place changes. OpBuilder::derivative resolves the names against the
/// operator's schema and refuses one it lacks, or one that is not a tensor.
struct Saves {
  static constexpr size_t kMaxNames = 4;
  const char* names[kMaxNames] = {};
  bool result = false;
};
template <typename... Names>
constexpr Saves save(Names... names) {
  static_assert(sizeof...(Names) <= Saves::kMaxNames, "save: at most Saves::kMaxNames arguments");
  return Saves{{names...}, false};
}
constexpr Saves save_result(Saves s = {}) {
  s.result = true;
  return s;
}

/// How an operator takes part in autograd (see Note [Derivatives beside operators]).
enum class Differentiability : uint8_t {
  Missing,    // no derivative yet: reaching it with an input that requires grad is an error
  Defined,    // derivative.fn
  Implicit,   // a composite: the operators it calls record themselves
  None,       // results are indices or booleans (argmax, eq): nothing flows back
};

const char* differentiability_name(Differentiability d);

struct Derivative {
  BackwardFn fn = nullptr;
  uint32_t saved_args = 0;    // bit i: tensor argument i is saved (Saves's names, resolved)
  bool saves_result = false;
  Differentiability kind = Differentiability::Missing;
};

/// An elementwise operator's element function as the graph compiler fuses it (Note [Element
/// functions] in ops/pointwise/element_math.h): its functor's name in ops/pointwise/fns.h, which
/// the fused CUDA source calls, and loops over that functor, which the fused cpu executor runs.
/// Built by ops/pointwise/element_fn.h from the functor itself.
struct ElementFn {
  /// o[i] = f(a[i], b[i]) for i < n, or f(a[i], b[i], *alpha) when alpha is not null; a side that
  /// does not vary is read at [0] throughout. Unary functions read a only (it always varies).
  using Line = void (*)(void* o, const void* a, bool a_varies, const void* b, bool b_varies, int64_t n,
                        const void* alpha);
  const char* functor;  // "Add": ct::fn::Add
  int arity;            // 1 or 2
  bool has_alpha;       // a scaled form f(a, b, alpha) exists (add, sub)
  bool has_wide_form;   // lines switch to f.wide over a run with a large argument (sin, cos)
  Line lines[2][3];     // [float32, float64][baseline, avx2, avx512] (Note [CPU capability dispatch])
};

/// How a fusible elementwise operator's arguments feed its element function: (self), (self, other
/// [, alpha]), (self, Scalar other[, alpha]), or (self, Scalar other[, alpha]) computing
/// f(other, self[, alpha]) (rsub).
enum class ElementForm : uint8_t { None, Unary, Binary, BinaryScalar, ReverseScalar };

/// The reductions the graph compiler fuses, over the last dim (OpBuilder::fused_reduction).
enum class FusedReduction : uint8_t { None, Sum, Mean, Amax, Amin };

/// What an operator is, for passes and backends that treat operators by kind instead of by name.
enum class Tag : uint32_t {
  Pointwise = 1u << 0,  // each output element depends on the same element of each input (broadcast)
  Reduction = 1u << 1,  // folds dims of its input (sum, amax, ...)
  Fusible = 1u << 2,    // the graph compiler fuses it: it has an element function or a fused reduction
};

// What autocast does to an operator's floating inputs (Note [Autocast], ops/autocast.cpp, which
// holds PyTorch's lists and sets each operator's policy).
enum class AutocastPolicy : uint8_t {
  None,                 // runs as called
  LowerPrecision,       // floating inputs but float64 cast to autocast's dtype (matrix products, convolutions)
  LowerPrecisionCuda,   // the same on cuda only (PyTorch's cuda list is longer than the cpu's)
  Float32,              // lower-precision inputs cast to float32 (losses, norms, reductions that lose accuracy)
};

struct OperatorDef {
  Schema schema;
  std::string full_name;     // "add.Tensor"
  MetaFn meta = nullptr;     // structured operators only
  ComputeFn compute[kNumDispatchKeys] = {};
  Kernel kernels[kNumDispatchKeys];
  Determinism determinism[kNumDispatchKeys] = {};
  std::atomic<uint64_t> kernel_bits{0};  // DispatchKeySet of the keys with a kernel
  const OperatorDef* functional = nullptr;  // for an in-place variant: the operator it derives from
  const OperatorDef* alias_of = nullptr;    // for another name (Registry::alias): the operator named
  int device_arg = -1;  // factories: index of the Device argument that picks the backend
  AutocastPolicy autocast = AutocastPolicy::None;
  // Bit i: the operator writes tensor argument i ("Tensor(a!)"). The dispatcher refuses a write to
  // a read-only or inference tensor before any kernel runs (Note [Writable arguments]).
  uint64_t written_args = 0;
  // Bit i: argument i holds indices, which may be on the cpu whatever the other tensors' device
  // (OpBuilder::index_arg, Note [One device per call]).
  uint64_t index_args = 0;
  bool writes(size_t arg) const { return arg < 64 && ((written_args >> arg) & 1); }
  bool takes_indices(size_t arg) const { return arg < 64 && ((index_args >> arg) & 1); }
  /// A 0-dim cpu tensor that the call only reads is a number: it goes with tensors of any device
  /// (Note [One device per call]); one the call writes is memory like any other.
  bool is_number(const TensorImpl& t, size_t arg) const { return t.dim() == 0 && t.device().is_cpu() && !writes(arg); }
  bool is_view = false;  // the output aliases the first input's storage
  // Its meta and compute functions take complex tensors (OpBuilder::takes_complex); the dispatcher
  // refuses them to every other operator with kernels of its own (Note [Complex tensors]).
  bool takes_complex = false;
  // In-place variants whose kernel reads other tensors at elements other than the one it writes
  // (scatter_'s index): see Note [In-place aliasing].
  bool inplace_reads_anywhere = false;
  Derivative derivative;  // an in-place variant uses its functional operator's
  bool builtin = true;
  uint32_t tags = 0;  // Tag bits
  const ElementFn* element = nullptr;  // fusible elementwise operators (OpBuilder::elementwise)
  ElementForm element_form = ElementForm::None;
  FusedReduction fused_reduction = FusedReduction::None;
  bool has(Tag t) const { return (tags & static_cast<uint32_t>(t)) != 0; }

  DispatchKeySet kernel_keys() const { return DispatchKeySet::from_bits(kernel_bits.load(std::memory_order_acquire)); }
  size_t num_returns() const { return schema.returns.size(); }
};

inline const char* Frame::name() const { return op.full_name.c_str(); }

}  // namespace ct
