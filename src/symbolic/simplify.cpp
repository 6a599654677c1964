// simplify.cpp - the ShapeEnv's simplifying constructors: every expression node is built here.
//
// Note [Canonical sums and products]
// An Int sum is a list of terms c*m (m a symbol or a product without coefficient) sorted by m's id,
// like terms merged, zero terms dropped, and one constant last; an Int product is an optional
// coefficient first and then its factors sorted by id. A constant times a sum distributes
// (2*(s0 + 1) is 2*s0 + 2), other products of sums stay whole. With hash-consing (Note
// [Hash-consed expressions]) this makes equal linear expressions the same node, which is what lets
// (s0*4)//4 become s0 and s0 - s0 become 0.
//
// Note [Canonical relations]
// An Int comparison is rewritten as one of e <= 0, e == 0, e != 0 over the difference of its sides
// (a < b is a - b + 1 <= 0), with the coefficients divided by their gcd and, for == and !=, the
// first coefficient made positive. So s0 > 0, 0 < s0 and s0 >= 1 are one node and one guard.
//
// Note [Range facts]
// Every Int and Bool node carries the interval its value lies in, computed from its arguments' when
// it is built. A node whose interval is one point is that constant: max(s0, 1) is s0 when s0 >= 1,
// s0 >= 0 is true for a size, and a symbol a guard pinned to 8 folds wherever it is used next.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "symbolic/arith.h"
#include "symbolic/eval.h"
#include "symbolic/shape_env.h"

