// fuse.cpp - fuse(): connected groups of pointwise calls and last-dim reductions become Fused
// nodes, each run by a FusedKernel that reads its inputs once, tile by tile.
//
// Note [Fused CPU kernels]
// What fuses. Operators the registry tags Fusible: those declared elementwise with an element
// function of fns.h (OpBuilder::elementwise: neg, exp, sigmoid, add, mul.Scalar, rsub.Scalar...) and
// the reductions declared fused (sum, mean, amax, amin) over the last dim, keepdim or not. Nothing
// here names an operator. Every call of a group has one dtype, float32 or float64, on one device, the cpu
// or cuda (Note [Fused CUDA kernels] for the latter), and reads only tensors of that dtype and
// device (a promotion ends the group). Sizes may be symbolic. Groups of one
// call are left alone: they would only add overhead.
//
// Iteration space. A group has a full shape F, seen as [R, C]: C its last size, R the product of
// the others. Each value is Full (F), Row (one per row: a reduction's result, keepdim or not, or a
// [..., 1] input), Col (one per column: a [C] or [1, ..., C] input, like a bias) or Scalar (one
// element or a Python number). A call joins only if its operands broadcast exactly like that, and
// the group's own results are Full or Row. It joins when it reads a group's result and no node
// outside the group reads the group's results before it: the Fused node then takes the place of
// the group's last call and nothing is reordered.
//
// Execution. [R, C] is cut into tiles sized so that the live buffers of a tile take kTileBytes (L1)
// when tiles hold whole rows, and kFlatTileBytes otherwise: pointwise-only tiles of a few KB were
// measured fastest (2 threads, 16M floats: 8 KB beat 32 KB and 256 KB by 10-25%), as every input
// then streams through in short runs while the transcendental loops compute. Row tiles of 32 KB
// beat 256 KB by 15-25% on RMSNorm and layer norm over 4096x1024 (1 thread, 48 KB L1): each call
// of the group passes over the tile again, from L1 rather than L2. Tiles are blocks of
// whole rows when the group has Row results (a reduction needs its row whole, so a row longer than
// that is a tile on its own), else blocks of rows or, for rows longer than a tile, column chunks
// of one row; a group of Full and Scalar values only is one long row. Threads take tiles; each
// runs the calls in order, each a tight loop over contiguous buffers. Inputs and outputs are read
// and written in place, intermediates live in per-thread scratch buffers, reused once dead, and
// only results used outside the group become tensors.
//
// Guarantees. An instruction runs its operator's element function, the functor the eager kernel
// calls (Note [Element functions]), and the library builds with -ffp-contract=off, so pointwise
// results have eager's bits. A reduction calls reduce_row, the engine behind eager's
// last-dim reductions (Note [Reproducible reductions]), on the same values, so sum, mean, amax and
// amin match eager bitwise too (a NaN may differ in payload). Tiles never decide a result: the bits
// do not depend on the thread count.
//
// Note [Fused column sums]
// A sum over the rows of a 2-D value (a bias's or a norm weight's gradient, `sum(g * x, 0)`) joins
// the group that makes its operand, on the cpu, so the operand is never written out and read back:
// its result is Col, and nothing in the group reads it (it is complete only after every row). Its
// rows fold as eager's column reductions fold them (Note [Column reductions]): in blocks of
// kRowBlock rows, each from the identity in row order, the blocks then joined by the same
// ColumnCascade. So tiles hold a power of two of rows up to kRowBlock, threads take whole blocks
// and run their tiles in order, each block's sums go to its own row of a buffer, and the cascade
// runs over that buffer at the end: eager's bits for any thread count.
//
// Fallback. When the inputs at run time do not fit the plan (non-contiguous, another dtype or
// device, no elements) or autograd must record the calls, the kernel dispatches its calls one by
// one as the graph had them, so its results are always eager's.
#include "compile/fuse.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <new>
#include <type_traits>

#include "compile/fuse_cpp.h"
#include "compile/fuse_cuda.h"
#include "compile/fuse_plan.h"
#include "compile/passes.h"
#include "compile/run.h"
#include "core/fault_injection.h"
#include "dispatch/dispatcher.h"
#include "dispatch/grad_mode.h"
#include "ops/cpu/folds.h"
#include "ops/cpu/isa.h"
#include "ops/cpu/parallel.h"
#include "ops/cpu/reduce.h"
#include "runtime/log.h"

