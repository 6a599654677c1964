// factories.cpp - empty, zeros, ones, full, arange, linspace, logspace, eye, tril_indices and
// triu_indices. Each takes an optional dtype
// (None: PyTorch's default for the operator) and an optional device that picks the backend.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "dispatch/dispatcher.h"
#include "ops/cpu/cast.h"
#include "ops/cpu/loop.h"
#include "ops/op_common.h"
#include "runtime/defaults.h"
#include "runtime/determinism.h"

namespace ct::ops {
namespace {

DType dtype_or(const Value& v, DType d) { return v.is_none() ? d : v.dtype(); }
Device device_of(const Value& v) { return v.is_none() ? runtime::current_device() : v.device(); }

// Fills a fresh contiguous output with one value.
void fill(const TensorImpl& out, const Scalar& v) {
  const cpu::LoopPlan plan = cpu::make_plan(out, nullptr, 0);
  visit_dtype<kAllDTypesAndComplex>(out.dtype(), "fill", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T x = v.to<T>();
    cpu::elementwise<T>(plan, [x]() { return x; });
  });
}

// empty / zeros / ones (int[] size, *, ScalarType? dtype=None, Device? device=None)
void sized_meta(const Frame& f, MetaResult& m) {
  const SymIntArrayRef sizes = f.arg(0).sym_int_list();
  checked_numel(sizes, f.op.schema.name.c_str());
  set_output(m, 0, sizes, dtype_or(f.arg(1), runtime::default_dtype()), device_of(f.arg(2)));
}
void zeros_cpu(const Frame&, const MetaResult&, Tensor* outs) { fill(*outs[0], Scalar(0)); }
void ones_cpu(const Frame&, const MetaResult&, Tensor* outs) { fill(*outs[0], Scalar(1)); }

// full(int[] size, Scalar fill_value, *, ScalarType? dtype=None, Device? device=None)
void full_meta(const Frame& f, MetaResult& m) {
  const SymIntArrayRef sizes = f.arg(0).sym_int_list();
  checked_numel(sizes, "full");
  const Scalar v = f.arg(1).to_scalar();
  const DType d = dtype_or(f.arg(2), v.is_floating() ? runtime::default_dtype() : v.dtype());
  check_scalar_fits("full", "fill_value", v, d);
  set_output(m, 0, sizes, d, device_of(f.arg(3)));
}
void full_cpu(const Frame& f, const MetaResult&, Tensor* outs) { fill(*outs[0], f.arg(1).to_scalar()); }

// arange(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, Device? device=None)
void arange_meta(const Frame& f, MetaResult& m) {
  const Scalar start = f.arg(0).to_scalar(), end = f.arg(1).to_scalar(), step = f.arg(2).to_scalar();
  const double s = start.to_double(), e = end.to_double(), st = step.to_double();
  CT_CHECK(std::isfinite(s) && std::isfinite(e), CT_ERROR_INVALID_ARGUMENT, "arange: start (", s, ") and end (", e,
           ") must be finite");
  CT_CHECK(st != 0, CT_ERROR_INVALID_ARGUMENT, "arange: step must be nonzero. Pass a positive or negative step");
  // An infinite step has no length: ceil((end - start) / step) would say 0 elements, though start is one.
  CT_CHECK(std::isfinite(st), CT_ERROR_INVALID_ARGUMENT, "arange: step (", st, ") must be finite. Pass a finite step");
  CT_CHECK((st > 0 && e >= s) || (st < 0 && e <= s), CT_ERROR_INVALID_ARGUMENT, "arange: step ", st,
           " does not lead from start ", s, " to end ", e, ". Flip the sign of step or swap start and end");
  const bool integral = !start.is_floating() && !end.is_floating() && !step.is_floating();
  int64_t n;
  if (integral) {  // exact in int64, as PyTorch computes integer ranges: doubles lose integers past 2^53
    const int64_t a = start.to_int(), b = end.to_int(), k = step.to_int();
    int64_t span;
    CT_CHECK(!__builtin_sub_overflow(b, a, &span), CT_ERROR_INVALID_ARGUMENT, "arange: [", a, ", ", b,
             ") holds more elements than int64 can count");
    n = span / k + (span % k != 0 ? 1 : 0);  // ceil, span and k having one sign (or span 0)
  } else {
    const double len = std::ceil((e - s) / st);
    CT_CHECK(len < 9.2e18, CT_ERROR_INVALID_ARGUMENT, "arange: ", len, " elements is too many");
    n = static_cast<int64_t>(len);
  }
  set_output(m, 0, {n}, dtype_or(f.arg(3), integral ? DType::Int64 : runtime::default_dtype()), device_of(f.arg(4)));
}
void arange_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const Scalar start = f.arg(0).to_scalar(), end = f.arg(1).to_scalar(), step = f.arg(2).to_scalar();
  const bool integral = !start.is_floating() && !end.is_floating() && !step.is_floating();
  const TensorImpl& out = *outs[0];
  visit_dtype<kNumericDTypes>(out.dtype(), "arange", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = out.data_as<T>();
    if (integral) {  // start + i * step stays between start and end, so it cannot overflow
      const int64_t s = start.to_int(), st = step.to_int();
      for (int64_t i = 0; i < out.numel(); ++i) p[i] = cpu::cast_value<T>(s + i * st);
    } else {
      const double s = start.to_double(), st = step.to_double();
      for (int64_t i = 0; i < out.numel(); ++i) p[i] = cpu::cast_value<T>(s + static_cast<double>(i) * st);
    }
  });
}

// linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None, Device? device=None)
void linspace_meta(const Frame& f, MetaResult& m) {
  const int64_t steps = f.arg(2).to_int();
  CT_CHECK(steps >= 0, CT_ERROR_INVALID_ARGUMENT, "linspace: steps is ", steps, ". Pass steps >= 0");
  set_output(m, 0, {steps}, dtype_or(f.arg(3), runtime::default_dtype()), device_of(f.arg(4)));
}
void linspace_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const double s = f.arg(0).to_double(), e = f.arg(1).to_double();
  const TensorImpl& out = *outs[0];
  const int64_t n = out.numel();
  const double step = n > 1 ? (e - s) / static_cast<double>(n - 1) : 0.0;
  visit_dtype<kNumericDTypes>(out.dtype(), "linspace", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = out.data_as<T>();
    // The second half counts back from end, so both ends are exact (as PyTorch does).
    for (int64_t i = 0; i < n; ++i) {
      const double v = n == 1 || i < n / 2 ? s + step * static_cast<double>(i) : e - step * static_cast<double>(n - 1 - i);
      p[i] = cpu::cast_value<T>(v);
    }
  });
}

// logspace(Scalar start, Scalar end, int steps, float base=10.0, *, ScalarType? dtype=None, Device? device=None)
// base ** linspace(start, end, steps), the exponents formed as PyTorch's kernel forms them: in the
// output dtype (double for integers), the second half counted back from end.
void logspace_meta(const Frame& f, MetaResult& m) {
  const int64_t steps = f.arg(2).to_int();
  CT_CHECK(steps >= 0, CT_ERROR_INVALID_ARGUMENT, "logspace: steps is ", steps, ". Pass steps >= 0");
  set_output(m, 0, {steps}, dtype_or(f.arg(4), runtime::default_dtype()), device_of(f.arg(5)));
}
void logspace_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  const int64_t n = out.numel();
  visit_dtype<kNumericDTypes>(out.dtype(), "logspace", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using S = std::conditional_t<std::is_integral_v<T>, double, opmath_t<T>>;  // the exponents' type
    using B = std::conditional_t<std::is_integral_v<T>, T, opmath_t<T>>;        // the base's
    const S s = S(f.arg(0).to_scalar().to<T>()), e = S(f.arg(1).to_scalar().to<T>());
    const B base = B(cpu::cast_value<T>(f.arg(3).to_double()));
    const S step = n > 1 ? (e - s) / S(n - 1) : S(0);
    T* p = out.data_as<T>();
    for (int64_t i = 0; i < n; ++i) {
      const S x = n == 1 || i < n / 2 ? s + step * S(i) : e - step * S(n - 1 - i);
      p[i] = cpu::cast_value<T>(std::pow(base, x));
    }
  });
}