namespace ct::sym {
namespace {

constexpr int64_t kNegInf = Range::kNegInf;
constexpr int64_t kPosInf = Range::kPosInf;

bool is_inf(int64_t v) { return v == kNegInf || v == kPosInf; }

// Saturating interval arithmetic: an infinite end stays infinite, an overflow becomes one.
int64_t add_bound(int64_t a, int64_t b, int64_t inf) {
  if (a == inf || b == inf) return inf;
  if (is_inf(a) || is_inf(b)) return inf;  // -inf + +inf: unknown, widen toward this end
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return a > 0 ? kPosInf : kNegInf;
  return r;
}

int64_t mul_bound(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  const bool neg = (a < 0) != (b < 0);
  int64_t r;
  if (is_inf(a) || is_inf(b) || __builtin_mul_overflow(a, b, &r)) return neg ? kNegInf : kPosInf;
  return r;
}

Range range_add(Range a, Range b) { return {add_bound(a.lo, b.lo, kNegInf), add_bound(a.hi, b.hi, kPosInf)}; }

Range range_mul(Range a, Range b) {
  const int64_t c[4] = {mul_bound(a.lo, b.lo), mul_bound(a.lo, b.hi), mul_bound(a.hi, b.lo), mul_bound(a.hi, b.hi)};
  return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
}

int64_t floordiv_bound(int64_t a, int64_t k) { return is_inf(a) ? a : py_floordiv(a, k); }

Range bool_range(bool can_be_false, bool can_be_true) { return {can_be_false ? 0 : 1, can_be_true ? 1 : 0}; }

// The interval of a node about to be built from its arguments (see Note [Range facts]).
Range compute_range(const Node& n) {
  const auto r = [&](size_t i) { return n.args[i]->range; };
  switch (n.op) {
    case Op::Const: return {n.value.i, n.value.i};
    case Op::Add: {
      Range s{0, 0};
      for (size_t i = 0; i < n.args.size(); ++i) s = range_add(s, r(i));
      return s;
    }
    case Op::Mul: {
      Range p{1, 1};
      for (size_t i = 0; i < n.args.size(); ++i) p = range_mul(p, r(i));
      return p;
    }
    case Op::FloorDiv: {
      const Range a = r(0), b = r(1);
      if (b.is_point() && b.lo > 0) return {floordiv_bound(a.lo, b.lo), floordiv_bound(a.hi, b.lo)};
      if (a.lo >= 0 && b.lo > 0) return {b.hi == kPosInf ? 0 : a.lo / b.hi, a.hi == kPosInf ? kPosInf : a.hi / b.lo};
      return {};
    }
    case Op::Mod: {
      const Range a = r(0), b = r(1);
      if (b.lo <= 0) return {};
      Range m{0, b.hi == kPosInf ? kPosInf : b.hi - 1};
      if (a.lo >= 0) m.hi = std::min(m.hi, a.hi);
      return m;
    }
    case Op::Pow: {
      const Range a = r(0), e = r(1);
      if (a.lo < 0 || !e.is_point() || e.lo < 0) return {};
      Range p{1, 1};
      for (int64_t i = 0; i < e.lo && i < 64; ++i) p = range_mul(p, a);
      return e.lo < 64 ? p : Range{a.lo <= 1 ? a.lo : kPosInf, kPosInf};
    }
    case Op::Min:
    case Op::Max: {
      Range m = r(0);
      for (size_t i = 1; i < n.args.size(); ++i) {
        const Range x = r(i);
        m = n.op == Op::Min ? Range{std::min(m.lo, x.lo), std::min(m.hi, x.hi)}
                            : Range{std::max(m.lo, x.lo), std::max(m.hi, x.hi)};
      }
      return m;
    }
    case Op::Ite: return {std::min(r(1).lo, r(2).lo), std::max(r(1).hi, r(2).hi)};
    case Op::Le:
    case Op::Eq:
    case Op::Ne: {
      if (n.args.size() != 1) return {0, 1};  // float relation
      const Range e = r(0);
      if (n.op == Op::Le) return bool_range(e.hi > 0, e.lo <= 0);
      const bool may_be_zero = e.contains(0), must_be_zero = e.lo == 0 && e.hi == 0;
      return n.op == Op::Eq ? bool_range(!must_be_zero, may_be_zero) : bool_range(may_be_zero, !must_be_zero);
    }
    case Op::Not: return {1 - r(0).hi, 1 - r(0).lo};
    case Op::And:
    case Op::Or: {
      Range m = r(0);
      for (size_t i = 1; i < n.args.size(); ++i)
        m = n.op == Op::And ? Range{std::min(m.lo, r(i).lo), std::min(m.hi, r(i).hi)}
                            : Range{std::max(m.lo, r(i).lo), std::max(m.hi, r(i).hi)};
      return m;
    }
    default: return n.type == Type::Bool ? Range{0, 1} : Range{};
  }
}

bool by_id(const Node* a, const Node* b) { return a->id < b->id; }

// A 64-bit hash step (the finalizer of MurmurHash3) for interning.
uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

void require(Node* n, Type t, const char* op) {
  CT_CHECK(n->type == t, CT_ERROR_INVALID_ARGUMENT, "symbolic ", op, ": expected a",
           t == Type::Bool ? " bool" : t == Type::Int ? "n int" : " float", " operand but got ",
           n->type == Type::Bool ? "a bool" : n->type == Type::Int ? "an int" : "a float");
}

void require_number(Node* n, const char* op) {
  CT_CHECK(n->type != Type::Bool, CT_ERROR_INVALID_ARGUMENT, "symbolic ", op,
           ": a bool is not a number here. Convert it with sym_ite(b, 1, 0)");
}

bool any_float(const std::vector<Node*>& xs) {
  for (Node* x : xs) if (x->type == Type::Float) return true;
  return false;
}

}  // namespace

// ---- nodes and interning ----

// Ranges only narrow (Note [Range facts]), so a range computed before a fact was recorded is still
// true, only looser. A node is brought up to date lazily, when it is looked up or built upon.
void ShapeEnv::refresh(Node* n) {
  if (n->epoch == epoch_ || n->op == Op::Const) return;
  n->epoch = epoch_;
  if (n->op == Op::Symbol || n->type == Type::Float) return;
  for (Node* a : n->args) refresh(a);
  const Range r = compute_range(*n);
  n->range = {std::max(n->range.lo, r.lo), std::min(n->range.hi, r.hi)};
}

Node* ShapeEnv::intern(Node&& proto) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  proto.env = this;
  proto.epoch = epoch_;
  if (proto.op != Op::Const) {
    if (proto.type != Type::Float) {
      for (Node* a : proto.args) refresh(a);
      proto.range = compute_range(proto);
      if (proto.range.is_point())  // see Note [Range facts]
        return proto.type == Type::Int ? int_const(proto.range.lo) : bool_const(proto.range.lo != 0);
    }
    proto.has_hint = true;
    for (Node* a : proto.args) proto.has_hint = proto.has_hint && a->has_hint;
    if (proto.has_hint) {
      BoundValue argv[8];
      std::vector<BoundValue> many;
      BoundValue* v = argv;
      if (proto.args.size() > 8) many.resize(proto.args.size()), v = many.data();
      for (size_t i = 0; i < proto.args.size(); ++i) std::memcpy(&v[i], &proto.args[i]->hint, sizeof(BoundValue));
      try {
        const BoundValue h = apply(proto, v);
        std::memcpy(&proto.hint, &h, sizeof h);
      } catch (const Error&) {  // e.g. a division by zero under the hints: no value to guard with
        proto.has_hint = false;
      }
    }
  } else {
    proto.has_hint = true;
    std::memcpy(&proto.hint, &proto.value, sizeof proto.hint);
    if (proto.type != Type::Float) proto.range = {proto.value.i, proto.value.i};
  }
  int64_t bits;
  std::memcpy(&bits, &proto.value, sizeof bits);
  uint64_t key = mix(static_cast<uint64_t>(proto.op) << 8 | static_cast<uint64_t>(proto.type), static_cast<uint64_t>(bits));
  for (Node* a : proto.args) key = mix(key, reinterpret_cast<uintptr_t>(a));
  auto [first, last] = interned_.equal_range(key);
  auto it = std::find_if(first, last, [&](const auto& kv) {
    const Node& n = *kv.second;
    int64_t b;
    std::memcpy(&b, &n.value, sizeof b);
    return n.op == proto.op && n.type == proto.type && b == bits && n.args == proto.args;
  });
  if (it != last) {
    Node* hit = it->second;
    refresh(hit);
    if (hit->type != Type::Float && hit->range.is_point() && !hit->is_const())  // a fact decided it since
      return hit->type == Type::Int ? int_const(hit->range.lo) : bool_const(hit->range.lo != 0);
    return hit;
  }
  proto.id = static_cast<uint32_t>(nodes_.size());
  nodes_.push_back(std::move(proto));
  Node* n = &nodes_.back();
  interned_.emplace(key, n);
  return n;
}

