// Numerical gradient checks of every differentiable operator (DESIGN §6): each case compares the
// derivatives autograd computes with central differences in double precision, first and second
// order, on contiguous and on non-contiguous inputs. A registered operator with a derivative but
// no case here fails the suite.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "autograd/meta.h"
#include "dispatch/dispatcher.h"
#include "dispatch/registry.h"
#include "ops/functions.h"
#include "runtime/generator.h"

namespace {

using namespace ct;
using Inputs = std::vector<Tensor>;

Tensor op(const char* name, std::initializer_list<Value> args) { return call(builtin_op(name), args); }

// One generator, seeded afresh for every random operator call of a case.
runtime::Generator* seeded_generator() {
  static runtime::Generator g(kCPU);
  g.manual_seed(7);
  return &g;
}

// Element `linear` (row-major numbering) of a float64 tensor of any strides.
double& at(const Tensor& t, int64_t linear) {
  int64_t offset = 0;
  for (size_t d = t->dim(); d-- > 0;) {
    offset += (linear % t->size(d)) * t->stride(d);
    linear /= t->size(d);
  }
  return t->data_as<double>()[offset];
}

struct Input {
  std::vector<int64_t> sizes;
  double lo = -1, hi = 1;
  std::vector<double> values = {};  // fixed values instead of random ones
};

struct Case {
  std::vector<std::string> ops;  // the operators this case covers
  std::vector<Input> inputs;
  std::function<Tensor(const Inputs&)> f;
  bool second_order = true;  // false where the function is not twice differentiable at the inputs
  double eps = 1e-6, tol = 1e-5;
};

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
  return ops::reduce("sum", ops::mul(out, weights), {}, false);
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

void gradcheck(const Case& c, bool non_contiguous) {
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

Tensor copy_of(const Tensor& a) { return ops::mul(a, Scalar(1.0)); }  // a non-leaf to change in place

std::vector<Case> cases() {
  const Input m{{2, 3}}, row{{3}}, pos{{2, 3}, 0.5, 2.0}, pos_row{{3}, 0.5, 2.0}, cube{{2, 3, 4}};
  std::vector<Case> cs = {
      {{"add.Tensor"}, {m, row}, [](const Inputs& x) { return op("add.Tensor", {x[0], x[1], 2.0}); }},
      {{"add.Scalar"}, {m}, [](const Inputs& x) { return op("add.Scalar", {x[0], 1.5, 2.0}); }},
      {{"add_.Tensor", "add_.Scalar"}, {m, row}, [](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("add_.Tensor", {c, x[1], 3.0});
         op("add_.Scalar", {c, 1.0, 1});
         return c;
       }},
      {{"sub.Tensor"}, {m, row}, [](const Inputs& x) { return op("sub.Tensor", {x[0], x[1], 2.0}); }},
      {{"sub.Scalar"}, {m}, [](const Inputs& x) { return op("sub.Scalar", {x[0], 1.5, 1}); }},
      {{"rsub.Scalar"}, {m}, [](const Inputs& x) { return op("rsub.Scalar", {x[0], 2.0, 3.0}); }},
      {{"sub_.Tensor", "sub_.Scalar"}, {m, row}, [](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("sub_.Tensor", {c, x[1], 1});
         op("sub_.Scalar", {c, 0.5, 1});
         return c;
       }},
      {{"mul.Tensor"}, {m, row}, [](const Inputs& x) { return op("mul.Tensor", {x[0], x[1]}); }},
      {{"mul.Scalar"}, {m}, [](const Inputs& x) { return op("mul.Scalar", {x[0], -2.5}); }},
      {{"mul_.Tensor", "mul_.Scalar"}, {m, row}, [](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("mul_.Tensor", {c, x[1]});  // saves self: autograd keeps its value from before
         op("mul_.Scalar", {c, 3.0});
         return c;
       }},
      {{"div.Tensor"}, {m, pos_row}, [](const Inputs& x) { return op("div.Tensor", {x[0], x[1]}); }},
      {{"div.Scalar"}, {m}, [](const Inputs& x) { return op("div.Scalar", {x[0], 4.0}); }},
      {{"div_.Tensor", "div_.Scalar"}, {m, pos_row}, [](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("div_.Tensor", {c, x[1]});
         op("div_.Scalar", {c, 2.0});
         return c;
       }},
      {{"pow.Tensor"}, {pos, row}, [](const Inputs& x) { return op("pow.Tensor", {x[0], x[1]}); }},
      {{"pow.Scalar"}, {m}, [](const Inputs& x) { return op("pow.Scalar", {x[0], 3}); }},
      {{"maximum.Tensor"}, {m, row}, [](const Inputs& x) { return op("maximum.Tensor", {x[0], x[1]}); }},
      {{"maximum.Scalar"}, {m}, [](const Inputs& x) { return op("maximum.Scalar", {x[0], 0.1}); }},
      {{"minimum.Tensor"}, {m, row}, [](const Inputs& x) { return op("minimum.Tensor", {x[0], x[1]}); }},
      {{"minimum.Scalar"}, {m}, [](const Inputs& x) { return op("minimum.Scalar", {x[0], 0.1}); }},
      {{"neg"}, {m}, [](const Inputs& x) { return op("neg", {x[0]}); }},
      {{"abs"}, {m}, [](const Inputs& x) { return op("abs", {x[0]}); }},
      {{"relu"}, {m}, [](const Inputs& x) { return op("relu", {x[0]}); }},
      {{"exp"}, {m}, [](const Inputs& x) { return op("exp", {x[0]}); }},
      {{"log"}, {pos}, [](const Inputs& x) { return op("log", {x[0]}); }},
      {{"sqrt"}, {pos}, [](const Inputs& x) { return op("sqrt", {x[0]}); }},
      {{"rsqrt"}, {pos}, [](const Inputs& x) { return op("rsqrt", {x[0]}); }},
      {{"sin"}, {m}, [](const Inputs& x) { return op("sin", {x[0]}); }},
      {{"cos"}, {m}, [](const Inputs& x) { return op("cos", {x[0]}); }},
      {{"tanh"}, {m}, [](const Inputs& x) { return op("tanh", {x[0]}); }},
      {{"sigmoid"}, {m}, [](const Inputs& x) { return op("sigmoid", {x[0]}); }},
      {{"reciprocal"}, {pos}, [](const Inputs& x) { return op("reciprocal", {x[0]}); }},
      {{"where.self"}, {m, row}, [](const Inputs& x) {
         const double pattern[6] = {1, -1, 1, 1, -1, -1};
         Tensor p = ops::empty({2, 3}, DType::Float64, kCPU);
         for (int i = 0; i < 6; ++i) p->data_as<double>()[i] = pattern[i];
         return op("where.self", {op("gt.Scalar", {p, 0}), x[0], x[1]});
       }},
      {{"clamp"}, {m}, [](const Inputs& x) {
         return ops::add(op("clamp", {x[0], -0.5, 0.5}), op("clamp", {x[0], 0.2, Value()}));
       }},
      {{"copy_"}, {m, row}, [](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("copy_", {c, x[1]});  // broadcasts x[1] over c; x[0]'s values are overwritten
         return ops::mul(c, c);
       }},
      // Random operators draw from a generator reseeded on every evaluation, so the numerical
      // derivative sees one fixed mask. Values drawn in place, and bernoulli's samples, do not
      // depend on the input's values: their gradient is zero both ways.
      {{"dropout", "bernoulli_.float"}, {m}, [](const Inputs& x) {
         return op("dropout", {x[0], 0.4, true, Value(seeded_generator())});
       }},
      {{"uniform_", "normal_", "bernoulli", "bernoulli.p"}, {m, m}, [](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("uniform_", {c, -1.0, 1.0, Value(seeded_generator())});
         Tensor d = copy_of(x[0]);
         op("normal_", {d, 0.0, 1.0, Value(seeded_generator())});
         Tensor p = op("sigmoid", {x[1]});
         Tensor b = ops::add(op("bernoulli", {p, Value(seeded_generator())}), op("bernoulli.p", {p, 0.3, Value(seeded_generator())}));
         return ops::add(ops::mul(ops::add(c, d), x[1]), ops::mul(b, x[0]));
       }},
      {{"to.dtype"}, {m}, [](const Inputs& x) {
         return ops::to(ops::mul(ops::to(x[0], DType::Float32), Scalar(3.0)), DType::Float64);
       }, true, 1e-3, 1e-3},
      {{"contiguous", "clone"}, {m}, [](const Inputs& x) {
         return ops::mul(ops::contiguous(ops::transpose(x[0], 0, 1)), ops::clone(ops::transpose(x[0], 0, 1)));
       }},
      {{"view"}, {m}, [](const Inputs& x) { return op("view", {ops::contiguous(x[0]), IntArrayRef{3, 2}}); }},
      {{"reshape"}, {m}, [](const Inputs& x) {
         return ops::mul(op("reshape", {ops::transpose(x[0], 0, 1), IntArrayRef{6}}), op("reshape", {x[0], IntArrayRef{6}}));
       }},
      {{"permute"}, {cube}, [](const Inputs& x) { return op("permute", {x[0], IntArrayRef{2, 0, -2}}); }},
      {{"transpose.int"}, {m}, [](const Inputs& x) { return op("transpose.int", {x[0], 0, -1}); }},
      {{"expand"}, {{{3, 1}}}, [](const Inputs& x) { return op("expand", {x[0], IntArrayRef{2, 3, 4}}); }},
      {{"squeeze"}, {{{1, 3, 1}}}, [](const Inputs& x) { return op("squeeze", {x[0]}); }},
      {{"squeeze.dim"}, {{{2, 1, 3}}}, [](const Inputs& x) { return op("squeeze.dim", {x[0], -2}); }},
      {{"unsqueeze"}, {m}, [](const Inputs& x) { return op("unsqueeze", {x[0], 1}); }},
      {{"narrow"}, {cube}, [](const Inputs& x) { return op("narrow", {x[0], 1, -2, 2}); }},
      {{"select.int"}, {cube}, [](const Inputs& x) { return op("select.int", {x[0], 2, -1}); }},
      {{"slice.Tensor"}, {{{2, 7}}}, [](const Inputs& x) {
         return ops::add(op("slice.Tensor", {x[0], 1, 1, 6, 2}), op("slice.Tensor", {x[0], -1, Value(), 3, 1}));
       }},
      {{"flatten.using_ints"}, {cube}, [](const Inputs& x) { return op("flatten.using_ints", {x[0], 1, 2}); }},
      {{"cat"}, {m, {{2, 2}}}, [](const Inputs& x) {
         const TensorImpl* parts[3] = {x[0].impl(), x[1].impl(), x[0].impl()};
         return op("cat", {ArrayRef<const TensorImpl*>(parts, 3), -1});
       }},
      {{"stack"}, {m, m}, [](const Inputs& x) {
         const TensorImpl* parts[2] = {x[0].impl(), x[1].impl()};
         return op("stack", {ArrayRef<const TensorImpl*>(parts, 2), 1});
       }},
      {{"sum.dim_IntList"}, {cube}, [](const Inputs& x) {
         return ops::add(op("sum.dim_IntList", {x[0], IntArrayRef{0, 2}, false}), op("sum.dim_IntList", {x[0], Value(), false}));
       }},
      {{"mean.dim_IntList"}, {cube}, [](const Inputs& x) { return op("mean.dim_IntList", {x[0], IntArrayRef{1}, true}); }},
      {{"prod.dim_IntList"}, {{{2, 3}, 0.5, 1.5}}, [](const Inputs& x) {
         return ops::add(op("prod.dim_IntList", {x[0], IntArrayRef{1}, false}), op("prod.dim_IntList", {x[0], Value(), false}));
       }},
      // Zeros: one zero in row 0 (its entry gets the product of the rest), two in row 1 (all get 0).
      // The second derivative of prod is not reproduced at zeros.
      {{"prod.dim_IntList"}, {{{2, 3}, 0, 0, {0, 2, 3, 1, 0, 0}}}, [](const Inputs& x) {
         return op("prod.dim_IntList", {x[0], IntArrayRef{1}, false});
       }, false},
      {{"amax.dim_IntList"}, {cube}, [](const Inputs& x) { return op("amax.dim_IntList", {x[0], IntArrayRef{1}, false}); }},
      {{"amin.dim_IntList"}, {cube}, [](const Inputs& x) { return op("amin.dim_IntList", {x[0], IntArrayRef{0, 2}, true}); }},
      {{"mm"}, {m, {{3, 4}}}, [](const Inputs& x) { return op("mm", {x[0], x[1]}); }},
      {{"bmm"}, {{{2, 2, 3}}, {{2, 3, 2}}}, [](const Inputs& x) { return op("bmm", {x[0], x[1]}); }},
      {{"addmm"}, {{{4}}, m, {{3, 4}}}, [](const Inputs& x) { return op("addmm", {x[0], x[1], x[2], 0.5, 2.0}); }},
      {{"matmul"}, {{{2, 2, 3}}, {{3, 2}}, row}, [](const Inputs& x) {
         return ops::add(op("matmul", {x[0], x[1]}), ops::unsqueeze(op("matmul", {x[0], x[2]}), -1));
       }},
  };
  return cs;
}

class GradCheck : public ::testing::TestWithParam<size_t> {};

TEST_P(GradCheck, MatchesCentralDifferences) {
  const Case c = cases()[GetParam()];
  gradcheck(c, false);
  gradcheck(c, true);
}

INSTANTIATE_TEST_SUITE_P(EveryOperator, GradCheck, ::testing::Range<size_t>(0, cases().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           std::string n = cases()[info.param].ops[0] + "_" + std::to_string(info.param);
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

TEST(GradCheckCoverage, EveryDifferentiableOperatorHasACase) {
  std::set<std::string> covered;
  for (const Case& c : cases()) covered.insert(c.ops.begin(), c.ops.end());
  for (const OperatorDef* op : Registry::get().all()) {
    if (!op->builtin) continue;
    const Derivative& d = op->functional ? op->functional->derivative : op->derivative;
    if (d.kind == Differentiability::None) continue;
    EXPECT_TRUE(covered.count(op->full_name)) << op->full_name << " is differentiable ("
                                              << differentiability_name(d.kind)
                                              << ") but has no gradcheck case";
  }
}

}  // namespace
