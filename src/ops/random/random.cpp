// random.cpp - rand, randn, randint, uniform_, normal_, bernoulli: tensors filled from a Philox
// stream (see Note [Counter-based random numbers] in runtime/generator.h for the numbering).
#include <algorithm>
#include <cmath>
#include <limits>

#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/cpu/cast.h"
#include "ops/functions.h"
#include "ops/op_common.h"
#include "ops/random/fill.h"
#include "ops/random/random_common.h"
#include "runtime/defaults.h"

namespace ct::ops {
namespace {

using random::fill;

// Uniform on [lo, hi): four values per block (two for float64, from 53 bits each).
template <typename T>
void fill_uniform(T* out, int64_t n, runtime::Generator& g, double lo, double hi) {
  if constexpr (std::is_same_v<T, double>) {
    fill<2>(out, n, g, [lo, hi](uint32_t a, uint32_t b, uint32_t c, uint32_t d, double* dst, int64_t) {
      dst[0] = lo + (hi - lo) * random::uniform_double(a, b);
      dst[1] = lo + (hi - lo) * random::uniform_double(c, d);
    });
  } else {
    const float l = static_cast<float>(lo), w = static_cast<float>(hi - lo);
    fill<4>(out, n, g, [l, w](uint32_t a, uint32_t b, uint32_t c, uint32_t d, T* dst, int64_t) {
      constexpr int bits = kMantissaDigits<T>;  // so every value is exact in T and below 1 after rounding
      dst[0] = static_cast<T>(l + w * random::uniform_float(a, bits));
      dst[1] = static_cast<T>(l + w * random::uniform_float(b, bits));
      dst[2] = static_cast<T>(l + w * random::uniform_float(c, bits));
      dst[3] = static_cast<T>(l + w * random::uniform_float(d, bits));
    });
  }
}

// Normal(mean, std) by Box-Muller: a pair of values per pair of uniforms, u1 taken in (0, 1] so
// its log is finite. float64 draws 53-bit uniforms, so a block gives one pair.
template <typename T>
void fill_normal(T* out, int64_t n, runtime::Generator& g, double mean, double std) {
  if constexpr (std::is_same_v<T, double>) {
    fill<2>(out, n, g, [mean, std](uint32_t a, uint32_t b, uint32_t c, uint32_t d, double* dst, int64_t) {
      double z0, z1;
      random::box_muller(1.0 - random::uniform_double(a, b), random::uniform_double(c, d), z0, z1);
      dst[0] = mean + std * z0;
      dst[1] = mean + std * z1;
    });
  } else {
    const float m = static_cast<float>(mean), s = static_cast<float>(std);
    fill<4>(out, n, g, [m, s](uint32_t a, uint32_t b, uint32_t c, uint32_t d, T* dst, int64_t) {
      constexpr float k = 1.0f / 16777216.0f;
      float z0, z1, z2, z3;
      random::box_muller(static_cast<float>((a >> 8) + 1) * k, static_cast<float>(b >> 8) * k, z0, z1);
      random::box_muller(static_cast<float>((c >> 8) + 1) * k, static_cast<float>(d >> 8) * k, z2, z3);
      dst[0] = static_cast<T>(m + s * z0);
      dst[1] = static_cast<T>(m + s * z1);
      dst[2] = static_cast<T>(m + s * z2);
      dst[3] = static_cast<T>(m + s * z3);
    });
  }
}

// Integers in [low, high): w mod (high - low), from one word when the range fits 32 bits and from
// two otherwise. As in PyTorch, the modulo bias is at most range / 2^32 (range / 2^64 for wide
// ranges); being plain integer arithmetic, it is the same on every device.
template <typename T>
void fill_randint(T* out, int64_t n, runtime::Generator& g, int64_t low, int64_t high) {
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  if (range <= (1ull << 32)) {
    fill<4>(out, n, g, [low, range](uint32_t a, uint32_t b, uint32_t c, uint32_t d, T* dst, int64_t) {
      const uint32_t w[4] = {a, b, c, d};
      for (int k = 0; k < 4; ++k) dst[k] = cpu::cast_value<T>(static_cast<int64_t>(static_cast<uint64_t>(low) + w[k] % range));
    });
  } else {
    fill<2>(out, n, g, [low, range](uint32_t a, uint32_t b, uint32_t c, uint32_t d, T* dst, int64_t) {
      dst[0] = cpu::cast_value<T>(static_cast<int64_t>(static_cast<uint64_t>(low) + ((uint64_t{b} << 32 | a) % range)));
      dst[1] = cpu::cast_value<T>(static_cast<int64_t>(static_cast<uint64_t>(low) + ((uint64_t{d} << 32 | c) % range)));
    });
  }
}

// 1 with probability p[i] (or p), else 0: uniform u = w / 2^32 compared with p in double. The last
// block's lanes past n have no probability to read (a caller's exact-size buffer ends there).
template <typename T, typename P>
void fill_bernoulli(T* out, int64_t n, runtime::Generator& g, const P& p_of) {
  fill<4>(out, n, g, [&p_of, n](uint32_t a, uint32_t b, uint32_t c, uint32_t d, T* dst, int64_t first) {
    constexpr double k = 1.0 / 4294967296.0;
    const uint32_t w[4] = {a, b, c, d};
    const int live = static_cast<int>(std::min<int64_t>(4, n - first));
    for (int j = 0; j < 4; ++j)
      dst[j] = static_cast<T>(j < live && static_cast<double>(w[j]) * k < p_of(first + j) ? 1 : 0);
  });
}

// ---- rand / randn (int[] size, *, Generator? generator=None, ScalarType? dtype=None, Device? device=None)

void sized_random_meta(const Frame& f, MetaResult& m) {
  const char* name = f.op.schema.name.c_str();
  const SymIntArrayRef sizes = f.arg(0).sym_int_list();
  checked_numel(sizes, name);
  const DType d = f.arg(2).is_none() ? runtime::default_dtype() : f.arg(2).dtype();
  CT_CHECK(is_floating(d) || is_complex(d), CT_ERROR_DTYPE, name, ": draws floating-point numbers, so dtype ", d,
           " is not allowed. Pass a floating or complex dtype, or use randint for integers");
  set_output(m, 0, sizes, d, f.arg(3).is_none() ? runtime::current_device() : f.arg(3).device());
}

// A complex tensor is filled as the real one of twice its elements that holds its parts: rand
// draws both parts uniform on [0, 1), randn both normal with variance 1/2, so that E|z|^2 is 1, as
// torch's complex randn (uniform_ and normal_ below likewise).
void rand_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  const int64_t parts = is_complex(out.dtype()) ? 2 : 1;
  visit_dtype<kFloatingDTypes>(real_dtype(out.dtype()), "rand", [&](auto tag) {
    using T = typename decltype(tag)::type;
    fill_uniform(static_cast<T*>(out.data()), parts * out.numel(), random_generator(f.arg(1), out.device()), 0.0, 1.0);
  });
}

void randn_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  const bool complex = is_complex(out.dtype());
  visit_dtype<kFloatingDTypes>(real_dtype(out.dtype()), "randn", [&](auto tag) {
    using T = typename decltype(tag)::type;
    fill_normal(static_cast<T*>(out.data()), (complex ? 2 : 1) * out.numel(), random_generator(f.arg(1), out.device()),
                0.0, complex ? 0.70710678118654752440 : 1.0);
  });
}