namespace {
Node make(Op op, Type type, std::vector<Node*> args) {
  Node n{};
  n.op = op;
  n.type = type;
  n.args = std::move(args);
  return n;
}
}  // namespace

Node* ShapeEnv::int_const(int64_t v) {
  Node n = make(Op::Const, Type::Int, {});
  n.value.i = v;
  return intern(std::move(n));
}
Node* ShapeEnv::float_const(double v) {
  Node n = make(Op::Const, Type::Float, {});
  n.value.f = v == 0 ? 0.0 : v;  // one zero: -0.0 and 0.0 intern alike
  return intern(std::move(n));
}
Node* ShapeEnv::bool_const(bool v) {
  Node n = make(Op::Const, Type::Bool, {});
  n.value.i = v;
  return intern(std::move(n));
}

// ---- sums and products (Note [Canonical sums and products]) ----

namespace {
struct Term {
  Node* mono;
  int64_t coeff;
};
}  // namespace

// t as coeff * mono, mono without a coefficient.
static Node* split_term(ShapeEnv& env, Node* t, int64_t& coeff) {
  if (t->op == Op::Mul && t->args[0]->is_const()) {
    coeff = t->args[0]->int_value();
    if (t->args.size() == 2) return t->args[1];
    if (!t->mono) t->mono = env.mul(std::vector<Node*>(t->args.begin() + 1, t->args.end()));
    return t->mono;
  }
  coeff = 1;
  return t;
}

static Node* make_term(ShapeEnv& env, int64_t coeff, Node* mono) {
  if (coeff == 0) return env.int_const(0);
  if (coeff == 1) return mono;
  std::vector<Node*> args{env.int_const(coeff)};
  if (mono->op == Op::Mul) args.insert(args.end(), mono->args.begin(), mono->args.end());
  else args.push_back(mono);
  return &*env.mul(std::move(args));
}