namespace ct::compile {
namespace {

constexpr int64_t kTileBytes = 32 * 1024;    // tiles of whole rows: L1 (see Execution in the Note)
constexpr int64_t kFlatTileBytes = 8 * 1024;  // pointwise-only tiles (see Execution in the Note)
constexpr int64_t kCppTileBytes = 64 * 1024;  // C++ kernels (Note [C++ kernels]): see Kernel::execute
constexpr int64_t kMinTile = 256, kMaxTile = 16384;  // elements


// How a call's arguments read: an element function's forms (ElementForm), or Reduce (self, dim,
// keepdim); None: the call does not fuse.
enum class Form : uint8_t { None, Unary, Binary, BinaryScalar, ReverseScalar, Reduce };

Form form_of(const OperatorDef& op) {
  if (!op.has(Tag::Fusible)) return Form::None;
  switch (op.element_form) {
    case ElementForm::Unary: return Form::Unary;
    case ElementForm::Binary: return Form::Binary;
    case ElementForm::BinaryScalar: return Form::BinaryScalar;
    case ElementForm::ReverseScalar: return Form::ReverseScalar;
    case ElementForm::None: break;
  }
  return op.fused_reduction != FusedReduction::None ? Form::Reduce : Form::None;
}

Code reduction_code(FusedReduction r) {
  switch (r) {
    case FusedReduction::Sum: return Code::Sum;
    case FusedReduction::Mean: return Code::Mean;
    case FusedReduction::Amax: return Code::Amax;
    case FusedReduction::Amin: return Code::Amin;
    case FusedReduction::None: break;
  }
  return Code::Element;
}

template <Code K, typename T>
using FoldOf = std::conditional_t<K == Code::Amax, cpu::ExtremumFold<T, true>,
                                  std::conditional_t<K == Code::Amin, cpu::ExtremumFold<T, false>, cpu::SumFold<T>>>;

// Rows [r0, r0 + rows) and columns [c0, c0 + cols) of [R, C]: all columns unless rows == 1, so a
// Full value's part of a tile is contiguous.
struct Tile {
  int64_t r0, rows, c0, cols;
};

template <typename T>
[[gnu::always_inline]] inline const T* line_start(const Operand& o, const T* p, int64_t i, int64_t cols) {
  return o.cls == Cls::Full ? p + i * cols : o.cls == Cls::Row ? p + i : p;
}

template <Code K, typename T>
[[gnu::always_inline]] inline void reduce_rows(const Instr& in, T* const* ptr, const Tile& t) {
  T* __restrict o = ptr[in.dst];
  const T* a = ptr[in.a.slot];
  for (int64_t i = 0; i < t.rows; ++i) {
    const T acc = cpu::reduce_row<FoldOf<K, T>>(a + i * t.cols, t.cols);
    o[i] = K == Code::Mean ? acc / T(t.cols) : acc;
  }
}

// The tile's rows, in order, into its block's sums (ptr[in.dst]: see Note [Fused column sums]), by
// the loop eager's column reductions run.
template <typename T>
void sum_columns(const Instr& in, T* const* ptr, const Tile& t) {
  cpu::fold_rows<cpu::SumFold<T>>(ptr[in.a.slot], t.rows, t.cols, t.cols, 0, ptr[in.dst]);
}

// An element function over the tile: one line, or one per row when a Row or Col operand
// broadcasts along it. Isa indexes ElementFn::lines.
template <typename T>
void run_element(const Instr& in, T* const* ptr, const Tile& t, int isa) {
  const ElementFn::Line line = in.fn->lines[std::is_same_v<T, double>][isa];
  T* o = ptr[in.dst];
  const T* a = ptr[in.a.slot];
  if (in.fn->arity == 1) {
    line(o, a, true, nullptr, true, in.cls == Cls::Full ? t.rows * t.cols : t.rows, nullptr);
    return;
  }
  const T* b = ptr[in.b.slot];
  const T* alpha = in.alpha >= 0 ? ptr[in.alpha] : nullptr;
  if (in.cls == Cls::Row) {
    line(o, a, in.a.cls == Cls::Row, b, in.b.cls == Cls::Row, t.rows, alpha);
  } else if (!in.per_line) {
    line(o, a, in.a.cls == Cls::Full, b, in.b.cls == Cls::Full, t.rows * t.cols, alpha);
  } else {
    const bool av = in.a.cls == Cls::Full || in.a.cls == Cls::Col, bv = in.b.cls == Cls::Full || in.b.cls == Cls::Col;
    for (int64_t i = 0; i < t.rows; ++i)
      line(o + i * t.cols, line_start(in.a, a, i, t.cols), av, line_start(in.b, b, i, t.cols), bv, t.cols, alpha);
  }
}

// Isa: 0 baseline, 1 AVX2, 2 AVX-512, the ElementFn::lines index; the reductions' loops are
// compiled here for each (see Note [CPU capability dispatch] and has_avx512 in isa.h).
template <typename T, int Isa>
[[gnu::always_inline]] inline void run_tile_body(const Instr* code, size_t n, T* const* ptr, const Tile& t) {
  for (size_t k = 0; k < n; ++k) {
    switch (code[k].code) {
      case Code::Element: run_element(code[k], ptr, t, Isa); break;
      case Code::Sum: reduce_rows<Code::Sum>(code[k], ptr, t); break;
      case Code::Mean: reduce_rows<Code::Mean>(code[k], ptr, t); break;
      case Code::Amax: reduce_rows<Code::Amax>(code[k], ptr, t); break;
      case Code::Amin: reduce_rows<Code::Amin>(code[k], ptr, t); break;
      case Code::ColumnSum: sum_columns(code[k], ptr, t); break;
    }
  }
}

template <typename T>
void run_tile_baseline(const Instr* code, size_t n, T* const* ptr, const Tile& t) {
  run_tile_body<T, 0>(code, n, ptr, t);
}
#if CT_HAVE_AVX2_KERNELS
template <typename T>
CT_TARGET_AVX2 void run_tile_avx2(const Instr* code, size_t n, T* const* ptr, const Tile& t) {
  run_tile_body<T, 1>(code, n, ptr, t);
}

template <typename T>
CT_TARGET_AVX512 void run_tile_avx512(const Instr* code, size_t n, T* const* ptr, const Tile& t) {
  run_tile_body<T, 2>(code, n, ptr, t);
}
#endif

template <typename T>
void run_tile(const Instr* code, size_t n, T* const* ptr, const Tile& t) {
#if CT_HAVE_AVX2_KERNELS
  if (cpu::has_avx512()) return run_tile_avx512(code, n, ptr, t);
  if (cpu::has_avx2()) return run_tile_avx2(code, n, ptr, t);
#endif
  run_tile_baseline(code, n, ptr, t);
}

class Kernel final : public FusedKernel {
 public:
  Kernel(Plan p, CppKernels cpp_kernels) : p_(std::move(p)), cuda_source_(p_.device.is_cpu() ? "" : cuda_source(p_)) {
    // Plans a C++ kernel cannot compute with eager's bits (cpp_unsupported) keep their tile loops
    // quietly, as documented; a compiler or cache that fails is worth a warning.
    if (cpp_kernels.when == CppKernels::Never || !cpp_unsupported(p_).empty()) return;
    if (cpp_kernels.when == CppKernels::WhenHot) {
      hot_after_ns_ = cpp_kernels.hot_after_ns;
      return;
    }
    std::string why;
    cpp_->fn.store(load_cpp_kernel(cpp_source(p_), why), std::memory_order_relaxed);
    if (!cpp_->fn.load(std::memory_order_relaxed)) warn_tile_loops(why);
  }
  void run(ArrayRef<const TensorImpl*> inputs, ArrayRef<sym::BoundValue> binding, Tensor* outs) const override;
  std::string describe() const override {
    return cpp_->fn.load(std::memory_order_acquire) ? "fused_cpp" + p_.description.substr(5) : p_.description;
  }
  std::string device_source() const override { return cuda_source_; }
  std::vector<std::pair<bool, int32_t>> device_params() const override {
    return p_.device.is_cpu() ? std::vector<std::pair<bool, int32_t>>{} : cuda_params(p_);
  }

