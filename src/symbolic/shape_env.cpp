// shape_env.cpp - symbols, guards, runtime assertions and the env's JSON report.
#include "symbolic/shape_env.h"

#include <algorithm>

#include "runtime/json.h"

namespace ct::sym {
namespace {
std::string quoted(const std::string& s) {
  std::string out;
  runtime::append_json_string(out, s.c_str());
  return out;
}
}  // namespace

ShapeEnv* ShapeEnv::create() { return new ShapeEnv(); }

Node* ShapeEnv::create_symbol(int64_t hint, int64_t min, int64_t max, const std::string& name) {
  CT_CHECK(min <= max && min <= hint && hint <= max, CT_ERROR_INVALID_ARGUMENT, "ShapeEnv.create_symbol",
           name.empty() ? "" : " ", name, ": the hint ", hint, " must lie in [min, max] = [", min, ", ", max,
           "]. Give a hint inside the range, or widen it");
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const size_t index = symbols_.size();
  Node n{};
  n.op = Op::Symbol;
  n.type = Type::Int;
  n.has_hint = true;
  n.hint.i = hint;
  n.value.i = static_cast<int64_t>(index);
  n.range = {min, max};
  n.env = this;
  n.id = static_cast<uint32_t>(nodes_.size());
  nodes_.push_back(std::move(n));
  symbols_.push_back({name.empty() ? "s" + std::to_string(index - unbacked_) : name, true, &nodes_.back(), {min, max}});
  return &nodes_.back();
}

Node* ShapeEnv::create_unbacked(Type type) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const size_t index = symbols_.size();
  Node n{};
  n.op = Op::Symbol;
  n.type = type;
  n.has_hint = false;
  n.value.i = static_cast<int64_t>(index);
  n.range = type == Type::Bool ? Range{0, 1} : Range{};
  n.env = this;
  n.id = static_cast<uint32_t>(nodes_.size());
  nodes_.push_back(std::move(n));
  const char* prefix = type == Type::Int ? "u" : type == Type::Float ? "f" : "b";
  symbols_.push_back({prefix + std::to_string(unbacked_++), false, &nodes_.back(), {}});
  return &nodes_.back();
}


// ---- guards ----

// Narrows a symbol's range from a fact of the form s <= c, s >= c or s == c (after
// canonicalization, a relation over one symbol with coefficient +-1 and a constant).
void ShapeEnv::narrow(Node* fact) {
  if (fact->op == Op::And) {
    for (Node* a : fact->args) narrow(a);
    return;
  }
  if ((fact->op != Op::Le && fact->op != Op::Eq) || fact->args.size() != 1) return;
  const Node* e = fact->args[0];
  std::vector<const Node*> terms(e->args.begin(), e->args.end());
    if (e->op != Op::Add) terms.assign(1, e);
  int64_t c = 0, coeff = 1;
  Node* sym = nullptr;
  for (const Node* t : terms) {
    if (t->is_const()) { c = t->int_value(); continue; }
    if (sym) return;  // more than one symbol
    if (t->op == Op::Symbol) sym = const_cast<Node*>(t);
    else if (t->op == Op::Mul && t->args.size() == 2 && t->args[0]->is_const() && t->args[1]->op == Op::Symbol)
      coeff = t->args[0]->int_value(), sym = t->args[1];
    else return;
  }
  if (!sym || (coeff != 1 && coeff != -1)) return;
  Range& r = sym->range;
  const Range before = r;
  if (fact->op == Op::Eq) {
    r = {-c * coeff, -c * coeff};
  } else if (coeff == 1) {  // s + c <= 0
    r.hi = std::min(r.hi, -c);
  } else {  // -s + c <= 0
    r.lo = std::max(r.lo, c);
  }
  if (r.lo != before.lo || r.hi != before.hi) ++epoch_;
}

void ShapeEnv::record_guard(Node* fact) {
  if (fact->is_const()) return;
  if (std::find(guards_.begin(), guards_.end(), fact) != guards_.end()) return;
  guards_.push_back(fact);
  narrow(fact);
}

namespace {
[[noreturn]] void data_dependent(const ShapeEnv& env, const Node* n) {
  fail(CT_ERROR_GUARD, str("could not decide `", env.to_string(n),
                           "`: it depends on a value known only when the program runs (an unbacked symbol "
                           "from item() or a data-dependent size). Use sym_max/sym_min/sym_ite instead of "
                           "branching, or check() the condition so it becomes a runtime assertion"));
}
}  // namespace

bool ShapeEnv::guard_bool(Node* b) {
  CT_CHECK(b->type == Type::Bool, CT_ERROR_INVALID_ARGUMENT, "guard_bool: not a bool expression");
  if (b->is_const()) return b->int_value() != 0;
  std::lock_guard<std::recursive_mutex> lock(mu_);
  refresh(b);
  if (b->range.is_point()) return b->range.lo != 0;  // decided by facts recorded since it was built
  guard_requests_.fetch_add(1, std::memory_order_relaxed);
  if (!b->has_hint) data_dependent(*this, b);
  const bool v = b->hint.i != 0;
  record_guard(v ? b : logical_not(b));
  return v;
}