// The terms and constant of an Int expression (a sum or a single term).
static void collect_terms(ShapeEnv& env, Node* x, std::vector<Term>& terms, int64_t& constant) {
  if (x->is_const()) {
    constant = checked_add(constant, x->int_value());
  } else if (x->op == Op::Add) {
    for (Node* a : x->args) collect_terms(env, a, terms, constant);
  } else {
    Term t;
    t.mono = split_term(env, x, t.coeff);
    terms.push_back(t);
  }
}

static Node* sum_of(ShapeEnv& env, std::vector<Term> terms, int64_t constant) {
  std::sort(terms.begin(), terms.end(), [](const Term& a, const Term& b) { return a.mono->id < b.mono->id; });
  std::vector<Node*> args;
  for (size_t i = 0; i < terms.size();) {
    int64_t c = 0;
    size_t j = i;
    for (; j < terms.size() && terms[j].mono == terms[i].mono; ++j) c = checked_add(c, terms[j].coeff);
    if (c != 0) args.push_back(make_term(env, c, terms[i].mono));
    i = j;
  }
  if (constant != 0 || args.empty()) args.push_back(env.int_const(constant));
  if (args.size() == 1) return args[0];
  Node n = make(Op::Add, Type::Int, std::move(args));
  return env.intern(std::move(n));
}

Node* ShapeEnv::add(std::vector<Node*> xs) {
  std::lock_guard<std::recursive_mutex> lock(mu_);  // symbol ranges may narrow meanwhile
  for (Node* x : xs) require_number(x, "add");
  if (any_float(xs)) {
    double c = 0;
    std::vector<Node*> args;
    for (Node* x : xs) {
      Node* f = to_float(x);
      if (f->is_const()) c += f->float_value();
      else if (f->op == Op::Add) for (Node* a : f->args) a->is_const() ? void(c += a->float_value()) : args.push_back(a);
      else args.push_back(f);
    }
    std::sort(args.begin(), args.end(), by_id);
    if (c != 0 || args.empty()) args.push_back(float_const(c));
    if (args.size() == 1) return args[0];
    return intern(make(Op::Add, Type::Float, std::move(args)));
  }
  std::vector<Term> terms;
  int64_t constant = 0;
  for (Node* x : xs) collect_terms(*this, x, terms, constant);
  return sum_of(*this, std::move(terms), constant);
}

Node* ShapeEnv::neg(Node* a) { return mul({int_const(-1), a}); }
Node* ShapeEnv::sub(Node* a, Node* b) { return add({a, neg(b)}); }

Node* ShapeEnv::mul(std::vector<Node*> xs) {
  std::lock_guard<std::recursive_mutex> lock(mu_);  // symbol ranges may narrow meanwhile
  for (Node* x : xs) require_number(x, "mul");
  if (any_float(xs)) {
    double c = 1;
    std::vector<Node*> args;
    for (Node* x : xs) {
      Node* f = to_float(x);
      if (f->is_const()) c *= f->float_value();
      else if (f->op == Op::Mul) for (Node* a : f->args) a->is_const() ? void(c *= a->float_value()) : args.push_back(a);
      else args.push_back(f);
    }
    std::sort(args.begin(), args.end(), by_id);
    if (c != 1 || args.empty()) args.insert(args.begin(), float_const(c));
    if (args.size() == 1) return args[0];
    return intern(make(Op::Mul, Type::Float, std::move(args)));
  }
  int64_t c = 1;
  std::vector<Node*> factors;
  for (Node* x : xs) {
    if (x->is_const()) c = checked_mul(c, x->int_value());
    else if (x->op == Op::Mul)
      for (Node* a : x->args) a->is_const() ? void(c = checked_mul(c, a->int_value())) : factors.push_back(a);
    else factors.push_back(x);
  }
  if (c == 0 || factors.empty()) return int_const(c);
  if (factors.size() == 1) {
    if (c == 1) return factors[0];
    if (factors[0]->op == Op::Add) {  // distribute the constant over the sum
      std::vector<Term> terms;
      int64_t constant = 0;
      collect_terms(*this, factors[0], terms, constant);
      for (Term& t : terms) t.coeff = checked_mul(t.coeff, c);
      return sum_of(*this, std::move(terms), checked_mul(constant, c));
    }
  }
  std::sort(factors.begin(), factors.end(), by_id);
  if (c != 1) factors.insert(factors.begin(), int_const(c));
  return intern(make(Op::Mul, Type::Int, std::move(factors)));
}

