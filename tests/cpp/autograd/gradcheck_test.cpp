// Numerical gradient checks of every differentiable operator (DESIGN §6): each case compares the
// derivatives autograd computes with central differences in double precision, first and second
// order, on contiguous and on non-contiguous inputs. The cases live per operator family in
// gradcheck/; a registered operator with a derivative but no case there fails the suite.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "autograd/engine.h"
#include "dispatch/grad_mode.h"
#include "autograd/meta.h"
#include "dispatch/dispatcher.h"
#include "dispatch/registry.h"
#include "ops/functions.h"
#include "runtime/generator.h"
#include "gradcheck/gradcheck.h"

namespace ct::gradcheck {
std::vector<Case>& all_cases() {
  static std::vector<Case> cases;
  return cases;
}
}  // namespace ct::gradcheck

namespace {

using namespace ct;
using namespace ct::gradcheck;

// Element `linear` (row-major numbering) of a float64 tensor of any strides.
double& at(const Tensor& t, int64_t linear) {
  int64_t offset = 0;
  for (size_t d = t->dim(); d-- > 0;) {
    offset += (linear % t->size(d)) * t->stride(d);
    linear /= t->size(d);
  }
  return t->data_as<double>()[offset];
}

uint64_t rng_state = 0x9e3779b97f4a7c15ull;
double uniform(double lo, double hi) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return lo + (hi - lo) * static_cast<double>(rng_state >> 11) / static_cast<double>(1ull << 53);
}

Tensor random_like_sizes(IntArrayRef sizes) {
  Tensor t = ops::empty(sizes, DType::Float64, kCPU);
  for (int64_t i = 0; i < t->numel(); ++i) at(t, i) = uniform(-1, 1);
  return t;
}

// A leaf with the input's values; non_contiguous lays the same values out transposed (2+ dims) or
// every other element (1 dim).
Tensor make_leaf(const Input& in, bool non_contiguous) {
  Tensor t = ops::empty(in.sizes, DType::Float64, kCPU);
  for (int64_t i = 0; i < t->numel(); ++i) at(t, i) = in.values.empty() ? uniform(in.lo, in.hi) : in.values[i];
  if (non_contiguous && t->dim() >= 2) {
    t = ops::transpose(ops::contiguous(ops::transpose(t, -1, -2)), -1, -2);
  } else if (non_contiguous && t->dim() == 1 && t->numel() > 1) {
    Tensor wide = ops::zeros({2 * t->numel()}, DType::Float64, kCPU);
    Tensor strided = op("slice.Tensor", {wide, 0, Value(), Value(), 2});
    ops::copy_(strided, t);
    t = strided;
  }
  Tensor leaf = autograd::detach(*t);
  autograd::set_requires_grad(*leaf, true, "gradcheck");
  return leaf;
}

Tensor weighted_sum(const Tensor& out, const Tensor& weights) {
  return ops::sum(ops::mul(out, weights), {}, false);
}

// First derivatives of sum(f(x) * w) with respect to every input (zeros where unused).
Inputs first_grads(const Case& c, const Inputs& x, const Tensor& w, bool create_graph) {
  autograd::BackwardOptions o;
  o.create_graph = create_graph;
  o.retain_graph = create_graph;
  o.allow_unused = true;
  Inputs g = autograd::grad({weighted_sum(c.f(x), w)}, {}, x, o, "gradcheck");
  for (size_t i = 0; i < g.size(); ++i)
    if (!g[i].defined()) g[i] = ops::zeros(x[i]->sizes(), DType::Float64, kCPU);
  return g;
}

double no_grad_eval(const std::function<double()>& fn) {
  autograd::GradModeGuard g(autograd::GradMode::NoGrad);
  return fn();
}

