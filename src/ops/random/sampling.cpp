// sampling.cpp - randperm, multinomial, dropout, poisson and binomial: operators that draw with
// the Philox stream and then order, search, mask or reject.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "dispatch/dispatcher.h"
#include "ops/cpu/cast.h"
#include "ops/cpu/parallel.h"
#include "ops/functions.h"
#include "ops/op_common.h"
#include "ops/random/fill.h"
#include "ops/random/random_common.h"
#include "runtime/defaults.h"

namespace ct::ops {
namespace {

// n uniforms on [0, 1) with 53 bits each, two per Philox block.
std::vector<double> uniforms(int64_t n, runtime::Generator& g) {
  std::vector<double> u(static_cast<size_t>(n));
  random::fill<2>(u.data(), n, g, [](uint32_t a, uint32_t b, uint32_t c, uint32_t d, double* dst, int64_t) {
    dst[0] = random::uniform_double(a, b);
    dst[1] = random::uniform_double(c, d);
  });
  return u;
}

// ---- randperm(int n, *, Generator? generator=None, ScalarType? dtype=None, Device? device=None)

void randperm_meta(const Frame& f, MetaResult& m) {
  const int64_t n = f.arg(0).to_int();
  CT_CHECK(n >= 0, CT_ERROR_INVALID_ARGUMENT, "randperm: n is ", n, ". Pass n >= 0");
  const DType d = f.arg(2).is_none() ? DType::Int64 : f.arg(2).dtype();
  if (d == DType::Bool) fail_unsupported_dtype("randperm", d);
  const int64_t largest = exact_integers(d, "randperm").hi;
  CT_CHECK(n - 1 <= largest, CT_ERROR_INVALID_ARGUMENT, "randperm: n = ", n, " does not fit ", d,
           ", which holds the integers up to ", largest, " exactly. Pass a wider dtype");
  set_output(m, 0, {n}, d, f.arg(3).is_none() ? runtime::current_device() : f.arg(3).device());
}

// Sorting by a 64-bit random key (ties, of probability n^2 / 2^65, by index) gives a uniform
// permutation from values computed independently per element, so it parallelizes and is the same
// on every device, where a sequential Fisher-Yates shuffle would be neither.
void randperm_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  const int64_t n = out.numel();
  std::vector<std::pair<uint64_t, int64_t>> keyed(static_cast<size_t>(n));
  random::fill<2>(keyed.data(), n, random_generator(f.arg(1), out.device()),
                  [](uint32_t a, uint32_t b, uint32_t c, uint32_t d, std::pair<uint64_t, int64_t>* dst, int64_t first) {
                    dst[0] = {uint64_t{b} << 32 | a, first};
                    dst[1] = {uint64_t{d} << 32 | c, first + 1};
                  });
  std::sort(keyed.begin(), keyed.end());
  visit_dtype<kNumericDTypes>(out.dtype(), "randperm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = out.data_as<T>();
    for (int64_t i = 0; i < n; ++i) p[i] = cpu::cast_value<T>(keyed[static_cast<size_t>(i)].second);
  });
}

// ---- multinomial(Tensor self, int num_samples, bool replacement=False, *, Generator? generator=None)

void multinomial_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& p = f.tensor(0);
  const int64_t k = f.arg(1).to_int();
  const bool replacement = f.arg(2).to_bool();
  CT_CHECK(p.dim() == 1 || p.dim() == 2, CT_ERROR_SHAPE, "multinomial: probabilities must be 1-D or 2-D (one row "
           "per distribution), got sizes ", p.sym_sizes());
  CT_CHECK(is_floating(p.dtype()), CT_ERROR_DTYPE, "multinomial: probabilities must be floating, got ", p.dtype(),
           ". Convert them with to(float32)");
  const int64_t categories = p.size(p.dim() - 1);
  CT_CHECK(categories > 0, CT_ERROR_SHAPE, "multinomial: there are no categories (sizes ", p.sym_sizes(), ")");
  CT_CHECK(k > 0, CT_ERROR_INVALID_ARGUMENT, "multinomial: num_samples is ", k, ". Pass num_samples > 0");
  CT_CHECK(replacement || k <= categories, CT_ERROR_INVALID_ARGUMENT, "multinomial: cannot draw ", k,
           " samples without replacement from ", categories, " categories. Pass replacement=true or fewer samples");
  DimVector sizes;
  if (p.dim() == 2) sizes.push_back(p.size(0));
  sizes.push_back(k);
  set_output(m, 0, sizes.ref(), DType::Int64, p.device());
}

