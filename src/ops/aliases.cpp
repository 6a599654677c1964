// aliases.cpp - torch's other names of operators, in one list: numpy's spellings (arccos, absolute,
// multiply), comparison words (greater, not_equal) and older names (fix, swapaxes). Each is a
// Registry::alias of the operator it names, so it has that operator's every overload, kernel,
// derivative and shape rule, and the C ABI and the bindings get it as they get any operator.
#include "dispatch/registry.h"

namespace ct::ops {

void define_aliases(Registry& r) {
  static constexpr const char* kAliases[][2] = {
      {"absolute", "abs"},        {"absolute_", "abs_"},       {"arccos", "acos"},
      {"arccos_", "acos_"},       {"arccosh", "acosh"},        {"arccosh_", "acosh_"},
      {"arcsin", "asin"},         {"arcsin_", "asin_"},        {"arcsinh", "asinh"},
      {"arcsinh_", "asinh_"},     {"arctan", "atan"},          {"arctan_", "atan_"},
      {"arctanh", "atanh"},       {"arctanh_", "atanh_"},      {"arctan2", "atan2"},
      {"arctan2_", "atan2_"},     {"negative", "neg"},         {"negative_", "neg_"},
      {"multiply", "mul"},        {"multiply_", "mul_"},       {"divide", "div"},
      {"divide_", "div_"},        {"subtract", "sub"},         {"subtract_", "sub_"},
      {"greater", "gt"},          {"greater_equal", "ge"},     {"less", "lt"},
      {"less_equal", "le"},       {"not_equal", "ne"},         {"fix", "trunc"},
      {"fix_", "trunc_"},         {"swapaxes", "transpose"},   {"swapdims", "transpose"},
      {"argwhere", "nonzero"},    {"clip", "clamp"},           {"clip_", "clamp_"},
      {"row_stack", "vstack"},    {"vdot", "dot"},  // vdot differs from dot for complex dtypes, which dot refuses
  };
  for (const auto& [name, target] : kAliases) r.alias(name, target);
}

}  // namespace ct::ops
