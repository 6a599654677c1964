// The autograd engine's graph handling: accumulation where paths meet, in-place operations on
// non-leaf tensors, gradients of non-leaf inputs, the refusals PyTorch also makes, and that a
// graph goes away with its last tensor.
#include <gtest/gtest.h>

#include "autograd/engine.h"
#include "autograd/function.h"
#include "dispatch/grad_mode.h"
#include "autograd/meta.h"
#include "core/error.h"
#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/functions.h"

namespace {

using namespace ct;

Tensor leaf(std::initializer_list<double> values) {
  Tensor t = ops::empty({static_cast<int64_t>(values.size())}, DType::Float64, kCPU);
  int i = 0;
  for (double v : values) t->data_as<double>()[i++] = v;
  autograd::set_requires_grad(*t, true, "test");
  return t;
}

double at(const Tensor& t, int64_t i) { return ops::contiguous(t)->data_as<double>()[i]; }

Tensor total(const Tensor& t) { return ops::sum(t, {}, false); }

void run_backward(const Tensor& root) { autograd::backward({root}, {}, {}, "test"); }

TEST(AutogradEngine, PathsThatMeetAddTheirGradients) {
  Tensor x = leaf({2.0, 3.0});
  Tensor y = ops::mul(x, x);                       // dy/dx = 2x, reached through two edges of one node
  run_backward(total(ops::add(y, ops::mul(y, x))));  // d/dx (x^2 + x^3) = 2x + 3x^2
  Tensor g = autograd::grad_of(*x);
  EXPECT_DOUBLE_EQ(at(g, 0), 4.0 + 12.0);
  EXPECT_DOUBLE_EQ(at(g, 1), 6.0 + 27.0);
}

TEST(AutogradEngine, InPlaceOnANonLeafExtendsItsHistory) {
  Tensor x = leaf({1.0, -2.0});
  Tensor y = ops::mul(x, Scalar(3.0));
  call(builtin_op("mul_.Tensor"), {y, x});  // y = 3x * x
  call(builtin_op("add_.Scalar"), {y, 1.0, 1});
  run_backward(total(y));
  Tensor g = autograd::grad_of(*x);
  EXPECT_DOUBLE_EQ(at(g, 0), 6.0);
  EXPECT_DOUBLE_EQ(at(g, 1), -12.0);
}

// Note [Writing through a view]: out = zeros; out[1:3] = x * x; the base takes the write into its
// history, and a view made before a later write reads the new history once an operator records it.
TEST(AutogradEngine, InPlaceThroughAViewMovesItsBaseHistory) {
  const size_t before = live_tensor_count();
  {
    Tensor x = leaf({1.0, -2.0});
    Tensor w = leaf({3.0, 5.0, 7.0, 11.0});
    Tensor out = ops::zeros({4}, DType::Float64, kCPU);
    ops::copy_(ops::narrow(out, 0, 1, 2), ops::mul(x, x));
    EXPECT_TRUE(out->requires_grad());
    Tensor early = ops::narrow(out, 0, 1, 2);  // made before the next write, which changes its element 0
    call(builtin_op("mul_.Tensor"), {ops::narrow(out, 0, 1, 1), ops::narrow(w, 0, 0, 1)});
    // out = [0, x0^2 w0, x1^2, 0]; loss = sum(out * w) + sum(early) = x0^2 w0 (w1 + 1) + x1^2 (w2 + 1)
    run_backward(ops::add(total(ops::mul(out, w)), total(early)));
    Tensor gx = autograd::grad_of(*x), gw = autograd::grad_of(*w);
    EXPECT_DOUBLE_EQ(at(gx, 0), 2.0 * 1.0 * 3.0 * (5.0 + 1.0));
    EXPECT_DOUBLE_EQ(at(gx, 1), 2.0 * -2.0 * (7.0 + 1.0));
    EXPECT_DOUBLE_EQ(at(gw, 0), 1.0 * (5.0 + 1.0));  // through the mul_
    EXPECT_DOUBLE_EQ(at(gw, 1), 1.0 * 3.0);           // out[1] = x0^2 w0
    EXPECT_DOUBLE_EQ(at(gw, 2), 4.0);
    EXPECT_DOUBLE_EQ(at(gw, 3), 0.0);
  }
  EXPECT_EQ(live_tensor_count(), before) << "a base and its views must not keep each other alive";
}

TEST(AutogradEngine, GradientOfANonLeafInput) {
  Tensor x = leaf({1.0, 2.0});
  Tensor h = ops::mul(x, Scalar(2.0));
  Tensor out = total(ops::mul(h, h));
  std::vector<Tensor> g = autograd::grad({out}, {}, {h}, {}, "test");
  EXPECT_DOUBLE_EQ(at(g[0], 0), 4.0);  // 2h
  EXPECT_DOUBLE_EQ(at(g[0], 1), 8.0);
  EXPECT_FALSE(autograd::grad_of(*x).defined()) << "autograd.grad must not accumulate into leaves";
}

TEST(AutogradEngine, RefusesWhatPyTorchRefuses) {
  Tensor x = leaf({1.0, 2.0});
  try {
    call(builtin_op("add_.Scalar"), {x, 1.0, 1});
    FAIL() << "in-place on a leaf that requires grad";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("leaf tensor that requires grad"), std::string::npos) << e.message();
  }
  try {
    call(builtin_op("add_.Scalar"), {ops::narrow(x, 0, 0, 1), 1.0, 1});
    FAIL() << "in-place on a view of a leaf that requires grad";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), CT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(e.message().find("a view (sizes [1]) of a leaf tensor that requires grad"), std::string::npos)
        << e.message();
  }
  Tensor e = ops::exp(x);  // saves its result
  {
    autograd::GradModeGuard no_grad(autograd::GradMode::NoGrad);
    call(builtin_op("add_.Scalar"), {e, 1.0, 1});
  }
  try {
    run_backward(total(e));
    FAIL() << "backward through a saved tensor changed in place";
  } catch (const Error& err) {
    EXPECT_NE(err.message().find("ExpBackward"), std::string::npos) << err.message();
    EXPECT_NE(err.message().find("version 1, expected version 0"), std::string::npos) << err.message();
  }
}