// ---- division, modulo, powers ----

namespace {
// Splits a's terms into those whose coefficient k divides (returned divided by k, in q) and the
// rest (in rest, with the constant in constant).
void split_divisible(ShapeEnv& env, Node* a, int64_t k, std::vector<Term>& q, std::vector<Term>& rest,
                     int64_t& constant) {
  std::vector<Term> terms;
  collect_terms(env, a, terms, constant);
  for (const Term& t : terms) {
    if (t.coeff % k == 0) q.push_back({t.mono, t.coeff / k});
    else rest.push_back(t);
  }
}

// a == b * x for an integer x (8*s0*s1 over 2*s0 is 4*s1): returns x, or null.
Node* exact_quotient(ShapeEnv& env, Node* a, Node* b) {
  if (a == b) return env.int_const(1);
  int64_t ca, cb;
  Node* ma = split_term(env, a, ca);
  Node* mb = split_term(env, b, cb);
  // MIN / -1 does not fit (and traps): no exact quotient then.
  if (cb == 0 || (cb == -1 && ca == INT64_MIN) || ca % cb != 0) return nullptr;
  std::vector<Node*> rest = ma->op == Op::Mul ? ma->args : std::vector<Node*>{ma};
  for (Node* f : mb->op == Op::Mul ? mb->args : std::vector<Node*>{mb}) {
    auto it = std::find(rest.begin(), rest.end(), f);
    if (it == rest.end()) return nullptr;
    rest.erase(it);
  }
  rest.push_back(env.int_const(ca / cb));
  return env.mul(std::move(rest));
}

bool excludes_zero(Range r) { return r.lo > 0 || r.hi < 0; }
}  // namespace

Node* ShapeEnv::floordiv(Node* a, Node* b) {
  std::lock_guard<std::recursive_mutex> lock(mu_);  // symbol ranges may narrow meanwhile
  require_number(a, "floordiv");
  require_number(b, "floordiv");
  if (a->type == Type::Float || b->type == Type::Float) {
    Node* fa = to_float(a);
    Node* fb = to_float(b);
    if (fa->is_const() && fb->is_const()) {
      CT_CHECK(fb->float_value() != 0, CT_ERROR_INVALID_ARGUMENT, "symbolic floordiv: division by zero");
      return float_const(std::floor(fa->float_value() / fb->float_value()));
    }
    return intern(make(Op::FloorDiv, Type::Float, {fa, fb}));
  }
  if (b->is_const()) {
    const int64_t k = b->int_value();
    check_divisor(k, "floordiv");
    if (a->is_const()) return int_const(py_floordiv(a->int_value(), k));
    if (k == 1) return a;
    if (k == -1) return neg(a);
    if (k > 0) {
      std::vector<Term> q, rest;
      int64_t constant = 0;
      split_divisible(*this, a, k, q, rest, constant);
      if (rest.empty()) return sum_of(*this, std::move(q), py_floordiv(constant, k));
      Node* r = sum_of(*this, rest, constant);
      const Range rr = r->range;
      if (rr.lo >= 0 && rr.hi < k) return sum_of(*this, std::move(q), 0);
      if (!q.empty()) return add(sum_of(*this, std::move(q), 0), floordiv(r, b));
    }
  } else if (a->is_const() && a->int_value() == 0) {
    return a;
  } else if (excludes_zero(b->range)) {
    if (Node* x = exact_quotient(*this, a, b)) return x;
  }
  if (a->range.lo >= 0 && b->range.lo > a->range.hi) return int_const(0);
  return intern(make(Op::FloorDiv, Type::Int, {a, b}));
}

