// reduce.cpp - gradcheck cases of the statistics, extrema, norms, scans, sorting and selection
// operators, of the two index operators their derivatives are written with, and of fill_.
#include <limits>

#include "gradcheck.h"

namespace ct::gradcheck {
namespace {

// Both results of a two-result operator, combined so that both gradients are checked; for
// (values, indices) results only the values (the indices carry no gradient).
Tensor both(const char* name, std::initializer_list<Value> args) {
  Tensor outs[2];
  dispatch(builtin_op(name), args.begin(), args.size(), outs, 2);
  if (!is_floating(outs[1]->dtype())) return outs[0];
  return ops::add(outs[0], ops::mul(outs[1], Scalar(3.0)));
}

Tensor sum_all(const Tensor& t) { return ops::sum(t, {}, false); }

std::vector<Case> reduce_cases() {
  const Input m{{3, 4}}, cube{{2, 3, 4}}, scalar{{}};
  std::vector<Case> cs = {
      {{"quantile", "quantile.scalar", "nanquantile", "nanquantile.scalar"}, {m}, [](const Inputs& x) {
         const Tensor q = ops::full({3}, Scalar(0.4), DType::Float64, kCPU);
         const Tensor a = op("quantile", {x[0], q, 1, false, "linear"});
         const Tensor b = op("quantile.scalar", {x[0], 0.7, Value(), false, "midpoint"});
         const Tensor c = op("nanquantile", {x[0], q, 0, true, "linear"});
         const Tensor d = op("nanquantile.scalar", {x[0], 0.25, 1, false, "lower"});
         return ops::add(ops::add(ops::sum(a), b), ops::add(ops::sum(c), ops::sum(d)));
       }},
      {{"cov"}, {m, {{4}, 0.5, 2.0}}, [](const Inputs& x) {
         return ops::add(op("cov", {x[0], 1, Value(), Value()}), op("cov", {x[0], 0, Value(), x[1]}));
       }},
      {{"corrcoef"}, {m}, [](const Inputs& x) { return op("corrcoef", {x[0]}); }},
      {{"logcumsumexp"}, {{{2, 3, 4}}}, [](const Inputs& x) {
         return ops::add(op("logcumsumexp", {x[0], 1}), op("logcumsumexp", {x[0], -1}));
       }},
      {{"var.correction", "var.dim", "var"}, {cube}, [=](const Inputs& x) {
         return ops::add(ops::add(sum_all(op("var.correction", {x[0], IntArrayRef({0, 2}), Value(), false})),
                                  sum_all(op("var.dim", {x[0], IntArrayRef({1}), false, true}))),
                         op("var", {x[0], true}));
       }},
      {{"var.correction"}, {m}, [=](const Inputs& x) { return op("var.correction", {x[0], Value(), 0, false}); }},
      {{"std.correction", "std.dim", "std"}, {cube}, [=](const Inputs& x) {
         return ops::add(ops::add(op("std.correction", {x[0], IntArrayRef({0, 2}), 2, true}), op("std.dim", {x[0], IntArrayRef({1}), true, true})),
                         op("std", {x[0], false}));
       }},
      {{"var_mean.correction", "var_mean.dim", "var_mean"}, {cube}, [=](const Inputs& x) {
         return ops::add(both("var_mean.correction", {x[0], IntArrayRef({1}), 1, false}), both("var_mean", {x[0], true}));
       }},
      {{"std_mean.correction", "std_mean.dim", "std_mean"}, {cube}, [=](const Inputs& x) {
         return ops::add(sum_all(both("std_mean.correction", {x[0], IntArrayRef({0, 2}), 0, true})),
                         sum_all(both("std_mean.dim", {x[0], IntArrayRef({1}), false, false})));
       }},
      {{"logsumexp"}, {cube}, [=](const Inputs& x) {
         return ops::add(op("logsumexp", {x[0], IntArrayRef({1}), false}), sum_all(op("logsumexp", {x[0], IntArrayRef({0, 2}), true})));
       }},
      {{"logsumexp"}, {scalar}, [=](const Inputs& x) { return op("logsumexp", {x[0], IntArrayRef(), false}); }},
      {{"norm.Scalar", "norm.ScalarOpt_dim"}, {m}, [=](const Inputs& x) {
         return ops::add(ops::add(op("norm.Scalar", {x[0], 2}), op("norm.Scalar", {x[0], 3.0})),
                         sum_all(op("norm.ScalarOpt_dim", {x[0], 1, IntArrayRef({1}), false})));
       }},
      {{"norm.ScalarOpt_dim"}, {m}, [=](const Inputs& x) {
         return op("norm.ScalarOpt_dim", {x[0], std::numeric_limits<double>::infinity(), IntArrayRef({1}), true});
       }},
      {{"linalg_vector_norm"}, {cube}, [=](const Inputs& x) {
         return op("linalg_vector_norm", {x[0], 2, IntArrayRef({0, 2}), false, Value()});
       }},
      {{"linalg_vector_norm"}, {cube}, [=](const Inputs& x) {
         return ops::add(ops::add(sum_all(op("linalg_vector_norm", {x[0], 1, IntArrayRef({1}), true, Value()})),
                                  op("linalg_vector_norm", {x[0], 0.5, Value(), false, Value()})),
                         sum_all(op("linalg_vector_norm", {x[0], -std::numeric_limits<double>::infinity(), IntArrayRef({2}),
                                                           false, Value()})));
       }},
      {{"linalg_norm", "linalg_norm.ord_str"}, {m}, [=](const Inputs& x) {
         return ops::add(ops::add(op("linalg_norm", {x[0], Value(), Value(), false, Value()}),
                                  op("linalg_norm", {x[0], 1, Value(), false, Value()})),
                         op("linalg_norm.ord_str", {x[0], "fro", Value(), false, Value()}));
       }},
      {{"cumsum"}, {cube}, [=](const Inputs& x) { return op("cumsum", {x[0], 1, Value()}); }},
      {{"cumsum"}, {scalar}, [=](const Inputs& x) { return op("cumsum", {x[0], 0, Value()}); }},
      {{"cumprod"}, {Input{{2, 3, 4}, 0.5, 2.0}}, [=](const Inputs& x) { return op("cumprod", {x[0], -1, Value()}); }},
      // Zeros: the first of a row, and later ones. The first derivative is exact there; its own
      // derivative treats the gradient after a line's first zero as constant 0 (PyTorch's formula
      // for that part is exact), so only the first order is checked.
      {{"cumprod"}, {Input{{2, 5}, -1, 1, {1.5, 0, 2, 0, 0.5, -2, 0.75, 3, -0.5, 0}}}, [=](const Inputs& x) {
         return op("cumprod", {x[0], 1, Value()});
       }, false},
      {{"cummax"}, {cube}, [=](const Inputs& x) { return both("cummax", {x[0], 2}); }},
      {{"cummin"}, {cube}, [=](const Inputs& x) { return both("cummin", {x[0], 0}); }},
      {{"sort", "sort.stable"}, {cube}, [=](const Inputs& x) {
         return ops::add(both("sort", {x[0], 1, true}), both("sort.stable", {x[0], true, 1, false}));
       }},
      {{"sort"}, {scalar}, [=](const Inputs& x) { return both("sort", {x[0], -1, false}); }},
      {{"topk"}, {cube}, [=](const Inputs& x) { return both("topk", {x[0], 2, 2, true, true}); }},
      {{"topk"}, {m}, [=](const Inputs& x) { return both("topk", {x[0], 2, 0, false, true}); }},
      {{"kthvalue"}, {cube}, [=](const Inputs& x) { return both("kthvalue", {x[0], 2, 1, false}); }},
      {{"kthvalue"}, {m}, [=](const Inputs& x) { return both("kthvalue", {x[0], 3, -1, true}); }},
      {{"median"}, {m}, [=](const Inputs& x) { return op("median", {x[0]}); }},
      {{"median.dim"}, {cube}, [=](const Inputs& x) { return both("median.dim", {x[0], 1, true}); }},
      {{"nanmedian"}, {m}, [=](const Inputs& x) { return op("nanmedian", {x[0]}); }},
      {{"nanmedian.dim"}, {cube}, [=](const Inputs& x) { return both("nanmedian.dim", {x[0], 2, false}); }},
      {{"msort"}, {m}, [=](const Inputs& x) { return op("msort", {x[0]}); }},
      {{"mode"}, {cube}, [=](const Inputs& x) { return both("mode", {x[0], 2, false}); }},
      {{"max", "min"}, {m}, [=](const Inputs& x) { return ops::add(op("max", {x[0]}), op("min", {x[0]})); }},
      {{"max.dim", "min.dim"}, {cube}, [=](const Inputs& x) {
         return ops::add(sum_all(both("max.dim", {x[0], 1, false})), sum_all(both("min.dim", {x[0], -1, true})));
       }},
      {{"max.other", "min.other"}, {m, Input{{4}}}, [=](const Inputs& x) {
         return ops::add(op("max.other", {x[0], x[1]}), op("min.other", {x[0], x[1]}));
       }},
      {{"aminmax"}, {cube}, [=](const Inputs& x) {
         return ops::add(both("aminmax", {x[0], 1, true}), sum_all(both("aminmax", {x[0], Value(), false})));
       }},
      {{"nansum", "nanmean"}, {cube}, [=](const Inputs& x) {
         return ops::add(op("nansum", {x[0], IntArrayRef({0, 2}), false, Value()}),
                         sum_all(op("nanmean", {x[0], IntArrayRef({1}), true, Value()})));
       }},
      {{"fill_.Tensor"}, {m, scalar}, [=](const Inputs& x) { return ops::fill_(ops::mul(x[0], Scalar(2.0)), x[1]); }},
      // The overwritten values pass no gradient: only the path around the fill reaches x.
      {{"fill_.Scalar", "zero_"}, {m}, [=](const Inputs& x) {
         return ops::add(ops::add(ops::fill_(ops::mul(x[0], Scalar(2.0)), Scalar(3)), ops::zero_(ops::exp(x[0]))), x[0]);
       }},
  };
  return cs;
}

const GradCheckFamily family(reduce_cases);

}  // namespace
}  // namespace ct::gradcheck