 private:
  bool fits(ArrayRef<const TensorImpl*> inputs, int64_t rows, int64_t cols) const;
  void fallback(ArrayRef<const TensorImpl*> inputs, ArrayRef<sym::BoundValue> binding, Tensor* outs) const;
  void run_cpu(ArrayRef<const TensorImpl*> inputs, int64_t rows, int64_t cols, Tensor* outs) const;
  template <typename T>
  void execute(void* cpp_tile, ArrayRef<const TensorImpl*> inputs, int64_t rows, int64_t cols, Tensor* outs) const;
  void warn_tile_loops(const std::string& why) const {
    runtime::warn_once(str("cpp_kernel:", why), str("ctorch.compile: ", p_.description,
                                                     " runs its tile loops, not a C++ kernel: ", why));
  }

  const Plan p_;
  const std::string cuda_source_;  // see Note [Fused CUDA kernels]
  // The plan's C++ tile function, when built (Note [C++ kernels]); shared with the background
  // builder, which may outlive this kernel.
  const std::shared_ptr<CppKernelSlot> cpp_ = std::make_shared<CppKernelSlot>();
  int64_t hot_after_ns_ = -1;  // < 0: nothing to build in the background
  mutable std::atomic<int64_t> tile_loop_ns_{0};  // time in the tile loops so far, while < hot_after_ns_
  mutable std::atomic<bool> build_asked_{false}, failure_told_{false};
  mutable cuda::KernelCache cuda_fn_;  // its compiled function per device
};

bool Kernel::fits(ArrayRef<const TensorImpl*> inputs, int64_t rows, int64_t cols) const {
  if (rows * cols == 0) return false;
  // Eager folds a single row or column otherwise than as columns (Note [Fused column sums]).
  const bool column_sums =
      std::any_of(p_.code.begin(), p_.code.end(), [](const Instr& in) { return in.code == Code::ColumnSum; });
  if (column_sums && (rows < 2 || cols < 2)) return false;
  // Fused kernels record no autograd nodes: the calls must, when an input requires grad.
  const bool grad = autograd::grad_enabled();
  for (const Slot& s : p_.slots) {
    if (s.kind != Slot::Kind::Input) continue;
    const TensorImpl& t = *inputs[s.index];
    const int64_t want = s.cls == Cls::Full ? rows * cols : s.cls == Cls::Row ? rows : s.cls == Cls::Col ? cols : 1;
    if (t.dtype() != p_.dtype || t.device() != p_.device || !t.is_contiguous() || t.numel() != want ||
        (grad && t.requires_grad()))
      return false;
  }
  return true;
}

void Kernel::fallback(ArrayRef<const TensorImpl*> inputs, ArrayRef<sym::BoundValue> binding, Tensor* outs) const {
  std::vector<std::vector<Tensor>> env(inputs.size() + p_.calls.size());
  for (size_t i = 0; i < inputs.size(); ++i) env[i].push_back(Tensor::borrow(inputs[i]));
  BoxedArgs boxed;
  for (size_t k = 0; k < p_.calls.size(); ++k) {
    box_args(p_.calls[k], env, binding, boxed);
    std::vector<Tensor>& result = env[inputs.size() + k];
    result.resize(1);
    dispatch(*p_.calls[k].op, boxed.values.data(), boxed.values.size(), result.data(), 1);
  }
  for (size_t k = 0; k < p_.output_calls.size(); ++k) outs[k] = env[inputs.size() + p_.output_calls[k]][0];
}

void Kernel::run(ArrayRef<const TensorImpl*> inputs, ArrayRef<sym::BoundValue> binding, Tensor* outs) const {
  int64_t rows = 1, cols = 1;
  for (size_t d = 0; d < p_.full.size(); ++d) (d + 1 < p_.full.size() ? rows : cols) *= eval_symint(p_.full[d], binding);
  if (!fits(inputs, rows, cols)) return fallback(inputs, binding, outs);
  for (size_t k = 0; k < p_.output_calls.size(); ++k) {
    DimVector sizes;
    for (SymInt s : p_.calls[p_.output_calls[k]].outs[0].sizes) sizes.push_back(eval_symint(s, binding));
    outs[k] = Tensor::adopt(TensorImpl::empty(sizes, p_.dtype, p_.device));
  }
  if (!p_.device.is_cpu()) return run_cuda(p_, cuda_source_, cuda_fn_, inputs, rows, cols, outs);
  run_cpu(inputs, rows, cols, outs);
}

void Kernel::run_cpu(ArrayRef<const TensorImpl*> inputs, int64_t rows, int64_t cols, Tensor* outs) const {
  auto execute_with = [&](void* cpp_tile) {
    if (p_.dtype == DType::Float32) execute<float>(cpp_tile, inputs, rows, cols, outs);
    else execute<double>(cpp_tile, inputs, rows, cols, outs);
  };
  void* cpp_tile = cpp_->fn.load(std::memory_order_acquire);
  if (cpp_tile || hot_after_ns_ < 0 || build_asked_.load(std::memory_order_relaxed)) {
    // Told here, on a caller's thread, where a log handler expects to be called.
    if (!cpp_tile && cpp_->failed.load(std::memory_order_acquire) && !failure_told_.exchange(true))
      warn_tile_loops(cpp_->why);
    return execute_with(cpp_tile);
  }
  // Until the kernel is hot, its tile loops are timed (Note [Building C++ kernels in the background]).
  const auto start = std::chrono::steady_clock::now();
  execute_with(nullptr);
  const int64_t ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
  if (tile_loop_ns_.fetch_add(ns, std::memory_order_relaxed) + ns >= hot_after_ns_ && !build_asked_.exchange(true)) {
    try {
      build_in_background(cpp_source(p_), cpp_);
    } catch (const std::bad_alloc&) {
      // The call itself succeeded: its results stand, and a later call asks again.
      fault::failure_absorbed();
      build_asked_.store(false, std::memory_order_relaxed);
    }
  }
}

template <typename T>
void Kernel::execute(void* cpp_tile, ArrayRef<const TensorImpl*> inputs, int64_t rows, int64_t cols,
                     Tensor* outs) const {
  if (p_.flat) {
    cols *= rows;
    rows = 1;
  }
  // A C++ kernel keeps no scratch buffers and streams through its tile: only its inputs and outputs
  // take room, and short tiles would only add calls.
  const int64_t bytes = cpp_tile ? kCppTileBytes : p_.whole_rows ? kTileBytes : kFlatTileBytes;
  const int64_t live = cpp_tile ? std::max(p_.live_full - p_.num_scratch, 1) : p_.live_full;
  // A multiple of 64 elements, so every tile but the last runs whole vector iterations: a scalar
  // remainder of sin or sigmoid costs as much as a few vectors.
  const int64_t budget =
      std::clamp<int64_t>(bytes / (static_cast<int64_t>(sizeof(T)) * live), kMinTile, kMaxTile) / 64 * 64;
  // Tiles of `per_tile` whole rows, or column chunks of `chunk` elements of one row.
  const bool row_tiles = p_.whole_rows || cols <= budget;
  int64_t per_tile = row_tiles ? std::max<int64_t>(1, budget / cols) : 1;
  // Column sums: a power of two of rows up to a block, whole blocks to a thread, each block's sums
  // in its row of a buffer (Note [Fused column sums]).
  std::vector<int32_t> column_sums;
  for (size_t k = 0; k < p_.code.size(); ++k)
    if (p_.code[k].code == Code::ColumnSum) column_sums.push_back(static_cast<int32_t>(k));
  int64_t tiles_per_unit = 1;
  if (!column_sums.empty()) {
    per_tile = std::min(per_tile, cpu::kRowBlock);
    while (per_tile & (per_tile - 1)) per_tile &= per_tile - 1;
    tiles_per_unit = cpu::kRowBlock / per_tile;
  }
  const int64_t chunk = row_tiles ? cols : budget;
  const int64_t chunks_per_row = (cols + chunk - 1) / chunk;
  const int64_t ntiles = row_tiles ? (rows + per_tile - 1) / per_tile : rows * chunks_per_row;
  const int64_t nunits = (ntiles + tiles_per_unit - 1) / tiles_per_unit;
  const int64_t cap = per_tile * chunk;  // elements of a Full value in one tile
  std::vector<std::unique_ptr<T[]>> block_sums;  // per column sum, [block][column]
  for (size_t c = 0; c < column_sums.size(); ++c) block_sums.emplace_back(new T[static_cast<size_t>(nunits * cols)]);
  std::vector<T> imm(p_.imms.size());
  for (size_t k = 0; k < p_.imms.size(); ++k) imm[k] = p_.imms[k].to<T>();
  std::vector<T*> base(p_.slots.size(), nullptr);
  for (size_t s = 0; s < p_.slots.size(); ++s) {
    const Slot& sl = p_.slots[s];
    if (sl.kind == Slot::Kind::Input) base[s] = static_cast<T*>(const_cast<void*>(inputs[sl.index]->data()));
    else if (sl.kind == Slot::Kind::Output) base[s] = outs[sl.index]->template data_as<T>();
    else if (sl.kind == Slot::Kind::Imm) base[s] = &imm[sl.index];
  }
  using TileFn = void (*)(T* const*, int64_t, int64_t);
  const TileFn cpp = reinterpret_cast<TileFn>(cpp_tile);
  const int64_t grain = std::max<int64_t>(1, cpu::kElementwiseGrain / (cap * tiles_per_unit));
  cpu::parallel_for(0, nunits, grain, [&](int64_t u0, int64_t u1) {
    // A C++ kernel keeps its intermediates in registers: no scratch buffers.
    std::unique_ptr<T[]> scratch(cpp ? nullptr : new T[static_cast<size_t>(p_.num_scratch * cap)]);
    std::vector<T*> ptr(p_.slots.size());
    for (int64_t u = u0 * tiles_per_unit; u < std::min(ntiles, u1 * tiles_per_unit); ++u) {
      Tile t;
      if (row_tiles) {
        t = {u * per_tile, std::min(per_tile, rows - u * per_tile), 0, cols};
      } else {
        const int64_t c0 = (u % chunks_per_row) * chunk;
        t = {u / chunks_per_row, 1, c0, std::min(chunk, cols - c0)};
      }
      for (size_t s = 0; s < p_.slots.size(); ++s) {
        const Slot& sl = p_.slots[s];
        if (sl.kind == Slot::Kind::Scratch) ptr[s] = scratch.get() + sl.index * cap;
        else if (sl.kind == Slot::Kind::Imm) ptr[s] = base[s];
        else if (sl.cls == Cls::Full) ptr[s] = base[s] + t.r0 * cols + t.c0;
        else if (sl.cls == Cls::Row) ptr[s] = base[s] + t.r0;
        else if (sl.cls == Cls::Col) ptr[s] = base[s] + t.c0;
        else ptr[s] = base[s];
      }
      for (size_t c = 0; c < column_sums.size(); ++c) {
        T* sums = ptr[column_sums[c]] = block_sums[c].get() + (t.r0 / cpu::kRowBlock) * cols;
        if (t.r0 % cpu::kRowBlock == 0) std::fill(sums, sums + cols, cpu::SumFold<T>::identity());
      }
      if (cpp) cpp(ptr.data(), t.rows, t.cols);
      else run_tile(p_.code.data(), p_.code.size(), ptr.data(), t);
    }
  });
  for (size_t c = 0; c < column_sums.size(); ++c) {
    cpu::ColumnCascade<cpu::SumFold<T>> cascade(cols);
    for (int64_t b = 0; b < nunits; ++b) cascade.push(block_sums[c].get() + b * cols, cols);
    cascade.finish(base[column_sums[c]], cols);
  }
}

// ---- Grouping.

bool is_one(SymInt s) { return !s.is_symbolic() && s.raw() == 1; }
SymIntArrayRef leading(SymIntArrayRef s) { return SymIntArrayRef(s.data(), s.size() - 1); }

// [..., 1] with F's leading sizes: a keepdim row value, which broadcasts against F.
bool keepdim_row(SymIntArrayRef s, SymIntArrayRef full) {
  return !full.empty() && s.size() == full.size() && identical(leading(s), leading(full)) && is_one(s.back());
}
// F's leading sizes alone: a reduction's result without keepdim.
bool flat_row(SymIntArrayRef s, SymIntArrayRef full) { return !full.empty() && identical(s, leading(full)); }
bool col_shape(SymIntArrayRef s, SymIntArrayRef full) {
  if (full.empty() || s.empty() || s.size() > full.size() || s.back().raw() != full.back().raw()) return false;
  return std::all_of(s.begin(), s.end() - 1, is_one);
}
bool one_shape(SymIntArrayRef s) { return std::all_of(s.begin(), s.end(), is_one); }

Scalar scalar_of(const Arg& a) {
  if (a.kind == Arg::Kind::Double) return Scalar(a.d);
  if (a.kind == Arg::Kind::Bool) return Scalar(a.i != 0);
  return Scalar(a.i);
}
bool is_number(const Arg& a) {
  return a.kind == Arg::Kind::Int || a.kind == Arg::Kind::Double || a.kind == Arg::Kind::Bool;
}

// The tensor operands of a call, in the order its instruction reads them (rsub reads self second).
std::vector<Ref> operands(const Node& n, Form f) {
  if (f == Form::Binary) return {n.args[0].refs[0], n.args[1].refs[0]};
  return {n.args[0].refs[0]};
}

// A sum over dim 0 of a 2-D value (Note [Fused column sums]).
bool column_sum(const Graph& g, const Node& n) {
  if (n.kind != Node::Kind::Call || form_of(*n.op) != Form::Reduce || n.op->fused_reduction != FusedReduction::Sum)
    return false;
  const Arg& dim = n.args[1];
  return g.meta(n.args[0].refs[0]).sizes.size() == 2 && dim.kind == Arg::Kind::IntList && dim.ints.size() == 1 &&
         (dim.ints[0].raw() == 0 || dim.ints[0].raw() == -2);
}

// A call that could be in some group: checks that do not depend on the group.
bool fusible(const Graph& g, const Node& n) {
  if (n.kind != Node::Kind::Call || n.outs.size() != 1) return false;
  const Form form = form_of(*n.op);
  const TensorMeta& out = n.outs[0];
  if (form == Form::None || (out.dtype != DType::Float32 && out.dtype != DType::Float64) ||
      !(out.device.is_cpu() || out.device.type == DeviceType::CUDA))
    return false;
  for (Ref r : operands(n, form))
    if (g.meta(r).dtype != out.dtype || g.meta(r).device != out.device) return false;
  if (form == Form::BinaryScalar || form == Form::ReverseScalar)
    if (!is_number(n.args[1])) return false;
  if (form != Form::Unary && form != Form::Reduce && n.args.size() > 2 && !is_number(n.args[2])) return false;
  if (column_sum(g, n)) return out.device.is_cpu();  // the tile loops and C++ kernels only
  if (form == Form::Reduce) {  // over the last dim, or the column sums above
    const int64_t nd = static_cast<int64_t>(g.meta(n.args[0].refs[0]).sizes.size());
    const Arg& dim = n.args[1];
    if (nd == 0) return false;
    if (dim.kind == Arg::Kind::None || (dim.kind == Arg::Kind::IntList && dim.ints.empty())) return nd == 1;
    if (dim.kind != Arg::Kind::IntList || dim.ints.size() != 1) return false;
    const int64_t d = dim.ints[0].raw();
    return d == nd - 1 || d == -1;
  }
  return true;
}

// One call of a group, classified against the group's full shape.
struct Planned {
  Cls out;
  Cls in[2];
};

// Classifies every call of members (ascending node indices) against full; false when some call
// does not fit it (see Note [Fused CPU kernels]).
bool classify(const Graph& g, const std::vector<int32_t>& members, SymIntArrayRef full, std::vector<Planned>& plan) {
  plan.assign(members.size(), {});
  for (size_t k = 0; k < members.size(); ++k) {
    const Node& n = g.nodes[members[k]];
    const Form form = form_of(*n.op);
    const SymIntArrayRef out = n.outs[0].sizes;
    Planned& p = plan[k];
    if (column_sum(g, n)) {  // of the group's whole [R, C], with R and C above 1
      if (!identical(g.meta(n.args[0].refs[0]).sizes, full) || is_one(full[0]) || is_one(full.back()) ||
          !col_shape(out, full))
        return false;
      p.out = Cls::Col;
      p.in[0] = Cls::Full;
    } else if (identical(out, full)) p.out = Cls::Full;
    else if (keepdim_row(out, full) || flat_row(out, full)) p.out = Cls::Row;
    else return false;
    const std::vector<Ref> ops = operands(n, form);
    for (size_t i = 0; i < ops.size(); ++i) {
      const SymIntArrayRef s = g.meta(ops[i]).sizes;
      Cls& c = p.in[i];
      if (form == Form::Reduce) {
        // The reduced row must be whole; with C = 1 a keepdim result is also Full.
        if (!identical(s, full) || (p.out == Cls::Full && !is_one(full.back()))) return false;
        c = Cls::Full;
      } else if (identical(s, out)) {
        c = p.out;
      } else if (p.out == Cls::Full && keepdim_row(s, full)) {
        c = Cls::Row;
      } else if (p.out == Cls::Full && col_shape(s, full)) {
        c = Cls::Col;
      } else if (one_shape(s)) {
        c = Cls::Scalar;
      } else {
        return false;
      }
      // A group's result has the one layout its call gave it; a column sum is complete only after
      // the group's last row, so nothing in the group reads it.
      const auto it = std::lower_bound(members.begin(), members.end(), ops[i].node);
      if (it != members.end() && *it == ops[i].node &&
          (plan[it - members.begin()].out != c || column_sum(g, g.nodes[*it])))
        return false;
    }
  }
  return true;
}

struct Group {
  std::vector<int32_t> members;  // ascending
  SymDimVector full;
  std::vector<Planned> plan;
};

// The shape a call would give a group it starts: a reduction's input, else its result.
SymDimVector own_full(const Graph& g, const Node& n) {
  return form_of(*n.op) == Form::Reduce ? g.meta(n.args[0].refs[0]).sizes : n.outs[0].sizes;
}

class Grouper {
 public:
  explicit Grouper(const Graph& g)
      : g_(g), group_of_(g.nodes.size(), -1), users_(g.nodes.size()), writes_before_(g.nodes.size() + 1, 0) {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& n = g.nodes[i];
      writes_before_[i + 1] = writes_before_[i] + (n.kind == Node::Kind::Call && n.op->schema.mutates());
      for (const Arg& a : n.args)
        for (Ref r : a.refs) users_[r.node].push_back(static_cast<int32_t>(i));
      if (n.kind == Node::Kind::Item) users_[n.src.node].push_back(static_cast<int32_t>(i));
    }
    for (Ref r : g.outputs) users_[r.node].push_back(static_cast<int32_t>(g.nodes.size()));
  }

