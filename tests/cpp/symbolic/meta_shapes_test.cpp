// Operators' meta functions with symbolic sizes: each case runs once on meta tensors whose sizes
// are expressions of two symbols, then for several bindings on real CPU tensors of the bound sizes,
// and the symbolic output sizes, evaluated under each binding that satisfies the recorded guards,
// must equal the real ones.
#include <gtest/gtest.h>

#include <functional>

#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "symbolic/shape_env.h"

using namespace ct;

namespace {

// Calls a registered overload with the given leading arguments; the rest take their defaults.
std::vector<Tensor> run(const char* full_name, std::vector<Value> given, size_t nouts = 1) {
  const OperatorDef* op = Registry::get().find(full_name);
  if (!op) throw std::runtime_error(std::string("no operator ") + full_name);
  std::vector<Value> args = given;
  for (size_t i = given.size(); i < op->schema.args.size(); ++i) {
    const Argument& a = op->schema.args[i];
    args.push_back(a.has_default ? a.default_value.as_value() : Value());
  }
  std::vector<Tensor> outs(nouts);
  dispatch(*op, args.data(), args.size(), outs.data(), nouts);
  return outs;
}

using Syms = std::vector<SymInt>;
struct Input {
  std::function<SymDimVector(const Syms&)> shape;  // the same rule for symbols and for their values
  DType dtype = DType::Float32;
};
using Body = std::function<Tensor(const std::vector<Tensor>&, const Syms&)>;

// Runs body on meta inputs over symbols s0 in [2, 64] (hint 8) and s1 in [1, 16] (hint 3), then on
// CPU inputs for every binding; returns the symbolic output's sizes as text.
std::string check(const std::vector<Input>& inputs, const Body& body) {
  sym::ShapeEnv* env = sym::ShapeEnv::create();
  const Syms syms = {SymInt(env->create_symbol(8, 2, 64)), SymInt(env->create_symbol(3, 1, 16))};
  std::vector<Tensor> metas;
  for (const Input& in : inputs)
    metas.push_back(Tensor::adopt(TensorImpl::empty_sym(in.shape(syms), in.dtype, kMeta, env)));
  const Tensor out = body(metas, syms);
  const SymDimVector sym_sizes(out->sym_sizes());
  const std::string text = str(sym_sizes.ref());
  int compared = 0;
  for (auto [v0, v1] : {std::pair<int64_t, int64_t>{8, 3}, {2, 1}, {13, 7}, {64, 16}, {5, 5}}) {
    const std::vector<sym::BoundValue> b = {sym::BoundValue{v0}, sym::BoundValue{v1}};
    if (env->first_failing_guard(b) != -1) continue;  // the traced shape rule does not cover it
    const Syms values = {SymInt(v0), SymInt(v1)};
    std::vector<Tensor> reals;
    for (const Input& in : inputs) reals.push_back(ops::zeros(as_ints(in.shape(values).ref()), in.dtype, kCPU));
    const Tensor real = body(reals, values);
    EXPECT_EQ(real->dim(), sym_sizes.size()) << text;
    for (size_t d = 0; d < sym_sizes.size() && d < real->dim(); ++d) {
      const int64_t want = sym_sizes[d].is_symbolic() ? env->eval_int(sym_sizes[d].node(), b) : sym_sizes[d].raw();
      EXPECT_EQ(real->size(d), want) << text << " dim " << d << " at s0=" << v0 << ", s1=" << v1;
    }
    ++compared;
  }
  EXPECT_GE(compared, 1) << "no binding satisfied the guards, not even the hints: " << env->to_json();
  env->release();
  return text;
}

Input shape(std::function<SymDimVector(const Syms&)> f, DType d = DType::Float32) { return {std::move(f), d}; }

}  // namespace

TEST(SymbolicMeta, ElementwiseBroadcastsSymbolicDims) {
  EXPECT_EQ(check({shape([](const Syms& s) { return SymDimVector{s[0], 1, 5}; }),
                   shape([](const Syms& s) { return SymDimVector{s[1], 5}; })},
                  [](auto& t, auto&) { return ops::add(ops::exp(t[0]), t[1]); }),
            "[s0, s1, 5]");
}

TEST(SymbolicMeta, ReductionsKeepOrDropSymbolicDims) {
  EXPECT_EQ(check({shape([](const Syms& s) { return SymDimVector{s[0], 7, s[1]}; })},
                  [](auto& t, auto&) { return ops::sum(t[0], {1}, true); }),
            "[s0, 1, s1]");
  EXPECT_EQ(check({shape([](const Syms& s) { return SymDimVector{s[0], 7, s[1]}; })},
                  [](auto& t, auto&) { return ops::mean(t[0], {0, 2}, false); }),
            "[7]");
}