// ---- randint.low(int low, int high, int[] size, *, Generator? generator=None, ScalarType? dtype=None, Device? device=None)

void randint_meta(const Frame& f, MetaResult& m) {
  const int64_t low = f.arg(0).to_int(), high = f.arg(1).to_int();
  const SymIntArrayRef sizes = f.arg(2).sym_int_list();
  checked_numel(sizes, "randint");
  const DType d = f.arg(4).is_none() ? DType::Int64 : f.arg(4).dtype();
  CT_CHECK(low < high, CT_ERROR_INVALID_ARGUMENT, "randint: the range [", low, ", ", high,
           ") is empty. Pass low < high");
  const ExactIntegers fits = exact_integers(d, "randint");
  CT_CHECK(low >= fits.lo && high - 1 <= fits.hi, CT_ERROR_INVALID_ARGUMENT, "randint: [", low, ", ", high,
           ") does not fit ", d, ", which holds the integers ", fits.lo, " to ", fits.hi,
           " exactly. Narrow the range or pass a wider dtype");
  set_output(m, 0, sizes, d, f.arg(5).is_none() ? runtime::current_device() : f.arg(5).device());
}

void randint_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  visit_dtype(out.dtype(), "randint", [&](auto tag) {
    using T = typename decltype(tag)::type;
    fill_randint(out.data_as<T>(), out.numel(), random_generator(f.arg(3), out.device()), f.arg(0).to_int(),
                 f.arg(1).to_int());
  });
}

