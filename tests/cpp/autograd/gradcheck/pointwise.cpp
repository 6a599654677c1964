// pointwise.cpp - gradcheck cases of the pointwise family: unary math, rounding, activations,
// binary and ternary arithmetic. Inputs stay inside each function's domain and away from its
// kinks (the numerical derivative is taken across [x - eps, x + eps]).
#include <string>
#include <utility>
#include <vector>

#include "gradcheck.h"

namespace ct::gradcheck {
namespace {

Input pos_row() { return {{3}, 0.5, 2.0}; }

Case unary_case(const char* name, Input in) {
  return {{name}, {in}, [name](const Inputs& x) { return op(name, {x[0]}); }};
}

// The in-place form `name` (floor_, addcmul_.) on a non-leaf copy of x[0]; `rest` are the other
// arguments, tensors given as indices into the inputs (Value(size_t) would be ambiguous).
struct Arg {
  int input = -1;  // >= 0: the tensor x[input]
  Value value;
};
Case inplace_case(const char* name, std::vector<Input> in, std::vector<Arg> rest = {}) {
  return {{name}, std::move(in), [name, rest](const Inputs& x) {
            Tensor c = copy_of(x[0]);
            std::vector<Value> args{Value(c)};
            for (const Arg& a : rest) args.push_back(a.input >= 0 ? Value(x[static_cast<size_t>(a.input)]) : a.value);
            Tensor out;
            dispatch(builtin_op(name), args.data(), args.size(), &out, 1);
            return c;
          }};
}
Arg input(int i) { return Arg{i, Value()}; }
Arg value(Value v) { return Arg{-1, v}; }

std::vector<Case> pointwise_cases() {
  const Input m{{2, 3}}, row{{3}}, pos{{2, 3}, 0.5, 2.0}, unit{{2, 3}, -0.8, 0.8}, big{{2, 3}, 1.2, 3.0};
  // Values away from the integers and the activations' kinks (0, +-3, the hardtanh bounds).
  const Input off_kinks{{2, 3}, 0, 0, {-2.6, -1.4, -0.3, 0.4, 1.3, 2.7}};
  std::vector<Case> cs = {
      unary_case("exp2", m), unary_case("expm1", m), unary_case("log1p", pos), unary_case("log2", pos),
      unary_case("log10", pos), unary_case("tan", unit), unary_case("asin", unit), unary_case("acos", unit),
      unary_case("atan", m), unary_case("sinh", m), unary_case("cosh", m), unary_case("asinh", m),
      unary_case("acosh", big), unary_case("atanh", unit), unary_case("erf", m), unary_case("erfc", m),
      unary_case("erfinv", unit), unary_case("floor", off_kinks), unary_case("ceil", off_kinks),
      unary_case("round", off_kinks), unary_case("trunc", off_kinks), unary_case("frac", off_kinks),
      unary_case("sign", off_kinks), unary_case("square", m), unary_case("silu", m), unary_case("mish", m),
      unary_case("selu", off_kinks), unary_case("hardsigmoid", off_kinks), unary_case("hardswish", off_kinks),
      {{"round.decimals"}, {off_kinks}, [](const Inputs& x) { return op("round.decimals", {x[0], 1}); }},
      {{"nan_to_num"}, {m}, [](const Inputs& x) { return op("nan_to_num", {x[0], Value(), Value(), Value()}); }},
      {{"gelu"}, {m}, [](const Inputs& x) {
         return ops::add(op("gelu", {x[0], "none"}), op("gelu", {x[0], "tanh"}));
       }},
      {{"softplus"}, {off_kinks}, [](const Inputs& x) {
         return ops::add(op("softplus", {x[0], 1, 20}), op("softplus", {x[0], 2.0, 1.0}));
       }},
      {{"elu"}, {off_kinks}, [](const Inputs& x) { return op("elu", {x[0], 1.5, 2.0, 0.5}); }},
      {{"leaky_relu"}, {off_kinks}, [](const Inputs& x) { return op("leaky_relu", {x[0], 0.2}); }},
      {{"hardtanh"}, {off_kinks}, [](const Inputs& x) { return op("hardtanh", {x[0], -2.0, 2.0}); }},
      {{"clamp_min", "clamp_max"}, {m}, [](const Inputs& x) {
         return ops::add(op("clamp_min", {x[0], 0.05}), op("clamp_max", {x[0], -0.05}));
       }},
      inplace_case("clamp_", {off_kinks}, {value(-2.0), value(1.0)}),
      inplace_case("clamp_min_", {off_kinks}, {value(-1.0)}),
      inplace_case("clamp_max_", {off_kinks}, {value(0.0)}),
      unary_case("relu6", {{2, 3}, 0, 0, {-1.4, 0.3, 2.7, 5.6, 6.4, 3.1}}), unary_case("log_sigmoid", m),
      unary_case("softsign", off_kinks), unary_case("tanhshrink", m),
      {{"celu"}, {off_kinks}, [](const Inputs& x) { return op("celu", {x[0], 0.7}); }},
      {{"hardshrink", "softshrink"}, {off_kinks}, [](const Inputs& x) {
         return ops::add(op("hardshrink", {x[0], 0.5}), op("softshrink", {x[0], 1.0}));
       }},
      {{"threshold"}, {off_kinks}, [](const Inputs& x) { return op("threshold", {x[0], 0.1, -3.0}); }},
      {{"glu"}, {{{2, 4}}}, [](const Inputs& x) { return ops::add(ops::sum(op("glu", {x[0], -1})), ops::sum(op("glu", {x[0], 0}))); }},
      {{"prelu"}, {{{2, 3, 2}, 0, 0, {-1.2, 0.3, 0.8, -0.4, 1.5, -2.1, 0.6, -0.7, 1.1, -1.6, 0.2, 2.4}}, {{3}, 0.1, 0.5}},
       [](const Inputs& x) { return op("prelu", {x[0], x[1]}); }},
      {{"atan2.Tensor"}, {m, pos_row()}, [](const Inputs& x) { return op("atan2.Tensor", {x[0], x[1]}); }},
      {{"hypot.Tensor"}, {pos, row}, [](const Inputs& x) { return op("hypot.Tensor", {x[0], x[1]}); }},
      {{"fmod.Tensor", "fmod.Scalar"}, {pos, {{3}, 0, 0, {0.7, 0.9, 1.1}}}, [](const Inputs& x) {
         return ops::add(op("fmod.Tensor", {x[0], x[1]}), op("fmod.Scalar", {x[0], 0.75}));
       }},
      {{"remainder.Tensor", "remainder.Scalar"}, {pos, {{3}, 0, 0, {-0.7, 0.9, 1.1}}}, [](const Inputs& x) {
         return ops::add(op("remainder.Tensor", {x[0], x[1]}), op("remainder.Scalar", {x[0], -0.75}));
       }},
      {{"true_divide.Tensor", "true_divide.Scalar"}, {m, pos_row()}, [](const Inputs& x) {
         return ops::add(op("true_divide.Tensor", {x[0], x[1]}), op("true_divide.Scalar", {x[0], 4.0}));
       }},
      {{"lerp.Scalar"}, {m, row}, [](const Inputs& x) {
         return ops::add(op("lerp.Scalar", {x[0], x[1], 0.3}), op("lerp.Scalar", {x[0], x[1], 0.8}));
       }},
      {{"lerp.Tensor"}, {m, row, {{2, 1}}}, [](const Inputs& x) { return op("lerp.Tensor", {x[0], x[1], x[2]}); }},
      {{"addcmul"}, {m, row, {{2, 1}}}, [](const Inputs& x) { return op("addcmul", {x[0], x[1], x[2], 0.5}); }},
      {{"addcdiv"}, {m, row, {{2, 1}, 0.5, 2.0}}, [](const Inputs& x) { return op("addcdiv", {x[0], x[1], x[2], -2.0}); }},
  };
  // The element-function operators of fns.h (copysign ... frexp).
  const Input away_from_0{{2, 3}, 0, 0, {-1.7, -0.6, 0.3, 0.8, 1.4, 2.2}};
  const Input in_unit{{2, 3}, 0.1, 0.9};
  auto binary_case = [](const char* name, Input a, Input b) -> Case {
    return {{name}, {std::move(a), std::move(b)}, [name](const Inputs& x) { return op(name, {x[0], x[1]}); }};
  };
  cs.push_back({{"copysign.Tensor", "copysign.Scalar"}, {away_from_0, away_from_0}, [](const Inputs& x) {
                  return ops::add(op("copysign.Tensor", {x[0], x[1]}), op("copysign.Scalar", {x[0], -2.0}));
                }});
  cs.push_back(binary_case("logaddexp.Tensor", m, row));
  cs.push_back(binary_case("logaddexp2.Tensor", m, row));
  // The derivative is defined with respect to x only (as in PyTorch): a stays a constant, and the
  // in-place forms write into a copy of it.
  cs.push_back({{"igamma.Tensor", "igammac.Tensor", "igamma_.Tensor", "igammac_.Tensor"}, {{{3}, 0.5, 6.0}},
                [](const Inputs& x) {
                  const Tensor a = ops::arange(1, 4, 1, DType::Float64, kCPU);
                  const Tensor p = op("igamma.Tensor", {a, x[0]});
                  const Tensor q = op("igammac.Tensor", {ops::add(a, 0.5), x[0]});
                  const Tensor p_ = op("igamma_.Tensor", {ops::add(a, 1.0), x[0]});
                  const Tensor q_ = op("igammac_.Tensor", {ops::add(a, 2.0), x[0]});
                  return ops::add(ops::add(p, ops::mul(q, Scalar(3.0))), ops::add(p_, ops::mul(q_, Scalar(2.0))));
                }});
  cs.push_back({{"xlogy.Tensor", "xlogy.Scalar_Other", "xlogy.Scalar_Self"}, {m, {{3}, 0.5, 2.0}}, [](const Inputs& x) {
                  return ops::add(ops::add(op("xlogy.Tensor", {x[0], x[1]}), op("xlogy.Scalar_Other", {x[0], 3.0})),
                                  op("xlogy.Scalar_Self", {1.5, x[1]}));
                }});
  // fmax and fmin: inputs that never tie, so each element's derivative is one operand's.
  const Input other_side{{2, 3}, 0, 0, {-1.2, -0.1, 0.5, 0.9, 1.0, 2.5}};
  cs.push_back(binary_case("fmax.Tensor", away_from_0, other_side));
  cs.push_back(binary_case("fmin.Tensor", away_from_0, other_side));
  cs.push_back({{"float_power.Tensor", "float_power.Tensor_Scalar"}, {pos, row}, [](const Inputs& x) {
                  return ops::add(op("float_power.Tensor", {x[0], x[1]}), op("float_power.Tensor_Scalar", {x[0], 2.5}));
                }});
  cs.push_back(binary_case("ldexp.Tensor", m, row));
  for (const char* name : {"deg2rad", "rad2deg", "sinc", "i0", "special_i1"}) cs.push_back(unary_case(name, m));
  cs.push_back(unary_case("lgamma", pos));
  cs.push_back(unary_case("digamma", pos));
  cs.push_back(unary_case("fix", off_kinks));
  cs.push_back({{"logit"}, {in_unit}, [](const Inputs& x) {
                  return ops::add(op("logit", {x[0], Value()}), op("logit", {x[0], 0.05}));
                }});
  cs.push_back({{"polygamma"}, {pos}, [](const Inputs& x) {
                  return ops::add(op("polygamma", {1, x[0]}), op("polygamma", {2, x[0]}));
                }});
  cs.push_back({{"frexp.Tensor"}, {away_from_0}, [](const Inputs& x) {  // the mantissa
                  Value args[1] = {Value(x[0])};
                  Tensor outs[2];
                  dispatch(builtin_op("frexp.Tensor"), args, 1, outs, 2);
                  return outs[0];
                }, /*second_order=*/false});
  for (const char* name : {"deg2rad_", "rad2deg_", "sinc_", "i0_", "special_i1_", "fix_"})
    cs.push_back(inplace_case(name, {away_from_0}));
  for (const char* name : {"lgamma_", "digamma_"}) cs.push_back(inplace_case(name, {pos}));
  cs.push_back(inplace_case("logit_", {in_unit}, {value(Value())}));
  cs.push_back(inplace_case("copysign_.Tensor", {away_from_0, away_from_0}, {input(1)}));
  cs.push_back(inplace_case("copysign_.Scalar", {away_from_0}, {value(-1.0)}));
  cs.push_back(inplace_case("xlogy_.Tensor", {m, {{3}, 0.5, 2.0}}, {input(1)}));
  cs.push_back(inplace_case("xlogy_.Scalar_Other", {m}, {value(2.0)}));
  cs.push_back(inplace_case("ldexp_.Tensor", {m, row}, {input(1)}));
  cs.push_back(inplace_case("float_power_.Tensor", {pos, row}, {input(1)}));
  cs.push_back(inplace_case("float_power_.Tensor_Scalar", {pos}, {value(2.5)}));
  // In-place forms: the same derivative through autograd's in-place handling.
  for (const char* name : {"neg_", "abs_", "relu_", "exp_", "sin_", "cos_", "tanh_", "sigmoid_", "exp2_", "expm1_",
                           "atan_", "sinh_", "cosh_", "asinh_", "erf_", "erfc_", "square_", "silu_", "mish_",
                           "gelu_", "floor_", "ceil_", "round_", "trunc_", "frac_", "sign_", "hardsigmoid_",
                           "hardswish_"})
    cs.push_back(std::string(name) == "gelu_" ? inplace_case(name, {m}, {value("tanh")}) : inplace_case(name, {off_kinks}));
  for (const char* name : {"log_", "sqrt_", "rsqrt_", "reciprocal_", "log1p_", "log2_", "log10_"})
    cs.push_back(inplace_case(name, {pos}));
  for (const char* name : {"tan_", "asin_", "acos_", "atanh_", "erfinv_"}) cs.push_back(inplace_case(name, {unit}));
  cs.push_back(inplace_case("acosh_", {big}));
  cs.push_back(inplace_case("round_.decimals", {off_kinks}, {value(1)}));
  cs.push_back(inplace_case("nan_to_num_", {m}, {value(Value()), value(Value()), value(Value())}));
  cs.push_back(inplace_case("softplus_", {off_kinks}, {value(2.0), value(1.0)}));
  cs.push_back(inplace_case("elu_", {off_kinks}, {value(1.5), value(2.0), value(0.5)}));
  cs.push_back(inplace_case("leaky_relu_", {off_kinks}, {value(0.2)}));
  cs.push_back(inplace_case("hardtanh_", {off_kinks}, {value(-2.0), value(2.0)}));
  cs.push_back(inplace_case("atan2_.Tensor", {m, pos_row()}, {input(1)}));
  cs.push_back(inplace_case("hypot_.Tensor", {pos, row}, {input(1)}));
  cs.push_back(inplace_case("fmod_.Tensor", {pos, {{3}, 0, 0, {0.7, 0.9, 1.1}}}, {input(1)}));
  cs.push_back(inplace_case("fmod_.Scalar", {pos}, {value(0.75)}));
  cs.push_back(inplace_case("remainder_.Tensor", {pos, {{3}, 0, 0, {-0.7, 0.9, 1.1}}}, {input(1)}));
  cs.push_back(inplace_case("remainder_.Scalar", {pos}, {value(-0.75)}));
  cs.push_back(inplace_case("lerp_.Scalar", {m, row}, {input(1), value(0.3)}));
  cs.push_back(inplace_case("lerp_.Tensor", {m, row, {{2, 1}}}, {input(1), input(2)}));
  cs.push_back(inplace_case("addcmul_", {m, row, {{2, 1}}}, {input(1), input(2), value(0.5)}));
  cs.push_back(inplace_case("addcdiv_", {m, row, {{2, 1}, 0.5, 2.0}}, {input(1), input(2), value(-2.0)}));
  return cs;
}

const GradCheckFamily family(pointwise_cases);

}  // namespace
}  // namespace ct::gradcheck