  /// Groups of at least two calls.
  std::vector<Group> run() {
    for (size_t i = 0; i < g_.nodes.size(); ++i)
      if (fusible(g_, g_.nodes[i])) add(static_cast<int32_t>(i));
    std::vector<Group> out;
    for (Group& gr : groups_)
      if (gr.members.size() >= 2) out.push_back(std::move(gr));
    return out;
  }

  const std::vector<std::vector<int32_t>>& users() const { return users_; }

 private:
  // Joins call i with the groups it reads from (all, else one, else none).
  void add(int32_t i) {
    const Node& n = g_.nodes[i];
    std::vector<int32_t> producers;
    for (Ref r : operands(n, form_of(*n.op))) {
      const int32_t gi = group_of_[r.node];
      if (gi >= 0 && std::find(producers.begin(), producers.end(), gi) == producers.end() &&
          g_.nodes[groups_[gi].members[0]].outs[0].dtype == n.outs[0].dtype)
        producers.push_back(gi);
    }
    std::vector<std::vector<int32_t>> tries;
    if (!producers.empty()) tries.push_back(producers);
    if (producers.size() > 1)
      for (int32_t p : producers) tries.push_back({p});
    tries.push_back({});
    for (const std::vector<int32_t>& t : tries)
      if (try_join(i, t)) return;
  }

