// gradcheck.h - what a gradcheck case is, shared by the per-family case files beside it.
//
// Each family file (core.cpp, pointwise.cpp, ...) defines its cases and registers them with one
// static GradCheckFamily object, so families are added without touching a central list;
// gradcheck_test.cpp runs every registered case and fails on a differentiable operator without one.
#pragma once

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "dispatch/dispatcher.h"
#include "dispatch/registry.h"
#include "ops/functions.h"
#include "runtime/generator.h"

namespace ct::gradcheck {

using Inputs = std::vector<Tensor>;

inline Tensor op(const char* name, std::initializer_list<Value> args) { return call(builtin_op(name), args); }

/// One generator, seeded afresh for every random operator call of a case.
inline runtime::Generator* seeded_generator() {
  static runtime::Generator g(kCPU);
  g.manual_seed(7);
  return &g;
}

/// A non-leaf with a's values, to change in place.
inline Tensor copy_of(const Tensor& a) { return ops::mul(a, Scalar(1.0)); }

/// A float64 leaf: random values in [lo, hi), or the given values.
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

/// Every registered case, in registration order.
std::vector<Case>& all_cases();

/// Registers a family's cases at static initialization (gtest reads them in main).
struct GradCheckFamily {
  explicit GradCheckFamily(std::vector<Case> (*cases)()) {
    for (Case& c : cases()) all_cases().push_back(std::move(c));
  }
};

}  // namespace ct::gradcheck