TEST(SymbolicMeta, ReshapeInfersTheMinusOneDim) {
  EXPECT_EQ(check({shape([](const Syms& s) { return SymDimVector{s[0], 8}; })},
                  [](auto& t, auto&) { return ops::reshape(t[0], {-1, 4}); }),
            "[2*s0, 4]");
  EXPECT_EQ(check({shape([](const Syms& s) { return SymDimVector{s[0], s[1], 3}; })},
                  [](auto& t, auto&) { return ops::flatten(t[0], 0, 1); }),
            "[s0*s1, 3]");
}

TEST(SymbolicMeta, ViewsPermuteAndInsertDims) {
  EXPECT_EQ(check({shape([](const Syms& s) { return SymDimVector{s[0], 4, s[1]}; })},
                  [](auto& t, auto&) { return ops::unsqueeze(ops::transpose(t[0], 0, 2), 1); }),
            "[s1, 1, 4, s0]");
  EXPECT_EQ(check({shape([](const Syms& s) { return SymDimVector{s[0], 1, 6}; })},
                  [](auto& t, auto& s) { return ops::expand_symint(t[0], {s[0], s[1], 6}); }),
            "[s0, s1, 6]");
}

TEST(SymbolicMeta, CatSumsTheConcatenatedDim) {
  EXPECT_EQ(check({shape([](const Syms& s) { return SymDimVector{s[0], 3}; }),
                   shape([](const Syms& s) { return SymDimVector{s[1], 3}; })},
                  [](auto& t, auto&) {
                    const TensorImpl* parts[2] = {t[0].impl(), t[1].impl()};
                    return ops::cat(ArrayRef<const TensorImpl*>(parts, 2), 0);
                  }),
            "[s0 + s1, 3]");
}

TEST(SymbolicMeta, LinearAndMatmulCarryTheBatch) {
  EXPECT_EQ(check({shape([](const Syms& s) { return SymDimVector{s[0], 100}; }),
                   shape([](const Syms&) { return SymDimVector{50, 100}; }),
                   shape([](const Syms&) { return SymDimVector{50}; })},
                  [](auto& t, auto&) { return run("linear", {t[0], t[1], t[2]})[0]; }),
            "[s0, 50]");
  EXPECT_EQ(check({shape([](const Syms& s) { return SymDimVector{s[0], s[1], 6}; }),
                   shape([](const Syms&) { return SymDimVector{6, 5}; })},
                  [](auto& t, auto&) { return ops::matmul(t[0], t[1]); }),
            "[s0, s1, 5]");
  EXPECT_EQ(check({shape([](const Syms& s) { return SymDimVector{s[0], 4, 6}; }),
                   shape([](const Syms& s) { return SymDimVector{s[0], 6, s[1]}; })},
                  [](auto& t, auto&) { return ops::matmul(t[0], t[1]); }),
            "[s0, 4, s1]");
}

TEST(SymbolicMeta, NormalizationKeepsTheShape) {
  EXPECT_EQ(check({shape([](const Syms& s) { return SymDimVector{s[0], 16}; })},
                  [](auto& t, auto&) { return run("softmax.int", {t[0], int64_t(-1)})[0]; }),
            "[s0, 16]");
  EXPECT_EQ(check({shape([](const Syms& s) { return SymDimVector{s[0], s[1], 16}; })},
                  [](auto& t, auto&) {
                    const int64_t ns[1] = {16};
                    return run("layer_norm", {t[0], IntArrayRef(ns, 1)})[0];
                  }),
            "[s0, s1, 16]");
}

TEST(SymbolicMeta, TopkTakesASymbolicK) {
  EXPECT_EQ(check({shape([](const Syms& s) { return SymDimVector{s[0], 64}; })},
                  [](auto& t, auto& s) { return run("topk", {t[0], s[1]}, 2)[0]; }),
            "[s0, s1]");
}

TEST(SymbolicMeta, ConvolutionAndPoolingShrinkSymbolicPlanes) {
  EXPECT_EQ(check({shape([](const Syms& s) { return SymDimVector{s[1], 3, s[0] + 4, s[0] + 4}; }),
                   shape([](const Syms&) { return SymDimVector{8, 3, 3, 3}; })},
                  [](auto& t, auto&) {
                    const int64_t one[1] = {1}, two[1] = {2};
                    return run("conv2d", {t[0], t[1], Value(), IntArrayRef(two, 1), IntArrayRef(one, 1)})[0];
                  }),
            "[s1, 8, (s0 + 3)//2 + 1, (s0 + 3)//2 + 1]");
  EXPECT_EQ(check({shape([](const Syms& s) { return SymDimVector{s[1], 4, 2 * s[0], 2 * s[0] + 1}; })},
                  [](auto& t, auto&) {
                    const int64_t two[1] = {2};
                    return run("max_pool2d_with_indices", {t[0], IntArrayRef(two, 1)}, 2)[0];
                  }),
            "[s1, 4, s0, s0]");
}