  bool try_join(int32_t i, const std::vector<int32_t>& joined) {
    Group gr;
    for (int32_t gi : joined) gr.members.insert(gr.members.end(), groups_[gi].members.begin(), groups_[gi].members.end());
    gr.members.push_back(i);
    std::sort(gr.members.begin(), gr.members.end());
    auto inside = [&](int32_t u) { return std::binary_search(gr.members.begin(), gr.members.end(), u); };
    // The Fused node will sit at i, so its calls all run there: no in-place write may come between
    // them, and nothing outside may read their results before.
    if (writes_before_[i] != writes_before_[gr.members.front()]) return false;
    for (int32_t m : gr.members)
      for (int32_t u : users_[m])
        if (u < i && !inside(u)) return false;
    std::vector<SymDimVector> candidates;
    for (int32_t gi : joined) candidates.push_back(groups_[gi].full);
    candidates.push_back(own_full(g_, g_.nodes[i]));
    for (const SymDimVector& full : candidates) {
      if (!classify(g_, gr.members, full, gr.plan)) continue;
      gr.full = full;
      const int32_t id = static_cast<int32_t>(groups_.size());
      for (int32_t gi : joined) groups_[gi].members.clear();
      for (int32_t m : gr.members) group_of_[m] = id;
      groups_.push_back(std::move(gr));
      return true;
    }
    return false;
  }