void multinomial_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const Tensor p = to(expect_contiguous(Tensor::borrow(&f.tensor(0))), DType::Float64);
  const int64_t categories = p->size(p->dim() - 1), rows = p->numel() / categories, k = f.arg(1).to_int();
  const bool replacement = f.arg(2).to_bool();
  const double* pd = p->data_as<double>();
  for (int64_t r = 0; r < rows; ++r) check_multinomial_row(pd + r * categories, categories, r, k, replacement);
  int64_t* out = outs[0]->data_as<int64_t>();
  runtime::Generator& g = random_generator(f.arg(3), outs[0]->device());
  if (replacement) {
    // Inverse CDF: sample s of row r is the first category whose running total exceeds u * total.
    const std::vector<double> u = uniforms(rows * k, g);
    std::vector<double> cdf(static_cast<size_t>(categories));
    for (int64_t r = 0; r < rows; ++r) {
      std::partial_sum(pd + r * categories, pd + (r + 1) * categories, cdf.begin());
      int64_t last = categories - 1;
      while (pd[r * categories + last] == 0) --last;  // rounding may put u * total at the very end
      for (int64_t s = 0; s < k; ++s) {
        const double x = u[static_cast<size_t>(r * k + s)] * cdf.back();
        const int64_t j = std::upper_bound(cdf.begin(), cdf.end(), x) - cdf.begin();
        out[r * k + s] = std::min(j, last);
      }
    }
    return;
  }
  // Without replacement: each category gets the key log(u) / p, and the k largest keys, in order,
  // are a draw of k categories one after another with the drawn ones removed (Efraimidis and
  // Spirakis, "Weighted random sampling with a reservoir", 2006).
  const std::vector<double> u = uniforms(rows * categories, g);
  std::vector<std::pair<double, int64_t>> keyed(static_cast<size_t>(categories));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < categories; ++j) {
      const double w = pd[r * categories + j];
      const double lg = random::log_f64(1.0 - u[static_cast<size_t>(r * categories + j)]);  // 1 - u is in (0, 1]
      keyed[static_cast<size_t>(j)] = {w > 0 ? lg / w : -std::numeric_limits<double>::infinity(), j};
    }
    std::partial_sort(keyed.begin(), keyed.begin() + k, keyed.end(),
                      [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
    for (int64_t s = 0; s < k; ++s) out[r * k + s] = keyed[static_cast<size_t>(s)].second;
  }
}

// ---- poisson and binomial: samplers that reject a variable number of times
//
// Note [Per-element streams]
// A rejection sampler draws as many uniforms as it needs, so the shared stream cannot be split
// among elements in advance. Each element instead gets a 64-bit key from the shared stream (one
// reservation, as any random operator makes) and draws from its own Philox stream under that key.
// An element's value then depends on its index and the reservation only: the same for every thread
// count, and the elements can run in parallel.
struct ElementStream {
  uint64_t key;
  uint64_t block = 0;
  random::Words w{};
  int used = 4;
  double uniform() {  // [0, 1), 53 bits
    if (used > 2) {
      w = random::philox(key, block++);
      used = 0;
    }
    const double u = random::uniform_double(w.w[used], w.w[used + 1]);
    used += 2;
    return u;
  }
};

// sample(i, stream) for each of the n elements of sizes, in parallel, as a cpu float64 tensor.
template <typename F>
Tensor sample_elements(IntArrayRef sizes, int64_t n, runtime::Generator& g, const F& sample) {
  std::vector<uint64_t> keys(static_cast<size_t>(n));
  random::fill<2>(keys.data(), n, g, [](uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint64_t* dst, int64_t) {
    dst[0] = uint64_t{b} << 32 | a;
    dst[1] = uint64_t{d} << 32 | c;
  });
  Tensor out = empty(sizes, DType::Float64, kCPU);
  double* values = out->data_as<double>();
  cpu::parallel_for(0, n, 256, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      ElementStream s{keys[static_cast<size_t>(i)]};
      values[i] = sample(i, s);
    }
  });
  return out;
}