TEST(SymbolicMeta, IndexingOperatorsSizeByTheIndex) {
  EXPECT_EQ(check({shape([](const Syms&) { return SymDimVector{10, 4}; }),
                   shape([](const Syms& s) { return SymDimVector{s[0], s[1]}; }, DType::Int64)},
                  [](auto& t, auto&) { return run("embedding", {t[0], t[1]})[0]; }),
            "[s0, s1, 4]");
  EXPECT_EQ(check({shape([](const Syms& s) { return SymDimVector{s[0], 6}; }),
                   shape([](const Syms& s) { return SymDimVector{s[1]}; }, DType::Int64)},
                  [](auto& t, auto&) { return run("index_select", {t[0], int64_t(0), t[1]})[0]; }),
            "[s1, 6]");
}

TEST(SymbolicMeta, RepeatFlipAndStack) {
  EXPECT_EQ(check({shape([](const Syms& s) { return SymDimVector{s[0], 4}; })},
                  [](auto& t, auto&) {
                    const int64_t reps[2] = {2, 3};
                    return run("repeat", {t[0], IntArrayRef(reps, 2)})[0];
                  }),
            "[2*s0, 12]");
  EXPECT_EQ(check({shape([](const Syms& s) { return SymDimVector{s[0], s[1]}; })},
                  [](auto& t, auto&) {
                    const int64_t dims[1] = {0};
                    return run("flip", {t[0], IntArrayRef(dims, 1)})[0];
                  }),
            "[s0, s1]");
  EXPECT_EQ(check({shape([](const Syms& s) { return SymDimVector{s[0], 3}; }),
                   shape([](const Syms& s) { return SymDimVector{s[0], 3}; })},
                  [](auto& t, auto&) {
                    const TensorImpl* parts[2] = {t[0].impl(), t[1].impl()};
                    return run("stack", {ArrayRef<const TensorImpl*>(parts, 2), int64_t(1)})[0];
                  }),
            "[s0, 2, 3]");
}

// nonzero's row count depends on the data: an unbacked symbol, asserted to lie in [0, numel].
TEST(SymbolicMeta, DataDependentSizesAreUnbackedSymbols) {
  sym::ShapeEnv* env = sym::ShapeEnv::create();
  const SymInt s0(env->create_symbol(8, 2, 64));
  const Tensor x = Tensor::adopt(TensorImpl::empty_sym({s0, 5}, DType::Float32, kMeta));
  const Tensor nz = run("nonzero", {x})[0];
  EXPECT_EQ(str(nz->sym_sizes()), "[u0, 2]");
  ASSERT_EQ(env->runtime_asserts().size(), 1u);
  EXPECT_EQ(env->to_string(env->runtime_asserts()[0].first), "u0 <= 5*s0 and u0 >= 0");
  const std::vector<sym::BoundValue> fits = {sym::BoundValue{8}, sym::BoundValue{40}};
  const std::vector<sym::BoundValue> too_many = {sym::BoundValue{8}, sym::BoundValue{41}};
  EXPECT_EQ(env->first_failing_guard(fits), -1);
  EXPECT_EQ(env->first_failing_guard(too_many), 0);
  const Tensor plain = ops::zeros({3}, DType::Float32, kMeta);  // a meta tensor of no env still refuses
  ct_status status = CT_OK;
  try {
    run("nonzero", {plain});
  } catch (const Error& e) {
    status = e.status();
  }
  EXPECT_EQ(status, CT_ERROR_NOT_IMPLEMENTED);
  env->release();
}

// diag of a vector has no symbolic shape rule yet: it must refuse by name, not compute with pointer bits.
TEST(SymbolicMeta, AnOperatorWithoutASymbolicRuleFailsWithGuardError) {
  sym::ShapeEnv* env = sym::ShapeEnv::create();
  const SymInt s0(env->create_symbol(8, 2, 64));
  const Tensor x = Tensor::adopt(TensorImpl::empty_sym({s0}, DType::Float32, kMeta));
  ct_status status = CT_OK;
  std::string message;
  try {
    run("diag", {x});
  } catch (const Error& e) {
    status = e.status();
    message = e.message();
  }
  EXPECT_EQ(status, CT_ERROR_GUARD) << message;
  EXPECT_NE(message.find("[s0]"), std::string::npos) << message;
  env->release();
}
