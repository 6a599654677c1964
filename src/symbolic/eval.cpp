// eval.cpp - evaluating expressions under a binding of symbols to values.
#include "symbolic/eval.h"

#include <cmath>

#include "symbolic/arith.h"

namespace ct::sym {

BoundValue apply(const Node& n, const BoundValue* v) {
  BoundValue r{};
  const size_t k = n.args.size();
  const bool is_float = n.type == Type::Float;
  switch (n.op) {
    case Op::Const:
    case Op::Symbol: fail(CT_ERROR_INTERNAL, "symbolic apply: a leaf has no operation");
    case Op::Add:
      if (is_float) { r.f = 0; for (size_t i = 0; i < k; ++i) r.f += v[i].f; }
      else { r.i = 0; for (size_t i = 0; i < k; ++i) r.i = checked_add(r.i, v[i].i); }
      return r;
    case Op::Mul:
      if (is_float) { r.f = 1; for (size_t i = 0; i < k; ++i) r.f *= v[i].f; }
      else { r.i = 1; for (size_t i = 0; i < k; ++i) r.i = checked_mul(r.i, v[i].i); }
      return r;
    case Op::FloorDiv:
      if (is_float) {
        CT_CHECK(v[1].f != 0, CT_ERROR_INVALID_ARGUMENT, "symbolic floordiv: division by zero");
        r.f = std::floor(v[0].f / v[1].f);
      } else {
        r.i = py_floordiv(v[0].i, v[1].i);
      }
      return r;
    case Op::Mod:
      if (is_float) r.f = py_fmod(v[0].f, v[1].f);
      else r.i = py_mod(v[0].i, v[1].i);
      return r;
    case Op::Pow:
      if (is_float) r.f = std::pow(v[0].f, v[1].f);
      else r.i = int_pow(v[0].i, v[1].i);
      return r;
    case Op::TrueDiv:
      CT_CHECK(v[1].f != 0, CT_ERROR_INVALID_ARGUMENT, "symbolic truediv: division by zero");
      r.f = v[0].f / v[1].f;
      return r;
    case Op::Eq:
    case Op::Ne:
    case Op::Lt:
    case Op::Le: {
      // Int relations compare their one canonical sum with 0 (Note [Canonical relations]).
      const bool one = k == 1;
      const double a = one ? 0 : v[0].f, b = one ? 0 : v[1].f;
      const int64_t e = one ? v[0].i : 0;
      switch (n.op) {
        case Op::Eq: r.i = one ? e == 0 : a == b; break;
        case Op::Ne: r.i = one ? e != 0 : a != b; break;
        case Op::Lt: r.i = a < b; break;
        default: r.i = one ? e <= 0 : a <= b; break;
      }
      return r;
    }
    case Op::And: r.i = 1; for (size_t i = 0; i < k; ++i) r.i = r.i && v[i].i; return r;
    case Op::Or: r.i = 0; for (size_t i = 0; i < k; ++i) r.i = r.i || v[i].i; return r;
    case Op::Not: r.i = !v[0].i; return r;
    case Op::Min:
    case Op::Max:
      r = v[0];
      for (size_t i = 1; i < k; ++i) {
        const bool take = is_float ? (n.op == Op::Min ? v[i].f < r.f : v[i].f > r.f)
                                   : (n.op == Op::Min ? v[i].i < r.i : v[i].i > r.i);
        if (take) r = v[i];
      }
      return r;
    case Op::Ite: return v[0].i ? v[1] : v[2];
    case Op::ToFloat: r.f = static_cast<double>(v[0].i); return r;
    case Op::ToInt: {
      const double t = std::trunc(v[0].f);
      CT_CHECK(std::isfinite(t) && std::fabs(t) < 9.2e18, CT_ERROR_INVALID_ARGUMENT, "sym_int: ", v[0].f,
               " does not fit an int64");
      r.i = static_cast<int64_t>(t);
      return r;
    }
  }
  fail(CT_ERROR_INTERNAL, "symbolic apply: unknown operation");
}

BoundValue evaluate(const Node* n, ArrayRef<BoundValue> binding) {
  switch (n->op) {
    case Op::Const: {
      BoundValue r;
      if (n->type == Type::Float) r.f = n->value.f;
      else r.i = n->value.i;
      return r;
    }
    case Op::Symbol: {
      const size_t s = static_cast<size_t>(n->value.i);
      CT_CHECK(s < binding.size(), CT_ERROR_INVALID_ARGUMENT, "symbolic evaluate: the binding has ",
               binding.size(), " values but the expression uses symbol #", s,
               ". Bind every symbol of the ShapeEnv, in creation order");
      return binding[s];
    }
    case Op::Ite:  // only the chosen branch: the other may divide by zero under this binding
      return evaluate(n->args[evaluate(n->args[0], binding).i ? 1 : 2], binding);
    default: break;
  }
  const size_t k = n->args.size();
  BoundValue small[8] = {};
  std::vector<BoundValue> big;
  BoundValue* v = small;
  if (k > 8) big.resize(k), v = big.data();
  for (size_t i = 0; i < k; ++i) v[i] = evaluate(n->args[i], binding);
  return apply(*n, v);
}

int64_t ShapeEnv::eval_int(const Node* n, ArrayRef<BoundValue> binding) const { return evaluate(n, binding).i; }
double ShapeEnv::eval_float(const Node* n, ArrayRef<BoundValue> binding) const {
  const BoundValue v = evaluate(n, binding);
  return n->type == Type::Float ? v.f : static_cast<double>(v.i);
}
bool ShapeEnv::eval_bool(const Node* n, ArrayRef<BoundValue> binding) const { return evaluate(n, binding).i != 0; }

}  // namespace ct::sym