// tril_indices / triu_indices(int row, int col, int offset=0, *, ScalarType? dtype=None, Device? device=None)
// The [2, N] coordinates (rows, then columns) of a row x col matrix's lower (upper) triangle from
// diagonal offset, row by row; int64 unless dtype says otherwise.
// In closed form, as a row count can be huge: row i of the lower triangle holds
// clamp(i + offset + 1, 0, cols) entries; the upper triangle is the rest of the lower one of offset - 1.
__int128 lower_count(int64_t rows, int64_t cols, int64_t offset) {
  const __int128 i0 = std::clamp<__int128>(-static_cast<__int128>(offset), 0, rows);             // first row not empty
  const __int128 i1 = std::clamp<__int128>(static_cast<__int128>(cols) - offset - 1, i0, rows);  // first full row
  const __int128 partial = (i1 - i0) * (static_cast<__int128>(offset) + 1) + (i0 + i1 - 1) * (i1 - i0) / 2;
  return partial + (rows - i1) * static_cast<__int128>(cols);
}
template <bool Lower>
int64_t triangle_count(const char* op, int64_t rows, int64_t cols, int64_t offset) {
  const __int128 all = static_cast<__int128>(rows) * cols;
  const __int128 n = Lower ? lower_count(rows, cols, offset)
                           : all - (offset == INT64_MIN ? 0 : lower_count(rows, cols, offset - 1));
  CT_CHECK(n <= INT64_MAX / 2, CT_ERROR_INVALID_ARGUMENT, op, ": a ", rows, " x ", cols,
           " matrix has more triangle entries than int64 can count");
  return static_cast<int64_t>(n);
}
template <bool Lower>
void triangle_indices_meta(const Frame& f, MetaResult& m) {
  const char* op = Lower ? "tril_indices" : "triu_indices";
  const int64_t rows = f.arg(0).to_int(), cols = f.arg(1).to_int();
  CT_CHECK(rows >= 0 && cols >= 0, CT_ERROR_INVALID_ARGUMENT, op, ": row (", rows, ") and col (", cols,
           ") must be >= 0");
  const DType d = dtype_or(f.arg(3), DType::Int64);
  CT_CHECK(d == DType::Int32 || d == DType::Int64, CT_ERROR_DTYPE, op, ": dtype ", d, " cannot hold indices. "
           "Pass int64 or int32");
  const DimVector sizes{2, triangle_count<Lower>(op, rows, cols, f.arg(2).to_int())};
  checked_nbytes(sizes, d, op);
  set_output(m, 0, sizes, d, device_of(f.arg(4)));
}
template <bool Lower>
void triangle_indices_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  const int64_t rows = f.arg(0).to_int(), cols = f.arg(1).to_int(), offset = f.arg(2).to_int();
  const int64_t n = out.size(1);
  visit_dtype<dtype_bit(DType::Int32) | dtype_bit(DType::Int64)>(out.dtype(), "triangle_indices", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* r = out.data_as<T>();
    T* c = r + n;
    // Empty rows come first (lower) or last (upper) and are not visited: row counts can be huge.
    int64_t k = 0;
    for (int64_t i = Lower ? std::clamp<int64_t>(offset == INT64_MIN ? rows : -offset, 0, rows) : 0; i < rows && k < n; ++i) {
      const int64_t lo = Lower ? 0 : std::max<int64_t>(0, i + offset);
      const int64_t hi = Lower ? std::min<int64_t>(cols, i + offset + 1) : cols;
      for (int64_t j = lo; j < hi; ++j, ++k) r[k] = T(i), c[k] = T(j);
    }
  });
}