TEST(AutogradEngine, InferenceTensorsAreNeverSaved) {
  Tensor x = leaf({1.0, 2.0});
  Tensor c;
  {
    autograd::GradModeGuard inference(autograd::GradMode::Inference);
    c = ops::mul(x, Scalar(2.0));
  }
  EXPECT_TRUE(c->is_inference());
  EXPECT_FALSE(c->requires_grad());
  EXPECT_THROW(ops::mul(x, c), Error);  // mul would save c for x's gradient
}

TEST(AutogradEngine, AGraphGoesAwayWithItsLastTensor) {
  const size_t before = live_tensor_count();
  {
    Tensor x = leaf({1.0, 2.0});
    // A custom function that saves its own output: no reference cycle may keep it alive.
    std::vector<Tensor> out = autograd::apply_function(
        "Square", {x},
        [&](autograd::FunctionCtx& ctx) {
          Tensor y = ops::mul(x, x);
          ctx.save(x);
          ctx.save(y);
          return std::vector<Tensor>{y};
        },
        [](autograd::FunctionCtx& ctx, std::vector<Tensor>& g) {
          return std::vector<Tensor>{ops::mul(ops::mul(g[0], ctx.saved(0)), Scalar(2.0))};
        },
        nullptr);
    Tensor loss = total(ops::exp(out[0]));
    run_backward(loss);
    EXPECT_DOUBLE_EQ(at(autograd::grad_of(*x), 0), 2.0 * std::exp(1.0));
  }
  EXPECT_EQ(live_tensor_count(), before);
}

}  // namespace

// Note [Derivatives beside operators]: a derivative names the arguments it saves and reads as the
// schema does; registration refuses a name the schema lacks, and so does backward.
namespace {

using ct::autograd::GradCtx;

void weighted_square_cpu(void*, Frame& f) {
  const Tensor x = Tensor::borrow(&f.tensor(0)), w = Tensor::borrow(&f.tensor(1));
  f.outs[0] = ops::mul(ops::mul(x, x), w);
}
// d/dx x^2 w = 2 x w, d/dw = x^2: reads both arguments by name.
void weighted_square_backward(GradCtx& c) {
  const Tensor x = c.saved("self"), w = c.saved("weight");
  if (c.needs("self")) c.set("self", ops::mul(c.grad(), ops::mul(ops::mul(x, w), 2)));
  if (c.needs("weight")) c.set("weight", ops::mul(c.grad(), ops::mul(x, x)));
}
void misnamed_backward(GradCtx& c) { c.set("input", c.grad()); }

const OperatorDef& test_op(const char* schema, const char* name, BackwardFn backward, Saves saves) {
  Registry& r = Registry::get();
  if (const OperatorDef* op = r.find(name)) return *op;
  OpBuilder b = r.def(schema, /*builtin=*/false);
  b.kernel(DispatchKey::CPU, weighted_square_cpu, Determinism::Bitwise).derivative(backward, saves);
  return b.def();
}

}  // namespace

TEST(AutogradEngine, DerivativesSaveAndReadArgumentsByName) {
  const OperatorDef& op = test_op("cttest::weighted_square(Tensor self, Tensor weight) -> Tensor",
                                  "cttest::weighted_square", weighted_square_backward, save("self", "weight"));
  Tensor x = leaf({1.0, -2.0}), w = leaf({3.0, 0.5});
  run_backward(total(call(op, {x, w})));
  EXPECT_DOUBLE_EQ(at(autograd::grad_of(*x), 0), 6.0);   // 2 x w
  EXPECT_DOUBLE_EQ(at(autograd::grad_of(*x), 1), -2.0);
  EXPECT_DOUBLE_EQ(at(autograd::grad_of(*w), 0), 1.0);   // x^2
  EXPECT_DOUBLE_EQ(at(autograd::grad_of(*w), 1), 4.0);
}

TEST(AutogradEngine, ANameTheSchemaLacksIsRefused) {
  const std::pair<const char*, Saves> cases[] = {
      {"cttest::saves_misspelt(Tensor self, Tensor weight) -> Tensor", save("self", "wieght")},
      {"cttest::saves_a_float(Tensor self, float scale) -> Tensor", save("scale")}};
  for (const auto& [schema, saves] : cases) {
    try {
      OpBuilder b = Registry::get().def(schema, false);
      b.derivative(weighted_square_backward, saves);
      FAIL() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), CT_ERROR_INTERNAL);
      EXPECT_NE(e.message().find("cttest::saves_"), std::string::npos) << e.message();
    }
  }
  const OperatorDef& op = test_op("cttest::misnamed(Tensor self, Tensor weight) -> Tensor", "cttest::misnamed",
                                  misnamed_backward, save());
  Tensor x = leaf({1.0}), w = leaf({2.0});
  try {
    run_backward(total(call(op, {x, w})));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), CT_ERROR_INTERNAL);
    EXPECT_NE(e.message().find("'input'"), std::string::npos) << e.message();
  }
}