// Compares analytic[i] with central differences of scalar(x) for every element of every input.
void expect_matches_differences(const Case& c, const Inputs& x, const Inputs& analytic,
                                const std::function<double()>& scalar, const char* order) {
  for (size_t i = 0; i < x.size(); ++i) {
    for (int64_t j = 0; j < x[i]->numel(); ++j) {
      double& v = at(x[i], j);
      const double saved = v;
      v = saved + c.eps;
      const double up = scalar();
      v = saved - c.eps;
      const double down = scalar();
      v = saved;
      const double numeric = (up - down) / (2 * c.eps);
      const double got = at(analytic[i], j);
      EXPECT_NEAR(got, numeric, c.tol + 1e-3 * std::fabs(numeric))
          << c.ops[0] << ": " << order << " derivative, input " << i << " element " << j;
    }
  }
}

void check_case(const Case& c, bool non_contiguous) {
  Inputs x;
  for (const Input& in : c.inputs) x.push_back(make_leaf(in, non_contiguous));
  Tensor out = c.f(x);
  ASSERT_TRUE(out->requires_grad()) << c.ops[0] << ": the result does not require grad";
  const Tensor w = random_like_sizes(out->sizes());
  const Inputs g = first_grads(c, x, w, true);
  for (size_t i = 0; i < g.size(); ++i)
    ASSERT_TRUE(g[i]->sizes().equals(x[i]->sizes())) << c.ops[0] << ": gradient of input " << i << " has sizes "
                                                     << g[i]->sizes();
  expect_matches_differences(c, x, g, [&] { return no_grad_eval([&] { return weighted_sum(c.f(x), w)->data_as<double>()[0]; }); },
                             "first");
  if (!c.second_order) return;
  // Second order: the derivatives of sum_i sum(grad_i * v_i), through the recorded backward.
  Inputs v;
  for (const Tensor& gi : g) v.push_back(random_like_sizes(gi->sizes()));
  auto second_scalar = [&](const Inputs& grads) {
    Tensor s = ops::zeros({}, DType::Float64, kCPU);
    for (size_t i = 0; i < grads.size(); ++i) s = ops::add(s, weighted_sum(grads[i], v[i]));
    return s;
  };
  Tensor s = second_scalar(g);
  Inputs gg;
  if (s->requires_grad()) {
    autograd::BackwardOptions o;
    o.allow_unused = true;
    gg = autograd::grad({s}, {}, x, o, "gradcheck");
  }
  gg.resize(x.size());
  for (size_t i = 0; i < gg.size(); ++i)
    if (!gg[i].defined()) gg[i] = ops::zeros(x[i]->sizes(), DType::Float64, kCPU);
  expect_matches_differences(c, x, gg, [&] { return second_scalar(first_grads(c, x, w, false))->data_as<double>()[0]; },
                             "second");
}

class GradCheck : public ::testing::TestWithParam<size_t> {};

TEST_P(GradCheck, MatchesCentralDifferences) {
  const Case c = all_cases()[GetParam()];
  check_case(c, false);
  check_case(c, true);
}

INSTANTIATE_TEST_SUITE_P(EveryOperator, GradCheck, ::testing::Range<size_t>(0, all_cases().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           std::string n = all_cases()[info.param].ops[0] + "_" + std::to_string(info.param);
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

// Operators torch defines no derivative for either: an input that requires grad is refused with
// CT_ERROR_NOT_IMPLEMENTED (Differentiability::Missing, or a composite over such an operator), as
// torch's backward refuses it.
const std::set<std::string> kNoDerivativeAsInTorch = {"geqrf", "linalg_ldl_factor_ex", "linalg_ldl_factor",
                                                      "linalg_ldl_solve"};

TEST(GradCheckCoverage, EveryDifferentiableOperatorHasACase) {
  std::set<std::string> covered;
  for (const Case& c : all_cases()) covered.insert(c.ops.begin(), c.ops.end());
  for (const OperatorDef* op : Registry::get().all()) {
    if (!op->builtin || op->alias_of) continue;  // an alias runs its target's kernels, which its cases check
    const Derivative& d = op->functional ? op->functional->derivative : op->derivative;
    if (d.kind == Differentiability::None) continue;
    if (kNoDerivativeAsInTorch.count(op->full_name)) continue;
    EXPECT_TRUE(covered.count(op->full_name)) << op->full_name << " is differentiable ("
                                              << differentiability_name(d.kind)
                                              << ") but has no gradcheck case";
  }
}

}  // namespace