Node* ShapeEnv::mod(Node* a, Node* b) {
  std::lock_guard<std::recursive_mutex> lock(mu_);  // symbol ranges may narrow meanwhile
  require_number(a, "mod");
  require_number(b, "mod");
  if (a->type == Type::Float || b->type == Type::Float) {
    Node* fa = to_float(a);
    Node* fb = to_float(b);
    if (fa->is_const() && fb->is_const()) return float_const(py_fmod(fa->float_value(), fb->float_value()));
    return intern(make(Op::Mod, Type::Float, {fa, fb}));
  }
  if (b->is_const()) {
    const int64_t k = b->int_value();
    check_divisor(k, "mod");
    if (a->is_const()) return int_const(py_mod(a->int_value(), k));
    if (k == 1 || k == -1) return int_const(0);
    if (k > 0) {
      std::vector<Term> q, rest;
      int64_t constant = 0;
      split_divisible(*this, a, k, q, rest, constant);
      a = sum_of(*this, std::move(rest), py_mod(constant, k));
      if (a->is_const()) return int_const(py_mod(a->int_value(), k));
    }
  } else if (excludes_zero(b->range) && exact_quotient(*this, a, b)) {
    return int_const(0);
  }
  if (a->range.lo >= 0 && b->range.lo > a->range.hi) return a;
  return intern(make(Op::Mod, Type::Int, {a, b}));
}

Node* ShapeEnv::pow(Node* a, Node* b) {
  std::lock_guard<std::recursive_mutex> lock(mu_);  // symbol ranges may narrow meanwhile
  require_number(a, "pow");
  require_number(b, "pow");
  if (a->type == Type::Float || b->type == Type::Float) {
    Node* fa = to_float(a);
    Node* fb = to_float(b);
    if (fa->is_const() && fb->is_const()) return float_const(std::pow(fa->float_value(), fb->float_value()));
    if (fb->is_const() && fb->float_value() == 1) return fa;
    return intern(make(Op::Pow, Type::Float, {fa, fb}));
  }
  if (b->is_const()) {
    const int64_t e = b->int_value();
    if (a->is_const() || e < 0) return int_const(int_pow(a->is_const() ? a->int_value() : 1, e));
    if (e == 0) return int_const(1);
    if (e == 1) return a;
  }
  if (a->is_const() && a->int_value() == 1) return a;
  return intern(make(Op::Pow, Type::Int, {a, b}));
}

Node* ShapeEnv::truediv(Node* a, Node* b) {
  std::lock_guard<std::recursive_mutex> lock(mu_);  // symbol ranges may narrow meanwhile
  require_number(a, "truediv");
  require_number(b, "truediv");
  Node* fa = to_float(a);
  Node* fb = to_float(b);
  if (fb->is_const()) {
    CT_CHECK(fb->float_value() != 0, CT_ERROR_INVALID_ARGUMENT, "symbolic truediv: division by zero");
    if (fa->is_const()) return float_const(fa->float_value() / fb->float_value());
    if (fb->float_value() == 1) return fa;
  }
  return intern(make(Op::TrueDiv, Type::Float, {fa, fb}));
}

// ---- relations (Note [Canonical relations]) ----

namespace {
Node* int_relation(ShapeEnv& env, Op op, Node* e) {
  if (e->is_const()) {
    const int64_t v = e->int_value();
    return env.bool_const(op == Op::Le ? v <= 0 : op == Op::Eq ? v == 0 : v != 0);
  }
  std::vector<Term> terms;
  int64_t c = 0;
  collect_terms(env, e, terms, c);
  int64_t g = 0;
  for (const Term& t : terms) g = gcd(g, t.coeff);
  if (op == Op::Le) {
    c = -py_floordiv(-c, g);  // g*x + c <= 0  <=>  x + ceil(c/g) <= 0
  } else {
    if (c % g != 0) return env.bool_const(op == Op::Ne);
    c /= g;
  }
  for (Term& t : terms) t.coeff /= g;
  Node* norm = sum_of(env, terms, c);
  if (op != Op::Le && norm->op == Op::Add) {  // make the first coefficient positive
    int64_t first;
    split_term(env, norm->args[0], first);
    if (first < 0) norm = env.neg(norm);
  } else if (op != Op::Le && norm->op == Op::Mul && norm->args[0]->is_const() && norm->args[0]->int_value() < 0) {
    norm = env.neg(norm);
  }
  return env.intern(make(op, Type::Bool, {norm}));
}

Node* float_relation(ShapeEnv& env, Op op, Node* a, Node* b) {
  a = env.to_float(a);
  b = env.to_float(b);
  if (a->is_const() && b->is_const()) {
    const double x = a->float_value(), y = b->float_value();
    return env.bool_const(op == Op::Lt ? x < y : op == Op::Le ? x <= y : op == Op::Eq ? x == y : x != y);
  }
  if ((op == Op::Eq || op == Op::Ne) && b->id < a->id) std::swap(a, b);
  Node n = make(op, Type::Bool, {a, b});
  return env.intern(std::move(n));
}

bool both_int(Node* a, Node* b, const char* op) {
  require_number(a, op);
  require_number(b, op);
  return a->type == Type::Int && b->type == Type::Int;
}
}  // namespace