  const Graph& g_;
  std::vector<int32_t> group_of_;
  std::vector<std::vector<int32_t>> users_;  // g.nodes.size() stands for the graph's outputs
  std::vector<int32_t> writes_before_;       // [i]: mutating calls among nodes 0..i-1
  std::vector<Group> groups_;
};

// The kernel of a group whose inputs and outputs (members used outside) are given.
std::shared_ptr<const Kernel> build_kernel(const Graph& g, const Group& gr, const std::vector<Ref>& inputs,
                                           const std::vector<int32_t>& outputs, CppKernels cpp_kernels) {
  Plan p;
  const size_t nm = gr.members.size();
  p.dtype = g.nodes[gr.members[0]].outs[0].dtype;
  p.device = g.nodes[gr.members[0]].outs[0].device;
  p.full = gr.full;
  auto input_of = [&](Ref r) { return static_cast<int32_t>(std::find(inputs.begin(), inputs.end(), r) - inputs.begin()); };
  auto member_of = [&](int32_t node) {
    const auto it = std::lower_bound(gr.members.begin(), gr.members.end(), node);
    return it != gr.members.end() && *it == node ? static_cast<int32_t>(it - gr.members.begin()) : -1;
  };
  // Slots: one per member result, then inputs (per class they are read as) and immediates.
  for (size_t m = 0; m < nm; ++m) {
    const auto out = std::find(outputs.begin(), outputs.end(), gr.members[m]);
    const bool shown = out != outputs.end();
    p.slots.push_back({shown ? Slot::Kind::Output : Slot::Kind::Scratch,
                       shown ? static_cast<int32_t>(out - outputs.begin()) : -1, gr.plan[m].out});
    p.whole_rows |= gr.plan[m].out == Cls::Row || form_of(*g.nodes[gr.members[m]].op) == Form::Reduce;
  }
  auto input_slot = [&](Ref r, Cls c) {
    const int32_t in = input_of(r);
    for (size_t s = nm; s < p.slots.size(); ++s)
      if (p.slots[s].kind == Slot::Kind::Input && p.slots[s].index == in && p.slots[s].cls == c)
        return static_cast<int32_t>(s);
    p.slots.push_back({Slot::Kind::Input, in, c});
    return static_cast<int32_t>(p.slots.size() - 1);
  };
  auto imm_slot = [&](const Arg& a) {
    p.imms.push_back(scalar_of(a));
    p.slots.push_back({Slot::Kind::Imm, static_cast<int32_t>(p.imms.size() - 1), Cls::Scalar});
    return Operand{static_cast<int32_t>(p.slots.size() - 1), Cls::Scalar};
  };
  p.flat = !p.whole_rows;
  for (size_t m = 0; m < nm; ++m) {
    const Node& n = g.nodes[gr.members[m]];
    const Form form = form_of(*n.op);
    const std::vector<Ref> ops = operands(n, form);
    Operand in[2];
    for (size_t i = 0; i < ops.size(); ++i) {
      const int32_t mem = member_of(ops[i].node);
      in[i] = {mem >= 0 ? mem : input_slot(ops[i], gr.plan[m].in[i]), gr.plan[m].in[i]};
      p.flat &= in[i].cls == Cls::Full || in[i].cls == Cls::Scalar;
    }
    Instr ins{column_sum(g, n) ? Code::ColumnSum : reduction_code(n.op->fused_reduction), n.op->element,
              gr.plan[m].out, false, static_cast<int32_t>(m), in[0], in[1]};
    if (form == Form::BinaryScalar) ins.b = imm_slot(n.args[1]);
    if (form == Form::ReverseScalar) {
      ins.b = in[0];
      ins.a = imm_slot(n.args[1]);
    }
    // As eager: alpha 1 computes the plain form (the registry checked that fn has a scaled one).
    if (form != Form::Unary && form != Form::Reduce && n.args.size() > 2 && !scalar_of(n.args[2]).equals(1.0))
      ins.alpha = imm_slot(n.args[2]).slot;
    ins.per_line = ins.cls == Cls::Full && ins.code == Code::Element && !ins.unary() &&
                   (ins.a.cls == Cls::Row || ins.a.cls == Cls::Col || ins.b.cls == Cls::Row || ins.b.cls == Cls::Col);
    p.code.push_back(ins);
    p.description += (m ? ", " : "") + n.op->schema.name;
  }
  p.description = "fused[" + p.description + "]";
  // Scratch buffers: a result takes a free one; a buffer frees up after its last read, once the
  // reading instruction has its own, so no instruction writes a buffer it reads.
  std::vector<size_t> last(nm);
  for (size_t m = 0; m < nm; ++m) {
    last[m] = m;
    for (const Operand& o : {p.code[m].a, p.code[m].b})
      if (o.slot >= 0 && static_cast<size_t>(o.slot) < nm) last[o.slot] = m;
  }
  std::vector<int32_t> free;
  for (size_t m = 0; m < nm; ++m) {
    if (p.slots[m].kind == Slot::Kind::Scratch) {
      if (free.empty()) free.push_back(p.num_scratch++);
      p.slots[m].index = free.back();
      free.pop_back();
    }
    for (size_t d = 0; d <= m; ++d)
      if (last[d] == m && p.slots[d].kind == Slot::Kind::Scratch) free.push_back(p.slots[d].index);
  }
  p.live_full = p.num_scratch;
  for (const Slot& s : p.slots) p.live_full += s.kind != Slot::Kind::Scratch && s.cls == Cls::Full;
  p.live_full = std::max(p.live_full, 1);
  // The fallback's calls, reading inputs as Refs 0..ninputs-1 and call k as ninputs + k.
  const int32_t ni = static_cast<int32_t>(inputs.size());
  for (int32_t node : gr.members) {
    Node c = g.nodes[node];
    for (Arg& a : c.args)
      for (Ref& r : a.refs) r = member_of(r.node) >= 0 ? Ref{ni + member_of(r.node), 0} : Ref{input_of(r), 0};
    p.calls.push_back(std::move(c));
  }
  for (int32_t node : outputs) p.output_calls.push_back(member_of(node));
  return std::make_shared<const Kernel>(std::move(p), cpp_kernels);
}

}  // namespace

