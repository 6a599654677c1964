// shape_env.h - ShapeEnv: owns the symbols and expression nodes of one tracing session, builds
// simplified expressions, records guards and runtime assertions, and evaluates under a binding.
//
// Note [Guards and runtime assertions]
// Branching on a symbolic bool (`if (n > 0)`) needs one answer now. With hints (backed symbols:
// the sizes seen when the symbols were made) the ShapeEnv evaluates the condition, records the fact
// it relied on as a guard (`s0 >= 1`), and answers; a compiled program is valid for exactly the
// bindings under which every guard holds. Unbacked symbols (u0: item() of a traced tensor) have no
// hint, so branching on them fails with CT_ERROR_GUARD; a check() on them is instead recorded as a
// runtime assertion to test when the value exists, and assumed from then on. Recorded facts of the
// form `s <= c`, `s >= c` or `s == c` narrow the symbol's range, which later simplifications use.
//
// Threads: every member function locks the env, so tensors with symbolic sizes may be read from
// several threads. eval_* read only immutable nodes; first_failing_guard runs the guards compiled
// to postfix code (program.h), compiling the ones recorded since its last run under the lock.
#pragma once

#include <atomic>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/array_ref.h"
#include "core/error.h"
#include "symbolic/node.h"
#include "symbolic/program.h"

namespace ct::sym {


struct SymbolInfo {
  std::string name;  // s0, u0, or the name a Dim gave
  bool backed;       // has a hint
  Node* node;
  Range declared;    // backed: the range it was created with; guards narrow node->range from it
};

class ShapeEnv {
 public:
  /// A new, empty env with one reference.
  static ShapeEnv* create();
  void retain() { refcount_.fetch_add(1, std::memory_order_relaxed); }
  void release() {
    if (refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

  // ---- symbols ----
  /// A backed Int symbol with value hint, known to lie in [min, max]; name "" gives "s<k>".
  /// CT_ERROR_INVALID_ARGUMENT when the hint lies outside [min, max] or min > max.
  Node* create_symbol(int64_t hint, int64_t min, int64_t max, const std::string& name = "");
  /// An unbacked symbol (u<k>, or f<k> / b<k> for Float / Bool): a value known only at run time.
  Node* create_unbacked(Type type);
  /// The symbols, in creation order. Not locked: for code that holds the env's lock (the printer,
  /// under to_string); other threads may add symbols meanwhile.
  const std::vector<SymbolInfo>& symbols() const { return symbols_; }
  size_t num_symbols() const;
  /// Each symbol's type, in creation order (what a binding's values are read as).
  std::vector<Type> symbol_types() const;

  // ---- simplifying constructors (simplify.cpp) ----
  Node* int_const(int64_t v);
  Node* float_const(double v);
  Node* bool_const(bool v);
  Node* add(std::vector<Node*> terms);  // sym_sum: one n-ary node
  Node* add(Node* a, Node* b) { return add(std::vector<Node*>{a, b}); }
  Node* sub(Node* a, Node* b);
  Node* neg(Node* a);
  Node* mul(std::vector<Node*> factors);
  Node* mul(Node* a, Node* b) { return mul(std::vector<Node*>{a, b}); }
  Node* floordiv(Node* a, Node* b);
  Node* mod(Node* a, Node* b);
  Node* pow(Node* a, Node* b);
  Node* truediv(Node* a, Node* b);
  Node* eq(Node* a, Node* b);
  Node* ne(Node* a, Node* b);
  Node* lt(Node* a, Node* b);
  Node* le(Node* a, Node* b);
  Node* gt(Node* a, Node* b) { return lt(b, a); }
  Node* ge(Node* a, Node* b) { return le(b, a); }
  Node* logical_and(std::vector<Node*> xs);
  Node* logical_or(std::vector<Node*> xs);
  Node* logical_not(Node* a);
  Node* min(std::vector<Node*> xs);
  Node* max(std::vector<Node*> xs);
  Node* ite(Node* c, Node* a, Node* b);
  Node* to_float(Node* a);
  Node* to_int(Node* a);

  // ---- guards (see Note [Guards and runtime assertions]) ----
  /// The value of a Bool node under the hints; records the guard it relies on.
  bool guard_bool(Node* b);
  /// The value of an Int node under the hints; records `n == value`.
  int64_t guard_int(Node* n);
  double guard_float(Node* n);
  /// The value of an Int node when the facts recorded so far (guards, runtime assertions) allow
  /// only one, else nullopt; records no guard. A node's range is refreshed lazily, so this can
  /// know a value its cached range does not show yet.
  std::optional<int64_t> known_int(Node* n);
  /// Requires cond: fails with (status, message) when it is false under the hints (recording the
  /// guard otherwise); a condition on unbacked symbols becomes a runtime assertion instead.
  void check(Node* cond, ct_status status, const std::string& message);
  /// The recorded guards, deduplicated, each a fact that held under the hints.
  std::vector<Node*> guards() const;
  size_t num_guards() const;
  /// Times a concrete answer was asked of a symbolic bool or int (guards before deduplication).
  uint64_t guard_requests() const { return guard_requests_.load(std::memory_order_relaxed); }
  std::vector<std::pair<Node*, std::string>> runtime_asserts() const;
  /// {"symbols": [...], "guards": [...], "runtime_asserts": [...]}: each expression as a string.
  std::string to_json() const;

  // ---- evaluation ----
  int64_t eval_int(const Node* n, ArrayRef<BoundValue> binding) const;
  double eval_float(const Node* n, ArrayRef<BoundValue> binding) const;
  bool eval_bool(const Node* n, ArrayRef<BoundValue> binding) const;
  /// Index of the first guard or runtime assertion that fails under binding, or -1 when all hold.
  /// binding has one value per symbol, in creation order.
  int64_t first_failing_guard(ArrayRef<BoundValue> binding) const;

  /// Python-style text of n: `2*s0 + 1`, `s0 >= 1`, `max(s0, s1)`.
  std::string to_string(const Node* n) const;

  /// The last step of every simplifying constructor: computes proto's range and hint, folds it to
  /// a constant when its range is one point, and returns the interned node (Note [Hash-consed
  /// expressions]). proto's arguments must already be canonical.
  Node* intern(Node&& proto);

 private:
  ShapeEnv() = default;
  ~ShapeEnv() = default;
  void record_guard(Node* fact);
  void narrow(Node* fact);
  void refresh(Node* n);

  mutable std::recursive_mutex mu_;
  std::atomic<int32_t> refcount_{1};
  std::atomic<uint64_t> guard_requests_{0};
  std::deque<Node> nodes_;  // stable addresses
  std::unordered_multimap<uint64_t, Node*> interned_;  // by structural hash (Note [Hash-consed expressions])
  std::vector<SymbolInfo> symbols_;
  uint32_t unbacked_ = 0;
  uint32_t epoch_ = 0;  // bumped whenever a fact narrows a symbol's range
  std::vector<Node*> guards_;
  std::vector<std::pair<Node*, std::string>> asserts_;
  // guards_ and asserts_ compiled for first_failing_guard, brought up to date when it runs.
  mutable Program guard_code_, assert_code_;
};

}  // namespace ct::sym