Node* ShapeEnv::eq(Node* a, Node* b) {
  std::lock_guard<std::recursive_mutex> lock(mu_);  // symbol ranges may narrow meanwhile
  if (a == b) return bool_const(true);
  return both_int(a, b, "eq") ? int_relation(*this, Op::Eq, sub(a, b)) : float_relation(*this, Op::Eq, a, b);
}
Node* ShapeEnv::ne(Node* a, Node* b) {
  std::lock_guard<std::recursive_mutex> lock(mu_);  // symbol ranges may narrow meanwhile
  if (a == b) return bool_const(false);
  return both_int(a, b, "ne") ? int_relation(*this, Op::Ne, sub(a, b)) : float_relation(*this, Op::Ne, a, b);
}
Node* ShapeEnv::lt(Node* a, Node* b) {
  std::lock_guard<std::recursive_mutex> lock(mu_);  // symbol ranges may narrow meanwhile
  if (!both_int(a, b, "lt")) return float_relation(*this, Op::Lt, a, b);
  return int_relation(*this, Op::Le, add({a, neg(b), int_const(1)}));
}
Node* ShapeEnv::le(Node* a, Node* b) {
  std::lock_guard<std::recursive_mutex> lock(mu_);  // symbol ranges may narrow meanwhile
  return both_int(a, b, "le") ? int_relation(*this, Op::Le, sub(a, b)) : float_relation(*this, Op::Le, a, b);
}

// ---- logic ----

Node* ShapeEnv::logical_not(Node* a) {
  std::lock_guard<std::recursive_mutex> lock(mu_);  // symbol ranges may narrow meanwhile
  require(a, Type::Bool, "not");
  if (a->is_const()) return bool_const(!a->int_value());
  switch (a->op) {
    case Op::Not: return a->args[0];
    case Op::Le:
      if (a->args.size() == 1) return int_relation(*this, Op::Le, add({neg(a->args[0]), int_const(1)}));
      return float_relation(*this, Op::Lt, a->args[1], a->args[0]);
    case Op::Lt: return float_relation(*this, Op::Le, a->args[1], a->args[0]);
    case Op::Eq: return intern(make(Op::Ne, Type::Bool, a->args));
    case Op::Ne: return intern(make(Op::Eq, Type::Bool, a->args));
    default: return intern(make(Op::Not, Type::Bool, {a}));
  }
}

