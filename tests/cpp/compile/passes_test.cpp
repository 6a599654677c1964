#include "compile/passes.h"

#include <gtest/gtest.h>

#include "graph_builder.h"
#include "symbolic/shape_env.h"

namespace ct::compile {
namespace {

using namespace graph_testing;

Arg t(Ref r) { return tensor_arg(r); }

// The printed nodes, without the return line.
std::string body(const Graph& g) {
  const std::string s = g.to_string();
  return s.substr(0, s.find("    return"));
}

TEST(Passes, DeadCodeDropsUnusedCallsAndKeepsPlaceholders) {
  GraphBuilder b;
  const Ref x = b.input(filled({4}));
  b.input(filled({4}));
  b.call("exp", {t(x)});
  const Ref y = b.call("neg", {t(x)});
  b.g.outputs = {y};
  const Tensor want = b.value(y);
  eliminate_dead_code(b.g);
  EXPECT_EQ(body(b.g),
            "graph(x0, x1):\n"
            "    %x0 : f32[4] = placeholder[0]\n"
            "    %x1 : f32[4] = placeholder[1]\n"
            "    %neg : f32[4] = neg(%x0)\n");
  EXPECT_TRUE(same_bits(b.run()[0], want));
}

TEST(Passes, DeadCodeKeepsMutatingAndRandomCalls) {
  GraphBuilder b;
  const Ref x = b.input(filled({4}));
  const Ref y = b.input(filled({4}, DType::Float32, 2));
  b.call("add_.Tensor", {t(x), t(y), int_arg(1)});
  b.call("bernoulli.p", {t(y), double_arg(0.5), none_arg()});
  b.call("exp", {t(y)});
  b.g.outputs = {y};
  eliminate_dead_code(b.g);
  ASSERT_EQ(b.g.nodes.size(), 4u);
  EXPECT_EQ(b.g.nodes[2].op->full_name, "add_.Tensor");
  EXPECT_EQ(b.g.nodes[3].op->full_name, "bernoulli.p");
}

TEST(Passes, DeadCodeKeepsItemNodesAndRenumbersTheirSources) {
  GraphBuilder b;
  sym::ShapeEnv* env = sym::ShapeEnv::create();
  b.g.set_env(env);
  env->release();
  env->create_unbacked(sym::Type::Int);
  const Ref x = b.input(filled({4}));
  const Ref k = b.input(ops::full({1}, Scalar(int64_t(3)), DType::Int64, kCPU));
  b.call("exp", {t(x)});
  Node item;
  item.kind = Node::Kind::Item;
  item.name = b.g.fresh_name("item");
  item.src = k;
  b.g.nodes.push_back(item);
  b.values.emplace_back();
  b.g.sources.push_back({SymbolSource::Kind::Item, 0, 0, 3});
  b.g.outputs = {b.call("neg", {t(x)})};
  eliminate_dead_code(b.g);
  ASSERT_EQ(b.g.nodes.size(), 4u);
  EXPECT_EQ(b.g.sources[0].node, 2);
  EXPECT_NE(b.g.to_string().find("%item : SymInt = item(%x1) -> u0"), std::string::npos) << b.g.to_string();
}

TEST(Passes, CommonSubexpressionsMergeEqualCalls) {
  GraphBuilder b;
  const Ref x = b.input(filled({4}));
  const Ref e1 = b.call("exp", {t(x)});
  const Ref e2 = b.call("exp", {t(x)});
  const Ref sum = b.call("add.Tensor", {t(e1), t(e2), int_arg(1)});
  // x + 0.0 and x + -0.0 differ where x is -0.0; two random draws differ everywhere.
  const Ref z1 = b.call("add.Scalar", {t(x), double_arg(0.0), int_arg(1)});
  const Ref z2 = b.call("add.Scalar", {t(x), double_arg(-0.0), int_arg(1)});
  const Ref r1 = b.call("bernoulli.p", {t(x), double_arg(0.5), none_arg()});
  const Ref r2 = b.call("bernoulli.p", {t(x), double_arg(0.5), none_arg()});
  b.g.outputs = {sum, z1, z2, r1, r2};
  const Tensor want = b.value(sum);
  eliminate_common_subexpressions(b.g);
  EXPECT_EQ(b.g.nodes.size(), 7u);
  const std::string text = b.g.to_string();
  EXPECT_NE(text.find("= add.Tensor(%exp, %exp, alpha=1)"), std::string::npos) << text;
  EXPECT_EQ(text.find("%exp_1"), std::string::npos) << text;
  EXPECT_TRUE(same_bits(b.run()[0], want));
}

TEST(Passes, CommonSubexpressionsLeaveGraphsWithMutationAlone) {
  GraphBuilder b;
  const Ref x = b.input(filled({4}));
  const Ref e1 = b.call("exp", {t(x)});
  b.call("add_.Tensor", {t(x), t(e1), int_arg(1)});
  const Ref e2 = b.call("exp", {t(x)});
  b.g.outputs = {e1, e2};
  eliminate_common_subexpressions(b.g);
  EXPECT_EQ(b.g.nodes.size(), 4u);
}

TEST(Passes, FoldConstantsEvaluatesFactoryChainsOnce) {
  GraphBuilder b;
  const Ref x = b.input(filled({4}));
  const Ref one = b.call("ones", {list_arg({4}), none_arg(), none_arg()});
  const Ref two = b.call("mul.Scalar", {t(one), double_arg(2.0)});
  const Ref y = b.call("add.Tensor", {t(x), t(two), int_arg(1)});
  b.g.outputs = {y};
  const Tensor want = b.value(y);
  fold_constants(b.g);
  EXPECT_EQ(body(b.g),
            "graph(x0):\n"
            "    %x0 : f32[4] = placeholder[0]\n"
            "    %mul : f32[4] = constant[0]\n"
            "    %add : f32[4] = add.Tensor(%x0, %mul, alpha=1)\n");
  ASSERT_EQ(b.g.constants.size(), 1u);
  EXPECT_TRUE(b.g.nodes[1].folded);
  EXPECT_TRUE(same_bits(b.run()[0], want));
}

TEST(Passes, FoldConstantsLeavesCapturedConstantsAndOutputs) {
  GraphBuilder b;
  const Ref x = b.input(filled({4}));
  const Ref captured = b.constant(filled({4}, DType::Float32, 3));
  const Ref e = b.call("exp", {t(captured)});
  const Ref one = b.call("ones", {list_arg({4}), none_arg(), none_arg()});
  const Ref out = b.call("neg", {t(one)});  // a graph output: the caller may write it
  b.g.outputs = {b.call("add.Tensor", {t(x), t(e), int_arg(1)}), out};
  fold_constants(b.g);
  ASSERT_EQ(b.g.nodes.size(), 6u);
  EXPECT_EQ(b.g.nodes[2].kind, Node::Kind::Call);  // exp of the captured constant
  EXPECT_EQ(b.g.nodes[3].kind, Node::Kind::Constant);  // ones
  EXPECT_EQ(b.g.nodes[4].kind, Node::Kind::Call);  // neg, an output
}

TEST(Passes, WrappedNumbersBecomeTheScalarOverload) {
  GraphBuilder b;
  const Ref x = b.input(filled({4}));
  Tensor half = ops::full({}, Scalar(0.5), DType::Float64, kCPU);
  half->set_wrapped_number(true);
  const Tensor held = ops::full({}, Scalar(0.5), DType::Float64, kCPU);  // a tensor a caller holds
  const Ref scaled = b.call("mul.Tensor", {t(x), t(b.constant(half))});
  const Ref y = b.call("add.Tensor", {t(scaled), t(b.constant(held)), int_arg(1)});
  b.g.outputs = {y};
  const Tensor want = b.value(y);
  scalarize_wrapped_numbers(b.g);
  eliminate_dead_code(b.g);
  EXPECT_EQ(body(b.g),
            "graph(x0):\n"
            "    %x0 : f32[4] = placeholder[0]\n"
            "    %mul : f32[4] = mul.Scalar(%x0, 0.5)\n"
            "    %c_1 : f64[] = constant[0]\n"
            "    %add : f32[4] = add.Tensor(%mul, %c_1, alpha=1)\n");
  EXPECT_TRUE(same_bits(b.run()[0], want));
}

TEST(Passes, ExpandsThatBroadcastingWouldRedoAreDropped) {
  GraphBuilder b;
  const Ref r = b.input(filled({4, 1}));
  const Ref x = b.input(filled({4, 3}, DType::Float32, 2));
  const Ref col = b.input(filled({4, 1}, DType::Float32, 3));
  const Ref y = b.call("mul.Tensor", {t(b.call("expand", {t(r), list_arg({4, 3}), bool_arg(false)})), t(x)});
  // Here the expand makes the result's sizes: [4, 1] against [4, 1] broadcasts to [4, 1] only.
  const Ref z = b.call("add.Tensor", {t(b.call("expand", {t(r), list_arg({4, 3}), bool_arg(false)})), t(col),
                                      int_arg(1)});
  b.g.outputs = {y, z};
  const Tensor want_y = b.value(y), want_z = b.value(z);
  absorb_expands(b.g);
  EXPECT_EQ(body(b.g),
            "graph(x0, x1, x2):\n"
            "    %x0 : f32[4, 1] = placeholder[0]\n"
            "    %x1 : f32[4, 3] = placeholder[1]\n"
            "    %x2 : f32[4, 1] = placeholder[2]\n"
            "    %mul : f32[4, 3] = mul.Tensor(%x0, %x1)\n"
            "    %expand_1 : f32[4, 3] = expand(%x0, [4, 3], False)\n"
            "    %add : f32[4, 3] = add.Tensor(%expand_1, %x2, alpha=1)\n");
  const std::vector<Tensor> got = b.run();
  EXPECT_TRUE(same_bits(got[0], want_y) && same_bits(got[1], want_z));
}

}  // namespace
}  // namespace ct::compile
