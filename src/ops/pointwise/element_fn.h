// element_fn.h - element_fn<F>(name): the ElementFn (dispatch/operator.h) of functor F of fns.h,
// which an operator's definition hands to OpBuilder::elementwise. Its lines are the fused cpu
// executor's inner loops, compiled here for each ISA from F itself (Note [Element functions]).
#pragma once

#include <cstdint>
#include <type_traits>

#include "dispatch/operator.h"
#include "dispatch/registry.h"
#include "ops/cpu/isa.h"
#include "ops/cpu/vec_math.h"
#include "ops/pointwise/fns.h"

namespace ct::ops {
namespace element_detail {

template <typename F, typename = void> struct has_wide_form : std::false_type {};
template <typename F> struct has_wide_form<F, std::void_t<decltype(F::has_wide_form)>> : std::true_type {};

template <typename F, typename = void> struct arity : std::integral_constant<int, 2> {};
template <typename F> struct arity<F, std::void_t<decltype(F{}(0.0))>> : std::integral_constant<int, 1> {};

template <typename F, typename = void> struct has_alpha : std::false_type {};
template <typename F> struct has_alpha<F, std::void_t<decltype(F{}(0.0, 0.0, 0.0))>> : std::true_type {};

// One body for every ISA: with a side that does not vary hoisted, each form vectorizes.
template <typename F, typename T>
[[gnu::always_inline]] inline void line(void* out, const void* pa, bool av, const void* pb, bool bv, int64_t n,
                                        const void* palpha) {
  T* __restrict o = static_cast<T*>(out);
  const T* a = static_cast<const T*>(pa);
  const F f{};
  if constexpr (arity<F>::value == 1) {
    // As the eager operators: the wide form where the fast one is not accurate, in the lines that
    // need it (Note [sin and cos of large arguments] in vec_math.h).
    if constexpr (has_wide_form<F>::value && std::is_same_v<T, float>) {
      if (__builtin_expect(cpu::vm::any_beyond_sin_cos_range(a, n), 0)) {
        for (int64_t i = 0; i < n; ++i) o[i] = f.wide(a[i]);
        return;
      }
    }
    for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
  } else {
    const T* b = static_cast<const T*>(pb);
    auto apply = [&](auto g) __attribute__((always_inline)) {
      if (av && bv) {
        for (int64_t i = 0; i < n; ++i) o[i] = g(a[i], b[i]);
      } else if (av) {
        const T y = *b;
        for (int64_t i = 0; i < n; ++i) o[i] = g(a[i], y);
      } else if (bv) {
        const T x = *a;
        for (int64_t i = 0; i < n; ++i) o[i] = g(x, b[i]);
      } else {
        const T v = g(*a, *b);
        for (int64_t i = 0; i < n; ++i) o[i] = v;
      }
    };
    if constexpr (has_alpha<F>::value) {
      if (palpha) {
        const T alpha = *static_cast<const T*>(palpha);
        apply([f, alpha](T x, T y) __attribute__((always_inline)) { return f(x, y, alpha); });
        return;
      }
    }
    apply([f](T x, T y) __attribute__((always_inline)) { return f(x, y); });
  }
}

template <typename F, typename T>
void line_baseline(void* o, const void* a, bool av, const void* b, bool bv, int64_t n, const void* alpha) {
  line<F, T>(o, a, av, b, bv, n, alpha);
}
#if CT_HAVE_AVX2_KERNELS
template <typename F, typename T>
CT_TARGET_AVX2 void line_avx2(void* o, const void* a, bool av, const void* b, bool bv, int64_t n, const void* alpha) {
  line<F, T>(o, a, av, b, bv, n, alpha);
}
template <typename F, typename T>
CT_TARGET_AVX512 void line_avx512(void* o, const void* a, bool av, const void* b, bool bv, int64_t n,
                                  const void* alpha) {
  line<F, T>(o, a, av, b, bv, n, alpha);
}
#define CT_ELEMENT_LINES(F, T) {line_baseline<F, T>, line_avx2<F, T>, line_avx512<F, T>}
#else
#define CT_ELEMENT_LINES(F, T) {line_baseline<F, T>, line_baseline<F, T>, line_baseline<F, T>}
#endif

}  // namespace element_detail

/// The ElementFn of functor F, named `functor` as in fns.h ("Add" for ct::fn::Add); one per F.
template <typename F>
const ElementFn& element_fn(const char* functor) {
  using namespace element_detail;
  static const ElementFn fn{functor, arity<F>::value, has_alpha<F>::value, has_wide_form<F>::value,
                            {CT_ELEMENT_LINES(F, float), CT_ELEMENT_LINES(F, double)}};
  return fn;
}
#undef CT_ELEMENT_LINES

/// In an operator's struct: its element function is ct::fn::Name (named by the same token, so the
/// name the fused CUDA source calls cannot drift from the type).
#define CT_ELEMENT_OF(Name)    \
  using Fn = ::ct::fn::Name; \
  static constexpr const char* fn_name = #Name;

template <typename Op, typename = void> struct has_element_fn : std::false_type {};
template <typename Op> struct has_element_fn<Op, std::void_t<typename Op::Fn>> : std::true_type {};

/// Declares b's operator elementwise with Op's functor when Op names one (CT_ELEMENT_OF).
template <typename Op>
void declare_element_fn(OpBuilder& b, bool reversed = false, bool fusible = true) {
  if constexpr (has_element_fn<Op>::value) b.elementwise(element_fn<typename Op::Fn>(Op::fn_name), reversed, fusible);
}

}  // namespace ct::ops