namespace {
// And (absorbing false) or Or (absorbing true): flattened, deduplicated, sorted.
Node* junction(ShapeEnv& env, Op op, const std::vector<Node*>& xs) {
  const bool absorbing = op == Op::Or;
  std::vector<Node*> args;
  for (Node* x : xs) {
    require(x, Type::Bool, op == Op::And ? "and" : "or");
    if (x->is_const()) {
      if ((x->int_value() != 0) == absorbing) return env.bool_const(absorbing);
      continue;
    }
    if (x->op == op) args.insert(args.end(), x->args.begin(), x->args.end());
    else args.push_back(x);
  }
  std::sort(args.begin(), args.end(), by_id);
  args.erase(std::unique(args.begin(), args.end()), args.end());
  if (args.empty()) return env.bool_const(!absorbing);
  if (args.size() == 1) return args[0];
  return env.intern(make(op, Type::Bool, std::move(args)));
}

// Min or Max: flattened, constants folded, duplicates and arguments another one dominates dropped.
Node* extremum(ShapeEnv& env, Op op, std::vector<Node*> xs) {
  CT_CHECK(!xs.empty(), CT_ERROR_INVALID_ARGUMENT, op == Op::Min ? "sym_min" : "sym_max", ": no arguments");
  const bool is_max = op == Op::Max;
  bool is_float = false;
  for (Node* x : xs) require_number(x, is_max ? "max" : "min"), is_float = is_float || x->type == Type::Float;
  std::vector<Node*> args;
  Node* best_const = nullptr;
  for (Node* x : xs) {
    if (is_float) x = env.to_float(x);
    for (Node* a : x->op == op ? x->args : std::vector<Node*>{x}) {
      if (!a->is_const()) { args.push_back(a); continue; }
      if (!best_const) { best_const = a; continue; }
      const bool better = is_float ? (is_max ? a->float_value() > best_const->float_value()
                                             : a->float_value() < best_const->float_value())
                                   : (is_max ? a->int_value() > best_const->int_value()
                                             : a->int_value() < best_const->int_value());
      if (better) best_const = a;
    }
  }
  std::sort(args.begin(), args.end(), by_id);
  args.erase(std::unique(args.begin(), args.end()), args.end());
  if (best_const) args.push_back(best_const);  // last, so max(s0, 1) reads as written
  if (!is_float) {  // drop an argument some other one always beats (see Note [Range facts])
    std::vector<Node*> kept;
    for (size_t i = 0; i < args.size(); ++i) {
      bool dominated = false;
      for (size_t j = 0; j < args.size() && !dominated; ++j) {
        if (i == j) continue;
        const Range a = args[i]->range, b = args[j]->range;
        const bool beats = is_max ? b.lo >= a.hi : b.hi <= a.lo;
        // Of two arguments that beat each other (equal points), keep the first.
        const bool mutual = is_max ? a.lo >= b.hi : a.hi <= b.lo;
        dominated = beats && !(mutual && i < j);
      }
      if (!dominated) kept.push_back(args[i]);
    }
    args = std::move(kept);
  }
  if (args.size() == 1) return args[0];
  return env.intern(make(op, is_float ? Type::Float : Type::Int, std::move(args)));
}
}  // namespace

Node* ShapeEnv::logical_and(std::vector<Node*> xs) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  return junction(*this, Op::And, xs);
}
Node* ShapeEnv::logical_or(std::vector<Node*> xs) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  return junction(*this, Op::Or, xs);
}
Node* ShapeEnv::min(std::vector<Node*> xs) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  return extremum(*this, Op::Min, std::move(xs));
}
Node* ShapeEnv::max(std::vector<Node*> xs) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  return extremum(*this, Op::Max, std::move(xs));
}

Node* ShapeEnv::ite(Node* c, Node* a, Node* b) {
  std::lock_guard<std::recursive_mutex> lock(mu_);  // symbol ranges may narrow meanwhile
  require(c, Type::Bool, "ite");
  if (a->type != b->type) {
    require_number(a, "ite");
    require_number(b, "ite");
    a = to_float(a);
    b = to_float(b);
  }
  if (c->is_const()) return c->int_value() ? a : b;
  if (a == b) return a;
  return intern(make(Op::Ite, a->type, {c, a, b}));
}

Node* ShapeEnv::to_float(Node* a) {
  std::lock_guard<std::recursive_mutex> lock(mu_);  // symbol ranges may narrow meanwhile
  if (a->type == Type::Float) return a;
  require_number(a, "sym_float");
  if (a->is_const()) return float_const(static_cast<double>(a->int_value()));
  return intern(make(Op::ToFloat, Type::Float, {a}));
}

Node* ShapeEnv::to_int(Node* a) {
  std::lock_guard<std::recursive_mutex> lock(mu_);  // symbol ranges may narrow meanwhile
  if (a->type == Type::Int) return a;
  require_number(a, "sym_int");
  if (a->op == Op::ToFloat) return a->args[0];
  if (a->is_const()) {
    const double v = std::trunc(a->float_value());
    CT_CHECK(std::isfinite(v) && v >= -9.2e18 && v <= 9.2e18, CT_ERROR_INVALID_ARGUMENT, "sym_int: ",
             a->float_value(), " does not fit an int64");
    return int_const(static_cast<int64_t>(v));
  }
  return intern(make(Op::ToInt, Type::Int, {a}));
}

}  // namespace ct::sym
