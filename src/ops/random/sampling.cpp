// sampling.cpp - randperm, multinomial and dropout: operators that draw with the Philox stream
// and then order, search or mask.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "dispatch/dispatcher.h"
#include "ops/cpu/cast.h"
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

// ---- dropout(Tensor input, float p, bool train, *, Generator? generator=None)

// Zeroes each element with probability p and scales the rest by 1 / (1 - p), so the expectation
// is unchanged; a composite of bernoulli_ and mul, whose derivatives give dropout's.
void dropout_kernel(void*, Frame& f) {
  const Tensor input = Tensor::borrow(&f.tensor(0));
  const double p = f.arg(1).to_double();
  CT_CHECK(p >= 0 && p <= 1, CT_ERROR_INVALID_ARGUMENT, "dropout: p is ", p, ". Pass a probability in [0, 1]");
  if (!f.arg(2).to_bool()) {
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
}

}  // namespace ct::ops