// ---- bernoulli(Tensor self, *, Generator? generator=None): self holds the probabilities

void bernoulli_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& p = f.tensor(0);
  CT_CHECK(is_floating(p.dtype()), CT_ERROR_DTYPE, "bernoulli: the probabilities must be floating, got ", p.dtype(),
           " (sizes ", p.sym_sizes(), "). Convert them with to(float32)");
  set_output(m, 0, p.sym_sizes(), p.dtype(), p.device());
}

void bernoulli_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const Tensor p = to(expect_contiguous(Tensor::borrow(&f.tensor(0))), DType::Float64);
  const double* pd = p->data_as<double>();
  for (int64_t i = 0; i < p->numel(); ++i)
    CT_CHECK(pd[i] >= 0 && pd[i] <= 1, CT_ERROR_INVALID_ARGUMENT, "bernoulli: probability ", pd[i], " at flat index ",
             i, " is outside [0, 1]. Clamp the probabilities first");
  const TensorImpl& out = *outs[0];
  visit_dtype<kFloatingDTypes>(out.dtype(), "bernoulli", [&](auto tag) {
    using T = typename decltype(tag)::type;
    fill_bernoulli(out.data_as<T>(), out.numel(), random_generator(f.arg(1), out.device()),
                   [pd](int64_t i) { return pd[i]; });
  });
}

// ---- bernoulli.p(Tensor self, float p, *, Generator? generator=None): self gives sizes and dtype

void check_probability(const char* op, double p) {
  CT_CHECK(p >= 0 && p <= 1, CT_ERROR_INVALID_ARGUMENT, op, ": p is ", p, ". Pass a probability in [0, 1]");
}

void bernoulli_p_meta(const Frame& f, MetaResult& m) {
  check_probability("bernoulli", f.arg(1).to_double());
  const TensorImpl& self = f.tensor(0);
  set_output(m, 0, self.sym_sizes(), self.dtype(), self.device());
}

// Writes values from one of the fill functions into self, through a contiguous buffer when self is
// not contiguous itself.
template <typename Fill>
void fill_self(const TensorImpl& self, const Fill& fill_contiguous) {
  if (self.is_contiguous()) {
    fill_contiguous(self);
    self.storage()->bump_version();
    return;
  }
  Tensor tmp = empty(self.sizes(), self.dtype(), self.device());
  fill_contiguous(*tmp);
  copy_(Tensor::borrow(&self), tmp);
}

void bernoulli_to(const TensorImpl& out, double p, runtime::Generator& g) {
  visit_dtype(out.dtype(), "bernoulli", [&](auto tag) {
    using T = typename decltype(tag)::type;
    fill_bernoulli(out.data_as<T>(), out.numel(), g, [p](int64_t) { return p; });
  });
}

void bernoulli_p_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  bernoulli_to(*outs[0], f.arg(1).to_double(), random_generator(f.arg(2), outs[0]->device()));
}

// ---- In place: uniform_(self, float from=0, float to=1, *, Generator? generator=None),
//      normal_(self, float mean=0, float std=1, *, Generator?), bernoulli_.float(self, float p=0.5, *, Generator?)

enum class InPlace { Uniform, Normal, Bernoulli };

template <InPlace K>
void check_in_place(const Frame& f) {
  const TensorImpl& self = f.tensor(0);
  const char* name = f.op.schema.name.c_str();
  const double a = f.arg(1).to_double();
  if constexpr (K == InPlace::Bernoulli) {
    check_probability(name, a);
  } else {
    const double b = f.arg(2).to_double();
    CT_CHECK(is_floating(self.dtype()) || is_complex(self.dtype()), CT_ERROR_DTYPE, name, ": self is ", self.dtype(),
             " (sizes ", self.sym_sizes(), "), but it draws floating-point numbers. Use a floating or complex tensor, or "
             "randint for integers");
    if constexpr (K == InPlace::Uniform)
      CT_CHECK(std::isfinite(a) && std::isfinite(b) && a <= b, CT_ERROR_INVALID_ARGUMENT, name, ": [from, to) is [",
               a, ", ", b, "). Pass finite bounds with from <= to");
    else
      CT_CHECK(std::isfinite(a) && std::isfinite(b) && b >= 0, CT_ERROR_INVALID_ARGUMENT, name, ": mean ", a,
               " and std ", b, ". Pass a finite mean and a finite std >= 0");
  }
}