// Poisson(lambda). Below 10, the product of uniforms against e^-lambda (Knuth); from 10, the
// transformed rejection with squeeze of Hormann ("The transformed rejection method for generating
// Poisson random variables", 1993), whose expected number of tries is near 1 for every lambda.
double sample_poisson(double lambda, ElementStream& s) {
  if (lambda == 0) return 0;
  // Logarithms are random::log_f64, plain arithmetic with the same bits on every machine (libm's may
  // differ in the last bit between CPUs, and an accept or reject could flip).
  if (lambda < 10) {  // the product of uniforms against e^-lambda, as a sum of their logs
    double k = 0;
    for (double u = s.uniform(), total = 0;; u = s.uniform(), ++k) {
      if (u == 0) return k;  // log(0) is -inf: the product is below any limit
      total += random::log_f64(u);
      if (total <= -lambda) return k;
    }
  }
  const double slam = std::sqrt(lambda), loglam = random::log_f64(lambda);
  const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const double u = s.uniform() - 0.5, v = s.uniform(), us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + lambda + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us) || v == 0) continue;
    if (random::log_f64(v) + random::log_f64(inv_alpha) - random::log_f64(a / (us * us) + b) <=
        -lambda + k * loglam - std::lgamma(k + 1))
      return k;
  }
}

// Binomial(n, p) for p <= 1/2 (the caller reflects larger p). Below a mean of 10, inversion by
// sequential search from 0; from 10, Hormann's transformed rejection BTRS ("The generation of
// binomial random variates", 1993).
double sample_binomial_low(double n, double p, ElementStream& s) {
  const double q = 1 - p;
  if (n * p < 10) {
    for (;;) {  // a rounding-starved search past n starts over
      const double ratio = p / q, a = (n + 1) * ratio;
      double r = std::pow(q, n), u = s.uniform(), x = 0;
      while (u > r && x <= n) {
        u -= r;
        ++x;
        r *= a / x - ratio;
      }
      if (x <= n) return x;
    }
  }
  const double spq = std::sqrt(n * p * q), b = 1.15 + 2.53 * spq, a = -0.0873 + 0.0248 * b + 0.01 * p;
  const double c = n * p + 0.5, vr = 0.92 - 4.2 / b, alpha = (2.83 + 5.1 / b) * spq, lpq = random::log_f64(p / q);
  const double m = std::floor((n + 1) * p), h = std::lgamma(m + 1) + std::lgamma(n - m + 1);
  for (;;) {
    const double u = s.uniform() - 0.5, v = s.uniform(), us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + c);
    if (k < 0 || k > n) continue;
    if (us >= 0.07 && v <= vr) return k;
    if (v == 0) continue;
    if (random::log_f64(v * alpha / (a / (us * us) + b)) <=
        h - std::lgamma(k + 1) - std::lgamma(n - k + 1) + (k - m) * lpq)
      return k;
  }
}

double sample_binomial(double n, double p, ElementStream& s) {
  if (n == 0 || p == 0) return 0;
  if (p == 1) return n;
  return p <= 0.5 ? sample_binomial_low(n, p, s) : n - sample_binomial_low(n, 1 - p, s);
}

// poisson(Tensor self, *, Generator? generator=None) -> Tensor
void poisson_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& rates = f.tensor(0);
  CT_CHECK(is_floating(rates.dtype()), CT_ERROR_DTYPE, "poisson: the rates must be floating, got ", rates.dtype(),
           " (sizes ", rates.sym_sizes(), "). Convert them with to(float32)");
  set_output(m, 0, rates.sym_sizes(), rates.dtype(), rates.device());
}

void poisson_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const Tensor rates = to(expect_contiguous(Tensor::borrow(&f.tensor(0))), DType::Float64);
  const double* r = rates->data_as<double>();
  const int64_t n = rates->numel();
  for (int64_t i = 0; i < n; ++i)
    CT_CHECK(std::isfinite(r[i]) && r[i] >= 0, CT_ERROR_INVALID_ARGUMENT, "poisson: rate ", r[i], " at flat index ", i,
             " is negative or not finite. Pass finite rates >= 0");
  copy_(outs[0], sample_elements(rates->sizes(), n, random_generator(f.arg(1), outs[0]->device()),
                                  [r](int64_t i, ElementStream& s) { return sample_poisson(r[i], s); }));
}