// eye(int n, int m=-1, *, ScalarType? dtype=None, Device? device=None)
void eye_meta(const Frame& f, MetaResult& m) {
  const int64_t n = f.arg(0).to_int();
  const int64_t cols = f.arg(1).to_int() < 0 ? n : f.arg(1).to_int();
  CT_CHECK(n >= 0, CT_ERROR_INVALID_ARGUMENT, "eye: n is ", n, ". Pass n >= 0");
  set_output(m, 0, {n, cols}, dtype_or(f.arg(2), runtime::default_dtype()), device_of(f.arg(3)));
}
void eye_cpu(const Frame&, const MetaResult&, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  fill(out, Scalar(0));
  const int64_t n = out.size(0), cols = out.size(1);
  visit_dtype<kAllDTypesAndComplex>(out.dtype(), "eye", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = out.data_as<T>();
    for (int64_t i = 0; i < n && i < cols; ++i) p[i * cols + i] = Scalar(1).to<T>();
  });
}

// empty's memory is whatever the allocator returns; with deterministic algorithms on it is filled
// with a value no computation produces by accident (NaN, or the dtype's largest integer), so a
// read of it is visible and reproducible, as in PyTorch. A bool tensor starts false otherwise: a
// leftover byte need not be 0 or 1, and reading it as a bool would be undefined behaviour.
void empty_cpu(const Frame&, const MetaResult&, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  if (runtime::deterministic_mode() == runtime::DeterministicMode::Off) {
    if (out.dtype() == DType::Bool) fill(out, Scalar(false));
    return;
  }
  visit_dtype<kAllDTypesAndComplex>(out.dtype(), "empty", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>)
      fill(out, Scalar(static_cast<int64_t>(std::numeric_limits<T>::max())));
    else
      fill(out, Scalar(std::numeric_limits<double>::quiet_NaN()));
  });
}

}  // namespace

void define_factories(Registry& r) {
  const char* opts = "*, ScalarType? dtype=None, Device? device=None) -> Tensor";
  auto def = [&](const std::string& head, int device_index, MetaFn meta, ComputeFn cpu) {
    r.def(head + opts)
        .meta(meta)
        .device_arg(device_index)
        .compute(DispatchKey::CPU, cpu, Determinism::Bitwise)
        .not_differentiable();  // no tensor inputs: nothing to differentiate with respect to
  };
  def("empty(int[] size, ", 2, sized_meta, empty_cpu);
  // A plugin device's empty needs only its backend's memory: the structured kernel with no compute.
  // (Deterministic mode's fill of uninitialized memory is the cpu's alone.)
  OperatorDef& empty = *r.find("empty");
  for (DispatchKey k : {DispatchKey::PrivateUse1, DispatchKey::PrivateUse2, DispatchKey::PrivateUse3, DispatchKey::PrivateUse4})
    r.set_kernel(empty, k, Kernel{structured_kernel, nullptr, nullptr}, Determinism::Bitwise);
  def("zeros(int[] size, ", 2, sized_meta, zeros_cpu);
  def("ones(int[] size, ", 2, sized_meta, ones_cpu);
  def("full(int[] size, Scalar fill_value, ", 3, full_meta, full_cpu);
  def("arange(Scalar start, Scalar end, Scalar step=1, ", 4, arange_meta, arange_cpu);
  def("linspace(Scalar start, Scalar end, int steps, ", 4, linspace_meta, linspace_cpu);
  def("logspace(Scalar start, Scalar end, int steps, float base=10.0, ", 5, logspace_meta, logspace_cpu);
  def("eye(int n, int m=-1, ", 3, eye_meta, eye_cpu);
  def("tril_indices(int row, int col, int offset=0, ", 4, triangle_indices_meta<true>, triangle_indices_cpu<true>);
  def("triu_indices(int row, int col, int offset=0, ", 4, triangle_indices_meta<false>, triangle_indices_cpu<false>);
}

}  // namespace ct::ops