template <InPlace K>
void in_place_cpu(void*, Frame& f) {
  check_in_place<K>(f);
  const TensorImpl& self = f.tensor(0);
  runtime::Generator& g = random_generator(f.arg(f.nargs - 1), self.device());  // generator comes last
  const double a = f.arg(1).to_double();
  fill_self(self, [&](const TensorImpl& out) {
    if constexpr (K == InPlace::Bernoulli) {
      bernoulli_to(out, a, g);
    } else {
      // A complex self draws both parts, as rand and randn do: normal_'s std is split between them.
      const bool complex = is_complex(out.dtype());
      const double b = f.arg(2).to_double();
      const int64_t n = (complex ? 2 : 1) * out.numel();
      visit_dtype<kFloatingDTypes>(real_dtype(out.dtype()), f.op.schema.name.c_str(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* data = static_cast<T*>(out.data());
        if constexpr (K == InPlace::Uniform) fill_uniform(data, n, g, a, b);
        else fill_normal(data, n, g, a, complex ? b * 0.70710678118654752440 : b);
      });
    }
  });
  f.outs[0] = Tensor::borrow(&self);
}

template <InPlace K>
void in_place_meta(void*, Frame& f) {
  check_in_place<K>(f);
  f.outs[0] = Tensor::borrow(&f.tensor(0));
}

// The values drawn do not depend on the input's values, so no gradient flows back to it; with
// this derivative recorded, an in-place draw into a leaf that requires grad is refused as in PyTorch.
void no_gradient(autograd::GradCtx&) {}

}  // namespace

void define_random(Registry& r) {
  const std::string opts = "*, Generator? generator=None, ScalarType? dtype=None, Device? device=None) -> Tensor";
  auto factory = [&](const std::string& head, int device_index, MetaFn meta, ComputeFn cpu) {
    r.def(head + opts).meta(meta).device_arg(device_index).compute(DispatchKey::CPU, cpu, Determinism::Bitwise)
        .not_differentiable();
  };
  factory("rand(int[] size, ", 3, sized_random_meta, rand_cpu);
  factory("randn(int[] size, ", 3, sized_random_meta, randn_cpu);
  factory("randint.low(int low, int high, int[] size, ", 5, randint_meta, randint_cpu);
  r.def("bernoulli(Tensor self, *, Generator? generator=None) -> Tensor")
      .meta(bernoulli_meta)
      .compute(DispatchKey::CPU, bernoulli_cpu, Determinism::Bitwise)
      .derivative(no_gradient);
  r.def("bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor")
      .meta(bernoulli_p_meta)
      .compute(DispatchKey::CPU, bernoulli_p_cpu, Determinism::Bitwise)
      .derivative(no_gradient);
  auto in_place = [&](const char* schema, KernelFn cpu, KernelFn meta) {
    r.def(schema)
        .kernel(DispatchKey::CPU, cpu, Determinism::Bitwise)
        .kernel(DispatchKey::Meta, meta, Determinism::Bitwise)
        .derivative(no_gradient);
  };
  in_place("uniform_(Tensor(a!) self, float from=0, float to=1, *, Generator? generator=None) -> Tensor(a!)",
           in_place_cpu<InPlace::Uniform>, in_place_meta<InPlace::Uniform>);
  in_place("normal_(Tensor(a!) self, float mean=0, float std=1, *, Generator? generator=None) -> Tensor(a!)",
           in_place_cpu<InPlace::Normal>, in_place_meta<InPlace::Normal>);
  in_place("bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> Tensor(a!)",
           in_place_cpu<InPlace::Bernoulli>, in_place_meta<InPlace::Bernoulli>);
}

}  // namespace ct::ops