std::optional<int64_t> ShapeEnv::known_int(Node* n) {
  CT_CHECK(n->type == Type::Int, CT_ERROR_INVALID_ARGUMENT, "known_int: not an int expression");
  if (n->is_const()) return n->int_value();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  refresh(n);
  if (n->range.is_point()) return n->range.lo;
  return std::nullopt;
}

int64_t ShapeEnv::guard_int(Node* n) {
  CT_CHECK(n->type == Type::Int, CT_ERROR_INVALID_ARGUMENT, "guard_int: not an int expression");
  if (n->is_const()) return n->int_value();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  refresh(n);
  if (n->range.is_point()) return n->range.lo;
  guard_requests_.fetch_add(1, std::memory_order_relaxed);
  if (!n->has_hint) data_dependent(*this, n);
  record_guard(eq(n, int_const(n->hint.i)));
  return n->hint.i;
}

double ShapeEnv::guard_float(Node* n) {
  if (n->type == Type::Int) return static_cast<double>(guard_int(n));
  CT_CHECK(n->type == Type::Float, CT_ERROR_INVALID_ARGUMENT, "guard_float: not a number expression");
  if (n->is_const()) return n->float_value();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  guard_requests_.fetch_add(1, std::memory_order_relaxed);
  if (!n->has_hint) data_dependent(*this, n);
  record_guard(eq(n, float_const(n->hint.f)));
  return n->hint.f;
}

void ShapeEnv::check(Node* cond, ct_status status, const std::string& message) {
  CT_CHECK(cond->type == Type::Bool, CT_ERROR_INVALID_ARGUMENT, "check: not a bool expression");
  if (cond->is_const()) {
    if (!cond->int_value()) fail(status, message);
    return;
  }
  std::lock_guard<std::recursive_mutex> lock(mu_);
  refresh(cond);
  if (cond->range.is_point()) {
    if (cond->range.lo == 0) fail(status, message);
    return;
  }
  if (cond->has_hint) {
    if (!guard_bool(cond)) fail(status, message);
    return;
  }
  for (auto& a : asserts_)
    if (a.first == cond) return;
  asserts_.push_back({cond, message});
  narrow(cond);
}

size_t ShapeEnv::num_symbols() const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  return symbols_.size();
}

std::vector<Type> ShapeEnv::symbol_types() const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  std::vector<Type> types;
  for (const SymbolInfo& s : symbols_) types.push_back(s.node->type);
  return types;
}

std::vector<Node*> ShapeEnv::guards() const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  return guards_;
}

size_t ShapeEnv::num_guards() const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  return guards_.size();
}

std::vector<std::pair<Node*, std::string>> ShapeEnv::runtime_asserts() const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  return asserts_;
}

int64_t ShapeEnv::first_failing_guard(ArrayRef<BoundValue> binding) const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  while (guard_code_.num_roots() < guards_.size()) guard_code_.add_root(guards_[guard_code_.num_roots()]);
  while (assert_code_.num_roots() < asserts_.size()) assert_code_.add_root(asserts_[assert_code_.num_roots()].first);
  CT_CHECK(binding.size() == symbols_.size(), CT_ERROR_INVALID_ARGUMENT, "check guards: the binding has ",
           binding.size(), " values but the env has ", symbols_.size(),
           " symbols. Bind every symbol of the ShapeEnv, in creation order");
  const int64_t g = guard_code_.first_false(binding);
  if (g >= 0) return g;
  const int64_t a = assert_code_.first_false(binding);
  return a >= 0 ? static_cast<int64_t>(guards_.size()) + a : -1;
}

std::string ShapeEnv::to_json() const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  std::string out = "{\"symbols\": [";
  for (size_t i = 0; i < symbols_.size(); ++i) {
    const SymbolInfo& s = symbols_[i];
    const Node* n = s.node;
    out += i ? ", " : "";
    out += "{\"name\": " + quoted(s.name) + ", \"type\": \"" +
           (n->type == Type::Int ? "int" : n->type == Type::Float ? "float" : "bool") + "\", \"backed\": " +
           (s.backed ? "true" : "false");
    if (s.backed) out += ", \"hint\": " + std::to_string(n->hint.i);
    if (n->type == Type::Int) {
      if (n->range.lo != Range::kNegInf) out += ", \"min\": " + std::to_string(n->range.lo);
      if (n->range.hi != Range::kPosInf) out += ", \"max\": " + std::to_string(n->range.hi);
    }
    out += "}";
  }
  out += "], \"guards\": [";
  for (size_t i = 0; i < guards_.size(); ++i) out += (i ? ", " : "") + quoted(to_string(guards_[i]));
  out += "], \"runtime_asserts\": [";
  for (size_t i = 0; i < asserts_.size(); ++i)
    out += std::string(i ? ", " : "") + "{\"expr\": " + quoted(to_string(asserts_[i].first)) +
           ", \"message\": " + quoted(asserts_[i].second) + "}";
  out += "]}";
  return out;
}

}  // namespace ct::sym
