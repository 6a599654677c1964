#include "compile/fuse.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "graph_builder.h"
#include "ops/cpu/parallel.h"
#include "symbolic/shape_env.h"

namespace ct::compile {
namespace {

using namespace graph_testing;

Arg t(Ref r) { return tensor_arg(r); }

// x * sigmoid(x) + sin(y) * 0.5 - z
Ref swish_chain(GraphBuilder& b, Ref x, Ref y, Ref z) {
  const Ref s = b.call("sigmoid", {t(x)});
  const Ref xs = b.call("mul.Tensor", {t(x), t(s)});
  const Ref h = b.call("mul.Scalar", {t(b.call("sin", {t(y)})), double_arg(0.5)});
  return b.call("sub.Tensor", {t(b.call("add.Tensor", {t(xs), t(h), int_arg(1)})), t(z), int_arg(1)});
}

// y = x - mean(x); v = mean(y * y); y * rsqrt(v + 1e-5) * w + bias, over the last dim.
Ref layer_norm(GraphBuilder& b, Ref x, Ref w, Ref bias) {
  auto mean = [&](Ref a) { return b.call("mean.dim_IntList", {t(a), list_arg({-1}), bool_arg(true)}); };
  const Ref y = b.call("sub.Tensor", {t(x), t(mean(x)), int_arg(1)});
  const Ref v = mean(b.call("mul.Tensor", {t(y), t(y)}));
  const Ref r = b.call("rsqrt", {t(b.call("add.Scalar", {t(v), double_arg(1e-5), int_arg(1)}))});
  const Ref n = b.call("mul.Tensor", {t(b.call("mul.Tensor", {t(y), t(r)})), t(w)});
  return b.call("add.Tensor", {t(n), t(bias), int_arg(1)});
}

// Row and column broadcasts, a reduction without keepdim, and a second group reading x again:
// (sum(exp(x * col + row), -1), relu(x - row) * 2).
std::vector<Ref> broadcasts(GraphBuilder& b, Ref x, Ref row, Ref col) {
  const Ref u = b.call("add.Tensor", {t(b.call("mul.Tensor", {t(x), t(col)})), t(row), int_arg(1)});
  const Ref s = b.call("sum.dim_IntList", {t(b.call("exp", {t(u)})), list_arg({-1}), bool_arg(false)});
  const Ref r = b.call("relu", {t(b.call("sub.Tensor", {t(x), t(row), int_arg(1)}))});
  return {s, b.call("mul.Scalar", {t(r), int_arg(2)})};
}

// Fuses b's graph with outputs outs, expects `kernels` Fused nodes, and checks every output
// against its eager value, bit for bit.
void expect_eager_bits(GraphBuilder& b, const std::vector<Ref>& outs, size_t kernels) {
  b.g.outputs = outs;
  std::vector<Tensor> want;
  for (Ref r : outs) want.push_back(b.value(r));
  fuse(b.g);
  EXPECT_EQ(count(b.g, Node::Kind::Fused), kernels) << b.g.to_string();
  const std::vector<Tensor> got = b.run();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(same_bits(got[i], want[i])) << "output " << i << "\n" << b.g.to_string();
}

TEST(Fuse, PointwiseChainIsOneKernelWithEagerBits) {
  for (DType d : {DType::Float32, DType::Float64}) {
    GraphBuilder b;
    const Ref x = b.input(filled({37, 1003}, d, 1)), y = b.input(filled({37, 1003}, d, 2));
    const Ref z = b.input(filled({37, 1003}, d, 3));
    expect_eager_bits(b, {swish_chain(b, x, y, z)}, 1);
    EXPECT_EQ(b.g.nodes.size(), 4u);
    EXPECT_EQ(b.g.nodes[3].fused->describe(), "fused[sigmoid, mul, sin, mul, add, sub]");
    EXPECT_EQ(b.g.nodes[3].outs.size(), 1u);  // intermediates never become tensors
  }
}

// filled() with NaN, infinities, signed zeros, a subnormal and exp's clamps among the values.
Tensor with_specials(IntArrayRef sizes, DType d, uint32_t seed) {
  Tensor t = filled(sizes, DType::Float64, seed);
  const double v[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e-40, 88.5, -104.5};
  for (int64_t i = 0; i < 8; ++i) t->data_as<double>()[i * 7 + seed % 7] = v[i];
  return ops::to(t, d);
}

// One call of every operator the registry tags Fusible, in each of its forms, then neg (so each is
// a group of two): an operator added with an element function is covered without editing this.
std::vector<Ref> every_fusible_call(GraphBuilder& b, Ref x, Ref y) {
  std::vector<Ref> outs;
  auto then_neg = [&](Ref r) { outs.push_back(b.call("neg", {t(r)})); };
  for (const OperatorDef* op : Registry::get().all()) {
    if (!op->has(Tag::Fusible)) continue;
    const std::string& name = op->full_name;
    const bool alpha = op->element && op->element->has_alpha;
    switch (op->element_form) {
      case ElementForm::Unary: then_neg(b.call(name, {t(x)})); break;
      case ElementForm::Binary:  // every schema argument is given (alpha 1 is the plain form)
        then_neg(b.call(name, alpha ? std::vector<Arg>{t(x), t(y), int_arg(1)} : std::vector<Arg>{t(x), t(y)}));
        if (alpha) then_neg(b.call(name, {t(x), t(y), double_arg(2.5)}));
        break;
      case ElementForm::BinaryScalar:
      case ElementForm::ReverseScalar:
        then_neg(b.call(name, alpha ? std::vector<Arg>{t(x), double_arg(0.7), int_arg(1)}
                                    : std::vector<Arg>{t(x), double_arg(0.7)}));
        if (alpha) then_neg(b.call(name, {t(x), int_arg(2), double_arg(-1.5)}));
        break;
      case ElementForm::None:  // a fused reduction, over the last dim
        EXPECT_NE(op->fused_reduction, FusedReduction::None) << name;
        for (bool keepdim : {false, true}) then_neg(b.call(name, {t(x), list_arg({-1}), bool_arg(keepdim)}));
        break;
    }
  }
  return outs;
}

TEST(Fuse, EveryFusibleOperatorHasEagerBits) {
  for (DType d : {DType::Float32, DType::Float64}) {
    GraphBuilder b;
    const Ref x = b.input(with_specials({9, 70}, d, 1)), y = b.input(with_specials({9, 70}, d, 2));
    const std::vector<Ref> outs = every_fusible_call(b, x, y);
    EXPECT_GE(outs.size(), 40u);  // the registry's Fusible tag is not empty
    expect_eager_bits(b, outs, outs.size());
  }
}

TEST(Fuse, ResultsUsedOutsideAreMaterialized) {
  GraphBuilder b;
  const Ref x = b.input(filled({5, 9})), y = b.input(filled({5, 9}, DType::Float32, 2));
  const Ref z = b.input(filled({5, 9}, DType::Float32, 3));
  const Ref out = swish_chain(b, x, y, z);
  expect_eager_bits(b, {out, Ref{3, 0}}, 1);  // the sigmoid as well
  EXPECT_EQ(b.g.nodes.back().outs.size(), 2u);
}

TEST(Fuse, LayerNormChainMatchesEager) {
  for (DType d : {DType::Float32, DType::Float64}) {
    GraphBuilder b;
    const Ref x = b.input(filled({64, 333}, d, 1)), w = b.input(filled({333}, d, 2));
    const Ref bias = b.input(filled({333}, d, 3));
    expect_eager_bits(b, {layer_norm(b, x, w, bias)}, 1);
    EXPECT_EQ(b.g.nodes.back().fused->describe(), "fused[mean, sub, mul, mean, add, rsqrt, mul, mul, add]");
  }
}

TEST(Fuse, SoftmaxOverLongRowsMatchesEager) {
  // Rows longer than a tile and than one reduction block (16384).
  GraphBuilder b;
  const Ref x = b.input(filled({3, 40000}));
  const Ref m = b.call("amax.dim_IntList", {t(x), list_arg({1}), bool_arg(true)});
  const Ref e = b.call("exp", {t(b.call("sub.Tensor", {t(x), t(m), int_arg(1)}))});
  const Ref s = b.call("sum.dim_IntList", {t(e), list_arg({-1}), bool_arg(true)});
  const Ref lo = b.call("amin.dim_IntList", {t(e), list_arg({-1}), bool_arg(false)});
  expect_eager_bits(b, {b.call("div.Tensor", {t(e), t(s)}), lo}, 1);
}

TEST(Fuse, OddSizesMatchEager) {
  const std::vector<std::vector<int64_t>> shapes = {{1, 1}, {1, 17}, {17, 1}, {33, 129}, {3, 40000}, {0, 5}, {5, 0}};
  for (const std::vector<int64_t>& s : shapes) {
    SCOPED_TRACE(::testing::Message() << "[" << s[0] << ", " << s[1] << "]");
    GraphBuilder b;
    const Ref x = b.input(filled(s)), row = b.input(filled({s[0], 1}, DType::Float32, 2));
    const Ref col = b.input(filled({s[1]}, DType::Float32, 3));
    expect_eager_bits(b, broadcasts(b, x, row, col), 2);
  }
}

TEST(Fuse, NonContiguousInputFallsBackToTheCalls) {
  GraphBuilder b;
  const Ref x = b.input(filled({16, 24})), w = b.input(filled({24}, DType::Float32, 2));
  const Ref bias = b.input(filled({24}, DType::Float32, 3));
  b.g.outputs = {layer_norm(b, x, w, bias)};
  fuse(b.g);
  ASSERT_EQ(count(b.g, Node::Kind::Fused), 1u);
  const Tensor xt = ops::transpose(filled({24, 16}, DType::Float32, 4), 0, 1);
  ASSERT_FALSE(xt->is_contiguous());
  GraphBuilder eager;
  const Ref ex = eager.input(xt), ew = eager.input(b.inputs[1]), eb = eager.input(b.inputs[2]);
  const Tensor want = eager.value(layer_norm(eager, ex, ew, eb));
  EXPECT_TRUE(same_bits(b.run({xt, b.inputs[1], b.inputs[2]})[0], want));
}

// Makes every size `rows` of b's graph one symbol, the first input's size 0, in [1, 2^20].
void symbolic_rows(GraphBuilder& b, int64_t rows) {
  sym::ShapeEnv* env = sym::ShapeEnv::create();
  b.g.set_env(env);
  env->release();
  const SymInt s0(env->create_symbol(rows, 1, 1 << 20));
  b.g.sources = {SymbolSource{SymbolSource::Kind::InputSize, 0, 0, -1}};
  for (Node& n : b.g.nodes)
    for (TensorMeta& m : n.outs)
      for (size_t d = 0; d < m.sizes.size(); ++d)
        if (m.sizes[d].raw() == rows) m.sizes[d] = s0;
}

TEST(Fuse, SymbolicRowsRunAtAnySize) {
  GraphBuilder b;
  const Ref x = b.input(filled({7, 13})), w = b.input(filled({13}, DType::Float32, 2));
  const Ref bias = b.input(filled({13}, DType::Float32, 3));
  b.g.outputs = {layer_norm(b, x, w, bias)};
  symbolic_rows(b, 7);
  fuse(b.g);
  ASSERT_EQ(count(b.g, Node::Kind::Fused), 1u);
  for (int64_t rows : {1, 3, 200}) {
    GraphBuilder eager;
    const Ref ex = eager.input(filled({rows, 13}, DType::Float32, 5)), ew = eager.input(b.inputs[1]);
    const Ref eb = eager.input(b.inputs[2]);
    const Tensor want = eager.value(layer_norm(eager, ex, ew, eb));
    EXPECT_TRUE(same_bits(b.run(eager.inputs)[0], want)) << rows << " rows";
  }
}

TEST(Fuse, ReaderBetweenCallsKeepsThemApart) {
  // mm reads exp's result before mul: exp cannot join mul's group without moving mm.
  GraphBuilder b;
  const Ref x = b.input(filled({8, 8})), w = b.input(filled({8, 8}, DType::Float32, 2));
  const Ref e = b.call("exp", {t(x)});
  const Ref m = b.call("mm", {t(e), t(w)});
  const Ref c = b.call("mul.Scalar", {t(e), double_arg(2.0)});
  expect_eager_bits(b, {b.call("add.Tensor", {t(c), t(m), int_arg(1)})}, 1);
  EXPECT_EQ(b.g.nodes.back().fused->describe(), "fused[mul, add]");
}

TEST(Fuse, InPlaceWriteBetweenCallsKeepsThemApart) {
  // exp reads x before add_ writes it, mul after: one kernel would read x once.
  GraphBuilder b;
  const Ref x = b.input(filled({6, 10})), y = b.input(filled({6, 10}, DType::Float32, 2));
  const Ref e = b.call("exp", {t(x)});
  b.call("add_.Tensor", {t(x), t(y), int_arg(1)});
  const Ref out = b.call("mul.Tensor", {t(e), t(x)});
  b.g.outputs = {out};
  fuse(b.g);
  EXPECT_EQ(count(b.g, Node::Kind::Fused), 0u);
  EXPECT_TRUE(same_bits(b.run({filled({6, 10}), b.inputs[1]})[0], b.value(out)));
}

TEST(Fuse, OtherBroadcastsAndPromotionsStayUnfused) {
  GraphBuilder b;
  const Ref x = b.input(filled({4, 5, 6})), y = b.input(filled({4, 1, 6}, DType::Float32, 2));
  const Ref z = b.input(filled({4, 5, 6}, DType::Float64, 3));
  const Ref a = b.call("exp", {t(b.call("add.Tensor", {t(x), t(y), int_arg(1)}))});
  expect_eager_bits(b, {b.call("neg", {t(b.call("mul.Tensor", {t(a), t(z)}))})}, 0);
}

// sum(x * w * g, 0) with a layer norm's rows beside it: the column sum joins the group that makes
// its operand (Note [Fused column sums]), keepdim or not, by dim 0 or -2.
std::vector<Ref> column_sums(GraphBuilder& b, Ref x, Ref w, Ref g) {
  const Ref p = b.call("mul.Tensor", {t(b.call("mul.Tensor", {t(x), t(w)})), t(g)});
  const Ref rms = b.call("rsqrt", {t(b.call("mean.dim_IntList", {t(b.call("mul.Tensor", {t(x), t(x)})), list_arg({-1}),
                                                                 bool_arg(true)}))});
  const Ref q = b.call("mul.Tensor", {t(p), t(rms)});
  return {b.call("sum.dim_IntList", {t(p), list_arg({0}), bool_arg(false)}),
          b.call("sum.dim_IntList", {t(q), list_arg({-2}), bool_arg(true)})};
}

TEST(Fuse, ColumnSumsJoinTheirProducersWithEagerBits) {
  // Blocks of 64 rows and their cascade (63, 64, 65, 300 rows), tiles of one row (40000 columns),
  // NaN and signed zeros; a single row or column is eager's own calls at run time.
  const std::vector<std::vector<int64_t>> shapes = {{2, 2}, {63, 7}, {64, 5}, {65, 130}, {300, 1025}, {130, 40000}};
  const int before = cpu::get_num_threads();
  for (DType d : {DType::Float32, DType::Float64})
    for (const std::vector<int64_t>& s : shapes)
      for (int threads : {1, 3}) {
        SCOPED_TRACE(::testing::Message() << d << " [" << s[0] << ", " << s[1] << "] threads " << threads);
        cpu::set_num_threads(threads);
        GraphBuilder b;
        const Ref x = b.input(with_specials(s, d, 1)), w = b.input(filled({s[1]}, d, 2));
        const Ref g = b.input(filled(s, d, 3));
        expect_eager_bits(b, column_sums(b, x, w, g), 1);
        EXPECT_EQ(b.g.nodes.back().fused->describe(), "fused[mul, mul, mul, mean, rsqrt, mul, sum, sum]");
      }
  cpu::set_num_threads(before);
}

TEST(Fuse, ColumnSumsOfOneRowOrColumnRunTheCalls) {
  for (const std::vector<int64_t>& s : std::vector<std::vector<int64_t>>{{1, 9}, {9, 1}}) {
    GraphBuilder b;
    const Ref x = b.input(filled(s)), w = b.input(filled({s[1]}, DType::Float32, 2));
    const Ref g = b.input(filled(s, DType::Float32, 3));
    expect_eager_bits(b, column_sums(b, x, w, g), 1);  // sizes of 1 are known: the sums stay out
    EXPECT_EQ(b.g.nodes[b.g.nodes.size() - 3].fused->describe(), "fused[mul, mul, mul, mean, rsqrt, mul]");
  }
  // With symbolic rows the group forms; a single row at run time takes the calls.
  GraphBuilder b;
  const Ref x = b.input(filled({7, 6})), g = b.input(filled({7, 6}, DType::Float32, 2));
  b.g.outputs = {b.call("sum.dim_IntList", {t(b.call("mul.Tensor", {t(x), t(g)})), list_arg({0}), bool_arg(false)})};
  symbolic_rows(b, 7);
  fuse(b.g);
  ASSERT_EQ(count(b.g, Node::Kind::Fused), 1u);
  for (int64_t rows : {1, 2, 200}) {
    GraphBuilder eager;
    const Ref ex = eager.input(filled({rows, 6}, DType::Float32, 5)), eg = eager.input(filled({rows, 6}, DType::Float32, 6));
    const Tensor want = eager.value(
        eager.call("sum.dim_IntList", {t(eager.call("mul.Tensor", {t(ex), t(eg)})), list_arg({0}), bool_arg(false)}));
    EXPECT_TRUE(same_bits(b.run(eager.inputs)[0], want)) << rows << " rows";
  }
}

TEST(Fuse, NothingInAGroupReadsItsColumnSum) {
  // x - sum(x * 2, 0) needs every row's sum before its first row: the sub is not in the group.
  GraphBuilder b;
  const Ref x = b.input(filled({70, 9}));
  const Ref s = b.call("sum.dim_IntList", {t(b.call("mul.Scalar", {t(x), int_arg(2)})), list_arg({0}), bool_arg(false)});
  const Ref out = b.call("exp", {t(b.call("sub.Tensor", {t(x), t(s), int_arg(1)}))});
  expect_eager_bits(b, {out}, 2);
  EXPECT_EQ(b.g.nodes.back().fused->describe(), "fused[sub, exp]");
}

TEST(Fuse, ResultsDoNotDependOnTheThreadCount) {
  const int before = cpu::get_num_threads();
  std::vector<Tensor> results;
  for (int threads : {1, 2, 3}) {
    cpu::set_num_threads(threads);
    GraphBuilder b;
    const Ref x = b.input(filled({300, 517})), w = b.input(filled({517}, DType::Float32, 2));
    const Ref bias = b.input(filled({517}, DType::Float32, 3));
    b.g.outputs = {layer_norm(b, x, w, bias)};
    fuse(b.g);
    results.push_back(b.run()[0]);
  }
  cpu::set_num_threads(before);
  EXPECT_TRUE(same_bits(results[0], results[1]));
  EXPECT_TRUE(same_bits(results[0], results[2]));
}

}  // namespace
}  // namespace ct::compile
