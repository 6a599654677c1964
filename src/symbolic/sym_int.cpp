// sym_int.cpp - the symbolic side of SymInt, SymFloat and SymBool: building nodes in their env.
#include "symbolic/sym_int.h"

#include <cmath>
#include <vector>

#include "symbolic/arith.h"
#include "symbolic/shape_env.h"

namespace ct {
namespace {

using sym::Node;
using sym::ShapeEnv;

// The one env the symbolic operands share; CT_ERROR_INVALID_ARGUMENT when they come from two.
ShapeEnv& env_of(std::initializer_list<Node*> nodes, const char* op) {
  ShapeEnv* env = nullptr;
  for (Node* n : nodes) {
    if (!n) continue;
    CT_CHECK(!env || env == n->env, CT_ERROR_INVALID_ARGUMENT, op,
             ": the operands are symbols of two different ShapeEnvs. Build every symbol of one traced "
             "program in one ShapeEnv");
    env = n->env;
  }
  if (!env) fail(CT_ERROR_INTERNAL, str(op, ": no symbolic operand"));
  return *env;
}

Node* node_or_null(SymInt s) { return s.is_symbolic() ? s.node() : nullptr; }

ShapeEnv& env_of_list(ArrayRef<SymInt> xs, const char* op) {
  ShapeEnv* found = nullptr;
  for (SymInt x : xs) {
    if (!x.is_symbolic()) continue;
    CT_CHECK(!found || found == x.node()->env, CT_ERROR_INVALID_ARGUMENT, op,
             ": the operands are symbols of two different ShapeEnvs. Build every symbol of one traced "
             "program in one ShapeEnv");
    found = x.node()->env;
  }
  return *found;
}

}  // namespace

// ---- SymInt ----

SymInt::SymInt(sym::Node* node) : v_(0) {
  CT_CHECK(node && node->type == sym::Type::Int, CT_ERROR_INVALID_ARGUMENT, "SymInt: not an int expression");
  if (node->is_const() || node->range.is_point()) {  // a constant, or a symbol whose range allows one value
    *this = SymInt(node->range.lo);
    return;
  }
  v_ = static_cast<int64_t>((uint64_t{2} << 62) | reinterpret_cast<uintptr_t>(node));
}

void SymInt::reserved(int64_t v) {
  throw UnattributedError(CT_ERROR_INVALID_ARGUMENT, str("the integer ", v, " is below -2^62, outside what a size, ",
                                                         "stride or index may be. Use a value in [-2^62, 2^63)"));
}

void SymInt::not_concrete(const char* what) const {
  fail(CT_ERROR_GUARD, str(what, " is the symbolic value ", *this, " where a concrete one is required. ",
                           "This operation cannot be traced with symbolic sizes; mark the size static"));
}

sym::ShapeEnv* SymInt::env() const { return is_symbolic() ? node()->env : nullptr; }

int64_t SymInt::guard_slow() const { return node()->env->guard_int(node()); }

SymInt SymInt::neg_slow() const { return SymInt(node()->env->neg(node())); }

Node* SymInt::to_node(ShapeEnv& env) const {
  if (!is_symbolic()) return env.int_const(v_);
  CT_CHECK(node()->env == &env, CT_ERROR_INVALID_ARGUMENT,
           "SymInt: a symbol of another ShapeEnv. Build every symbol of one traced program in one ShapeEnv");
  return node();
}

SymInt SymInt::binary_slow(BinOp op, SymInt a, SymInt b) {
  if (!a.is_symbolic() && !b.is_symbolic()) {  // concrete, off the inline path: overflow or Python rounding
    const int64_t x = a.v_, y = b.v_;
    int64_t r = 0;
    switch (op) {
      case BinOp::Add: if (__builtin_add_overflow(x, y, &r)) sym::overflow("add"); break;
      case BinOp::Sub: if (__builtin_sub_overflow(x, y, &r)) sym::overflow("sub"); break;
      case BinOp::Mul: if (__builtin_mul_overflow(x, y, &r)) sym::overflow("mul"); break;
      case BinOp::FloorDiv: r = sym::py_floordiv(x, y); break;
      case BinOp::Mod: r = sym::py_mod(x, y); break;
      case BinOp::Pow: r = sym::int_pow(x, y); break;
      case BinOp::Min: r = x < y ? x : y; break;
      case BinOp::Max: r = x > y ? x : y; break;
    }
    return SymInt(r);
  }
  ShapeEnv& env = env_of({node_or_null(a), node_or_null(b)}, "SymInt");
  Node* x = a.to_node(env);
  Node* y = b.to_node(env);
  switch (op) {
    case BinOp::Add: return SymInt(env.add(x, y));
    case BinOp::Sub: return SymInt(env.sub(x, y));
    case BinOp::Mul: return SymInt(env.mul(x, y));
    case BinOp::FloorDiv: return SymInt(env.floordiv(x, y));
    case BinOp::Mod: return SymInt(env.mod(x, y));
    case BinOp::Pow: return SymInt(env.pow(x, y));
    case BinOp::Min: return SymInt(env.min({x, y}));
    case BinOp::Max: return SymInt(env.max({x, y}));
  }
  fail(CT_ERROR_INTERNAL, "SymInt: unknown operation");
}

SymBool SymInt::relation_slow(RelOp op, SymInt a, SymInt b) {
  ShapeEnv& env = env_of({node_or_null(a), node_or_null(b)}, "SymInt");
  Node* x = a.to_node(env);
  Node* y = b.to_node(env);
  switch (op) {
    case RelOp::Eq: return SymBool(env.eq(x, y));
    case RelOp::Ne: return SymBool(env.ne(x, y));
    case RelOp::Lt: return SymBool(env.lt(x, y));
    case RelOp::Le: return SymBool(env.le(x, y));
    case RelOp::Gt: return SymBool(env.gt(x, y));
    case RelOp::Ge: return SymBool(env.ge(x, y));
  }
  fail(CT_ERROR_INTERNAL, "SymInt: unknown relation");
}

// ---- SymBool ----

SymBool::SymBool(sym::Node* node) : node_(node), v_(false) {
  CT_CHECK(node && node->type == sym::Type::Bool, CT_ERROR_INVALID_ARGUMENT, "SymBool: not a bool expression");
  if (node->is_const()) {
    v_ = node->int_value() != 0;
    node_ = nullptr;
  }
}

bool SymBool::guard_slow() const { return node_->env->guard_bool(node_); }

Node* SymBool::to_node(ShapeEnv& env) const { return node_ ? node_ : env.bool_const(v_); }

SymBool SymBool::and_slow(SymBool a, SymBool b) {
  ShapeEnv& env = env_of({a.node(), b.node()}, "SymBool and");
  return SymBool(env.logical_and({a.to_node(env), b.to_node(env)}));
}

SymBool SymBool::or_slow(SymBool a, SymBool b) {
  ShapeEnv& env = env_of({a.node(), b.node()}, "SymBool or");
  return SymBool(env.logical_or({a.to_node(env), b.to_node(env)}));
}

SymBool sym_not(SymBool b) {
  if (!b.is_symbolic()) return SymBool(!*b.maybe_bool());
  return SymBool(b.node()->env->logical_not(b.node()));
}

// ---- SymFloat ----

SymFloat::SymFloat(sym::Node* node) : node_(node), v_(0) {
  CT_CHECK(node && node->type != sym::Type::Bool, CT_ERROR_INVALID_ARGUMENT, "SymFloat: not a number expression");
  if (node->type == sym::Type::Int) node_ = node = node->env->to_float(node);
  if (node->is_const()) {
    v_ = node->float_value();
    node_ = nullptr;
  }
}

double SymFloat::guard_slow() const { return node_->env->guard_float(node_); }

Node* SymFloat::to_node(ShapeEnv& env) const { return node_ ? node_ : env.float_const(v_); }

SymFloat SymFloat::binary(BinOp op, SymFloat a, SymFloat b) {
  if (!a.is_symbolic() && !b.is_symbolic()) {
    const double x = a.v_, y = b.v_;
    switch (op) {
      case BinOp::Add: return x + y;
      case BinOp::Sub: return x - y;
      case BinOp::Mul: return x * y;
      case BinOp::TrueDiv:
        CT_CHECK(y != 0, CT_ERROR_INVALID_ARGUMENT, "SymFloat: division by zero");
        return x / y;
      case BinOp::FloorDiv:
        CT_CHECK(y != 0, CT_ERROR_INVALID_ARGUMENT, "SymFloat: division by zero");
        return std::floor(x / y);
      case BinOp::Mod: return sym::py_fmod(x, y);
      case BinOp::Pow: return std::pow(x, y);
      case BinOp::Min: return x < y ? x : y;
      case BinOp::Max: return x > y ? x : y;
    }
  }
  ShapeEnv& env = env_of({a.node_, b.node_}, "SymFloat");
  Node* x = a.to_node(env);
  Node* y = b.to_node(env);
  switch (op) {
    case BinOp::Add: return SymFloat(env.add(x, y));
    case BinOp::Sub: return SymFloat(env.sub(x, y));
    case BinOp::Mul: return SymFloat(env.mul(x, y));
    case BinOp::TrueDiv: return SymFloat(env.truediv(x, y));
    case BinOp::FloorDiv: return SymFloat(env.floordiv(x, y));
    case BinOp::Mod: return SymFloat(env.mod(x, y));
    case BinOp::Pow: return SymFloat(env.pow(x, y));
    case BinOp::Min: return SymFloat(env.min({x, y}));
    case BinOp::Max: return SymFloat(env.max({x, y}));
  }
  fail(CT_ERROR_INTERNAL, "SymFloat: unknown operation");
}

SymBool SymFloat::relation(SymInt::RelOp op, SymFloat a, SymFloat b) {
  if (!a.is_symbolic() && !b.is_symbolic()) {
    const double x = a.v_, y = b.v_;
    switch (op) {
      case SymInt::RelOp::Eq: return x == y;
      case SymInt::RelOp::Ne: return x != y;
      case SymInt::RelOp::Lt: return x < y;
      case SymInt::RelOp::Le: return x <= y;
      case SymInt::RelOp::Gt: return x > y;
      case SymInt::RelOp::Ge: return x >= y;
    }
  }
  ShapeEnv& env = env_of({a.node_, b.node_}, "SymFloat");
  Node* x = a.to_node(env);
  Node* y = b.to_node(env);
  switch (op) {
    case SymInt::RelOp::Eq: return SymBool(env.eq(x, y));
    case SymInt::RelOp::Ne: return SymBool(env.ne(x, y));
    case SymInt::RelOp::Lt: return SymBool(env.lt(x, y));
    case SymInt::RelOp::Le: return SymBool(env.le(x, y));
    case SymInt::RelOp::Gt: return SymBool(env.gt(x, y));
    case SymInt::RelOp::Ge: return SymBool(env.ge(x, y));
  }
  fail(CT_ERROR_INTERNAL, "SymFloat: unknown relation");
}

// ---- n-ary builders: one node, no guard ----


namespace {
template <typename Build>
SymInt nary(ArrayRef<SymInt> xs, const char* op, int64_t (*fold)(int64_t, int64_t), bool empty_is_zero,
           Build build) {
  CT_CHECK(!xs.empty() || empty_is_zero, CT_ERROR_INVALID_ARGUMENT, op, ": no arguments");
  if (!any_symbolic(xs)) {
    int64_t r = xs.empty() ? 0 : xs[0].raw();
    for (size_t i = xs.empty() ? 0 : 1; i < xs.size(); ++i) r = fold(r, xs[i].raw());
    return SymInt(r);
  }
  ShapeEnv& env = env_of_list(xs, op);
  std::vector<Node*> nodes;
  nodes.reserve(xs.size());
  for (SymInt x : xs) nodes.push_back(x.to_node(env));
  return SymInt(build(env, std::move(nodes)));
}
}  // namespace

SymInt sym_max(ArrayRef<SymInt> xs) {
  return nary(xs, "sym_max", [](int64_t a, int64_t b) { return a > b ? a : b; }, false,
              [](ShapeEnv& e, std::vector<Node*> n) { return e.max(std::move(n)); });
}
SymInt sym_min(ArrayRef<SymInt> xs) {
  return nary(xs, "sym_min", [](int64_t a, int64_t b) { return a < b ? a : b; }, false,
              [](ShapeEnv& e, std::vector<Node*> n) { return e.min(std::move(n)); });
}
SymInt sym_sum(ArrayRef<SymInt> xs) {
  return nary(xs, "sym_sum", sym::checked_add, true,
              [](ShapeEnv& e, std::vector<Node*> n) { return e.add(std::move(n)); });
}

SymInt sym_ite(SymBool c, SymInt a, SymInt b) {
  if (!c.is_symbolic()) return *c.maybe_bool() ? a : b;
  ShapeEnv& env = env_of({c.node(), node_or_null(a), node_or_null(b)}, "sym_ite");
  return SymInt(env.ite(c.node(), a.to_node(env), b.to_node(env)));
}

SymFloat sym_ite(SymBool c, SymFloat a, SymFloat b) {
  if (!c.is_symbolic()) return *c.maybe_bool() ? a : b;
  ShapeEnv& env = env_of({c.node(), a.node(), b.node()}, "sym_ite");
  return SymFloat(env.ite(c.node(), a.to_node(env), b.to_node(env)));
}

SymFloat sym_float(SymInt a) {
  if (!a.is_symbolic()) return SymFloat(static_cast<double>(a.raw()));
  return SymFloat(a.node()->env->to_float(a.node()));
}

SymInt sym_int(SymFloat a) {
  if (!a.is_symbolic()) {
    const double t = std::trunc(*a.maybe_float());
    CT_CHECK(std::isfinite(t) && std::fabs(t) < 9.2e18, CT_ERROR_INVALID_ARGUMENT, "sym_int: ", *a.maybe_float(),
             " does not fit an int64");
    return SymInt(static_cast<int64_t>(t));
  }
  return SymInt(a.node()->env->to_int(a.node()));
}

int64_t size_hint(SymInt s) {
  if (!s.is_symbolic()) return s.raw();
  return s.node()->has_hint ? s.node()->hint.i : 1;
}

SymInt sym_pow(SymInt a, SymInt b) { return SymInt::binary_slow(SymInt::BinOp::Pow, a, b); }

SymFloat sym_truediv(SymInt a, SymInt b) { return SymFloat::binary(SymFloat::BinOp::TrueDiv, sym_float(a), sym_float(b)); }

void sym_check(SymBool cond, ct_status status, const std::string& message) {
  if (!cond.is_symbolic()) {
    if (!*cond.maybe_bool()) fail(status, message);
    return;
  }
  cond.node()->env->check(cond.node(), status, message);
}

// ---- printing ----

std::ostream& operator<<(std::ostream& os, SymInt s) {
  if (!s.is_symbolic()) return os << s.raw();
  return os << s.node()->env->to_string(s.node());
}
std::ostream& operator<<(std::ostream& os, SymFloat s) {
  if (!s.is_symbolic()) return os << *s.maybe_float();
  return os << s.node()->env->to_string(s.node());
}
std::ostream& operator<<(std::ostream& os, SymBool s) {
  if (!s.is_symbolic()) return os << (*s.maybe_bool() ? "True" : "False");
  return os << s.node()->env->to_string(s.node());
}
std::ostream& operator<<(std::ostream& os, ArrayRef<SymInt> a) {
  os << '[';
  for (size_t i = 0; i < a.size(); ++i) os << (i ? ", " : "") << a[i];
  return os << ']';
}

}  // namespace ct