void fuse(Graph& g, CppKernels cpp_kernels) {
  Grouper grouper(g);
  const std::vector<Group> groups = grouper.run();
  if (groups.empty()) return;
  const auto& users = grouper.users();
  std::vector<bool> keep(g.nodes.size(), true);
  std::vector<Ref> forward(g.nodes.size());
  for (Ref& r : forward) r.node = -1;
  // Built first, placed after: a group reads the graph as it was.
  std::vector<Node> fused;
  for (const Group& gr : groups) {
    auto inside = [&](int32_t u) { return std::binary_search(gr.members.begin(), gr.members.end(), u); };
    std::vector<Ref> inputs;
    std::vector<int32_t> outputs;
    for (int32_t m : gr.members) {
      for (const Arg& a : g.nodes[m].args)
        for (Ref r : a.refs)
          if (!inside(r.node) && std::find(inputs.begin(), inputs.end(), r) == inputs.end()) inputs.push_back(r);
      if (std::any_of(users[m].begin(), users[m].end(), [&](int32_t u) { return !inside(u); })) outputs.push_back(m);
    }
    Node f;
    f.kind = Node::Kind::Fused;
    f.name = g.fresh_name("fused");
    for (Ref r : inputs) {
      Arg a;
      a.kind = Arg::Kind::Tensor;
      a.refs = {r};
      f.args.push_back(std::move(a));
    }
    for (size_t k = 0; k < outputs.size(); ++k) {
      f.outs.push_back(g.nodes[outputs[k]].outs[0]);
      forward[outputs[k]] = Ref{gr.members.back(), static_cast<int32_t>(k)};
    }
    f.fused = build_kernel(g, gr, inputs, outputs, cpp_kernels);
    fused.push_back(std::move(f));
    for (int32_t m : gr.members) keep[m] = false;
  }
  for (size_t k = 0; k < groups.size(); ++k) {
    keep[groups[k].members.back()] = true;
    g.nodes[groups[k].members.back()] = std::move(fused[k]);
  }
  compact(g, keep, [&](Ref r) { return forward[r.node].node >= 0 ? forward[r.node] : r; });
}

}  // namespace ct::compile