// binomial(Tensor count, Tensor prob, Generator? generator=None) -> Tensor
void binomial_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& count = f.tensor(0);
  const TensorImpl& prob = f.tensor(1);
  CT_CHECK(is_floating(count.dtype()) && count.dtype() == prob.dtype(), CT_ERROR_DTYPE,
           "binomial: count and prob must be of one floating dtype, got ", count.dtype(), " and ", prob.dtype(),
           ". Convert them with to()");
  set_output(m, 0, broadcast_shapes("binomial", count.sym_sizes(), prob.sym_sizes()).ref(), count.dtype(),
             common_device(f));
}

void binomial_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const IntArrayRef sizes = outs[0]->sizes();
  const Tensor count = to(contiguous(expand(Tensor::borrow(&f.tensor(0)), sizes)), DType::Float64);
  const Tensor prob = to(contiguous(expand(Tensor::borrow(&f.tensor(1)), sizes)), DType::Float64);
  const double *c = count->data_as<double>(), *p = prob->data_as<double>();
  const int64_t n = outs[0]->numel();
  for (int64_t i = 0; i < n; ++i) {
    CT_CHECK(std::isfinite(c[i]) && c[i] >= 0 && c[i] == std::floor(c[i]), CT_ERROR_INVALID_ARGUMENT,
             "binomial: count ", c[i], " at flat index ", i, " is not a whole number >= 0");
    CT_CHECK(p[i] >= 0 && p[i] <= 1, CT_ERROR_INVALID_ARGUMENT, "binomial: probability ", p[i], " at flat index ", i,
             " is outside [0, 1]");
  }
  copy_(outs[0], sample_elements(sizes, n, random_generator(f.arg(2), outs[0]->device()),
                                  [c, p](int64_t i, ElementStream& s) { return sample_binomial(c[i], p[i], s); }));
}

// ---- dropout(Tensor input, float p, bool train, *, Generator? generator=None)

// Zeroes each element with probability p and scales the rest by 1 / (1 - p), so the expectation
// is unchanged; a composite of bernoulli_ and mul, whose derivatives give dropout's.
void dropout_kernel(void*, Frame& f) {
  const Tensor input = Tensor::borrow(&f.tensor(0));
  const double p = f.arg(1).to_double();
  CT_CHECK(p >= 0 && p <= 1, CT_ERROR_INVALID_ARGUMENT, "dropout: p is ", p, ". Pass a probability in [0, 1]");
  // p == 0 keeps every element: the input itself, as torch's CPU dropout returns it (and no
  // numbers drawn, so the generator's stream is as if dropout were not there).
  if (!f.arg(2).to_bool() || p == 0) {
    f.outs[0] = input;
    return;
  }
  CT_CHECK(is_floating(input->dtype()), CT_ERROR_DTYPE, "dropout: input is ", input->dtype(), " (sizes ",
           input->sym_sizes(), "). Dropout scales by 1 / (1 - p), so it needs a floating tensor");
  if (p == 1) {
    f.outs[0] = mul(input, Scalar(0.0));
    return;
  }
  Tensor mask = empty_like_sizes(*input, input->dtype());
  bernoulli_(mask, 1.0 - p, f.arg(3).generator());
  f.outs[0] = mul(mul(input, mask), Scalar(1.0 / (1.0 - p)));
}

}  // namespace

void define_sampling(Registry& r) {
  r.def("randperm(int n, *, Generator? generator=None, ScalarType? dtype=None, Device? device=None) -> Tensor")
      .meta(randperm_meta)
      .device_arg(3)
      .compute(DispatchKey::CPU, randperm_cpu, Determinism::Bitwise)
      .not_differentiable();
  r.def("multinomial(Tensor self, int num_samples, bool replacement=False, *, Generator? generator=None) -> Tensor")
      .meta(multinomial_meta)
      .compute(DispatchKey::CPU, multinomial_cpu, Determinism::Bitwise)
      .not_differentiable();
  r.def("dropout(Tensor input, float p, bool train, *, Generator? generator=None) -> Tensor").composite(dropout_kernel);
  // The drawn counts do not move with the rates: no gradient flows back, as in torch.
  r.def("poisson(Tensor self, Generator? generator=None) -> Tensor")
      .meta(poisson_meta)
      .compute(DispatchKey::CPU, poisson_cpu, Determinism::Bitwise)
      .not_differentiable();
  r.def("binomial(Tensor count, Tensor prob, Generator? generator=None) -> Tensor")
      .meta(binomial_meta)
      .compute(DispatchKey::CPU, binomial_cpu, Determinism::Bitwise)
      .not_differentiable();
}

}  // namespace ct::ops
